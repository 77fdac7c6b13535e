"""Long innermost loops are vectorized but not unrolled (`llvm_codegen.LONG_LOOP`): the
hint reaches the loops the vectorizer makes (a follow-up), short loops still unroll for the
SLP vectorizer, and the code computes the same."""

from __future__ import annotations

import re

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
    # about 1,800 (1,600 with the masked-off tail). With the redos for NaN and zeros kept
    # scalar and the checked copies not interleaved: about 1,270 (AVX-512) or 1,340 (AVX2),
    # 1,420 on Zen 5; bounds counted from each array's pointer (views with negative strides
    # begin before it) add an i32 add to each checked access: 1,490 on Zen 5.
    assert len(compiled.asm["asm"].splitlines()) < 1550
    softmax[(8,)](out, x, 1000, 1000, BLOCK=1024)
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    numpy.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def _back_edges_marked(llvm_ir: str, hint: str) -> int:
    """How many loops' back edges in `llvm_ir` name loop metadata that holds a hint
    matching the regular expression `hint`."""
    nodes = dict(re.findall(r"^(![0-9]+) = (?:distinct )?(.*)$", llvm_ir, flags=re.MULTILINE))
    marked = set()
    for name, text in nodes.items():
        parts = re.findall(r"![0-9]+", text)
        if parts and parts[0] == name:  # a loop's metadata names itself first
            if any(re.search(hint, nodes.get(part, "")) for part in parts[1:]):
                marked.add(name)
    return sum(1 for m in re.findall(r"!llvm\.loop (![0-9]+)", llvm_ir) if m in marked)


def test_loops_that_rarely_run_are_cheap_to_compile() -> None:
    """A maximum's redo for NaN or zeros (`blk.unlikely`) stays a scalar loop, and the
    checked copy of a versioned nest is vectorized without interleaving: each vector loop
    interleaved four times costs LLVM about 4 ms, which code that rarely runs never
    repays. Both still compute what they computed."""
    rows = numpy.random.default_rng(2).random((6, 1000), dtype=numpy.float32)
    rows[1, 17] = numpy.nan  # NaN: the maximum's redo finds it
    rows[2] = 0.0  # a zero maximum: redone for its sign
    rows[3] = -0.0
    rows[4, 999] = numpy.inf
    out = numpy.empty_like(rows)
    compiled = softmax.warmup(out, rows, 1000, 1000, BLOCK=1024, grid=(6,))
    emitted = compiled.program.llvm_variants[True]
    # the redo of the maximum for zeros, and for NaN
    assert _back_edges_marked(emitted, r'"llvm.loop.vectorize.enable", i1 (0|false)') == 2
    # the checked copies of the maximum's loop, of the sum's and of the store's
    assert _back_edges_marked(emitted, r'"llvm.loop.interleave.count", i32 1\b') == 3
    softmax[(6,)](out, rows, 1000, 1000, BLOCK=1024)
    with numpy.errstate(invalid="ignore"):
        e = numpy.exp(rows - rows.max(axis=1, keepdims=True))
        expected = e / e.sum(axis=1, keepdims=True)
    numpy.testing.assert_allclose(out, expected, rtol=1e-5)
    assert numpy.isnan(out[1]).all() and numpy.isnan(out[4, :999]).all()
