// RUN: %roundtrip %s

// Every blk op, in custom syntax: printed, reparsed and printed again (a fixed point), and
// through the generic form back to the same custom form.

// CHECK-LABEL: func.func @grid_and_constants()
// CHECK-NEXT: %[[PID:.*]] = blk.program_id 0 : i32
// CHECK-NEXT: %[[NP:.*]] = blk.num_programs 2 : i32
// CHECK-NEXT: %[[R:.*]] = blk.arange 0, 16 : tensor<16xi32>
// CHECK-NEXT: %[[C:.*]] = blk.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[D:.*]] = blk.constant dense<0> : tensor<16xui8>
// CHECK-NEXT: %[[H:.*]] = blk.constant 5.000000e-01 : bf16
// CHECK-NEXT: %[[Q:.*]] = blk.constant dense<1.000000e+00> : tensor<4xf8E4M3FN>
// CHECK-NEXT: %[[T:.*]] = blk.constant true
func.func @grid_and_constants() attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 2 : i32
  %r = blk.arange 0, 16 : tensor<16xi32>
  %c = blk.constant 1.000000e+00 : f32
  %d = blk.constant dense<0> : tensor<16xui8>
  %h = blk.constant 5.000000e-01 : bf16
  %q = blk.constant dense<1.000000e+00> : tensor<4xf8E4M3FN>
  %t = blk.constant true
  func.return
}

// CHECK-LABEL: func.func @weak_literals()
// CHECK-NEXT: %[[I:.*]] = blk.literal 3 : !blk.weak<int>
// CHECK-NEXT: %[[BIG:.*]] = blk.literal 18446744073709551616 : !blk.weak<int>
// CHECK-NEXT: %[[NEG:.*]] = blk.literal -2.500000e+00 : !blk.weak<float>
// CHECK-NEXT: %[[TENTH:.*]] = blk.literal 1.000000e-01 : !blk.weak<float>
// CHECK-NEXT: %[[B:.*]] = blk.literal true : !blk.weak<bool>
// CHECK-NEXT: %[[INF:.*]] = blk.literal -inf : !blk.weak<float>
// CHECK-NEXT: %[[NAN:.*]] = blk.literal nan : !blk.weak<float>
func.func @weak_literals() {
  %i = blk.literal 3 : !blk.weak<int>
  %big = blk.literal 18446744073709551616 : !blk.weak<int>
  %neg = blk.literal -2.500000e+00 : !blk.weak<float>
  %tenth = blk.literal 0.1 : !blk.weak<float>
  %b = blk.literal true : !blk.weak<bool>
  %inf = blk.literal -inf : !blk.weak<float>
  %nan = blk.literal nan : !blk.weak<float>
  func.return
}

// CHECK-LABEL: func.func @shapes
// CHECK-SAME: (%[[F:[a-z0-9_]+]]: f32, %[[X:[a-z0-9_]+]]: tensor<16x8xf32>, %[[I:[a-z0-9_]+]]: tensor<16xi32>)
// CHECK-NEXT: %[[S:.*]] = blk.splat %[[F]] : f32 -> tensor<16xf32>
// CHECK-NEXT: %[[E:.*]] = blk.expand_dims %[[S]] axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
// CHECK-NEXT: %[[B:.*]] = blk.broadcast %[[E]] : tensor<16x1xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[RS:.*]] = blk.reshape %[[X]] : tensor<16x8xf32> -> tensor<128xf32>
// CHECK-NEXT: %[[PM:.*]] = blk.permute %[[X]] order = {{\[}}1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[CA:.*]] = blk.cast %[[I]] : tensor<16xi32> -> tensor<16xf32>
// CHECK-NEXT: %[[CU:.*]] = blk.cast %[[I]] : tensor<16xi32> -> tensor<16xui8>
// CHECK-NEXT: %[[BC:.*]] = blk.bitcast %[[CA]] : tensor<16xf32> -> tensor<16xi32>
func.func @shapes(%f: f32, %x: tensor<16x8xf32>, %i: tensor<16xi32>) {
  %s = blk.splat %f : f32 -> tensor<16xf32>
  %e = blk.expand_dims %s axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
  %b = blk.broadcast %e : tensor<16x1xf32> -> tensor<16x8xf32>
  %rs = blk.reshape %x : tensor<16x8xf32> -> tensor<128xf32>
  %pm = blk.permute %x order = [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %ca = blk.cast %i : tensor<16xi32> -> tensor<16xf32>
  %cu = blk.cast %i : tensor<16xi32> -> tensor<16xui8>
  %bc = blk.bitcast %ca : tensor<16xf32> -> tensor<16xi32>
  func.return
}

// CHECK-LABEL: func.func @strict_elementwise
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<16xf32>, %[[Y:[a-z0-9_]+]]: tensor<16xf32>, %[[I:[a-z0-9_]+]]: tensor<16xi32>, %[[J:[a-z0-9_]+]]: tensor<16xi32>, %[[M:[a-z0-9_]+]]: tensor<16xi1>, %[[U:[a-z0-9_]+]]: tensor<16xui8>)
// CHECK-NEXT: %[[ADD:.*]] = blk.add %[[X]], %[[Y]] : tensor<16xf32>
// CHECK-NEXT: %[[SUB:.*]] = blk.sub %[[X]], %[[Y]] : tensor<16xf32>
// CHECK-NEXT: %[[MUL:.*]] = blk.mul %[[I]], %[[J]] : tensor<16xi32>
// CHECK-NEXT: %[[DIV:.*]] = blk.truediv %[[X]], %[[Y]] : tensor<16xf32>
// CHECK-NEXT: %[[FDT:.*]] = blk.floordiv %[[I]], %[[J]] rounding = trunc : tensor<16xi32>
// CHECK-NEXT: %[[FDF:.*]] = blk.floordiv %[[X]], %[[Y]] rounding = floor : tensor<16xf32>
// CHECK-NEXT: %[[MDF:.*]] = blk.mod %[[I]], %[[J]] rounding = floor : tensor<16xi32>
// CHECK-NEXT: %[[NEG:.*]] = blk.neg %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[ABS:.*]] = blk.abs %[[I]] : tensor<16xi32>
// CHECK-NEXT: %[[NOT:.*]] = blk.not %[[M]] : tensor<16xi1>
// CHECK-NEXT: %[[AND:.*]] = blk.and %[[M]], %[[NOT]] : tensor<16xi1>
// CHECK-NEXT: %[[OR:.*]] = blk.or %[[U]], %[[U]] : tensor<16xui8>
// CHECK-NEXT: %[[XOR:.*]] = blk.xor %[[I]], %[[J]] : tensor<16xi32>
// CHECK-NEXT: %[[SHL:.*]] = blk.shl %[[I]], %[[J]] : tensor<16xi32>
// CHECK-NEXT: %[[SHR:.*]] = blk.shr %[[U]], %[[U]] : tensor<16xui8>
// CHECK-NEXT: %[[ASHR:.*]] = blk.shr %[[U]], %[[U]] fill = sign : tensor<16xui8>
// CHECK-NEXT: %[[LSHR:.*]] = blk.shr %[[I]], %[[J]] fill = zero : tensor<16xi32>
// CHECK-NEXT: %[[MIN:.*]] = blk.minimum %[[X]], %[[Y]] : tensor<16xf32>
// CHECK-NEXT: %[[MAX:.*]] = blk.maximum %[[I]], %[[J]] : tensor<16xi32>
// CHECK-NEXT: %[[MINNUM:.*]] = blk.minimum %[[X]], %[[Y]] nan = num : tensor<16xf32>
// CHECK-NEXT: %[[MAXIMUM:.*]] = blk.maximum %[[X]], %[[Y]] nan = propagate : tensor<16xf32>
// CHECK-NEXT: %[[LT:.*]] = blk.cmp lt, %[[I]], %[[J]] : tensor<16xi32>
// CHECK-NEXT: %[[EQ:.*]] = blk.cmp eq, %[[X]], %[[Y]] : tensor<16xf32>
// CHECK-NEXT: %[[NE:.*]] = blk.cmp ne, %[[U]], %[[U]] : tensor<16xui8>
// CHECK-NEXT: %[[SEL:.*]] = blk.where %[[LT]], %[[X]], %[[Y]] : tensor<16xf32>
// CHECK-NEXT: %[[FMA:.*]] = blk.fma %[[X]], %[[Y]], %[[X]] : tensor<16xf32>
func.func @strict_elementwise(%x: tensor<16xf32>, %y: tensor<16xf32>, %i: tensor<16xi32>, %j: tensor<16xi32>, %m: tensor<16xi1>, %u: tensor<16xui8>) {
  %add = blk.add %x, %y : tensor<16xf32>
  %sub = blk.sub %x, %y : tensor<16xf32>
  %mul = blk.mul %i, %j : tensor<16xi32>
  %div = blk.truediv %x, %y : tensor<16xf32>
  %fdt = blk.floordiv %i, %j rounding = trunc : tensor<16xi32>
  %fdf = blk.floordiv %x, %y rounding = floor : tensor<16xf32>
  %mdf = blk.mod %i, %j rounding = floor : tensor<16xi32>
  %neg = blk.neg %x : tensor<16xf32>
  %abs = blk.abs %i : tensor<16xi32>
  %not = blk.not %m : tensor<16xi1>
  %and = blk.and %m, %not : tensor<16xi1>
  %or = blk.or %u, %u : tensor<16xui8>
  %xor = blk.xor %i, %j : tensor<16xi32>
  %shl = blk.shl %i, %j : tensor<16xi32>
  %shr = blk.shr %u, %u : tensor<16xui8>
  %ashr = blk.shr %u, %u fill = sign : tensor<16xui8>
  %lshr = blk.shr %i, %j fill = zero : tensor<16xi32>
  %min = blk.minimum %x, %y : tensor<16xf32>
  %max = blk.maximum %i, %j : tensor<16xi32>
  %minnum = blk.minimum %x, %y nan = num : tensor<16xf32>
  %maximum = blk.maximum %x, %y nan = propagate : tensor<16xf32>
  %lt = blk.cmp lt, %i, %j : tensor<16xi32>
  %eq = blk.cmp eq, %x, %y : tensor<16xf32>
  %ne = blk.cmp ne, %u, %u : tensor<16xui8>
  %sel = blk.where %lt, %x, %y : tensor<16xf32>
  %fma = blk.fma %x, %y, %x : tensor<16xf32>
  func.return
}

// CHECK-LABEL: func.func @loose_elementwise
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<16xf32>, %[[ROW:[a-z0-9_]+]]: tensor<1x16xf16>, %[[COL:[a-z0-9_]+]]: tensor<8x1xi32>, %[[I:[a-z0-9_]+]]: tensor<16xi32>, %[[S:[a-z0-9_]+]]: i64)
// CHECK-NEXT: %[[ONE:.*]] = blk.literal 1 : !blk.weak<int>
// CHECK-NEXT: %[[HALF:.*]] = blk.literal 5.000000e-01 : !blk.weak<float>
// CHECK-NEXT: %[[YES:.*]] = blk.literal true : !blk.weak<bool>
// CHECK-NEXT: %[[A:.*]] = blk.add %[[I]], %[[ONE]] : tensor<16xi32>, !blk.weak<int> -> tensor<16xi32>
// CHECK-NEXT: %[[B:.*]] = blk.add %[[ROW]], %[[COL]] : tensor<1x16xf16>, tensor<8x1xi32> -> tensor<8x16xf16>
// CHECK-NEXT: %[[C:.*]] = blk.mul %[[X]], %[[S]] : tensor<16xf32>, i64 -> tensor<16xf32>
// CHECK-NEXT: %[[D:.*]] = blk.truediv %[[I]], %[[I]] : tensor<16xi32>, tensor<16xi32> -> tensor<16xf32>
// CHECK-NEXT: %[[E:.*]] = blk.floordiv %[[I]], %[[ONE]] : tensor<16xi32>, !blk.weak<int> -> tensor<16xi32>
// CHECK-NEXT: %[[F:.*]] = blk.mod %[[I]], %[[ONE]] : tensor<16xi32>, !blk.weak<int> -> tensor<16xi32>
// CHECK-NEXT: %[[G:.*]] = blk.cmp ge, %[[X]], %[[HALF]] : tensor<16xf32>, !blk.weak<float> -> tensor<16xi1>
// CHECK-NEXT: %[[H:.*]] = blk.where %[[YES]], %[[X]], %[[I]] : !blk.weak<bool>, tensor<16xf32>, tensor<16xi32> -> tensor<16xf32>
// CHECK-NEXT: %[[K:.*]] = blk.sqrt %[[I]] : tensor<16xi32> -> tensor<16xf32>
// CHECK-NEXT: %[[L:.*]] = blk.and %[[I]], %[[YES]] : tensor<16xi32>, !blk.weak<bool> -> tensor<16xi32>
func.func @loose_elementwise(%x: tensor<16xf32>, %row: tensor<1x16xf16>, %col: tensor<8x1xi32>, %i: tensor<16xi32>, %s: i64) {
  %one = blk.literal 1 : !blk.weak<int>
  %half = blk.literal 5.000000e-01 : !blk.weak<float>
  %yes = blk.literal true : !blk.weak<bool>
  %a = blk.add %i, %one : tensor<16xi32>, !blk.weak<int> -> tensor<16xi32>
  %b = blk.add %row, %col : tensor<1x16xf16>, tensor<8x1xi32> -> tensor<8x16xf16>
  %c = blk.mul %x, %s : tensor<16xf32>, i64 -> tensor<16xf32>
  %d = blk.truediv %i, %i : tensor<16xi32>, tensor<16xi32> -> tensor<16xf32>
  %e = blk.floordiv %i, %one : tensor<16xi32>, !blk.weak<int> -> tensor<16xi32>
  %f = blk.mod %i, %one : tensor<16xi32>, !blk.weak<int> -> tensor<16xi32>
  %g = blk.cmp ge, %x, %half : tensor<16xf32>, !blk.weak<float> -> tensor<16xi1>
  %h = blk.where %yes, %x, %i : !blk.weak<bool>, tensor<16xf32>, tensor<16xi32> -> tensor<16xf32>
  %k = blk.sqrt %i : tensor<16xi32> -> tensor<16xf32>
  %l = blk.and %i, %yes : tensor<16xi32>, !blk.weak<bool> -> tensor<16xi32>
  func.return
}

// CHECK-LABEL: func.func @math
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<16xf32>)
// CHECK-NEXT: %[[V0:.*]] = blk.exp %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V1:.*]] = blk.exp2 %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V2:.*]] = blk.log %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V3:.*]] = blk.log2 %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V4:.*]] = blk.sqrt %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V5:.*]] = blk.rsqrt %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V6:.*]] = blk.sin %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V7:.*]] = blk.cos %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V8:.*]] = blk.tanh %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V9:.*]] = blk.erf %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V10:.*]] = blk.floor %[[X]] : tensor<16xf32>
// CHECK-NEXT: %[[V11:.*]] = blk.ceil %[[X]] : tensor<16xf32>
func.func @math(%x: tensor<16xf32>) {
  %0 = blk.exp %x : tensor<16xf32>
  %1 = blk.exp2 %x : tensor<16xf32>
  %2 = blk.log %x : tensor<16xf32>
  %3 = blk.log2 %x : tensor<16xf32>
  %4 = blk.sqrt %x : tensor<16xf32>
  %5 = blk.rsqrt %x : tensor<16xf32>
  %6 = blk.sin %x : tensor<16xf32>
  %7 = blk.cos %x : tensor<16xf32>
  %8 = blk.tanh %x : tensor<16xf32>
  %9 = blk.erf %x : tensor<16xf32>
  %10 = blk.floor %x : tensor<16xf32>
  %11 = blk.ceil %x : tensor<16xf32>
  func.return
}

// CHECK-LABEL: func.func @memory
// CHECK-SAME: (%[[XP:[a-z0-9_]+]]: !blk.ptr<f32>, %[[IP:[a-z0-9_]+]]: !blk.ptr<i32>, %[[N:[a-z0-9_]+]]: i32, %[[OFFS:[a-z0-9_]+]]: tensor<16xi32>, %[[M:[a-z0-9_]+]]: tensor<16xi1>, %[[V:[a-z0-9_]+]]: tensor<16xf32>, %[[H:[a-z0-9_]+]]: tensor<16xf16>)
// CHECK-NEXT: %[[P:.*]] = blk.addptr %[[XP]], %[[OFFS]] : !blk.ptr<f32>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
// CHECK-NEXT: %[[P2:.*]] = blk.addptr %[[P]], %[[N]] : tensor<16x!blk.ptr<f32>>, i32 -> tensor<16x!blk.ptr<f32>>
// CHECK-NEXT: %[[ZERO:.*]] = blk.literal 0.000000e+00 : !blk.weak<float>
// CHECK-NEXT: %[[A:.*]] = blk.load %[[P]] mask %[[M]] other %[[V]] : tensor<16x!blk.ptr<f32>>
// CHECK-NEXT: %[[B:.*]] = blk.load %[[P]] : tensor<16x!blk.ptr<f32>>
// CHECK-NEXT: %[[C:.*]] = blk.load %[[IP]] : !blk.ptr<i32>
// CHECK-NEXT: %[[D:.*]] = blk.load %[[P]] mask %[[M]] other %[[ZERO]] : tensor<16x!blk.ptr<f32>>, tensor<16xi1>, !blk.weak<float> -> tensor<16xf32>
// CHECK-NEXT: blk.store %[[P]], %[[A]] mask %[[M]] : tensor<16x!blk.ptr<f32>>
// CHECK-NEXT: blk.store %[[P]], %[[B]] : tensor<16x!blk.ptr<f32>>
// CHECK-NEXT: blk.store %[[P]], %[[H]] : tensor<16x!blk.ptr<f32>>, tensor<16xf16>
// CHECK-NEXT: %[[OLD:.*]] = blk.atomic_rmw add, %[[P]], %[[A]] mask %[[M]] : tensor<16x!blk.ptr<f32>>
// CHECK-NEXT: %[[OLDMAX:.*]] = blk.atomic_rmw max, %[[IP]], %[[N]] : !blk.ptr<i32>
// CHECK-NEXT: %[[CAS:.*]] = blk.atomic_cas %[[IP]], %[[N]], %[[N]] : !blk.ptr<i32>
func.func @memory(%xp: !blk.ptr<f32>, %ip: !blk.ptr<i32>, %n: i32, %offs: tensor<16xi32>, %m: tensor<16xi1>, %v: tensor<16xf32>, %h: tensor<16xf16>) attributes {blk.kernel} {
  %p = blk.addptr %xp, %offs : !blk.ptr<f32>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
  %p2 = blk.addptr %p, %n : tensor<16x!blk.ptr<f32>>, i32 -> tensor<16x!blk.ptr<f32>>
  %zero = blk.literal 0.000000e+00 : !blk.weak<float>
  %a = blk.load %p mask %m other %v : tensor<16x!blk.ptr<f32>>
  %b = blk.load %p : tensor<16x!blk.ptr<f32>>
  %c = blk.load %ip : !blk.ptr<i32>
  %d = blk.load %p mask %m other %zero : tensor<16x!blk.ptr<f32>>, tensor<16xi1>, !blk.weak<float> -> tensor<16xf32>
  blk.store %p, %a mask %m : tensor<16x!blk.ptr<f32>>
  blk.store %p, %b : tensor<16x!blk.ptr<f32>>
  blk.store %p, %h : tensor<16x!blk.ptr<f32>>, tensor<16xf16>
  %old = blk.atomic_rmw add, %p, %a mask %m : tensor<16x!blk.ptr<f32>>
  %oldmax = blk.atomic_rmw max, %ip, %n : !blk.ptr<i32>
  %cas = blk.atomic_cas %ip, %n, %n : !blk.ptr<i32>
  func.return
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<16x8xf16>, %[[V:[a-z0-9_]+]]: tensor<16xi8>, %[[A:[a-z0-9_]+]]: tensor<16x8xf16>, %[[B:[a-z0-9_]+]]: tensor<8x32xf16>, %[[ACC:[a-z0-9_]+]]: tensor<16x32xf32>)
// CHECK-NEXT: %[[S:.*]] = blk.reduce sum, %[[X]] axis = 1 acc_dtype = f32 : tensor<16x8xf16> -> tensor<16xf32>
// CHECK-NEXT: %[[ALL:.*]] = blk.reduce sum, %[[V]] acc_dtype = i32 : tensor<16xi8> -> i32
// CHECK-NEXT: %[[MX:.*]] = blk.reduce max, %[[X]] axis = 0 : tensor<16x8xf16> -> tensor<8xf16>
// CHECK-NEXT: %[[AM:.*]] = blk.reduce argmax, %[[V]] : tensor<16xi8> -> i32
// CHECK-NEXT: %[[AN:.*]] = blk.reduce argmin, %[[X]] axis = 1 nan = num : tensor<16x8xf16> -> tensor<16xi32>
// CHECK-NEXT: %[[MN:.*]] = blk.reduce min, %[[X]] acc_dtype = f32 nan = propagate : tensor<16x8xf16> -> f32
// CHECK-NEXT: %[[XO:.*]] = blk.reduce xor, %[[V]] : tensor<16xi8> -> i8
// CHECK-NEXT: %[[CS:.*]] = blk.scan sum, %[[V]] axis = 0 : tensor<16xi8>
// CHECK-NEXT: %[[CP:.*]] = blk.scan prod, %[[X]] axis = 1 acc_dtype = f32 : tensor<16x8xf16>
// CHECK-NEXT: %[[CM:.*]] = blk.scan max, %[[X]] axis = 0 nan = num : tensor<16x8xf16>
// CHECK-NEXT: %[[D:.*]] = blk.dot %[[A]], %[[B]] acc_dtype = f32 : tensor<16x8xf16>, tensor<8x32xf16> -> tensor<16x32xf32>
// CHECK-NEXT: %[[E:.*]] = blk.dot %[[A]], %[[B]] acc %[[ACC]] acc_dtype = f32 : tensor<16x8xf16>, tensor<8x32xf16>, tensor<16x32xf32> -> tensor<16x32xf32>
func.func @reductions(%x: tensor<16x8xf16>, %v: tensor<16xi8>, %a: tensor<16x8xf16>, %b: tensor<8x32xf16>, %acc: tensor<16x32xf32>) {
  %s = blk.reduce sum, %x axis = 1 acc_dtype = f32 : tensor<16x8xf16> -> tensor<16xf32>
  %all = blk.reduce sum, %v acc_dtype = i32 : tensor<16xi8> -> i32
  %mx = blk.reduce max, %x axis = 0 : tensor<16x8xf16> -> tensor<8xf16>
  %am = blk.reduce argmax, %v : tensor<16xi8> -> i32
  %an = blk.reduce argmin, %x axis = 1 nan = num : tensor<16x8xf16> -> tensor<16xi32>
  %mn = blk.reduce min, %x acc_dtype = f32 nan = propagate : tensor<16x8xf16> -> f32
  %xo = blk.reduce xor, %v : tensor<16xi8> -> i8
  %cs = blk.scan sum, %v axis = 0 : tensor<16xi8>
  %cp = blk.scan prod, %x axis = 1 acc_dtype = f32 : tensor<16x8xf16>
  %cm = blk.scan max, %x axis = 0 nan = num : tensor<16x8xf16>
  %d = blk.dot %a, %b acc_dtype = f32 : tensor<16x8xf16>, tensor<8x32xf16> -> tensor<16x32xf32>
  %e = blk.dot %a, %b acc %acc acc_dtype = f32 : tensor<16x8xf16>, tensor<8x32xf16>, tensor<16x32xf32> -> tensor<16x32xf32>
  func.return
}

// CHECK-LABEL: func.func @combining_regions
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[I:[a-z0-9_]+]]: tensor<4x8xi32>)
// CHECK-NEXT: %[[S:.*]] = blk.reduce_region %[[X]] axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
// CHECK-NEXT: ^{{.*}}(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:   %[[C:.*]] = blk.add %[[A]], %[[B]] : f32
// CHECK-NEXT:   blk.yield %[[C]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[M:.*]], %[[J:.*]] = blk.reduce_region %[[X]], %[[I]] axis = 0 : tensor<4x8xf32>, tensor<4x8xi32> -> tensor<8xf32>, tensor<8xi32> {
// CHECK-NEXT: ^{{.*}}(%[[AV:.*]]: f32, %[[AI:.*]]: i32, %[[BV:.*]]: f32, %[[BI:.*]]: i32):
// CHECK-NEXT:   %[[G:.*]] = blk.cmp gt, %[[BV]], %[[AV]] : f32
// CHECK-NEXT:   %[[V:.*]] = blk.where %[[G]], %[[BV]], %[[AV]] : f32
// CHECK-NEXT:   %[[W:.*]] = blk.where %[[G]], %[[BI]], %[[AI]] : i32
// CHECK-NEXT:   blk.yield %[[V]], %[[W]] : f32, i32
// CHECK-NEXT: }
// CHECK-NEXT: %[[T:.*]] = blk.scan_region %[[I]] axis = 0 reverse : tensor<4x8xi32> -> tensor<4x8xi32> {
// CHECK:      %[[U:.*]] = blk.scan_region %[[I]] axis = 1 : tensor<4x8xi32> -> tensor<4x8xi32> {
func.func @combining_regions(%x: tensor<4x8xf32>, %i: tensor<4x8xi32>) {
  %s = blk.reduce_region %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = blk.add %a, %b : f32
    blk.yield %c : f32
  }
  %m, %j = blk.reduce_region %x, %i axis = 0 : tensor<4x8xf32>, tensor<4x8xi32> -> tensor<8xf32>, tensor<8xi32> {
  ^bb0(%av: f32, %ai: i32, %bv: f32, %bi: i32):
    %g = blk.cmp gt, %bv, %av : f32, f32 -> i1
    %v = blk.where %g, %bv, %av : i1, f32, f32 -> f32
    %w = blk.where %g, %bi, %ai : i1, i32, i32 -> i32
    blk.yield %v, %w : f32, i32
  }
  %t = blk.scan_region %i axis = 0 reverse : tensor<4x8xi32> -> tensor<4x8xi32> {
  ^bb0(%a: i32, %b: i32):
    %c = blk.mul %a, %b : i32
    blk.yield %c : i32
  }
  %u = blk.scan_region %i axis = 1 : tensor<4x8xi32> -> tensor<4x8xi32> {
  ^bb0(%a: i32, %b: i32):
    %c = blk.maximum %a, %b : i32
    blk.yield %c : i32
  }
  func.return
}

// CHECK-LABEL: func.func @debugging
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<16xf32>, %[[N:[a-z0-9_]+]]: i32, %[[OK:[a-z0-9_]+]]: tensor<16xi1>)
// CHECK-NEXT: blk.print "x = " %[[X]], %[[N]] : tensor<16xf32>, i32
// CHECK-NEXT: blk.print "reached"
// CHECK-NEXT: blk.print " x: " %[[X]] : tensor<16xf32> {hex}
// CHECK-NEXT: %[[I:[a-z0-9_]+]] = arith.constant 3 : i64
// CHECK-NEXT: blk.print " n: " %[[I]], %[[N]] : i64, i32 {index_widths = array<i64: 2>, operand = 1 : i64}
// CHECK-NEXT: blk.assert %[[OK]], "index out of bounds" : tensor<16xi1>
func.func @debugging(%x: tensor<16xf32>, %n: i32, %ok: tensor<16xi1>) {
  blk.print "x = " %x, %n : tensor<16xf32>, i32
  blk.print "reached"
  blk.print " x: " %x : tensor<16xf32> {hex}
  %i = arith.constant 3 : i64
  blk.print " n: " %i, %n : i64, i32 {index_widths = array<i64: 2>, operand = 1 : i64}
  blk.assert %ok, "index out of bounds" : tensor<16xi1>
  func.return
}

// Discardable attributes print before the signature; full signatures where the short
// form does not give every type.
// CHECK-LABEL: func.func @attributes_and_full_signatures
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<16xf32>, %[[V:[a-z0-9_]+]]: tensor<16xi8>, %[[P:[a-z0-9_]+]]: tensor<16x!blk.ptr<f32>>, %[[M:[a-z0-9_]+]]: tensor<16xi1>, %[[H:[a-z0-9_]+]]: f16)
// CHECK-NEXT: %[[C:.*]] = blk.constant 2 : i32 {note = "two"}
// CHECK-NEXT: %[[A:.*]] = blk.add %[[X]], %[[X]] {note = "sum"} : tensor<16xf32>
// CHECK-NEXT: %[[S:.*]] = blk.shr %[[V]], %[[V]] fill = zero {note = "shift"} : tensor<16xi8>
// CHECK-NEXT: %[[R:.*]] = blk.reduce max, %[[X]] axis = 0 acc_dtype = f32 nan = num {note = "max"} : tensor<16xf32> -> f32
// CHECK-NEXT: %[[CS:.*]] = blk.scan sum, %[[V]] axis = 0 acc_dtype = i32 : tensor<16xi8> -> tensor<16xi32>
// CHECK-NEXT: %[[L:.*]] = blk.load %[[P]] mask %[[M]] {note = "load"} : tensor<16x!blk.ptr<f32>>
// CHECK-NEXT: %[[LH:.*]] = blk.load %[[P]] mask %[[M]] other %[[H]] : tensor<16x!blk.ptr<f32>>, tensor<16xi1>, f16 -> tensor<16xf32>
// CHECK-NEXT: blk.store %[[P]], %[[H]] mask %[[M]] : tensor<16x!blk.ptr<f32>>, f16, tensor<16xi1>
// CHECK-NEXT: %[[OLD:.*]] = blk.atomic_rmw xchg, %[[P]], %[[H]] : tensor<16x!blk.ptr<f32>>, f16 -> tensor<16xf32>
func.func @attributes_and_full_signatures(%x: tensor<16xf32>, %v: tensor<16xi8>, %p: tensor<16x!blk.ptr<f32>>, %m: tensor<16xi1>, %h: f16) {
  %c = blk.constant 2 : i32 {note = "two"}
  %a = blk.add %x, %x {note = "sum"} : tensor<16xf32>
  %s = blk.shr %v, %v fill = zero {note = "shift"} : tensor<16xi8>
  %r = blk.reduce max, %x axis = 0 acc_dtype = f32 nan = num {note = "max"} : tensor<16xf32> -> f32
  %cs = blk.scan sum, %v axis = 0 acc_dtype = i32 : tensor<16xi8> -> tensor<16xi32>
  %l = blk.load %p mask %m {note = "load"} : tensor<16x!blk.ptr<f32>>
  %lh = blk.load %p mask %m other %h : tensor<16x!blk.ptr<f32>>, tensor<16xi1>, f16 -> tensor<16xf32>
  blk.store %p, %h mask %m : tensor<16x!blk.ptr<f32>>, f16, tensor<16xi1>
  %old = blk.atomic_rmw xchg, %p, %h : tensor<16x!blk.ptr<f32>>, f16 -> tensor<16xf32>
  func.return
}

// -----

// The register tile of a dot in loop IR (`convert-blk-to-loops`).
// CHECK-LABEL: func.func @dot_tile
// CHECK: blk.dot_tile %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {rows = 4 : i64, cols = 32 : i64, lanes = 16 : i64, pairs} : memref<8x4xbf16>, memref<2x32x2xbf16>, memref<8x32xf32>
// CHECK: blk.dot_tile %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {rows = 2 : i64, cols = 16 : i64, lanes = 8 : i64, pairs, unsigned} : memref<3x2x5xi8>, memref<3x3x16x2xi8>, memref<3x2x16xi32>
// CHECK: blk.dot_tile %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {rows = 3 : i64, cols = 16 : i64, lanes = 8 : i64} : memref<8x4xf64>, memref<4x32xf64>, memref<8x32xf64>
func.func @dot_tile(%a: memref<8x4xbf16>, %b: memref<2x32x2xbf16>, %c: memref<8x32xf32>, %x: memref<3x2x5xi8>, %y: memref<3x3x16x2xi8>, %z: memref<3x2x16xi32>, %u: memref<8x4xf64>, %v: memref<4x32xf64>, %w: memref<8x32xf64>, %i: index, %j: index) {
  blk.dot_tile %a, %b, %c[%i, %j] {rows = 4 : i64, cols = 32 : i64, lanes = 16 : i64, pairs} : memref<8x4xbf16>, memref<2x32x2xbf16>, memref<8x32xf32>
  blk.dot_tile %x, %y, %z[%i, %i, %j] {rows = 2 : i64, cols = 16 : i64, lanes = 8 : i64, pairs, unsigned} : memref<3x2x5xi8>, memref<3x3x16x2xi8>, memref<3x2x16xi32>
  blk.dot_tile %u, %v, %w[%i, %j] {rows = 3 : i64, cols = 16 : i64, lanes = 8 : i64} : memref<8x4xf64>, memref<4x32xf64>, memref<8x32xf64>
  func.return
}

// -----

// A prefetch hint in loop IR (`prefetch-next-iteration`).
// CHECK-LABEL: func.func @prefetch
// CHECK: blk.prefetch %{{.*}} : !blk.ptr<bf16>
func.func @prefetch(%p: !blk.ptr<bf16>) {
  blk.prefetch %p : !blk.ptr<bf16>
  func.return
}
