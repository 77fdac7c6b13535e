// A vector-add kernel in loose blk IR, as a frontend emits it: each program adds one
// block of BLOCK = 1024 elements, masking the tail. `blk-opt` parses, verifies and prints it.
module attributes {blk.policy = "triton"} {
  func.func @vector_add(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>, %out_ptr: !blk.ptr<f32>, %n: i32) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %block = blk.literal 1024 : !blk.weak<int>
    %start = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %range = blk.arange 0, 1024 : tensor<1024xi32>
    %offsets = blk.add %start, %range : i32, tensor<1024xi32> -> tensor<1024xi32>
    %mask = blk.cmp lt, %offsets, %n : tensor<1024xi32>, i32 -> tensor<1024xi1>
    %xp = blk.addptr %x_ptr, %offsets : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    %yp = blk.addptr %y_ptr, %offsets : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    %x = blk.load %xp mask %mask : tensor<1024x!blk.ptr<f32>>
    %y = blk.load %yp mask %mask : tensor<1024x!blk.ptr<f32>>
    %sum = blk.add %x, %y : tensor<1024xf32>
    %op = blk.addptr %out_ptr, %offsets : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    blk.store %op, %sum mask %mask : tensor<1024x!blk.ptr<f32>>
    func.return
  }
}
