"""`insert-broadcasts`: make every implicit broadcast explicit.

For each op that broadcasts (the `Broadcasts` trait), operands whose shape differs from
the broadcast shape get, in order: `blk.splat` for a scalar, `blk.expand_dims` at axis 0
for each missing leading dimension, and one `blk.broadcast` expanding the dimensions of
size 1. Loads (pointer, mask, other) and stores (value and mask, to the pointer's shape)
included.

```mlir
%z = blk.add %row, %col : tensor<1x16xf32>, tensor<8x1xf32> -> tensor<8x16xf32>
// becomes
%0 = blk.broadcast %row : tensor<1x16xf32> -> tensor<8x16xf32>
%1 = blk.broadcast %col : tensor<8x1xf32> -> tensor<8x16xf32>
%z = blk.add %0, %1 : tensor<8x16xf32>
```
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from blkc.broadcasting import BroadcastError, broadcast_shapes
from blkc.diagnostics import error_at
from blkc.dialects import blk
from blkc.dialects.traits import Broadcasts
from blkc.dialects.types import WeakType, block_of, element_type, shape_of
from blkc.passes.promote_types import operand_index


@dataclass(frozen=True)
class InsertBroadcastsPass(ModulePass):
    """Insert `blk.splat`, `blk.expand_dims` and `blk.broadcast` where shapes differ."""

    name = "insert-broadcasts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nested in list(op.walk()):
            trait = nested.get_trait(Broadcasts)
            if trait is not None:
                _broadcast_operands(nested, trait)


def _broadcast_operands(op: Operation, trait: Broadcasts) -> None:
    present = [(n, getattr(op, n)) for n in trait.operands if getattr(op, n) is not None]
    if trait.to is not None:
        shape = shape_of(getattr(op, trait.to).type)
    else:
        try:
            shape = broadcast_shapes(
                *(shape_of(v.type) for _, v in present),
                names=[f"'{n}' ({v.type})" for n, v in present],
            )
        except BroadcastError as err:
            raise error_at(op, str(err)) from None
    for name, value in present:
        if shape_of(value.type) == shape:
            continue
        if isinstance(value.type, WeakType):
            raise error_at(
                op,
                f"operand '{name}' is a weak literal: run promote-types before insert-broadcasts",
            )
        expanded = _expand(value, shape, op)
        op.operands[operand_index(op, name)] = expanded


def _expand(value: SSAValue, shape: Sequence[int], user: Operation) -> SSAValue:
    """`value` splatted, rank-extended and broadcast to `shape`, inserted before `user`."""
    src_shape = list(shape_of(value.type))
    elem = element_type(value.type)
    new_ops: list[Operation] = []
    if not src_shape:
        new_ops.append(blk.SplatOp(value, block_of(elem, shape)))
    else:
        if len(src_shape) > len(shape):
            raise error_at(
                user, f"{value.type} has more dimensions than the broadcast shape {tuple(shape)}"
            )
        while len(src_shape) < len(shape):
            src = new_ops[-1].results[0] if new_ops else value
            new_ops.append(blk.ExpandDimsOp(src, 0))
            src_shape.insert(0, 1)
        if tuple(src_shape) != tuple(shape):
            src = new_ops[-1].results[0] if new_ops else value
            new_ops.append(blk.BroadcastOp(src, block_of(elem, shape)))
    block = user.parent_block()
    assert block is not None
    for new in new_ops:
        new.location = user.location
        block.insert_op_before(new, user)
    return new_ops[-1].results[0]
