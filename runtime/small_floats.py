"""Conversions of the small float formats that LLVM cannot (or, in this process, may not)
convert itself: bfloat16 (i16 storage) and the fp8 formats (i8 storage).

Widening is exact: bfloat16 is the top half of a float32; an fp8 value is looked up in a
256-entry table of float32 values made by ml_dtypes. Narrowing rounds to nearest even and
keeps NaN (with its sign), as ml_dtypes does: overflow gives infinity for bfloat16 and
float8_e5m2 and NaN for float8_e4m3fn, which has no infinity; values below the smallest
normal become subnormals. float16 goes through LLVM's own `fpext`/`fptrunc`. A float64
source is first rounded to float32 (as ml_dtypes does too).
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir
import ml_dtypes
import numpy
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
)
from xdsl.ir import Attribute

I8, I16, I32 = ir.IntType(8), ir.IntType(16), ir.IntType(32)
F32 = ir.FloatType()


@dataclass(frozen=True)
class Fp8Format:
    name: str
    exponent_bias: int
    mantissa_bits: int
    max_finite: int
    """The largest finite encoding (without the sign)."""
    overflow: int
    """The encoding of a positive value beyond the largest finite one."""
    nan: int
    numpy: numpy.dtype

    @property
    def min_normal_exponent(self) -> int:
        return 1 - self.exponent_bias


E4M3FN = Fp8Format("e4m3fn", 7, 3, 0x7E, 0x7F, 0x7F, numpy.dtype(ml_dtypes.float8_e4m3fn))
E5M2 = Fp8Format("e5m2", 15, 2, 0x7B, 0x7C, 0x7E, numpy.dtype(ml_dtypes.float8_e5m2))


def _fp8(t: Attribute) -> Fp8Format | None:
    if isinstance(t, Float8E4M3FNType):
        return E4M3FN
    if isinstance(t, Float8E5M2Type):
        return E5M2
    return None


def is_storage_float(t: Attribute) -> bool:
    """True for the formats kept as integer storage (bfloat16 and fp8)."""
    return isinstance(t, BFloat16Type) or _fp8(t) is not None


def bits(value: float, t: Attribute) -> int:
    """The storage bits of `value` rounded to `t` (bfloat16 or fp8), for constants."""
    fmt = _fp8(t)
    dtype = fmt.numpy if fmt else numpy.dtype(ml_dtypes.bfloat16)
    storage = numpy.uint8 if fmt else numpy.uint16
    return int(numpy.array(value, dtype=numpy.float32).astype(dtype).view(storage))


def _native(t: Attribute) -> ir.Type | None:
    return {Float16Type: ir.HalfType(), Float32Type: F32, Float64Type: ir.DoubleType()}.get(type(t))


def convert(b: ir.IRBuilder, value: ir.Value, source: Attribute, target: Attribute) -> ir.Value:
    """`value` of float type `source` converted to float type `target`."""
    src_native, dst_native = _native(source), _native(target)
    if src_native is not None and dst_native is not None:
        if src_native == dst_native:
            return value
        order = {"half": 16, "float": 32, "double": 64}
        if order[str(src_native)] < order[str(dst_native)]:
            return b.fpext(value, dst_native)
        if str(src_native) == "double" and str(dst_native) == "half":
            # LLVM would call __truncdfhf2, which this process may lack: round to float32
            # *to odd* first, after which rounding to float16 is exact to the last bit.
            return b.fptrunc(_to_f32_odd(b, value), dst_native)
        return b.fptrunc(value, dst_native)
    wide = _to_f32(b, value, source)
    return _from_f32(b, wide, target)


def _to_f32_odd(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    """A float64 rounded to float32 *to odd*: where inexact, the nearest float32 is moved
    one step toward the value when its last bit is even. Rounding that once more to a
    format of at most 22 significand bits gives the correctly rounded result."""
    nearest = b.fptrunc(value, F32)
    back = b.fpext(nearest, ir.DoubleType())
    inexact = b.fcmp_ordered("!=", back, value)
    word = b.bitcast(nearest, I32)
    even = b.icmp_unsigned("==", b.and_(word, ir.Constant(I32, 1)), ir.Constant(I32, 0))
    fabs = b.module.globals.get("llvm.fabs.f64") or ir.Function(
        b.module, ir.FunctionType(ir.DoubleType(), [ir.DoubleType()]), name="llvm.fabs.f64"
    )
    away = b.fcmp_ordered(">", b.call(fabs, [value]), b.call(fabs, [back]))
    stepped = b.select(away, b.add(word, ir.Constant(I32, 1)), b.sub(word, ir.Constant(I32, 1)))
    fix = b.and_(inexact, even)
    return b.bitcast(b.select(fix, stepped, word), F32)


def _to_f32(b: ir.IRBuilder, value: ir.Value, source: Attribute) -> ir.Value:
    if isinstance(source, Float32Type):
        return value
    if isinstance(source, Float16Type):
        return b.fpext(value, F32)
    if isinstance(source, Float64Type):
        return b.fptrunc(value, F32)
    if isinstance(source, BFloat16Type):
        return b.bitcast(b.shl(b.zext(value, I32), ir.Constant(I32, 16)), F32)
    fmt = _fp8(source)
    assert fmt is not None, source
    table = _decode_table(b.module, fmt)
    address = b.gep(table, [ir.Constant(I32, 0), b.zext(value, I32)], inbounds=True)
    return b.load(address)


def _from_f32(b: ir.IRBuilder, value: ir.Value, target: Attribute) -> ir.Value:
    if isinstance(target, Float32Type):
        return value
    native = _native(target)
    if native is not None:
        return (
            b.fpext(value, native) if isinstance(target, Float64Type) else b.fptrunc(value, native)
        )
    if isinstance(target, BFloat16Type):
        return to_bfloat16(b, value)
    fmt = _fp8(target)
    assert fmt is not None, target
    return _to_fp8(b, value, fmt)


def to_bfloat16(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    """The bfloat16 bits (i16) nearest to a float32: round to nearest even; NaN becomes
    the quiet NaN 0x7FC0 with its sign, as ml_dtypes gives."""
    word = b.bitcast(value, I32)
    lsb = b.and_(b.lshr(word, ir.Constant(I32, 16)), ir.Constant(I32, 1))
    rounded = b.lshr(b.add(b.add(word, ir.Constant(I32, 0x7FFF)), lsb), ir.Constant(I32, 16))
    sign = b.and_(b.lshr(word, ir.Constant(I32, 16)), ir.Constant(I32, 0x8000))
    quiet_nan = b.or_(sign, ir.Constant(I32, 0x7FC0))  # ml_dtypes' NaN, with the sign
    is_nan = b.fcmp_unordered("uno", value, value)
    return b.trunc(b.select(is_nan, quiet_nan, rounded), I16)


def _to_fp8(b: ir.IRBuilder, value: ir.Value, fmt: Fp8Format) -> ir.Value:
    """The fp8 bits (i8) nearest to a float32 (see the module docstring)."""
    word = b.bitcast(value, I32)
    sign = b.and_(b.lshr(word, ir.Constant(I32, 24)), ir.Constant(I32, 0x80))
    magnitude_bits = b.and_(word, ir.Constant(I32, 0x7FFFFFFF))
    magnitude = b.bitcast(magnitude_bits, F32)
    # Normal results: round the float32 mantissa to the format's, then rebias.
    shift = 23 - fmt.mantissa_bits
    lsb = b.and_(b.lshr(magnitude_bits, ir.Constant(I32, shift)), ir.Constant(I32, 1))
    rounded = b.add(b.add(magnitude_bits, ir.Constant(I32, (1 << (shift - 1)) - 1)), lsb)
    rebias = (127 - fmt.exponent_bias) << fmt.mantissa_bits
    normal = b.sub(b.lshr(rounded, ir.Constant(I32, shift)), ir.Constant(I32, rebias))
    # Subnormal results: the value in units of the smallest subnormal, rounded to even.
    scale = 2.0 ** (fmt.exponent_bias - 1 + fmt.mantissa_bits)
    units = b.fmul(magnitude, ir.Constant(F32, scale))
    rint = b.module.globals.get("llvm.rint.f32") or ir.Function(
        b.module, ir.FunctionType(F32, [F32]), name="llvm.rint.f32"
    )
    subnormal = b.fptosi(b.call(rint, [units]), I32)
    tiny = b.fcmp_ordered("<", magnitude, ir.Constant(F32, 2.0**fmt.min_normal_exponent))
    encoded = b.select(tiny, subnormal, normal)
    too_big = b.icmp_signed(">", encoded, ir.Constant(I32, fmt.max_finite))
    encoded = b.select(too_big, ir.Constant(I32, fmt.overflow), encoded)
    is_nan = b.fcmp_unordered("uno", value, value)
    encoded = b.select(is_nan, ir.Constant(I32, fmt.nan), encoded)
    return b.trunc(b.or_(encoded, sign), I8)


def _decode_table(module: ir.Module, fmt: Fp8Format) -> ir.GlobalVariable:
    name = f"blkc.fp8.{fmt.name}.to_f32"
    existing = module.globals.get(name)
    if isinstance(existing, ir.GlobalVariable):
        return existing
    values = numpy.arange(256, dtype=numpy.uint8).view(fmt.numpy).astype(numpy.float32)
    table_type = ir.ArrayType(F32, 256)
    table = ir.GlobalVariable(module, table_type, name=name)
    table.linkage = "internal"
    table.global_constant = True
    table.initializer = ir.Constant(table_type, [ir.Constant(F32, float(v)) for v in values])
    return table
