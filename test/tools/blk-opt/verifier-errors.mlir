// RUN: not blk-opt --split-input-file %s 2>&1 | filecheck %s
// RUN: not blk-opt --split-input-file %s 2>&1 | filecheck %s --check-prefix=NOTRACE

// Verifier errors are located at the failing op, carry xDSL's message on one line
// prefixed with the op name (as MLIR's), and show neither a traceback nor a module dump.
// NOTRACE-NOT: Traceback
// NOTRACE-NOT: builtin.module
// NOTRACE-NOT: Operation does not verify

func.func @mismatched_operands(%a: i32, %b: i64) -> i32 {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %0 : i32
}
// CHECK:      verifier-errors.mlir:[[# @LINE - 3]]:3: error: 'arith.addi' op operand 'rhs' at position 1 does not verify: attribute i32 expected from variable 'T', but got i64
// CHECK-NEXT:   %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
// CHECK-NEXT: {{^  \^$}}

// -----

// Only the first failing op is reported, in pre-order (the func before its body).
func.func @two_errors(%a: i32) -> i64 {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64
  %1 = "arith.muli"(%a, %a) : (i32, i32) -> i64
  func.return %0 : i64
}
// CHECK:      verifier-errors.mlir:[[# @LINE - 4]]:3: error: 'arith.addi' op
// CHECK-NOT:  arith.muli

// -----

// An op nested in a region: the location is the op's own, not its parent's.
func.func @nested(%c: i1, %a: i32) {
  scf.if %c {
    %0 = "arith.addi"(%a, %c) : (i32, i1) -> i32
  }
  func.return
}
// CHECK:      verifier-errors.mlir:[[# @LINE - 4]]:5: error: 'arith.addi' op operand 'rhs'
