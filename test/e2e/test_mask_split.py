"""A loop whose masks hold on a prefix of its iterations (`cols < n` in a block wider than
the row) runs that prefix without masks, proven inside its arrays where the range check
passes over the prefix alone (the weights of a row shorter than the block are read past
their end only where masked), and the rest in the checked copy's loop
(`CpuKernelEmitter._mask_split`). Results must stay exact, reductions across the split
included, and accesses outside the arrays must still be reported."""

from __future__ import annotations

import re

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import jit

BLOCK = 1024


@blkc.jit
def scale_rows(x_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)  # w holds n elements: past it, masked
    tl.store(out_ptr + row * n + cols, x * w, mask=mask)


@blkc.jit
def row_stats(x_ptr, sum_ptr, max_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0)
    tl.store(sum_ptr + row, tl.sum(x, axis=0))
    y = tl.load(x_ptr + row * n + cols, mask=cols < n, other=-float("inf"))
    tl.store(max_ptr + row, tl.max(y, axis=0))


@pytest.mark.parametrize("check", ["1", "0"])
@pytest.mark.parametrize("n", [1, 5, 255, 256, 257, 768, 1000, 1023, 1024])
def test_rows_shorter_than_the_block_are_exact(
    monkeypatch: pytest.MonkeyPatch, n: int, check: str
) -> None:
    monkeypatch.setenv("BLKC_CHECK_BOUNDS", check)
    rows = 7
    rng = numpy.random.default_rng(n)
    x = rng.standard_normal((rows, n)).astype(numpy.float32)
    w = rng.standard_normal(n).astype(numpy.float32)
    out = numpy.full((rows, n), numpy.nan, numpy.float32)
    scale_rows[(rows,)](x, w, out, n, BLOCK=BLOCK)
    numpy.testing.assert_array_equal(out, x * w)
    sums = numpy.zeros(rows, numpy.float32)
    maxes = numpy.zeros(rows, numpy.float32)
    row_stats[(rows,)](x, sums, maxes, n, BLOCK=BLOCK)
    numpy.testing.assert_allclose(sums, x.astype(numpy.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
    numpy.testing.assert_array_equal(maxes, x.max(axis=1))


def test_a_mask_that_does_not_keep_the_accesses_inside_is_still_caught() -> None:
    """`n` says 900 columns but the weights hold 800: the prefix's range check fails and
    the checked copy reports the loads past the weights' end."""
    rows, n = 3, 900
    x = numpy.ones((rows, n), numpy.float32)
    w = numpy.ones(800, numpy.float32)
    out = numpy.zeros((rows, n), numpy.float32)
    with pytest.raises(IndexError, match="outside the arrays"):
        scale_rows[(rows,)](x, w, out, n, BLOCK=BLOCK)
    numpy.testing.assert_array_equal(out[:, :800], 1)


def test_the_split_copy_replaces_two_and_its_tail_enters_the_checked_loop() -> None:
    """The row's loop becomes, in LLVM IR, the copy that streams its stores, the split copy's
    prefix (no masks) and the checked copy, whose loop the prefix's tail enters at the split:
    three loops where the copies without masks and with masks proven made four."""
    x = numpy.ones((2, 768), numpy.float32)
    w = numpy.ones(768, numpy.float32)
    compiled = scale_rows.warmup(x, w, x, 768, BLOCK=BLOCK, grid=(2,))
    assert compiled.asm["loops"].count("scf.for") == 1
    emitted = compiled.program.llvm_variants[True]
    headers = re.findall(r'^"?for\.header[.\d]*"?:', emitted, re.MULTILINE)
    assert len(headers) == (3 if jit.streaming_stores_supported() else 2)
    assert re.search(r'^"?nest\.tail"?:', emitted, re.MULTILINE)
