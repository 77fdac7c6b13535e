// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton explain=true}' | filecheck %s
// RUN: blk-opt --split-input-file %s -p 'promote-types{policy=triton}' | filecheck %s --check-prefix=QUIET

// explain=true names, on each inserted cast and constant, the rule of Triton's semantics
// page that caused it; without it, no rule attribute is printed.
// QUIET-NOT: rule =

// Kind: a float beats an integer.
// CHECK-LABEL: func.func @kind(
// CHECK-NEXT:    %[[A:.*]] = blk.cast %a implicit {rule = "kind"} : tensor<4xi32> -> tensor<4xf16>
// CHECK-NEXT:    %[[R:.*]] = blk.add %[[A]], %b : tensor<4xf16>{{$}}
func.func @kind(%a: tensor<4xi32>, %b: tensor<4xf16>) {
  %r = blk.add %a, %b : tensor<4xi32>, tensor<4xf16> -> tensor<4xf16>
  func.return
}

// -----

// Width: of one kind, the wider dtype wins.
// CHECK-LABEL: func.func @width(
// CHECK-NEXT:    %[[A:.*]] = blk.cast %a implicit {rule = "width"} : tensor<4xi8> -> tensor<4xi32>
// CHECK-NEXT:    %[[R:.*]] = blk.add %[[A]], %b : tensor<4xi32>{{$}}
func.func @width(%a: tensor<4xi8>, %b: tensor<4xi32>) {
  %r = blk.add %a, %b : tensor<4xi8>, tensor<4xi32> -> tensor<4xi32>
  func.return
}

// -----

// Supremum: same width and signedness, different dtypes; both go to the next wider one.
// CHECK-LABEL: func.func @supremum(
// CHECK-NEXT:    %[[A:.*]] = blk.cast %a implicit {rule = "supremum"} : tensor<4xf16> -> tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = blk.cast %b implicit {rule = "supremum"} : tensor<4xbf16> -> tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[B]] : tensor<4xf32>{{$}}
func.func @supremum(%a: tensor<4xf16>, %b: tensor<4xbf16>) {
  %r = blk.mul %a, %b : tensor<4xf16>, tensor<4xbf16> -> tensor<4xf32>
  func.return
}

// -----

// The supremum's fp8 case: two different fp8 types go to float16.
// CHECK-LABEL: func.func @fp8_pair(
// CHECK-NEXT:    %[[A:.*]] = blk.cast %a implicit {rule = "fp8-pair"} : tensor<4xf8E4M3FN> -> tensor<4xf16>
// CHECK-NEXT:    %[[B:.*]] = blk.cast %b implicit {rule = "fp8-pair"} : tensor<4xf8E5M2> -> tensor<4xf16>
// CHECK-NEXT:    %[[R:.*]] = blk.add %[[A]], %[[B]] : tensor<4xf16>{{$}}
func.func @fp8_pair(%a: tensor<4xf8E4M3FN>, %b: tensor<4xf8E5M2>) {
  %r = blk.add %a, %b : tensor<4xf8E4M3FN>, tensor<4xf8E5M2> -> tensor<4xf16>
  func.return
}

// -----

// Prefer unsigned: same width, different signedness.
// CHECK-LABEL: func.func @prefer_unsigned(
// CHECK-NEXT:    %[[A:.*]] = blk.cast %a implicit {rule = "prefer-unsigned"} : tensor<4xi32> -> tensor<4xui32>
// CHECK-NEXT:    %[[R:.*]] = blk.sub %[[A]], %b : tensor<4xui32>{{$}}
func.func @prefer_unsigned(%a: tensor<4xi32>, %b: tensor<4xui32>) {
  %r = blk.sub %a, %b : tensor<4xi32>, tensor<4xui32> -> tensor<4xui32>
  func.return
}

// -----

// A literal of a higher kind: both the block's cast and the literal's constant are
// weak-literal.
// CHECK-LABEL: func.func @weak_literal(
// CHECK-NEXT:    %[[A:.*]] = blk.cast %a implicit {rule = "weak-literal"} : tensor<4xi16> -> tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = blk.constant 2.500000e+00 : f32 {rule = "weak-literal"}
// CHECK-NEXT:    %[[R:.*]] = blk.mul %[[A]], %[[C]] : tensor<4xf32>, f32 -> tensor<4xf32>
func.func @weak_literal(%a: tensor<4xi16>) {
  %c = blk.literal 2.5 : !blk.weak<float>
  %r = blk.mul %a, %c : tensor<4xi16>, !blk.weak<float> -> tensor<4xf32>
  func.return
}

// -----

// A literal of the block's kind does not take part: only its constant carries a rule.
// CHECK-LABEL: func.func @weak_literal_same_kind(
// CHECK-NEXT:    %[[C:.*]] = blk.constant 1 : ui8 {rule = "weak-literal"}
// CHECK-NEXT:    %[[R:.*]] = blk.sub %a, %[[C]] : tensor<4xui8>, ui8 -> tensor<4xui8>
func.func @weak_literal_same_kind(%a: tensor<4xui8>) {
  %c = blk.literal 1 : !blk.weak<int>
  %r = blk.sub %a, %c : tensor<4xui8>, !blk.weak<int> -> tensor<4xui8>
  func.return
}

// -----

// True division of integers computes in float32.
// CHECK-LABEL: func.func @true_division(
// CHECK-NEXT:    %[[A:.*]] = blk.cast %a implicit {rule = "true-division"} : tensor<4xi32> -> tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = blk.cast %b implicit {rule = "true-division"} : tensor<4xi32> -> tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = blk.truediv %[[A]], %[[B]] : tensor<4xf32>{{$}}
func.func @true_division(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  %r = blk.truediv %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xf32>
  func.return
}

// -----

// A stored value is converted to the pointee type.
// CHECK-LABEL: func.func @pointee(
// CHECK-NEXT:    %[[V:.*]] = blk.cast %v implicit {rule = "pointee"} : tensor<4xf16> -> tensor<4xf32>
// CHECK-NEXT:    blk.store %p, %[[V]] : tensor<4x!blk.ptr<f32>>{{$}}
func.func @pointee(%p: tensor<4x!blk.ptr<f32>>, %v: tensor<4xf16>) {
  blk.store %p, %v : tensor<4x!blk.ptr<f32>>, tensor<4xf16>
  func.return
}
