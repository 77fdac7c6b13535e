// Sum of a float32 vector: each program reduces a block of 4096 and adds its partial sum
// to the result atomically.
module attributes {blk.policy = "triton"} {
  func.func @sum(%x_ptr: !blk.ptr<f32>, %out_ptr: !blk.ptr<f32>, %n: i32) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %block = blk.literal 4096 : !blk.weak<int>
    %start = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %range = blk.arange 0, 4096 : tensor<4096xi32>
    %offs = blk.add %start, %range : i32, tensor<4096xi32> -> tensor<4096xi32>
    %mask = blk.cmp lt, %offs, %n : tensor<4096xi32>, i32 -> tensor<4096xi1>
    %xp = blk.addptr %x_ptr, %offs : !blk.ptr<f32>, tensor<4096xi32> -> tensor<4096x!blk.ptr<f32>>
    %zero = blk.literal 0.000000e+00 : !blk.weak<float>
    %x = blk.load %xp mask %mask other %zero : tensor<4096x!blk.ptr<f32>>, tensor<4096xi1>, !blk.weak<float> -> tensor<4096xf32>
    %partial = blk.reduce sum, %x : tensor<4096xf32> -> f32
    %old = blk.atomic_rmw add, %out_ptr, %partial : !blk.ptr<f32>
    func.return
  }
}
