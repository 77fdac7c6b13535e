// RUN: %roundtrip %s

// blk.gather in custom syntax: printed, reparsed and printed again, and through the
// generic form back to the same custom form.

// CHECK-LABEL: func.func @gather(
// CHECK-NEXT: %[[R:.*]] = blk.gather %[[X:.*]][%[[I:.*]]] axis = 1 : tensor<4x8xf32>, tensor<4x2xi32> -> tensor<4x2xf32>
// CHECK-NEXT: %[[F:.*]] = blk.gather %[[V:.*]][%[[J:.*]]] axis = 0 in_range : tensor<16xi64>, tensor<16xui8> -> tensor<16xi64>
// CHECK-NEXT: %[[P:.*]] = blk.gather %[[Q:.*]][%[[K:.*]]] axis = 0 : tensor<8x!blk.ptr<f32>>, tensor<32xi32> -> tensor<32x!blk.ptr<f32>>
func.func @gather(%x: tensor<4x8xf32>, %i: tensor<4x2xi32>, %v: tensor<16xi64>, %j: tensor<16xui8>, %q: tensor<8x!blk.ptr<f32>>, %k: tensor<32xi32>) {
  %r = blk.gather %x[%i] axis = 1 : tensor<4x8xf32>, tensor<4x2xi32> -> tensor<4x2xf32>
  %f = blk.gather %v[%j] axis = 0 in_range : tensor<16xi64>, tensor<16xui8> -> tensor<16xi64>
  %p = blk.gather %q[%k] axis = 0 : tensor<8x!blk.ptr<f32>>, tensor<32xi32> -> tensor<32x!blk.ptr<f32>>
  func.return
}
