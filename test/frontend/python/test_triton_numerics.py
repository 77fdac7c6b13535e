"""Where Triton's values are not NumPy's: NaN in maxima and minima, right shifts of signed
values promoted to unsigned, integer `tl.dot`. The expected values are Triton 3.9's
(measured with its interpreter, whose `maxnum`/`maximum` and shifts are the compiled
code's); the NumPy policy keeps NumPy's."""

from __future__ import annotations

from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import interpreter

TARGETS = ["cpu", "cpu-simt", "interpreter"]

nan, inf = numpy.nan, numpy.inf


def launch(kernel: blkc.JITFunction, target: str, *args: Any, **meta: Any) -> None:
    """Run `kernel` on one program, compiled for `target` or by the reference interpreter
    (on the strict IR of the kernel's loose IR)."""
    if target != "interpreter":
        kernel[(1,)](*args, target=target, **meta)
        return
    loose = kernel.warmup(*args, **meta).asm["loose"]
    module = blkc.run_pipeline(blkc.parse(loose, "kernel.mlir"), "to-strict{warn=false}")
    interpreter.run(module, None, (1,), list(args))


# -- NaN in maxima and minima ---------------------------------------------------------------


@blkc.jit
def extrema(x_ptr, y_ptr, out_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 8)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    if OP == "maximum":
        r = tl.maximum(x, y)
    elif OP == "minimum":
        r = tl.minimum(x, y)
    elif OP == "maximum ALL":
        r = tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)
    elif OP == "minimum NONE":
        r = tl.minimum(x, y, propagate_nan=tl.PropagateNan.NONE)
    elif OP == "clamp":
        r = tl.clamp(x, -1.0, 1.5)
    elif OP == "clamp ALL":
        r = tl.clamp(x, -1.0, 1.5, propagate_nan=tl.PropagateNan.ALL)
    else:
        r = max(x, y)  # Python's max of kernel values: tl.maximum
    tl.store(out_ptr + offs, r)


X = numpy.array([nan, 1, 2, nan, -inf, nan, -inf, nan], numpy.float32)
Y = numpy.array([1, nan, 3, nan, 5, -2, 7, 2], numpy.float32)

TRITON_EXTREMA = {
    "maximum": [1, 1, 3, nan, 5, -2, 7, 2],
    "minimum": [1, 1, 2, nan, -inf, -2, -inf, 2],
    "maximum ALL": [nan, nan, 3, nan, 5, nan, 7, nan],
    "minimum NONE": [1, 1, 2, nan, -inf, -2, -inf, 2],
    "clamp": [-1, 1, 1.5, -1, -1, -1, -1, -1],  # fmin(fmax(x, -1), 1.5): NaN gives -1
    "clamp ALL": [nan, 1, 1.5, nan, -1, nan, -1, nan],
    "max": [1, 1, 3, nan, 5, -2, 7, 2],
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", list(TRITON_EXTREMA))
def test_maximum_and_minimum_skip_nan_unless_told(op: str, target: str) -> None:
    out = numpy.zeros(8, numpy.float32)
    launch(extrema, target, X, Y, out, OP=op)
    numpy.testing.assert_array_equal(out, numpy.array(TRITON_EXTREMA[op], numpy.float32))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("op", "expected"),
    [
        ("maximum", numpy.maximum(X, Y)),  # NumPy's maximum propagates NaN
        ("clamp", numpy.clip(X, -1.0, 1.5)),
        ("minimum NONE", numpy.fmin(X, Y)),  # what the kernel asks for, under any policy
    ],
)
def test_numpy_policy_propagates_nan(op: str, expected: numpy.ndarray, target: str) -> None:
    out = numpy.zeros(8, numpy.float32)
    launch(extrema, target, X, Y, out, OP=op, policy="numpy")
    numpy.testing.assert_array_equal(out, expected)


@blkc.jit
def reductions(x_ptr, values_ptr, index_ptr, whole_ptr):
    rows = tl.arange(0, 4)
    x = tl.load(x_ptr + rows[:, None] * 8 + tl.arange(0, 8)[None, :])
    high, where_high = tl.max(x, axis=1, return_indices=True)
    tl.store(values_ptr + rows, high)
    tl.store(values_ptr + 4 + rows, tl.min(x, axis=1))
    tl.store(index_ptr + rows, where_high)
    tl.store(index_ptr + 4 + rows, tl.argmin(x, axis=1))
    tl.store(whole_ptr, tl.max(x))
    tl.store(whole_ptr + 1, tl.min(x.to(tl.float16)).to(tl.float32))  # widened to float32
    tl.store(index_ptr + 8, tl.argmax(tl.reshape(x, [32]), axis=0))


ROWS = numpy.array(
    [
        [nan, 3, -1, 7, nan, 7, 0, 2],
        [nan] * 8,
        [-inf, nan, -inf, 5, -2, nan, 9, -9],
        [4, 1, 6, 1, 6, 0, 2, 3],
    ],
    numpy.float32,
)


@pytest.mark.parametrize("target", TARGETS)
def test_reductions_skip_nan(target: str) -> None:
    # Triton's tl.max and tl.min combine with tl.maximum/tl.minimum (PropagateNan.NONE), and
    # its argmax compares with `>`: NaN is the extreme only of a row of NaN (index 0).
    values = numpy.zeros(8, numpy.float32)
    index = numpy.zeros(9, numpy.int32)
    whole = numpy.zeros(2, numpy.float32)
    launch(reductions, target, ROWS, values, index, whole)
    expected = [7, nan, 9, 6, -1, nan, -inf, 0]
    numpy.testing.assert_array_equal(values, numpy.array(expected, numpy.float32))
    numpy.testing.assert_array_equal(index, [3, 0, 6, 2, 2, 0, 0, 5, 22])
    numpy.testing.assert_array_equal(whole, [9, -inf])


@pytest.mark.parametrize("target", TARGETS)
def test_reductions_under_the_numpy_policy_propagate_nan(target: str) -> None:
    values = numpy.zeros(8, numpy.float32)
    index = numpy.zeros(9, numpy.int32)
    whole = numpy.zeros(2, numpy.float32)
    launch(reductions, target, ROWS, values, index, whole, policy="numpy")
    expected = numpy.concatenate([ROWS.max(axis=1), ROWS.min(axis=1)])
    numpy.testing.assert_array_equal(values, expected)
    argmax, argmin = numpy.argmax(ROWS, axis=1), numpy.argmin(ROWS, axis=1)
    numpy.testing.assert_array_equal(index, [*argmax, *argmin, numpy.argmax(ROWS)])
    numpy.testing.assert_array_equal(whole, [nan, nan])


# -- Right shifts --------------------------------------------------------------------------------


@blkc.jit
def shifts(a_ptr, b_ptr, out_ptr, OP: tl.constexpr, DTYPE: tl.constexpr):
    offs = tl.arange(0, 4)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    if OP == "a >> b":
        r = a >> b
    elif OP == "a << b":
        r = a << b
    elif OP == "-8 >> b":
        r = -8 >> b
    else:
        r = 200 >> b
    tl.static_assert(r.dtype == DTYPE, "the shift's dtype")
    tl.store(out_ptr + offs, r)


SIGNED = [-128, -100, -1, 64]
UNSIGNED = [200, 129, 255, 3]
AMOUNTS = [1, 2, 3, 1]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        # The shifted operand's own signedness decides, before promotion: arithmetic.
        ("a >> b", ("int8", SIGNED), ("uint8", AMOUNTS), ("uint8", [192, 231, 255, 32])),
        ("a >> b", ("int8", SIGNED), ("uint16", AMOUNTS), ("uint16", [65472, 65511, 65535, 32])),
        (
            "a >> b",
            ("int32", SIGNED),
            ("uint32", AMOUNTS),
            ("uint32", [4294967232, 4294967271, 4294967295, 32]),
        ),
        # An unsigned one shifts logically, whatever the amount's signedness.
        ("a >> b", ("uint8", UNSIGNED), ("int8", AMOUNTS), ("uint8", [100, 32, 31, 1])),
        (
            "a >> b",
            ("uint32", [2**31 + 4, 129, 2**32 - 1, 3]),
            ("int32", AMOUNTS),
            ("uint32", [1073741826, 32, 536870911, 1]),
        ),
        # << is the same either way; a literal shifted by a block follows the block.
        ("a << b", ("int8", SIGNED), ("uint8", AMOUNTS), ("uint8", [0, 112, 248, 128])),
        ("-8 >> b", ("int8", SIGNED), ("int8", AMOUNTS), ("int8", [-4, -2, -1, -4])),
        ("200 >> b", ("int8", SIGNED), ("uint8", AMOUNTS), ("uint8", [100, 50, 25, 100])),
    ],
)
def test_right_shift_follows_the_shifted_operands_signedness(
    op: str,
    a: tuple[str, list[int]],
    b: tuple[str, list[int]],
    expected: tuple[str, list[int]],
    target: str,
) -> None:
    dtype, values = expected
    out = numpy.zeros(4, dtype)
    args = numpy.array(a[1], a[0]), numpy.array(b[1], b[0]), out
    launch(shifts, target, *args, OP=op, DTYPE=getattr(tl, dtype))
    numpy.testing.assert_array_equal(out, values)


@pytest.mark.parametrize("target", TARGETS)
def test_numpy_policy_shifts_in_the_common_signed_dtype(target: str) -> None:
    out = numpy.zeros(4, numpy.int16)
    a, b = numpy.array(SIGNED, numpy.int8), numpy.array(AMOUNTS, numpy.uint8)
    launch(shifts, target, a, b, out, OP="a >> b", DTYPE=tl.int16, policy="numpy")
    numpy.testing.assert_array_equal(out, numpy.right_shift(a, b))  # [-64, -25, -1, 32]


# -- Integer dot ---------------------------------------------------------------------------------


@blkc.jit
def int_dot(a_ptr, out_ptr, OUT: tl.constexpr):
    i = tl.arange(0, 16)
    a = tl.load(a_ptr + i[:, None] * 16 + i[None, :])
    c = tl.dot(a, a, out_dtype=OUT)
    tl.static_assert(c.dtype == tl.int32, "integer dot gives int32 whatever out_dtype says")
    tl.store(out_ptr + i[:, None] * 16 + i[None, :], c)


@pytest.mark.parametrize("out_dtype", [tl.int8, tl.float16, tl.int32, tl.int64])
def test_integer_dot_accumulates_and_returns_int32(out_dtype: tl.dtype) -> None:
    a = numpy.full((16, 16), 3, numpy.int8)
    out = numpy.zeros((16, 16), numpy.int32)
    int_dot[(1,)](a, out, OUT=out_dtype)
    numpy.testing.assert_array_equal(out, numpy.full((16, 16), 144))  # not 144 - 256
