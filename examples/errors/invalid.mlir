// Invalid blk IR and the errors blkc reports for it, written as MLIR's expected-error
// annotations. `blk-opt examples/errors/invalid.mlir --split-input-file` prints each
// chunk's error; with `--verify-diagnostics` it checks them against the annotations.

func.func @mismatched_shapes(%x: tensor<16xf32>, %y: tensor<8xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'blk.add' op 'lhs' (tensor<16xf32>) and 'rhs' (tensor<8xf32>) cannot broadcast: dimension 0 has sizes 16 and 8}}
  %z = blk.add %x, %y : tensor<16xf32>, tensor<8xf32> -> tensor<16xf32>
  func.return %z : tensor<16xf32>
}

// -----

func.func @axis_out_of_range(%x: tensor<4xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'blk.expand_dims' op axis 3 is out of range for tensor<4xf32>}}
  %y = blk.expand_dims %x axis = 3 : tensor<4xf32> -> tensor<4x1xf32>
  func.return %y : tensor<4x1xf32>
}
