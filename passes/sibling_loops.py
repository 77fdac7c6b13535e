"""Merging sibling loops that run over the same range, after a lowering to loops.

Both lowerings (`convert-blk-to-loops`, `convert-blk-to-simt`) give each sink its own loop
nest; where the next nest needs of the previous one only what the same iteration
computed, one loop does both: one pass over a row instead of several.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, memref, scf
from xdsl.ir import Block, SSAValue

from blkc.dialects import blk
from blkc.passes.fusion_plan import WRITES_MEMORY


def fuse_sibling_loops(block: Block) -> None:
    """Merge each loop with the next one in `block` (and inside their bodies) when both run
    over the same range and the second needs, of the first, only what the same iteration
    computed: one pass over a row instead of several (softmax's load with its maximum,
    its exponentials with their sum)."""
    op = block.first_op
    while op is not None:
        following = op.next_op
        while isinstance(following, arith.ConstantOp | blk.ConstantOp):
            following = following.next_op  # constants between the loops move before both
        if isinstance(op, scf.ForOp) and isinstance(following, scf.ForOp):
            if _fusable(op, following):
                op = _fuse(op, following)
                continue
        for region in op.regions:
            for inner in region.blocks:
                fuse_sibling_loops(inner)
        op = op.next_op


@dataclass
class _Effects:
    """What a loop does to memory."""

    reads_arrays: bool = False
    writes_arrays: bool = False
    ordered: bool = False
    """It prints or asserts (its output order must stay)."""
    buffers: dict[SSAValue, list[tuple[bool, Sequence[SSAValue]]]] = field(default_factory=dict)
    """Each stack buffer it accesses: (is a write, indices) per access."""


def _effects(loop: scf.ForOp) -> _Effects:
    effects = _Effects()
    for op in loop.walk():
        if isinstance(op, blk.LoadOp):
            effects.reads_arrays = True
        elif isinstance(op, WRITES_MEMORY):
            effects.writes_arrays = True
        elif isinstance(op, blk.PrintOp | blk.AssertOp):
            effects.ordered = True
        elif isinstance(op, memref.LoadOp | memref.StoreOp):
            write = isinstance(op, memref.StoreOp)
            effects.buffers.setdefault(op.memref, []).append((write, list(op.indices)))
        elif isinstance(op, blk.DotTileOp):  # reads its operands whole, adds into `acc`
            for buffer, write in ((op.lhs, False), (op.rhs, False), (op.acc, True)):
                effects.buffers.setdefault(buffer, []).append((write, []))
    return effects


def _fusable(first: scf.ForOp, second: scf.ForOp) -> bool:
    if (first.lb, first.ub, first.step) != (second.lb, second.ub, second.step):
        return False
    results = set(first.results)
    if any(o in results for op in second.walk() for o in op.operands):
        return False
    a, b = _effects(first), _effects(second)
    if a.ordered or b.ordered:
        return False
    if (a.writes_arrays and (b.reads_arrays or b.writes_arrays)) or (
        b.writes_arrays and a.reads_arrays
    ):
        return False
    ivs = (first.body.blocks[0].args[0], second.body.blocks[0].args[0])
    for buffer in a.buffers.keys() & b.buffers.keys():
        accesses = [(a.buffers[buffer], ivs[0]), (b.buffers[buffer], ivs[1])]
        if not any(write for group, _ in accesses for write, _ in group):
            continue
        # Iteration i of each loop must touch only its own slice buffer[i, ...].
        if any(not idx or idx[0] is not iv for group, iv in accesses for _, idx in group):
            return False
    return True


def _fuse(first: scf.ForOp, second: scf.ForOp) -> scf.ForOp:
    carried = [*first.iter_args, *second.iter_args]
    block = Block(arg_types=[first.body.blocks[0].args[0].type, *(v.type for v in carried)])
    yielded: list[SSAValue] = []
    new_args = iter(block.args[1:])
    for loop in (first, second):
        body = loop.body.blocks[0]
        body.args[0].replace_all_uses_with(block.args[0])
        for arg in body.args[1:]:
            arg.replace_all_uses_with(next(new_args))
        terminator = body.last_op
        assert isinstance(terminator, scf.YieldOp)
        yielded.extend(terminator.operands)
        terminator.detach()
        terminator.erase()
        for op in list(body.ops):
            op.detach()
            block.add_op(op)
    block.add_op(scf.YieldOp(*yielded))
    parent = first.parent_block()
    assert parent is not None
    constant = first.next_op
    while constant is not second:
        assert constant is not None
        moved, constant = constant, constant.next_op
        moved.detach()
        parent.insert_op_before(moved, first)
    fused = scf.ForOp(first.lb, first.ub, first.step, carried, block)
    fused.location = first.location
    parent.insert_op_before(fused, first)
    old_results = [*first.results, *second.results]
    for old, new in zip(old_results, fused.results, strict=True):
        old.replace_all_uses_with(new)
    for loop in (first, second):
        loop.detach()
        loop.erase()
    return fused
