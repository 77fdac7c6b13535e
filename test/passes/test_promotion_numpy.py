"""The `numpy` policy's rules, one by one (every cell of its tables is checked in
test_promotion_tables.py)."""

from __future__ import annotations

import itertools
import re

import numpy
import pytest
from promotion_cases import load

from blkc import dtypes
from blkc.dialects.traits import Computation
from blkc.passes.promotion import get_policy, result_type
from blkc.passes.promotion.base import Operand, Promotion, PromotionError
from blkc.passes.promotion.numpy import can_cast

POLICY = get_policy("numpy")
PAIRS = list(itertools.product(dtypes.ALL, repeat=2))


def test_safe_cast_is_numpys_with_ml_dtypes() -> None:
    wrong = [
        f"{a} -> {b}"
        for a, b in PAIRS
        if can_cast(a, b) != numpy.can_cast(a.numpy, b.numpy, casting="safe")
    ]
    assert not wrong


def test_join_is_commutative_and_idempotent() -> None:
    for a, b in PAIRS:
        assert POLICY.join(a, b).dtype == POLICY.join(b, a).dtype, (a, b)
    for d in dtypes.ALL:
        assert POLICY.join(d, d) == Promotion(d, "same")


@pytest.mark.parametrize(
    ("lhs", "rhs", "want", "rule"),
    [
        ("int8", "uint8", "int16", "common-type"),
        ("int64", "uint64", "float64", "common-type"),
        ("int16", "float16", "float32", "common-type"),
        ("float16", "bfloat16", "float32", "common-type"),
        ("float8_e4m3fn", "float8_e5m2", "float32", "common-type"),
        ("int8", "float8_e4m3fn", "float8_e4m3fn", "safe-cast"),
        ("int32", "complex64", "complex128", "common-type"),
        ("uint8", "int16", "int16", "safe-cast"),
    ],
)
def test_join_is_the_first_common_safe_cast(lhs: str, rhs: str, want: str, rule: str) -> None:
    promotion = POLICY.join(dtypes.dtype(lhs), dtypes.dtype(rhs))
    assert (promotion.dtype.name, promotion.rule) == (want, rule)


@pytest.mark.parametrize(
    ("typed", "literal", "want"),
    [
        ("uint8", 255, "uint8"),  # same kind: the array's dtype
        ("float16", 1e300, "float16"),  # floats are not range-checked (NumPy gives inf)
        ("float16", 2**64, "float16"),
        ("bool", 1, "int64"),  # higher kind: NumPy's default of the literal's kind
        ("int8", 2.5, "float64"),
        ("uint64", 1j, "complex128"),
        ("float16", 1j, "complex64"),  # complex beside a float keeps its precision
        ("float64", 1j, "complex128"),
        ("bfloat16", 2.5, "float32"),  # ml_dtypes: the literal stands for float16
        ("bfloat16", 1, "bfloat16"),
        ("float8_e5m2", 1j, "complex64"),
    ],
)
def test_weak_literals_follow_nep50(typed: str, literal: complex, want: str) -> None:
    assert result_type(typed, literal, policy="numpy") == want
    assert result_type(literal, typed, policy="numpy") == want


@pytest.mark.parametrize(
    ("typed", "literal", "message"),
    [
        ("int8", 128, "literal 128 is out of range for int8 [-128, 127]"),
        ("uint8", -1, "negative literal -1 with unsigned uint8"),
        ("bool", 2**63, "literal 9223372036854775808 is out of range for int64"),
        ("uint64", 2**64, "literal 18446744073709551616 is out of range for uint64"),
    ],
)
def test_integer_literals_out_of_range_are_refused(typed: str, literal: int, message: str) -> None:
    with pytest.raises(PromotionError, match=re.escape(message)) as raised:
        result_type(typed, literal, policy="numpy")
    assert (raised.value.policy, raised.value.rule) == ("numpy", "literal-range")
    assert "(policy 'numpy', rule 'literal-range')" in str(raised.value)


def test_lone_literals_take_numpys_defaults() -> None:
    assert [result_type(v, policy="numpy") for v in (True, 1, 2**63, 2.5, 1j)] == [
        "bool",
        "int64",
        "uint64",
        "float64",
        "complex128",
    ]
    assert result_type(1, 2.5, policy="numpy") == "float64"
    with pytest.raises(PromotionError, match="literal 18446744073709551616 fits no NumPy"):
        result_type(2**64, policy="numpy")


def test_division_and_flooring() -> None:
    int8 = Operand.typed("int8")
    boolean = Operand.typed("bool")
    assert POLICY.decide(Computation.TRUEDIV, [int8, int8]).result == dtypes.float64
    assert POLICY.decide(Computation.TRUEDIV, [boolean, boolean]).rule == "true-division"
    floored = POLICY.decide(Computation.FLOORDIV, [boolean, boolean])
    assert (floored.compute, floored.rounding, floored.rule) == (dtypes.int8, "floor", "bool-loop")
    assert POLICY.decide(Computation.MOD, [int8, int8]).rounding == "floor"


def test_complex_flooring_is_refused_naming_the_operands() -> None:
    operands = [Operand.typed("complex64"), Operand.typed("int8")]
    with pytest.raises(PromotionError) as raised:
        POLICY.decide(Computation.MOD, operands)
    assert str(raised.value) == (
        "complex64 and int8 promote to complex64: NumPy has no % for complex numbers "
        "(policy 'numpy', rule 'complex-floor')"
    )


@pytest.mark.parametrize("d", dtypes.ALL, ids=str)
def test_sum_and_float_functions_match_numpy(d: dtypes.DType) -> None:
    table = load("numpy")
    assert POLICY.sum_dtype(d).name == table["sum"][d.name]
    assert POLICY.math_dtype(d).dtype.name == table["unary"]["exp"][d.name]


def test_result_type_by_policy_name() -> None:
    assert result_type("int16", 4.0, policy="numpy") == "float64"
    assert result_type("int8", "uint8", policy="numpy") == "int16"
    # Operands join left to right, as a + b + c computes (numpy.result_type gives float16).
    assert result_type("int8", "uint8", "float16", policy="numpy") == "float32"
    assert result_type("uint32", "int8", 3, policy="numpy") == "int64"
