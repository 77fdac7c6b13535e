// RUN: blk-opt --split-input-file --verify-diagnostics %s -p warn-lossy-casts | filecheck %s
// Only implicit casts warn, and only when some source value has no exact target value.

// CHECK-LABEL: func.func @lossy
func.func @lossy(%i64: tensor<16xi64>, %i32: tensor<16xi32>, %f32: tensor<16xf32>, %f16: tensor<16xf16>, %u16: tensor<16xui16>, %bf: tensor<16xbf16>) {
  // expected-warning @+1 {{implicit cast from int64 to float32 can lose information: float32 holds integers exactly only up to 2**24; int64 values need up to 63 bits}}
  %a = blk.cast %i64 implicit : tensor<16xi64> -> tensor<16xf32>
  // expected-warning @+1 {{implicit cast from int32 to float16 can lose information}}
  %b = blk.cast %i32 implicit : tensor<16xi32> -> tensor<16xf16>
  // expected-warning @+1 {{implicit cast from float32 to bfloat16 can lose information: bfloat16 keeps 8 significant bits of the 24 of float32}}
  %c = blk.cast %f32 implicit : tensor<16xf32> -> tensor<16xbf16>
  // expected-warning @+1 {{implicit cast from float16 to bfloat16 can lose information}}
  %d = blk.cast %f16 implicit : tensor<16xf16> -> tensor<16xbf16>
  // expected-warning @+1 {{implicit cast from float32 to int32 can lose information: the fraction is dropped}}
  %e = blk.cast %f32 implicit : tensor<16xf32> -> tensor<16xi32>
  // expected-warning @+1 {{implicit cast from int32 to uint32 can lose information: int32 values outside [0, 4294967295] wrap around}}
  %f = blk.cast %i32 implicit : tensor<16xi32> -> tensor<16xui32>
  // expected-warning @+1 {{implicit cast from uint16 to float16 can lose information: float16 holds integers exactly only up to 2**11; uint16 values need up to 16 bits}}
  %g = blk.cast %u16 implicit : tensor<16xui16> -> tensor<16xf16>
  // expected-warning @+1 {{implicit cast from bfloat16 to float16 can lose information: bfloat16 values above 65504 overflow float16}}
  %h = blk.cast %bf implicit : tensor<16xbf16> -> tensor<16xf16>
  func.return
}

// -----

// CHECK-LABEL: func.func @exact
// CHECK-COUNT-5: blk.cast
func.func @exact(%i8: tensor<16xi8>, %i32: tensor<16xi32>, %f16: tensor<16xf16>, %b: tensor<16xi1>) {
  %a = blk.cast %i8 implicit : tensor<16xi8> -> tensor<16xf16>
  %c = blk.cast %i32 implicit : tensor<16xi32> -> tensor<16xf64>
  %d = blk.cast %f16 implicit : tensor<16xf16> -> tensor<16xf32>
  %e = blk.cast %b implicit : tensor<16xi1> -> tensor<16xf16>
  // Explicit casts never warn, lossy or not.
  %f = blk.cast %i32 : tensor<16xi32> -> tensor<16xf16>
  func.return
}
