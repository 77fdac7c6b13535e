// A mixed-dtype elementwise chain, out = (a + float32(b)) * c with a int32, b float16 and
// c uint8: promote-types casts a and c to float32 (rule: kind).
module attributes {blk.policy = "triton"} {
  func.func @mixed_chain(%a_ptr: !blk.ptr<i32>, %b_ptr: !blk.ptr<f16>, %c_ptr: !blk.ptr<ui8>, %out_ptr: !blk.ptr<f32>, %n: i32) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %block = blk.literal 2048 : !blk.weak<int>
    %start = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %range = blk.arange 0, 2048 : tensor<2048xi32>
    %offs = blk.add %start, %range : i32, tensor<2048xi32> -> tensor<2048xi32>
    %mask = blk.cmp lt, %offs, %n : tensor<2048xi32>, i32 -> tensor<2048xi1>
    %ap = blk.addptr %a_ptr, %offs : !blk.ptr<i32>, tensor<2048xi32> -> tensor<2048x!blk.ptr<i32>>
    %bp = blk.addptr %b_ptr, %offs : !blk.ptr<f16>, tensor<2048xi32> -> tensor<2048x!blk.ptr<f16>>
    %cp = blk.addptr %c_ptr, %offs : !blk.ptr<ui8>, tensor<2048xi32> -> tensor<2048x!blk.ptr<ui8>>
    %a = blk.load %ap mask %mask : tensor<2048x!blk.ptr<i32>>
    %b = blk.load %bp mask %mask : tensor<2048x!blk.ptr<f16>>
    %c = blk.load %cp mask %mask : tensor<2048x!blk.ptr<ui8>>
    %bf = blk.cast %b : tensor<2048xf16> -> tensor<2048xf32>
    %sum = blk.add %a, %bf : tensor<2048xi32>, tensor<2048xf32> -> tensor<2048xf32>
    %prod = blk.mul %sum, %c : tensor<2048xf32>, tensor<2048xui8> -> tensor<2048xf32>
    %op = blk.addptr %out_ptr, %offs : !blk.ptr<f32>, tensor<2048xi32> -> tensor<2048x!blk.ptr<f32>>
    blk.store %op, %prod mask %mask : tensor<2048x!blk.ptr<f32>>
    func.return
  }
}
