// Layer-norm forward over rows of up to 1024 columns: y = (x - mean) / sqrt(var + eps) * w + b.
module attributes {blk.policy = "triton"} {
  func.func @layernorm(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>, %w_ptr: !blk.ptr<f32>, %b_ptr: !blk.ptr<f32>, %row_stride: i32, %n_cols: i32, %eps: f32) attributes {blk.kernel} {
    %row = blk.program_id 0 : i32
    %start = blk.mul %row, %row_stride : i32
    %cols = blk.arange 0, 1024 : tensor<1024xi32>
    %mask = blk.cmp lt, %cols, %n_cols : tensor<1024xi32>, i32 -> tensor<1024xi1>
    %offs = blk.add %start, %cols : i32, tensor<1024xi32> -> tensor<1024xi32>
    %xp = blk.addptr %x_ptr, %offs : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    %zero = blk.literal 0.000000e+00 : !blk.weak<float>
    %x = blk.load %xp mask %mask other %zero : tensor<1024x!blk.ptr<f32>>, tensor<1024xi1>, !blk.weak<float> -> tensor<1024xf32>
    %total = blk.reduce sum, %x : tensor<1024xf32> -> f32
    %mean = blk.truediv %total, %n_cols : f32, i32 -> f32
    %centered = blk.sub %x, %mean : tensor<1024xf32>, f32 -> tensor<1024xf32>
    %masked = blk.where %mask, %centered, %zero : tensor<1024xi1>, tensor<1024xf32>, !blk.weak<float> -> tensor<1024xf32>
    %sq = blk.mul %masked, %masked : tensor<1024xf32>
    %sqsum = blk.reduce sum, %sq : tensor<1024xf32> -> f32
    %var = blk.truediv %sqsum, %n_cols : f32, i32 -> f32
    %var_eps = blk.add %var, %eps : f32
    %rstd = blk.rsqrt %var_eps : f32
    %wp = blk.addptr %w_ptr, %cols : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    %bp = blk.addptr %b_ptr, %cols : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    %w = blk.load %wp mask %mask : tensor<1024x!blk.ptr<f32>>
    %b = blk.load %bp mask %mask : tensor<1024x!blk.ptr<f32>>
    %norm = blk.mul %centered, %rstd : tensor<1024xf32>, f32 -> tensor<1024xf32>
    %scaled = blk.mul %norm, %w : tensor<1024xf32>
    %y = blk.add %scaled, %b : tensor<1024xf32>
    %yp = blk.addptr %y_ptr, %offs : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    blk.store %yp, %y mask %mask : tensor<1024x!blk.ptr<f32>>
    func.return
  }
}
