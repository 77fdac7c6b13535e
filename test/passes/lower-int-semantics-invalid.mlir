// RUN: blk-opt --split-input-file --verify-diagnostics %s -p lower-int-semantics

func.func @block_reduction(%x: tensor<4xi32>) -> i32 {
  // expected-error @+1 {{'blk.reduce' must be lowered by convert-blk-to-loops first}}
  %s = blk.reduce sum, %x : tensor<4xi32> -> i32
  func.return %s : i32
}

// -----

func.func @block_sort(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'blk.sort' must be lowered by convert-blk-to-loops first}}
  %s = blk.sort %x axis = 0 : tensor<4xi32> -> tensor<4xi32>
  func.return %s : tensor<4xi32>
}
