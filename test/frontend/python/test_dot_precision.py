"""`tl.dot` with a narrow float result (out_dtype=float16, or a float16 accumulator)
accumulates in float32 and rounds once, as Triton's CPU reference: rounding each step to
float16 lost most digits of sums that cancel (Triton's test_dot3d float16 cases)."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def matmul(A, B, C, Acc, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, WITH_ACC: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    a = tl.load(A + m[:, None] * K + k[None, :])
    b = tl.load(B + k[:, None] * N + n[None, :])
    if WITH_ACC:
        c = tl.dot(a, b, tl.load(Acc + m[:, None] * N + n[None, :]))
    else:
        c = tl.dot(a, b, out_dtype=tl.float16)
    tl.store(C + m[:, None] * N + n[None, :], c)


@pytest.mark.parametrize("with_acc", [False, True])
@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
def test_a_float16_dot_rounds_once(with_acc: bool, target: str) -> None:
    rng = numpy.random.default_rng(0)
    a = rng.standard_normal((32, 64)).astype(numpy.float16)
    b = rng.standard_normal((64, 32)).astype(numpy.float16)
    acc = rng.standard_normal((32, 32)).astype(numpy.float16)
    c = numpy.zeros((32, 32), numpy.float16)
    matmul[(1,)](a, b, c, acc, 32, 32, 64, with_acc, target=target)
    exact = a.astype(numpy.float64) @ b.astype(numpy.float64)
    if with_acc:
        exact += acc
    rounded_once = exact.astype(numpy.float16).astype(numpy.float64)
    # float32 accumulation, one rounding: within an ulp of float16 of the exact result
    numpy.testing.assert_allclose(c.astype(numpy.float64), rounded_once, rtol=2**-10, atol=2**-14)
