"""Blocked matrix multiplication with `tl.dot`, after Triton's tutorial 03, launched on a
2-D grid: program (pid_m, pid_n) computes one BLOCK_SIZE_M x BLOCK_SIZE_N tile of C,
accumulating in float32 over a loop on K. Sizes need not be multiples of the blocks: the
last K step is masked, and so is the store of the edge tiles.

    python examples/matmul.py
"""

from __future__ import annotations

import numpy
from _timing import Row, measure, one_blas_thread, print_rows

import blkc as triton
import blkc.language as tl


@triton.jit
def matmul_kernel(
    # Pointers to matrices
    a_ptr, b_ptr, c_ptr,
    # Matrix dimensions
    M, N, K,
    # The stride variables represent how much to increase the ptr by when moving by 1
    # element in a particular dimension.
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    # Meta-parameters
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
):
    """Compute C = A x B. A has shape (M, K), B has shape (K, N) and C has shape (M, N)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)

    # Pointers to the first blocks of A and B; the rows of A and columns of B past the
    # edge wrap around (`% M`, `% N`): they compute values that the masked store drops.
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    # Iterate to compute a block of the C matrix, accumulating in float32.
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        # Load the next block of A and B; the last one is masked on K.
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        # Advance the ptrs to the next K block.
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)

    # Write back the block of the output matrix C with masks.
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul(a: numpy.ndarray, b: numpy.ndarray, c: numpy.ndarray) -> None:
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    grid = lambda META: (  # noqa: E731 - Triton's idiom
        triton.cdiv(M, META["BLOCK_SIZE_M"]),
        triton.cdiv(N, META["BLOCK_SIZE_N"]),
    )
    matmul_kernel[grid](
        a, b, c, M, N, K,
        a.strides[0] // a.itemsize, a.strides[1] // a.itemsize,
        b.strides[0] // b.itemsize, b.strides[1] // b.itemsize,
        c.strides[0] // c.itemsize, c.strides[1] // c.itemsize,
        BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32,
    )


def main(m: int = 1000, n: int = 900, k: int = 700, repeat: int = 5, seed: int = 0) -> list[Row]:
    """C = A @ B for random float32 A (`m` x `k`) and B (`k` x `n`), sizes any."""
    rng = numpy.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(numpy.float32)
    b = rng.standard_normal((k, n)).astype(numpy.float32)
    c = numpy.full((m, n), numpy.nan, numpy.float32)
    with one_blas_thread():
        row = measure(
            "matmul (tl.dot, 2-D grid)",
            f"{m}x{k} @ {k}x{n} f32",
            lambda: matmul(a, b, c),
            lambda: numpy.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-3),
            lambda: numpy.matmul(a, b, out=c),
            repeat,
        )
    return [row]


if __name__ == "__main__":
    print_rows(main())
