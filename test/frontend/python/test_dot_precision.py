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


@blkc.jit
def square(A, C, PRECISION: tl.constexpr, TF32: tl.constexpr):
    i = tl.arange(0, 16)
    a = tl.load(A + i[:, None] * 16 + i[None, :])
    c = tl.dot(a, a, input_precision=PRECISION, allow_tf32=TF32)
    tl.store(C + i[:, None] * 16 + i[None, :], c)


@pytest.mark.parametrize(
    ("precision", "tf32"), [("tf32", None), ("TF32x3", None), ("ieee", None), (None, True)]
)
def test_every_input_precision_computes_in_float32(
    precision: str | None, tf32: bool | None
) -> None:
    # 1 + 2**-20 has bits that tf32 (10 of mantissa) would drop: they stay.
    a = numpy.full((16, 16), 1 + 2**-20, numpy.float32)
    c = numpy.zeros((16, 16), numpy.float32)
    square[(1,)](a, c, precision, tf32)
    numpy.testing.assert_array_equal(c, (a.astype(numpy.float64) @ a).astype(numpy.float32))


@pytest.mark.parametrize(
    ("precision", "tf32", "message"),
    [
        ("fast", None, "dot's input_precision must be one of 'tf32', 'tf32x3', 'ieee'"),
        ("tf32", False, "give dot either input_precision or allow_tf32 .deprecated., not both"),
    ],
)
def test_bad_input_precisions_are_located_errors(
    precision: str, tf32: bool | None, message: str
) -> None:
    a = numpy.zeros((16, 16), numpy.float32)
    with pytest.raises(blkc.BlkcError, match=message) as caught:
        square[(1,)](a, a.copy(), precision, tf32)
    assert "test_dot_precision.py:" in str(caught.value)
