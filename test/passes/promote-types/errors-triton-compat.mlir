// RUN: blk-opt --split-input-file --verify-diagnostics %s -p 'promote-types{policy=triton-compat}'

// What Triton 3.9's front end refuses and its semantics page allows (the triton policy
// accepts all of these).

// fp8 with an integer.
func.func @fp8_with_int(%a: tensor<4xf8E4M3FN>, %b: tensor<4xi16>) {
  // expected-error @+1 {{float8_e4m3fn and int16: Triton's front end does not mix fp8 with integers (policy 'triton-compat', rule 'fp8-integer')}}
  %r = blk.add %a, %b : tensor<4xf8E4M3FN>, tensor<4xi16> -> tensor<4xf8E4M3FN>
  func.return
}

// -----

// fp8 with bool.
func.func @fp8_with_bool(%a: tensor<4xi1>, %b: tensor<4xf8E5M2>) {
  // expected-error @+1 {{bool and float8_e5m2: Triton's front end does not mix fp8 with integers (policy 'triton-compat', rule 'fp8-integer')}}
  %r = blk.mul %a, %b : tensor<4xi1>, tensor<4xf8E5M2> -> tensor<4xf8E5M2>
  func.return
}

// -----

// // on floats.
func.func @floordiv_float(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{float32 // float32 computes in float32: Triton's front end refuses // on floats (policy 'triton-compat', rule 'float-floordiv')}}
  %r = blk.floordiv %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return
}

// -----

// % on integers of different signedness (bool counts as unsigned).
func.func @mod_mixed_signedness(%a: tensor<4xi32>, %b: tensor<4xi1>) {
  // expected-error @+1 {{Cannot use /, #, or % with int32 and bool because they have different signedness: Triton refuses /, // and % on them; cast them to the same signedness (policy 'triton-compat', rule 'division-signedness')}}
  %r = blk.mod %a, %b : tensor<4xi32>, tensor<4xi1> -> tensor<4xi32>
  func.return
}
