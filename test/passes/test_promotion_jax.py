"""The `jax` policy: its lattice, weak literals, 0-d values, division, sums and refusals.

Every cell of the reference tables is checked by test_promotion_tables.py; these tests pin
the rules and the messages.
"""

from __future__ import annotations

import itertools

import pytest

import blkc.promotion
from blkc import dtypes
from blkc.dialects.traits import Computation
from blkc.passes.promotion import get_policy
from blkc.passes.promotion.base import Operand, PromotionError
from blkc.passes.promotion.jax import LATTICE, X64_DEFAULTS, least_upper_bound

jax = get_policy("jax")


def result(*operands: str | bool | int | float | complex) -> str:
    return blkc.promotion.result_type(*operands, policy="jax")


def test_the_lattice_has_every_dtype_and_only_known_nodes() -> None:
    assert set(dtypes.ALL) <= set(LATTICE)
    assert {up for ups in LATTICE.values() for up in ups} <= set(LATTICE)
    assert set(LATTICE) - set(dtypes.ALL) == set(X64_DEFAULTS)


@pytest.mark.parametrize(
    ("lhs", "rhs", "joined"),
    [
        ("int8", "uint8", "int16"),
        ("uint32", "int32", "int64"),
        ("uint64", "int8", "float64"),  # their join is weak f*, materialized with x64
        ("bool", "uint16", "uint16"),
        ("int64", "float16", "float16"),  # a float always wins over an integer
        ("bfloat16", "float16", "float32"),
        ("float64", "complex64", "complex128"),
        ("float8_e4m3fn", "int64", "float8_e4m3fn"),
    ],
)
def test_arrays_join_in_the_lattice(lhs: str, rhs: str, joined: str) -> None:
    assert result(lhs, rhs) == joined


def test_several_operands_join_at_once() -> None:
    # uint64 and int8 meet at weak f*, which float16 then decides; pairwise it is float64.
    assert result("uint64", "int8", "float16") == "float16"
    assert result(result("uint64", "int8"), "float16") == "float64"


@pytest.mark.parametrize(
    ("operands", "promoted"),
    [
        (("int8", 1000), "int8"),  # a weak int takes the array's dtype and wraps
        (("uint8", -1), "uint8"),
        (("uint64", -(2**63)), "uint64"),
        (("bool", 1), "int64"),  # bool < i*: the weak int materializes as int64
        (("bool", True), "bool"),  # a Python bool is a plain bool
        (("int16", 4.0), "float64"),
        (("float16", 1e300), "float16"),
        (("bfloat16", 1j), "complex64"),
        (("int8", 1j), "complex128"),
        (("float8_e5m2", 2.5), "float8_e5m2"),
        ((1,), "int64"),
        ((2.5,), "float64"),
        ((1j,), "complex128"),
        ((1, 2.5), "float64"),
    ],
)
def test_weak_literals(operands: tuple[str | int | float | complex, ...], promoted: str) -> None:
    assert result(*operands) == promoted


def test_zero_dim_values_take_part_like_arrays() -> None:
    operands = [Operand.typed("int8"), Operand.typed("int64", rank=0)]
    assert jax.result_type(operands) == dtypes.int64


def test_literal_outside_int64_is_refused() -> None:
    with pytest.raises(PromotionError) as info:
        result("uint64", 2**63)
    assert str(info.value) == (
        "literal 9223372036854775808 is outside int64, so JAX cannot convert it; use a typed "
        "constant (policy 'jax', rule 'literal-range')"
    )
    assert info.value.rule == "literal-range"


def test_float8_with_another_float_is_refused() -> None:
    with pytest.raises(PromotionError) as info:
        result("float8_e4m3fn", "float16")
    assert str(info.value).startswith("float8_e4m3fn and float16 have no common dtype")
    assert str(info.value).endswith("(policy 'jax', rule 'float8')")
    with pytest.raises(PromotionError, match=r"float8_e5m2 and literal 1j .*rule 'float8'"):
        result("float8_e5m2", 1j)


def test_join_is_commutative_and_idempotent() -> None:
    for a, b in itertools.product(dtypes.ALL, repeat=2):
        forward = least_upper_bound({a, b})
        assert forward == least_upper_bound({b, a})
    for d in dtypes.ALL:
        assert jax.join(d, d).dtype == d
        assert jax.join(d, d).rule == "same"


def test_literal_order_does_not_matter() -> None:
    for d, value in itertools.product(dtypes.ALL, (True, 3, 2.5)):
        forward = jax.decide(Computation.ARITH, [Operand.typed(d), Operand.literal(value)])
        backward = jax.decide(Computation.ARITH, [Operand.literal(value), Operand.typed(d)])
        assert forward == backward


@pytest.mark.parametrize(
    ("lhs", "rhs", "quotient"),
    [
        ("bool", "bool", "float32"),
        ("int32", "uint16", "float32"),
        ("int8", "uint32", "float64"),  # they promote to int64
        ("uint64", "uint8", "float64"),
        ("float16", "int8", "float16"),
    ],
)
def test_true_division(lhs: str, rhs: str, quotient: str) -> None:
    decision = jax.decide(Computation.TRUEDIV, [Operand.typed(lhs), Operand.typed(rhs)])
    assert decision.result.name == quotient


def test_floor_division_floors_and_makes_bools_numeric() -> None:
    decision = jax.decide(Computation.FLOORDIV, [Operand.typed("bool"), Operand.typed("bool")])
    assert (decision.result, decision.rule, decision.rounding) == (dtypes.int32, "numeric", "floor")
    decision = jax.decide(Computation.MOD, [Operand.typed("int8"), Operand.literal(-3)])
    assert (decision.result, decision.rounding) == (dtypes.int8, "floor")


def test_floor_division_of_complex_numbers_is_refused() -> None:
    with pytest.raises(PromotionError) as info:
        jax.decide(Computation.MOD, [Operand.typed("float32"), Operand.literal(1j)])
    assert str(info.value) == (
        "float32 and literal 1j promote to complex64: mod does not support complex numbers "
        "(floor is undefined for them) (policy 'jax', rule 'complex-rounding')"
    )


def test_sums_and_float_functions() -> None:
    sums = {d: jax.sum_dtype(dtypes.dtype(d)).name for d in ("bool", "int8", "uint16", "bfloat16")}
    assert sums == {"bool": "int64", "int8": "int64", "uint16": "uint64", "bfloat16": "bfloat16"}
    assert jax.math_dtype(dtypes.int32).dtype == dtypes.float32
    assert jax.math_dtype(dtypes.uint64).dtype == dtypes.float64
    assert jax.math_dtype(dtypes.float16).dtype == dtypes.float16
