// RUN: blk-opt --verify-diagnostics %s | filecheck %s

// A valid file without annotations passes --verify-diagnostics and is printed.

// CHECK: func.func @f
func.func @f() {
  func.return
}
