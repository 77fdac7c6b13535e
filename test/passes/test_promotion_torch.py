"""The `torch` policy: its promotion table, the category rule, wrapped numbers and refusals.

Every cell of the reference tables is checked by test_promotion_tables.py; these tests pin
the rules and the messages. Blocks are torch's dimensioned tensors, runtime scalars
(rank 0) its 0-d tensors and weak literals its wrapped numbers.
"""

from __future__ import annotations

import itertools

import pytest

import blkc.promotion
from blkc import dtypes
from blkc.dialects.traits import Computation
from blkc.passes.promotion import get_policy
from blkc.passes.promotion.base import Operand, PromotionError

torch = get_policy("torch")


def result(*operands: str | bool | int | float | complex) -> str:
    return blkc.promotion.result_type(*operands, policy="torch")


def block(name: str) -> Operand:
    return Operand.typed(name)


def zero_dim(name: str) -> Operand:
    return Operand.typed(name, rank=0)


@pytest.mark.parametrize(
    ("lhs", "rhs", "promoted"),
    [
        ("int32", "int64", "int64"),  # spec 004's test cases
        ("int32", "float32", "float32"),
        ("float64", "complex64", "complex128"),
        ("bool", "int32", "int32"),
        ("uint8", "int8", "int16"),
        ("uint8", "int32", "int32"),
        ("bfloat16", "float16", "float32"),
        ("int64", "float16", "float16"),
        ("float16", "complex64", "complex64"),
        ("uint16", "float16", "float16"),  # uint16/32/64 promote with floats
        ("uint16", "uint16", "uint16"),  # torch's CPU build lacks the kernel; blkc computes
        ("float8_e4m3fn", "float8_e4m3fn", "float8_e4m3fn"),
    ],
)
def test_the_promotion_table(lhs: str, rhs: str, promoted: str) -> None:
    assert result(lhs, rhs) == promoted


def test_category_rule_example_from_spec_004() -> None:
    # dimResult int32, zeroResult float32, wrappedResult float32 (the default dtype: the
    # spec's "float64" for the Python float is wrong, torch.json has int8 + 2.5 -> float32).
    operands = [block("int32"), zero_dim("float32"), Operand.literal(4.0)]
    promotion = torch.promote(operands)
    assert (promotion.dtype, promotion.rule) == (dtypes.float32, "category")


@pytest.mark.parametrize(
    ("dim", "zero", "promoted"),
    [
        ("int8", "int64", "int8"),  # same category: the 0-d value does not take part
        ("float16", "float64", "float16"),
        ("int8", "float64", "float64"),  # higher category: it does
        ("float32", "complex128", "complex64"),  # complex keeps the block's precision
        ("int32", "complex128", "complex128"),
        ("int8", "uint16", "int8"),  # no unsigned refusal: uint16 does not take part
        ("uint16", "complex64", "complex64"),
        ("bool", "uint8", "uint8"),  # a bool block promotes with any 0-d value
    ],
)
def test_zero_dim_values_count_by_category(dim: str, zero: str, promoted: str) -> None:
    for operands in ([block(dim), zero_dim(zero)], [zero_dim(zero), block(dim)]):
        assert torch.result_type(operands).name == promoted


def test_zero_dim_values_alone_promote_fully() -> None:
    assert torch.result_type([zero_dim("int8"), zero_dim("int64")]) == dtypes.int64
    assert torch.result_type([zero_dim("int8"), Operand.literal(2.5)]) == dtypes.float32


@pytest.mark.parametrize(
    ("operands", "promoted"),
    [
        (("int8", 1000), "int8"),  # a wrapped int of the same category wraps
        (("uint8", -1), "uint8"),
        (("int8", 2**63), "int8"),  # beyond int64 torch wraps it as a uint64
        (("int32", 2.5), "float32"),  # wrapped floats take the default dtype
        (("bool", 1), "int64"),
        (("bool", 2.5), "float32"),
        (("bfloat16", 1j), "complex64"),
        (("int64", 1j), "complex64"),
        ((1,), "int64"),
        ((2**63,), "uint64"),
        ((2.5,), "float32"),
        ((1j,), "complex64"),
        ((True,), "bool"),
    ],
)
def test_wrapped_numbers(operands: tuple[str | int | float | complex, ...], promoted: str) -> None:
    assert result(*operands) == promoted


def test_literal_beyond_uint64_is_refused() -> None:
    with pytest.raises(PromotionError) as info:
        result("int8", 2**64)
    assert str(info.value) == (
        "literal 18446744073709551616 fits neither int64 nor uint64, so torch cannot wrap it "
        "(policy 'torch', rule 'literal-range')"
    )


def test_unsigned_promotion_is_refused() -> None:
    with pytest.raises(PromotionError) as info:
        result("uint16", "int32")
    assert str(info.value) == (
        "uint16 and int32: torch promotes uint16, uint32 and uint64 only with floats (uint16 "
        "with int32); cast one explicitly (policy 'torch', rule 'unsigned-promotion')"
    )
    # a literal past int64 is a uint64, which a bool block refuses
    with pytest.raises(PromotionError, match=r"^bool and literal 9223372036854775808: .*"):
        result("bool", 2**63)
    with pytest.raises(PromotionError, match="rule 'unsigned-promotion'"):
        torch.result_type([zero_dim("uint32"), zero_dim("complex64")])


def test_float8_promotion_is_refused() -> None:
    with pytest.raises(PromotionError) as info:
        result("float8_e4m3fn", "float32")
    assert str(info.value) == (
        "float8_e4m3fn and float32: torch does not promote float8 dtypes (float8_e4m3fn with "
        "float32); cast explicitly (policy 'torch', rule 'float8')"
    )
    with pytest.raises(PromotionError, match="no complex dtype for float8_e5m2.*rule 'float8'"):
        result("float8_e5m2", 1j)


def test_complex32_is_refused() -> None:
    with pytest.raises(PromotionError) as info:
        result("float16", 1j)
    assert str(info.value) == (
        "float16 and literal 1j: torch gives complex32 (complex float16), which is not a blkc "
        "dtype; cast the float16 operand to float32 first (policy 'torch', rule 'complex32')"
    )
    with pytest.raises(PromotionError, match="rule 'complex32'"):
        torch.result_type([block("float16"), zero_dim("complex128")])


def test_promotion_is_commutative_with_identity() -> None:
    def outcome(a: Operand, b: Operand) -> str:
        try:
            return torch.result_type([a, b]).name
        except PromotionError as err:
            return err.rule

    for a, b in itertools.product(dtypes.ALL, repeat=2):
        for ranks in ((1, 1), (1, 0), (0, 0)):
            lhs, rhs = Operand.typed(a, rank=ranks[0]), Operand.typed(b, rank=ranks[1])
            assert outcome(lhs, rhs) == outcome(rhs, lhs), (lhs, rhs)
    for d in dtypes.ALL:
        assert torch.join(d, d).dtype == d


@pytest.mark.parametrize(
    ("computation", "lhs", "rhs", "computed"),
    [
        (Computation.TRUEDIV, "int64", "int64", "float32"),
        (Computation.TRUEDIV, "uint16", "uint16", "float32"),
        (Computation.TRUEDIV, "float16", "int8", "float16"),
        (Computation.FLOORDIV, "bool", "bool", "bool"),  # no CPU kernel; blkc computes
        (Computation.MOD, "uint8", "int8", "int16"),
    ],
)
def test_division(computation: Computation, lhs: str, rhs: str, computed: str) -> None:
    decision = torch.decide(computation, [block(lhs), block(rhs)])
    assert decision.result.name == computed
    assert decision.rounding == (None if computation is Computation.TRUEDIV else "floor")


def test_floor_division_of_complex_numbers_is_refused() -> None:
    with pytest.raises(PromotionError) as info:
        torch.decide(Computation.FLOORDIV, [block("complex64"), block("int8")])
    assert str(info.value) == (
        "complex64 and int8 promote to complex64: floordiv does not support complex numbers "
        "(floor is undefined for them) (policy 'torch', rule 'complex-rounding')"
    )


def test_sums_and_float_functions() -> None:
    assert torch.sum_dtype(dtypes.uint8) == dtypes.int64
    assert torch.sum_dtype(dtypes.bool_) == dtypes.int64
    assert torch.sum_dtype(dtypes.float16) == dtypes.float16
    assert torch.math_dtype(dtypes.int64).dtype == dtypes.float32
    assert torch.math_dtype(dtypes.bfloat16).dtype == dtypes.bfloat16
    assert torch.wraps_literals
