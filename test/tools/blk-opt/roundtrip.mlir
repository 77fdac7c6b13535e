// RUN: %roundtrip %s
// RUN: %roundtrip %s --split-input-file

// The round-trip macro on builtin, func and arith ops.

// CHECK-LABEL: func.func @add
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    func.return %[[SUM]] : i32
func.func @add(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  func.return %0 : i32
}

// -----

// CHECK-LABEL: func.func @constants
// CHECK:         arith.constant 3.000000e+00 : f32
// CHECK:         arith.constant dense<1> : tensor<4xi32>
func.func @constants() -> (f32, tensor<4xi32>) {
  %f = "arith.constant"() {value = 3.0 : f32} : () -> f32
  %t = arith.constant dense<1> : tensor<4xi32>
  func.return %f, %t : f32, tensor<4xi32>
}
