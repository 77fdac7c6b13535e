// RUN: blk-opt --split-input-file %s -p "to-strict,carry-pointer-offsets,convert-blk-to-loops{vector-bits=512 vector-registers=32},prefetch-next-iteration" | filecheck %s

// A K loop that advances its tiles of A (128 x 32, rows %lda apart) and B (32 x 128) and
// multiplies them: B's tile is copied before the dot's tile loops, A's a band of 4 rows at
// a time inside them. Each visit of the dot's inner tile loop prefetches its share of the
// rows the next iteration's copies read, before its tile. Each row's address is computed
// once; its lines are constant offsets from it. B's rows hold 128 floats (lines at elements
// 0, 16, ..., 112 and 127), A's 32 (128 bytes: lines at 0, 16 and 31 of a row).
// CHECK-LABEL: func.func @matmul
// CHECK:       scf.for %{{.*}} iter_args(%[[OA:.*]] = %{{.*}}, %[[OB:.*]] = %{{.*}}) -> (i64, i64) : i32 {
// CHECK:         blk.load
// CHECK:         scf.for %[[TI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           blk.load
// CHECK:           scf.for %[[TJ:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[INCA:.*]] = blk.cast %{{.*}} : i32 -> i64
// CHECK-NEXT:        %[[NEXTA:.*]] = arith.addi %[[OA]], %[[INCA]] : i64
// CHECK:             %[[NEXTB:.*]] = arith.addi %[[OB]], %{{.*}} : i64
// CHECK-NEXT:        %[[ROWSB:.*]] = arith.constant 32 : index
// CHECK:             scf.for %{{.*}} {
// CHECK:               %[[ROWB:.*]] = blk.addptr %{{.*}}, %[[NEXTB]] : !blk.ptr<f32>, i64 -> !blk.ptr<f32>
// CHECK-NEXT:          blk.prefetch %[[ROWB]] : !blk.ptr<f32>
// CHECK-COUNT-7:       blk.constant {{(16|32|48|64|80|96|112)}} : i64
// CHECK:               %[[C127:.*]] = blk.constant 127 : i64
// CHECK-NEXT:          %[[B127:.*]] = blk.addptr %[[ROWB]], %[[C127]] : !blk.ptr<f32>, i64 -> !blk.ptr<f32>
// CHECK-NEXT:          blk.prefetch %[[B127]] : !blk.ptr<f32>
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[ROWSA:.*]] = arith.constant 128 : index
// CHECK:             scf.for %{{.*}} {
// CHECK:               blk.mul %{{.*}}, %lda : i32
// CHECK:               %[[ROWA:.*]] = blk.addptr %{{.*}}, %[[NEXTA]] : !blk.ptr<f32>, i64 -> !blk.ptr<f32>
// CHECK-NEXT:          blk.prefetch %[[ROWA]] : !blk.ptr<f32>
// CHECK-NEXT:          %[[C16:.*]] = blk.constant 16 : i64
// CHECK-NEXT:          %[[A16:.*]] = blk.addptr %[[ROWA]], %[[C16]] : !blk.ptr<f32>, i64 -> !blk.ptr<f32>
// CHECK-NEXT:          blk.prefetch %[[A16]] : !blk.ptr<f32>
// CHECK-NEXT:          %[[C31:.*]] = blk.constant 31 : i64
// CHECK-NEXT:          %[[A31:.*]] = blk.addptr %[[ROWA]], %[[C31]] : !blk.ptr<f32>, i64 -> !blk.ptr<f32>
// CHECK-NEXT:          blk.prefetch %[[A31]] : !blk.ptr<f32>
// CHECK-NEXT:        }
// CHECK-NEXT:        blk.dot_tile
func.func @matmul(%a: !blk.ptr<f32>, %b: !blk.ptr<f32>, %c: !blk.ptr<f32>, %lda: i32, %n: i32) attributes {blk.kernel} {
  %r16 = blk.arange 0, 128 : tensor<128xi32>
  %r32 = blk.arange 0, 32 : tensor<32xi32>
  %rows = blk.expand_dims %r16 axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %ld = blk.splat %lda : i32 -> tensor<128x1xi32>
  %rowoff = blk.mul %rows, %ld : tensor<128x1xi32>
  %cols = blk.expand_dims %r32 axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %aoff = blk.add %rowoff, %cols : tensor<128x1xi32>, tensor<1x32xi32> -> tensor<128x32xi32>
  %a0 = blk.addptr %a, %aoff : !blk.ptr<f32>, tensor<128x32xi32> -> tensor<128x32x!blk.ptr<f32>>
  %krows = blk.expand_dims %r32 axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c16 = blk.constant 128 : i32
  %kr = blk.mul %krows, %c16 : tensor<32x1xi32>, i32 -> tensor<32x1xi32>
  %ncols = blk.expand_dims %r16 axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  %boff = blk.add %kr, %ncols : tensor<32x1xi32>, tensor<1x128xi32> -> tensor<32x128xi32>
  %b0 = blk.addptr %b, %boff : !blk.ptr<f32>, tensor<32x128xi32> -> tensor<32x128x!blk.ptr<f32>>
  %zero = blk.constant dense<0.0> : tensor<128x128xf32>
  %lb = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %acc, %pa, %pb = scf.for %k = %lb to %n step %one iter_args(%s = %zero, %qa = %a0, %qb = %b0) -> (tensor<128x128xf32>, tensor<128x32x!blk.ptr<f32>>, tensor<32x128x!blk.ptr<f32>>) : i32 {
    %x = blk.load %qa : tensor<128x32x!blk.ptr<f32>>
    %y = blk.load %qb : tensor<32x128x!blk.ptr<f32>>
    %s2 = blk.dot %x, %y acc %s : tensor<128x32xf32>, tensor<32x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
    %c32 = blk.constant 32 : i32
    %qa2 = blk.addptr %qa, %c32 : tensor<128x32x!blk.ptr<f32>>, i32 -> tensor<128x32x!blk.ptr<f32>>
    %c512 = blk.constant 4096 : i32
    %qb2 = blk.addptr %qb, %c512 : tensor<32x128x!blk.ptr<f32>>, i32 -> tensor<32x128x!blk.ptr<f32>>
    scf.yield %s2, %qa2, %qb2 : tensor<128x128xf32>, tensor<128x32x!blk.ptr<f32>>, tensor<32x128x!blk.ptr<f32>>
  }
  %r16b = blk.expand_dims %r16 axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %r16c = blk.mul %r16b, %c16 : tensor<128x1xi32>, i32 -> tensor<128x1xi32>
  %coff = blk.add %r16c, %ncols : tensor<128x1xi32>, tensor<1x128xi32> -> tensor<128x128xi32>
  %cp = blk.addptr %c, %coff : !blk.ptr<f32>, tensor<128x128xi32> -> tensor<128x128x!blk.ptr<f32>>
  blk.store %cp, %acc : tensor<128x128x!blk.ptr<f32>>
  func.return
}

// -----

// The next tile starts at an index loaded in the loop: not predictable, no prefetch.
// CHECK-LABEL: func.func @indirect
// CHECK-NOT:   blk.prefetch
// CHECK:       blk.dot_tile
// CHECK-NOT:   blk.prefetch
// CHECK:       func.return
func.func @indirect(%a: !blk.ptr<f32>, %idx: !blk.ptr<i32>, %c: !blk.ptr<f32>, %n: i32) attributes {blk.kernel} {
  %r = blk.arange 0, 64 : tensor<64xi32>
  %rows = blk.expand_dims %r axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %size = blk.constant 64 : i32
  %rowoff = blk.mul %rows, %size : tensor<64x1xi32>, i32 -> tensor<64x1xi32>
  %cols = blk.expand_dims %r axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %off = blk.add %rowoff, %cols : tensor<64x1xi32>, tensor<1x64xi32> -> tensor<64x64xi32>
  %zero = blk.constant dense<0.0> : tensor<64x64xf32>
  %lb = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %acc = scf.for %k = %lb to %n step %one iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %ip = blk.addptr %idx, %k : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
    %start = blk.load %ip : !blk.ptr<i32>
    %base = blk.addptr %a, %start : !blk.ptr<f32>, i32 -> !blk.ptr<f32>
    %p = blk.addptr %base, %off : !blk.ptr<f32>, tensor<64x64xi32> -> tensor<64x64x!blk.ptr<f32>>
    %x = blk.load %p : tensor<64x64x!blk.ptr<f32>>
    %s2 = blk.dot %x, %x acc %s : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %s2 : tensor<64x64xf32>
  }
  %cp = blk.addptr %c, %off : !blk.ptr<f32>, tensor<64x64xi32> -> tensor<64x64x!blk.ptr<f32>>
  blk.store %cp, %acc : tensor<64x64x!blk.ptr<f32>>
  func.return
}

// -----

// The same tile, starting at the loop index times its size: predictable, prefetched
// (64 rows of 5 lines).
// CHECK-LABEL: func.func @by_index
// CHECK:       arith.constant 64 : index
// CHECK:       scf.for
// CHECK-COUNT-5: blk.prefetch
// CHECK-NEXT:  }
// CHECK:       blk.dot_tile
func.func @by_index(%a: !blk.ptr<f32>, %c: !blk.ptr<f32>, %n: i32) attributes {blk.kernel} {
  %r = blk.arange 0, 64 : tensor<64xi32>
  %rows = blk.expand_dims %r axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %size = blk.constant 64 : i32
  %rowoff = blk.mul %rows, %size : tensor<64x1xi32>, i32 -> tensor<64x1xi32>
  %cols = blk.expand_dims %r axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %off = blk.add %rowoff, %cols : tensor<64x1xi32>, tensor<1x64xi32> -> tensor<64x64xi32>
  %zero = blk.constant dense<0.0> : tensor<64x64xf32>
  %lb = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %acc = scf.for %k = %lb to %n step %one iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %start = blk.mul %k, %size : i32
    %base = blk.addptr %a, %start : !blk.ptr<f32>, i32 -> !blk.ptr<f32>
    %p = blk.addptr %base, %off : !blk.ptr<f32>, tensor<64x64xi32> -> tensor<64x64x!blk.ptr<f32>>
    %x = blk.load %p : tensor<64x64x!blk.ptr<f32>>
    %s2 = blk.dot %x, %x acc %s : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %s2 : tensor<64x64xf32>
  }
  %cp = blk.addptr %c, %off : !blk.ptr<f32>, tensor<64x64xi32> -> tensor<64x64x!blk.ptr<f32>>
  blk.store %cp, %acc : tensor<64x64x!blk.ptr<f32>>
  func.return
}

// -----

// A 16 x 16 tile: 256 vector multiply-adds an iteration for 32 lines, too few to repay
// the prefetches' address arithmetic (`WORK_PER_LINE`): no prefetch.
// CHECK-LABEL: func.func @small_tiles
// CHECK-NOT:   blk.prefetch
// CHECK:       func.return
func.func @small_tiles(%a: !blk.ptr<f32>, %c: !blk.ptr<f32>, %n: i32) attributes {blk.kernel} {
  %r = blk.arange 0, 16 : tensor<16xi32>
  %rows = blk.expand_dims %r axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %size = blk.constant 16 : i32
  %rowoff = blk.mul %rows, %size : tensor<16x1xi32>, i32 -> tensor<16x1xi32>
  %cols = blk.expand_dims %r axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
  %off = blk.add %rowoff, %cols : tensor<16x1xi32>, tensor<1x16xi32> -> tensor<16x16xi32>
  %zero = blk.constant dense<0.0> : tensor<16x16xf32>
  %lb = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %acc = scf.for %k = %lb to %n step %one iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
    %start = blk.mul %k, %size : i32
    %base = blk.addptr %a, %start : !blk.ptr<f32>, i32 -> !blk.ptr<f32>
    %p = blk.addptr %base, %off : !blk.ptr<f32>, tensor<16x16xi32> -> tensor<16x16x!blk.ptr<f32>>
    %x = blk.load %p : tensor<16x16x!blk.ptr<f32>>
    %s2 = blk.dot %x, %x acc %s : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %s2 : tensor<16x16xf32>
  }
  %cp = blk.addptr %c, %off : !blk.ptr<f32>, tensor<16x16xi32> -> tensor<16x16x!blk.ptr<f32>>
  blk.store %cp, %acc : tensor<16x16x!blk.ptr<f32>>
  func.return
}
