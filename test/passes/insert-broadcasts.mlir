// RUN: blk-opt --split-input-file %s -p insert-broadcasts | filecheck %s

// CHECK-LABEL: func.func @same_shapes_untouched
// CHECK-NEXT:    %[[Z:.*]] = blk.add %x, %y : tensor<16xf32>
// CHECK-NEXT:    func.return
func.func @same_shapes_untouched(%x: tensor<16xf32>, %y: tensor<16xf32>) {
  %z = blk.add %x, %y : tensor<16xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @scalar_is_splatted
// CHECK-NEXT:    %[[S:.*]] = blk.splat %s : f32 -> tensor<16xf32>
// CHECK-NEXT:    %[[Z:.*]] = blk.mul %x, %[[S]] : tensor<16xf32>
func.func @scalar_is_splatted(%x: tensor<16xf32>, %s: f32) {
  %z = blk.mul %x, %s : tensor<16xf32>, f32 -> tensor<16xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @rank_extension
// CHECK-NEXT:    %[[E:.*]] = blk.expand_dims %v axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
// CHECK-NEXT:    %[[B:.*]] = blk.broadcast %[[E]] : tensor<1x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT:    %[[Z:.*]] = blk.sub %m, %[[B]] : tensor<8x16xf32>
func.func @rank_extension(%m: tensor<8x16xf32>, %v: tensor<16xf32>) {
  %z = blk.sub %m, %v : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @size_one_on_both_sides
// CHECK-NEXT:    %[[R:.*]] = blk.broadcast %row : tensor<1x16xi32> -> tensor<8x16xi32>
// CHECK-NEXT:    %[[C:.*]] = blk.broadcast %col : tensor<8x1xi32> -> tensor<8x16xi32>
// CHECK-NEXT:    %[[Z:.*]] = blk.add %[[R]], %[[C]] : tensor<8x16xi32>
func.func @size_one_on_both_sides(%row: tensor<1x16xi32>, %col: tensor<8x1xi32>) {
  %z = blk.add %row, %col : tensor<1x16xi32>, tensor<8x1xi32> -> tensor<8x16xi32>
  func.return
}

// -----

// CHECK-LABEL: func.func @three_operands
// CHECK-NEXT:    %[[C:.*]] = blk.splat %c : i1 -> tensor<4x8xi1>
// CHECK-NEXT:    %[[A0:.*]] = blk.expand_dims %a axis = 0 : tensor<8xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    %[[A:.*]] = blk.broadcast %[[A0]] : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[Z:.*]] = blk.where %[[C]], %[[A]], %b : tensor<4x8xf32>
func.func @three_operands(%c: i1, %a: tensor<8xf32>, %b: tensor<4x8xf32>) {
  %z = blk.where %c, %a, %b : i1, tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @loads_and_stores
// CHECK-NEXT:    %[[P:.*]] = blk.splat %p : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
// CHECK-NEXT:    %[[O:.*]] = blk.splat %o : f32 -> tensor<16xf32>
// CHECK-NEXT:    %[[V:.*]] = blk.load %[[P]] mask %m other %[[O]] : tensor<16x!blk.ptr<f32>>
// CHECK-NEXT:    %[[S:.*]] = blk.splat %o : f32 -> tensor<16xf32>
// CHECK-NEXT:    %[[T:.*]] = blk.splat %t : i1 -> tensor<16xi1>
// CHECK-NEXT:    blk.store %q, %[[S]] mask %[[T]] : tensor<16x!blk.ptr<f32>>
func.func @loads_and_stores(%p: !blk.ptr<f32>, %q: tensor<16x!blk.ptr<f32>>, %m: tensor<16xi1>, %o: f32, %t: i1) {
  %v = blk.load %p mask %m other %o : !blk.ptr<f32>, tensor<16xi1>, f32 -> tensor<16xf32>
  blk.store %q, %o mask %t : tensor<16x!blk.ptr<f32>>, f32, i1
  func.return
}

// -----

// CHECK-LABEL: func.func @pointer_arithmetic
// CHECK-NEXT:    %[[R:.*]] = blk.broadcast %rows : tensor<4x1xi32> -> tensor<4x8xi32>
// CHECK-NEXT:    %[[C:.*]] = blk.expand_dims %cols axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
// CHECK-NEXT:    %[[CB:.*]] = blk.broadcast %[[C]] : tensor<1x8xi32> -> tensor<4x8xi32>
// CHECK-NEXT:    %[[O:.*]] = blk.add %[[R]], %[[CB]] : tensor<4x8xi32>
// CHECK-NEXT:    %[[P:.*]] = blk.splat %base : !blk.ptr<f16> -> tensor<4x8x!blk.ptr<f16>>
// CHECK-NEXT:    %[[Q:.*]] = blk.addptr %[[P]], %[[O]] : tensor<4x8x!blk.ptr<f16>>, tensor<4x8xi32> -> tensor<4x8x!blk.ptr<f16>>
func.func @pointer_arithmetic(%base: !blk.ptr<f16>, %rows: tensor<4x1xi32>, %cols: tensor<8xi32>) {
  %offs = blk.add %rows, %cols : tensor<4x1xi32>, tensor<8xi32> -> tensor<4x8xi32>
  %q = blk.addptr %base, %offs : !blk.ptr<f16>, tensor<4x8xi32> -> tensor<4x8x!blk.ptr<f16>>
  func.return
}
