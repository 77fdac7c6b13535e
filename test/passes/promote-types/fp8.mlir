// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton}' | filecheck %s --check-prefix=TRITON
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=triton-compat}' 2>%t.triton-compat.err | filecheck %s --check-prefix=COMPAT
// RUN: filecheck %s --input-file %t.triton-compat.err --check-prefix=COMPAT-ERR
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=numpy}' | filecheck %s --check-prefix=NUMPY
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=jax}' 2>%t.jax.err | filecheck %s --check-prefix=JAX
// RUN: filecheck %s --input-file %t.jax.err --check-prefix=JAX-ERR
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=torch}' 2>%t.torch.err | filecheck %s --check-prefix=TORCH
// RUN: filecheck %s --input-file %t.torch.err --check-prefix=TORCH-ERR
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=array_api}' 2>%t.array-api.err | filecheck %s --check-prefix=ARRAY-API
// RUN: filecheck %s --input-file %t.array-api.err --check-prefix=ARRAY-API-ERR

// The float8 types: Triton casts two of them to float16 and (on its page) lets them win
// over integers; JAX keeps them only with integers and literals; torch and array_api
// promote none.

// array_api has no float8 dtype: it refuses every case, and prints no function.
// ARRAY-API-NOT: func.func

// float8_e4m3fn + float8_e5m2: float16 (Triton's fp8 pair rule), float32 (NumPy).
// TRITON-LABEL: func.func @e4m3_e5m2(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E4M3FN> -> tensor<4xf16>
// TRITON-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xf8E5M2> -> tensor<4xf16>
// TRITON-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xf16>{{$}}
// COMPAT-LABEL: func.func @e4m3_e5m2(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E4M3FN> -> tensor<4xf16>
// COMPAT-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xf8E5M2> -> tensor<4xf16>
// COMPAT-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xf16>{{$}}
// NUMPY-LABEL: func.func @e4m3_e5m2(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E4M3FN> -> tensor<4xf32>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xf8E5M2> -> tensor<4xf32>
// NUMPY-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xf32>{{$}}
func.func @e4m3_e5m2(%a: tensor<4xf8E4M3FN>, %b: tensor<4xf8E5M2>) {
  // JAX-ERR: fp8.mlir:[[# @LINE + 3]]:3: error: float8_e4m3fn and float8_e5m2 have no common dtype: JAX's 8-bit floats promote only with bools, integers and Python numbers; cast explicitly (e.g. to float32) (policy 'jax', rule 'float8')
  // TORCH-ERR: fp8.mlir:[[# @LINE + 2]]:3: error: float8_e4m3fn and float8_e5m2: torch does not promote float8 dtypes (float8_e4m3fn with float8_e5m2); cast explicitly (policy 'torch', rule 'float8')
  // ARRAY-API-ERR: fp8.mlir:[[# @LINE + 1]]:3: error: float8_e4m3fn is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.add %a, %b : tensor<4xf8E4M3FN>, tensor<4xf8E5M2> -> tensor<4xf16>
  func.return
}

// -----

// float8_e4m3fn * int8: the fp8 dtype (Triton page, NumPy's ml_dtypes, JAX); Triton 3.9's
// front end refuses it.
// TRITON-LABEL: func.func @e4m3_int8(
// TRITON-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi8> -> tensor<4xf8E4M3FN>
// TRITON-NEXT:    %[[R:.*]] = blk.mul %a, %[[B]] : tensor<4xf8E4M3FN>{{$}}
// NUMPY-LABEL: func.func @e4m3_int8(
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi8> -> tensor<4xf8E4M3FN>
// NUMPY-NEXT:    %[[R:.*]] = blk.mul %a, %[[B]] : tensor<4xf8E4M3FN>{{$}}
// JAX-LABEL: func.func @e4m3_int8(
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi8> -> tensor<4xf8E4M3FN>
// JAX-NEXT:    %[[R:.*]] = blk.mul %a, %[[B]] : tensor<4xf8E4M3FN>{{$}}
func.func @e4m3_int8(%a: tensor<4xf8E4M3FN>, %b: tensor<4xi8>) {
  // COMPAT-ERR: fp8.mlir:[[# @LINE + 3]]:3: error: float8_e4m3fn and int8: Triton's front end does not mix fp8 with integers (policy 'triton-compat', rule 'fp8-integer')
  // TORCH-ERR: fp8.mlir:[[# @LINE + 2]]:3: error: float8_e4m3fn and int8: torch does not promote float8 dtypes (float8_e4m3fn with int8); cast explicitly (policy 'torch', rule 'float8')
  // ARRAY-API-ERR: fp8.mlir:[[# @LINE + 1]]:3: error: float8_e4m3fn is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.mul %a, %b : tensor<4xf8E4M3FN>, tensor<4xi8> -> tensor<4xf8E4M3FN>
  func.return
}

// -----

// float8_e5m2 + int32: NumPy needs float64 to hold int32; Triton's page and JAX keep fp8.
// TRITON-LABEL: func.func @e5m2_int32(
// TRITON-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi32> -> tensor<4xf8E5M2>
// TRITON-NEXT:    %[[R:.*]] = blk.add %a, %[[B]] : tensor<4xf8E5M2>{{$}}
// NUMPY-LABEL: func.func @e5m2_int32(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E5M2> -> tensor<4xf64>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi32> -> tensor<4xf64>
// NUMPY-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xf64>{{$}}
// JAX-LABEL: func.func @e5m2_int32(
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xi32> -> tensor<4xf8E5M2>
// JAX-NEXT:    %[[R:.*]] = blk.add %a, %[[B]] : tensor<4xf8E5M2>{{$}}
func.func @e5m2_int32(%a: tensor<4xf8E5M2>, %b: tensor<4xi32>) {
  // COMPAT-ERR: fp8.mlir:[[# @LINE + 3]]:3: error: float8_e5m2 and int32: Triton's front end does not mix fp8 with integers (policy 'triton-compat', rule 'fp8-integer')
  // TORCH-ERR: fp8.mlir:[[# @LINE + 2]]:3: error: float8_e5m2 and int32: torch does not promote float8 dtypes (float8_e5m2 with int32); cast explicitly (policy 'torch', rule 'float8')
  // ARRAY-API-ERR: fp8.mlir:[[# @LINE + 1]]:3: error: float8_e5m2 is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.add %a, %b : tensor<4xf8E5M2>, tensor<4xi32> -> tensor<4xf8E5M2>
  func.return
}

// -----

// float8_e5m2 - float16: float16 (Triton), float32 (NumPy); JAX refuses fp8 with any
// other float.
// TRITON-LABEL: func.func @e5m2_float16(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E5M2> -> tensor<4xf16>
// TRITON-NEXT:    %[[R:.*]] = blk.sub %[[A]], %b : tensor<4xf16>{{$}}
// COMPAT-LABEL: func.func @e5m2_float16(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E5M2> -> tensor<4xf16>
// COMPAT-NEXT:    %[[R:.*]] = blk.sub %[[A]], %b : tensor<4xf16>{{$}}
// NUMPY-LABEL: func.func @e5m2_float16(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E5M2> -> tensor<4xf32>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xf16> -> tensor<4xf32>
// NUMPY-NEXT:    %[[R:.*]] = blk.sub %[[A]], %[[B]] : tensor<4xf32>{{$}}
func.func @e5m2_float16(%a: tensor<4xf8E5M2>, %b: tensor<4xf16>) {
  // JAX-ERR: fp8.mlir:[[# @LINE + 3]]:3: error: float8_e5m2 and float16 have no common dtype: JAX's 8-bit floats promote only with bools, integers and Python numbers; cast explicitly (e.g. to float32) (policy 'jax', rule 'float8')
  // TORCH-ERR: fp8.mlir:[[# @LINE + 2]]:3: error: float8_e5m2 and float16: torch does not promote float8 dtypes (float8_e5m2 with float16); cast explicitly (policy 'torch', rule 'float8')
  // ARRAY-API-ERR: fp8.mlir:[[# @LINE + 1]]:3: error: float8_e5m2 is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.sub %a, %b : tensor<4xf8E5M2>, tensor<4xf16> -> tensor<4xf16>
  func.return
}

// -----

// float8_e4m3fn - bfloat16: bfloat16 on the Triton page, float32 in its front end and NumPy.
// TRITON-LABEL: func.func @e4m3_bfloat16(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E4M3FN> -> tensor<4xbf16>
// TRITON-NEXT:    %[[R:.*]] = blk.sub %[[A]], %b : tensor<4xbf16>{{$}}
// COMPAT-LABEL: func.func @e4m3_bfloat16(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E4M3FN> -> tensor<4xf32>
// COMPAT-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xbf16> -> tensor<4xf32>
// COMPAT-NEXT:    %[[R:.*]] = blk.sub %[[A]], %[[B]] : tensor<4xf32>{{$}}
// NUMPY-LABEL: func.func @e4m3_bfloat16(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E4M3FN> -> tensor<4xf32>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xbf16> -> tensor<4xf32>
// NUMPY-NEXT:    %[[R:.*]] = blk.sub %[[A]], %[[B]] : tensor<4xf32>{{$}}
func.func @e4m3_bfloat16(%a: tensor<4xf8E4M3FN>, %b: tensor<4xbf16>) {
  // JAX-ERR: fp8.mlir:[[# @LINE + 3]]:3: error: float8_e4m3fn and bfloat16 have no common dtype: JAX's 8-bit floats promote only with bools, integers and Python numbers; cast explicitly (e.g. to float32) (policy 'jax', rule 'float8')
  // TORCH-ERR: fp8.mlir:[[# @LINE + 2]]:3: error: float8_e4m3fn and bfloat16: torch does not promote float8 dtypes (float8_e4m3fn with bfloat16); cast explicitly (policy 'torch', rule 'float8')
  // ARRAY-API-ERR: fp8.mlir:[[# @LINE + 1]]:3: error: float8_e4m3fn is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.sub %a, %b : tensor<4xf8E4M3FN>, tensor<4xbf16> -> tensor<4xbf16>
  func.return
}

// -----

// float8_e4m3fn * 2.5: the literal takes the fp8 dtype, except in NumPy (float32).
// TRITON-LABEL: func.func @e4m3_times_2_5(
// TRITON-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f8E4M3FN{{$}}
// TRITON-NEXT:    %[[R:.*]] = blk.mul %a, %[[C]] : tensor<4xf8E4M3FN>, f8E4M3FN -> tensor<4xf8E4M3FN>
// COMPAT-LABEL: func.func @e4m3_times_2_5(
// COMPAT-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f8E4M3FN{{$}}
// COMPAT-NEXT:    %[[R:.*]] = blk.mul %a, %[[C]] : tensor<4xf8E4M3FN>, f8E4M3FN -> tensor<4xf8E4M3FN>
// NUMPY-LABEL: func.func @e4m3_times_2_5(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf8E4M3FN> -> tensor<4xf32>
// NUMPY-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f32{{$}}
// NUMPY-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[C]] : tensor<4xf32>, f32 -> tensor<4xf32>
// JAX-LABEL: func.func @e4m3_times_2_5(
// JAX-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f8E4M3FN{{$}}
// JAX-NEXT:    %[[R:.*]] = blk.mul %a, %[[C]] : tensor<4xf8E4M3FN>, f8E4M3FN -> tensor<4xf8E4M3FN>
// TORCH-LABEL: func.func @e4m3_times_2_5(
// TORCH-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f8E4M3FN{{$}}
// TORCH-NEXT:    %[[R:.*]] = blk.mul %a, %[[C]] : tensor<4xf8E4M3FN>, f8E4M3FN -> tensor<4xf8E4M3FN>
func.func @e4m3_times_2_5(%a: tensor<4xf8E4M3FN>) {
  %c = blk.literal 2.5 : !blk.weak<float>
  // ARRAY-API-ERR: fp8.mlir:[[# @LINE + 1]]:3: error: float8_e4m3fn is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.mul %a, %c : tensor<4xf8E4M3FN>, !blk.weak<float> -> tensor<4xf8E4M3FN>
  func.return
}
