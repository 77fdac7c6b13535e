// C = A @ B with 32x32 output tiles, one per program of a 2-D grid, a K loop over 32-wide
// slices, and masked edges: the structure of Triton's matmul tutorial, in loose blk IR.
module attributes {blk.policy = "triton"} {
  func.func @matmul(%a_ptr: !blk.ptr<f32>, %b_ptr: !blk.ptr<f32>, %c_ptr: !blk.ptr<f32>, %m: i32, %n: i32, %k: i32) attributes {blk.kernel} {
    %pid_m = blk.program_id 0 : i32
    %pid_n = blk.program_id 1 : i32
    %block = blk.literal 32 : !blk.weak<int>
    %row0 = blk.mul %pid_m, %block : i32, !blk.weak<int> -> i32
    %col0 = blk.mul %pid_n, %block : i32, !blk.weak<int> -> i32
    %r = blk.arange 0, 32 : tensor<32xi32>
    %rows = blk.add %row0, %r : i32, tensor<32xi32> -> tensor<32xi32>
    %cols = blk.add %col0, %r : i32, tensor<32xi32> -> tensor<32xi32>
    %rows2 = blk.expand_dims %rows axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
    %cols2 = blk.expand_dims %cols axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
    %kk_col = blk.expand_dims %r axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
    %kk_row = blk.expand_dims %r axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
    %zero = blk.constant dense<0.000000e+00> : tensor<32x32xf32>
    %lb = arith.constant 0 : i32
    %step = arith.constant 32 : i32
    %acc = scf.for %k0 = %lb to %k step %step iter_args(%c = %zero) -> (tensor<32x32xf32>) : i32 {
      %ka = blk.add %k0, %kk_col : i32, tensor<1x32xi32> -> tensor<1x32xi32>
      %kb = blk.add %k0, %kk_row : i32, tensor<32x1xi32> -> tensor<32x1xi32>
      %a_row = blk.mul %rows2, %k : tensor<32x1xi32>, i32 -> tensor<32x1xi32>
      %a_off = blk.add %a_row, %ka : tensor<32x1xi32>, tensor<1x32xi32> -> tensor<32x32xi32>
      %b_row = blk.mul %kb, %n : tensor<32x1xi32>, i32 -> tensor<32x1xi32>
      %b_off = blk.add %b_row, %cols2 : tensor<32x1xi32>, tensor<1x32xi32> -> tensor<32x32xi32>
      %a_in_m = blk.cmp lt, %rows2, %m : tensor<32x1xi32>, i32 -> tensor<32x1xi1>
      %a_in_k = blk.cmp lt, %ka, %k : tensor<1x32xi32>, i32 -> tensor<1x32xi1>
      %a_mask = blk.and %a_in_m, %a_in_k : tensor<32x1xi1>, tensor<1x32xi1> -> tensor<32x32xi1>
      %b_in_k = blk.cmp lt, %kb, %k : tensor<32x1xi32>, i32 -> tensor<32x1xi1>
      %b_in_n = blk.cmp lt, %cols2, %n : tensor<1x32xi32>, i32 -> tensor<1x32xi1>
      %b_mask = blk.and %b_in_k, %b_in_n : tensor<32x1xi1>, tensor<1x32xi1> -> tensor<32x32xi1>
      %ap = blk.addptr %a_ptr, %a_off : !blk.ptr<f32>, tensor<32x32xi32> -> tensor<32x32x!blk.ptr<f32>>
      %bp = blk.addptr %b_ptr, %b_off : !blk.ptr<f32>, tensor<32x32xi32> -> tensor<32x32x!blk.ptr<f32>>
      %zf = blk.literal 0.000000e+00 : !blk.weak<float>
      %a = blk.load %ap mask %a_mask other %zf : tensor<32x32x!blk.ptr<f32>>, tensor<32x32xi1>, !blk.weak<float> -> tensor<32x32xf32>
      %b = blk.load %bp mask %b_mask other %zf : tensor<32x32x!blk.ptr<f32>>, tensor<32x32xi1>, !blk.weak<float> -> tensor<32x32xf32>
      %next = blk.dot %a, %b acc %c : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
      scf.yield %next : tensor<32x32xf32>
    }
    %c_row = blk.mul %rows2, %n : tensor<32x1xi32>, i32 -> tensor<32x1xi32>
    %c_off = blk.add %c_row, %cols2 : tensor<32x1xi32>, tensor<1x32xi32> -> tensor<32x32xi32>
    %c_in_m = blk.cmp lt, %rows2, %m : tensor<32x1xi32>, i32 -> tensor<32x1xi1>
    %c_in_n = blk.cmp lt, %cols2, %n : tensor<1x32xi32>, i32 -> tensor<1x32xi1>
    %c_mask = blk.and %c_in_m, %c_in_n : tensor<32x1xi1>, tensor<1x32xi1> -> tensor<32x32xi1>
    %cp = blk.addptr %c_ptr, %c_off : !blk.ptr<f32>, tensor<32x32xi32> -> tensor<32x32x!blk.ptr<f32>>
    blk.store %cp, %acc mask %c_mask : tensor<32x32x!blk.ptr<f32>>
    func.return
  }
}
