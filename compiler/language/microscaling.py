"""`tl.dot_scaled`: the matrix product of blocks in microscaling (MX) formats.

An operand holds e2m1 (two 4-bit floats a byte, the first in the low bits), e4m3 or e5m2
(fp8, as bytes or as fp8), or bf16 or fp16 elements; its optional scale holds one e8m0
byte a group of K elements (a power of two, ``2 ** (byte - 127)``; 255 is NaN). Nothing
new reaches the IR: each operand is decoded to float32 with integer and bit operations,
multiplied by its scale, and the two meet in a `blk.dot` accumulating in float32, as
Triton's CPU reference computes it. For the rhs (``[K, N]``, its scale ``[N, K / group]``)
the same decoding runs on its transpose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from blkc import dtypes
from blkc.language.core import builtin, dtype, float32, tensor

if TYPE_CHECKING:
    from xdsl.ir import SSAValue

    from blkc.frontend.python import CodeGenerator

_FORMATS: dict[str, tuple[dtypes.DType, dtypes.DType] | None] = {
    "e2m1": None,
    "e4m3": (dtypes.float8_e4m3fn, dtypes.uint8),
    "e5m2": (dtypes.float8_e5m2, dtypes.uint8),
    "bf16": (dtypes.bfloat16, dtypes.uint16),
    "fp16": (dtypes.float16, dtypes.uint16),
}
"""Each format's float dtype and the unsigned integer of its bits (e2m1: packed bytes)."""

_HALF_BITS = 126 << 23
"""The float32 bits of 0.5, e2m1's one subnormal."""

_NAN_BITS = 0x7FC00000
_SCALE_NAN = 0xFF


@builtin
def dot_scaled(
    lhs: Any,
    lhs_scale: Any,
    lhs_format: Any,
    rhs: Any,
    rhs_scale: Any,
    rhs_format: Any,
    acc: Any = None,
    fast_math: Any = False,
    lhs_k_pack: Any = True,
    rhs_k_pack: Any = True,
    out_dtype: Any = float32,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """``lhs @ rhs (+ acc)`` of microscaled blocks (``[M, K]`` and ``[K, N]``, or batched
    3-D), in float32. A format is ``"e2m1"``, ``"e4m3"``, ``"e5m2"``, ``"bf16"`` or
    ``"fp16"``; e2m1 packs two elements a uint8 along K (along M or N where
    ``lhs_k_pack`` / ``rhs_k_pack`` is false). A scale is a uint8 block ``[M, K / group]``
    (``[N, K / group]`` for the rhs) of e8m0 exponents, or None for 1. `fast_math` lets
    hardware skip NaN handling; blkc's result is the exact one either way."""
    s = _semantic
    formats = [_format(s, f, name) for f, name in ((lhs_format, "lhs"), (rhs_format, "rhs"))]
    out = s.constant(out_dtype, "dot_scaled's out_dtype")
    if not (isinstance(out, dtype) and out.name == "fp32"):
        raise s.error(f"dot_scaled's out_dtype must be tl.float32, got {out!r}")
    s.constant(fast_math, "dot_scaled's fast_math")
    tiny_scale = 0 if "fp16" in formats else 1 << 22
    a = _operand(s, lhs, lhs_scale, formats[0], lhs_k_pack, "lhs", tiny_scale)
    b = _operand(s, rhs, rhs_scale, formats[1], rhs_k_pack, "rhs", tiny_scale)
    b = _transpose(s, b)
    ka, kb = s.shape_of(a)[-1], s.shape_of(b)[-2]
    if ka != kb:
        raise s.error(
            f"dot_scaled's operands hold different numbers of K elements: lhs {ka}, rhs {kb} "
            "(the reduction dimension should pack the same number of elements)"
        )
    if s.is_none(acc):
        return s.wrap(s.ir.dot(a, b, None, dtypes.float32))
    acc_value = s.value(acc, "dot_scaled's acc")
    shape = (*s.shape_of(a)[:-1], s.shape_of(b)[-1])
    if s.dtype_of(acc_value) != dtypes.float32 or s.shape_of(acc_value) != shape:
        raise s.error(
            f"dot_scaled's acc must be a float32 block of shape {list(shape)}, got {acc_value.type}"
        )
    return s.wrap(s.ir.dot(a, b, acc_value))


def _format(s: CodeGenerator, value: Any, side: str) -> str:
    name = s.constant(value, f"dot_scaled's {side}_format")
    if name not in _FORMATS:
        raise s.error(
            f"dot_scaled's {side}_format must be one of {', '.join(map(repr, _FORMATS))}, "
            f"got {name!r}"
        )
    return str(name)


def _operand(
    s: CodeGenerator, value: Any, scale: Any, fmt: str, k_pack: Any, side: str, tiny_scale: int
) -> SSAValue:
    """`value` decoded to float32 and scaled, as ``[..., rows, K]``: the rhs transposed."""
    v = s.value(value, f"dot_scaled's {side}")
    rank = len(s.shape_of(v))
    if rank not in (2, 3):
        raise s.error(f"dot_scaled's {side} must be a 2-D or 3-D block, got {v.type}")
    packed_along_k = bool(s.constant(k_pack, f"dot_scaled's {side}_k_pack"))
    if not packed_along_k and fmt != "e2m1":
        raise s.error(
            f"dot_scaled's {side}_k_pack=False needs the e2m1 format, got {fmt!r} (only "
            "e2m1 packs along M or N)"
        )
    if side == "rhs":
        v = _transpose(s, v)
    if fmt == "e2m1":
        packed = _bytes(s, v, f"{side} in e2m1 must be uint8 (two elements a byte)")
        decoded = _decode_e2m1(s, packed, packed_along_k)
    else:
        decoded = _decode_float(s, v, fmt, side)
    if s.is_none(scale):
        return decoded
    return s.ir.binary("mul", decoded, _scale(s, scale, decoded, side, tiny_scale))


def _transpose(s: CodeGenerator, v: SSAValue) -> SSAValue:
    rank = len(s.shape_of(v))
    return s.ir.permute(v, [*range(rank - 2), rank - 1, rank - 2])


def _bytes(s: CodeGenerator, v: SSAValue, what: str) -> SSAValue:
    """`v`, a block of uint8 (or int8, its bits), as uint8; else a located error."""
    found = s.dtype_of(v)
    if found == dtypes.uint8:
        return v
    if found != dtypes.int8:
        raise s.error(f"dot_scaled's {what}, got {found.name}")
    return s.ir.bitcast(v, dtypes.uint8)


def _decode_float(s: CodeGenerator, v: SSAValue, fmt: str, side: str) -> SSAValue:
    """An fp8, bf16 or fp16 operand (or its bits) as float32: exact, NaN and inf kept."""
    spec = _FORMATS[fmt]
    assert spec is not None
    floating, unsigned = spec
    if s.dtype_of(v) != floating:
        if s.dtype_of(v) != unsigned:
            raise s.error(
                f"dot_scaled's {side} in {fmt} must hold {floating.name} or {unsigned.name}, "
                f"got {s.dtype_of(v).name}"
            )
        v = s.ir.bitcast(v, floating)
    return s.ir.cast(v, dtypes.float32)


def _decode_e2m1(s: CodeGenerator, packed: SSAValue, along_last: bool) -> SSAValue:
    """Bytes of two e2m1 each (the first in the low bits), unpacked along the last axis (or
    the one before) and decoded to float32: ``s e e m`` is ``(-1)**s * m / 2`` where
    ``e == 0``, else ``(-1)**s * 2**(e - 1) * (1 + m / 2)``."""
    shape = s.shape_of(packed)
    axis = len(shape) - 1 if along_last else len(shape) - 2
    shift = s.ir.binary("mul", s.ir.arange(0, 2), s.ir.constant(4, dtypes.int32))
    if not along_last:
        shift = s.ir.expand_dims(shift, 1)
    # [..., n, 1] >> [2] (or [..., n, 1, c] >> [2, 1]): each byte's two nibbles side by side
    pairs = s.ir.expand_dims(s.ir.cast(packed, dtypes.uint32), axis + 1)
    nibbles = _and(s, s.ir.binary("shr", pairs, s.ir.cast(shift, dtypes.uint32)), 0xF)
    unpacked = list(shape)
    unpacked[axis] *= 2
    nibble = s.ir.reshape(nibbles, unpacked)
    magnitude = _and(s, nibble, 0x7)
    exponent = s.ir.binary("shr", magnitude, _u32(s, 1))
    normal = s.ir.binary(
        "or",
        s.ir.binary("shl", s.ir.binary("add", exponent, _u32(s, 126)), _u32(s, 23)),
        s.ir.binary("shl", _and(s, magnitude, 1), _u32(s, 22)),
    )
    subnormal = s.ir.binary("mul", magnitude, _u32(s, _HALF_BITS))
    bits = s.ir.where(s.ir.compare("lt", magnitude, _u32(s, 2)), subnormal, normal)
    sign = s.ir.binary("shl", _and(s, nibble, 0x8), _u32(s, 28))
    return s.ir.bitcast(s.ir.binary("or", bits, sign), dtypes.float32)


def _scale(s: CodeGenerator, scale: Any, decoded: SSAValue, side: str, tiny_scale: int) -> SSAValue:
    """The e8m0 `scale` as float32 factors, repeated over each group to `decoded`'s shape:
    ``2 ** (byte - 127)`` built from the bits, 255 NaN, 0 the float32 bits `tiny_scale`
    (Triton's CPU reference: 2**-127, or 0 where an operand is fp16)."""
    v = s.value(scale, f"dot_scaled's {side}_scale")
    shape, target = s.shape_of(v), s.shape_of(decoded)
    rows = "N" if side == "rhs" else "M"
    k = target[-1]
    groups = shape[-1] if shape else 0
    if len(shape) != len(target) or shape[:-1] != target[:-1] or not groups or k % groups:
        raise s.error(
            f"dot_scaled's {side}_scale must be a block of shape [{rows}, K // group] (here "
            f"[{target[-2]}, {k} // group], a group size dividing K), got {v.type}"
        )
    byte = _bytes(s, v, f"{side}_scale must be uint8 (e8m0 exponents)")
    byte = s.ir.cast(byte, dtypes.uint32)
    bits = s.ir.where(
        s.ir.compare("eq", byte, _u32(s, 0)),
        _u32(s, tiny_scale),
        s.ir.where(
            s.ir.compare("eq", byte, _u32(s, _SCALE_NAN)),
            _u32(s, _NAN_BITS),
            s.ir.binary("shl", byte, _u32(s, 23)),
        ),
    )
    factor = s.ir.expand_dims(s.ir.bitcast(bits, dtypes.float32), len(shape))
    repeated = s.ir.broadcast_to(factor, [*shape, k // groups])
    return s.ir.reshape(repeated, target)


def _u32(s: CodeGenerator, value: int) -> SSAValue:
    return s.ir.constant(value, dtypes.uint32)


def _and(s: CodeGenerator, v: SSAValue, mask: int) -> SSAValue:
    return s.ir.binary("and", v, _u32(s, mask))
