// RUN: blk-opt --split-input-file --verify-diagnostics %s
// The verifier of blk.math and blk.math2.

func.func @unknown(%x: tensor<8xf32>) {
  // expected-error @+1 {{'cube_root' is not a function of blk.math; expected one of: tan, sinh}}
  %r = blk.math "cube_root" %x : tensor<8xf32>
  func.return
}

// -----

func.func @unary_name_in_math2(%x: tensor<8xf32>) {
  // expected-error @+1 {{'cbrt' is not a function of blk.math2; expected one of: atan2, pow}}
  %r = blk.math2 "cbrt" %x, %x : tensor<8xf32>
  func.return
}

// -----

func.func @integer_result(%x: tensor<8xf32>) {
  // expected-error @+1 {{result has type tensor<8xi32>; blk.math gives a float}}
  %r = blk.math "tan" %x : tensor<8xf32> -> tensor<8xi32>
  func.return
}
