// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=triton}' 2>%t.triton.err | filecheck %s --check-prefix=TRITON
// RUN: filecheck %s --input-file %t.triton.err --check-prefix=TRITON-ERR
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=triton-compat}' 2>%t.triton-compat.err | filecheck %s --check-prefix=COMPAT
// RUN: filecheck %s --input-file %t.triton-compat.err --check-prefix=COMPAT-ERR
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=numpy}' 2>%t.numpy.err | filecheck %s --check-prefix=NUMPY
// RUN: filecheck %s --input-file %t.numpy.err --check-prefix=NUMPY-ERR
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=jax}' | filecheck %s --check-prefix=JAX
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=torch}' | filecheck %s --check-prefix=TORCH
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=array_api}' 2>%t.array-api.err | filecheck %s --check-prefix=ARRAY-API
// RUN: filecheck %s --input-file %t.array-api.err --check-prefix=ARRAY-API-ERR

// Weak literals (Python numbers): each becomes a typed blk.constant of the dtype the
// policy gives it. Out-of-range integers are refused or wrap, depending on the policy.

// int8 + 128: refused where a literal must fit the block's dtype; JAX and torch wrap it
// to -128.
// JAX-LABEL: func.func @int8_plus_128(
// JAX-NEXT:    %[[C:.*]] = blk.constant -128 : i8{{$}}
// JAX-NEXT:    %[[R:.*]] = blk.add %a, %[[C]] : tensor<4xi8>, i8 -> tensor<4xi8>
// TORCH-LABEL: func.func @int8_plus_128(
// TORCH-NEXT:    %[[C:.*]] = blk.constant -128 : i8{{$}}
// TORCH-NEXT:    %[[R:.*]] = blk.add %a, %[[C]] : tensor<4xi8>, i8 -> tensor<4xi8>
func.func @int8_plus_128(%a: tensor<4xi8>) {
  %c = blk.literal 128 : !blk.weak<int>
  // TRITON-ERR: literals.mlir:[[# @LINE + 4]]:3: error: literal 128 is out of range for int8 [-128, 127] (policy 'triton', rule 'literal-range')
  // COMPAT-ERR: literals.mlir:[[# @LINE + 3]]:3: error: literal 128 is out of range for int8 [-128, 127] (policy 'triton-compat', rule 'literal-range')
  // NUMPY-ERR: literals.mlir:[[# @LINE + 2]]:3: error: literal 128 is out of range for int8 [-128, 127] (policy 'numpy', rule 'literal-range')
  // ARRAY-API-ERR: literals.mlir:[[# @LINE + 1]]:3: error: literal 128 is out of range for int8 [-128, 127] (policy 'array_api', rule 'literal-range')
  %r = blk.add %a, %c : tensor<4xi8>, !blk.weak<int> -> tensor<4xi8>
  func.return
}

// -----

// uint8 - 1: an int literal does not widen an integer block, under every policy.
// TRITON-LABEL: func.func @uint8_minus_1(
// TRITON-NEXT:    %[[C:.*]] = blk.constant 1 : ui8{{$}}
// TRITON-NEXT:    %[[R:.*]] = blk.sub %a, %[[C]] : tensor<4xui8>, ui8 -> tensor<4xui8>
// COMPAT-LABEL: func.func @uint8_minus_1(
// COMPAT-NEXT:    %[[C:.*]] = blk.constant 1 : ui8{{$}}
// COMPAT-NEXT:    %[[R:.*]] = blk.sub %a, %[[C]] : tensor<4xui8>, ui8 -> tensor<4xui8>
// NUMPY-LABEL: func.func @uint8_minus_1(
// NUMPY-NEXT:    %[[C:.*]] = blk.constant 1 : ui8{{$}}
// NUMPY-NEXT:    %[[R:.*]] = blk.sub %a, %[[C]] : tensor<4xui8>, ui8 -> tensor<4xui8>
// JAX-LABEL: func.func @uint8_minus_1(
// JAX-NEXT:    %[[C:.*]] = blk.constant 1 : ui8{{$}}
// JAX-NEXT:    %[[R:.*]] = blk.sub %a, %[[C]] : tensor<4xui8>, ui8 -> tensor<4xui8>
// TORCH-LABEL: func.func @uint8_minus_1(
// TORCH-NEXT:    %[[C:.*]] = blk.constant 1 : ui8{{$}}
// TORCH-NEXT:    %[[R:.*]] = blk.sub %a, %[[C]] : tensor<4xui8>, ui8 -> tensor<4xui8>
// ARRAY-API-LABEL: func.func @uint8_minus_1(
// ARRAY-API-NEXT:    %[[C:.*]] = blk.constant 1 : ui8{{$}}
// ARRAY-API-NEXT:    %[[R:.*]] = blk.sub %a, %[[C]] : tensor<4xui8>, ui8 -> tensor<4xui8>
func.func @uint8_minus_1(%a: tensor<4xui8>) {
  %c = blk.literal 1 : !blk.weak<int>
  %r = blk.sub %a, %c : tensor<4xui8>, !blk.weak<int> -> tensor<4xui8>
  func.return
}

// -----

// uint8 + -1: a negative literal with an unsigned block is refused, or wraps to 255.
// JAX-LABEL: func.func @uint8_plus_minus_1(
// JAX-NEXT:    %[[C:.*]] = blk.constant 255 : ui8{{$}}
// JAX-NEXT:    %[[R:.*]] = blk.add %a, %[[C]] : tensor<4xui8>, ui8 -> tensor<4xui8>
// TORCH-LABEL: func.func @uint8_plus_minus_1(
// TORCH-NEXT:    %[[C:.*]] = blk.constant 255 : ui8{{$}}
// TORCH-NEXT:    %[[R:.*]] = blk.add %a, %[[C]] : tensor<4xui8>, ui8 -> tensor<4xui8>
func.func @uint8_plus_minus_1(%a: tensor<4xui8>) {
  %c = blk.literal -1 : !blk.weak<int>
  // TRITON-ERR: literals.mlir:[[# @LINE + 4]]:3: error: negative literal -1 with unsigned uint8: cast one of them explicitly (policy 'triton', rule 'literal-range')
  // COMPAT-ERR: literals.mlir:[[# @LINE + 3]]:3: error: negative literal -1 with unsigned uint8: cast one of them explicitly (policy 'triton-compat', rule 'literal-range')
  // NUMPY-ERR: literals.mlir:[[# @LINE + 2]]:3: error: negative literal -1 with unsigned uint8: cast one of them explicitly (policy 'numpy', rule 'literal-range')
  // ARRAY-API-ERR: literals.mlir:[[# @LINE + 1]]:3: error: negative literal -1 with unsigned uint8: cast one of them explicitly (policy 'array_api', rule 'literal-range')
  %r = blk.add %a, %c : tensor<4xui8>, !blk.weak<int> -> tensor<4xui8>
  func.return
}

// -----

// bool + 255: an int literal beside bool takes Triton's lowest fitting dtype (int32), the
// default int elsewhere (int64); array_api mixes no bool with an int.
// TRITON-LABEL: func.func @bool_plus_255(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xi32>
// TRITON-NEXT:    %[[C:.*]] = blk.constant 255 : i32{{$}}
// TRITON-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[C]] : tensor<4xi32>, i32 -> tensor<4xi32>
// COMPAT-LABEL: func.func @bool_plus_255(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xi32>
// COMPAT-NEXT:    %[[C:.*]] = blk.constant 255 : i32{{$}}
// COMPAT-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[C]] : tensor<4xi32>, i32 -> tensor<4xi32>
// NUMPY-LABEL: func.func @bool_plus_255(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xi64>
// NUMPY-NEXT:    %[[C:.*]] = blk.constant 255 : i64{{$}}
// NUMPY-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[C]] : tensor<4xi64>, i64 -> tensor<4xi64>
// JAX-LABEL: func.func @bool_plus_255(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xi64>
// JAX-NEXT:    %[[C:.*]] = blk.constant 255 : i64{{$}}
// JAX-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[C]] : tensor<4xi64>, i64 -> tensor<4xi64>
// TORCH-LABEL: func.func @bool_plus_255(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xi64>
// TORCH-NEXT:    %[[C:.*]] = blk.constant 255 : i64{{$}}
// TORCH-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[C]] : tensor<4xi64>, i64 -> tensor<4xi64>
func.func @bool_plus_255(%a: tensor<4xi1>) {
  %c = blk.literal 255 : !blk.weak<int>
  // ARRAY-API-ERR: literals.mlir:[[# @LINE + 1]]:3: error: literal 255 with bool: Python int scalars promote only with integer and floating-point arrays (policy 'array_api', rule 'literal-kind')
  %r = blk.add %a, %c : tensor<4xi1>, !blk.weak<int> -> tensor<4xi32>
  func.return
}

// -----

// bool + 4294967295: too large for int32, so Triton types the literal uint32.
// TRITON-LABEL: func.func @bool_plus_4294967295(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xui32>
// TRITON-NEXT:    %[[C:.*]] = blk.constant 4294967295 : ui32{{$}}
// TRITON-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[C]] : tensor<4xui32>, ui32 -> tensor<4xui32>
// COMPAT-LABEL: func.func @bool_plus_4294967295(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xui32>
// COMPAT-NEXT:    %[[C:.*]] = blk.constant 4294967295 : ui32{{$}}
// COMPAT-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[C]] : tensor<4xui32>, ui32 -> tensor<4xui32>
// NUMPY-LABEL: func.func @bool_plus_4294967295(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xi64>
// NUMPY-NEXT:    %[[C:.*]] = blk.constant 4294967295 : i64{{$}}
// NUMPY-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[C]] : tensor<4xi64>, i64 -> tensor<4xi64>
// JAX-LABEL: func.func @bool_plus_4294967295(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xi64>
// JAX-NEXT:    %[[C:.*]] = blk.constant 4294967295 : i64{{$}}
// JAX-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[C]] : tensor<4xi64>, i64 -> tensor<4xi64>
// TORCH-LABEL: func.func @bool_plus_4294967295(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi1> -> tensor<4xi64>
// TORCH-NEXT:    %[[C:.*]] = blk.constant 4294967295 : i64{{$}}
// TORCH-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[C]] : tensor<4xi64>, i64 -> tensor<4xi64>
func.func @bool_plus_4294967295(%a: tensor<4xi1>) {
  %c = blk.literal 4294967295 : !blk.weak<int>
  // ARRAY-API-ERR: literals.mlir:[[# @LINE + 1]]:3: error: literal 4294967295 with bool: Python int scalars promote only with integer and floating-point arrays (policy 'array_api', rule 'literal-kind')
  %r = blk.add %a, %c : tensor<4xi1>, !blk.weak<int> -> tensor<4xui32>
  func.return
}

// -----

// int16 * 2.5: a float literal beside integers is float32 (Triton, torch) or float64
// (NumPy, JAX); array_api refuses it.
// TRITON-LABEL: func.func @int16_times_2_5(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi16> -> tensor<4xf32>
// TRITON-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f32{{$}}
// TRITON-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[C]] : tensor<4xf32>, f32 -> tensor<4xf32>
// COMPAT-LABEL: func.func @int16_times_2_5(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi16> -> tensor<4xf32>
// COMPAT-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f32{{$}}
// COMPAT-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[C]] : tensor<4xf32>, f32 -> tensor<4xf32>
// NUMPY-LABEL: func.func @int16_times_2_5(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi16> -> tensor<4xf64>
// NUMPY-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f64{{$}}
// NUMPY-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[C]] : tensor<4xf64>, f64 -> tensor<4xf64>
// JAX-LABEL: func.func @int16_times_2_5(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi16> -> tensor<4xf64>
// JAX-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f64{{$}}
// JAX-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[C]] : tensor<4xf64>, f64 -> tensor<4xf64>
// TORCH-LABEL: func.func @int16_times_2_5(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi16> -> tensor<4xf32>
// TORCH-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f32{{$}}
// TORCH-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[C]] : tensor<4xf32>, f32 -> tensor<4xf32>
func.func @int16_times_2_5(%a: tensor<4xi16>) {
  %c = blk.literal 2.5 : !blk.weak<float>
  // ARRAY-API-ERR: literals.mlir:[[# @LINE + 1]]:3: error: literal 2.5 with int16: Python float scalars promote only with floating-point arrays (policy 'array_api', rule 'literal-kind')
  %r = blk.mul %a, %c : tensor<4xi16>, !blk.weak<float> -> tensor<4xf32>
  func.return
}

// -----

// -2.5 - int32, the literal on the left: operand order is kept.
// TRITON-LABEL: func.func @minus_2_5_minus_int32(
// TRITON-NEXT:    %[[C:.*]] = blk.constant -2.500000e+00 : f32{{$}}
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// TRITON-NEXT:    %[[R:.*]] = blk.sub %[[C]], %[[A]] : f32, tensor<4xf32> -> tensor<4xf32>
// COMPAT-LABEL: func.func @minus_2_5_minus_int32(
// COMPAT-NEXT:    %[[C:.*]] = blk.constant -2.500000e+00 : f32{{$}}
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// COMPAT-NEXT:    %[[R:.*]] = blk.sub %[[C]], %[[A]] : f32, tensor<4xf32> -> tensor<4xf32>
// NUMPY-LABEL: func.func @minus_2_5_minus_int32(
// NUMPY-NEXT:    %[[C:.*]] = blk.constant -2.500000e+00 : f64{{$}}
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf64>
// NUMPY-NEXT:    %[[R:.*]] = blk.sub %[[C]], %[[A]] : f64, tensor<4xf64> -> tensor<4xf64>
// JAX-LABEL: func.func @minus_2_5_minus_int32(
// JAX-NEXT:    %[[C:.*]] = blk.constant -2.500000e+00 : f64{{$}}
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf64>
// JAX-NEXT:    %[[R:.*]] = blk.sub %[[C]], %[[A]] : f64, tensor<4xf64> -> tensor<4xf64>
// TORCH-LABEL: func.func @minus_2_5_minus_int32(
// TORCH-NEXT:    %[[C:.*]] = blk.constant -2.500000e+00 : f32{{$}}
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf32>
// TORCH-NEXT:    %[[R:.*]] = blk.sub %[[C]], %[[A]] : f32, tensor<4xf32> -> tensor<4xf32>
func.func @minus_2_5_minus_int32(%a: tensor<4xi32>) {
  %c = blk.literal -2.5 : !blk.weak<float>
  // ARRAY-API-ERR: literals.mlir:[[# @LINE + 1]]:3: error: literal -2.5 with int32: Python float scalars promote only with floating-point arrays (policy 'array_api', rule 'literal-kind')
  %r = blk.sub %c, %a : !blk.weak<float>, tensor<4xi32> -> tensor<4xf32>
  func.return
}

// -----

// int8 + True: a bool literal never widens an int8 block; array_api refuses it.
// TRITON-LABEL: func.func @int8_plus_true(
// TRITON-NEXT:    %[[C:.*]] = blk.constant 1 : i8{{$}}
// TRITON-NEXT:    %[[R:.*]] = blk.add %a, %[[C]] : tensor<4xi8>, i8 -> tensor<4xi8>
// COMPAT-LABEL: func.func @int8_plus_true(
// COMPAT-NEXT:    %[[C:.*]] = blk.constant 1 : i8{{$}}
// COMPAT-NEXT:    %[[R:.*]] = blk.add %a, %[[C]] : tensor<4xi8>, i8 -> tensor<4xi8>
// NUMPY-LABEL: func.func @int8_plus_true(
// NUMPY-NEXT:    %[[C:.*]] = blk.constant 1 : i8{{$}}
// NUMPY-NEXT:    %[[R:.*]] = blk.add %a, %[[C]] : tensor<4xi8>, i8 -> tensor<4xi8>
// JAX-LABEL: func.func @int8_plus_true(
// JAX-NEXT:    %[[C:.*]] = blk.constant 1 : i8{{$}}
// JAX-NEXT:    %[[R:.*]] = blk.add %a, %[[C]] : tensor<4xi8>, i8 -> tensor<4xi8>
// TORCH-LABEL: func.func @int8_plus_true(
// TORCH-NEXT:    %[[C:.*]] = blk.constant 1 : i8{{$}}
// TORCH-NEXT:    %[[R:.*]] = blk.add %a, %[[C]] : tensor<4xi8>, i8 -> tensor<4xi8>
func.func @int8_plus_true(%a: tensor<4xi8>) {
  %c = blk.literal true : !blk.weak<bool>
  // ARRAY-API-ERR: literals.mlir:[[# @LINE + 1]]:3: error: literal True with int8: Python bool scalars promote only with bool arrays (policy 'array_api', rule 'literal-kind')
  %r = blk.add %a, %c : tensor<4xi8>, !blk.weak<bool> -> tensor<4xi8>
  func.return
}
