// RUN: blk-opt --split-input-file %s -p lower-int-semantics | filecheck %s

// Scalar blk arithmetic becomes arith/math on signless types; the signedness the dtypes
// carried picks the signed or unsigned op.

// CHECK-LABEL: func.func @arith
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32, %[[X:.*]]: f16, %[[Y:.*]]: f16) -> (i32, f16)
// CHECK-NEXT:    %{{.*}} = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT:    %{{.*}} = arith.mulf %[[X]], %[[Y]] fastmath<reassoc> : f16
func.func @arith(%a: ui32, %b: ui32, %x: f16, %y: f16) -> (ui32, f16) {
  %s = blk.add %a, %b : ui32
  %f = blk.mul %x, %y {blk.reassoc} : f16
  func.return %s, %f : ui32, f16
}

// -----

// Signed `//` never traps: the divisor is 1 where it is 0 or -1 (results 0 and -a), and
// `rounding = floor` subtracts 1 where the remainder is nonzero and its sign differs from
// the divisor's.

// CHECK-LABEL: func.func @floordiv_signed
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:         %[[IS_ZERO:.*]] = arith.cmpi eq, %[[B]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[MINUS_ONE:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[IS_MINUS_ONE:.*]] = arith.cmpi eq, %[[B]], %[[MINUS_ONE]] : i32
// CHECK-NEXT:    %[[SPECIAL:.*]] = arith.ori %[[IS_ZERO]], %[[IS_MINUS_ONE]] : i1
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[SPECIAL]], %[[ONE]], %[[B]] : i32
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[A]], %[[SAFE]] : i32
// CHECK-NEXT:    %[[R:.*]] = arith.remsi %[[A]], %[[SAFE]] : i32
// CHECK:         %[[NONZERO:.*]] = arith.cmpi ne, %[[R]], %{{.*}} : i32
// CHECK-NEXT:    %[[SIGNS:.*]] = arith.xori %[[R]], %[[SAFE]] : i32
// CHECK-NEXT:    %[[DIFFER:.*]] = arith.cmpi slt, %[[SIGNS]], %{{.*}} : i32
// CHECK-NEXT:    %[[ADJUST:.*]] = arith.andi %[[NONZERO]], %[[DIFFER]] : i1
// CHECK:         %[[LOWER:.*]] = arith.subi %[[Q]], %{{.*}} : i32
// CHECK-NEXT:    %[[FLOORED:.*]] = arith.select %[[ADJUST]], %[[LOWER]], %[[Q]] : i32
// CHECK:         %[[NEGATED:.*]] = arith.subi %{{.*}}, %[[A]] : i32
// CHECK-NEXT:    %[[BY_MINUS_ONE:.*]] = arith.select %[[IS_MINUS_ONE]], %[[NEGATED]], %[[FLOORED]] : i32
// CHECK:         %{{.*}} = arith.select %[[IS_ZERO]], %{{.*}}, %[[BY_MINUS_ONE]] : i32
func.func @floordiv_signed(%a: i32, %b: i32) -> i32 {
  %q = blk.floordiv %a, %b rounding = floor : i32
  func.return %q : i32
}

// -----

// CHECK-LABEL: func.func @floordiv_unsigned
// CHECK-SAME:    (%[[A:.*]]: i16, %[[B:.*]]: i16) -> i16
// CHECK:         %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[B]] : i16
// CHECK-NEXT:    %{{.*}} = arith.divui %[[A]], %[[SAFE]] : i16
// CHECK-NOT:     arith.remsi
// CHECK:         func.return
func.func @floordiv_unsigned(%a: ui16, %b: ui16) -> ui16 {
  %q = blk.floordiv %a, %b rounding = trunc : ui16
  func.return %q : ui16
}

// -----

// A signed remainder by -1 is 0; by 0, the dividend.

// CHECK-LABEL: func.func @mod_signed
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK:         %[[IS_ZERO:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : i32
// CHECK:         %[[IS_MINUS_ONE:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : i32
// CHECK:         %[[R:.*]] = arith.remsi %[[A]], %{{.*}} : i32
// CHECK:         %[[R1:.*]] = arith.select %[[IS_MINUS_ONE]], %{{.*}}, %[[R]] : i32
// CHECK-NEXT:    %{{.*}} = arith.select %[[IS_ZERO]], %[[A]], %[[R1]] : i32
func.func @mod_signed(%a: i32, %b: i32) -> i32 {
  %r = blk.mod %a, %b rounding = trunc : i32
  func.return %r : i32
}

// -----

// A small float `%` computes in f32 and rounds once; arith has no remf, so C's remainder
// stays a scalar blk.mod; `rounding = floor` gives a nonzero remainder the divisor's sign,
// and a zero one too.

// CHECK-LABEL: func.func @mod_float
// CHECK-SAME:    (%[[A:.*]]: f16, %[[B:.*]]: f16)
// CHECK-NEXT:    %[[WA:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT:    %[[WB:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT:    %[[R:.*]] = blk.mod %[[WA]], %[[WB]] rounding = trunc : f32
// CHECK:         %[[SUM:.*]] = arith.addf %[[R]], %[[WB]] : f32
// CHECK:         %[[SIGNED_ZERO:.*]] = math.copysign %{{.*}}, %[[WB]] : f32
// CHECK:         %[[FLOORED:.*]] = arith.select %{{.*}}, %[[SIGNED_ZERO]], %{{.*}} : f32
// CHECK-NEXT:    %{{.*}} = arith.truncf %[[FLOORED]] : f32 to f16
func.func @mod_float(%a: f16, %b: f16) -> f16 {
  %r = blk.mod %a, %b rounding = floor : f16
  func.return %r : f16
}

// -----

// Shifts by the width or more give 0, or -1 for an arithmetic shift of a negative value;
// `fill = sign` shifts a ui8 arithmetically.

// CHECK-LABEL: func.func @shifts
// CHECK-SAME:    (%[[A:.*]]: i8, %[[N:.*]]: i8, %[[I:.*]]: i32, %[[K:.*]]: i32)
// CHECK-NEXT:    %[[WIDTH:.*]] = arith.constant 32 : i32
// CHECK-NEXT:    %[[FAR:.*]] = arith.cmpi uge, %[[K]], %[[WIDTH]] : i32
// CHECK:         %[[SAFE:.*]] = arith.select %[[FAR]], %{{.*}}, %[[K]] : i32
// CHECK:         %[[SHL:.*]] = arith.shli %[[I]], %[[SAFE]] : i32
// CHECK-NEXT:    %{{.*}} = arith.select %[[FAR]], %{{.*}}, %[[SHL]] : i32
// CHECK-NEXT:    %[[WIDTH8:.*]] = arith.constant 8 : i8
// CHECK-NEXT:    %[[FAR8:.*]] = arith.cmpi uge, %[[N]], %[[WIDTH8]] : i8
// CHECK:         %[[SHR:.*]] = arith.shrsi %[[A]], %{{.*}} : i8
// CHECK:         %[[NEGATIVE:.*]] = arith.cmpi slt, %[[A]], %{{.*}} : i8
// CHECK:         %[[FILL:.*]] = arith.select %[[NEGATIVE]], %{{.*}}, %{{.*}} : i8
// CHECK-NEXT:    %{{.*}} = arith.select %[[FAR8]], %[[FILL]], %[[SHR]] : i8
func.func @shifts(%a: ui8, %n: ui8, %i: i32, %k: i32) -> (ui8, i32) {
  %l = blk.shl %i, %k : i32
  %r = blk.shr %a, %n fill = sign : ui8
  func.return %r, %l : ui8, i32
}

// -----

// CHECK-LABEL: func.func @logical_shift
// CHECK:         arith.shrui %{{.*}}, %{{.*}} : i8
func.func @logical_shift(%a: ui8, %n: ui8) -> ui8 {
  %r = blk.shr %a, %n : ui8
  func.return %r : ui8
}

// -----

// Comparisons order by signedness; pointer comparisons are left to the code generator.

// CHECK-LABEL: func.func @compare
// CHECK-SAME:    (%[[A:.*]]: i8, %[[B:.*]]: i8, %[[I:.*]]: i8, %[[X:.*]]: f32, %[[P:.*]]: !blk.ptr<f32>)
// CHECK-NEXT:    %{{.*}} = arith.cmpi ult, %[[A]], %[[B]] : i8
// CHECK-NEXT:    %{{.*}} = arith.cmpi slt, %[[I]], %[[I]] : i8
// CHECK-NEXT:    %{{.*}} = arith.cmpi eq, %[[A]], %[[B]] : i8
// CHECK-NEXT:    %{{.*}} = arith.cmpf une, %[[X]], %[[X]] : f32
// CHECK-NEXT:    %{{.*}} = blk.cmp eq, %[[P]], %[[P]] : !blk.ptr<f32>
func.func @compare(%a: ui8, %b: ui8, %i: i8, %x: f32, %p: !blk.ptr<f32>) -> (i1, i1, i1, i1, i1) {
  %u = blk.cmp lt, %a, %b : ui8
  %s = blk.cmp lt, %i, %i : i8
  %e = blk.cmp eq, %a, %b : ui8
  %f = blk.cmp ne, %x, %x : f32
  %q = blk.cmp eq, %p, %p : !blk.ptr<f32>
  func.return %u, %s, %e, %f, %q : i1, i1, i1, i1, i1
}

// -----

// Float extrema skip NaN (`num`) or propagate it, as their `nan` says.

// CHECK-LABEL: func.func @extrema
// CHECK-NEXT:    %{{.*}} = arith.minnumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %{{.*}} = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %{{.*}} = arith.maxui %{{.*}}, %{{.*}} : i8
// CHECK-NEXT:    %{{.*}} = arith.minsi %{{.*}}, %{{.*}} : i32
func.func @extrema(%x: f32, %y: f32, %u: ui8, %i: i32) -> (f32, f32, ui8, i32) {
  %a = blk.minimum %x, %y nan = num : f32
  %b = blk.maximum %x, %y nan = propagate : f32
  %c = blk.maximum %u, %u : ui8
  %d = blk.minimum %i, %i : i32
  func.return %a, %b, %c, %d : f32, f32, ui8, i32
}

// -----

// CHECK-LABEL: func.func @casts
// CHECK-SAME:    (%[[F:.*]]: f32, %[[U:.*]]: i8, %[[I:.*]]: i32, %[[L:.*]]: i64, %[[H:.*]]: f16)
// CHECK-NEXT:    %{{.*}} = arith.fptoui %[[F]] : f32 to i16
// CHECK-NEXT:    %{{.*}} = arith.uitofp %[[U]] : i8 to f32
// CHECK-NEXT:    %{{.*}} = arith.extsi %[[I]] : i32 to i64
// CHECK-NEXT:    %{{.*}} = arith.extui %[[U]] : i8 to i32
// CHECK-NEXT:    %{{.*}} = arith.trunci %[[L]] : i64 to i32
// CHECK-NEXT:    %{{.*}} = arith.bitcast %[[H]] : f16 to i16
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %{{.*}} = arith.cmpi ne, %[[I]], %[[ZERO]] : i32
// CHECK-NEXT:    %{{.*}} = arith.extf %[[H]] : f16 to f32
// CHECK-NEXT:    func.return {{.*}}, %[[I]], {{.*}} : i16, f32, i64, i32, i32, i16, i1, i32, f32
func.func @casts(%f: f32, %u: ui8, %i: i32, %l: i64, %h: f16) -> (ui16, f32, i64, i32, i32, i16, i1, ui32, f32) {
  %a = blk.cast %f : f32 -> ui16
  %b = blk.cast %u : ui8 -> f32
  %c = blk.cast %i : i32 -> i64
  %d = blk.cast %u : ui8 -> i32
  %e = blk.cast %l : i64 -> i32
  %g = blk.bitcast %h : f16 -> i16
  %k = blk.cast %i : i32 -> i1
  %m = blk.cast %i : i32 -> ui32
  %n = blk.cast %h : f16 -> f32
  func.return %a, %b, %c, %d, %e, %g, %k, %m, %n : ui16, f32, i64, i32, i32, i16, i1, ui32, f32
}

// -----

// A value cast to ui32 keeps its unsigned meaning after the cast disappears: the shift
// after it is logical.

// CHECK-LABEL: func.func @cast_then_shift
// CHECK:         arith.shrui
// CHECK-NOT:     arith.shrsi
func.func @cast_then_shift(%i: i32, %n: i32) -> ui32 {
  %u = blk.cast %i : i32 -> ui32
  %m = blk.cast %n : i32 -> ui32
  %r = blk.shr %u, %m : ui32
  func.return %r : ui32
}

// -----

// CHECK-LABEL: func.func @other_ops
// CHECK-SAME:    (%[[I:.*]]: i32, %[[U:.*]]: i32, %[[M:.*]]: i1, %[[X:.*]]: f32)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[NEG:.*]] = arith.subi %[[ZERO]], %[[I]] : i32
// CHECK-NEXT:    %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    %[[NOT:.*]] = arith.xori %[[M]], %[[TRUE]] : i1
// CHECK-NEXT:    %[[EXP:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:    %{{.*}} = arith.constant -1 : i8
// CHECK-NEXT:    %[[SEL:.*]] = arith.select %[[M]], %[[X]], %[[X]] : f32
// CHECK-NEXT:    %[[MUL:.*]] = arith.muli %[[I]], %[[I]] : i32
// CHECK-NEXT:    %[[FMA:.*]] = arith.addi %[[MUL]], %[[I]] : i32
// CHECK-NEXT:    func.return %[[NEG]], %[[U]], %[[NOT]], %[[EXP]], %[[FMA]], %[[SEL]]
func.func @other_ops(%i: i32, %u: ui32, %m: i1, %x: f32) -> (i32, ui32, i1, f32, i32, f32) {
  %n = blk.neg %i : i32
  %a = blk.abs %u : ui32
  %t = blk.not %m : i1
  %e = blk.exp %x : f32
  %c = blk.constant 255 : ui8
  %w = blk.where %m, %x, %x : f32
  %fma = blk.fma %i, %i, %i : i32
  func.return %n, %a, %t, %e, %fma, %w : i32, ui32, i1, f32, i32, f32
}
