"""`warn-lossy-casts`: a located warning for each implicit cast that can lose information.

An implicit cast is one `promote-types` inserted (marked `implicit`). It can lose
information when some value of the source dtype has no exact value in the target: int64
to float32 (float32 holds integers exactly only up to 2**24), int32 to float16, float32 to
bfloat16, any float to an integer. The warning names both dtypes and what is lost; the
cast is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from blkc.diagnostics import emit_warning
from blkc.dialects import blk
from blkc.dialects.types import dtype_of
from blkc.dtypes import DType


@dataclass(frozen=True)
class WarnLossyCastsPass(ModulePass):
    """Warn at each implicit `blk.cast` whose target cannot hold every source value."""

    name = "warn-lossy-casts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nested in op.walk():
            if isinstance(nested, blk.CastOp) and nested.implicit is not None:
                src, dst = dtype_of(nested.src.type), dtype_of(nested.result.type)
                if src is None or dst is None:
                    continue
                loss = lost_information(src, dst)
                if loss is not None:
                    emit_warning(
                        nested,
                        f"implicit cast from {src.name} to {dst.name} can lose information: {loss}",
                    )


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
        if src.int_range[1] > _max_finite(dst):
            return f"{src.name} values above {_max_finite(dst):g} overflow {dst.name}"
        return None
    if src.is_float and dst.is_float:
        if dst.significand_bits < src.significand_bits:
            return (
                f"{dst.name} keeps {dst.significand_bits} significant bits of the "
                f"{src.significand_bits} of {src.name}"
            )
        if dst.max_exponent < src.max_exponent:
            return f"{src.name} values above {_max_finite(dst):g} overflow {dst.name}"
        return None
    return None


def _max_finite(d: DType) -> float:
    import ml_dtypes

    return float(ml_dtypes.finfo(d.numpy).max)
