# Without --kernel, --emit prints every kernel of the file (each with the -D values).
# RUN: blkc %s -DBLOCK=16 --emit=strict | filecheck %s
# RUN: not blkc %s -DBLOCK=16 --run 2>&1 | filecheck %s --check-prefix=LAUNCH
import blkc
import blkc.language as tl


# CHECK: // ----- kernel first -----
# CHECK: func.func @first(%x_ptr: !blk.ptr<f32>)
@blkc.jit
def first(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)


# CHECK: // ----- kernel second -----
# CHECK: func.func @second(%out_ptr: !blk.ptr<f32>, %n: i32)
@blkc.jit
def second(out_ptr, n, BLOCK: tl.constexpr = 8):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < n)


# LAUNCH: error: {{.*}} has several kernels (first, second): name the one to run with --kernel
