// RUN: not blk-opt --split-input-file %s 2>&1 | filecheck %s
// RUN: not blk-opt --split-input-file %s 2>&1 | filecheck %s --check-prefix=NOTRACE
// RUN: not blk-opt < %s 2>&1 | filecheck %s --check-prefix=STDIN

// Parse errors are located (file:line:col, the source line, a caret), keep their true
// line numbers in every chunk, and never show a traceback.
// NOTRACE-NOT: Traceback
// NOTRACE-NOT: builtin.module

func.func @undefined_value() -> i32 {
  %0 = arith.addi %a, %a : i32
  func.return %0 : i32
}
// CHECK:      parse-errors.mlir:[[# @LINE - 3]]:19: error: use of undefined value '%a'
// CHECK-NEXT:   %0 = arith.addi %a, %a : i32
// CHECK-NEXT: {{^                  \^$}}

// -----

func.func @unknown_op() {
  "nosuch.op"() : () -> ()
  func.return
}
// CHECK:      parse-errors.mlir:[[# @LINE - 3]]:3: error: Operation nosuch.op is not registered
// CHECK-NEXT:   "nosuch.op"() : () -> ()
// CHECK-NEXT: {{^  \^$}}
// Without --split-input-file the first error stops blk-opt; stdin is named <stdin>.
// STDIN:      <stdin>:[[# @LINE - 7]]:3: error: Operation nosuch.op is not registered
// STDIN-NOT:  error

// -----

// An attribute that its builder refuses is a parse error at the attribute.
func.func @out_of_range() {
  %0 = "test.op"() {value = 300 : i8} : () -> i32
  func.return
}
// CHECK:      parse-errors.mlir:[[# @LINE - 3]]:29: error: Integer value 300 is out of range for type i8 which
// CHECK-NEXT:   %0 = "test.op"() {value = 300 : i8} : () -> i32
// CHECK-NEXT: {{^                            \^$}}

// -----

// So is a value that an op's custom syntax builds into an invalid attribute.
func.func @constant_out_of_range() {
  %0 = arith.constant 300 : i8
  func.return
}
// CHECK:      parse-errors.mlir:[[# @LINE - 3]]:23: error: Integer value 300 is out of range for type i8
// CHECK-NEXT:   %0 = arith.constant 300 : i8
// CHECK-NEXT: {{^                      \^$}}

// -----

func.func @missing_type(%a: i32) {
  %0 = arith.addi %a, %a
  func.return
}
// CHECK:      parse-errors.mlir:[[# @LINE - 2]]:3: error: Expected ':'
