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
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

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
        PatternRewriteWalker(
            GreedyRewritePatternApplier([WidenArithAndMath(), WidenScalarMod()], dce_enabled=False),
            apply_recursively=False,
        ).rewrite_module(op)


class WidenArithAndMath(RewritePattern):
    """An arith or math op on small floats, but for those that move values without
    rounding them (conversions, selects, constants, bit casts)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.dialect_name() in ("arith", "math") and not isinstance(op, _KEEP):
            _widen(op, rewriter)


class WidenScalarMod(RewritePattern):
    """The scalar `blk.mod` that `lower-int-semantics` leaves for C's float remainder."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.ModOp, rewriter: PatternRewriter) -> None:
        _widen(op, rewriter)


def _widen(op: Operation, rewriter: PatternRewriter) -> None:
    """`op` on f32 operands between an extf of each small operand and a truncf of each
    small result, if it has any."""
    if not any(_small(v.type) for v in (*op.operands, *op.results)):
        return
    operands = [
        _emit(arith.ExtFOp(v, f32), op, rewriter) if _small(v.type) else v for v in op.operands
    ]
    wide = op.create(
        operands=operands,
        result_types=[f32 if _small(r.type) else r.type for r in op.results],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    _emit(wide, op, rewriter)
    replacements = [
        _emit(arith.TruncFOp(new, old.type), op, rewriter) if _small(old.type) else new
        for old, new in zip(op.results, wide.results, strict=True)
    ]
    rewriter.replace(op, (), replacements)


def _emit(new: Operation, before: Operation, rewriter: PatternRewriter) -> SSAValue:
    """Insert `new` before the op being replaced, at its location; its first result."""
    new.location = before.location
    rewriter.insert(new)
    return new.results[0]
