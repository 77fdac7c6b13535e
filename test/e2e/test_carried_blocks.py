"""Blocks a loop carries (`acc = tl.zeros(...)`, then `acc += ...` in a loop) start in the
first iteration from their splat, not from a buffer filled before the loop
(`BlockLowering.lower_for`): results stay NumPy's for loops that run no iteration, one, or
many, from any start and by any step, and for carried blocks that do not qualify."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def column_sums(x_ptr, out_ptr, start, n, scale, BLOCK: tl.constexpr):
    """out[j] = scale + the sum over row chunks k = start, start + BLOCK, ... < n of
    x[k + j]: the accumulator starts as a splat of a run-time value."""
    cols = tl.arange(0, BLOCK)
    acc = tl.full([BLOCK], scale, tl.float32)
    for k in range(start, n, BLOCK):
        acc += tl.load(x_ptr + k + cols, mask=k + cols < n, other=0.0)
    tl.store(out_ptr + cols, acc)


def expected_sums(x: numpy.ndarray, start: int, n: int, scale: float, block: int) -> numpy.ndarray:
    acc = numpy.full(block, scale, numpy.float64)
    for k in range(start, n, block):
        chunk = x[k : min(k + block, n)]
        acc[: len(chunk)] += chunk
    return acc


@pytest.mark.parametrize(
    ("start", "n"), [(0, 0), (5, 5), (7, 3), (0, 64), (0, 1000), (13, 1000), (64, 129)]
)
def test_an_accumulator_from_a_splat_over_any_trip_count(start: int, n: int) -> None:
    x = numpy.random.default_rng(n).standard_normal(max(n, 1)).astype(numpy.float32)
    out = numpy.full(64, numpy.nan, numpy.float32)
    column_sums[(1,)](x, out, start, n, 2.5, BLOCK=64)
    numpy.testing.assert_allclose(out, expected_sums(x, start, n, 2.5, 64), rtol=1e-5)


@blkc.jit
def zeros_then_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Triton's layer-norm mean: zeros carried, summed, then reduced."""
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        acc += tl.load(x_ptr + off + cols, mask=off + cols < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def test_the_layer_norm_accumulator_reads_no_filled_buffer() -> None:
    x = numpy.random.default_rng(1).standard_normal(3000).astype(numpy.float32)
    out = numpy.zeros(1, numpy.float32)
    compiled = zeros_then_sum.warmup(x, out, 3000, BLOCK=1024, grid=(1,))
    loops = compiled.asm["loops"]
    # The buffer is filled only under the loop's "no iteration" test; the first iteration
    # selects the splat's zero instead of the buffer's element.
    assert "arith.cmpi sge" in loops and "arith.select" in loops
    for n in (0, 1, 1024, 3000):
        zeros_then_sum[(1,)](x, out, n, BLOCK=1024)
        numpy.testing.assert_allclose(out[0], x[:n].astype(numpy.float64).sum(), rtol=1e-5)


@blkc.jit
def kept_some_iterations(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """The carried block is read by a reduction and passed on unchanged in odd chunks:
    it is filled before the loop as always."""
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, n):
        if k % 2 == 0:
            acc = acc + tl.load(x_ptr + k * BLOCK + cols) + tl.max(acc, axis=0)
    tl.store(out_ptr + cols, acc)


def test_carried_blocks_that_do_not_qualify_are_filled_first() -> None:
    x = numpy.random.default_rng(2).random(5 * 32).astype(numpy.float32)
    out = numpy.full(32, numpy.nan, numpy.float32)
    kept_some_iterations[(1,)](x, out, 5, BLOCK=32)
    acc = numpy.zeros(32, numpy.float32)
    for k in range(0, 5, 2):
        acc = acc + x[k * 32 : (k + 1) * 32] + acc.max()
    numpy.testing.assert_allclose(out, acc, rtol=1e-6)
