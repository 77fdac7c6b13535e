"""Which pointer arguments of a kernel it may write through: what a launch must refuse to
pass a read-only array for.

A write is a `blk.store`, `blk.atomic_rmw` or `blk.atomic_cas`. Its pointer is traced
back to the kernel's arguments through pointer arithmetic (`addptr`), views of a pointer
(`splat`, `broadcast`, `expand_dims`, `reshape`, `permute`, pointer casts), `where` and
`select` between pointers, and values carried by `scf.for` loops (the initial and the
yielded value both). A pointer that cannot be traced (loaded from memory, carried by a
`while` loop) may point into any argument: then every pointer argument counts as written.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, scf
from xdsl.ir import Block, BlockArgument, SSAValue

from blkc.dialects import blk
from blkc.dialects.types import PtrType, element_type
from blkc.passes.pointer_analysis import VIEWS_OF_ONE_POINTER

_WRITES = (blk.StoreOp, blk.AtomicRMWOp, blk.AtomicCASOp)


def written_arguments(function: func.FuncOp) -> list[bool]:
    """Per argument of `function`, whether the kernel may write through it."""
    entry = function.body.blocks[0]
    pointers = [isinstance(element_type(a.type), PtrType) for a in entry.args]
    written: set[int] = set()
    for op in function.walk():
        if isinstance(op, _WRITES):
            bases = _bases(op.ptr, entry, set())
            if bases is None:
                return pointers
            written |= bases
    return [i in written for i in range(len(entry.args))]


def pointer_bases(ptr: SSAValue, function: func.FuncOp) -> set[int] | None:
    """The indices of `function`'s arguments pointer `ptr` may derive from (traced as
    writes are); None where it cannot be traced."""
    return _bases(ptr, function.body.blocks[0], set())


def _bases(ptr: SSAValue, entry: Block, seen: set[SSAValue]) -> set[int] | None:
    """The indices of the entry arguments `ptr` may derive from; None where untraceable."""
    if ptr in seen:
        return set()  # a loop's value derived from itself adds no argument
    seen.add(ptr)
    if isinstance(ptr, BlockArgument):
        if ptr.block is entry:
            return {ptr.index}
        loop = ptr.block.parent_op()
        if isinstance(loop, scf.ForOp) and ptr.index > 0:
            carried = ptr.index - 1
            yielded = ptr.block.last_op
            assert isinstance(yielded, scf.YieldOp)
            return _union(
                _bases(loop.iter_args[carried], entry, seen),
                _bases(yielded.operands[carried], entry, seen),
            )
        return None
    owner = ptr.owner
    if isinstance(owner, blk.AddPtrOp):
        return _bases(owner.ptr, entry, seen)
    if isinstance(owner, VIEWS_OF_ONE_POINTER) or isinstance(owner, blk.CastOp):
        return _bases(owner.src, entry, seen)
    if isinstance(owner, blk.WhereOp | arith.SelectOp):
        return _union(*(_bases(v, entry, seen) for v in owner.operands[1:]))
    if isinstance(owner, scf.ForOp):
        index = ptr.index  # type: ignore[attr-defined]
        body = owner.body.blocks[0]
        return _bases(body.args[index + 1], entry, seen)
    return None


def _union(*parts: set[int] | None) -> set[int] | None:
    if any(p is None for p in parts):
        return None
    return set().union(*parts)  # type: ignore[arg-type]


__all__ = ["pointer_bases", "written_arguments"]
