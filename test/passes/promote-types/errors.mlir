// RUN: blk-opt --split-input-file --verify-diagnostics %s -p promote-types
// RUN: not blk-opt %s -p 'promote-types{policy=nope}' 2>&1 | filecheck %s --check-prefix=UNKNOWN

// What the default policy (triton) refuses, located at the op, with the policy and the
// rule. Complex literals are not expressible in blk IR, so they are not tested here; mixed
// kinds of bitwise and shift operands are refused by the op verifiers, before any pass.

// An unknown policy name is an error, not a traceback.
// UNKNOWN: error: unknown promotion policy 'nope'; known policies: triton, triton-compat, numpy, jax, torch, array_api
// UNKNOWN-NOT: Traceback

// A negative literal with an unsigned block.
func.func @negative_literal_unsigned(%a: tensor<4xui8>) {
  %c = blk.literal -1 : !blk.weak<int>
  // expected-error @+1 {{negative literal -1 with unsigned uint8: cast one of them explicitly (policy 'triton', rule 'literal-range')}}
  %r = blk.add %a, %c : tensor<4xui8>, !blk.weak<int> -> tensor<4xui8>
  func.return
}

// -----

// The same, the literal on the left.
func.func @negative_literal_unsigned_left(%a: tensor<4xui32>) {
  %c = blk.literal -1 : !blk.weak<int>
  // expected-error @+1 {{negative literal -1 with unsigned uint32: cast one of them explicitly (policy 'triton', rule 'literal-range')}}
  %r = blk.sub %c, %a : !blk.weak<int>, tensor<4xui32> -> tensor<4xui32>
  func.return
}

// -----

// A literal outside the block's dtype.
func.func @literal_out_of_range(%a: tensor<4xi8>) {
  %c = blk.literal 128 : !blk.weak<int>
  // expected-error @+1 {{literal 128 is out of range for int8 [-128, 127] (policy 'triton', rule 'literal-range')}}
  %r = blk.add %a, %c : tensor<4xi8>, !blk.weak<int> -> tensor<4xi8>
  func.return
}

// -----

// A literal no integer dtype holds.
func.func @literal_beyond_uint64(%a: tensor<4xi1>) {
  %c = blk.literal 18446744073709551616 : !blk.weak<int>
  // expected-error @+1 {{literal 18446744073709551616 fits no integer dtype (at most uint64) (policy 'triton', rule 'literal-range')}}
  %r = blk.add %a, %c : tensor<4xi1>, !blk.weak<int> -> tensor<4xi64>
  func.return
}
