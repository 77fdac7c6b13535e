// RUN: not %roundtrip %s 2>&1 | filecheck %s --check-prefix=ERR

// The round-trip macro runs FileCheck: a CHECK line the output does not satisfy makes it
// fail (this file's CHECK line is wrong on purpose).

// CHECK: arith.muli
// ERR: error: Couldn{{.}}t match "arith.muli"
func.func @add(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  func.return %0 : i32
}
