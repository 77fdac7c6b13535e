"""Strided views as kernel arguments: a kernel gets the view's first element's address and
indexes it with the strides it is passed, as Triton kernels take `x.stride(0)`; bounds
checks span the elements and the gaps between them."""

from __future__ import annotations

import numpy
import pytest
import torch

import blkc
import blkc.language as tl
from blkc.runtime.launch import array_span


@blkc.jit
def copy_2d(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.arange(0, BM)[:, None]
    n = tl.arange(0, BN)[None, :]
    inside = (m < M) & (n < N)
    x = tl.load(x_ptr + m * sxm + n * sxn, mask=inside)
    tl.store(y_ptr + m * sym + n * syn, x * 2, mask=inside)


def strides(array: numpy.ndarray) -> tuple[int, ...]:
    return tuple(s // array.itemsize for s in array.strides)


VIEWS = {
    "column slice": lambda a: a[:, 1:4],
    "every other column": lambda a: a[:, ::2],
    "transpose": lambda a: a.T,
    "reversed rows": lambda a: a[::-1],
    "reversed both": lambda a: a[::-1, ::-3],
}


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_a_view_in_and_a_view_out(view: str, target: str) -> None:
    base = numpy.arange(6 * 8, dtype=numpy.float32).reshape(6, 8)
    x = VIEWS[view](base)
    out_base = numpy.zeros((8, 8), numpy.float32)
    y = out_base.T[: x.shape[0], : x.shape[1]]  # a strided output too
    for _ in range(3):  # through Python, then through a launch stub's fallback
        copy_2d[(1,)](x, y, *x.shape, *strides(x), *strides(y), BM=8, BN=8, target=target)
        numpy.testing.assert_array_equal(y, 2 * x)
    assert not numpy.delete(out_base.T, numpy.s_[: x.shape[0]], axis=0).any()


def test_torch_views_and_bounds() -> None:
    base = torch.arange(6 * 8, dtype=torch.float32).reshape(6, 8)
    x = base.T[1:5]
    y = torch.zeros(4, 6)
    copy_2d[(1,)](x, y, 4, 6, *x.stride(), *y.stride(), BM=8, BN=8)
    assert torch.equal(y, 2 * x)
    with pytest.raises(IndexError, match="outside the arrays"):
        # a row stride of 100 leaves the memory the view spans
        copy_2d[(1,)](x, y, 4, 6, 100, 1, *y.stride(), BM=8, BN=8)


def test_spans_cover_the_elements_and_the_gaps() -> None:
    base = numpy.zeros((5, 7), numpy.int16)
    start = base.__array_interface__["data"][0]
    assert array_span(base[1:3, 2:5]) == (start + 2 * (7 + 2), start + 2 * (2 * 7 + 5))
    assert array_span(base[::-1, ::-2]) == (start, start + base.nbytes)
    assert array_span(base[:, :0]) == (start, start)


@blkc.jit
def copy_1d(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    inside = o < n
    tl.store(y_ptr + o, tl.load(x_ptr + o * stride, mask=inside), mask=inside)


@blkc.jit
def copy_backwards(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    inside = o < n
    tl.store(y_ptr + o, tl.load(x_ptr - o, mask=inside), mask=inside)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize("block", [16, 1024])
def test_a_reversed_view_is_checked_from_its_pointer(block: int, target: str) -> None:
    """A view with a negative stride points to its last element in memory: offsets below
    the pointer reach its elements, offsets above it leave the view (before, an i32 offset
    was checked against the view's length counted from the pointer, which refused the
    first and let the second read past the view's end)."""
    n = block - 3
    base = numpy.arange(2 * block, dtype=numpy.float32)
    x = base[:n][::-1]  # x[i] is base[n - 1 - i]
    y = numpy.zeros(n, numpy.float32)
    copy_1d[(1,)](x, y, n, -1, BLOCK=block, target=target)
    numpy.testing.assert_array_equal(y, x)
    y[:] = 0
    copy_backwards[(1,)](x, y, n, BLOCK=block, target=target)
    numpy.testing.assert_array_equal(y, x)
    for step in (1, 2):  # forwards from the pointer: base[n - 1 + i], past the view
        with pytest.raises(IndexError, match="outside the arrays"):
            copy_1d[(1,)](x, y, n, step, BLOCK=block, target=target)
    with pytest.raises(IndexError, match="outside the arrays"):
        copy_1d[(1,)](x, y, n + 1, -1, BLOCK=block, target=target)  # one below base[0]
