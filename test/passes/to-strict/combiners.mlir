// RUN: blk-opt --split-input-file %s -p 'to-strict{policy=triton}' | filecheck %s
// RUN: blk-opt --split-input-file --verify-diagnostics %s -p blk-verify-strict

// The combiner of a blk.reduce_region or blk.scan_region holds loose scalar ops as any
// other code does: to-strict types its literals and promotes its operands in place, and
// blk-verify-strict checks them.
// CHECK-LABEL: func.func @loose_combiner
// CHECK:         blk.reduce_region %{{.*}} axis = 0 : tensor<16xi8> -> i8 {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: i8, %[[B:.*]]: i8):
// CHECK-NEXT:      %[[ONE:.*]] = blk.constant 1 : i8
// CHECK-NEXT:      %[[C:.*]] = blk.add %[[A]], %[[ONE]] : i8
// CHECK-NEXT:      %[[D:.*]] = blk.maximum %[[C]], %[[B]] : i8
// CHECK-NEXT:      blk.yield %[[D]] : i8
func.func @loose_combiner(%x: tensor<16xi8>) -> i8 {
  %s = blk.reduce_region %x axis = 0 : tensor<16xi8> -> i8 {
  ^bb0(%a: i8, %b: i8):
    // expected-error @+1 {{is not strict: result 'one' is a weak literal (run promote-types)}}
    %one = blk.literal 1 : !blk.weak<int>
    %c = blk.add %a, %one : i8, !blk.weak<int> -> i8
    %d = blk.maximum %c, %b : i8
    blk.yield %d : i8
  }
  func.return %s : i8
}

// -----

// CHECK-LABEL: func.func @mixed_scan
// CHECK:         blk.scan_region %{{.*}} axis = 0 reverse : tensor<16xf32> -> tensor<16xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[H:.*]] = blk.cast %{{.*}} : f16 -> f32
// CHECK-NEXT:      %[[M:.*]] = blk.mul %[[A]], %[[H]] : f32
func.func @mixed_scan(%x: tensor<16xf32>, %h: f16) -> tensor<16xf32> {
  %s = blk.scan_region %x axis = 0 reverse : tensor<16xf32> -> tensor<16xf32> {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{is not strict}}
    %m = blk.mul %a, %h : f32, f16 -> f32
    %c = blk.add %m, %b : f32
    blk.yield %c : f32
  }
  func.return %s : tensor<16xf32>
}
