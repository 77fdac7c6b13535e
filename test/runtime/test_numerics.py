"""`blkc.runtime.numerics` computes each rule of docs/semantics.md."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from blkc import dtypes
from blkc.dtypes import DType
from blkc.runtime import numerics
from blkc.runtime.numerics import Array


def arr(values: object, d: DType) -> Array:
    return np.asarray(values, dtype=d.numpy)


def bits_of(x: Array) -> list[int]:
    return numerics.bits(x).tolist()


I32 = dtypes.int32
INT_MIN, INT_MAX = I32.int_range


# --------------------------------------------------------------------------------------
# Integers
# --------------------------------------------------------------------------------------


def test_integer_arithmetic_wraps() -> None:
    big = arr([INT_MAX, INT_MIN, INT_MIN], I32)
    assert numerics.elementwise("add", I32, big, arr([1, -1, 0], I32)).tolist() == [
        INT_MIN,
        INT_MAX,
        INT_MIN,
    ]
    assert numerics.elementwise("mul", I32, arr([65536], I32), arr([65536], I32)).tolist() == [0]
    assert numerics.elementwise("neg", I32, big).tolist() == [INT_MIN + 1, INT_MIN, INT_MIN]
    assert numerics.elementwise("abs", I32, big).tolist() == [INT_MAX, INT_MIN, INT_MIN]
    assert numerics.elementwise("neg", dtypes.uint8, arr([1], dtypes.uint8)).tolist() == [255]


def test_bool_arithmetic_wraps_modulo_two() -> None:
    t, f = (
        arr([True, True, False, False], dtypes.bool_),
        arr([True, False, True, False], dtypes.bool_),
    )
    assert numerics.elementwise("add", dtypes.bool_, t, f).tolist() == [False, True, True, False]
    assert numerics.elementwise("not", dtypes.bool_, t).tolist() == [False, False, True, True]


@pytest.mark.parametrize(
    ("d", "x", "amount", "shl", "shr"),
    [
        (I32, 1, 31, INT_MIN, 0),
        (I32, 1, 32, 0, 0),
        (I32, 1, -1, 0, 0),
        (I32, -8, 1, -16, -4),
        (I32, -8, 32, 0, -1),  # shr of a negative value by the width gives -1
        (I32, -8, -3, 0, -1),
        (dtypes.uint8, 255, 1, 254, 127),  # logical on unsigned
        (dtypes.uint8, 255, 8, 0, 0),
        (dtypes.int64, 1, 63, -(2**63), 0),
    ],
)
def test_shifts_by_out_of_range_amounts(d: DType, x: int, amount: int, shl: int, shr: int) -> None:
    assert numerics.elementwise("shl", d, arr(x, d), arr(amount, d)).item() == shl
    assert numerics.elementwise("shr", d, arr(x, d), arr(amount, d)).item() == shr


def test_unsigned_division_rounds_the_same_either_way() -> None:
    u32 = dtypes.uint32
    x, y = arr([7, 2**32 - 1, 5], u32), arr([2, 2, 0], u32)
    for rounding in ("floor", "trunc"):
        assert numerics.floordiv(u32, x, y, rounding).tolist() == [3, 2**31 - 1, 0]
        assert numerics.mod(u32, x, y, rounding).tolist() == [1, 1, 5]


def test_int_min_divided_by_minus_one_wraps() -> None:
    for rounding in ("floor", "trunc"):
        q = numerics.floordiv(I32, arr([INT_MIN], I32), arr([-1], I32), rounding)
        r = numerics.mod(I32, arr([INT_MIN], I32), arr([-1], I32), rounding)
        assert (q.tolist(), r.tolist()) == ([INT_MIN], [0])


# --------------------------------------------------------------------------------------
# Floats
# --------------------------------------------------------------------------------------


def test_float_floordiv_and_mod_by_rounding() -> None:
    f64 = dtypes.float64
    x, y = arr([-7.5, 7.5, 1.0, 1.0, -1.0], f64), arr([2.0, -2.0, 0.1, 0.0, 0.0], f64)
    floor_q = numerics.floordiv(f64, x, y, "floor").tolist()
    trunc_q = numerics.floordiv(f64, x, y, "trunc").tolist()
    assert floor_q == [-4.0, -4.0, 10.0, math.inf, -math.inf]  # floor(1 / 0.1) is 10
    assert trunc_q == [-3.0, -3.0, 10.0, math.inf, -math.inf]
    floor_r = numerics.mod(f64, x, y, "floor")
    trunc_r = numerics.mod(f64, x, y, "trunc")
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(floor_r, np.remainder(x, y))
        np.testing.assert_array_equal(trunc_r, np.fmod(x, y))
    assert floor_r[:2].tolist() == [0.5, -0.5] and trunc_r[:2].tolist() == [-1.5, 1.5]


def test_minimum_maximum_and_max_reduction_propagate_nan() -> None:
    f32 = dtypes.float32
    x, y = arr([np.nan, 1.0, 2.0], f32), arr([1.0, np.nan, 3.0], f32)
    assert np.isnan(numerics.elementwise("minimum", f32, x, y)[:2]).all()
    assert np.isnan(numerics.elementwise("maximum", f32, x, y)[:2]).all()
    assert np.isnan(numerics.reduce("max", arr([1.0, np.nan, 3.0], f32), f32, None, None, f32))


def test_bf16_ops_round_after_each_op() -> None:
    bf16 = dtypes.bfloat16
    one, tiny = arr([1.0], bf16), arr([2.0**-9], bf16)
    once = numerics.elementwise("add", bf16, one, tiny)  # 1 + 2**-9 rounds back to 1
    twice = numerics.elementwise("add", bf16, once, tiny)
    assert once.tolist() == twice.tolist() == [1.0]
    assert numerics.elementwise("add", bf16, tiny, tiny).tolist() == [2.0**-8]


def test_fma_rounds_once() -> None:
    f32 = dtypes.float32
    a = arr([1 + 2.0**-12], f32)
    fused = numerics.elementwise("fma", f32, a, a, arr([-1.0], f32))
    assert fused.tolist() == [2.0**-11 + 2.0**-24]  # a*a rounded first would give 2**-11
    assert numerics.elementwise("fma", I32, arr(INT_MAX, I32), arr(2, I32), arr(2, I32)) == 0


def test_math_functions_are_within_an_ulp_of_the_exact_value() -> None:
    x = np.linspace(-3, 3, 101)
    for d in (dtypes.float32, dtypes.float16, dtypes.bfloat16):
        for name, reference in (
            ("exp", np.exp),
            ("tanh", np.tanh),
            ("erf", np.vectorize(math.erf)),
        ):
            got = numerics.math_function(name, d, x.astype(d.numpy)).astype(np.float64)
            exact = reference(x.astype(d.numpy).astype(np.float64))
            ulp = np.abs(np.spacing(exact.astype(d.numpy).astype(np.float32))).astype(float)
            scale = 2.0 ** (24 - d.significand_bits)
            assert np.all(np.abs(got - exact) <= ulp * scale), (name, d)


# --------------------------------------------------------------------------------------
# Conversions
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [dtypes.int8, dtypes.uint16, dtypes.int64, dtypes.uint64])
def test_float_to_int_truncates_saturates_and_takes_nan_to_zero(d: DType) -> None:
    low, high = d.int_range
    x = arr([np.nan, np.inf, -np.inf, 1e30, -1e30, -1.9, 1.9], dtypes.float64)
    expected = [0, high, low, high, low, max(low, -1), 1]
    assert numerics.convert(x, dtypes.float64, d).tolist() == expected


def test_conversions_to_bf16_go_through_float32_as_ml_dtypes_does() -> None:
    bf16 = dtypes.bfloat16
    wide = arr([1 + 2.0**-8 + 2.0**-30], dtypes.float64)  # just above a bf16 tie
    assert float(wide.astype(ml_dtypes.bfloat16)[0]) == 1.0  # through float32: twice
    assert numerics.convert(wide, dtypes.float64, bf16).tolist() == [1.0]
    ints = arr([2**24 + 2**16 + 1], I32)
    expected = ints.astype(ml_dtypes.bfloat16).astype(np.float64).tolist()
    assert numerics.convert(ints, I32, bf16).astype(np.float64).tolist() == expected


def test_float32_to_small_floats_round_as_ml_dtypes_does() -> None:
    x = np.random.default_rng(0).standard_normal(10000).astype(np.float32) * 100
    x[:4] = [np.inf, -np.inf, 0.0, -0.0]
    for d in (dtypes.bfloat16, dtypes.float16, dtypes.float8_e4m3fn, dtypes.float8_e5m2):
        assert bits_of(numerics.convert(x, dtypes.float32, d)) == bits_of(x.astype(d.numpy))


def test_overflow_to_small_floats() -> None:
    big = arr([1e6, -1e6], dtypes.float32)
    assert np.isnan(numerics.convert(big, dtypes.float32, dtypes.float8_e4m3fn).astype(float)).all()
    e5m2 = numerics.convert(big, dtypes.float32, dtypes.float8_e5m2).astype(float)
    assert e5m2.tolist() == [math.inf, -math.inf]
    bf16 = numerics.convert(arr([1e39], dtypes.float64), dtypes.float64, dtypes.bfloat16)
    assert bf16.astype(float).tolist() == [math.inf]


def test_bool_conversions() -> None:
    x = arr([0.0, -0.0, 0.5, np.nan], dtypes.float32)
    assert numerics.convert(x, dtypes.float32, dtypes.bool_).tolist() == [False, False, True, True]
    flags = arr([True, False], dtypes.bool_)
    assert numerics.convert(flags, dtypes.bool_, I32).tolist() == [1, 0]
    assert numerics.convert(flags, dtypes.bool_, dtypes.bfloat16).astype(float).tolist() == [1, 0]


def test_python_values_wrap_and_round() -> None:
    assert numerics.from_python(-1, dtypes.uint32).item() == 2**32 - 1
    assert numerics.from_python([2**40 + 5, 128], dtypes.int8).tolist() == [5, -128]
    assert numerics.from_python(0.1, dtypes.bfloat16).tolist() == 0.10009765625


# --------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------


def test_sums_accumulate_in_acc_dtype() -> None:
    x = arr([100] * 10, dtypes.int8)
    assert numerics.reduce("sum", x, dtypes.int8, None, I32, I32).item() == 1000
    assert numerics.reduce("sum", x, dtypes.int8, None, dtypes.int8, dtypes.int8).item() == -24
    halves = arr([2048.0, 1.0, 1.0], dtypes.float16)
    f32_sum = numerics.reduce("sum", halves, dtypes.float16, None, dtypes.float32, dtypes.float32)
    assert f32_sum.item() == 2050.0  # in f16, 2048 + 1 rounds back to 2048
