"""The one table of blkc's element types (dtypes).

Every layer names dtypes through this module: the `blk` dialect's type constraints, the
promotion policies, the frontends and the NumPy interop. A dtype has a public name
(``int32``, ``bfloat16``, ``float8_e4m3fn``), an MLIR spelling (``i32``, ``bf16``,
``f8E4M3FN``), a kind, a width and a signedness.

At the blk level MLIR's signless integers (``i8`` ... ``i64``) are *signed* and ``ui8`` ...
``ui64`` are unsigned; ``i1`` is bool. Lowering turns signedness into signless ops.

>>> dtype("int32").mlir
'i32'
>>> dtype("ui8").name
'uint8'
>>> from_numpy(numpy.dtype("float16")).name
'float16'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import ml_dtypes
import numpy

if TYPE_CHECKING:
    from xdsl.ir import Attribute


class Kind(enum.IntEnum):
    """The kind of a dtype, ordered as every promotion lattice orders kinds."""

    BOOL = 0
    INT = 1
    FLOAT = 2
    COMPLEX = 3

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class DType:
    """One element type. Instances are unique: compare them with ``is`` or ``==``."""

    name: str
    """Public name, as NumPy spells it: ``int32``, ``bfloat16``, ``float8_e5m2``."""
    mlir: str
    """Spelling in the IR: ``i32``, ``ui8``, ``bf16``, ``f8E5M2``, ``complex<f32>``."""
    kind: Kind
    width: int
    """Storage width in bits."""
    signed: bool
    """Integers: signedness. Floats and complex numbers are signed; bool is not."""
    significand_bits: int = 0
    """Floats: precision including the implicit bit (f32: 24). Ints: value bits."""
    max_exponent: int = 0
    """Floats: the largest finite binary exponent (f32: 127)."""
    aliases: tuple[str, ...] = ()

    @property
    def is_bool(self) -> bool:
        return self.kind is Kind.BOOL

    @property
    def is_int(self) -> bool:
        """True for signed and unsigned integers (not bool)."""
        return self.kind is Kind.INT

    @property
    def is_float(self) -> bool:
        return self.kind is Kind.FLOAT

    @property
    def is_complex(self) -> bool:
        return self.kind is Kind.COMPLEX

    @property
    def is_fp8(self) -> bool:
        return self.kind is Kind.FLOAT and self.width == 8

    @property
    def is_unsigned(self) -> bool:
        return self.kind is Kind.INT and not self.signed

    @property
    def int_range(self) -> tuple[int, int]:
        """The closed range of values of a bool or integer dtype."""
        if self.kind is Kind.BOOL:
            return (0, 1)
        if self.kind is not Kind.INT:
            raise TypeError(f"{self.name} is not an integer dtype")
        if self.signed:
            return (-(1 << (self.width - 1)), (1 << (self.width - 1)) - 1)
        return (0, (1 << self.width) - 1)

    @property
    def numpy(self) -> numpy.dtype[Any]:
        """The NumPy (or ml_dtypes) dtype with the same values and storage."""
        return _numpy_dtype(self.name)

    @property
    def xdsl(self) -> Attribute:
        """The xDSL type that spells this dtype in the IR."""
        return _xdsl_type(self.name)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"blkc.dtypes.{self.name}"


def _int(bits: int, signed: bool) -> DType:
    name = f"{'' if signed else 'u'}int{bits}"
    mlir = f"{'' if signed else 'u'}i{bits}"
    return DType(name, mlir, Kind.INT, bits, signed, bits - (1 if signed else 0))


bool_ = DType("bool", "i1", Kind.BOOL, 1, False, 1, aliases=("int1", "bool_"))
int8 = _int(8, True)
int16 = _int(16, True)
int32 = _int(32, True)
int64 = _int(64, True)
uint8 = _int(8, False)
uint16 = _int(16, False)
uint32 = _int(32, False)
uint64 = _int(64, False)
float16 = DType("float16", "f16", Kind.FLOAT, 16, True, 11, 15, ("half",))
bfloat16 = DType("bfloat16", "bf16", Kind.FLOAT, 16, True, 8, 127)
float32 = DType("float32", "f32", Kind.FLOAT, 32, True, 24, 127, ("float",))
float64 = DType("float64", "f64", Kind.FLOAT, 64, True, 53, 1023, ("double",))
float8_e4m3fn = DType("float8_e4m3fn", "f8E4M3FN", Kind.FLOAT, 8, True, 4, 8, ("float8e4nv",))
float8_e5m2 = DType("float8_e5m2", "f8E5M2", Kind.FLOAT, 8, True, 3, 15, ("float8e5",))
complex64 = DType("complex64", "complex<f32>", Kind.COMPLEX, 64, True, 24, 127)
complex128 = DType("complex128", "complex<f64>", Kind.COMPLEX, 128, True, 53, 1023)

ALL: tuple[DType, ...] = (
    bool_,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    float16,
    bfloat16,
    float32,
    float64,
    float8_e4m3fn,
    float8_e5m2,
    complex64,
    complex128,
)
"""Every dtype, in the order tables list them."""

CODEGEN: tuple[DType, ...] = tuple(d for d in ALL if not d.is_complex)
"""The dtypes the `blk` dialect accepts in kernels (complex exists for promotion only)."""

_BY_NAME: dict[str, DType] = {}
for _d in ALL:
    for _key in (_d.name, _d.mlir, *_d.aliases):
        _BY_NAME[_key] = _d


class UnknownDTypeError(TypeError):
    """Raised for a name or object that is not one of blkc's dtypes."""


def dtype(spec: DType | str | Attribute | numpy.dtype[Any] | type) -> DType:
    """Return the dtype named or represented by `spec`.

    Accepts a `DType`, a name (``"int32"``, ``"i32"``, ``"ui8"``, ``"bf16"``), an xDSL type
    (``i32``, ``IntegerType(8, Signedness.UNSIGNED)``), or a NumPy / ml_dtypes dtype or
    scalar type.
    """
    if isinstance(spec, DType):
        return spec
    if isinstance(spec, str):
        found = _BY_NAME.get(spec)
        if found is None:
            raise UnknownDTypeError(
                f"unknown dtype '{spec}'; known dtypes: {', '.join(d.name for d in ALL)}"
            )
        return found
    if isinstance(spec, numpy.dtype) or isinstance(spec, type):
        return from_numpy(spec)
    return from_xdsl(spec)


def from_numpy(spec: numpy.dtype[Any] | type) -> DType:
    """The dtype of a NumPy or ml_dtypes dtype (or scalar type)."""
    try:
        np_dtype = numpy.dtype(spec)
    except TypeError as err:
        raise UnknownDTypeError(f"{spec!r} is not a NumPy dtype") from err
    found = _numpy_index().get(np_dtype)
    if found is None:
        raise UnknownDTypeError(f"NumPy dtype '{np_dtype}' has no blkc equivalent")
    return found


def from_xdsl(attr: Attribute) -> DType:
    """The dtype that an xDSL element type spells; raises `UnknownDTypeError` otherwise."""
    found = _xdsl_index().get(attr)
    if found is None:
        hint = ""
        from xdsl.dialects.builtin import IntegerType, Signedness

        if isinstance(attr, IntegerType) and attr.signedness.data == Signedness.SIGNED:
            hint = f" (blk integers are signed without a prefix: write i{attr.width.data})"
        raise UnknownDTypeError(f"'{attr}' is not a blk element type{hint}")
    return found


def is_dtype_type(attr: Attribute) -> bool:
    """True when `attr` is the xDSL type of one of blkc's dtypes."""
    return attr in _xdsl_index()


def lost_information(src: DType, dst: DType) -> str | None:
    """What converting `src` to `dst` can lose, or None when every value survives exactly."""
    if src == dst or src.is_bool:
        return None
    if dst.is_bool:
        return "every nonzero value becomes true"
    if src.is_float and (dst.is_int):
        return "the fraction is dropped and values outside the integer range do not fit"
    if src.is_int and dst.is_int:
        lo, hi = src.int_range
        dlo, dhi = dst.int_range
        if lo < dlo or hi > dhi:
            return f"{src.name} values outside [{dlo}, {dhi}] wrap around"
        return None
    if src.is_int and dst.is_float:
        if src.significand_bits > dst.significand_bits:
            return (
                f"{dst.name} holds integers exactly only up to 2**{dst.significand_bits}; "
                f"{src.name} values need up to {src.significand_bits} bits"
            )
        if src.int_range[1] > max_finite(dst):
            return f"{src.name} values above {max_finite(dst):g} overflow {dst.name}"
        return None
    if src.is_float and dst.is_float:
        if dst.significand_bits < src.significand_bits:
            return (
                f"{dst.name} keeps {dst.significand_bits} significant bits of the "
                f"{src.significand_bits} of {src.name}"
            )
        if dst.max_exponent < src.max_exponent:
            return f"{src.name} values above {max_finite(dst):g} overflow {dst.name}"
        return None
    return None


def max_finite(d: DType) -> float:
    """The largest finite value of the float dtype `d`."""
    return float(ml_dtypes.finfo(d.numpy).max)


def has_infinity(d: DType) -> bool:
    """Whether the float dtype `d` has infinities (float8_e4m3fn has none)."""
    return bool(numpy.isinf(numpy.float32(numpy.inf).astype(d.numpy)))


@cache
def _numpy_dtype(name: str) -> numpy.dtype[Any]:
    if name == "bool":
        return numpy.dtype(numpy.bool_)
    if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        return numpy.dtype(getattr(ml_dtypes, name))
    return numpy.dtype(name)


@cache
def _numpy_index() -> dict[numpy.dtype[Any], DType]:
    return {_numpy_dtype(d.name): d for d in ALL}


@cache
def _xdsl_type(name: str) -> Attribute:
    from xdsl.dialects import builtin

    d = _BY_NAME[name]
    if d.kind is Kind.BOOL:
        return builtin.i1
    if d.kind is Kind.INT:
        signedness = builtin.Signedness.SIGNLESS if d.signed else builtin.Signedness.UNSIGNED
        return builtin.IntegerType(d.width, signedness)
    if d.kind is Kind.COMPLEX:
        return builtin.ComplexType(builtin.f32 if d.width == 64 else builtin.f64)
    return {
        "float16": builtin.f16,
        "bfloat16": builtin.bf16,
        "float32": builtin.f32,
        "float64": builtin.f64,
        "float8_e4m3fn": builtin.f8E4M3FN,
        "float8_e5m2": builtin.f8E5M2,
    }[name]


@cache
def _xdsl_index() -> dict[Attribute, DType]:
    return {_xdsl_type(d.name): d for d in ALL}
