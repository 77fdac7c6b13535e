# The loose blk IR the Python frontend builds for each construct, with source locations.
# RUN: blkc %s --kernel constructs -DBLOCK=16 --emit=loose | filecheck %s
# RUN: blkc %s --kernel constructs -DBLOCK=16 --emit=strict | filecheck %s --check-prefix=STRICT
# RUN: not blkc %s --kernel mismatch 2>&1 | filecheck %s --check-prefix=ERR
# RUN: blkc %s --kernel constructs -DBLOCK=16 --signature 'x_ptr=*fp16,n=i64' --emit=loose | filecheck %s --check-prefix=SIG
# RUN: blkc %s --kernel constructs -DBLOCK=16 --signature 'n=i32:16' --emit=loose | filecheck %s --check-prefix=HINT
# RUN: not blkc %s --kernel constructs 2>&1 | filecheck %s --check-prefix=NOVALUE
# SIG: func.func @constructs(%x_ptr: !blk.ptr<f16>, %out_ptr: !blk.ptr<f32>, %n: i64)
# HINT: func.func @constructs(%x_ptr: !blk.ptr<f32>, %out_ptr: !blk.ptr<f32>, %n: i32 {blk.divisibility = 16 : i32})
# NOVALUE: error: constexpr parameter 'BLOCK' of constructs needs a value: pass -DBLOCK=...
import blkc
import blkc.language as tl


@blkc.jit
def constructs(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # CHECK-LABEL: func.func @constructs(%x_ptr: !blk.ptr<f32>, %out_ptr: !blk.ptr<f32>, %n: i32)
    # CHECK: %[[PID:.*]] = blk.program_id 0 : i32
    # CHECK: %[[B:.*]] = blk.literal 16 : !blk.weak<int>
    # CHECK: blk.mul %[[PID]], %[[B]] : i32, !blk.weak<int> -> i32
    # CHECK: blk.arange 0, 16 : tensor<16xi32>
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    # CHECK: blk.cmp lt, %{{.*}}, %n : tensor<16xi32>, i32 -> tensor<16xi1>
    mask = offs < n
    # CHECK: blk.load %{{.*}} mask %{{.*}} other %{{.*}} : tensor<16x!blk.ptr<f32>>, tensor<16xi1>, !blk.weak<float> -> tensor<16xf32>
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # CHECK: blk.expand_dims %{{.*}} axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
    # CHECK: blk.expand_dims %{{.*}} axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
    # CHECK: blk.mul %{{.*}}, %{{.*}} : tensor<16x1xf32>, tensor<1x16xf32> -> tensor<16x16xf32>
    outer = x[:, None] * x[None, :]
    # CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<16xf32>) : i32
    # CHECK: blk.reduce sum, %{{.*}} axis = 1 : tensor<16x16xf32> -> tensor<16xf32>
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(n):
        acc += tl.sum(outer, axis=1)
    # CHECK: scf.if %{{.*}} -> (tensor<16xf32>)
    if n > 4:
        acc = acc * 2
    # CHECK: blk.floordiv %{{.*}}, %{{.*}} : tensor<16xi32>, !blk.weak<int> -> tensor<16xi32>
    # STRICT: blk.floordiv %{{.*}}, %{{.*}} rounding = trunc : tensor<16xi32>
    q = offs // 3
    tl.store(out_ptr + offs, acc + q, mask=mask)


@blkc.jit
def mismatch(x_ptr):
    a = tl.arange(0, 16)
    # ERR: loose_ir.py:[[# @LINE + 1]]:25: error: lhs and rhs cannot broadcast
    tl.store(x_ptr + a, a + tl.arange(0, 8))

