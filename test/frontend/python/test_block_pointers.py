"""Block pointers (`tl.make_block_ptr`, `tl.advance`, `boundary_check`, `padding_option`):
compiled, run, and compared with NumPy; their misuses are located errors.

Triton 3.9 removed block pointers (its `make_block_ptr` raises NotImplementedError), so
the reference is the meaning earlier Triton gave them: the window of the tensor at the
offsets, masked in the checked dimensions.
"""

from __future__ import annotations

from pathlib import Path

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.frontend.infer_signature import Kind, infer_kinds

SOURCE = Path(__file__).read_text().splitlines()
rng = numpy.random.default_rng(0)


def line_of(marker: str) -> int:
    return next(i for i, text in enumerate(SOURCE, 1) if text.rstrip().endswith(f"# {marker}"))


@blkc.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # fmt: skip
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = tl.make_block_ptr(a_ptr, (M, K), (sam, sak), (pid_m * BM, 0), (BM, BK), (1, 0))
    b_block = tl.make_block_ptr(b_ptr, (K, N), (sbk, sbn), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_block, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block, boundary_check=(0, 1))
        acc += tl.dot(a, b)
        a_block = tl.advance(a_block, (0, BK))
        b_block = tl.advance(b_block, (BK, 0))
    c_block = tl.make_block_ptr(
        c_ptr, (M, N), (scm, scn), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0)
    )
    tl.store(c_block, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float16])
def test_matmul_tutorial_advances_block_pointers_in_its_loop(dtype: type) -> None:
    M, N, K = 37, 45, 51  # no multiple of the block: the boundary checks matter
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c = numpy.full((M, N), 7, dtype)
    grid = (blkc.cdiv(M, 16), blkc.cdiv(N, 16))
    matmul[grid](a, b, c, M, N, K, K, 1, N, 1, N, 1, BM=16, BN=16, BK=16)
    expected = a.astype(numpy.float32) @ b.astype(numpy.float32)
    tolerance = 1e-4 if dtype == numpy.float32 else 2e-2
    numpy.testing.assert_allclose(c.astype(numpy.float32), expected, rtol=tolerance, atol=tolerance)


@blkc.jit
def window(x_ptr, out_ptr, M, N, row, col, CHECK: tl.constexpr, PAD: tl.constexpr):
    block = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (row, col), (4, 8), (1, 0))
    out = tl.make_block_ptr(out_ptr, (4, 8), (8, 1), (0, 0), (4, 8), (1, 0))
    tl.store(out, tl.load(block, boundary_check=CHECK, padding_option=PAD))


def run_window(row: int, col: int, check: tuple[int, ...], pad: str) -> numpy.ndarray:
    x = numpy.arange(6 * 10, dtype=numpy.float32).reshape(6, 10)
    out = numpy.full((4, 8), -1, numpy.float32)
    window[(1,)](x, out, 6, 10, row, col, CHECK=check, PAD=pad)
    return out


def reference_window(row: int, col: int, check: tuple[int, ...], fill: float) -> numpy.ndarray:
    rows = numpy.arange(row, row + 4)[:, None]
    cols = numpy.arange(col, col + 8)[None, :]
    flat = numpy.arange(6 * 10, dtype=numpy.float32)
    inside = numpy.ones((4, 8), bool)
    if 0 in check:
        inside &= (rows >= 0) & (rows < 6)
    if 1 in check:
        inside &= (cols >= 0) & (cols < 10)
    index = numpy.clip(rows * 10 + cols, 0, flat.size - 1)
    return numpy.where(inside, flat[index], fill).astype(numpy.float32)


@pytest.mark.parametrize(
    ("row", "col", "check", "pad", "fill"),
    [
        (4, 5, (0, 1), "zero", 0.0),
        (4, 5, (0, 1), "nan", numpy.nan),
        (-2, 5, (0, 1), "", 0.0),
        (1, 6, (1,), "nan", numpy.nan),  # rows all inside; columns 10..13 padded
        (3, 1, (0,), "zero", 0.0),  # rows 6..; columns inside
        (1, 1, (), "", 0.0),  # no boundary check: no mask, all inside
    ],
)
def test_boundary_check_masks_the_checked_dimensions(
    row: int, col: int, check: tuple[int, ...], pad: str, fill: float
) -> None:
    numpy.testing.assert_array_equal(
        run_window(row, col, check, pad), reference_window(row, col, check, fill)
    )


@blkc.jit
def store_window(out_ptr, M, N, row, col):
    block = tl.make_block_ptr(out_ptr, (M, N), (N, 1), (row, col), (4, 4), (1, 0))
    tl.store(block, 1.0, boundary_check=(1, 0))  # a scalar, broadcast to the block


def test_store_writes_only_inside_the_checked_dimensions() -> None:
    out = numpy.zeros((5, 6), numpy.float32)
    store_window[(1,)](out, 5, 6, 3, 4)
    expected = numpy.zeros((5, 6), numpy.float32)
    expected[3:, 4:] = 1
    numpy.testing.assert_array_equal(out, expected)


@blkc.jit
def strided_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """A 1-d block pointer advanced in a while loop and moved in a dynamic `if`."""
    block = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    acc = tl.zeros((BLOCK,), tl.float32)
    start = 0
    while start < n:
        acc += tl.load(block, boundary_check=(0,))
        block = tl.advance(block, (BLOCK,))
        start += BLOCK
    out = tl.make_block_ptr(out_ptr, (2,), (1,), (0,), (1,), (0,))
    if n > 100:
        out = tl.advance(out, (1,))
    tl.store(out, tl.sum(acc, axis=0)[None], boundary_check=(0,))


@pytest.mark.parametrize(("n", "slot"), [(70, 0), (130, 1)])
def test_block_pointers_in_while_loops_and_ifs(n: int, slot: int) -> None:
    x = rng.standard_normal(n).astype(numpy.float32)
    out = numpy.zeros(2, numpy.float32)
    strided_sum[(1,)](x, out, n, BLOCK=16)
    expected = numpy.zeros(2, numpy.float32)
    expected[slot] = x.sum()
    numpy.testing.assert_allclose(out, expected, rtol=1e-5)


@blkc.jit
def misuse(x_ptr, n, CASE: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (4, 4), (1, 0))
    if CASE == "check-out-of-range":
        tl.load(p, boundary_check=(0, 2))  # check-out-of-range
    elif CASE == "shape-rank":
        tl.make_block_ptr(x_ptr, (n,), (n, 1), (0, 0), (4, 4), (1, 0))  # shape-rank
    elif CASE == "order":
        tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (4, 4), (0, 0))  # order
    elif CASE == "advance-rank":
        p = tl.advance(p, (1,))  # advance-rank
    elif CASE == "arithmetic":
        tl.load(p + 1)  # arithmetic
    elif CASE == "mask":
        tl.load(p, mask=n > 0)  # mask
    elif CASE == "nan-int":
        tl.make_block_ptr(n, (n,), (1,), (0,), (4,), (0,))  # nan-int
    elif CASE == "plain-pointer":
        tl.load(x_ptr, boundary_check=(0,))  # plain-pointer
    elif CASE == "store-rank":
        tl.store(p, tl.zeros((4, 4, 2), tl.float32))  # store-rank
    else:
        for _ in range(n):  # loop-layout
            p = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (4,), (0,))


@pytest.mark.parametrize(
    ("case", "text"),
    [
        ("check-out-of-range", "dimension 2 is out of range for a block pointer of rank 2"),
        ("shape-rank", "shape has 1 entries but block_shape has rank 2"),
        ("order", "Expected a permutation of (0, 1, ..., len(order)-1) in order"),
        ("advance-rank", "offsets has 1 entries but block_shape has rank 2"),
        ("arithmetic", "operator 'Add' is not defined on block pointers"),
        ("mask", "`mask` and `other` arguments cannot be specified for loading block pointers"),
        ("nan-int", "Expected `base` to be a pointer type"),
        ("plain-pointer", "argument is not supported for loading a tensor of pointers"),
        ("store-rank", "cannot broadcast"),
        ("loop-layout", "'p' is a block pointer (block_shape=[4, 4], order=[1, 0]) before"),
    ],
)  # fmt: skip
def test_misuses_are_located_errors(case: str, text: str) -> None:
    with pytest.raises(blkc.BlkcError) as info:
        misuse.warmup(numpy.zeros(16, numpy.float32), 4, CASE=case)
    message = str(info.value)
    assert text in message, message
    assert f"{__file__}:{line_of(case)}:" in message, message


@blkc.jit
def nan_padding_of_ints(x_ptr):
    p = tl.make_block_ptr(x_ptr, (4,), (1,), (0,), (4,), (0,))
    tl.load(p, boundary_check=(0,), padding_option="nan")  # nan-of-ints


def test_nan_padding_of_an_integer_block_pointer_is_refused() -> None:
    with pytest.raises(blkc.BlkcError) as info:
        nan_padding_of_ints.warmup(numpy.zeros(4, numpy.int32))
    message = str(info.value)
    assert "Padding option `nan` is not supported for integer block pointers" in message
    assert f"{__file__}:{line_of('nan-of-ints')}:" in message


def test_the_command_line_infers_a_block_pointer_kernels_signature() -> None:
    """`blkc FILE.py` types the base as a pointer and the entries of shape, strides and
    offsets (and advance's) as integers, so the tutorial builds from its constexprs."""
    constants = {"BM": 16, "BN": 16, "BK": 16}
    found = infer_kinds(matmul, constants, {})
    assert found == {
        **dict.fromkeys(("a_ptr", "b_ptr", "c_ptr"), Kind.POINTER),
        **dict.fromkeys(("M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn"), Kind.INT),
    }


@blkc.jit
def shifted_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """`advance` as a method of the block pointer (Triton's member form), through a helper."""
    block = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    moved = block.advance((2,))
    out = tl.make_block_ptr(out_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    tl.store(out, load_padded(moved), boundary_check=(0,))


@blkc.jit
def load_padded(block):
    return tl.load(block, boundary_check=(0,), padding_option="nan")


def test_advance_as_a_method_and_block_pointers_through_helpers() -> None:
    x = numpy.arange(10, dtype=numpy.float32)
    out = numpy.zeros(10, numpy.float32)
    shifted_copy[(1,)](x, out, 10, BLOCK=16)
    numpy.testing.assert_array_equal(out, [2, 3, 4, 5, 6, 7, 8, 9, numpy.nan, numpy.nan])
