"""`blk.sort` and `blk.bitonic_merge` as loops, for `convert-blk-to-loops` and
`convert-blk-to-simt` alike: the op's bitonic network (`blk.bitonic_network`), step by
step, on a buffer holding the block.

The block is copied into a scratch buffer (`BlockLowering.scratch`: on the stack for one
thread, in shared memory for a CTA), then each step is one loop nest over the step's pairs
of every line (a CTA shares them out among its threads) with a `fence` after it (a
barrier where threads share the buffer). A compare-and-swap writes its two positions in
place; a top-k halving writes the winners to a second buffer, each line's first half, and
the two buffers trade places. The result is the last buffer written, read at each line's
first `k` positions:

```mlir
%t = blk.sort %x axis = 0 descending k = 2 : tensor<8xf32> -> tensor<2xf32>
// the 8 elements of %x copied to a buffer, then one loop per step of
// bitonic_network(8, 2): a swap over 4 pairs, a halving into the second buffer,
// a swap over 2 pairs, a halving, a swap over 1 pair
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerAttr, UnitAttr, i1
from xdsl.ir import SSAValue

from blkc import dtypes
from blkc.dialects import blk
from blkc.dialects.types import shape_of
from blkc.passes.fusion_plan import elem_type

if TYPE_CHECKING:
    from blkc.passes.block_lowering import BlockLowering, Builder, Index, LoopBody, NestBody


def lower_sort(lowering: BlockLowering, op: blk.SortOp | blk.BitonicMergeOp, here: Builder) -> None:
    """Run `op`'s network on a copy of its operand; its result is the buffer written
    last (`lowering.buffers`)."""
    shape = list(shape_of(op.src.type))
    elem = elem_type(op.src)
    lines = lowering.scratch(shape, elem)
    lowering.copy_into(op.src, lines, here)
    spare: SSAValue | None = None
    descending = op.descending is not None
    for step in op.network():
        step_shape = list(shape)
        step_shape[op.axis.value.data] = step.pairs()
        if isinstance(step, blk.Halve):
            spare = spare or lowering.scratch(shape, elem)
            _halve(lowering, op, step, lines, spare, descending, step_shape, here)
            lines, spare = spare, lines
        else:
            _compare_swap(lowering, op, step, lines, descending, step_shape, here)
        lowering.fence(here)
    lowering.buffers[op.result] = lines


def _pair(
    lowering: BlockLowering, idx: Index, axis: int, distance: int, b: Builder
) -> tuple[Index, Index]:
    """The positions of pair `idx[axis]` of positions `distance` apart: the lower one,
    without bit `distance` (pair t is ``t + (t & -distance)``), and the upper one."""
    t = idx[axis]
    high_bits = b.value(arith.AndIOp(t, lowering.const(-distance)))
    low = b.value(arith.AddiOp(t, high_bits))
    high = b.value(arith.AddiOp(low, lowering.const(distance)))
    return _at(idx, axis, low), _at(idx, axis, high)


def _at(idx: Index, axis: int, position: SSAValue) -> Index:
    return [*idx[:axis], position, *idx[axis + 1 :]]


def _compare_swap(
    lowering: BlockLowering,
    op: blk.SortOp | blk.BitonicMergeOp,
    step: blk.CompareSwap,
    lines: SSAValue,
    descending: bool,
    step_shape: list[int],
    here: Builder,
) -> None:
    axis = op.axis.value.data

    def body(lb: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
        b = lb.builder
        low_idx, high_idx = _pair(lowering, idx, axis, step.distance, b)
        low = b.value(memref.LoadOp.get(lines, low_idx))
        high = b.value(memref.LoadOp.get(lines, high_idx))
        if step.direction is None:
            flip = b.value(arith.ConstantOp(IntegerAttr(int(descending), i1)))
        else:
            bit = b.value(arith.AndIOp(low_idx[axis], lowering.const(step.direction)))
            flip = b.value(arith.CmpiOp(bit, lowering.const(0), "ne"))
        # Each position decides alone, as in Triton: the lower takes the upper's value
        # where (low > high) != flip, the upper the lower's where (high > low) == flip.
        low_moves = b.value(blk.XorOp(b.value(blk.CmpOp("gt", low, high, i1)), flip, i1))
        high_stays = b.value(blk.XorOp(b.value(blk.CmpOp("gt", high, low, i1)), flip, i1))
        elem = elem_type(op.src)
        b.insert(
            memref.StoreOp.get(b.value(blk.WhereOp(low_moves, high, low, elem)), lines, low_idx)
        )
        b.insert(
            memref.StoreOp.get(b.value(blk.WhereOp(high_stays, high, low, elem)), lines, high_idx)
        )
        return []

    _unrolled_never(lowering, here, step_shape, body)


def _unrolled_never(
    lowering: BlockLowering, here: Builder, shape: list[int], body: NestBody
) -> None:
    """`lowering.loop_nest(here, shape, body)`, its `scf.for`s marked `blk.NO_UNROLL_ATTR`
    (unrolled twice at most): a network's steps, unrolled fully and vectorized by LLVM,
    took seconds to compile (a 4 x 32 float32 sort: 2.5-2.8 s; 0.25 s so), and ran no
    faster (a 256 x 1024 float32 sort: 6.2-7.0 ms either way; 64 x 128: 0.09 ms)."""
    block = here.block
    before = set(block.ops)
    lowering.loop_nest(here, shape, body)
    for op in block.ops:
        if op not in before:
            for loop in op.walk():
                if isinstance(loop, scf.ForOp):
                    loop.attributes[blk.NO_UNROLL_ATTR] = UnitAttr()


def _halve(
    lowering: BlockLowering,
    op: blk.SortOp | blk.BitonicMergeOp,
    step: blk.Halve,
    lines: SSAValue,
    into: SSAValue,
    descending: bool,
    step_shape: list[int],
    here: Builder,
) -> None:
    axis = op.axis.value.data
    elem = elem_type(op.src)

    def body(lb: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
        b = lb.builder
        low_idx, high_idx = _pair(lowering, idx, axis, step.distance, b)
        low = b.value(memref.LoadOp.get(lines, low_idx))
        high = b.value(memref.LoadOp.get(lines, high_idx))
        better = b.value(blk.CmpOp("gt" if descending else "lt", high, low, i1))
        if dtypes.from_xdsl(elem).is_float:
            low_is_nan = b.value(blk.CmpOp("ne", low, low, i1))
            better = b.value(blk.OrOp(better, low_is_nan, i1))
        b.insert(memref.StoreOp.get(b.value(blk.WhereOp(better, high, low, elem)), into, idx))
        return []

    _unrolled_never(lowering, here, step_shape, body)
