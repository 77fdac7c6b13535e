// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton}' | filecheck %s --check-prefix=TRITON
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton-compat}' | filecheck %s --check-prefix=TRITON
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=numpy}' | filecheck %s --check-prefix=NUMPY
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=jax}' | filecheck %s --check-prefix=NUMPY
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=torch}' | filecheck %s --check-prefix=NUMPY
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=array_api}' | filecheck %s --check-prefix=NUMPY

// What loose IR leaves to the policy beyond dtypes: what a float minimum or maximum (and a
// max/min/argmax/argmin reduction or scan of floats) makes of NaN, and whether >> shifts
// the sign bit in. Triton skips NaN (nan = num, LLVM's maxnum); NumPy, JAX, torch and the
// Array API propagate it.

// TRITON-LABEL: func.func @float_extrema(
// TRITON-NEXT:    %[[MAX:.*]] = blk.maximum %x, %y nan = num : tensor<16xf32>
// TRITON-NEXT:    %[[MIN:.*]] = blk.minimum %x, %y nan = num : tensor<16xf32>
// TRITON-NEXT:    %[[R:.*]] = blk.reduce max, %x nan = num : tensor<16xf32> -> f32
// TRITON-NEXT:    %[[A:.*]] = blk.reduce argmin, %x axis = 0 nan = num : tensor<16xf32> -> i32
// TRITON-NEXT:    %[[S:.*]] = blk.scan max, %x axis = 0 nan = num : tensor<16xf32>
// NUMPY-LABEL: func.func @float_extrema(
// NUMPY-NEXT:    %[[MAX:.*]] = blk.maximum %x, %y nan = propagate : tensor<16xf32>
// NUMPY-NEXT:    %[[MIN:.*]] = blk.minimum %x, %y nan = propagate : tensor<16xf32>
// NUMPY-NEXT:    %[[R:.*]] = blk.reduce max, %x nan = propagate : tensor<16xf32> -> f32
// NUMPY-NEXT:    %[[A:.*]] = blk.reduce argmin, %x axis = 0 nan = propagate : tensor<16xf32> -> i32
// NUMPY-NEXT:    %[[S:.*]] = blk.scan max, %x axis = 0 nan = propagate : tensor<16xf32>
func.func @float_extrema(%x: tensor<16xf32>, %y: tensor<16xf32>) {
  %max = blk.maximum %x, %y : tensor<16xf32>
  %min = blk.minimum %x, %y : tensor<16xf32>
  %r = blk.reduce max, %x : tensor<16xf32> -> f32
  %a = blk.reduce argmin, %x axis = 0 : tensor<16xf32> -> i32
  %s = blk.scan max, %x axis = 0 : tensor<16xf32>
  func.return
}

// -----

// A choice the frontend made (tl.maximum(..., propagate_nan=...)) stays, under every
// policy; integers have no NaN and get no nan.
// TRITON-LABEL: func.func @explicit_and_integer(
// TRITON-NEXT:    %[[NUM:.*]] = blk.maximum %x, %y nan = num : tensor<16xf32>
// TRITON-NEXT:    %[[ALL:.*]] = blk.maximum %x, %y nan = propagate : tensor<16xf32>
// TRITON-NEXT:    %[[I:.*]] = blk.maximum %i, %i : tensor<16xi32>
// TRITON-NEXT:    %[[R:.*]] = blk.reduce max, %i : tensor<16xi32> -> i32
// NUMPY-LABEL: func.func @explicit_and_integer(
// NUMPY-NEXT:    %[[NUM:.*]] = blk.maximum %x, %y nan = num : tensor<16xf32>
// NUMPY-NEXT:    %[[ALL:.*]] = blk.maximum %x, %y nan = propagate : tensor<16xf32>
// NUMPY-NEXT:    %[[I:.*]] = blk.maximum %i, %i : tensor<16xi32>
func.func @explicit_and_integer(%x: tensor<16xf32>, %y: tensor<16xf32>, %i: tensor<16xi32>) {
  %num = blk.maximum %x, %y nan = num : tensor<16xf32>
  %all = blk.maximum %x, %y nan = propagate : tensor<16xf32>
  %imax = blk.maximum %i, %i : tensor<16xi32>
  %r = blk.reduce max, %i : tensor<16xi32> -> i32
  func.return
}

// -----

// int8 >> uint8: Triton computes in uint8 but shifts by the int8's own sign (Python's
// `a >> b` dispatches on a); NumPy and the others compute in int16, arithmetic. uint8 >>
// int8 is logical under Triton.
// TRITON-LABEL: func.func @shift_signedness(
// TRITON-NEXT:    %[[A:.*]] = blk.cast %s implicit : tensor<16xi8> -> tensor<16xui8>
// TRITON-NEXT:    %[[R:.*]] = blk.shr %[[A]], %u fill = sign : tensor<16xui8>
// TRITON-NEXT:    %[[B:.*]] = blk.cast %s implicit : tensor<16xi8> -> tensor<16xui8>
// TRITON-NEXT:    %[[L:.*]] = blk.shr %u, %[[B]] fill = zero : tensor<16xui8>
// TRITON-NEXT:    %[[I:.*]] = blk.shr %s, %s fill = sign : tensor<16xi8>
// NUMPY-LABEL: func.func @shift_signedness(
// NUMPY:         blk.shr %{{.*}}, %{{.*}} fill = sign : tensor<16xi16>
// NUMPY:         blk.shr %{{.*}}, %{{.*}} fill = sign : tensor<16xi16>
// NUMPY:         blk.shr %s, %s fill = sign : tensor<16xi8>
func.func @shift_signedness(%s: tensor<16xi8>, %u: tensor<16xui8>) {
  %r = blk.shr %s, %u : tensor<16xi8>, tensor<16xui8> -> tensor<16xui8>
  %l = blk.shr %u, %s : tensor<16xui8>, tensor<16xi8> -> tensor<16xui8>
  %i = blk.shr %s, %s : tensor<16xi8>
  func.return
}
