// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton}' | filecheck %s --check-prefix=TRITON
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton-compat}' | filecheck %s --check-prefix=COMPAT
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=numpy}' | filecheck %s --check-prefix=NUMPY
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=jax}' | filecheck %s --check-prefix=JAX
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=torch}' 2>%t.torch.err | filecheck %s --check-prefix=TORCH
// RUN: filecheck %s --input-file %t.torch.err --check-prefix=TORCH-ERR
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=array_api}' 2>%t.array-api.err | filecheck %s --check-prefix=ARRAY-API
// RUN: filecheck %s --input-file %t.array-api.err --check-prefix=ARRAY-API-ERR

// Binary arithmetic on two typed operands: the casts each policy inserts and the strict
// signature left behind. Inputs are loose and carry no module policy, so the declared
// result types are ignored and re-inferred.

// int32 + float16: the float wins everywhere but in NumPy, whose float16 cannot hold every
// int32 (float64); array_api has no float16.
// TRITON: builtin.module attributes {blk.policy = "triton"}
// COMPAT: builtin.module attributes {blk.policy = "triton-compat"}
// NUMPY: builtin.module attributes {blk.policy = "numpy"}
// JAX: builtin.module attributes {blk.policy = "jax"}
// TORCH: builtin.module attributes {blk.policy = "torch"}
// ARRAY-API: builtin.module attributes {blk.policy = "array_api"}
// TRITON-LABEL: func.func @int32_float16(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf16>
// TRITON-NEXT:    %[[R:.*]] = blk.add %[[A]], %b : tensor<4xf16>{{$}}
// COMPAT-LABEL: func.func @int32_float16(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf16>
// COMPAT-NEXT:    %[[R:.*]] = blk.add %[[A]], %b : tensor<4xf16>{{$}}
// NUMPY-LABEL: func.func @int32_float16(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf64>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xf16> -> tensor<4xf64>
// NUMPY-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xf64>{{$}}
// JAX-LABEL: func.func @int32_float16(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf16>
// JAX-NEXT:    %[[R:.*]] = blk.add %[[A]], %b : tensor<4xf16>{{$}}
// TORCH-LABEL: func.func @int32_float16(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf16>
// TORCH-NEXT:    %[[R:.*]] = blk.add %[[A]], %b : tensor<4xf16>{{$}}
func.func @int32_float16(%a: tensor<4xi32>, %b: tensor<4xf16>) {
  // ARRAY-API-ERR: binary.mlir:[[# @LINE + 1]]:3: error: float16 is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.add %a, %b : tensor<4xi32>, tensor<4xf16> -> tensor<4xf16>
  func.return
}

// -----

// int8 + uint8: Triton prefers the unsigned dtype; the others widen to int16.
// TRITON-LABEL: func.func @int8_uint8(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xui8>
// TRITON-NEXT:    %[[R:.*]] = blk.add %[[A]], %b : tensor<4xui8>{{$}}
// COMPAT-LABEL: func.func @int8_uint8(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xui8>
// COMPAT-NEXT:    %[[R:.*]] = blk.add %[[A]], %b : tensor<4xui8>{{$}}
// NUMPY-LABEL: func.func @int8_uint8(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// NUMPY-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xi16>{{$}}
// JAX-LABEL: func.func @int8_uint8(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// JAX-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xi16>{{$}}
// TORCH-LABEL: func.func @int8_uint8(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// TORCH-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// TORCH-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xi16>{{$}}
// ARRAY-API-LABEL: func.func @int8_uint8(
// ARRAY-API-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// ARRAY-API-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// ARRAY-API-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xi16>{{$}}
func.func @int8_uint8(%a: tensor<4xi8>, %b: tensor<4xui8>) {
  %r = blk.add %a, %b : tensor<4xi8>, tensor<4xui8> -> tensor<4xi8>
  func.return
}

// -----

// int32 - uint32: uint32 (Triton), int64 (NumPy, JAX, array_api); torch refuses uint32 with
// any integer.
// TRITON-LABEL: func.func @int32_uint32(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xui32>
// TRITON-NEXT:    %[[R:.*]] = blk.sub %[[A]], %b : tensor<4xui32>{{$}}
// COMPAT-LABEL: func.func @int32_uint32(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xui32>
// COMPAT-NEXT:    %[[R:.*]] = blk.sub %[[A]], %b : tensor<4xui32>{{$}}
// NUMPY-LABEL: func.func @int32_uint32(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xi64>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui32> -> tensor<4xi64>
// NUMPY-NEXT:    %[[R:.*]] = blk.sub %[[A]], %[[B]] : tensor<4xi64>{{$}}
// JAX-LABEL: func.func @int32_uint32(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xi64>
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui32> -> tensor<4xi64>
// JAX-NEXT:    %[[R:.*]] = blk.sub %[[A]], %[[B]] : tensor<4xi64>{{$}}
// ARRAY-API-LABEL: func.func @int32_uint32(
// ARRAY-API-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xi64>
// ARRAY-API-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui32> -> tensor<4xi64>
// ARRAY-API-NEXT:    %[[R:.*]] = blk.sub %[[A]], %[[B]] : tensor<4xi64>{{$}}
func.func @int32_uint32(%a: tensor<4xi32>, %b: tensor<4xui32>) {
  // TORCH-ERR: binary.mlir:[[# @LINE + 1]]:3: error: int32 and uint32: torch promotes uint16, uint32 and uint64 only with floats (int32 with uint32); cast one explicitly (policy 'torch', rule 'unsigned-promotion')
  %r = blk.sub %a, %b : tensor<4xi32>, tensor<4xui32> -> tensor<4xi32>
  func.return
}

// -----

// int64 + uint64: no integer holds both; uint64 (Triton), float64 (NumPy, JAX), refused
// (torch, array_api).
// TRITON-LABEL: func.func @int64_uint64(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi64> -> tensor<4xui64>
// TRITON-NEXT:    %[[R:.*]] = blk.add %[[A]], %b : tensor<4xui64>{{$}}
// COMPAT-LABEL: func.func @int64_uint64(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi64> -> tensor<4xui64>
// COMPAT-NEXT:    %[[R:.*]] = blk.add %[[A]], %b : tensor<4xui64>{{$}}
// NUMPY-LABEL: func.func @int64_uint64(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi64> -> tensor<4xf64>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui64> -> tensor<4xf64>
// NUMPY-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xf64>{{$}}
// JAX-LABEL: func.func @int64_uint64(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi64> -> tensor<4xf64>
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui64> -> tensor<4xf64>
// JAX-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xf64>{{$}}
func.func @int64_uint64(%a: tensor<4xi64>, %b: tensor<4xui64>) {
  // TORCH-ERR: binary.mlir:[[# @LINE + 2]]:3: error: int64 and uint64: torch promotes uint16, uint32 and uint64 only with floats (int64 with uint64); cast one explicitly (policy 'torch', rule 'unsigned-promotion')
  // ARRAY-API-ERR: binary.mlir:[[# @LINE + 1]]:3: error: int64 and uint64: the Array API standard defines no promotion of a signed integer with uint64 (no integer dtype holds both); cast one explicitly (policy 'array_api', rule 'signed-uint64')
  %r = blk.add %a, %b : tensor<4xi64>, tensor<4xui64> -> tensor<4xi64>
  func.return
}

// -----

// float16 * bfloat16: float32 (the Triton page's supremum rule, NumPy, JAX, torch);
// Triton 3.9's front end gives float16 (triton-compat).
// TRITON-LABEL: func.func @float16_bfloat16(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf16> -> tensor<4xf32>
// TRITON-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xbf16> -> tensor<4xf32>
// TRITON-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[B]] : tensor<4xf32>{{$}}
// COMPAT-LABEL: func.func @float16_bfloat16(
// COMPAT-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xbf16> -> tensor<4xf16>
// COMPAT-NEXT:    %[[R:.*]] = blk.mul %a, %[[B]] : tensor<4xf16>{{$}}
// NUMPY-LABEL: func.func @float16_bfloat16(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf16> -> tensor<4xf32>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xbf16> -> tensor<4xf32>
// NUMPY-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[B]] : tensor<4xf32>{{$}}
// JAX-LABEL: func.func @float16_bfloat16(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf16> -> tensor<4xf32>
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xbf16> -> tensor<4xf32>
// JAX-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[B]] : tensor<4xf32>{{$}}
// TORCH-LABEL: func.func @float16_bfloat16(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf16> -> tensor<4xf32>
// TORCH-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xbf16> -> tensor<4xf32>
// TORCH-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[B]] : tensor<4xf32>{{$}}
func.func @float16_bfloat16(%a: tensor<4xf16>, %b: tensor<4xbf16>) {
  // ARRAY-API-ERR: binary.mlir:[[# @LINE + 1]]:3: error: float16 is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.mul %a, %b : tensor<4xf16>, tensor<4xbf16> -> tensor<4xf16>
  func.return
}

// -----

// An int32 block + an int64 0-d value: a 0-d value promotes like a block, except in torch,
// where a 0-d value of the same category does not take part (it is cast to int32).
// TRITON-LABEL: func.func @block_int32_scalar_int64(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xi64>
// TRITON-NEXT:    %[[R:.*]] = blk.add %[[A]], %s : tensor<4xi64>, i64 -> tensor<4xi64>
// COMPAT-LABEL: func.func @block_int32_scalar_int64(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xi64>
// COMPAT-NEXT:    %[[R:.*]] = blk.add %[[A]], %s : tensor<4xi64>, i64 -> tensor<4xi64>
// NUMPY-LABEL: func.func @block_int32_scalar_int64(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xi64>
// NUMPY-NEXT:    %[[R:.*]] = blk.add %[[A]], %s : tensor<4xi64>, i64 -> tensor<4xi64>
// JAX-LABEL: func.func @block_int32_scalar_int64(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xi64>
// JAX-NEXT:    %[[R:.*]] = blk.add %[[A]], %s : tensor<4xi64>, i64 -> tensor<4xi64>
// TORCH-LABEL: func.func @block_int32_scalar_int64(
// TORCH-NEXT:    %[[S:.*]] = blk.cast %s implicit : i64 -> i32
// TORCH-NEXT:    %[[R:.*]] = blk.add %a, %[[S]] : tensor<4xi32>, i32 -> tensor<4xi32>
// ARRAY-API-LABEL: func.func @block_int32_scalar_int64(
// ARRAY-API-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xi64>
// ARRAY-API-NEXT:    %[[R:.*]] = blk.add %[[A]], %s : tensor<4xi64>, i64 -> tensor<4xi64>
func.func @block_int32_scalar_int64(%a: tensor<4xi32>, %s: i64) {
  %r = blk.add %a, %s : tensor<4xi32>, i64 -> tensor<4xi32>
  func.return
}

// -----

// A float16 block + a float64 0-d value: float64, except in torch (float16, same category).
// TRITON-LABEL: func.func @block_float16_scalar_float64(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf16> -> tensor<4xf64>
// TRITON-NEXT:    %[[R:.*]] = blk.add %[[A]], %s : tensor<4xf64>, f64 -> tensor<4xf64>
// COMPAT-LABEL: func.func @block_float16_scalar_float64(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf16> -> tensor<4xf64>
// COMPAT-NEXT:    %[[R:.*]] = blk.add %[[A]], %s : tensor<4xf64>, f64 -> tensor<4xf64>
// NUMPY-LABEL: func.func @block_float16_scalar_float64(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf16> -> tensor<4xf64>
// NUMPY-NEXT:    %[[R:.*]] = blk.add %[[A]], %s : tensor<4xf64>, f64 -> tensor<4xf64>
// JAX-LABEL: func.func @block_float16_scalar_float64(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xf16> -> tensor<4xf64>
// JAX-NEXT:    %[[R:.*]] = blk.add %[[A]], %s : tensor<4xf64>, f64 -> tensor<4xf64>
// TORCH-LABEL: func.func @block_float16_scalar_float64(
// TORCH-NEXT:    %[[S:.*]] = blk.cast %s implicit : f64 -> f16
// TORCH-NEXT:    %[[R:.*]] = blk.add %a, %[[S]] : tensor<4xf16>, f16 -> tensor<4xf16>
func.func @block_float16_scalar_float64(%a: tensor<4xf16>, %s: f64) {
  // ARRAY-API-ERR: binary.mlir:[[# @LINE + 1]]:3: error: float16 is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.add %a, %s : tensor<4xf16>, f64 -> tensor<4xf16>
  func.return
}

// -----

// int32 < float32 compares in the promoted dtype (float64 in NumPy) and gives bool.
// TRITON-LABEL: func.func @compare_int32_float32(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// TRITON-NEXT:    %[[R:.*]] = blk.cmp lt, %[[A]], %b : tensor<4xf32>{{$}}
// COMPAT-LABEL: func.func @compare_int32_float32(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// COMPAT-NEXT:    %[[R:.*]] = blk.cmp lt, %[[A]], %b : tensor<4xf32>{{$}}
// NUMPY-LABEL: func.func @compare_int32_float32(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf64>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xf32> -> tensor<4xf64>
// NUMPY-NEXT:    %[[R:.*]] = blk.cmp lt, %[[A]], %[[B]] : tensor<4xf64>{{$}}
// JAX-LABEL: func.func @compare_int32_float32(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// JAX-NEXT:    %[[R:.*]] = blk.cmp lt, %[[A]], %b : tensor<4xf32>{{$}}
// TORCH-LABEL: func.func @compare_int32_float32(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// TORCH-NEXT:    %[[R:.*]] = blk.cmp lt, %[[A]], %b : tensor<4xf32>{{$}}
func.func @compare_int32_float32(%a: tensor<4xi32>, %b: tensor<4xf32>) {
  // ARRAY-API-ERR: binary.mlir:[[# @LINE + 1]]:3: error: int32 and float32: the Array API standard does not promote between integer and floating-point dtypes; cast one explicitly (policy 'array_api', rule 'mixed-kinds')
  %r = blk.cmp lt, %a, %b : tensor<4xi32>, tensor<4xf32> -> tensor<4xi1>
  func.return
}
