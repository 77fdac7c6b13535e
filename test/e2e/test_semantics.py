"""Values the CPU backend computes, against docs/semantics.md."""

import ml_dtypes
import numpy
import pytest

import blkc
from blkc.runtime import interpreter

TARGETS = ["cpu", "cpu-simt", "interpreter"]
"""Where the NaN and shift semantics are checked: both CPU code generators and the
reference interpreter (the PTX for the same IR is checked in test/gpu)."""

BINARY = """
module {{
  func.func @k(%a: !blk.ptr<{t}>, %b: !blk.ptr<{t}>, %o: !blk.ptr<{t}>) attributes {{blk.kernel}} {{
    %r = blk.arange 0, {n} : tensor<{n}xi32>
    %pa = blk.addptr %a, %r : !blk.ptr<{t}>, tensor<{n}xi32> -> tensor<{n}x!blk.ptr<{t}>>
    %pb = blk.addptr %b, %r : !blk.ptr<{t}>, tensor<{n}xi32> -> tensor<{n}x!blk.ptr<{t}>>
    %x = blk.load %pa : tensor<{n}x!blk.ptr<{t}>>
    %y = blk.load %pb : tensor<{n}x!blk.ptr<{t}>>
    %z = blk.{op} %x, %y {attrs}: tensor<{n}x{t}>
    %po = blk.addptr %o, %r : !blk.ptr<{t}>, tensor<{n}xi32> -> tensor<{n}x!blk.ptr<{t}>>
    blk.store %po, %z : tensor<{n}x!blk.ptr<{t}>>
    func.return
  }}
}}
"""


def run_binary(
    op: str, t: str, a: numpy.ndarray, b: numpy.ndarray, attrs: str = "", target: str = "cpu"
) -> numpy.ndarray:
    out = numpy.zeros_like(a)
    run_on(target, BINARY.format(op=op, t=t, n=len(a), attrs=attrs), a, b, out)
    return out


def run_on(target: str, text: str, *args: object) -> None:
    """Run the one kernel of `text` over a grid of one program, compiled for `target` or
    interpreted (`interpreter`)."""
    if target == "interpreter":
        module = blkc.run_pipeline(blkc.parse(text, "kernel.mlir"), "to-strict{warn=false}")
        interpreter.run(module, None, (1,), list(args))
    else:
        blkc.compile(text, target=target)[(1,)](*args)


A = numpy.array([-7, 7, -7, 7, 5, -5, 0, -(2**31), -(2**31), 9], numpy.int32)
B = numpy.array([2, -2, -2, 2, 0, 0, 0, -1, 1, 3], numpy.int32)


def test_floor_division_and_modulo_follow_python() -> None:
    q = run_binary("floordiv", "i32", A, B, "rounding = floor ")
    r = run_binary("mod", "i32", A, B, "rounding = floor ")
    safe = B != 0
    with numpy.errstate(over="ignore"):
        expected_q = numpy.where(safe, A // numpy.where(safe, B, 1), 0)
    expected_q[7] = -(2**31)  # INT_MIN // -1 wraps
    numpy.testing.assert_array_equal(q, expected_q)
    numpy.testing.assert_array_equal(r[safe], (A % numpy.where(safe, B, 1))[safe])
    numpy.testing.assert_array_equal(r[~safe], A[~safe])  # x % 0 == x


def test_truncating_division_follows_c_and_never_traps() -> None:
    q = run_binary("floordiv", "i32", A, B, "rounding = trunc ")
    r = run_binary("mod", "i32", A, B, "rounding = trunc ")
    numpy.testing.assert_array_equal(q, [-3, -3, 3, 3, 0, 0, 0, -(2**31), -(2**31), 3])
    numpy.testing.assert_array_equal(r, [-1, 1, -1, 1, 5, -5, 0, 0, 0, 0])


def test_unsigned_division_by_zero() -> None:
    a = numpy.array([7, 255, 0, 200], numpy.uint8)
    b = numpy.array([0, 2, 0, 7], numpy.uint8)
    numpy.testing.assert_array_equal(
        run_binary("floordiv", "ui8", a, b, "rounding = floor "), [0, 127, 0, 28]
    )
    numpy.testing.assert_array_equal(
        run_binary("mod", "ui8", a, b, "rounding = trunc "), [7, 1, 0, 4]
    )


def test_shifts_out_of_range() -> None:
    a = numpy.array([1, -8, -8, 1, 3], numpy.int32)
    b = numpy.array([31, 1, 40, 32, -1], numpy.int32)
    numpy.testing.assert_array_equal(run_binary("shl", "i32", a, b), [-(2**31), -16, 0, 0, 0])
    numpy.testing.assert_array_equal(run_binary("shr", "i32", a, b), [0, -4, -1, 0, 0])


@pytest.mark.parametrize("target", TARGETS)
def test_arithmetic_and_logical_right_shifts_follow_fill(target: str) -> None:
    # fill = sign shifts an unsigned value's top bit in (Triton's int8 >> uint8), fill =
    # zero shifts zeros into a signed one; by the width or more: all sign bits, or 0.
    u = numpy.array([128, 200, 255, 64, 200, 200], numpy.uint8)
    n = numpy.array([1, 2, 3, 1, 8, 9], numpy.uint8)
    arithmetic = run_binary("shr", "ui8", u, n, "fill = sign ", target)
    numpy.testing.assert_array_equal(arithmetic, [192, 242, 255, 32, 255, 255])
    s = u.view(numpy.int8)
    logical = run_binary("shr", "i8", s, n.view(numpy.int8), "fill = zero ", target)
    numpy.testing.assert_array_equal(logical, [64, 50, 31, 32, 0, 0])


NAN_A = numpy.array([1.0, numpy.nan, -0.0, 3.0, numpy.nan, -numpy.inf], numpy.float32)
NAN_B = numpy.array([numpy.nan, 2.0, 0.0, -1.0, numpy.nan, numpy.nan], numpy.float32)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("op", "nan", "expected"),
    [
        # propagate: NaN wins (NumPy's minimum, IEEE 754-2019 minimum, LLVM's minimum)
        ("minimum", "propagate", [numpy.nan, numpy.nan, -0.0, -1.0, numpy.nan, numpy.nan]),
        ("maximum", "propagate", [numpy.nan, numpy.nan, 0.0, 3.0, numpy.nan, numpy.nan]),
        # num: the other operand wins (C's fmin, LLVM's minnum, Triton's default)
        ("minimum", "num", [1.0, 2.0, -0.0, -1.0, numpy.nan, -numpy.inf]),
        ("maximum", "num", [1.0, 2.0, 0.0, 3.0, numpy.nan, -numpy.inf]),
    ],
)
def test_float_minimum_and_maximum_follow_nan(
    op: str, nan: str, expected: list[float], target: str
) -> None:
    out = run_binary(op, "f32", NAN_A, NAN_B, f"nan = {nan} ", target)
    numpy.testing.assert_array_equal(out, numpy.array(expected, numpy.float32))


REDUCTIONS = """
module {{
  func.func @k(%x: !blk.ptr<f32>, %rows: !blk.ptr<f32>, %index: !blk.ptr<i32>,
               %all: !blk.ptr<f32>, %flat: !blk.ptr<i32>) attributes {{blk.kernel}} {{
    %i = blk.arange 0, 32 : tensor<32xi32>
    %px = blk.addptr %x, %i : !blk.ptr<f32>, tensor<32xi32> -> tensor<32x!blk.ptr<f32>>
    %v = blk.load %px : tensor<32x!blk.ptr<f32>>
    %m = blk.reshape %v : tensor<32xf32> -> tensor<4x8xf32>
    %r = blk.reduce {kind}, %m axis = 1 nan = {nan} : tensor<4x8xf32> -> tensor<4xf32>
    %a = blk.reduce arg{kind}, %m axis = 1 nan = {nan} : tensor<4x8xf32> -> tensor<4xi32>
    %w = blk.reduce {kind}, %v nan = {nan} : tensor<32xf32> -> f32
    %f = blk.reduce arg{kind}, %v nan = {nan} : tensor<32xf32> -> i32
    %j = blk.arange 0, 4 : tensor<4xi32>
    %pr = blk.addptr %rows, %j : !blk.ptr<f32>, tensor<4xi32> -> tensor<4x!blk.ptr<f32>>
    %pi = blk.addptr %index, %j : !blk.ptr<i32>, tensor<4xi32> -> tensor<4x!blk.ptr<i32>>
    blk.store %pr, %r : tensor<4x!blk.ptr<f32>>
    blk.store %pi, %a : tensor<4x!blk.ptr<i32>>
    blk.store %all, %w : !blk.ptr<f32>
    blk.store %flat, %f : !blk.ptr<i32>
    func.return
  }}
}}
"""

NAN_ROWS = numpy.array(
    [
        [numpy.nan, 3, -1, 7, numpy.nan, 7, 0, 2],  # NaN first, a tied extreme (3, 7, 7)
        [numpy.nan] * 8,  # only NaN
        [-numpy.inf, numpy.nan, -numpy.inf, 5, -2, numpy.nan, 9, -9],
        [4, 1, 6, 1, 6, 0, 2, 3],  # no NaN
    ],
    numpy.float32,
)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("nan", ["propagate", "num"])
def test_float_reductions_follow_nan(kind: str, nan: str, target: str) -> None:
    rows, index = numpy.zeros(4, numpy.float32), numpy.zeros(4, numpy.int32)
    whole, flat = numpy.zeros(1, numpy.float32), numpy.zeros(1, numpy.int32)
    text = REDUCTIONS.format(kind=kind, nan=nan)
    run_on(target, text, NAN_ROWS.ravel(), rows, index, whole, flat)
    if nan == "propagate":  # NaN is the extreme, as in NumPy: the first NaN's index
        expected_rows = [numpy.nan, numpy.nan, numpy.nan, 6.0 if kind == "max" else 0.0]
        expected_index = [0, 0, 1, 2 if kind == "max" else 5]
        expected_whole, expected_flat = numpy.nan, 0
    else:  # NaN is skipped, as in Triton: NaN (at index 0) only where every element is
        expected_rows = [7.0, numpy.nan, 9.0, 6.0] if kind == "max" else [-1.0, numpy.nan]
        expected_rows += [] if kind == "max" else [-numpy.inf, 0.0]
        expected_index = [3, 0, 6, 2] if kind == "max" else [2, 0, 0, 5]
        expected_whole = 9.0 if kind == "max" else -numpy.inf
        expected_flat = 22 if kind == "max" else 16
    numpy.testing.assert_array_equal(rows, numpy.array(expected_rows, numpy.float32))
    numpy.testing.assert_array_equal(index, expected_index)
    numpy.testing.assert_array_equal(whole, [expected_whole])
    numpy.testing.assert_array_equal(flat, [expected_flat])


@pytest.mark.parametrize("op", ["add", "mul", "sub", "truediv"])
def test_bfloat16_rounds_after_each_op_like_ml_dtypes(op: str) -> None:
    rng = numpy.random.default_rng(1)
    a = (rng.standard_normal(64) * 300).astype(ml_dtypes.bfloat16)
    b = (rng.standard_normal(64) * 3).astype(ml_dtypes.bfloat16)
    a[:3] = [numpy.nan, numpy.inf, -numpy.inf]
    out = run_binary(op, "bf16", a, b)
    python_op = {
        "add": numpy.add,
        "mul": numpy.multiply,
        "sub": numpy.subtract,
        "truediv": numpy.divide,
    }[op]
    expected = python_op(a.astype(numpy.float32), b.astype(numpy.float32)).astype(
        ml_dtypes.bfloat16
    )
    numpy.testing.assert_array_equal(out.view(numpy.uint16), expected.view(numpy.uint16))


def test_float_to_int_casts_saturate() -> None:
    kernel = blkc.compile(
        """
        module {
          func.func @k(%a: !blk.ptr<f32>, %o: !blk.ptr<i8>) attributes {blk.kernel} {
            %r = blk.arange 0, 6 : tensor<6xi32>
            %pa = blk.addptr %a, %r : !blk.ptr<f32>, tensor<6xi32> -> tensor<6x!blk.ptr<f32>>
            %x = blk.load %pa : tensor<6x!blk.ptr<f32>>
            %y = blk.cast %x : tensor<6xf32> -> tensor<6xi8>
            %po = blk.addptr %o, %r : !blk.ptr<i8>, tensor<6xi32> -> tensor<6x!blk.ptr<i8>>
            blk.store %po, %y : tensor<6x!blk.ptr<i8>>
            func.return
          }
        }
        """
    )
    a = numpy.array([1.9, -1.9, 1000.0, -1000.0, numpy.nan, numpy.inf], numpy.float32)
    out = numpy.zeros(6, numpy.int8)
    kernel[(1,)](a, out)
    numpy.testing.assert_array_equal(out, [1, -1, 127, -128, 0, 127])


def test_failed_assert_raises_and_the_process_survives() -> None:
    kernel = blkc.compile(
        """
        module {
          func.func @k(%n: i32) attributes {blk.kernel} {
            %r = blk.arange 0, 8 : tensor<8xi32>
            %ok = blk.cmp lt, %r, %n : tensor<8xi32>, i32 -> tensor<8xi1>
            blk.assert %ok, "index out of bounds" : tensor<8xi1>
            func.return
          }
        }
        """,
        filename="assert.mlir",
    )
    kernel[(4,)](8)
    with pytest.raises(AssertionError, match="assert.mlir:6:13: index out of bounds"):
        kernel[(4,)](5)
