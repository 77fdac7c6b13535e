// RUN: not blk-opt --split-input-file --verify-diagnostics %s 2>&1 | filecheck %s
// RUN: not blk-opt --split-input-file --verify-diagnostics %s 2>&1 | filecheck %s --check-prefix=NOTRACE

// --verify-diagnostics fails (status 1) when an expectation is not produced, when a
// diagnostic is not expected, on the wrong line, or of another severity; each chunk is
// checked on its own, with its true line numbers.
// NOTRACE-NOT: Traceback

// A missing error: the op is valid.
func.func @missing(%a: i32) -> i32 {
  // expected-error @+1 {{this op is fine}}
  %0 = arith.addi %a, %a : i32
  func.return %0 : i32
}
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE - 4]]:6: error: expected error "this op is fine" was not produced
// CHECK-NEXT: // expected-error @+1 {{[{][{]}}this op is fine{{[}][}]}}
// CHECK-NEXT: {{^     \^$}}

// -----

// An unexpected error: no annotation.
func.func @unexpected(%a: i32, %b: i64) -> i32 {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %0 : i32
}
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE - 3]]:3: error: unexpected error: 'arith.addi' op operand 'rhs'
// CHECK-NEXT:   %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
// CHECK-NEXT: {{^  \^$}}

// -----

// The right message on the wrong line is both unexpected and not produced.
func.func @wrong_line(%a: i32, %b: i64) -> i32 {
  // expected-error @+2 {{'arith.addi' op}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %0 : i32
}
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE - 3]]:3: error: unexpected error: 'arith.addi' op
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE - 5]]:6: error: expected error "'arith.addi' op" was not produced

// -----

// The right line and message with another severity does not match either.
func.func @wrong_severity(%a: i32, %b: i64) -> i32 {
  // expected-warning @+1 {{'arith.addi' op}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %0 : i32
}
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE - 3]]:3: error: unexpected error: 'arith.addi' op
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE - 5]]:6: error: expected warning "'arith.addi' op" was not produced

// -----

// A message that is not a substring of the produced one.
func.func @wrong_message(%a: i32, %b: i64) -> i32 {
  // expected-error @+1 {{but got i32}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %0 : i32
}
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE - 3]]:3: error: unexpected error: {{.*}} but got i64
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE - 5]]:6: error: expected error "but got i32" was not produced
