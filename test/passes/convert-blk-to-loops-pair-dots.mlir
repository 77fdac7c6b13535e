// RUN: blk-opt --split-input-file %s -p "to-strict,convert-blk-to-loops{vector-bits=512 vector-registers=32 pair-dot-types=bfloat16,int8}" | filecheck %s
// RUN: blk-opt --split-input-file %s -p "to-strict,convert-blk-to-loops{vector-bits=512 vector-registers=32}" | filecheck %s --check-prefix=PLAIN

// A bfloat16 dot on a target that adds products in pairs: B's tile is loaded straight
// into its pairs (rows 2p and 2p + 1 side by side), and each register tile is one
// blk.dot_tile.
// CHECK-LABEL: func.func @bf16_dot
// CHECK-DAG:     %[[PAIRS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x64x2xbf16>
// CHECK-DAG:     %[[ACC:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x64xf32>
// CHECK:         blk.addptr %b_ptr
// CHECK-NEXT:    %[[B:.*]] = blk.load
// CHECK-NEXT:    memref.store %[[B]], %[[PAIRS]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x64x2xbf16>
// CHECK:         blk.dot_tile %{{.*}}, %[[PAIRS]], %[[ACC]][%{{.*}}, %{{.*}}] {rows = 4 : i64, cols = 64 : i64, lanes = 16 : i64, pairs} : memref<16x8xbf16>, memref<4x64x2xbf16>, memref<16x64xf32>
// Without the pair instructions, both operands are converted to float32 buffers and the
// tiles are fused multiply-adds.
// PLAIN-LABEL: func.func @bf16_dot
// PLAIN-DAG:     %[[B:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x64xf32>
// PLAIN-DAG:     %[[A:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x8xf32>
// PLAIN:         blk.dot_tile %[[A]], %[[B]], %{{.*}}[%{{.*}}, %{{.*}}] {rows = 4 : i64, cols = 64 : i64, lanes = 16 : i64} : memref<16x8xf32>, memref<8x64xf32>, memref<16x64xf32>
// PLAIN-NOT:     blk.fma
// PLAIN:         func.return
func.func @bf16_dot(%a_ptr: !blk.ptr<bf16>, %b_ptr: !blk.ptr<bf16>, %d_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %ai = blk.arange 0, 128 : tensor<128xi32>
  %ap = blk.addptr %a_ptr, %ai : !blk.ptr<bf16>, tensor<128xi32> -> tensor<128x!blk.ptr<bf16>>
  %a1 = blk.load %ap : tensor<128x!blk.ptr<bf16>>
  %a = blk.reshape %a1 : tensor<128xbf16> -> tensor<16x8xbf16>
  %bi = blk.arange 0, 512 : tensor<512xi32>
  %bp = blk.addptr %b_ptr, %bi : !blk.ptr<bf16>, tensor<512xi32> -> tensor<512x!blk.ptr<bf16>>
  %b1 = blk.load %bp : tensor<512x!blk.ptr<bf16>>
  %b = blk.reshape %b1 : tensor<512xbf16> -> tensor<8x64xbf16>
  %d = blk.dot %a, %b acc_dtype = f32 : tensor<16x8xbf16>, tensor<8x64xbf16> -> tensor<16x64xf32>
  %do = blk.arange 0, 1024 : tensor<1024xi32>
  %dq = blk.addptr %d_ptr, %do : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
  %dr = blk.reshape %d : tensor<16x64xf32> -> tensor<1024xf32>
  blk.store %dq, %dr : tensor<1024x!blk.ptr<f32>>
  func.return
}

// -----

// An odd inner dimension: the last pair is the last row of B and zero.
// CHECK-LABEL: func.func @int8_dot_odd_k
// CHECK-DAG:     %[[ZERO:.*]] = blk.constant 0 : i8
// CHECK-DAG:     %[[PAIRS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<3x16x2xi8>
// CHECK:         memref.store %[[ZERO]], %[[PAIRS]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<3x16x2xi8>
// CHECK:         blk.dot_tile {{.*}} {rows = 8 : i64, cols = 16 : i64, lanes = 16 : i64, pairs} : memref<8x5xi8>, memref<3x16x2xi8>, memref<8x16xi32>
func.func @int8_dot_odd_k(%a_ptr: !blk.ptr<i8>, %b_ptr: !blk.ptr<i8>, %d_ptr: !blk.ptr<i32>) attributes {blk.kernel} {
  %ai = blk.arange 0, 40 : tensor<40xi32>
  %ap = blk.addptr %a_ptr, %ai : !blk.ptr<i8>, tensor<40xi32> -> tensor<40x!blk.ptr<i8>>
  %a1 = blk.load %ap : tensor<40x!blk.ptr<i8>>
  %a = blk.reshape %a1 : tensor<40xi8> -> tensor<8x5xi8>
  %bi = blk.arange 0, 80 : tensor<80xi32>
  %bp = blk.addptr %b_ptr, %bi : !blk.ptr<i8>, tensor<80xi32> -> tensor<80x!blk.ptr<i8>>
  %b1 = blk.load %bp : tensor<80x!blk.ptr<i8>>
  %b = blk.reshape %b1 : tensor<80xi8> -> tensor<5x16xi8>
  %d = blk.dot %a, %b acc_dtype = i32 : tensor<8x5xi8>, tensor<5x16xi8> -> tensor<8x16xi32>
  %do = blk.arange 0, 128 : tensor<128xi32>
  %dq = blk.addptr %d_ptr, %do : !blk.ptr<i32>, tensor<128xi32> -> tensor<128x!blk.ptr<i32>>
  %dr = blk.reshape %d : tensor<8x16xi32> -> tensor<128xi32>
  blk.store %dq, %dr : tensor<128x!blk.ptr<i32>>
  func.return
}

// -----

// float16 has no pair instruction (`pair-dot-types` cannot name it): its operands become
// float32 buffers for fused multiply-add tiles. A bfloat16 dot accumulating in float64,
// or with fewer columns than a vector, keeps the scalar tile (`blk.fma` on scalars).
// CHECK-LABEL: func.func @no_pairs
// CHECK:         blk.dot_tile {{.*}} {rows = 4 : i64, cols = 64 : i64, lanes = 16 : i64} : memref<16x8xf32>, memref<8x64xf32>, memref<16x64xf32>
// CHECK-NOT:     blk.dot_tile
// CHECK:         blk.fma {{.*}} : f64
// CHECK:         blk.fma {{.*}} : f32
// CHECK-NOT:     blk.dot_tile
// CHECK:         func.return
func.func @no_pairs(%a_ptr: !blk.ptr<f16>, %b_ptr: !blk.ptr<f16>, %c_ptr: !blk.ptr<bf16>, %e_ptr: !blk.ptr<bf16>, %g_ptr: !blk.ptr<bf16>, %x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f64>, %z_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
  %ai = blk.arange 0, 128 : tensor<128xi32>
  %ap = blk.addptr %a_ptr, %ai : !blk.ptr<f16>, tensor<128xi32> -> tensor<128x!blk.ptr<f16>>
  %a1 = blk.load %ap : tensor<128x!blk.ptr<f16>>
  %a = blk.reshape %a1 : tensor<128xf16> -> tensor<16x8xf16>
  %bi = blk.arange 0, 512 : tensor<512xi32>
  %bp = blk.addptr %b_ptr, %bi : !blk.ptr<f16>, tensor<512xi32> -> tensor<512x!blk.ptr<f16>>
  %b1 = blk.load %bp : tensor<512x!blk.ptr<f16>>
  %b = blk.reshape %b1 : tensor<512xf16> -> tensor<8x64xf16>
  %ci = blk.arange 0, 128 : tensor<128xi32>
  %cp = blk.addptr %c_ptr, %ci : !blk.ptr<bf16>, tensor<128xi32> -> tensor<128x!blk.ptr<bf16>>
  %c1 = blk.load %cp : tensor<128x!blk.ptr<bf16>>
  %c = blk.reshape %c1 : tensor<128xbf16> -> tensor<16x8xbf16>
  %ei = blk.arange 0, 512 : tensor<512xi32>
  %ep = blk.addptr %e_ptr, %ei : !blk.ptr<bf16>, tensor<512xi32> -> tensor<512x!blk.ptr<bf16>>
  %e1 = blk.load %ep : tensor<512x!blk.ptr<bf16>>
  %e = blk.reshape %e1 : tensor<512xbf16> -> tensor<8x64xbf16>
  %gi = blk.arange 0, 64 : tensor<64xi32>
  %gp = blk.addptr %g_ptr, %gi : !blk.ptr<bf16>, tensor<64xi32> -> tensor<64x!blk.ptr<bf16>>
  %g1 = blk.load %gp : tensor<64x!blk.ptr<bf16>>
  %g = blk.reshape %g1 : tensor<64xbf16> -> tensor<8x8xbf16>
  %x = blk.dot %a, %b acc_dtype = f32 : tensor<16x8xf16>, tensor<8x64xf16> -> tensor<16x64xf32>
  %y = blk.dot %c, %e acc_dtype = f64 : tensor<16x8xbf16>, tensor<8x64xbf16> -> tensor<16x64xf64>
  %z = blk.dot %c, %g acc_dtype = f32 : tensor<16x8xbf16>, tensor<8x8xbf16> -> tensor<16x8xf32>
  %xo = blk.arange 0, 1024 : tensor<1024xi32>
  %xq = blk.addptr %x_ptr, %xo : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
  %xr = blk.reshape %x : tensor<16x64xf32> -> tensor<1024xf32>
  blk.store %xq, %xr : tensor<1024x!blk.ptr<f32>>
  %yo = blk.arange 0, 1024 : tensor<1024xi32>
  %yq = blk.addptr %y_ptr, %yo : !blk.ptr<f64>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f64>>
  %yr = blk.reshape %y : tensor<16x64xf64> -> tensor<1024xf64>
  blk.store %yq, %yr : tensor<1024x!blk.ptr<f64>>
  %zo = blk.arange 0, 128 : tensor<128xi32>
  %zq = blk.addptr %z_ptr, %zo : !blk.ptr<f32>, tensor<128xi32> -> tensor<128x!blk.ptr<f32>>
  %zr = blk.reshape %z : tensor<16x8xf32> -> tensor<128xf32>
  blk.store %zq, %zr : tensor<128x!blk.ptr<f32>>
  func.return
}
