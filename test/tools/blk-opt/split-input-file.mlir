// RUN: not blk-opt --split-input-file %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=ERR --input-file %t.err

// Chunks are processed independently: a failing chunk does not stop the others, output
// chunks are separated by `// -----`, errors keep the file's line numbers, and the
// status is 1 because a chunk failed.

// CHECK:      func.func @first
// CHECK-NEXT:   func.return
func.func @first() {
  func.return
}

// -----

// CHECK:      // -----
// CHECK-NEXT: // -----
func.func @second(%a: i32, %b: i64) -> i32 {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %0 : i32
}
// ERR: split-input-file.mlir:[[# @LINE - 3]]:3: error: 'arith.addi' op

// -----

// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @third
func.func @third() {
  func.return
}

// -----

func.func @fourth() {
  %0 = arith.addi %undefined, %undefined : i32
}
// ERR: split-input-file.mlir:[[# @LINE - 2]]:19: error: use of undefined value '%undefined'
// ERR-NOT: error
