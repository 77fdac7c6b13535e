// RUN: blk-opt --split-input-file %s -p convert-simt-to-thread-loops | filecheck %s

// Each simt.threads region becomes a loop over the CTA's threads; a barrier between two
// regions disappears (the first loop finished every thread); shared memory is one buffer.

// CHECK-LABEL: func.func @barrier
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[THREADS:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32xf32>
// CHECK-NEXT:    scf.for %[[T:.*]] = %[[ZERO]] to %[[THREADS]] step %[[ONE]] {
// CHECK:           memref.store %{{.*}}, %[[BUF]][%[[T]]] : memref<32xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %[[T2:.*]] = %[[ZERO]] to %[[THREADS]] step %[[ONE]] {
// CHECK:           %[[V:.*]] = memref.load %[[BUF]][%{{.*}}] : memref<32xf32>
// CHECK-NEXT:      memref.store %[[V]], %{{.*}}[%[[T2]]] : memref<32xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NOT:     simt.
func.func @barrier(%out: memref<32xf32>) attributes {simt.num_warps = 1 : i32} {
  %buf = simt.alloc_shared : memref<32xf32>
  simt.threads {
  ^bb0(%tid: index):
    %i = arith.index_cast %tid : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %buf[%tid] : memref<32xf32>
  }
  simt.barrier
  simt.threads {
  ^bb0(%tid: index):
    %c31 = arith.constant 31 : index
    %rev = arith.subi %c31, %tid : index
    %v = memref.load %buf[%rev] : memref<32xf32>
    memref.store %v, %out[%tid] : memref<32xf32>
  }
  func.return
}

// -----

// A shuffle splits its region in two loops over the 64 threads of 2 warps: the first
// stores the shuffled value into an exchange array and the value used after the shuffle
// into a context array; the second reads the partner's slot (tid ^ mask) and its own.

// CHECK-LABEL: func.func @shuffle
// CHECK-DAG:     %[[CONTEXT:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// CHECK-DAG:     %[[EXCHANGE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[THREADS:.*]] = arith.constant 64 : index
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %[[THREADS]] step %[[ONE]] {
// CHECK:           %[[F:.*]] = arith.sitofp
// CHECK-DAG:       memref.store %[[F]], %[[CONTEXT]][%[[T]]] : memref<64xf32>
// CHECK-DAG:       memref.store %[[F]], %[[EXCHANGE]][%[[T]]] : memref<64xf32>
// CHECK:         }
// CHECK-NEXT:    scf.for %[[T2:.*]] = %{{.*}} to %[[THREADS]] step %[[ONE]] {
// CHECK-NEXT:      %[[MINE:.*]] = memref.load %[[CONTEXT]][%[[T2]]] : memref<64xf32>
// CHECK-NEXT:      %[[PARTNER:.*]] = arith.xori %[[T2]], %[[ONE]] : index
// CHECK-NEXT:      %[[THEIRS:.*]] = memref.load %[[EXCHANGE]][%[[PARTNER]]] : memref<64xf32>
// CHECK-NEXT:      %{{.*}} = arith.addf %[[MINE]], %[[THEIRS]] : f32
// CHECK-NOT:     simt.
func.func @shuffle(%out: memref<64xf32>) attributes {simt.num_warps = 2 : i32} {
  simt.threads {
  ^bb0(%tid: index):
    %i = arith.index_cast %tid : index to i32
    %f = arith.sitofp %i : i32 to f32
    %other = simt.shuffle_xor %f, 1 : f32
    %sum = arith.addf %f, %other : f32
    memref.store %sum, %out[%tid] : memref<64xf32>
  }
  func.return
}

// -----

// A private buffer becomes a row per thread; a vector access becomes a loop of scalar
// accesses under the same mask.

// CHECK-LABEL: func.func @private_and_vector
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<f32>, %[[Q:.*]]: !blk.ptr<f32>, %[[M:.*]]: i1)
// CHECK:         %[[ROWS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32x4xf32>
// CHECK:         scf.for %[[T:.*]] = {{.*}} {
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.for %[[J:.*]] = {{.*}} {
// CHECK-NEXT:        %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:        %[[PJ:.*]] = blk.addptr %[[P]], %[[J64]] : !blk.ptr<f32>, i64 -> !blk.ptr<f32>
// CHECK-NEXT:        %[[X:.*]] = blk.load %[[PJ]] mask %[[M]] other %[[ZERO]] : !blk.ptr<f32>
// CHECK-NEXT:        memref.store %[[X]], %[[ROWS]][%[[T]], %[[J]]] : memref<32x4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.for %[[K:.*]] = {{.*}} {
// CHECK-NEXT:        %[[K64:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK-NEXT:        %[[QK:.*]] = blk.addptr %[[Q]], %[[K64]] : !blk.ptr<f32>, i64 -> !blk.ptr<f32>
// CHECK-NEXT:        %[[Y:.*]] = memref.load %[[ROWS]][%[[T]], %[[K]]] : memref<32x4xf32>
// CHECK-NEXT:        blk.store %[[QK]], %[[Y]] : !blk.ptr<f32>
// CHECK-NOT:     simt.
func.func @private_and_vector(%p: !blk.ptr<f32>, %q: !blk.ptr<f32>, %m: i1) attributes {simt.num_warps = 1 : i32} {
  %regs = simt.alloc_local : memref<4xf32>
  simt.threads {
  ^bb0(%tid: index):
    %zero = arith.constant 0.0 : f32
    simt.vector_load %p into %regs mask %m other %zero : !blk.ptr<f32>, memref<4xf32>, f32
    simt.vector_store %q from %regs : !blk.ptr<f32>, memref<4xf32>
  }
  func.return
}
