"""Float max and min reductions on the CPU target: the vector loop ignores the sign of
zeros, and the reduction is redone exactly where its result is zero or NaN, so what a
kernel gets is still exact (docs/semantics.md): -0.0 below +0.0 (under `propagate`;
`num` leaves the sign of a zero result unspecified), NaN propagated or skipped as the op
says. Each row holds 1000 elements, a whole number of neither 16 nor 8
lanes, so the vector loop's tail runs too."""

import numpy
import pytest

import blkc

COLUMNS = 1000

ROW_REDUCTION = """
module {{
  func.func @k(%x: !blk.ptr<{t}>, %out: !blk.ptr<{t}>) attributes {{blk.kernel}} {{
    %row = blk.program_id 0 : i32
    %n = blk.literal {n} : !blk.weak<int>
    %start = blk.mul %row, %n : i32, !blk.weak<int> -> i32
    %cols = blk.arange 0, {n} : tensor<{n}xi32>
    %offsets = blk.add %start, %cols : i32, tensor<{n}xi32> -> tensor<{n}xi32>
    %p = blk.addptr %x, %offsets : !blk.ptr<{t}>, tensor<{n}xi32> -> tensor<{n}x!blk.ptr<{t}>>
    %v = blk.load %p : tensor<{n}x!blk.ptr<{t}>>
    %r = blk.reduce {kind}, %v nan = {nan} : tensor<{n}x{t}> -> {t}
    %po = blk.addptr %out, %row : !blk.ptr<{t}>, i32 -> !blk.ptr<{t}>
    blk.store %po, %r : !blk.ptr<{t}>
    func.return
  }}
}}
"""


def rows(dtype: type) -> numpy.ndarray:
    """Rows whose extrema are zeros of either sign, NaN in several places, infinities,
    and ordinary numbers."""
    rng = numpy.random.default_rng(7)
    negative = -rng.random(COLUMNS) - 1
    cases = [
        numpy.full(COLUMNS, -0.0),
        numpy.full(COLUMNS, 0.0),
        numpy.where(numpy.arange(COLUMNS) == 997, 0.0, -0.0),  # +0 in the tail only
        numpy.where(numpy.arange(COLUMNS) == 3, -0.0, 0.0),  # -0 in the first vector only
        numpy.concatenate([negative[:500], [-0.0], negative[501:]]),
        numpy.concatenate([-negative[:500], [0.0, -0.0], -negative[502:]]),
        rng.standard_normal(COLUMNS),
        numpy.full(COLUMNS, numpy.nan),
        numpy.full(COLUMNS, numpy.inf),
        numpy.full(COLUMNS, -numpy.inf),
    ]
    for where in (0, 511, 999):  # NaN in the first vector, the middle, the tail
        row = rng.standard_normal(COLUMNS)
        row[where] = numpy.nan
        cases.append(row)
    with_zero = numpy.where(rng.random(COLUMNS) < 0.5, -0.0, 0.0)
    with_zero[100] = numpy.nan  # skipping the NaN leaves zeros of both signs
    cases.append(with_zero)
    return numpy.array(cases, dtype)


def expected(x: numpy.ndarray, kind: str, nan: str) -> numpy.ndarray:
    """Each row's maximum or minimum, -0.0 ordered below +0.0."""
    out = []
    for row in x:
        numbers = row[~numpy.isnan(row)]
        if len(numbers) == 0 or (nan == "propagate" and len(numbers) < len(row)):
            out.append(numpy.nan)
            continue
        value = numbers.max() if kind == "max" else numbers.min()
        if value == 0:
            zeros = numbers[numbers == 0]
            negative = numpy.signbit(zeros)
            value = -0.0 if (negative.all() if kind == "max" else negative.any()) else 0.0
        out.append(value)
    return numpy.array(out, x.dtype)


@pytest.mark.parametrize(
    ("kind", "nan", "t", "dtype"),
    [
        ("max", "propagate", "f32", numpy.float32),
        ("max", "num", "f32", numpy.float32),
        ("min", "propagate", "f32", numpy.float32),
        ("min", "num", "f32", numpy.float32),
        ("max", "num", "f64", numpy.float64),
        ("min", "propagate", "f64", numpy.float64),
    ],
)
def test_row_extrema_are_exact(kind: str, nan: str, t: str, dtype: type) -> None:
    x = rows(dtype)
    out = numpy.full(len(x), 42, dtype)
    text = ROW_REDUCTION.format(kind=kind, nan=nan, t=t, n=COLUMNS)
    blkc.compile(text)[(len(x),)](x.ravel(), out)
    want = expected(x, kind, nan)
    numpy.testing.assert_array_equal(out, want)
    if nan == "propagate":  # under `num` the sign of a zero result is unspecified
        numpy.testing.assert_array_equal(numpy.signbit(out), numpy.signbit(want))


def test_extremum_loop_ignores_zero_signs_and_is_redone_exactly() -> None:
    """The lowering: a `nsz` maximum in the loop, and the exact one behind the check."""
    text = ROW_REDUCTION.format(kind="max", nan="propagate", t="f32", n=64)
    loops = blkc.compile(text).stages["loops"]
    assert "arith.maximumf" in loops and "fastmath<nsz>" in loops
    assert loops.count("arith.maximumf") == 2
    assert "arith.cmpf oeq" in loops
