// RUN: blk-opt --split-input-file --verify-diagnostics %s
// Every verifier branch of blk.sort and blk.bitonic_merge.

func.func @scalar(%x: f32) {
  // expected-error @+1 {{sorts a block, got the scalar type f32}}
  %r = blk.sort %x axis = 0 : f32 -> f32
  func.return
}

// -----

func.func @pointers(%x: tensor<8x!blk.ptr<f32>>) {
  // expected-error @+1 {{operand 'src' has type tensor<8x!blk.ptr<f32>>; expected a number (bool, integer or float)}}
  %r = blk.sort %x axis = 0 : tensor<8x!blk.ptr<f32>> -> tensor<8x!blk.ptr<f32>>
  func.return
}

// -----

func.func @axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{axis 2 is out of range for tensor<4x8xf32>}}
  %r = blk.sort %x axis = 2 : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @length(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{axis 1 of tensor<4x6xf32> has 6 elements; a bitonic network needs a power of two}}
  %r = blk.sort %x axis = 1 : tensor<4x6xf32> -> tensor<4x6xf32>
  func.return
}

// -----

func.func @merge_length(%x: tensor<12xi32>) {
  // expected-error @+1 {{axis 0 of tensor<12xi32> has 12 elements; a bitonic network needs a power of two}}
  %r = blk.bitonic_merge %x axis = 0 : tensor<12xi32> -> tensor<12xi32>
  func.return
}

// -----

func.func @result_dtype(%x: tensor<8xf32>) {
  // expected-error @+1 {{result has type tensor<8xf16>; expected tensor<8xf32>}}
  %r = blk.sort %x axis = 0 : tensor<8xf32> -> tensor<8xf16>
  func.return
}

// -----

func.func @topk_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result has type tensor<4x8xf32>; expected tensor<4x2xf32>}}
  %r = blk.sort %x axis = 1 k = 2 : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @k_not_power_of_two(%x: tensor<8xf32>) {
  // expected-error @+1 {{k = 3 must be a power of two no larger than the 8 elements along the axis}}
  %r = blk.sort %x axis = 0 k = 3 : tensor<8xf32> -> tensor<3xf32>
  func.return
}

// -----

func.func @k_too_large(%x: tensor<8xf32>) {
  // expected-error @+1 {{k = 16 must be a power of two no larger than the 8 elements along the axis}}
  %r = blk.sort %x axis = 0 k = 16 : tensor<8xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @k_zero(%x: tensor<8xf32>) {
  // expected-error @+1 {{k = 0 must be a power of two no larger than the 8 elements along the axis}}
  %r = blk.sort %x axis = 0 k = 0 : tensor<8xf32> -> tensor<8xf32>
  func.return
}

// -----

func.func @merge_result(%x: tensor<8xi32>) {
  // expected-error @+1 {{result has type tensor<4xi32>; expected tensor<8xi32>}}
  %r = blk.bitonic_merge %x axis = 0 descending : tensor<8xi32> -> tensor<4xi32>
  func.return
}

// -----

func.func @scalar_with_k(%x: f32) {
  // expected-error @+1 {{sorts a block, got the scalar type f32}}
  %r = blk.sort %x axis = 0 k = 2 : f32 -> f32
  func.return
}

// -----

func.func @axis_with_k(%x: tensor<8xf32>) {
  // expected-error @+1 {{axis 1 is out of range for tensor<8xf32>}}
  %r = blk.sort %x axis = 1 k = 2 : tensor<8xf32> -> tensor<2xf32>
  func.return
}
