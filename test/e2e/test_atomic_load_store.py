"""`tl.atomic_load` and `tl.atomic_store` (Triton 3.9): atomic reads and writes of every
integer and float element type, masked, as acquire and release."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy
import pytest
from test_atomic_poll import TARGETS

import blkc
import blkc.language as tl


@blkc.jit
def copy_atomically(src, dst, n, N: tl.constexpr):
    o = tl.arange(0, N)
    v = tl.atomic_load(src + o, mask=o < n)
    tl.atomic_store(dst + o, v, mask=o < n, sem="release")
    first = tl.atomic_load(src, sem="relaxed")  # a scalar
    tl.atomic_store(dst + N, first)


DTYPES = [
    numpy.float32, numpy.float64, numpy.float16, ml_dtypes.bfloat16,
    numpy.int8, numpy.uint16, numpy.int32, numpy.int64, numpy.bool_,
]  # fmt: skip


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_loads_and_stores_copy_the_bits(
    target: str, dtype: type, launch_on: Callable[..., None]
) -> None:
    rng = numpy.random.default_rng(1)
    if numpy.dtype(dtype).kind == "f" or dtype is ml_dtypes.bfloat16:
        src = rng.standard_normal(8).astype(dtype)
        src[1], src[2] = numpy.nan, -0.0  # bits survive: NaN and the sign of zero
    else:
        src = rng.integers(0, 2 if dtype is numpy.bool_ else 100, 8).astype(dtype)
    dst = numpy.zeros(9, dtype)
    sentinel = numpy.array([1], dtype)[0]
    dst[5:8] = sentinel
    launch_on(copy_atomically, target, (1,), src, dst, 5, N=8)
    as_bits = numpy.uint8 if dtype is numpy.bool_ else f"u{numpy.dtype(dtype).itemsize}"
    assert dst[:5].view(as_bits).tolist() == src[:5].view(as_bits).tolist()
    assert dst[5:8].tolist() == [sentinel] * 3  # masked off: not written
    assert dst[8:].view(as_bits).tolist() == src[:1].view(as_bits).tolist()


@blkc.jit
def hand_over(data, flag, out):
    """Program 0 publishes a value, then raises the flag with a release; program 1
    spins on the flag with acquires (bounded), then reads the value."""
    if tl.program_id(0) == 0:
        tl.store(data, 42)
        tl.atomic_store(flag, 1)
    else:
        spins = 0
        while (tl.atomic_load(flag) == 0) & (spins < 100_000_000):
            spins += 1
        tl.store(out, tl.load(data))


def test_a_flag_hands_a_value_between_programs() -> None:
    for _ in range(20):
        data, flag, out = (numpy.zeros(1, numpy.int32) for _ in range(3))
        hand_over[(2,)](data, flag, out)
        assert out[0] == 42 and flag[0] == 1


@blkc.jit
def wrong_sem(p):
    tl.atomic_store(p, 1, sem="acquire")


@blkc.jit
def block_value_scalar_pointer(p):
    tl.atomic_store(p, tl.arange(0, 4))


@pytest.mark.parametrize(
    ("kernel", "words"),
    [
        (wrong_sem, "atomic_store only supports release and relaxed semantics"),
        (block_value_scalar_pointer, "Value argument cannot be block type"),
    ],
)
def test_bad_uses_are_located_errors(kernel: blkc.JITFunction, words: str) -> None:
    with pytest.raises(blkc.BlkcError, match=words) as caught:
        kernel[(1,)](numpy.zeros(4, numpy.int32))
    assert "test_atomic_load_store.py:" in str(caught.value)
