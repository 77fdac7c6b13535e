"""Loops that stream their operands once (`llvm_codegen.streaming_loop_width`) are vectorized
at `STREAM_VECTOR_BITS` on targets with wider vectors; loops that compute more per element,
reduce, read a buffer or re-read what another loop read keep the target's width. Either
way the code computes the same."""

from __future__ import annotations

import re

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.pipeline import parse
from blkc.runtime.llvm_codegen import STREAM_VECTOR_BITS, emit_module

WIDTH = re.compile(r'!"llvm\.loop\.vectorize\.width", i32 (\d+)')


@blkc.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)


@blkc.jit
def widen(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """int8 in, float64 out: the widest element sets the width."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=m).to(tl.float64) * 0.5, mask=m)


@blkc.jit
def exp(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(out_ptr + o, tl.exp(tl.load(x_ptr + o, mask=m)), mask=m)


@blkc.jit
def mix(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Many integer ops per element (a hash): computation, not streaming."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    h = tl.load(x_ptr + o, mask=m)
    for _ in tl.static_range(4):
        h = (h ^ (h >> 7)) * 0x2C1B3C6D
        h = h + (h << 3)
    tl.store(out_ptr + o, h, mask=m)


@blkc.jit
def total(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + o, mask=o < n, other=0.0), axis=0))


@blkc.jit
def running(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + o, tl.cumsum(tl.load(x_ptr + o, mask=o < n, other=0.0), axis=0), mask=o < n)


@blkc.jit
def center(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Reads its row twice (a mean, then x - mean): the second loop finds it in cache."""
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    mean = tl.sum(tl.load(x_ptr + o, mask=m, other=0.0), axis=0) / BLOCK
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=m) - mean, mask=m)


def widths(kernel: object, *args: object, vector_bits: int = 512) -> list[int]:
    compiled = kernel.warmup(*args, BLOCK=1024, grid=(1,))  # type: ignore[attr-defined]
    loops = parse(compiled.asm["loops"])
    emitted = emit_module(loops, noalias=True, vector_bits=vector_bits).llvm_ir
    return [int(w) for w in WIDTH.findall(emitted)]


def arrays(dtype: str, out_dtype: str | None = None) -> tuple[numpy.ndarray, numpy.ndarray]:
    x = (numpy.arange(4096) % 100).astype(dtype)
    return x, numpy.zeros(4096, out_dtype or dtype)


def test_an_elementwise_loop_streams_at_the_narrower_width() -> None:
    x, out = arrays("float32")
    assert widths(add, x, x, out, 4096) == [STREAM_VECTOR_BITS // 32]
    x8, out64 = arrays("int8", "float64")
    assert widths(widen, x8, out64, 4096) == [STREAM_VECTOR_BITS // 64]


def test_targets_no_wider_than_the_stream_width_keep_their_own() -> None:
    x, out = arrays("float32")
    assert widths(add, x, x, out, 4096, vector_bits=STREAM_VECTOR_BITS) == []


@pytest.mark.parametrize(
    ("kernel", "dtype"),
    [
        (exp, "float32"),
        (mix, "uint32"),
        (total, "float32"),
        (running, "float32"),
        (center, "float32"),
    ],
)
def test_loops_that_compute_reduce_or_reread_keep_the_full_width(kernel, dtype: str) -> None:
    x, out = arrays(dtype)
    assert widths(kernel, x, out, 4096) == []


def test_streaming_loops_compute_the_same() -> None:
    rng = numpy.random.default_rng(0)
    for n in (1, 1000, 4096, 70_001):
        x, y = rng.standard_normal(n, numpy.float32), rng.standard_normal(n, numpy.float32)
        out = numpy.zeros(n, numpy.float32)
        add[(blkc.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        numpy.testing.assert_array_equal(out, x + y)
        x8 = rng.integers(-128, 128, n, dtype=numpy.int8)
        out64 = numpy.zeros(n, numpy.float64)
        widen[(blkc.cdiv(n, 1024),)](x8, out64, n, BLOCK=1024)
        numpy.testing.assert_array_equal(out64, x8.astype(numpy.float64) * 0.5)


RUNNING_STORE = """
builtin.module {
  func.func @running(%x: !blk.ptr<f32>, %out: !blk.ptr<f32>) attributes {blk.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1024 = arith.constant 1024 : index
    %zero = arith.constant 0.0 : f32
    %r = scf.for %i = %c0 to %c1024 step %c1 iter_args(%acc = %zero) -> (f32) {
      %o = arith.index_cast %i : index to i32
      %p = blk.addptr %x, %o : !blk.ptr<f32>, i32 -> !blk.ptr<f32>
      %v = blk.load %p : !blk.ptr<f32>
      %s = arith.addf %acc, %v : f32
      %q = blk.addptr %out, %o : !blk.ptr<f32>, i32 -> !blk.ptr<f32>
      blk.store %q, %s : !blk.ptr<f32>
      scf.yield %s : f32
    }
    func.return
  }
}
"""


def test_a_loop_carrying_a_value_keeps_the_full_width() -> None:
    """A running sum stored as it goes: a chain of adds, not a stream."""
    from xdsl.dialects import func, scf

    from blkc.runtime.llvm_codegen import streaming_loop_width

    module = parse(RUNNING_STORE)
    kernel = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    loop = next(op for op in kernel.walk() if isinstance(op, scf.ForOp))
    params = {arg: i for i, arg in enumerate(kernel.body.blocks[0].args)}
    x = kernel.body.blocks[0].args[0]
    assert streaming_loop_width(loop, params, {x: 1}) is None
    assert WIDTH.findall(emit_module(module, noalias=True, vector_bits=512).llvm_ir) == []


@blkc.jit
def punned(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Reads float32 memory as int64 from an offset: its loads are checked per element."""
    o = tl.arange(0, BLOCK)
    words = (x_ptr + 4).to(tl.pointer_type(tl.int64))
    tl.store(out_ptr + o, tl.load(words + o, mask=o < n), mask=o < n)


def test_a_loop_checking_its_accesses_gets_no_width_and_llvm_prints_nothing(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A loop that checks accesses carries whether one went outside, which LLVM may fail
    to vectorize; given a width, LLVM then printed "remark: ... loop not vectorized" to
    the process's stderr."""
    from blkc.runtime.jit import compile_ir

    x, out = numpy.zeros(512, numpy.float32), numpy.zeros(256, numpy.int64)
    compiled = punned.warmup(x, out, 254, BLOCK=256, grid=(1,))
    loops = parse(compiled.asm["loops"])
    emitted = emit_module(loops, noalias=True, vector_bits=512).llvm_ir
    capfd.readouterr()
    compile_ir(emitted)
    assert capfd.readouterr().err == ""
    out[:] = 1
    punned[(1,)](x, out, 254, BLOCK=256)
    numpy.testing.assert_array_equal(out[:254], 0)
