"""Values the CPU backend computes, against docs/semantics.md."""

import ml_dtypes
import numpy
import pytest

import blkc

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
    op: str, t: str, a: numpy.ndarray, b: numpy.ndarray, attrs: str = ""
) -> numpy.ndarray:
    kernel = blkc.compile(BINARY.format(op=op, t=t, n=len(a), attrs=attrs))
    out = numpy.zeros_like(a)
    kernel[(1,)](a, b, out)
    return out


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


def test_float_minimum_propagates_nan() -> None:
    a = numpy.array([1.0, numpy.nan, -0.0, 3.0], numpy.float32)
    b = numpy.array([numpy.nan, 2.0, 0.0, -1.0], numpy.float32)
    out = run_binary("minimum", "f32", a, b)
    numpy.testing.assert_array_equal(out, numpy.minimum(a, b))


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
