// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton}' | filecheck %s --check-prefix=TRITON
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton-compat}' | filecheck %s --check-prefix=COMPAT
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=numpy}' | filecheck %s --check-prefix=NUMPY
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=jax}' | filecheck %s --check-prefix=JAX
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=torch}' | filecheck %s --check-prefix=TORCH
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=array_api}' 2>%t.array-api.err | filecheck %s --check-prefix=ARRAY-API
// RUN: filecheck %s --input-file %t.array-api.err --check-prefix=ARRAY-API-ERR

// Sum reductions: promote-types writes the accumulator dtype (acc_dtype), which is also
// the result's: Triton widens integers to 32 bits, NumPy and JAX to 64 bits of the same
// signedness, torch to int64.

// sum over axis 1 of an int8 block: int32 (Triton), int64 (the others).
// TRITON-LABEL: func.func @sum_int8(
// TRITON-NEXT:    %[[S:.*]] = blk.reduce sum, %x axis = 1 acc_dtype = i32 : tensor<4x8xi8> -> tensor<4xi32>
// COMPAT-LABEL: func.func @sum_int8(
// COMPAT-NEXT:    %[[S:.*]] = blk.reduce sum, %x axis = 1 acc_dtype = i32 : tensor<4x8xi8> -> tensor<4xi32>
// NUMPY-LABEL: func.func @sum_int8(
// NUMPY-NEXT:    %[[S:.*]] = blk.reduce sum, %x axis = 1 acc_dtype = i64 : tensor<4x8xi8> -> tensor<4xi64>
// JAX-LABEL: func.func @sum_int8(
// JAX-NEXT:    %[[S:.*]] = blk.reduce sum, %x axis = 1 acc_dtype = i64 : tensor<4x8xi8> -> tensor<4xi64>
// TORCH-LABEL: func.func @sum_int8(
// TORCH-NEXT:    %[[S:.*]] = blk.reduce sum, %x axis = 1 acc_dtype = i64 : tensor<4x8xi8> -> tensor<4xi64>
// ARRAY-API-LABEL: func.func @sum_int8(
// ARRAY-API-NEXT:    %[[S:.*]] = blk.reduce sum, %x axis = 1 acc_dtype = i64 : tensor<4x8xi8> -> tensor<4xi64>
func.func @sum_int8(%x: tensor<4x8xi8>) {
  %s = blk.reduce sum, %x axis = 1 : tensor<4x8xi8> -> tensor<4xi8>
  func.return
}

// -----

// sum of uint8: uint32 (Triton), uint64 (NumPy, JAX, array_api), int64 (torch).
// TRITON-LABEL: func.func @sum_uint8(
// TRITON-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = ui32 : tensor<8xui8> -> ui32
// COMPAT-LABEL: func.func @sum_uint8(
// COMPAT-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = ui32 : tensor<8xui8> -> ui32
// NUMPY-LABEL: func.func @sum_uint8(
// NUMPY-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = ui64 : tensor<8xui8> -> ui64
// JAX-LABEL: func.func @sum_uint8(
// JAX-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = ui64 : tensor<8xui8> -> ui64
// TORCH-LABEL: func.func @sum_uint8(
// TORCH-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = i64 : tensor<8xui8> -> i64
// ARRAY-API-LABEL: func.func @sum_uint8(
// ARRAY-API-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = ui64 : tensor<8xui8> -> ui64
func.func @sum_uint8(%x: tensor<8xui8>) {
  %s = blk.reduce sum, %x : tensor<8xui8> -> ui8
  func.return
}

// -----

// sum of bool: uint32 (Triton), int64 (NumPy, JAX, torch); array_api sums numbers only.
// TRITON-LABEL: func.func @sum_bool(
// TRITON-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = ui32 : tensor<8xi1> -> ui32
// COMPAT-LABEL: func.func @sum_bool(
// COMPAT-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = ui32 : tensor<8xi1> -> ui32
// NUMPY-LABEL: func.func @sum_bool(
// NUMPY-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = i64 : tensor<8xi1> -> i64
// JAX-LABEL: func.func @sum_bool(
// JAX-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = i64 : tensor<8xi1> -> i64
// TORCH-LABEL: func.func @sum_bool(
// TORCH-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = i64 : tensor<8xi1> -> i64
func.func @sum_bool(%x: tensor<8xi1>) {
  // ARRAY-API-ERR: reductions.mlir:[[# @LINE + 1]]:3: error: sum of bool: the Array API standard sums numeric dtypes (policy 'array_api', rule 'numeric')
  %s = blk.reduce sum, %x : tensor<8xi1> -> i1
  func.return
}

// -----

// sum of float16 accumulates in float16 (no policy widens floats). array_api is not
// checked: it has no float16, and whether it should refuse is open.
// TRITON-LABEL: func.func @sum_float16(
// TRITON-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = f16 : tensor<8xf16> -> f16
// COMPAT-LABEL: func.func @sum_float16(
// COMPAT-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = f16 : tensor<8xf16> -> f16
// NUMPY-LABEL: func.func @sum_float16(
// NUMPY-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = f16 : tensor<8xf16> -> f16
// JAX-LABEL: func.func @sum_float16(
// JAX-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = f16 : tensor<8xf16> -> f16
// TORCH-LABEL: func.func @sum_float16(
// TORCH-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = f16 : tensor<8xf16> -> f16
func.func @sum_float16(%x: tensor<8xf16>) {
  %s = blk.reduce sum, %x : tensor<8xf16> -> f16
  func.return
}

// -----

// An acc_dtype given in the input is kept, under every policy.
// TRITON-LABEL: func.func @sum_explicit_acc_dtype(
// TRITON-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = i16 : tensor<8xi8> -> i16
// COMPAT-LABEL: func.func @sum_explicit_acc_dtype(
// COMPAT-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = i16 : tensor<8xi8> -> i16
// NUMPY-LABEL: func.func @sum_explicit_acc_dtype(
// NUMPY-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = i16 : tensor<8xi8> -> i16
// JAX-LABEL: func.func @sum_explicit_acc_dtype(
// JAX-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = i16 : tensor<8xi8> -> i16
// TORCH-LABEL: func.func @sum_explicit_acc_dtype(
// TORCH-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = i16 : tensor<8xi8> -> i16
// ARRAY-API-LABEL: func.func @sum_explicit_acc_dtype(
// ARRAY-API-NEXT:    %[[S:.*]] = blk.reduce sum, %x acc_dtype = i16 : tensor<8xi8> -> i16
func.func @sum_explicit_acc_dtype(%x: tensor<8xi8>) {
  %s = blk.reduce sum, %x acc_dtype = i16 : tensor<8xi8> -> i16
  func.return
}
