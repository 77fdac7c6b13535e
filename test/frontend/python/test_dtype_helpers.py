"""The `tl.dtype` helpers Triton's tests and tools rely on: lookup by name, the name groups,
the predicates and the widths, with Triton's meaning (the expected values are Triton 3's)."""

from __future__ import annotations

import pytest

import blkc.language as tl
from blkc.language import core

# name: (primitive_bitwidth, itemsize, kind, int_bitwidth or fp (mantissa, bias))
TRITON_FACTS = {
    "int1": (1, 0, "BOOLEAN", 1),
    "int8": (8, 1, "INTEGRAL", 8),
    "int16": (16, 2, "INTEGRAL", 16),
    "int32": (32, 4, "INTEGRAL", 32),
    "int64": (64, 8, "INTEGRAL", 64),
    "uint8": (8, 1, "INTEGRAL", 8),
    "uint16": (16, 2, "INTEGRAL", 16),
    "uint32": (32, 4, "INTEGRAL", 32),
    "uint64": (64, 8, "INTEGRAL", 64),
    "fp8e4nv": (8, 1, "FLOATING", (3, 7)),
    "fp8e5": (8, 1, "FLOATING", (2, 15)),
    "fp8e4b15": (8, 1, "FLOATING", (3, 15)),
    "fp8e4b8": (8, 1, "FLOATING", (3, 8)),
    "fp8e5b16": (8, 1, "FLOATING", (2, 16)),
    "fp16": (16, 2, "FLOATING", (10, 15)),
    "bf16": (16, 2, "FLOATING", (7, 127)),
    "fp32": (32, 4, "FLOATING", (23, 127)),
    "fp64": (64, 8, "FLOATING", (52, 1023)),
}


def test_a_dtype_is_found_by_its_triton_name() -> None:
    assert core.dtype("fp32") == tl.float32
    assert tl.dtype("bf16") is not tl.bfloat16 and tl.dtype("bf16") == tl.bfloat16
    assert hash(tl.dtype("uint8")) == hash(tl.uint8)
    assert tl.dtype(tl.constexpr("fp8e4nv")) == tl.float8e4nv
    assert tl.dtype("int1").blkc_dtype is tl.int1.blkc_dtype
    with pytest.raises(ValueError, match="unknown dtype 'float32'"):
        tl.dtype("float32")


def test_the_name_groups_cover_every_dtype_and_name_it_by_getattr() -> None:
    groups = tl.dtype.SINT_TYPES + tl.dtype.UINT_TYPES + tl.dtype.FP_TYPES
    assert sorted(groups) == sorted(TRITON_FACTS)
    assert set(tl.dtype.STANDARD_FP_TYPES) == {"fp16", "bf16", "fp32", "fp64"}
    assert tl.dtype.OTHER_TYPES == []
    assert all(tl.dtype.is_dtype(name) for name in groups)
    assert not tl.dtype.is_dtype("float32")
    for attribute in ("int8", "uint64", "float16", "bfloat16", "float8e4nv", "float8e5"):
        assert str(getattr(tl, attribute)) in groups


@pytest.mark.parametrize("name", list(TRITON_FACTS))
def test_widths_and_kinds_are_tritons(name: str) -> None:
    bitwidth, itemsize, kind, detail = TRITON_FACTS[name]
    d = tl.dtype(name)
    assert (d.primitive_bitwidth, d.itemsize, d.kind().name) == (bitwidth, itemsize, kind)
    if d.is_int():
        assert d.int_bitwidth == detail
        signed = name in tl.dtype.SINT_TYPES
        assert d.int_signedness.name == ("SIGNED" if signed else "UNSIGNED")
        assert not hasattr(d, "fp_mantissa_width")
    else:
        assert (d.fp_mantissa_width, d.exponent_bias) == detail
        assert not hasattr(d, "int_bitwidth")
    assert getattr(d, f"is_{name}")()
    assert d.scalar is d and not d.is_block() and not d.is_ptr()


def test_predicates_follow_the_name_groups() -> None:
    assert tl.int1.is_int() and tl.int1.is_int_unsigned() and tl.int1.is_bool()
    assert tl.int8.is_int_signed() and not tl.int8.is_int_unsigned()
    assert tl.uint32.is_int_unsigned() and not tl.uint32.is_floating()
    assert tl.float8e5.is_floating() and not tl.float8e5.is_standard_floating()
    assert tl.bfloat16.is_standard_floating() and tl.bfloat16.is_bf16()
    assert not tl.float8e4nv.is_fp8e4b15() and tl.float8e4nv.is_fp8()
    pointer = tl.pointer_type(tl.float32)
    assert pointer.is_ptr() and not pointer.is_floating() and not pointer.is_int()


def test_int_ranges() -> None:
    assert (tl.int8.get_int_min_value(), tl.int8.get_int_max_value()) == (-128, 127)
    assert (tl.uint16.get_int_min_value(), tl.uint16.get_int_max_value()) == (0, 65535)
    assert tl.int1.get_int_max_value() == 1
    with pytest.raises(AttributeError, match="fp32 is not an integer dtype"):
        tl.float32.get_int_max_value()
