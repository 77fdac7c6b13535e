"""Long innermost loops are vectorized but not unrolled (`llvm_codegen.LONG_LOOP`): the
hint reaches the loops the vectorizer makes (a follow-up), short loops still unroll for the
SLP vectorizer, and the code computes the same."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime.llvm_codegen import LONG_LOOP


@blkc.jit
def exp_rows(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o, mask=o < n, other=0.0)
    tl.store(out_ptr + o, tl.exp(x) / tl.sum(tl.exp(x), axis=0), mask=o < n)


@pytest.mark.parametrize("block", [LONG_LOOP // 2, LONG_LOOP, 1024])
def test_only_long_loops_carry_the_hint(block: int) -> None:
    x = numpy.linspace(-3, 3, 4096, dtype=numpy.float32)
    out = numpy.empty_like(x)
    compiled = exp_rows.warmup(x, out, 4096, BLOCK=block, grid=(1,))
    long = block >= LONG_LOOP
    emitted = compiled.program.llvm_variants[True]
    assert ('"llvm.loop.vectorize.followup_all"' in emitted) == long
    # The vector loop's; at LONG_LOOP itself it may run once (16 lanes, interleaved 4 times)
    # and be gone.
    if block != LONG_LOOP:
        assert ("llvm.loop.unroll.disable" in compiled.asm["llvm"]) == long
    exp_rows[(4096 // block,)](x, out, 4096, BLOCK=block)
    rows = numpy.exp(x.reshape(-1, block).astype(numpy.float64))
    expected = rows / rows.sum(axis=1, keepdims=True)
    numpy.testing.assert_allclose(out, expected.ravel(), rtol=1e-5)


@blkc.jit
def softmax(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


def test_not_unrolling_keeps_the_code_small() -> None:
    x = numpy.random.default_rng(1).random((8, 1000), dtype=numpy.float32)
    out = numpy.empty_like(x)
    compiled = softmax.warmup(out, x, 1000, 1000, BLOCK=1024, grid=(8,))
    # Unrolled after vectorizing, a row softmax's loops made 2,166 lines of assembly (with
    # their copies for masks and bounds); not unrolled, about 1,060; with the loops of 1000
    # columns of 1024 split where their masks stop holding (a prefix without masks, then
    # the checked loop from the split: run-time bounds, so LLVM adds remainder loops),
    # about 1,800.
    assert len(compiled.asm["asm"].splitlines()) < 2000
    softmax[(8,)](out, x, 1000, 1000, BLOCK=1024)
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    numpy.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5)
