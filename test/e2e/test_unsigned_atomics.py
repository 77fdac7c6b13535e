"""Atomic min and max compare unsigned integers as unsigned (a signed comparison left
0xFFFFFFFF in place under atomic_min, found by Triton's own test_atomic_rmw)."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def atomic_extremum(Z, X, N: tl.constexpr, MIN: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + o)
    if MIN:
        tl.atomic_min(Z + o * 0, x)
    else:
        tl.atomic_max(Z + o * 0, x)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize(
    "dtype", [numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64, numpy.int32]
)
@pytest.mark.parametrize("minimum", [True, False])
def test_atomic_extrema_follow_the_signedness(dtype: type, minimum: bool, target: str) -> None:
    info = numpy.iinfo(dtype)
    values = numpy.array([1, 5, info.max, 3, info.min, 7, 2, 9], dtype)
    start = info.max if minimum else info.min
    if dtype is numpy.int32:
        start = -1
    z = numpy.array([start], dtype)
    atomic_extremum[(1,)](z, values, 8, minimum, target=target)
    every = numpy.append(values, numpy.array(start, dtype))
    assert z[0] == (every.min() if minimum else every.max())
