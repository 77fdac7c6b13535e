// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton}' | filecheck %s --check-prefix=TRITON
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton-compat}' | filecheck %s --check-prefix=COMPAT
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=numpy}' | filecheck %s --check-prefix=NUMPY
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=jax}' | filecheck %s --check-prefix=JAX
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=torch}' | filecheck %s --check-prefix=TORCH
// RUN: not blk-opt --split-input-file %s -p 'promote-types{policy=array_api}' 2>%t.array-api.err | filecheck %s --check-prefix=ARRAY-API
// RUN: filecheck %s --input-file %t.array-api.err --check-prefix=ARRAY-API-ERR

// where, load and store: where's two values promote like a binary op (its condition stays
// bool); a load's `other` and a stored value are converted to the pointee type.

// where(c, int32, float16): float16, float64 in NumPy; array_api has no float16.
// TRITON-LABEL: func.func @where_int32_float16(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf16>
// TRITON-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %b : tensor<4xf16>{{$}}
// COMPAT-LABEL: func.func @where_int32_float16(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf16>
// COMPAT-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %b : tensor<4xf16>{{$}}
// NUMPY-LABEL: func.func @where_int32_float16(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf64>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xf16> -> tensor<4xf64>
// NUMPY-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %[[B]] : tensor<4xf64>{{$}}
// JAX-LABEL: func.func @where_int32_float16(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf16>
// JAX-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %b : tensor<4xf16>{{$}}
// TORCH-LABEL: func.func @where_int32_float16(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi32> -> tensor<4xf16>
// TORCH-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %b : tensor<4xf16>{{$}}
func.func @where_int32_float16(%c: tensor<4xi1>, %a: tensor<4xi32>, %b: tensor<4xf16>) {
  // ARRAY-API-ERR: memory.mlir:[[# @LINE + 1]]:3: error: float16 is not a dtype of this policy {{.*}} (policy 'array_api', rule 'unknown-dtype')
  %r = blk.where %c, %a, %b : tensor<4xi1>, tensor<4xi32>, tensor<4xf16> -> tensor<4xf16>
  func.return
}

// -----

// where(c, int8, uint8): uint8 in Triton, int16 elsewhere.
// TRITON-LABEL: func.func @where_int8_uint8(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xui8>
// TRITON-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %b : tensor<4xui8>{{$}}
// COMPAT-LABEL: func.func @where_int8_uint8(
// COMPAT-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xui8>
// COMPAT-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %b : tensor<4xui8>{{$}}
// NUMPY-LABEL: func.func @where_int8_uint8(
// NUMPY-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// NUMPY-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// NUMPY-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %[[B]] : tensor<4xi16>{{$}}
// JAX-LABEL: func.func @where_int8_uint8(
// JAX-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// JAX-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// JAX-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %[[B]] : tensor<4xi16>{{$}}
// TORCH-LABEL: func.func @where_int8_uint8(
// TORCH-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// TORCH-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// TORCH-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %[[B]] : tensor<4xi16>{{$}}
// ARRAY-API-LABEL: func.func @where_int8_uint8(
// ARRAY-API-NEXT:    %[[A:.*]] = blk.cast %a implicit : tensor<4xi8> -> tensor<4xi16>
// ARRAY-API-NEXT:    %[[B:.*]] = blk.cast %b implicit : tensor<4xui8> -> tensor<4xi16>
// ARRAY-API-NEXT:    %[[R:.*]] = blk.where %c, %[[A]], %[[B]] : tensor<4xi16>{{$}}
func.func @where_int8_uint8(%c: tensor<4xi1>, %a: tensor<4xi8>, %b: tensor<4xui8>) {
  %r = blk.where %c, %a, %b : tensor<4xi1>, tensor<4xi8>, tensor<4xui8> -> tensor<4xi8>
  func.return
}

// -----

// where(True, int32, 0): a weak bool condition becomes an i1 constant, the literal an int32
// one, under every policy.
// TRITON-LABEL: func.func @where_literals(
// TRITON-NEXT:    %[[Z:.*]] = blk.constant 0 : i32{{$}}
// TRITON-NEXT:    %[[T:.*]] = blk.constant true{{$}}
// TRITON-NEXT:    %[[R:.*]] = blk.where %[[T]], %a, %[[Z]] : i1, tensor<4xi32>, i32 -> tensor<4xi32>
// COMPAT-LABEL: func.func @where_literals(
// COMPAT-NEXT:    %[[Z:.*]] = blk.constant 0 : i32{{$}}
// COMPAT-NEXT:    %[[T:.*]] = blk.constant true{{$}}
// COMPAT-NEXT:    %[[R:.*]] = blk.where %[[T]], %a, %[[Z]] : i1, tensor<4xi32>, i32 -> tensor<4xi32>
// NUMPY-LABEL: func.func @where_literals(
// NUMPY-NEXT:    %[[Z:.*]] = blk.constant 0 : i32{{$}}
// NUMPY-NEXT:    %[[T:.*]] = blk.constant true{{$}}
// NUMPY-NEXT:    %[[R:.*]] = blk.where %[[T]], %a, %[[Z]] : i1, tensor<4xi32>, i32 -> tensor<4xi32>
// JAX-LABEL: func.func @where_literals(
// JAX-NEXT:    %[[Z:.*]] = blk.constant 0 : i32{{$}}
// JAX-NEXT:    %[[T:.*]] = blk.constant true{{$}}
// JAX-NEXT:    %[[R:.*]] = blk.where %[[T]], %a, %[[Z]] : i1, tensor<4xi32>, i32 -> tensor<4xi32>
// TORCH-LABEL: func.func @where_literals(
// TORCH-NEXT:    %[[Z:.*]] = blk.constant 0 : i32{{$}}
// TORCH-NEXT:    %[[T:.*]] = blk.constant true{{$}}
// TORCH-NEXT:    %[[R:.*]] = blk.where %[[T]], %a, %[[Z]] : i1, tensor<4xi32>, i32 -> tensor<4xi32>
// ARRAY-API-LABEL: func.func @where_literals(
// ARRAY-API-NEXT:    %[[Z:.*]] = blk.constant 0 : i32{{$}}
// ARRAY-API-NEXT:    %[[T:.*]] = blk.constant true{{$}}
// ARRAY-API-NEXT:    %[[R:.*]] = blk.where %[[T]], %a, %[[Z]] : i1, tensor<4xi32>, i32 -> tensor<4xi32>
func.func @where_literals(%a: tensor<4xi32>) {
  %t = blk.literal true : !blk.weak<bool>
  %z = blk.literal 0 : !blk.weak<int>
  %r = blk.where %t, %a, %z : !blk.weak<bool>, tensor<4xi32>, !blk.weak<int> -> tensor<4xi32>
  func.return
}

// -----

// load other=0 from float32 pointers: the int literal becomes a float32 constant.
// TRITON-LABEL: func.func @load_other_literal(
// TRITON-NEXT:    %[[C:.*]] = blk.constant 0.000000e+00 : f32{{$}}
// TRITON-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[C]] : tensor<4x!blk.ptr<f32>>, tensor<4xi1>, f32 -> tensor<4xf32>
// COMPAT-LABEL: func.func @load_other_literal(
// COMPAT-NEXT:    %[[C:.*]] = blk.constant 0.000000e+00 : f32{{$}}
// COMPAT-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[C]] : tensor<4x!blk.ptr<f32>>, tensor<4xi1>, f32 -> tensor<4xf32>
// NUMPY-LABEL: func.func @load_other_literal(
// NUMPY-NEXT:    %[[C:.*]] = blk.constant 0.000000e+00 : f32{{$}}
// NUMPY-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[C]] : tensor<4x!blk.ptr<f32>>, tensor<4xi1>, f32 -> tensor<4xf32>
// JAX-LABEL: func.func @load_other_literal(
// JAX-NEXT:    %[[C:.*]] = blk.constant 0.000000e+00 : f32{{$}}
// JAX-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[C]] : tensor<4x!blk.ptr<f32>>, tensor<4xi1>, f32 -> tensor<4xf32>
// TORCH-LABEL: func.func @load_other_literal(
// TORCH-NEXT:    %[[C:.*]] = blk.constant 0.000000e+00 : f32{{$}}
// TORCH-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[C]] : tensor<4x!blk.ptr<f32>>, tensor<4xi1>, f32 -> tensor<4xf32>
// ARRAY-API-LABEL: func.func @load_other_literal(
// ARRAY-API-NEXT:    %[[C:.*]] = blk.constant 0.000000e+00 : f32{{$}}
// ARRAY-API-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[C]] : tensor<4x!blk.ptr<f32>>, tensor<4xi1>, f32 -> tensor<4xf32>
func.func @load_other_literal(%p: tensor<4x!blk.ptr<f32>>, %m: tensor<4xi1>) {
  %zero = blk.literal 0 : !blk.weak<int>
  %v = blk.load %p mask %m other %zero : tensor<4x!blk.ptr<f32>>, tensor<4xi1>, !blk.weak<int> -> tensor<4xf32>
  func.return
}

// -----

// load other=int8 block from int32 pointers: `other` is cast to int32.
// TRITON-LABEL: func.func @load_other_int8(
// TRITON-NEXT:    %[[O:.*]] = blk.cast %o implicit : tensor<4xi8> -> tensor<4xi32>
// TRITON-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[O]] : tensor<4x!blk.ptr<i32>>{{$}}
// COMPAT-LABEL: func.func @load_other_int8(
// COMPAT-NEXT:    %[[O:.*]] = blk.cast %o implicit : tensor<4xi8> -> tensor<4xi32>
// COMPAT-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[O]] : tensor<4x!blk.ptr<i32>>{{$}}
// NUMPY-LABEL: func.func @load_other_int8(
// NUMPY-NEXT:    %[[O:.*]] = blk.cast %o implicit : tensor<4xi8> -> tensor<4xi32>
// NUMPY-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[O]] : tensor<4x!blk.ptr<i32>>{{$}}
// JAX-LABEL: func.func @load_other_int8(
// JAX-NEXT:    %[[O:.*]] = blk.cast %o implicit : tensor<4xi8> -> tensor<4xi32>
// JAX-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[O]] : tensor<4x!blk.ptr<i32>>{{$}}
// TORCH-LABEL: func.func @load_other_int8(
// TORCH-NEXT:    %[[O:.*]] = blk.cast %o implicit : tensor<4xi8> -> tensor<4xi32>
// TORCH-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[O]] : tensor<4x!blk.ptr<i32>>{{$}}
// ARRAY-API-LABEL: func.func @load_other_int8(
// ARRAY-API-NEXT:    %[[O:.*]] = blk.cast %o implicit : tensor<4xi8> -> tensor<4xi32>
// ARRAY-API-NEXT:    %[[V:.*]] = blk.load %p mask %m other %[[O]] : tensor<4x!blk.ptr<i32>>{{$}}
func.func @load_other_int8(%p: tensor<4x!blk.ptr<i32>>, %m: tensor<4xi1>, %o: tensor<4xi8>) {
  %v = blk.load %p mask %m other %o : tensor<4x!blk.ptr<i32>>, tensor<4xi1>, tensor<4xi8> -> tensor<4xi32>
  func.return
}

// -----

// store of an int8 block through int32 pointers: the value is cast to int32.
// TRITON-LABEL: func.func @store_int8_through_int32(
// TRITON-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xi8> -> tensor<4xi32>
// TRITON-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<i32>>{{$}}
// COMPAT-LABEL: func.func @store_int8_through_int32(
// COMPAT-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xi8> -> tensor<4xi32>
// COMPAT-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<i32>>{{$}}
// NUMPY-LABEL: func.func @store_int8_through_int32(
// NUMPY-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xi8> -> tensor<4xi32>
// NUMPY-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<i32>>{{$}}
// JAX-LABEL: func.func @store_int8_through_int32(
// JAX-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xi8> -> tensor<4xi32>
// JAX-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<i32>>{{$}}
// TORCH-LABEL: func.func @store_int8_through_int32(
// TORCH-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xi8> -> tensor<4xi32>
// TORCH-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<i32>>{{$}}
// ARRAY-API-LABEL: func.func @store_int8_through_int32(
// ARRAY-API-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xi8> -> tensor<4xi32>
// ARRAY-API-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<i32>>{{$}}
func.func @store_int8_through_int32(%p: tensor<4x!blk.ptr<i32>>, %v: tensor<4xi8>) {
  blk.store %p, %v : tensor<4x!blk.ptr<i32>>, tensor<4xi8>
  func.return
}

// -----

// store of a float16 block through float32 pointers: the value is cast to float32.
// array_api is not checked: it has no float16, and whether it should refuse a float16
// value it does not promote is open.
// TRITON-LABEL: func.func @store_float16_through_float32(
// TRITON-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xf16> -> tensor<4xf32>
// TRITON-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<f32>>{{$}}
// COMPAT-LABEL: func.func @store_float16_through_float32(
// COMPAT-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xf16> -> tensor<4xf32>
// COMPAT-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<f32>>{{$}}
// NUMPY-LABEL: func.func @store_float16_through_float32(
// NUMPY-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xf16> -> tensor<4xf32>
// NUMPY-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<f32>>{{$}}
// JAX-LABEL: func.func @store_float16_through_float32(
// JAX-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xf16> -> tensor<4xf32>
// JAX-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<f32>>{{$}}
// TORCH-LABEL: func.func @store_float16_through_float32(
// TORCH-NEXT:    %[[V:.*]] = blk.cast %v implicit : tensor<4xf16> -> tensor<4xf32>
// TORCH-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<f32>>{{$}}
func.func @store_float16_through_float32(%p: tensor<4x!blk.ptr<f32>>, %v: tensor<4xf16>) {
  blk.store %p, %v : tensor<4x!blk.ptr<f32>>, tensor<4xf16>
  func.return
}
