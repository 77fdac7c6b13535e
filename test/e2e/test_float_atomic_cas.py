"""`tl.atomic_cas` on floats compares bit patterns, as the hardware does: a NaN matches the
same NaN, -0.0 does not match 0.0 (float compare-and-swap used to emit an LLVM cmpxchg on
floats, which LLVM refuses: found by Triton's own test_atomic_cas)."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def compare_and_swap(X, Cmp, Val, Old, N: tl.constexpr):
    o = tl.arange(0, N)
    old = tl.atomic_cas(X + o, tl.load(Cmp + o), tl.load(Val + o))
    tl.store(Old + o, old)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_float_compare_and_swap_compares_bits(dtype: type, target: str) -> None:
    nan = numpy.array(numpy.nan, dtype)
    x = numpy.array([1.5, 2.0, -0.0, 0.0, nan, 3.0, numpy.inf, 5.0], dtype)
    cmp = numpy.array([1.5, 2.5, 0.0, 0.0, nan, -3.0, numpy.inf, 5.0], dtype)
    val = numpy.arange(10, 18).astype(dtype)
    start, old = x.copy(), numpy.zeros_like(x)
    compare_and_swap[(1,)](x, cmp, val, old, 8, target=target)
    same_bits = start.view(f"u{start.itemsize}") == cmp.view(f"u{cmp.itemsize}")
    assert same_bits.tolist() == [True, False, False, True, True, False, True, True]
    assert old.tobytes() == start.tobytes()
    assert x.tobytes() == numpy.where(same_bits, val, start).tobytes()


def test_bfloat16_compare_and_swap() -> None:
    import ml_dtypes

    bf16 = ml_dtypes.bfloat16
    x = numpy.array([1.5, -2.0, 0.0, 7.0], bf16)
    cmp = numpy.array([1.5, 2.0, -0.0, 7.0], bf16)
    val = numpy.array([9.0, 9.0, 9.0, 9.0], bf16)
    old = numpy.zeros_like(x)
    compare_and_swap[(1,)](x, cmp, val, old, 4)
    assert x.astype(numpy.float32).tolist() == [9.0, -2.0, 0.0, 9.0]
    assert old.astype(numpy.float32).tolist() == [1.5, -2.0, 0.0, 7.0]
