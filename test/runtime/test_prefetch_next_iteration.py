"""`prefetch-next-iteration` in compiled kernels: K loops that multiply tiles prefetch the
next iteration's tiles (the loop IR says so), results stay those of NumPy (masked last
steps, every dot kind), and prefetching far outside the arrays neither faults nor trips
the bounds checks."""

from __future__ import annotations

import ml_dtypes
import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ACC: tl.constexpr,
):  # fmt: skip
    """Triton's tutorial matmul (without the grouped order)."""
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    offs_m = (pid_m * BM + tl.arange(0, BM)) % M
    offs_n = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    tl.store(
        c_ptr + rows[:, None] * stride_cm + cols[None, :],
        c,
        mask=(rows[:, None] < M) & (cols[None, :] < N),
    )


CASES = {
    "float32": (numpy.float32, tl.float32, numpy.float32),
    "bfloat16": (ml_dtypes.bfloat16, tl.float32, ml_dtypes.bfloat16),
    "int8": (numpy.int8, tl.int32, numpy.int32),
}


@pytest.mark.parametrize("dtype", list(CASES))
def test_a_k_loop_prefetches_and_stays_right(dtype: str) -> None:
    elem, acc, out = CASES[dtype]
    m, n, k, bm, bn, bk = 128, 256, 100, 128, 128, 32  # K: three whole steps, a masked one
    rng = numpy.random.default_rng(7)
    if dtype == "int8":
        a = rng.integers(-128, 128, (m, k)).astype(elem)
        b = rng.integers(-128, 128, (k, n)).astype(elem)
    else:
        a = rng.standard_normal((m, k)).astype(elem)
        b = rng.standard_normal((k, n)).astype(elem)
    c = numpy.zeros((m, n), out)
    grid = (m // bm, n // bn)
    args = (a, b, c, m, n, k, k, n, n)
    compiled = matmul.warmup(*args, BM=bm, BN=bn, BK=bk, ACC=acc, grid=grid)
    loops = compiled.asm["loops"]
    # Both tiles' next copies, in the dot's tile loop: a prefetch per line of a row (its
    # address computed once), plus one for its last element where rows are not aligned.
    # B's tile is one copy; A's rows are copied a band of tile rows at a time, and the
    # rows of a shorter last tile (where the tile's rows do not divide BM) in a copy of
    # their own: every load but B's is a copy of A.
    line = 64 // numpy.dtype(elem).itemsize
    per_row = [(bk - 1 + line - 1) // line + 1, (bn - 1 + line - 1) // line + 1]
    copies_of_a = loops.count("blk.load") - 1
    assert copies_of_a in (1, 2)
    assert loops.count("blk.prefetch") == per_row[0] * copies_of_a + per_row[1]
    assert loops.index("blk.prefetch") < loops.index("blk.dot_tile")
    matmul[grid](*args, BM=bm, BN=bn, BK=bk, ACC=acc)
    expected = a.astype(numpy.float64) @ b.astype(numpy.float64)
    if dtype == "int8":
        numpy.testing.assert_array_equal(c, expected.astype(numpy.int32))
    else:
        numpy.testing.assert_allclose(c.astype(numpy.float64), expected, rtol=2e-2, atol=5e-2)


@blkc.jit
def strided_sum_of_products(a_ptr, c_ptr, n, step, B: tl.constexpr):
    """Products of tiles `step` elements apart, `n` of them: after the last, the next
    tile's address is far outside the array."""
    rows = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    ptrs = a_ptr + rows
    acc = tl.zeros((B, B), dtype=tl.float32)
    for _ in range(n):
        x = tl.load(ptrs)
        acc = tl.dot(x, x, acc)
        ptrs += step
    tl.store(c_ptr + rows, acc)


@pytest.mark.parametrize("step", [2**31 - 1, -(2**31)])
def test_prefetching_far_outside_the_arrays_is_harmless(step: int) -> None:
    a = numpy.random.default_rng(1).standard_normal((64, 64)).astype(numpy.float32)
    c = numpy.zeros_like(a)
    compiled = strided_sum_of_products.warmup(a, c, 1, step, B=64, grid=(1,))
    assert "blk.prefetch" in compiled.asm["loops"]
    strided_sum_of_products[(1,)](a, c, 1, step, B=64)  # bounds checks on: none reported
    numpy.testing.assert_allclose(c, a @ a, rtol=1e-4, atol=1e-4)


def test_small_tiles_are_not_prefetched() -> None:
    """A 16 x 16 tile's products do not repay the prefetches' arithmetic (`WORK_PER_LINE`)."""
    a = numpy.random.default_rng(2).standard_normal((16, 16)).astype(numpy.float32)
    c = numpy.zeros_like(a)
    compiled = strided_sum_of_products.warmup(a, c, 1, 0, B=16, grid=(1,))
    loops = compiled.asm["loops"]
    assert "blk.dot_tile" in loops and "blk.prefetch" not in loops


@blkc.jit
def blocks_by_index(q_ptr, k_ptr, o_ptr, N, B: tl.constexpr, D: tl.constexpr):
    """Attention's shape of loop: the key block's address comes from the loop index."""
    offs_b, offs_d = tl.arange(0, B), tl.arange(0, D)
    q = tl.load(q_ptr + offs_b[:, None] * D + offs_d[None, :])
    acc = tl.zeros((B, B), dtype=tl.float32)
    for start in range(0, N, B):
        k = tl.load(k_ptr + (start + offs_b)[:, None] * D + offs_d[None, :])
        acc += tl.dot(q, tl.trans(k))
    tl.store(o_ptr + offs_b[:, None] * B + offs_b[None, :], acc)


def test_addresses_from_the_loop_index_are_prefetched() -> None:
    rng = numpy.random.default_rng(3)
    n, b, d = 192, 64, 64
    q = rng.standard_normal((b, d)).astype(numpy.float32)
    k = rng.standard_normal((n, d)).astype(numpy.float32)
    o = numpy.zeros((b, b), numpy.float32)
    compiled = blocks_by_index.warmup(q, k, o, n, B=b, D=d, grid=(1,))
    assert "blk.prefetch" in compiled.asm["loops"]
    blocks_by_index[(1,)](q, k, o, n, B=b, D=d)
    expected = sum(q @ k[s : s + b].T for s in range(0, n, b))
    numpy.testing.assert_allclose(o, expected, rtol=1e-4, atol=1e-4)


@blkc.jit
def shapes_of_k_loops(
    a_ptr, b_ptr, c_ptr, K, KIND: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
    BK: tl.constexpr,
):  # fmt: skip
    """C (M x N) = A (M x K) B (K x N), all row-major, over K loops of other shapes:
    0 a loop of step 2 whose addresses come from its index; 1 B read transposed (from a
    tile of B^T, N x K); 2 an outer loop over halves of N around the K loop; 3 pointers
    advanced by a step that grows each iteration (not an induction: no prefetch)."""
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, BK)
    if KIND == 0:
        acc = tl.zeros((M, N), dtype=tl.float32)
        for k in range(0, K // BK, 2):
            for j in range(2):
                kk = (k + j) * BK
                a = tl.load(a_ptr + rm[:, None] * K + (kk + rk)[None, :])
                b = tl.load(b_ptr + (kk + rk)[:, None] * N + rn[None, :])
                acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
    elif KIND == 1:
        acc = tl.zeros((M, N), dtype=tl.float32)
        a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
        bt_ptrs = b_ptr + rn[:, None] * K + rk[None, :]  # b_ptr holds B^T here
        for _ in range(0, K // BK):
            acc = tl.dot(tl.load(a_ptrs), tl.trans(tl.load(bt_ptrs)), acc)
            a_ptrs += BK
            bt_ptrs += BK
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
    elif KIND == 2:
        half = tl.arange(0, N // 2)
        for h in range(2):
            cols = h * (N // 2) + half
            acc = tl.zeros((M, N // 2), dtype=tl.float32)
            a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
            b_ptrs = b_ptr + rk[:, None] * N + cols[None, :]
            for _ in range(0, K // BK):
                acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
                a_ptrs += BK
                b_ptrs += BK * N
            tl.store(c_ptr + rm[:, None] * N + cols[None, :], acc)
    else:
        acc = tl.zeros((M, N), dtype=tl.float32)
        a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
        b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
        step = 0
        for _ in range(0, K // BK):
            acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
            step += 1
            a_ptrs += BK * step - BK * (step - 1)
            b_ptrs += (BK * step - BK * (step - 1)) * N
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@pytest.mark.parametrize(("kind", "prefetched"), [(0, True), (1, True), (2, True), (3, False)])
def test_k_loops_of_other_shapes(kind: int, prefetched: bool) -> None:
    m, n, k, bk = 128, 128, 256, 64
    rng = numpy.random.default_rng(kind)
    a = rng.standard_normal((m, k)).astype(numpy.float32)
    b = rng.standard_normal((k, n)).astype(numpy.float32)
    c = numpy.zeros((m, n), numpy.float32)
    operand = numpy.ascontiguousarray(b.T) if kind == 1 else b
    compiled = shapes_of_k_loops.warmup(a, operand, c, k, KIND=kind, M=m, N=n, BK=bk, grid=(1,))
    assert ("blk.prefetch" in compiled.asm["loops"]) == prefetched
    shapes_of_k_loops[(1,)](a, operand, c, k, KIND=kind, M=m, N=n, BK=bk)
    numpy.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-3)


@blkc.jit
def batched(a_ptr, b_ptr, c_ptr, K, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
            BK: tl.constexpr):  # fmt: skip
    """B products at once, (B, M, K) @ (B, K, N), a 3-D dot in the K loop."""
    rb, rm, rn, rk = tl.arange(0, B), tl.arange(0, M), tl.arange(0, N), tl.arange(0, BK)
    a_ptrs = a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :]
    b_ptrs = b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :]
    acc = tl.zeros((B, M, N), dtype=tl.float32)
    for _ in range(0, K // BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], acc)


def test_a_batched_dot_prefetches() -> None:
    batch, m, n, k, bk = 2, 128, 64, 128, 64
    rng = numpy.random.default_rng(5)
    a = rng.standard_normal((batch, m, k)).astype(numpy.float32)
    b = rng.standard_normal((batch, k, n)).astype(numpy.float32)
    c = numpy.zeros((batch, m, n), numpy.float32)
    compiled = batched.warmup(a, b, c, k, B=batch, M=m, N=n, BK=bk, grid=(1,))
    assert "blk.prefetch" in compiled.asm["loops"]
    batched[(1,)](a, b, c, k, B=batch, M=m, N=n, BK=bk)
    numpy.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-3)
