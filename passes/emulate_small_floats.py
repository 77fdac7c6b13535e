"""`emulate-small-floats`: float16, bfloat16 and fp8 arithmetic computed in float32.

Each `arith`/`math` op on f16, bf16, f8E4M3FN or f8E5M2 values becomes the same op on f32
operands (`arith.extf`), rounded back to the small type after it (`arith.truncf`): per-op
rounding, as docs/semantics.md specifies and as ml_dtypes computes. bf16 and fp8 values
stay in integer storage (i16, i8) outside these conversions, which the code generator
implements exactly without library calls (`blkc.runtime.small_floats`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    ModuleOp,
    f32,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

from blkc.dialects import blk

_KEEP = (arith.ExtFOp, arith.TruncFOp, arith.ConstantOp, arith.SelectOp, arith.BitcastOp)
_SMALL = (Float16Type, BFloat16Type, Float8E4M3FNType, Float8E5M2Type)


def _small(t: Attribute) -> bool:
    return isinstance(t, _SMALL)


@dataclass(frozen=True)
class EmulateSmallFloatsPass(ModulePass):
    """Compute f16/bf16 arith and math ops in f32, rounding after each op."""

    name = "emulate-small-floats"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nested in list(op.walk()):
            types = [v.type for v in (*nested.operands, *nested.results)]
            computes = nested.dialect_name() in ("arith", "math") or isinstance(nested, blk.ModOp)
            if computes and not isinstance(nested, _KEEP) and any(_small(t) for t in types):
                _widen(nested)


def _widen(op: Operation) -> None:
    block = op.parent_block()
    assert block is not None
    operands = []
    for value in op.operands:
        if _small(value.type):
            ext = arith.ExtFOp(value, f32)
            ext.location = op.location
            block.insert_op_before(ext, op)
            operands.append(ext.result)
        else:
            operands.append(value)
    result_types = [f32 if _small(r.type) else r.type for r in op.results]
    wide = op.create(
        operands=operands,
        result_types=result_types,
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    wide.location = op.location
    block.insert_op_before(wide, op)
    for old, new in zip(op.results, wide.results, strict=True):
        replacement = new
        if _small(old.type):
            trunc = arith.TruncFOp(new, old.type)
            trunc.location = op.location
            block.insert_op_before(trunc, op)
            replacement = trunc.result
        old.replace_all_uses_with(replacement)
    op.detach()
    op.erase()
