// RUN: blk-opt %s -p carry-pointer-offsets --split-input-file | filecheck %s

// A pointer block advanced by a splat scalar each iteration: the loop carries an i64.
// CHECK-LABEL: func.func @advance
// CHECK:       %[[ZERO:.*]] = blk.constant 0 : i64
// CHECK:       %[[ACC:.*]], %[[T:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[O:.*]] = %[[ZERO]]) -> (tensor<16xf32>, i64) : i32 {
// CHECK-NEXT:    %[[OS:.*]] = blk.splat %[[O]] : i64 -> tensor<16xi64>
// CHECK-NEXT:    %[[P:.*]] = blk.addptr %[[P0:.*]], %[[OS]] : tensor<16x!blk.ptr<f32>>, tensor<16xi64> -> tensor<16x!blk.ptr<f32>>
// CHECK-NEXT:    %[[X:.*]] = blk.load %[[P]] : tensor<16x!blk.ptr<f32>>
// CHECK:         %[[S:.*]] = blk.cast %[[INC:.*]] : i32 -> i64
// CHECK-NEXT:    %[[N:.*]] = blk.add %[[O]], %[[S]] : i64
// CHECK-NEXT:    scf.yield %{{.*}}, %[[N]] : tensor<16xf32>, i64
// CHECK:       %[[TS:.*]] = blk.splat %[[T]] : i64 -> tensor<16xi64>
// CHECK-NEXT:  %[[END:.*]] = blk.addptr %[[P0]], %[[TS]]
// CHECK-NEXT:  blk.store %[[END]], %{{.*}} : tensor<16x!blk.ptr<f32>>
func.func @advance(%base: !blk.ptr<f32>, %n: i32, %inc: i32) attributes {blk.kernel} {
  %r = blk.arange 0, 16 : tensor<16xi32>
  %b = blk.splat %base : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p0 = blk.addptr %b, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
  %zero = blk.constant dense<0.0> : tensor<16xf32>
  %lb = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %acc, %p = scf.for %k = %lb to %n step %one iter_args(%a = %zero, %q = %p0) -> (tensor<16xf32>, tensor<16x!blk.ptr<f32>>) : i32 {
    %x = blk.load %q : tensor<16x!blk.ptr<f32>>
    %a2 = blk.add %a, %x : tensor<16xf32>
    %step = blk.splat %inc : i32 -> tensor<16xi32>
    %q2 = blk.addptr %q, %step : tensor<16x!blk.ptr<f32>>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
    scf.yield %a2, %q2 : tensor<16xf32>, tensor<16x!blk.ptr<f32>>
  }
  blk.store %p, %acc : tensor<16x!blk.ptr<f32>>
  func.return
}

// -----

// A step that differs between elements stays a carried pointer block.
// CHECK-LABEL: func.func @gather
// CHECK:       scf.for {{.*}} -> (tensor<16x!blk.ptr<f32>>) : i32 {
func.func @gather(%base: !blk.ptr<f32>, %n: i32) attributes {blk.kernel} {
  %r = blk.arange 0, 16 : tensor<16xi32>
  %b = blk.splat %base : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p0 = blk.addptr %b, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
  %lb = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %p = scf.for %k = %lb to %n step %one iter_args(%q = %p0) -> (tensor<16x!blk.ptr<f32>>) : i32 {
    %q2 = blk.addptr %q, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
    scf.yield %q2 : tensor<16x!blk.ptr<f32>>
  }
  %x = blk.load %p : tensor<16x!blk.ptr<f32>>
  blk.store %p, %x : tensor<16x!blk.ptr<f32>>
  func.return
}

// -----

// A while loop (Triton-C's count-down K loop) whose condition passes the pointer block on
// unchanged carries the offset through both regions.
// CHECK-LABEL: func.func @count_down
// CHECK:       %[[ZERO:.*]] = blk.constant 0 : i64
// CHECK:       %[[ACC:.*]], %[[T:.*]], %{{.*}} = scf.while (%{{.*}} = %{{.*}}, %[[B:.*]] = %[[ZERO]], %{{.*}} = %{{.*}}) : (tensor<16xf32>, i64, i32) -> (tensor<16xf32>, i64, i32) {
// CHECK:         scf.condition(%{{.*}}) %{{.*}}, %[[B]], %{{.*}} : tensor<16xf32>, i64, i32
// CHECK:       ^bb0(%{{.*}}: tensor<16xf32>, %[[O:.*]]: i64, %{{.*}}: i32):
// CHECK-NEXT:    %[[OS:.*]] = blk.splat %[[O]] : i64 -> tensor<16xi64>
// CHECK-NEXT:    %[[P:.*]] = blk.addptr %[[P0:.*]], %[[OS]]
// CHECK-NEXT:    blk.load %[[P]]
// CHECK:         %[[N:.*]] = blk.add %[[O]], %{{.*}} : i64
// CHECK-NEXT:    scf.yield %{{.*}}, %[[N]], %{{.*}} : tensor<16xf32>, i64, i32
// CHECK:       %[[TS:.*]] = blk.splat %[[T]] : i64 -> tensor<16xi64>
// CHECK-NEXT:  %{{.*}} = blk.addptr %[[P0]], %[[TS]]
func.func @count_down(%base: !blk.ptr<f32>, %out: !blk.ptr<f32>, %k: i32) attributes {blk.kernel} {
  %r = blk.arange 0, 16 : tensor<16xi32>
  %b = blk.splat %base : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p0 = blk.addptr %b, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
  %zero = blk.constant dense<0.0> : tensor<16xf32>
  %acc, %p, %left = scf.while (%a = %zero, %q = %p0, %i = %k) : (tensor<16xf32>, tensor<16x!blk.ptr<f32>>, i32) -> (tensor<16xf32>, tensor<16x!blk.ptr<f32>>, i32) {
    %c0 = blk.constant 0 : i32
    %more = blk.cmp gt, %i, %c0 : i32
    scf.condition(%more) %a, %q, %i : tensor<16xf32>, tensor<16x!blk.ptr<f32>>, i32
  } do {
  ^bb0(%a2: tensor<16xf32>, %q2: tensor<16x!blk.ptr<f32>>, %i2: i32):
    %x = blk.load %q2 : tensor<16x!blk.ptr<f32>>
    %s = blk.add %a2, %x : tensor<16xf32>
    %c16 = blk.constant 16 : i32
    %step = blk.splat %c16 : i32 -> tensor<16xi32>
    %q3 = blk.addptr %q2, %step : tensor<16x!blk.ptr<f32>>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
    %i3 = blk.sub %i2, %c16 : i32
    scf.yield %s, %q3, %i3 : tensor<16xf32>, tensor<16x!blk.ptr<f32>>, i32
  }
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %po = blk.addptr %o, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
  blk.store %po, %acc : tensor<16x!blk.ptr<f32>>
  %x = blk.load %p : tensor<16x!blk.ptr<f32>>
  blk.store %po, %x : tensor<16x!blk.ptr<f32>>
  func.return
}
