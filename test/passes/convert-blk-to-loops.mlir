// RUN: blk-opt --split-input-file %s -p to-strict,convert-blk-to-loops | filecheck %s
// RUN: blk-opt --split-input-file %s -p "to-strict,convert-blk-to-loops{disjoint-args=true}" | filecheck %s --check-prefix=DISJOINT

// Softmax over one row: the load fuses into each loop that reads the row (the maximum,
// the exponentials with their sum), no buffer between; the division needs the whole sum,
// so it runs in a third loop, reading the exponentials' buffer. The maximum skips NaN
// (`nan = num`, Triton's): the fused loop propagates NaN and ignores the sign of zeros
// (`nsz`), which LLVM vectorizes in 3 instructions a vector on x86; only where that gave
// NaN or a zero is the maximum computed again, exactly (reading the row again):
// propagating NaN with -0.0 below 0.0, and, where that gives NaN, skipping NaN. Those
// redos are marked `blk.unlikely`: code generation emits them without faster copies.
// CHECK-LABEL: func.func @softmax_row
// CHECK:         %[[FAST:.*]] = scf.for
// CHECK:           blk.load
// CHECK:           arith.maximumf %{{.*}} fastmath<nsz> : f32
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[NAN:.*]] = blk.cmp ne, %[[FAST]], %[[FAST]] : f32
// CHECK-NEXT:    %[[ZERO:.*]] = blk.cmp eq, %[[FAST]], %{{.*}} : f32
// CHECK-NEXT:    %[[REDO:.*]] = blk.or %[[NAN]], %[[ZERO]] : i1
// CHECK-NEXT:    %[[MAX:.*]] = scf.if %[[REDO]] -> (f32) {
// CHECK-NEXT:      %[[EXACT:.*]] = scf.for
// CHECK:             blk.load
// CHECK:             blk.maximum %{{.*}} nan = propagate
// CHECK:           %[[FOUND:.*]] = blk.cmp ne, %[[EXACT]], %[[EXACT]] : f32
// CHECK-NEXT:      scf.if %[[FOUND]] -> (f32) {
// CHECK-NEXT:        scf.for
// CHECK:               blk.load
// CHECK:               blk.maximum %{{.*}} nan = num
// CHECK:           } else {
// CHECK-NEXT:        scf.yield %[[EXACT]] : f32
// CHECK-NEXT:      }{blk.unlikely}
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %[[FAST]] : f32
// CHECK-NEXT:    }{blk.unlikely}
// CHECK-NEXT:    %[[DEN:.*]] = scf.for
// CHECK:           blk.load
// CHECK:           blk.sub %{{.*}}, %[[MAX]] : f32
// CHECK:           blk.exp
// CHECK:           blk.add
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for
// CHECK-NOT:       blk.load
// CHECK:           blk.truediv %{{.*}}, %[[DEN]] : f32
// CHECK:           blk.store
// CHECK-NOT:     scf.for
func.func @softmax_row(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %cols = blk.arange 0, 256 : tensor<256xi32>
  %in = blk.addptr %x_ptr, %cols : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %x = blk.load %in : tensor<256x!blk.ptr<f32>>
  %max = blk.reduce max, %x : tensor<256xf32> -> f32
  %shifted = blk.sub %x, %max : tensor<256xf32>, f32 -> tensor<256xf32>
  %num = blk.exp %shifted : tensor<256xf32>
  %den = blk.reduce sum, %num : tensor<256xf32> -> f32
  %y = blk.truediv %num, %den : tensor<256xf32>, f32 -> tensor<256xf32>
  %out = blk.addptr %y_ptr, %cols : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  blk.store %out, %y : tensor<256x!blk.ptr<f32>>
  func.return
}

// -----

// x - mean reads the buffer holding x where it is needed: no second buffer.
// CHECK-LABEL: func.func @centered
// CHECK-COUNT-1: memref.alloca
// CHECK-NOT:     memref.alloca
func.func @centered(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %cols = blk.arange 0, 256 : tensor<256xi32>
  %in = blk.addptr %x_ptr, %cols : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %x = blk.load %in : tensor<256x!blk.ptr<f32>>
  %total = blk.reduce sum, %x : tensor<256xf32> -> f32
  %centered = blk.sub %x, %total : tensor<256xf32>, f32 -> tensor<256xf32>
  %sq = blk.mul %centered, %centered : tensor<256xf32>
  %out = blk.addptr %y_ptr, %cols : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  blk.store %out, %sq : tensor<256x!blk.ptr<f32>>
  func.return
}

// -----

// A loop that writes arrays stays apart from one that reads them (they may overlap).
// CHECK-LABEL: func.func @store_then_load
// CHECK:         scf.for
// CHECK:           blk.store
// CHECK:         scf.for
// CHECK:           blk.load
func.func @store_then_load(%p: !blk.ptr<f32>, %q: !blk.ptr<f32>) attributes {blk.kernel} {
  %cols = blk.arange 0, 256 : tensor<256xi32>
  %ps = blk.addptr %p, %cols : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %qs = blk.addptr %q, %cols : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %x = blk.load %qs : tensor<256x!blk.ptr<f32>>
  blk.store %ps, %x : tensor<256x!blk.ptr<f32>>
  %y = blk.load %ps : tensor<256x!blk.ptr<f32>>
  %s = blk.reduce sum, %y : tensor<256xf32> -> f32
  blk.store %q, %s : !blk.ptr<f32>
  func.return
}

// -----

// `x % m` feeding a loop's loads is kept in a buffer of remainders (not of pointers), read
// as x where 0 <= x < m: the code generator can prove that over the loop nest and use x.
// CHECK-LABEL: func.func @wrapped_rows
// CHECK:         %[[ZERO:.*]] = blk.constant 0 : i32
// CHECK:         %[[REM:.*]] = memref.alloca() {{.*}} : memref<16xi32>
// CHECK-NOT:     memref.alloca
// CHECK:         blk.mod
// CHECK:         scf.for %k
// CHECK-NEXT:      scf.for %[[I:.*]] =
// CHECK:             %[[R:.*]] = memref.load %[[REM]][%[[I]]] : memref<16xi32>
// CHECK:             %[[X:.*]] = blk.add
// CHECK-NEXT:        %[[BELOW:.*]] = blk.cmp lt, %[[X]], %{{.*}} : i32
// CHECK-NEXT:        %[[ABOVE:.*]] = blk.cmp ge, %[[X]], %[[ZERO]] : i32
// CHECK-NEXT:        %[[IN:.*]] = blk.and %[[ABOVE]], %[[BELOW]] : i1
// CHECK-NEXT:        %[[ROW:.*]] = blk.where %[[IN]], %[[X]], %[[R]] : i32
// CHECK-NEXT:        blk.addptr %{{.*}}, %[[ROW]]
func.func @wrapped_rows(%a: !blk.ptr<f32>, %y: !blk.ptr<f32>, %m: i32, %n: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %start = blk.mul %pid, %m : i32
  %r = blk.arange 0, 16 : tensor<16xi32>
  %x = blk.add %start, %r : i32, tensor<16xi32> -> tensor<16xi32>
  %rows = blk.mod %x, %m : tensor<16xi32>, i32 -> tensor<16xi32>
  %p = blk.addptr %a, %rows : !blk.ptr<f32>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
  %zero = blk.constant dense<0.0> : tensor<16xf32>
  %lb = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %acc = scf.for %k = %lb to %n step %one iter_args(%s = %zero) -> (tensor<16xf32>) : i32 {
    %v = blk.load %p : tensor<16x!blk.ptr<f32>>
    %s2 = blk.add %s, %v : tensor<16xf32>
    scf.yield %s2 : tensor<16xf32>
  }
  %q = blk.addptr %y, %r : !blk.ptr<f32>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
  blk.store %q, %acc : tensor<16x!blk.ptr<f32>>
  func.return
}

// -----

// Loads read their whole block before a write that may land where another element reads:
// here the store overwrites the reversed block's second half before it is read.
// CHECK-LABEL: func.func @reverse_in_place
// CHECK:         %[[X:.*]] = memref.alloca() {{.*}} : memref<256xf32>
// CHECK:         scf.for %[[I:.*]] =
// CHECK:           %[[V:.*]] = blk.load
// CHECK-NEXT:      memref.store %[[V]], %[[X]][%[[I]]]
// CHECK:         scf.for %[[J:.*]] =
// CHECK:           %[[W:.*]] = memref.load %[[X]][%[[J]]]
// CHECK-NEXT:      blk.store %{{.*}}, %[[W]]
// DISJOINT-LABEL: func.func @reverse_in_place
// DISJOINT-NOT:   blk.disjoint_args
// DISJOINT:       memref.alloca
func.func @reverse_in_place(%x_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %cols = blk.arange 0, 256 : tensor<256xi32>
  %last = blk.constant 255 : i32
  %rev = blk.sub %last, %cols : i32, tensor<256xi32> -> tensor<256xi32>
  %src = blk.addptr %x_ptr, %rev : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %x = blk.load %src : tensor<256x!blk.ptr<f32>>
  %dst = blk.addptr %x_ptr, %cols : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  blk.store %dst, %x : tensor<256x!blk.ptr<f32>>
  func.return
}

// -----

// The same pointer expression, no two elements at one address, element i stored from
// element i: each write lands only where the same element read. One loop.
// CHECK-LABEL: func.func @scale_in_place
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for
// CHECK:           blk.load
// CHECK:           blk.store
// CHECK-NOT:     scf.for
// DISJOINT-LABEL: func.func @scale_in_place
// DISJOINT-NOT:   memref.alloca
// DISJOINT:       blk.store
func.func @scale_in_place(%x_ptr: !blk.ptr<f32>, %n: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %rows = blk.arange 0, 16 : tensor<16xi32>
  %cols = blk.arange 0, 64 : tensor<64xi32>
  %r = blk.expand_dims %rows axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %c = blk.expand_dims %cols axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %stride = blk.constant 64 : i32
  %roffs = blk.mul %r, %stride : tensor<16x1xi32>, i32 -> tensor<16x1xi32>
  %offs = blk.add %roffs, %c : tensor<16x1xi32>, tensor<1x64xi32> -> tensor<16x64xi32>
  %block = blk.mul %pid, %n : i32
  %start = blk.addptr %x_ptr, %block : !blk.ptr<f32>, i32 -> !blk.ptr<f32>
  %p = blk.addptr %start, %offs : !blk.ptr<f32>, tensor<16x64xi32> -> tensor<16x64x!blk.ptr<f32>>
  %x = blk.load %p : tensor<16x64x!blk.ptr<f32>>
  %two = blk.constant 2.0 : f32
  %y = blk.mul %x, %two : tensor<16x64xf32>, f32 -> tensor<16x64xf32>
  %q = blk.addptr %start, %offs : !blk.ptr<f32>, tensor<16x64xi32> -> tensor<16x64x!blk.ptr<f32>>
  blk.store %q, %y : tensor<16x64x!blk.ptr<f32>>
  func.return
}

// -----

// Rows of 64 elements 32 apart overlap: the same expression, but not one address per
// element.
// CHECK-LABEL: func.func @overlapping_rows
// CHECK:         memref.alloca
func.func @overlapping_rows(%x_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %rows = blk.arange 0, 16 : tensor<16xi32>
  %cols = blk.arange 0, 64 : tensor<64xi32>
  %r = blk.expand_dims %rows axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %c = blk.expand_dims %cols axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %stride = blk.constant 32 : i32
  %roffs = blk.mul %r, %stride : tensor<16x1xi32>, i32 -> tensor<16x1xi32>
  %offs = blk.add %roffs, %c : tensor<16x1xi32>, tensor<1x64xi32> -> tensor<16x64xi32>
  %p = blk.addptr %x_ptr, %offs : !blk.ptr<f32>, tensor<16x64xi32> -> tensor<16x64x!blk.ptr<f32>>
  %x = blk.load %p : tensor<16x64x!blk.ptr<f32>>
  %one = blk.constant 1.0 : f32
  %y = blk.add %x, %one : tensor<16x64xf32>, f32 -> tensor<16x64xf32>
  blk.store %p, %y : tensor<16x64x!blk.ptr<f32>>
  func.return
}

// -----

// The same injective block, but the store's element (i, j) is the load's (j, i).
// CHECK-LABEL: func.func @transpose_in_place
// CHECK:         memref.alloca
func.func @transpose_in_place(%x_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %rows = blk.arange 0, 16 : tensor<16xi32>
  %r = blk.expand_dims %rows axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %c = blk.expand_dims %rows axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
  %stride = blk.constant 16 : i32
  %roffs = blk.mul %r, %stride : tensor<16x1xi32>, i32 -> tensor<16x1xi32>
  %offs = blk.add %roffs, %c : tensor<16x1xi32>, tensor<1x16xi32> -> tensor<16x16xi32>
  %p = blk.addptr %x_ptr, %offs : !blk.ptr<f32>, tensor<16x16xi32> -> tensor<16x16x!blk.ptr<f32>>
  %x = blk.load %p : tensor<16x16x!blk.ptr<f32>>
  %t = blk.permute %x order = [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  blk.store %p, %t : tensor<16x16x!blk.ptr<f32>>
  func.return
}

// -----

// Different pointer arguments: fused only where the launch's arrays do not overlap
// (`disjoint-args`), which the function then records.
// CHECK-LABEL: func.func @reverse_copy
// CHECK-NOT:     blk.disjoint_args
// CHECK:         scf.for
// CHECK:           blk.load
// CHECK:         scf.for
// CHECK:           blk.atomic_rmw add
// DISJOINT-LABEL: func.func @reverse_copy
// DISJOINT-SAME:  blk.disjoint_args
// DISJOINT:       scf.for
// DISJOINT:         blk.load
// DISJOINT:         blk.atomic_rmw add
// DISJOINT-NOT:   scf.for
func.func @reverse_copy(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %cols = blk.arange 0, 256 : tensor<256xi32>
  %last = blk.constant 255 : i32
  %rev = blk.sub %last, %cols : i32, tensor<256xi32> -> tensor<256xi32>
  %src = blk.addptr %x_ptr, %rev : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %x = blk.load %src : tensor<256x!blk.ptr<f32>>
  %dst = blk.addptr %y_ptr, %cols : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %old = blk.atomic_rmw add, %dst, %x : tensor<256x!blk.ptr<f32>>
  func.return
}

// -----

// A pointer chosen by `where` may point into either argument: read first either way.
// CHECK-LABEL: func.func @selected_source
// CHECK:         memref.alloca
// DISJOINT-LABEL: func.func @selected_source
// DISJOINT-NOT:   blk.disjoint_args
// DISJOINT:       memref.alloca
func.func @selected_source(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>, %flag: i1) attributes {blk.kernel} {
  %cols = blk.arange 0, 256 : tensor<256xi32>
  %px = blk.addptr %x_ptr, %cols : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %py = blk.addptr %y_ptr, %cols : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %src = blk.where %flag, %px, %py : i1, tensor<256x!blk.ptr<f32>>, tensor<256x!blk.ptr<f32>> -> tensor<256x!blk.ptr<f32>>
  %x = blk.load %src : tensor<256x!blk.ptr<f32>>
  blk.store %py, %x : tensor<256x!blk.ptr<f32>>
  func.return
}

// -----

// A blk.reduce_region runs left to right: the first element starts the accumulators, a
// loop over the others carries them through the combiner, inlined; the load fuses.
// CHECK-LABEL: func.func @argmax_pairs
// CHECK:         %[[FIRST:.*]] = blk.load
// CHECK-NEXT:    %{{.*}}, %[[J:.*]] = scf.for %[[K:.*]] = %{{.*}} iter_args(%[[AV:.*]] = %[[FIRST]], %[[AI:.*]] = %{{.*}}) -> (f32, i32) {
// CHECK-NEXT:      arith.addi %[[K]]
// CHECK:           %[[BV:.*]] = blk.load
// CHECK-NEXT:      %[[G:.*]] = blk.cmp gt, %[[BV]], %[[AV]] : f32
// CHECK-NEXT:      %[[V:.*]] = blk.where %[[G]], %[[BV]], %[[AV]] : f32
// CHECK-NEXT:      %[[W:.*]] = blk.where %[[G]], %{{.*}}, %[[AI]] : i32
// CHECK-NEXT:      scf.yield %[[V]], %[[W]] : f32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    blk.store %{{.*}}, %[[J]] : !blk.ptr<i32>
func.func @argmax_pairs(%x_ptr: !blk.ptr<f32>, %out: !blk.ptr<i32>) attributes {blk.kernel} {
  %i = blk.arange 0, 16 : tensor<16xi32>
  %in = blk.addptr %x_ptr, %i : !blk.ptr<f32>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
  %x = blk.load %in : tensor<16x!blk.ptr<f32>>
  %m, %j = blk.reduce_region %x, %i axis = 0 : tensor<16xf32>, tensor<16xi32> -> f32, i32 {
  ^bb0(%av: f32, %ai: i32, %bv: f32, %bi: i32):
    %g = blk.cmp gt, %bv, %av : f32, f32 -> i1
    %v = blk.where %g, %bv, %av : i1, f32, f32 -> f32
    %w = blk.where %g, %bi, %ai : i1, i32, i32 -> i32
    blk.yield %v, %w : f32, i32
  }
  blk.store %out, %j : !blk.ptr<i32>
  func.return
}


// -----

// A reversed blk.scan_region stores the last element, then walks down from the one before,
// the accumulated value on the combiner's left.
// CHECK-LABEL: func.func @reverse_product
// CHECK-DAG:     %[[C14:.*]] = arith.constant 14 : index
// CHECK-DAG:     %[[C15:.*]] = arith.constant 15 : index
// CHECK:         %[[BUF:.*]] = memref.alloca() {{.*}} : memref<16xi32>
// CHECK:         %[[LAST:.*]] = blk.load
// CHECK-NEXT:    memref.store %[[LAST]], %[[BUF]][%[[C15]]]
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %[[C15]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[LAST]]) -> (i32) {
// CHECK-NEXT:      %[[K:.*]] = arith.subi %[[C14]], %[[J]] : index
// CHECK:           %[[X:.*]] = blk.load
// CHECK-NEXT:      %[[C:.*]] = blk.mul %[[ACC]], %[[X]] : i32
// CHECK-NEXT:      memref.store %[[C]], %[[BUF]][%[[K]]]
// CHECK-NEXT:      scf.yield %[[C]] : i32
func.func @reverse_product(%x_ptr: !blk.ptr<i32>) attributes {blk.kernel} {
  %i = blk.arange 0, 16 : tensor<16xi32>
  %p = blk.addptr %x_ptr, %i : !blk.ptr<i32>, tensor<16xi32> -> tensor<16x!blk.ptr<i32>>
  %x = blk.load %p : tensor<16x!blk.ptr<i32>>
  %t = blk.scan_region %x axis = 0 reverse : tensor<16xi32> -> tensor<16xi32> {
  ^bb0(%a: i32, %b: i32):
    %c = blk.mul %a, %b : i32
    blk.yield %c : i32
  }
  blk.store %p, %t : tensor<16x!blk.ptr<i32>>
  func.return
}

// -----

// Top-2 of 4 by Triton's network: the block copied to a buffer, then one loop per step
// over the pairs of positions. A compare-and-swap stores both positions in place (pair t
// is t + (t & -distance) and the position `distance` above; the direction alternates
// with bit 2 of the position until the last stage); the halving keeps the larger of each
// pair (NaN loses) in the second buffer, which the store reads.
// CHECK-LABEL: func.func @topk
// CHECK-DAG:     %[[SPARE:.*]] = memref.alloca() {{.*}} : memref<4xf32>
// CHECK-DAG:     %[[LINES:.*]] = memref.alloca() {{.*}} : memref<4xf32>
// CHECK:         scf.for
// CHECK:           memref.store %{{.*}}, %[[LINES]]
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:      %[[HIGH_BITS:.*]] = arith.andi %[[T]], %{{.*}} : index
// CHECK-NEXT:      %[[LOW:.*]] = arith.addi %[[T]], %[[HIGH_BITS]] : index
// CHECK-NEXT:      %[[HIGH:.*]] = arith.addi %[[LOW]], %{{.*}} : index
// CHECK-NEXT:      %[[A:.*]] = memref.load %[[LINES]][%[[LOW]]]
// CHECK-NEXT:      %[[B:.*]] = memref.load %[[LINES]][%[[HIGH]]]
// CHECK-NEXT:      %[[BIT:.*]] = arith.andi %[[LOW]], %{{.*}} : index
// CHECK-NEXT:      %[[FLIP:.*]] = arith.cmpi ne, %[[BIT]], %{{.*}} : index
// CHECK-NEXT:      %[[GT:.*]] = blk.cmp gt, %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[MOVES:.*]] = blk.xor %[[GT]], %[[FLIP]] : i1
// CHECK-NEXT:      %[[LT:.*]] = blk.cmp gt, %[[B]], %[[A]] : f32
// CHECK-NEXT:      %[[STAYS:.*]] = blk.xor %[[LT]], %[[FLIP]] : i1
// CHECK-NEXT:      %[[NEW_LOW:.*]] = blk.where %[[MOVES]], %[[B]], %[[A]] : f32
// CHECK-NEXT:      memref.store %[[NEW_LOW]], %[[LINES]][%[[LOW]]]
// CHECK-NEXT:      %[[NEW_HIGH:.*]] = blk.where %[[STAYS]], %[[B]], %[[A]] : f32
// CHECK-NEXT:      memref.store %[[NEW_HIGH]], %[[LINES]][%[[HIGH]]]
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[L:.*]] = memref.load %[[LINES]]
// CHECK-NEXT:      %[[H:.*]] = memref.load %[[LINES]]
// CHECK-NEXT:      %[[BETTER:.*]] = blk.cmp gt, %[[H]], %[[L]] : f32
// CHECK-NEXT:      %[[NAN:.*]] = blk.cmp ne, %[[L]], %[[L]] : f32
// CHECK-NEXT:      %[[TAKE:.*]] = blk.or %[[BETTER]], %[[NAN]] : i1
// CHECK-NEXT:      %[[KEPT:.*]] = blk.where %[[TAKE]], %[[H]], %[[L]] : f32
// CHECK-NEXT:      memref.store %[[KEPT]], %[[SPARE]][%[[J]]]
// CHECK:         scf.for
// CHECK:           arith.constant true
// CHECK:           memref.store %{{.*}}, %[[SPARE]]
// CHECK:         scf.for
// CHECK:           %[[OUT:.*]] = memref.load %[[SPARE]]
// CHECK-NEXT:      blk.store %{{.*}}, %[[OUT]] : !blk.ptr<f32>
func.func @topk(%x_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %i = blk.arange 0, 4 : tensor<4xi32>
  %p = blk.addptr %x_ptr, %i : !blk.ptr<f32>, tensor<4xi32> -> tensor<4x!blk.ptr<f32>>
  %x = blk.load %p : tensor<4x!blk.ptr<f32>>
  %t = blk.sort %x axis = 0 descending k = 2 : tensor<4xf32> -> tensor<2xf32>
  %j = blk.arange 0, 2 : tensor<2xi32>
  %q = blk.addptr %x_ptr, %j : !blk.ptr<f32>, tensor<2xi32> -> tensor<2x!blk.ptr<f32>>
  blk.store %q, %t : tensor<2x!blk.ptr<f32>>
  func.return
}

// -----

// A gather reads its source at the positions its index holds: the expensive source (an
// exp) is computed into a buffer first; each index is checked and kept inside the axis.
// CHECK-LABEL: func.func @gather
// CHECK-DAG:     %[[SIZE:.*]] = blk.constant 8 : i64
// CHECK-DAG:     %[[ZERO:.*]] = blk.constant 0 : i64
// CHECK:         %[[SOURCE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8xf32>
// CHECK:         scf.for
// CHECK:           %[[E:.*]] = blk.exp %{{.*}} : f32
// CHECK-NEXT:      memref.store %[[E]], %[[SOURCE]]
// CHECK:         scf.for
// CHECK:           %[[I:.*]] = memref.load
// CHECK-NEXT:      %[[WIDE:.*]] = blk.cast %[[I]] : i32 -> i64
// CHECK-NEXT:      %[[ABOVE:.*]] = blk.cmp ge, %[[WIDE]], %[[ZERO]] : i64
// CHECK-NEXT:      %[[BELOW:.*]] = blk.cmp lt, %[[WIDE]], %[[SIZE]] : i64
// CHECK-NEXT:      %[[INSIDE:.*]] = blk.and %[[ABOVE]], %[[BELOW]] : i1
// CHECK-NEXT:      blk.assert %[[INSIDE]], "gather index out of range" : i1
// CHECK-NEXT:      %[[KEPT:.*]] = blk.where %[[INSIDE]], %[[WIDE]], %[[ZERO]] : i64
// CHECK-NEXT:      %[[AT:.*]] = arith.index_cast %[[KEPT]] : i64 to index
// CHECK-NEXT:      %[[G:.*]] = memref.load %[[SOURCE]][%[[AT]]] : memref<8xf32>
// CHECK-NEXT:      blk.store %{{.*}}, %[[G]] : !blk.ptr<f32>
func.func @gather(%x_ptr: !blk.ptr<f32>, %i_ptr: !blk.ptr<i32>) attributes {blk.kernel} {
  %r = blk.arange 0, 8 : tensor<8xi32>
  %p = blk.addptr %x_ptr, %r : !blk.ptr<f32>, tensor<8xi32> -> tensor<8x!blk.ptr<f32>>
  %x = blk.load %p : tensor<8x!blk.ptr<f32>>
  %e = blk.exp %x : tensor<8xf32>
  %q = blk.addptr %i_ptr, %r : !blk.ptr<i32>, tensor<8xi32> -> tensor<8x!blk.ptr<i32>>
  %i = blk.load %q : tensor<8x!blk.ptr<i32>>
  %g = blk.gather %e[%i] axis = 0 : tensor<8xf32>, tensor<8xi32> -> tensor<8xf32>
  blk.store %p, %g : tensor<8x!blk.ptr<f32>>
  func.return
}

// -----

// A gather the frontend built inside its axis (a flip) has no check.
// CHECK-LABEL: func.func @flip
// CHECK-NOT:     blk.assert
// CHECK:         func.return
func.func @flip(%x_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %r = blk.arange 0, 8 : tensor<8xi32>
  %n = blk.constant dense<7> : tensor<8xi32>
  %b = blk.sub %n, %r : tensor<8xi32>
  %p = blk.addptr %x_ptr, %r : !blk.ptr<f32>, tensor<8xi32> -> tensor<8x!blk.ptr<f32>>
  %x = blk.load %p : tensor<8x!blk.ptr<f32>>
  %g = blk.gather %x[%b] axis = 0 in_range : tensor<8xf32>, tensor<8xi32> -> tensor<8xf32>
  blk.store %p, %g : tensor<8x!blk.ptr<f32>>
  func.return
}

// -----

// A row read by its sum and by `x - sum`, with a store into the row between: read again
// after the store, it would see the new values, so it is kept in a buffer.
// CHECK-LABEL: func.func @store_between_reads
// CHECK:         scf.for
// CHECK:           blk.load
// CHECK:           memref.store
// CHECK:         scf.for
// CHECK:           blk.store
// CHECK:         scf.for
// CHECK-NOT:       blk.load
// CHECK:           memref.load
// CHECK:           blk.sub
func.func @store_between_reads(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %cols = blk.arange 0, 64 : tensor<64xi32>
  %in = blk.addptr %x_ptr, %cols : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
  %x = blk.load %in : tensor<64x!blk.ptr<f32>>
  %s = blk.reduce sum, %x : tensor<64xf32> -> f32
  %zero = blk.constant dense<0.0> : tensor<64xf32>
  blk.store %in, %zero : tensor<64x!blk.ptr<f32>>
  %d = blk.sub %x, %s : tensor<64xf32>, f32 -> tensor<64xf32>
  %out = blk.addptr %y_ptr, %cols : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
  blk.store %out, %d : tensor<64x!blk.ptr<f32>>
  func.return
}

// -----

// A loop-carried block that starts as a splat (`tl.zeros`) and that the body reads only
// element by element: its buffer is filled only where the loop runs no iteration, and the
// first iteration reads the splat's element instead of the buffer's.
// CHECK-LABEL: func.func @carried_zeros
// CHECK:         %[[ZERO:.*]] = blk.constant 0.000000e+00 : f32
// CHECK:         %[[ACC:.*]] = memref.alloca() {{.*}} : memref<64xf32>
// CHECK:         %[[NONE:.*]] = blk.cmp ge, %lb, %n : i32
// CHECK-NEXT:    scf.if %[[NONE]] {
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.store %[[ZERO]], %[[ACC]]
// CHECK:         scf.for %k = %lb to %n step %step : i32 {
// CHECK:           scf.for %[[I:.*]] =
// CHECK-NEXT:        %[[FIRST:.*]] = blk.cmp eq, %k, %lb : i32
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %[[ACC]][%[[I]]]
// CHECK-NEXT:        blk.where %[[FIRST]], %[[ZERO]], %[[OLD]] : f32
func.func @carried_zeros(%x: !blk.ptr<f32>, %y: !blk.ptr<f32>, %lb: i32, %n: i32) attributes {blk.kernel} {
  %cols = blk.arange 0, 64 : tensor<64xi32>
  %zero = blk.constant dense<0.0> : tensor<64xf32>
  %step = arith.constant 64 : i32
  %acc = scf.for %k = %lb to %n step %step iter_args(%s = %zero) -> (tensor<64xf32>) : i32 {
    %base = blk.addptr %x, %k : !blk.ptr<f32>, i32 -> !blk.ptr<f32>
    %p = blk.addptr %base, %cols : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
    %v = blk.load %p : tensor<64x!blk.ptr<f32>>
    %s2 = blk.add %s, %v : tensor<64xf32>
    scf.yield %s2 : tensor<64xf32>
  }
  %q = blk.addptr %y, %cols : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
  blk.store %q, %acc : tensor<64x!blk.ptr<f32>>
  func.return
}
