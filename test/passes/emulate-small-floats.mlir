// RUN: blk-opt --split-input-file %s -p emulate-small-floats | filecheck %s

// An arith or math op on f16, bf16 or fp8 computes in f32 between an extf of each small
// operand and a truncf of each small result: one rounding per op.

// CHECK-LABEL: func.func @widened
// CHECK-SAME:    (%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[B:.*]]: bf16, %[[Q:.*]]: f8E4M3FN)
// CHECK-NEXT:    %[[WX:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:    %[[WY:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %[[WX]], %[[WY]] : f32
// CHECK-NEXT:    %[[S:.*]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK-NEXT:    %[[WB:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT:    %[[EXP:.*]] = math.exp %[[WB]] : f32
// CHECK-NEXT:    %[[E:.*]] = arith.truncf %[[EXP]] : f32 to bf16
// CHECK-NEXT:    %[[WQ:.*]] = arith.extf %[[Q]] : f8E4M3FN to f32
// CHECK-NEXT:    %[[NEG:.*]] = arith.negf %[[WQ]] : f32
// CHECK-NEXT:    %[[N:.*]] = arith.truncf %[[NEG]] : f32 to f8E4M3FN
// CHECK-NEXT:    func.return %[[S]], %[[E]], %[[N]] : f16, bf16, f8E4M3FN
func.func @widened(%x: f16, %y: f16, %b: bf16, %q: f8E4M3FN) -> (f16, bf16, f8E4M3FN) {
  %s = arith.addf %x, %y : f16
  %e = math.exp %b : bf16
  %n = arith.negf %q : f8E4M3FN
  func.return %s, %e, %n : f16, bf16, f8E4M3FN
}

// -----

// A comparison has no small result to round.

// CHECK-LABEL: func.func @compare
// CHECK-NEXT:    %[[L:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT:    %[[R:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpf olt, %[[L]], %[[R]] : f32
// CHECK-NEXT:    func.return %[[LT]] : i1
func.func @compare(%b: bf16, %c: bf16) -> i1 {
  %l = arith.cmpf olt, %b, %c : bf16
  func.return %l : i1
}

// -----

// The scalar blk.mod that lower-int-semantics leaves for C's float remainder computes in
// f32 too.

// CHECK-LABEL: func.func @scalar_mod
// CHECK-NEXT:    %[[A:.*]] = arith.extf %{{.*}} : f8E5M2 to f32
// CHECK-NEXT:    %[[B:.*]] = arith.extf %{{.*}} : f8E5M2 to f32
// CHECK-NEXT:    %[[M:.*]] = blk.mod %[[A]], %[[B]] rounding = trunc : f32
// CHECK-NEXT:    %{{.*}} = arith.truncf %[[M]] : f32 to f8E5M2
func.func @scalar_mod(%r: f8E5M2, %s: f8E5M2) -> f8E5M2 {
  %m = blk.mod %r, %s rounding = trunc : f8E5M2
  func.return %m : f8E5M2
}

// -----

// Conversions, selects, constants and bit casts move small values without rounding them,
// and f32 ops stay as they are.

// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %{{.*}} = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %{{.*}} = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f16
// CHECK-NEXT:    %{{.*}} = arith.constant 1.000000e+00 : f16
// CHECK-NEXT:    %{{.*}} = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:    %{{.*}} = arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT:    %{{.*}} = arith.bitcast %{{.*}} : bf16 to i16
// CHECK-NEXT:    func.return
func.func @kept(%x: f16, %y: f16, %b: bf16, %f: f32, %c: i1) -> (f32, f16, f16, f32, f16, i16) {
  %g = arith.mulf %f, %f : f32
  %k = arith.select %c, %x, %y : f16
  %z = arith.constant 1.0 : f16
  %w = arith.extf %x : f16 to f32
  %t = arith.truncf %f : f32 to f16
  %i = arith.bitcast %b : bf16 to i16
  func.return %g, %k, %z, %w, %t, %i : f32, f16, f16, f32, f16, i16
}
