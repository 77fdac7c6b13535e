// RUN: blk-opt --split-input-file --verify-diagnostics %s -p blk-verify-strict | filecheck %s

// CHECK-LABEL: func.func @strict_kernel
// CHECK:         blk.store
func.func @strict_kernel(%p: tensor<16x!blk.ptr<f32>>, %m: tensor<16xi1>) attributes {blk.kernel} {
  %x = blk.load %p mask %m : tensor<16x!blk.ptr<f32>>
  %two = blk.constant dense<2.000000e+00> : tensor<16xf32>
  %y = blk.mul %x, %two : tensor<16xf32>
  %q = blk.floordiv %y, %two rounding = floor : tensor<16xf32>
  %s = blk.reduce sum, %q acc_dtype = f32 : tensor<16xf32> -> f32
  blk.store %p, %y mask %m : tensor<16x!blk.ptr<f32>>
  func.return
}

// -----

func.func @weak_literal(%x: tensor<16xi32>) {
  // expected-error @+1 {{is not strict: result 'one' is a weak literal (run promote-types)}}
  %one = blk.literal 1 : !blk.weak<int>
  func.return
}

// -----

func.func @mixed_dtypes(%x: tensor<16xi32>, %y: tensor<16xf32>) {
  // expected-error @+1 {{is not strict: operands 'lhs' (tensor<16xi32>) and 'rhs' (tensor<16xf32>) differ in dtype (run promote-types)}}
  %z = blk.add %x, %y : tensor<16xi32>, tensor<16xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @mixed_shapes(%x: tensor<16xf32>, %s: f32) {
  // expected-error @+1 {{is not strict: operand 'rhs' (f32) does not have the shape 16 (run insert-broadcasts)}}
  %z = blk.add %x, %s : tensor<16xf32>, f32 -> tensor<16xf32>
  func.return
}

// -----

func.func @rounding_unset(%x: tensor<16xi32>) {
  // expected-error @+1 {{is not strict: its rounding is not set (run promote-types)}}
  %z = blk.mod %x, %x : tensor<16xi32>
  func.return
}

// -----

func.func @nan_unset(%x: tensor<16xf32>, %i: tensor<16xi32>) {
  // Integers have no NaN: their maximum needs no nan.
  %m = blk.maximum %i, %i : tensor<16xi32>
  // expected-error @+1 {{is not strict: its nan (what a NaN operand gives) is not set (run promote-types)}}
  %z = blk.minimum %x, %x : tensor<16xf32>
  func.return
}

// -----

func.func @reduction_nan_unset(%x: tensor<16xf32>) {
  // expected-error @+1 {{is not strict: its nan (what a NaN operand gives) is not set (run promote-types)}}
  %a = blk.reduce argmax, %x : tensor<16xf32> -> i32
  func.return
}

// -----

func.func @accumulator_unset(%x: tensor<16xf16>) {
  // expected-error @+1 {{is not strict: its acc_dtype is not set (run promote-types)}}
  %s = blk.reduce sum, %x : tensor<16xf16> -> f16
  func.return
}

// -----

func.func @dot_operands(%a: tensor<16x16xf16>, %b: tensor<16x16xf32>) {
  // expected-error @+1 {{is not strict: operands tensor<16x16xf16> and tensor<16x16xf32> differ in dtype (run promote-types)}}
  %c = blk.dot %a, %b acc_dtype = f32 : tensor<16x16xf16>, tensor<16x16xf32> -> tensor<16x16xf32>
  func.return
}

// -----

func.func @stored_value_dtype(%p: tensor<16x!blk.ptr<f32>>, %v: tensor<16xf16>) {
  // expected-error @+1 {{is not strict: operand 'value' (tensor<16xf16>) is not of the pointee type f32 (run promote-types)}}
  blk.store %p, %v : tensor<16x!blk.ptr<f32>>, tensor<16xf16>
  func.return
}

// -----

func.func @loaded_other_shape(%p: tensor<16x!blk.ptr<f32>>, %m: tensor<16xi1>, %o: f32) {
  // expected-error @+1 {{is not strict: operand 'other' (f32) does not have the shape 16 (run insert-broadcasts)}}
  %v = blk.load %p mask %m other %o : tensor<16x!blk.ptr<f32>>, tensor<16xi1>, f32 -> tensor<16xf32>
  func.return
}
