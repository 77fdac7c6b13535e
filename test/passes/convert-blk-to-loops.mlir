// RUN: blk-opt --split-input-file %s -p to-strict,convert-blk-to-loops | filecheck %s

// Softmax over one row: the load fuses with the maximum, the exponentials with their sum;
// the division needs the whole sum, so it runs in a third loop. The maximum skips NaN
// (`nan = num`, Triton's): the fused loop propagates NaN, which LLVM vectorizes, and only
// where it found NaN does a second loop compute the maximum again.
// CHECK-LABEL: func.func @softmax_row
// CHECK:         %[[FAST:.*]] = scf.for
// CHECK:           blk.load
// CHECK:           blk.maximum %{{.*}} nan = propagate
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[FOUND:.*]] = blk.cmp ne, %[[FAST]], %[[FAST]] : f32
// CHECK-NEXT:    %[[MAX:.*]] = scf.if %[[FOUND]] -> (f32) {
// CHECK-NEXT:      scf.for
// CHECK-NOT:         blk.load
// CHECK:             blk.maximum %{{.*}} nan = num
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %[[FAST]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[DEN:.*]] = scf.for
// CHECK:           blk.sub %{{.*}}, %[[MAX]] : f32
// CHECK:           blk.exp
// CHECK:           blk.add
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for
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
// CHECK:         scf.for
// CHECK:           scf.for %[[I:.*]] =
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
