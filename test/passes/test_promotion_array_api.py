"""The `array_api` policy's rules, one by one (every cell of its tables is checked in
test_promotion_tables.py)."""

from __future__ import annotations

import itertools

import pytest

from blkc import dtypes
from blkc.dialects.traits import Computation
from blkc.passes.promotion import get_policy, result_type
from blkc.passes.promotion.array_api import DTYPES, least_upper_bound
from blkc.passes.promotion.base import Operand, Promotion, PromotionError

POLICY = get_policy("array_api")
PAIRS = list(itertools.product(DTYPES, repeat=2))
NO_PROMOTION = "the Array API standard does not promote between"


def refusal(*operands: object, computation: Computation = Computation.ARITH) -> PromotionError:
    converted = [
        Operand.typed(o) if isinstance(o, str) else Operand.literal(o)  # type: ignore[arg-type]
        for o in operands
    ]
    with pytest.raises(PromotionError) as raised:
        POLICY.decide(computation, converted)
    assert raised.value.policy == "array_api"
    return raised.value


def test_join_is_commutative_idempotent_and_associative() -> None:
    for a, b in PAIRS:
        assert least_upper_bound(a, b) == least_upper_bound(b, a), (a, b)
    for d in DTYPES:
        assert POLICY.join(d, d) == Promotion(d, "same")
    for a, b, c in itertools.product(DTYPES, repeat=3):
        ab, bc = least_upper_bound(a, b), least_upper_bound(b, c)
        if ab is not None and bc is not None:
            assert least_upper_bound(ab, c) == least_upper_bound(a, bc), (a, b, c)


@pytest.mark.parametrize(
    ("lhs", "rhs", "want", "rule"),
    [
        ("int8", "int32", "int32", "width"),
        ("uint8", "int8", "int16", "mixed-sign"),
        ("uint32", "int64", "int64", "mixed-sign"),
        ("uint16", "uint64", "uint64", "width"),
        ("float32", "complex64", "complex64", "complex"),
        ("float64", "complex64", "complex128", "complex"),
    ],
)
def test_required_promotions(lhs: str, rhs: str, want: str, rule: str) -> None:
    assert POLICY.join(dtypes.dtype(lhs), dtypes.dtype(rhs)) == Promotion(dtypes.dtype(want), rule)


@pytest.mark.parametrize(
    ("lhs", "rhs", "rule", "message"),
    [
        ("int8", "float32", "mixed-kinds", f"int8 and float32: {NO_PROMOTION} integer and float"),
        ("bool", "uint8", "mixed-kinds", f"bool and uint8: {NO_PROMOTION} bool and integer"),
        ("int64", "uint64", "signed-uint64", "int64 and uint64: the Array API standard defines no"),
        ("int8", "float16", "unknown-dtype", "float16 is not a dtype of this policy"),
        ("bool", "bool", "numeric", "bool and bool promote to bool: arith operations need numeric"),
    ],
)
def test_undefined_promotions_are_refused(lhs: str, rhs: str, rule: str, message: str) -> None:
    error = refusal(lhs, rhs)
    assert error.rule == rule
    assert str(error).startswith(message)
    assert str(error).endswith(f"(policy 'array_api', rule '{rule}')")


def test_bool_is_fine_outside_arithmetic() -> None:
    operands = [Operand.typed("bool"), Operand.typed("bool")]
    for computation in (Computation.COMPARE, Computation.BITWISE, Computation.SELECT):
        assert POLICY.decide(computation, operands).result == dtypes.bool_


def test_division() -> None:
    assert refusal("int8", "int8", computation=Computation.TRUEDIV).rule == "true-division"
    assert refusal("complex64", "float32", computation=Computation.FLOORDIV).rule == "real-numeric"
    assert refusal("complex64", "complex64", computation=Computation.MOD).rule == "real-numeric"
    floored = POLICY.decide(Computation.FLOORDIV, [Operand.typed("int8"), Operand.literal(-2)])
    assert (floored.compute, floored.rounding) == (dtypes.int8, "floor")
    divided = POLICY.decide(Computation.TRUEDIV, [Operand.typed("float32"), Operand.literal(2)])
    assert divided.result == dtypes.float32


@pytest.mark.parametrize(
    ("typed", "literal", "want"),
    [
        ("int8", 127, "int8"),
        ("uint64", 2**64 - 1, "uint64"),
        ("float32", 2**64, "float32"),
        ("float32", 2.5, "float32"),
        ("complex64", 1e300, "complex64"),
        ("float32", 1j, "complex64"),
        ("float64", 1j, "complex128"),
    ],
)
def test_python_scalars(typed: str, literal: complex, want: str) -> None:
    assert result_type(typed, literal, policy="array_api") == want
    assert result_type(literal, typed, policy="array-api") == want


@pytest.mark.parametrize(
    ("typed", "literal", "rule", "message"),
    [
        ("int8", 128, "literal-range", "literal 128 is out of range for int8 [-128, 127]"),
        ("uint8", -1, "literal-range", "negative literal -1 with unsigned uint8"),
        ("int16", 2.5, "literal-kind", "literal 2.5 with int16: Python float scalars promote"),
        ("int16", 1j, "literal-kind", "literal 1j with int16: Python complex scalars promote"),
        ("float32", True, "literal-kind", "Python bool scalars promote only with bool arrays"),
        ("bool", 1, "literal-kind", "int scalars promote only with integer and floating-point"),
    ],
)
def test_python_scalars_refused(typed: str, literal: complex, rule: str, message: str) -> None:
    error = refusal(typed, literal)
    assert error.rule == rule
    assert message in str(error)


def test_lone_literals_take_the_default_dtypes() -> None:
    assert [result_type(v, policy="array_api") for v in (True, 1, 2.5, 1j)] == [
        "bool",
        "int64",
        "float64",
        "complex128",
    ]
    with pytest.raises(PromotionError, match="literal 9223372036854775808 is out of range"):
        result_type(2**63, policy="array_api")


def test_reductions_and_float_functions() -> None:
    assert POLICY.sum_dtype(dtypes.int8) == dtypes.int64
    assert POLICY.sum_dtype(dtypes.uint16) == dtypes.uint64
    assert POLICY.sum_dtype(dtypes.float32) == dtypes.float32
    with pytest.raises(PromotionError, match="sum of bool"):
        POLICY.sum_dtype(dtypes.bool_)
    assert refusal("int32", computation=Computation.FLOAT_MATH).rule == "float-function"
    exp = POLICY.decide(Computation.FLOAT_MATH, [Operand.typed("complex64")])
    assert exp.result == dtypes.complex64
