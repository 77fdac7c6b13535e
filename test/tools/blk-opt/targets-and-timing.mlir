// Only the targets that can print blk IR are offered; pass timings go to stderr, so the
// IR on stdout stays parseable.
// RUN: not blk-opt %s -t llvm 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: blk-opt %s -p to-strict --time-passes 2>/dev/null | blk-opt | filecheck %s --check-prefix=IR
// RUN: blk-opt %s -p to-strict --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=TIME

// TARGET: invalid choice: 'llvm' (choose from mlir)
// IR: blk.add
// TIME: Pass to-strict took {{.*}} seconds

func.func @k(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = blk.add %a, %b : tensor<4xf32>
  func.return %c : tensor<4xf32>
}
