// `-` reads standard input, as a missing file name does.
// RUN: cat %s | blk-opt - -p to-strict | filecheck %s
// RUN: cat %s | not blk-opt - -p to-strct 2>&1 | filecheck %s --check-prefix=ERROR

// CHECK-LABEL: func.func @k
// CHECK:         blk.add %{{.*}}, %{{.*}} : tensor<4xf32>
// ERROR: error: 'to-strct' does not refer to a registered pass; did you mean 'to-strict'?

func.func @k(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = blk.add %a, %b : tensor<4xf32>
  func.return %c : tensor<4xf32>
}
