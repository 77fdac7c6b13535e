// RUN: not blk-opt -p no-such-pass %s 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not blk-opt -p to-strct %s 2>&1 | filecheck %s --check-prefix=CLOSE
// RUN: not blk-opt -p 'canonicalize{no-such-option=1}' %s 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not blk-opt -p 'canonicalize,cse{' %s 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not blk-opt -p 'canonicalize}' %s 2>&1 | filecheck %s --check-prefix=TRAILING
// RUN: blk-opt -p 'canonicalize,cse' %s | filecheck %s

// Bad pass pipelines are reported as errors (status 1), without a traceback.
// UNKNOWN: error: 'no-such-pass' does not refer to a registered pass
// UNKNOWN-NOT: Traceback
// CLOSE: error: 'to-strct' does not refer to a registered pass; did you mean 'to-strict'?
// OPTION: error: invalid options for pass 'canonicalize': {{.*}}no_such_option
// OPTION-NOT: Traceback
// SYNTAX: <pass-pipeline>:1:18: error: invalid pass pipeline:
// SYNTAX-NEXT: canonicalize,cse{
// SYNTAX-NEXT: {{^                 \^$}}
// SYNTAX-NOT: Traceback
// TRAILING: <pass-pipeline>:1:13: error: invalid pass pipeline: Expected a comma
// TRAILING-NOT: Traceback

// CHECK-LABEL: func.func @f
// CHECK-NEXT:    func.return
func.func @f(%a: i32) {
  %0 = arith.addi %a, %a : i32
  func.return
}
