// RUN: blk-opt --version | filecheck %s

// CHECK: blk-opt (blkc {{[0-9.]+}}) built with xDSL {{[0-9.]+}}
