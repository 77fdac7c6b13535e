// Row softmax: each program normalizes one row of up to 1024 columns (masked tail),
// subtracting the row maximum first for stability. Loose blk IR, as a frontend emits it.
module attributes {blk.policy = "triton"} {
  func.func @softmax(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>, %row_stride: i32, %n_cols: i32) attributes {blk.kernel} {
    %row = blk.program_id 0 : i32
    %start = blk.mul %row, %row_stride : i32
    %cols = blk.arange 0, 1024 : tensor<1024xi32>
    %offsets = blk.add %start, %cols : i32, tensor<1024xi32> -> tensor<1024xi32>
    %mask = blk.cmp lt, %cols, %n_cols : tensor<1024xi32>, i32 -> tensor<1024xi1>
    %in = blk.addptr %x_ptr, %offsets : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    %minus_inf = blk.literal -inf : !blk.weak<float>
    %x = blk.load %in mask %mask other %minus_inf : tensor<1024x!blk.ptr<f32>>, tensor<1024xi1>, !blk.weak<float> -> tensor<1024xf32>
    %max = blk.reduce max, %x : tensor<1024xf32> -> f32
    %shifted = blk.sub %x, %max : tensor<1024xf32>, f32 -> tensor<1024xf32>
    %num = blk.exp %shifted : tensor<1024xf32>
    %den = blk.reduce sum, %num : tensor<1024xf32> -> f32
    %y = blk.truediv %num, %den : tensor<1024xf32>, f32 -> tensor<1024xf32>
    %out = blk.addptr %y_ptr, %offsets : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    blk.store %out, %y mask %mask : tensor<1024x!blk.ptr<f32>>
    func.return
  }
}
