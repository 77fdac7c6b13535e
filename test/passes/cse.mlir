// RUN: blk-opt %s -p cse | filecheck %s
// RUN: blk-opt %s -p dce | filecheck %s --check-prefix=DCE

// blk ops declare their memory effects, so xDSL's `cse` and `dce` work on blk IR: pure
// ops and loads merge (no store between the loads), timers, stores and atomics never do,
// and an unused load goes while an unused timer stays.

// CHECK-LABEL: func.func @merged
// CHECK-NEXT:    %m1 = blk.cmp lt, %o, %n
// CHECK-NEXT:    %x1 = blk.load %p mask %m1
// CHECK-NEXT:    %d = blk.where %m1, %x1, %x1
// CHECK-NEXT:    blk.store %out, %d
// CHECK-NEXT:    %y = blk.load %p mask %m1
// CHECK-NEXT:    %t0 = blk.global_timer
// CHECK-NEXT:    %t1 = blk.global_timer
// CHECK-NEXT:    func.return %y, %t0, %t1

// DCE-LABEL: func.func @merged
// DCE:         %y = blk.load %p mask %m1
// DCE-NEXT:    %t0 = blk.global_timer
// DCE-NEXT:    %t1 = blk.global_timer
func.func @merged(%p: tensor<4x!blk.ptr<f32>>, %o: tensor<4xi32>, %n: tensor<4xi32>,
                  %out: tensor<4x!blk.ptr<f32>>) -> (tensor<4xf32>, i64, i64) {
  %m1 = blk.cmp lt, %o, %n : tensor<4xi32>
  %x1 = blk.load %p mask %m1 : tensor<4x!blk.ptr<f32>>
  %m2 = blk.cmp lt, %o, %n : tensor<4xi32>
  %x2 = blk.load %p mask %m2 : tensor<4x!blk.ptr<f32>>
  %d = blk.where %m2, %x1, %x2 : tensor<4xf32>
  blk.store %out, %d : tensor<4x!blk.ptr<f32>>
  %y = blk.load %p mask %m1 : tensor<4x!blk.ptr<f32>>
  %unused = blk.load %out : tensor<4x!blk.ptr<f32>>
  %t0 = blk.global_timer : i64
  %t1 = blk.global_timer : i64
  func.return %y, %t0, %t1 : tensor<4xf32>, i64, i64
}
