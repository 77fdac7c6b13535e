// RUN: blk-opt --split-input-file %s -p "convert-blk-to-simt{disjoint-args=true}" | filecheck %s
// RUN: blk-opt --split-input-file %s -p "convert-blk-to-simt{disjoint-args=true},convert-simt-to-thread-loops" | filecheck %s --check-prefix=LOOPS
// RUN: blk-opt --split-input-file %s -p convert-blk-to-simt | filecheck %s --check-prefix=ALIAS

// A block store: each of the 128 threads visits its own chunks of 4 elements; 256
// elements are 64 chunks, so threads past the 64th own none. A chunk's addresses are
// consecutive and 16-byte aligned (an aligned argument plus a multiple of 4 elements):
// its elements go to a buffer, then to memory as one vector store.
// CHECK-LABEL: func.func @store_block
// CHECK-SAME:    simt.num_warps = 4 : i64
// CHECK:         %[[CHUNK:.*]] = simt.alloc_local : memref<4xf32>
// CHECK:         simt.threads {
// CHECK-NEXT:    ^bb0(%[[TID:.*]]: index):
// CHECK-NEXT:      %[[OWNS:.*]] = arith.cmpi ult, %[[TID]], %{{.*}} : index
// CHECK-NEXT:      scf.if %[[OWNS]] {
// CHECK:             %[[FIRST:.*]] = blk.addptr %p, %{{.*}} : !blk.ptr<f32>, i32 -> !blk.ptr<f32>
// CHECK-NEXT:        scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:               memref.store %x, %[[CHUNK]][%[[J]]] : memref<4xf32>
// CHECK:             simt.vector_store %[[FIRST]] from %[[CHUNK]] : !blk.ptr<f32>, memref<4xf32>
// CHECK-NOT:     simt.barrier
// CHECK:         func.return
// A vector access becomes a loop of scalar ones on the CPU.
// LOOPS-LABEL: func.func @store_block
// LOOPS:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// LOOPS-NEXT:      arith.cmpi ult, %[[T]]
// LOOPS:           %[[FIRST:.*]] = blk.addptr %p
// LOOPS:           memref.store %x, %{{.*}}[%[[T]], %{{.*}}] : memref<128x4xf32>
// LOOPS:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// LOOPS-NEXT:        %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// LOOPS-NEXT:        %[[P:.*]] = blk.addptr %[[FIRST]], %[[J64]] : !blk.ptr<f32>, i64 -> !blk.ptr<f32>
// LOOPS-NEXT:        %[[X:.*]] = memref.load %{{.*}}[%[[T]], %[[J]]] : memref<128x4xf32>
// LOOPS-NEXT:        blk.store %[[P]], %[[X]] : !blk.ptr<f32>
// LOOPS-NOT:     simt.{{threads|barrier|shuffle_xor|alloc|vector}}
func.func @store_block(%p: !blk.ptr<f32>, %x: f32) attributes {blk.kernel} {
  %r = blk.arange 0, 256 : tensor<256xi32>
  %ps = blk.splat %p : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
  %ptrs = blk.addptr %ps, %r : tensor<256x!blk.ptr<f32>>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %v = blk.splat %x : f32 -> tensor<256xf32>
  blk.store %ptrs, %v : tensor<256x!blk.ptr<f32>>
  func.return
}

// -----

// A sum: partial sums per thread, a butterfly of five shuffles, one value per warp in
// shared memory, a barrier, the warps' values combined by every thread; the scalar
// store runs in thread 0 only.
// CHECK-LABEL: func.func @sum
// CHECK:         %[[WARPS:.*]] = simt.alloc_shared : memref<4xf32>
// CHECK:         simt.threads {
// CHECK:           %[[PARTIAL:.*]] = scf.for
// CHECK:           %[[O16:.*]] = simt.shuffle_xor %[[PARTIAL]], 16 : f32
// CHECK-NEXT:      %[[S16:.*]] = blk.add %[[PARTIAL]], %[[O16]] {blk.reassoc} : f32
// CHECK-NEXT:      simt.shuffle_xor %[[S16]], 8 : f32
// CHECK:           simt.shuffle_xor %{{.*}}, 1 : f32
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %{{.*}}, %[[WARPS]][%{{.*}}] : memref<4xf32>
// CHECK:         simt.barrier
// CHECK-NEXT:    memref.load %[[WARPS]]
// CHECK:         %s = blk.add
// CHECK:         simt.threads {
// CHECK-NEXT:    ^bb0(%[[TID:.*]]: index):
// CHECK-NEXT:      %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK-NEXT:        blk.store %out, %s : !blk.ptr<f32>
// A shuffle splits the loop over the threads: each thread leaves its value in a slot,
// the next loop reads the partner's slot (tid ^ 16).
// LOOPS-LABEL: func.func @sum
// LOOPS:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// LOOPS:           memref.store %{{.*}}, %{{.*}}[%[[T]]] : memref<128xf32>
// LOOPS:         scf.for %[[T2:.*]] = %{{.*}} to %{{.*}} step
// LOOPS-NEXT:      memref.load %{{.*}}[%[[T2]]] : memref<128xf32>
// LOOPS-NEXT:      %[[PARTNER:.*]] = arith.xori %[[T2]], %{{.*}} : index
// LOOPS-NEXT:      memref.load %{{.*}}[%[[PARTNER]]] : memref<128xf32>
// LOOPS-NOT:     simt.{{threads|barrier|shuffle_xor|alloc}}
func.func @sum(%p: !blk.ptr<f32>, %out: !blk.ptr<f32>) attributes {blk.kernel} {
  %r = blk.arange 0, 512 : tensor<512xi32>
  %ps = blk.splat %p : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %ptrs = blk.addptr %ps, %r : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  %v = blk.load %ptrs : tensor<512x!blk.ptr<f32>>
  %s = blk.reduce sum, %v : tensor<512xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  func.return
}

// -----

// A loaded vector read through views (a row and a column of an outer product) lands on
// other threads' elements: it lives in shared memory, written, then fenced by a barrier.
// CHECK-LABEL: func.func @row_times_column
// CHECK:         %[[V:.*]] = simt.alloc_shared : memref<16xf32>
// CHECK:         simt.threads {
// CHECK:           memref.store %{{.*}}, %[[V]][%{{.*}}] : memref<16xf32>
// CHECK:         simt.barrier
// CHECK-NEXT:    simt.threads {
// CHECK:           %[[A:.*]] = memref.load %[[V]][%{{.*}}] : memref<16xf32>
// CHECK-NEXT:      %[[B:.*]] = memref.load %[[V]][%{{.*}}] : memref<16xf32>
// CHECK-NEXT:      blk.mul %[[A]], %[[B]] : f32
// LOOPS-LABEL: func.func @row_times_column
// LOOPS-NOT:     simt.{{threads|barrier|shuffle_xor|alloc}}
func.func @row_times_column(%p: !blk.ptr<f32>, %q: !blk.ptr<f32>) attributes {blk.kernel} {
  %r = blk.arange 0, 16 : tensor<16xi32>
  %ps = blk.splat %p : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %ptrs = blk.addptr %ps, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
  %v = blk.load %ptrs : tensor<16x!blk.ptr<f32>>
  %col = blk.expand_dims %v axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
  %row = blk.expand_dims %v axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
  %a = blk.broadcast %col : tensor<16x1xf32> -> tensor<16x16xf32>
  %b = blk.broadcast %row : tensor<1x16xf32> -> tensor<16x16xf32>
  %m = blk.mul %a, %b : tensor<16x16xf32>
  %r2 = blk.arange 0, 256 : tensor<256xi32>
  %flat = blk.reshape %r2 : tensor<256xi32> -> tensor<16x16xi32>
  %qs = blk.splat %q : !blk.ptr<f32> -> tensor<16x16x!blk.ptr<f32>>
  %qp = blk.addptr %qs, %flat : tensor<16x16x!blk.ptr<f32>>, tensor<16x16xi32> -> tensor<16x16x!blk.ptr<f32>>
  blk.store %qp, %m : tensor<16x16x!blk.ptr<f32>>
  func.return
}

// -----

// The tail mask `offs < n` may change inside a chunk: each element is loaded under its
// own mask, at the chunk's first address plus its position (no per-element offset).
// CHECK-LABEL: func.func @masked_tail
// CHECK-NOT:     simt.vector_load
// CHECK:         %[[FIRST:.*]] = blk.addptr %p, %{{.*}} : !blk.ptr<f32>, i32 -> !blk.ptr<f32>
// CHECK-NEXT:    scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[P:.*]] = blk.addptr %[[FIRST]], %{{.*}} : !blk.ptr<f32>, i64 -> !blk.ptr<f32>
// CHECK:           blk.load %[[P]] mask %{{.*}} : !blk.ptr<f32>
// CHECK-NOT:     simt.vector_load
func.func @masked_tail(%p: !blk.ptr<f32>, %q: !blk.ptr<f32>, %n: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %c = blk.constant 512 : i32
  %start = blk.mul %pid, %c : i32
  %r = blk.arange 0, 512 : tensor<512xi32>
  %s = blk.splat %start : i32 -> tensor<512xi32>
  %offs = blk.add %s, %r : tensor<512xi32>
  %ns = blk.splat %n : i32 -> tensor<512xi32>
  %mask = blk.cmp lt, %offs, %ns : tensor<512xi32>
  %ps = blk.splat %p : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %ptrs = blk.addptr %ps, %offs : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  %v = blk.load %ptrs mask %mask : tensor<512x!blk.ptr<f32>>
  %qs = blk.splat %q : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %qp = blk.addptr %qs, %offs : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  blk.store %qp, %v mask %mask : tensor<512x!blk.ptr<f32>>
  func.return
}

// -----

// With `n` a multiple of 16 (an argument hint, as Triton specializes), `offs < n` is
// the same over each aligned chunk of 4: one predicated vector load and store per chunk;
// the elements of a chunk masked off are `other`.
// CHECK-LABEL: func.func @hinted_tail
// CHECK:         %[[CHUNK:.*]] = simt.alloc_local : memref<4xf32>
// CHECK:         %[[MASK:.*]] = blk.cmp lt, %{{.*}}, %n : i32
// CHECK-NEXT:    simt.vector_load %{{.*}} into %[[CHUNK]] mask %[[MASK]] other %other : !blk.ptr<f32>, memref<4xf32>, f32
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[X:.*]] = memref.load %[[CHUNK]][%[[J]]] : memref<4xf32>
// CHECK-NEXT:      memref.store %[[X]]
// CHECK:         simt.vector_store %{{.*}} from %{{.*}} mask %{{.*}} : !blk.ptr<f32>, memref<4xf32>
// LOOPS-LABEL: func.func @hinted_tail
// LOOPS:           blk.load %{{.*}} mask %{{.*}} other %other : !blk.ptr<f32>
// LOOPS:           blk.store %{{.*}}, %{{.*}} mask %{{.*}} : !blk.ptr<f32>
// LOOPS-NOT:     simt.vector
func.func @hinted_tail(%p: !blk.ptr<f32>, %q: !blk.ptr<f32>, %n: i32 {blk.divisibility = 16 : i32}, %other: f32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %c = blk.constant 512 : i32
  %start = blk.mul %pid, %c : i32
  %r = blk.arange 0, 512 : tensor<512xi32>
  %s = blk.splat %start : i32 -> tensor<512xi32>
  %offs = blk.add %s, %r : tensor<512xi32>
  %ns = blk.splat %n : i32 -> tensor<512xi32>
  %mask = blk.cmp lt, %offs, %ns : tensor<512xi32>
  %ps = blk.splat %p : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %ptrs = blk.addptr %ps, %offs : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  %os = blk.splat %other : f32 -> tensor<512xf32>
  %v = blk.load %ptrs mask %mask other %os : tensor<512x!blk.ptr<f32>>
  %qs = blk.splat %q : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %qp = blk.addptr %qs, %offs : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  blk.store %qp, %v mask %mask : tensor<512x!blk.ptr<f32>>
  func.return
}

// -----

// A write that may land where another thread read since the last barrier waits for every
// thread's reads: the reversed block goes to registers first, then a barrier.
// CHECK-LABEL: func.func @reverse_in_place
// CHECK:         simt.threads {
// CHECK:           blk.load
// CHECK:         simt.barrier
// CHECK-NEXT:    simt.threads {
// CHECK:           simt.vector_store
// ALIAS-LABEL: func.func @reverse_in_place
// ALIAS:         simt.barrier
// ALIAS-NEXT:    simt.threads {
// ALIAS:           simt.vector_store
func.func @reverse_in_place(%p: !blk.ptr<f32>) attributes {blk.kernel} {
  %r = blk.arange 0, 512 : tensor<512xi32>
  %c = blk.constant 511 : i32
  %cs = blk.splat %c : i32 -> tensor<512xi32>
  %rev = blk.sub %cs, %r : tensor<512xi32>
  %ps = blk.splat %p : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %src = blk.addptr %ps, %rev : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  %v = blk.load %src : tensor<512x!blk.ptr<f32>>
  %dst = blk.addptr %ps, %r : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  blk.store %dst, %v : tensor<512x!blk.ptr<f32>>
  func.return
}

// -----

// Each thread overwrites only the elements it read itself: no barrier, one region.
// CHECK-LABEL: func.func @scale_in_place
// CHECK-NOT:     simt.barrier
// CHECK:         simt.vector_load
// CHECK:         simt.vector_store
// CHECK-NOT:     simt.barrier
// ALIAS-LABEL: func.func @scale_in_place
// ALIAS-NOT:     simt.barrier
// ALIAS:         simt.vector_store
// ALIAS-NOT:     simt.barrier
func.func @scale_in_place(%p: !blk.ptr<f32>) attributes {blk.kernel} {
  %r = blk.arange 0, 512 : tensor<512xi32>
  %ps = blk.splat %p : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %src = blk.addptr %ps, %r : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  %v = blk.load %src : tensor<512x!blk.ptr<f32>>
  %two = blk.constant dense<2.0> : tensor<512xf32>
  %y = blk.mul %v, %two : tensor<512xf32>
  %ps2 = blk.splat %p : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %dst = blk.addptr %ps2, %r : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  blk.store %dst, %y : tensor<512x!blk.ptr<f32>>
  func.return
}

// -----

// Different arguments: a barrier unless the launch's arrays do not overlap
// (`disjoint-args`); then the load fuses into the store's region.
// CHECK-LABEL: func.func @copy
// CHECK-NOT:     simt.barrier
// ALIAS-LABEL: func.func @copy
// ALIAS:         simt.threads {
// ALIAS:           simt.vector_load
// ALIAS:         simt.barrier
// ALIAS-NEXT:    simt.threads {
// ALIAS:           simt.vector_store
func.func @copy(%p: !blk.ptr<f32>, %q: !blk.ptr<f32>) attributes {blk.kernel} {
  %r = blk.arange 0, 512 : tensor<512xi32>
  %ps = blk.splat %p : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %src = blk.addptr %ps, %r : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  %v = blk.load %src : tensor<512x!blk.ptr<f32>>
  %qs = blk.splat %q : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %dst = blk.addptr %qs, %r : tensor<512x!blk.ptr<f32>>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
  blk.store %dst, %v : tensor<512x!blk.ptr<f32>>
  func.return
}

// -----

// A blk.reduce_region to scalars: the operands go to shared memory, then every thread
// combines them all, left to right, with the combiner inlined.
// CHECK-LABEL: func.func @argmax_pairs
// CHECK:         simt.barrier
// CHECK:         simt.barrier
// CHECK-NEXT:    %[[AV:.*]] = memref.load %[[XS:.*]][%{{.*}}] : memref<16xf32>
// CHECK-NEXT:    %[[AI:.*]] = memref.load %[[IS:.*]][%{{.*}}] : memref<16xi32>
// CHECK-NEXT:    %{{.*}}, %[[J:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%[[A:.*]] = %[[AV]], %[[I:.*]] = %[[AI]]) -> (f32, i32) {
// CHECK-NEXT:      %[[BV:.*]] = memref.load %[[XS]][%[[K]]] : memref<16xf32>
// CHECK-NEXT:      %[[BI:.*]] = memref.load %[[IS]][%[[K]]] : memref<16xi32>
// CHECK-NEXT:      %[[G:.*]] = blk.cmp gt, %[[BV]], %[[A]] : f32
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

// A blk.scan_region: each thread computes each element it owns from shared memory; a
// reversed one from the last element down to its own.
// CHECK-LABEL: func.func @reverse_product
// CHECK:         simt.threads
// CHECK:           scf.for
// CHECK:             arith.subi
// CHECK:             scf.for
// CHECK:               arith.subi
// CHECK:               memref.load
// CHECK-NEXT:          blk.mul
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

// Top-2 of 4: the network's steps run on shared memory, each step's pairs shared out
// among the threads, with a barrier after each.
// CHECK-LABEL: func.func @topk
// CHECK:         simt.alloc_shared : memref<4xf32>
// CHECK:         simt.alloc_shared : memref<4xf32>
// CHECK:         simt.threads
// CHECK:         simt.barrier
// CHECK-NEXT:    simt.threads
// CHECK:           blk.xor
// CHECK:         simt.barrier
// CHECK-NEXT:    simt.threads
// CHECK:           blk.or
// CHECK:         simt.barrier
// CHECK-NEXT:    simt.threads
// CHECK:           arith.constant true
// CHECK:         simt.barrier
// CHECK-NEXT:    simt.threads
// CHECK:           simt.vector_store
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
