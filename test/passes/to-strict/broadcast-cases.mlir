// RUN: blk-opt --split-input-file --verify-diagnostics %s -p 'to-strict{policy=triton}' | filecheck %s
// RUN: blk-opt --split-input-file --verify-diagnostics %s -p 'to-strict{policy=triton-compat}' | filecheck %s
// RUN: blk-opt --split-input-file --verify-diagnostics %s -p 'to-strict{policy=numpy}' | filecheck %s
// RUN: blk-opt --split-input-file --verify-diagnostics %s -p 'to-strict{policy=jax}' | filecheck %s
// RUN: blk-opt --split-input-file --verify-diagnostics %s -p 'to-strict{policy=torch}' | filecheck %s
// RUN: blk-opt --split-input-file --verify-diagnostics %s -p 'to-strict{policy=array_api}' | filecheck %s

// to-strict{policy=P}, end to end: promote-types, insert-broadcasts, warn-lossy-casts and
// blk-verify-strict, under every policy. Casts are inserted at the operand's own shape,
// before the broadcast. The cases are chosen so that every policy agrees and no cast is
// lossy; promote-types/*.mlir shows where the policies differ.

// Rank extension: the missing leading dimension is added, then broadcast.
// CHECK-LABEL: func.func @rank_extension(
// CHECK-NEXT:    %[[V1:.*]] = blk.expand_dims %v axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
// CHECK-NEXT:    %[[V:.*]] = blk.broadcast %[[V1]] : tensor<1x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT:    %[[Z:.*]] = blk.sub %m, %[[V]] : tensor<8x16xf32>{{$}}
func.func @rank_extension(%m: tensor<8x16xf32>, %v: tensor<16xf32>) {
  %z = blk.sub %m, %v : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  func.return
}

// -----

// Size 1 on both sides: each operand is broadcast along its own size-1 dimension.
// CHECK-LABEL: func.func @size_one_on_both_sides(
// CHECK-NEXT:    %[[ROW:.*]] = blk.broadcast %row : tensor<1x16xi32> -> tensor<8x16xi32>
// CHECK-NEXT:    %[[COL:.*]] = blk.broadcast %col : tensor<8x1xi32> -> tensor<8x16xi32>
// CHECK-NEXT:    %[[Z:.*]] = blk.add %[[ROW]], %[[COL]] : tensor<8x16xi32>{{$}}
func.func @size_one_on_both_sides(%row: tensor<1x16xi32>, %col: tensor<8x1xi32>) {
  %z = blk.add %row, %col : tensor<1x16xi32>, tensor<8x1xi32> -> tensor<8x16xi32>
  func.return
}

// -----

// A 0-d value is splatted.
// CHECK-LABEL: func.func @scalar(
// CHECK-NEXT:    %[[S:.*]] = blk.splat %s : f32 -> tensor<4x16xf32>
// CHECK-NEXT:    %[[Z:.*]] = blk.mul %x, %[[S]] : tensor<4x16xf32>{{$}}
func.func @scalar(%x: tensor<4x16xf32>, %s: f32) {
  %z = blk.mul %x, %s : tensor<4x16xf32>, f32 -> tensor<4x16xf32>
  func.return
}

// -----

// A literal becomes a 0-d constant, which is splatted.
// CHECK-LABEL: func.func @literal(
// CHECK-NEXT:    %[[C:.*]] = blk.constant 1 : i32{{$}}
// CHECK-NEXT:    %[[CS:.*]] = blk.splat %[[C]] : i32 -> tensor<4x16xi32>
// CHECK-NEXT:    %[[Z:.*]] = blk.add %x, %[[CS]] : tensor<4x16xi32>{{$}}
func.func @literal(%x: tensor<4x16xi32>) {
  %c = blk.literal 1 : !blk.weak<int>
  %z = blk.add %x, %c : tensor<4x16xi32>, !blk.weak<int> -> tensor<4x16xi32>
  func.return
}

// -----

// Mixed dtypes and shapes: uint8 is cast to int16 at 1x16, then both are broadcast.
// CHECK-LABEL: func.func @dtypes_and_shapes(
// CHECK-NEXT:    %[[ROW16:.*]] = blk.cast %row implicit : tensor<1x16xui8> -> tensor<1x16xi16>
// CHECK-NEXT:    %[[ROWB:.*]] = blk.broadcast %[[ROW16]] : tensor<1x16xi16> -> tensor<8x16xi16>
// CHECK-NEXT:    %[[COLB:.*]] = blk.broadcast %col : tensor<8x1xi16> -> tensor<8x16xi16>
// CHECK-NEXT:    %[[Z:.*]] = blk.add %[[ROWB]], %[[COLB]] : tensor<8x16xi16>{{$}}
func.func @dtypes_and_shapes(%row: tensor<1x16xui8>, %col: tensor<8x1xi16>) {
  %z = blk.add %row, %col : tensor<1x16xui8>, tensor<8x1xi16> -> tensor<8x16xui8>
  func.return
}

// -----

// where of three shapes: the condition is splatted, the float32 row cast to float64.
// CHECK-LABEL: func.func @where_three_shapes(
// CHECK-NEXT:    %[[X64:.*]] = blk.cast %x implicit : tensor<1x16xf32> -> tensor<1x16xf64>
// CHECK-NEXT:    %[[COND:.*]] = blk.splat %c : i1 -> tensor<8x16xi1>
// CHECK-NEXT:    %[[XB:.*]] = blk.broadcast %[[X64]] : tensor<1x16xf64> -> tensor<8x16xf64>
// CHECK-NEXT:    %[[YB:.*]] = blk.broadcast %y : tensor<8x1xf64> -> tensor<8x16xf64>
// CHECK-NEXT:    %[[Z:.*]] = blk.where %[[COND]], %[[XB]], %[[YB]] : tensor<8x16xf64>{{$}}
func.func @where_three_shapes(%c: i1, %x: tensor<1x16xf32>, %y: tensor<8x1xf64>) {
  %z = blk.where %c, %x, %y : i1, tensor<1x16xf32>, tensor<8x1xf64> -> tensor<8x16xf32>
  func.return
}

// -----

// Incompatible shapes: the error names both operands and the dimension.
func.func @incompatible(%x: tensor<4x16xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'blk.add' op 'lhs' (tensor<4x16xf32>) and 'rhs' (tensor<8xf32>) cannot broadcast: dimension 1 has sizes 16 and 8 (sizes must be equal, or one of them 1)}}
  %z = blk.add %x, %y : tensor<4x16xf32>, tensor<8xf32> -> tensor<4x16xf32>
  func.return
}
