// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton}' | filecheck %s --check-prefix=TRITON
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=triton-compat}' 2>%t.triton-compat.err | filecheck %s --check-prefix=COMPAT
// RUN: filecheck %s --input-file %t.triton-compat.err --check-prefix=COMPAT-ERR
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=numpy}' | filecheck %s --check-prefix=NUMPY
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=jax}' | filecheck %s --check-prefix=JAX
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=torch}' | filecheck %s --check-prefix=TORCH
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=array_api}' 2>%t.array-api.err | filecheck %s --check-prefix=ARRAY-API
// RUN: filecheck %s --input-file %t.array-api.err --check-prefix=ARRAY-API-ERR

// Division: the dtype `/` computes in, and the rounding promote-types writes on `//` and
// `%` (trunc: C, Triton on blocks; floor: Python, everyone else).

// int32 // int32: int32 everywhere; Triton truncates, the others floor.
// TRITON-LABEL: func.func @floordiv_int32(
// TRITON-NEXT:    %[[R:.*]] = blk.floordiv %a, %b rounding = trunc : tensor<4xi32>{{$}}
// COMPAT-LABEL: func.func @floordiv_int32(
// COMPAT-NEXT:    %[[R:.*]] = blk.floordiv %a, %b rounding = trunc : tensor<4xi32>{{$}}
// NUMPY-LABEL: func.func @floordiv_int32(
// NUMPY-NEXT:    %[[R:.*]] = blk.floordiv %a, %b rounding = floor : tensor<4xi32>{{$}}
// JAX-LABEL: func.func @floordiv_int32(
// JAX-NEXT:    %[[R:.*]] = blk.floordiv %a, %b rounding = floor : tensor<4xi32>{{$}}
// TORCH-LABEL: func.func @floordiv_int32(
// TORCH-NEXT:    %[[R:.*]] = blk.floordiv %a, %b rounding = floor : tensor<4xi32>{{$}}
// ARRAY-API-LABEL: func.func @floordiv_int32(
// ARRAY-API-NEXT:    %[[R:.*]] = blk.floordiv %a, %b rounding = floor : tensor<4xi32>{{$}}
func.func @floordiv_int32(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  %r = blk.floordiv %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  func.return
}

// -----

// -7 // 2 on literals alone floors under every policy, Triton included.
// TRITON-LABEL: func.func @floordiv_literals(
// TRITON-NEXT:    %[[A:.*]] = blk.constant -7 : i32{{$}}
// TRITON-NEXT:    %[[B:.*]] = blk.constant 2 : i32{{$}}
// TRITON-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %[[B]] rounding = floor : i32{{$}}
// COMPAT-LABEL: func.func @floordiv_literals(
// COMPAT-NEXT:    %[[A:.*]] = blk.constant -7 : i32{{$}}
// COMPAT-NEXT:    %[[B:.*]] = blk.constant 2 : i32{{$}}
// COMPAT-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %[[B]] rounding = floor : i32{{$}}
// NUMPY-LABEL: func.func @floordiv_literals(
// NUMPY-NEXT:    %[[A:.*]] = blk.constant -7 : i64{{$}}
// NUMPY-NEXT:    %[[B:.*]] = blk.constant 2 : i64{{$}}
// NUMPY-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %[[B]] rounding = floor : i64{{$}}
// JAX-LABEL: func.func @floordiv_literals(
// JAX-NEXT:    %[[A:.*]] = blk.constant -7 : i64{{$}}
// JAX-NEXT:    %[[B:.*]] = blk.constant 2 : i64{{$}}
// JAX-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %[[B]] rounding = floor : i64{{$}}
// TORCH-LABEL: func.func @floordiv_literals(
// TORCH-NEXT:    %[[A:.*]] = blk.constant -7 : i64{{$}}
// TORCH-NEXT:    %[[B:.*]] = blk.constant 2 : i64{{$}}
// TORCH-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %[[B]] rounding = floor : i64{{$}}
// ARRAY-API-LABEL: func.func @floordiv_literals(
// ARRAY-API-NEXT:    %[[A:.*]] = blk.constant -7 : i64{{$}}
// ARRAY-API-NEXT:    %[[B:.*]] = blk.constant 2 : i64{{$}}
// ARRAY-API-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %[[B]] rounding = floor : i64{{$}}
func.func @floordiv_literals() {
  %a = blk.literal -7 : !blk.weak<int>
  %b = blk.literal 2 : !blk.weak<int>
  %r = blk.floordiv %a, %b : !blk.weak<int>, !blk.weak<int> -> i32
  func.return
}

// -----

// int32 / int32: float32 (Triton, JAX, torch), float64 (NumPy); array_api refuses integer
// true division.
// TRITON-LABEL: func.func @truediv_int32(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// TRITON-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi32> -> tensor<4xf32>
// TRITON-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf32>{{$}}
// COMPAT-LABEL: func.func @truediv_int32(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// COMPAT-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi32> -> tensor<4xf32>
// COMPAT-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf32>{{$}}
// NUMPY-LABEL: func.func @truediv_int32(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf64>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi32> -> tensor<4xf64>
// NUMPY-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf64>{{$}}
// JAX-LABEL: func.func @truediv_int32(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi32> -> tensor<4xf32>
// JAX-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf32>{{$}}
// TORCH-LABEL: func.func @truediv_int32(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// TORCH-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi32> -> tensor<4xf32>
// TORCH-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf32>{{$}}
func.func @truediv_int32(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  // ARRAY-API-ERR: division.mlir:[[# @LINE + 1]]:3: error: / on int32: the Array API standard defines true division for floating-point dtypes only (policy 'array_api', rule 'true-division')
  %r = blk.truediv %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xf32>
  func.return
}

// -----

// int64 / int64: JAX's float is float64 for 64-bit integers; Triton and torch stay float32.
// TRITON-LABEL: func.func @truediv_int64(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi64> -> tensor<4xf32>
// TRITON-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi64> -> tensor<4xf32>
// TRITON-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf32>{{$}}
// COMPAT-LABEL: func.func @truediv_int64(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi64> -> tensor<4xf32>
// COMPAT-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi64> -> tensor<4xf32>
// COMPAT-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf32>{{$}}
// NUMPY-LABEL: func.func @truediv_int64(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi64> -> tensor<4xf64>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi64> -> tensor<4xf64>
// NUMPY-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf64>{{$}}
// JAX-LABEL: func.func @truediv_int64(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi64> -> tensor<4xf64>
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi64> -> tensor<4xf64>
// JAX-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf64>{{$}}
// TORCH-LABEL: func.func @truediv_int64(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi64> -> tensor<4xf32>
// TORCH-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi64> -> tensor<4xf32>
// TORCH-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf32>{{$}}
func.func @truediv_int64(%a: tensor<4xi64>, %b: tensor<4xi64>) {
  // ARRAY-API-ERR: division.mlir:[[# @LINE + 1]]:3: error: / on int64: the Array API standard defines true division for floating-point dtypes only (policy 'array_api', rule 'true-division')
  %r = blk.truediv %a, %b : tensor<4xi64>, tensor<4xi64> -> tensor<4xf64>
  func.return
}

// -----

// float16 / float16: Triton 3.9's front end divides in float32 (triton-compat); the Triton
// page and the others keep float16.
// TRITON-LABEL: func.func @truediv_float16(
// TRITON-NEXT:    %[[R:.*]] = blk.truediv %a, %b : tensor<4xf16>{{$}}
// COMPAT-LABEL: func.func @truediv_float16(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf16> -> tensor<4xf32>
// COMPAT-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xf16> -> tensor<4xf32>
// COMPAT-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf32>{{$}}
// NUMPY-LABEL: func.func @truediv_float16(
// NUMPY-NEXT:    %[[R:.*]] = blk.truediv %a, %b : tensor<4xf16>{{$}}
// JAX-LABEL: func.func @truediv_float16(
// JAX-NEXT:    %[[R:.*]] = blk.truediv %a, %b : tensor<4xf16>{{$}}
// TORCH-LABEL: func.func @truediv_float16(
// TORCH-NEXT:    %[[R:.*]] = blk.truediv %a, %b : tensor<4xf16>{{$}}
func.func @truediv_float16(%a: tensor<4xf16>, %b: tensor<4xf16>) {
  // ARRAY-API-ERR: division.mlir:[[# @LINE + 1]]:3: error: float16 is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.truediv %a, %b : tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
  func.return
}

// -----

// int8 // uint8: Triton's front end refuses mixed signedness (triton-compat); the page
// promotes to uint8.
// TRITON-LABEL: func.func @floordiv_int8_uint8(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xui8>
// TRITON-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %b rounding = trunc : tensor<4xui8>{{$}}
// NUMPY-LABEL: func.func @floordiv_int8_uint8(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// NUMPY-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %[[B]] rounding = floor : tensor<4xi16>{{$}}
// JAX-LABEL: func.func @floordiv_int8_uint8(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// JAX-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %[[B]] rounding = floor : tensor<4xi16>{{$}}
// TORCH-LABEL: func.func @floordiv_int8_uint8(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// TORCH-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// TORCH-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %[[B]] rounding = floor : tensor<4xi16>{{$}}
// ARRAY-API-LABEL: func.func @floordiv_int8_uint8(
// ARRAY-API-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// ARRAY-API-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// ARRAY-API-NEXT:    %[[R:.*]] = blk.floordiv %[[A]], %[[B]] rounding = floor : tensor<4xi16>{{$}}
func.func @floordiv_int8_uint8(%a: tensor<4xi8>, %b: tensor<4xui8>) {
  // COMPAT-ERR: division.mlir:[[# @LINE + 1]]:3: error: Cannot use /, #, or % with int8 and uint8 because they have different signedness: Triton refuses /, // and % on them; cast them to the same signedness (policy 'triton-compat', rule 'division-signedness')
  %r = blk.floordiv %a, %b : tensor<4xi8>, tensor<4xui8> -> tensor<4xi8>
  func.return
}

// -----

// float32 % float32: Triton's float % is C's fmod (trunc).
// TRITON-LABEL: func.func @mod_float32(
// TRITON-NEXT:    %[[R:.*]] = blk.mod %a, %b rounding = trunc : tensor<4xf32>{{$}}
// COMPAT-LABEL: func.func @mod_float32(
// COMPAT-NEXT:    %[[R:.*]] = blk.mod %a, %b rounding = trunc : tensor<4xf32>{{$}}
// NUMPY-LABEL: func.func @mod_float32(
// NUMPY-NEXT:    %[[R:.*]] = blk.mod %a, %b rounding = floor : tensor<4xf32>{{$}}
// JAX-LABEL: func.func @mod_float32(
// JAX-NEXT:    %[[R:.*]] = blk.mod %a, %b rounding = floor : tensor<4xf32>{{$}}
// TORCH-LABEL: func.func @mod_float32(
// TORCH-NEXT:    %[[R:.*]] = blk.mod %a, %b rounding = floor : tensor<4xf32>{{$}}
// ARRAY-API-LABEL: func.func @mod_float32(
// ARRAY-API-NEXT:    %[[R:.*]] = blk.mod %a, %b rounding = floor : tensor<4xf32>{{$}}
func.func @mod_float32(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  %r = blk.mod %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return
}

// -----

// int8 % float16: triton-compat computes % of float16 in float32.
// TRITON-LABEL: func.func @mod_int8_float16(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xf16>
// TRITON-NEXT:    %[[R:.*]] = blk.mod %[[A]], %b rounding = trunc : tensor<4xf16>{{$}}
// COMPAT-LABEL: func.func @mod_int8_float16(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xf32>
// COMPAT-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xf16> -> tensor<4xf32>
// COMPAT-NEXT:    %[[R:.*]] = blk.mod %[[A]], %[[B]] rounding = trunc : tensor<4xf32>{{$}}
// NUMPY-LABEL: func.func @mod_int8_float16(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xf16>
// NUMPY-NEXT:    %[[R:.*]] = blk.mod %[[A]], %b rounding = floor : tensor<4xf16>{{$}}
// JAX-LABEL: func.func @mod_int8_float16(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xf16>
// JAX-NEXT:    %[[R:.*]] = blk.mod %[[A]], %b rounding = floor : tensor<4xf16>{{$}}
// TORCH-LABEL: func.func @mod_int8_float16(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xf16>
// TORCH-NEXT:    %[[R:.*]] = blk.mod %[[A]], %b rounding = floor : tensor<4xf16>{{$}}
func.func @mod_int8_float16(%a: tensor<4xi8>, %b: tensor<4xf16>) {
  // ARRAY-API-ERR: division.mlir:[[# @LINE + 1]]:3: error: float16 is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.mod %a, %b : tensor<4xi8>, tensor<4xf16> -> tensor<4xf16>
  func.return
}

// -----

// bool % bool: bool (Triton, torch), int8 (NumPy's loop), int32 (JAX); array_api refuses.
// TRITON-LABEL: func.func @mod_bool(
// TRITON-NEXT:    %[[R:.*]] = blk.mod %a, %b rounding = trunc : tensor<4xi1>{{$}}
// COMPAT-LABEL: func.func @mod_bool(
// COMPAT-NEXT:    %[[R:.*]] = blk.mod %a, %b rounding = trunc : tensor<4xi1>{{$}}
// NUMPY-LABEL: func.func @mod_bool(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xi8>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi1> -> tensor<4xi8>
// NUMPY-NEXT:    %[[R:.*]] = blk.mod %[[A]], %[[B]] rounding = floor : tensor<4xi8>{{$}}
// JAX-LABEL: func.func @mod_bool(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xi32>
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi1> -> tensor<4xi32>
// JAX-NEXT:    %[[R:.*]] = blk.mod %[[A]], %[[B]] rounding = floor : tensor<4xi32>{{$}}
// TORCH-LABEL: func.func @mod_bool(
// TORCH-NEXT:    %[[R:.*]] = blk.mod %a, %b rounding = floor : tensor<4xi1>{{$}}
func.func @mod_bool(%a: tensor<4xi1>, %b: tensor<4xi1>) {
  // ARRAY-API-ERR: division.mlir:[[# @LINE + 1]]:3: error: bool and bool promote to bool: mod operations need numeric dtypes in the Array API standard (policy 'array_api', rule 'numeric')
  %r = blk.mod %a, %b : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  func.return
}
