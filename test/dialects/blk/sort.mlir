// RUN: %roundtrip %s

// blk.sort and blk.bitonic_merge in custom syntax: printed, reparsed and printed again,
// and through the generic form back to the same custom form.

// CHECK-LABEL: func.func @sort(
// CHECK-NEXT: %[[S:.*]] = blk.sort %[[X:.*]] axis = 1 : tensor<4x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[D:.*]] = blk.sort %[[X]] axis = 1 descending : tensor<4x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[T:.*]] = blk.sort %[[V:.*]] axis = 0 descending k = 4 : tensor<16xui8> -> tensor<4xui8>
// CHECK-NEXT: %[[A:.*]] = blk.sort %[[X]] axis = 0 k = 1 : tensor<4x16xf32> -> tensor<1x16xf32>
// CHECK-NEXT: %[[B:.*]] = blk.sort %[[P:.*]] axis = 0 : tensor<2xi1> -> tensor<2xi1>
func.func @sort(%x: tensor<4x16xf32>, %v: tensor<16xui8>, %p: tensor<2xi1>) {
  %s = blk.sort %x axis = 1 : tensor<4x16xf32> -> tensor<4x16xf32>
  %d = blk.sort %x axis = 1 descending : tensor<4x16xf32> -> tensor<4x16xf32>
  %t = blk.sort %v axis = 0 descending k = 4 : tensor<16xui8> -> tensor<4xui8>
  %a = blk.sort %x axis = 0 k = 1 : tensor<4x16xf32> -> tensor<1x16xf32>
  %b = blk.sort %p axis = 0 : tensor<2xi1> -> tensor<2xi1>
  func.return
}

// CHECK-LABEL: func.func @bitonic_merge(
// CHECK-NEXT: %[[M:.*]] = blk.bitonic_merge %[[X:.*]] axis = 1 : tensor<2x8xbf16> -> tensor<2x8xbf16>
// CHECK-NEXT: %[[N:.*]] = blk.bitonic_merge %[[X]] axis = 0 descending : tensor<2x8xbf16> -> tensor<2x8xbf16>
func.func @bitonic_merge(%x: tensor<2x8xbf16>) {
  %m = blk.bitonic_merge %x axis = 1 : tensor<2x8xbf16> -> tensor<2x8xbf16>
  %n = blk.bitonic_merge %x axis = 0 descending : tensor<2x8xbf16> -> tensor<2x8xbf16>
  func.return
}
