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
    prefix (no masks), its tail past the split where every mask is false (no memory
    accesses), and the checked copy, whose loop the prefix's tail enters at the split where
    the masks' being false is not known there."""
    x = numpy.ones((2, 768), numpy.float32)
    w = numpy.ones(768, numpy.float32)
    compiled = scale_rows.warmup(x, w, x, 768, BLOCK=BLOCK, grid=(2,))
    assert compiled.asm["loops"].count("scf.for") == 1
    emitted = compiled.program.llvm_variants[True]
    headers = re.findall(r'^"?for\.header[.\d]*"?:', emitted, re.MULTILINE)
    assert len(headers) == (5 if jit.streaming_stores_supported() else 3)
    assert re.search(r'^"?nest\.tail"?:', emitted, re.MULTILINE)
    off = emitted.split('nest.masked_off"', 1)[1] if 'nest.masked_off"' in emitted else None
    off = off or emitted.split("\nnest.masked_off:", 1)[1]
    tail_loop = off.split("nest.to_checked", 1)[0]
    assert "load" not in tail_loop and "store" not in tail_loop  # nothing read or written


@blkc.jit
def two_bounds(x_ptr, w_ptr, out_ptr, n, m, OTHER: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + cols, mask=cols < n, other=OTHER)
    w = tl.load(w_ptr + cols, mask=cols < m, other=2.0)
    z = tl.load(x_ptr + row * BLOCK + cols)  # unmasked: read in every iteration
    y = tl.where(cols < n, x * w, z + 1.0)
    tl.store(out_ptr + row * BLOCK + cols, y, mask=cols < m)
    tl.store(out_ptr + 4 * BLOCK + row, tl.sum(x, axis=0) + tl.sum(w, axis=0))


@pytest.mark.parametrize("check", ["1", "0"])
@pytest.mark.parametrize(
    ("n", "m"), [(768, 768), (768, 900), (900, 768), (0, 1024), (1024, 5), (300, 1024), (1, 1)]
)
def test_the_tail_past_the_split_reads_other_and_keeps_what_still_holds(
    monkeypatch: pytest.MonkeyPatch, n: int, m: int, check: str
) -> None:
    """Past the split a mask is false only if one of its conditions stopped holding there:
    with `cols < n` and `cols < m` the accesses under the later bound still run (the
    checked copy takes the tail), an unmasked access always does, `other` (here 1.5) and a
    select's false operand feed the sums and stores past the split."""
    monkeypatch.setenv("BLKC_CHECK_BOUNDS", check)
    rows = 4
    rng = numpy.random.default_rng(n * 7 + m)
    x = rng.standard_normal((rows, BLOCK)).astype(numpy.float32)
    w = rng.standard_normal(max(m, 1)).astype(numpy.float32)
    out = numpy.full(5 * BLOCK, numpy.nan, numpy.float32)
    two_bounds[(rows,)](x, w, out, n, m, 1.5, BLOCK=BLOCK)
    cols = numpy.arange(BLOCK)
    xs = numpy.where(cols < n, x, numpy.float32(1.5))
    ws = numpy.where(cols < m, numpy.resize(w, BLOCK), numpy.float32(2.0))
    y = numpy.where(cols < n, xs * ws, x + numpy.float32(1.0))
    expected = numpy.where(cols < m, y, numpy.nan)
    numpy.testing.assert_array_equal(out[: rows * BLOCK].reshape(rows, BLOCK), expected)
    sums = xs.astype(numpy.float64).sum(axis=1) + ws.astype(numpy.float64).sum()
    numpy.testing.assert_allclose(out[4 * BLOCK : 4 * BLOCK + rows], sums, rtol=1e-5, atol=1e-4)
