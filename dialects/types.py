"""Types of the `blk` dialect, the helpers that read value types, and typed constants.

A blk value is one of:

- a scalar of a dtype (``f32``, ``ui8``, ``i1``: see `blkc.dtypes`);
- a block: a statically shaped builtin tensor of a dtype (``tensor<16x32xf16>``);
- a pointer ``!blk.ptr<f32>``, or a block of pointers ``tensor<64x!blk.ptr<f32>>``;
- in loose IR only, a weak literal ``!blk.weak<int>`` / ``<float>`` / ``<bool>``: a Python
  literal or constexpr whose dtype the promotion policy decides from its value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from blkc import dtypes
from blkc.dtypes import DType

WeakKind = Literal["bool", "int", "float"]
WEAK_KINDS: tuple[WeakKind, ...] = ("bool", "int", "float")


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """A pointer to global memory holding elements of `pointee`.

    ```mlir
    !blk.ptr<f32>
    tensor<64x!blk.ptr<bf16>>   // a block of pointers
    ```
    """

    name = "blk.ptr"

    pointee: Attribute

    def __init__(self, pointee: Attribute):
        super().__init__(pointee)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.pointee)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def verify(self) -> None:
        if isinstance(self.pointee, PtrType):
            return
        if not dtypes.is_dtype_type(self.pointee) or dtypes.from_xdsl(self.pointee).is_complex:
            raise VerifyException(
                f"!blk.ptr points to '{self.pointee}', which is not a blk element type "
                "(a dtype such as f32, i32, ui8, bf16, f8E4M3FN, or another !blk.ptr)"
            )


@irdl_attr_definition
class WeakType(ParametrizedAttribute, TypeAttribute):
    """The type of a weak literal in loose IR: its dtype is decided by the promotion policy.

    ```mlir
    %c = blk.literal 3 : !blk.weak<int>
    ```
    """

    name = "blk.weak"

    kind_name: StringAttr

    def __init__(self, kind: WeakKind | StringAttr):
        super().__init__(StringAttr(kind) if isinstance(kind, str) else kind)

    @property
    def kind(self) -> WeakKind:
        return self.kind_name.data  # type: ignore[return-value]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.kind_name.data}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            kind = parser.parse_identifier()
            if kind not in WEAK_KINDS:
                parser.raise_error(
                    f"unknown weak kind '{kind}', expected one of: {', '.join(WEAK_KINDS)}",
                    pos,
                    parser.pos,
                )
        return (StringAttr(kind),)

    def verify(self) -> None:
        if self.kind_name.data not in WEAK_KINDS:
            raise VerifyException(
                f"unknown weak kind '{self.kind_name.data}', expected one of: "
                + ", ".join(WEAK_KINDS)
            )


def element_type(t: Attribute) -> Attribute:
    """The element type of a block, or the type itself for a scalar, pointer or literal."""
    return t.element_type if isinstance(t, TensorType) else t


def shape_of(t: Attribute) -> tuple[int, ...]:
    """The shape of a block; ``()`` for a scalar, pointer or weak literal."""
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def is_block(t: Attribute) -> bool:
    return isinstance(t, TensorType)


def with_element(t: Attribute, elem: Attribute) -> Attribute:
    """`t` with its element type replaced: a block stays a block of the same shape."""
    if isinstance(t, TensorType):
        return TensorType(elem, t.get_shape())
    return elem


def block_of(elem: Attribute, shape: Sequence[int]) -> Attribute:
    """A block of `elem` with `shape`, or the scalar `elem` itself when `shape` is empty."""
    return TensorType(elem, shape) if shape else elem


def dtype_of(t: Attribute) -> DType | None:
    """The dtype of a scalar or block, or None for pointers and weak literals."""
    elem = element_type(t)
    return dtypes.from_xdsl(elem) if dtypes.is_dtype_type(elem) else None


def describe(t: Attribute) -> str:
    """`t` as the IR spells it, for messages."""
    return str(t)


def typed_value(value: bool | int | float, dtype: DType) -> Attribute:
    """A Python literal as a typed scalar attribute of `dtype`: floats rounded to the dtype
    (overflowing to infinity, as a cast does), integers wrapped."""
    if dtype.is_float:
        with numpy.errstate(over="ignore"):
            rounded = float(numpy.array(float(value), numpy.float64).astype(dtype.numpy))
        return FloatAttr(rounded, dtype.xdsl)
    if dtype.is_complex:
        raise TypeError(f"{dtype.name} constants are not supported in kernels")
    integer = int(value)
    lo, hi = dtype.int_range
    span = hi - lo + 1
    wrapped = (integer - lo) % span + lo
    if dtype.is_bool:
        wrapped = int(bool(value))
    return IntegerAttr(wrapped, dtype.xdsl)
