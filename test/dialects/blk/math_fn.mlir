// RUN: %roundtrip %s

// blk.math and blk.math2 in custom syntax: printed, reparsed and printed again, and
// through the generic form back to the same custom form.

// CHECK-LABEL: func.func @math_fn(
// CHECK-NEXT: %[[A:.*]] = blk.math "cbrt" %[[X:.*]] : tensor<16xf32>
// CHECK-NEXT: %[[B:.*]] = blk.math "lgamma" %[[D:.*]] : f64
// CHECK-NEXT: %[[C:.*]] = blk.math2 "atan2" %[[A]], %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[E:.*]] = blk.math2 "pow" %[[X]], %[[H:.*]] : tensor<16xf32>, tensor<16xf16> -> tensor<16xf32>
func.func @math_fn(%x: tensor<16xf32>, %d: f64, %h: tensor<16xf16>) {
  %a = blk.math "cbrt" %x : tensor<16xf32>
  %b = blk.math "lgamma" %d : f64
  %c = blk.math2 "atan2" %a, %x : tensor<16xf32>
  %e = blk.math2 "pow" %x, %h : tensor<16xf32>, tensor<16xf16> -> tensor<16xf32>
  func.return
}
