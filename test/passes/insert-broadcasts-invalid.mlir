// RUN: blk-opt --split-input-file --verify-diagnostics %s -p insert-broadcasts

func.func @incompatible(%x: tensor<4x16xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'lhs' (tensor<4x16xf32>) and 'rhs' (tensor<8xf32>) cannot broadcast: dimension 1 has sizes 16 and 8 (sizes must be equal, or one of them 1)}}
  %z = blk.add %x, %y : tensor<4x16xf32>, tensor<8xf32> -> tensor<4x16xf32>
  func.return
}

// -----

func.func @store_value_larger_than_pointers(%p: tensor<16x!blk.ptr<f32>>, %v: tensor<2x16xf32>) {
  // expected-error @+1 {{operand 'value' of type tensor<2x16xf32> does not broadcast to the shape 16 of operand 'ptr'}}
  blk.store %p, %v : tensor<16x!blk.ptr<f32>>, tensor<2x16xf32>
  func.return
}

// -----

func.func @weak_literal_left(%x: tensor<16xi32>) {
  %one = blk.literal 1 : !blk.weak<int>
  // expected-error @+1 {{operand 'rhs' is a weak literal: run promote-types before insert-broadcasts}}
  %z = blk.add %x, %one : tensor<16xi32>, !blk.weak<int> -> tensor<16xi32>
  func.return
}
