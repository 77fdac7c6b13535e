// RUN: blk-opt --split-input-file --verify-diagnostics %s
// Every verifier branch of blk.gather.

func.func @float_index(%x: tensor<8xf32>, %i: tensor<8xf32>) {
  // expected-error @+1 {{operand 'index' has type tensor<8xf32>; expected an integer}}
  %r = blk.gather %x[%i] axis = 0 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  func.return
}

// -----

func.func @scalar_src(%x: f32, %i: tensor<8xi32>) {
  // expected-error @+1 {{gathers from a block with a block of indices, got f32 and tensor<8xi32>}}
  %r = blk.gather %x[%i] axis = 0 : f32, tensor<8xi32> -> tensor<8xf32>
  func.return
}

// -----

func.func @ranks(%x: tensor<4x8xf32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{'src' (tensor<4x8xf32>) and 'index' (tensor<8xi32>) must have one rank}}
  %r = blk.gather %x[%i] axis = 0 : tensor<4x8xf32>, tensor<8xi32> -> tensor<8xf32>
  func.return
}

// -----

func.func @axis(%x: tensor<4x8xf32>, %i: tensor<4x8xi32>) {
  // expected-error @+1 {{axis 2 is out of range for tensor<4x8xf32>}}
  %r = blk.gather %x[%i] axis = 2 : tensor<4x8xf32>, tensor<4x8xi32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @other_dimension(%x: tensor<4x8xf32>, %i: tensor<2x2xi32>) {
  // expected-error @+1 {{'index' (tensor<2x2xi32>) differs from 'src' (tensor<4x8xf32>) in dimension 0, which is not the gathered axis 1}}
  %r = blk.gather %x[%i] axis = 1 : tensor<4x8xf32>, tensor<2x2xi32> -> tensor<2x2xf32>
  func.return
}

// -----

func.func @result(%x: tensor<4x8xf32>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{gathering tensor<4x8xf32> at tensor<4x2xi32> gives tensor<4x2xf32>}}
  %r = blk.gather %x[%i] axis = 1 : tensor<4x8xf32>, tensor<4x2xi32> -> tensor<4x8xf32>
  func.return
}
