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
from blkc.dtypes import lost_information


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
