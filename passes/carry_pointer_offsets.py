"""`carry-pointer-offsets`: a loop that advances a block of pointers by a uniform step
carries the step's running total (one i64) instead of the pointer block.

Triton's idiom ``a_ptrs += BLOCK_K * stride_ak`` in a K loop makes the block of pointers a
loop-carried value, which the CPU lowering must keep in a buffer, copy each iteration and
load through element by element (a gather). Carrying the scalar offset instead leaves the
pointer block an expression of values from outside the loop, which the lowering fuses into
the loads: contiguous, vectorizable accesses.

```mlir
%r = scf.for %k = %lb to %ub step %s iter_args(%p = %p0) -> (tensor<32x!blk.ptr<f32>>) : i32 {
  ...uses of %p...
  %step = blk.splat %inc : i32 -> tensor<32xi32>
  %next = blk.addptr %p, %step : tensor<32x!blk.ptr<f32>>, tensor<32xi32> -> ...
  scf.yield %next : tensor<32x!blk.ptr<f32>>
}
// becomes
%zero = blk.constant 0 : i64
%t = scf.for %k = %lb to %ub step %s iter_args(%o = %zero) -> (i64) : i32 {
  %p = blk.addptr %p0, (splat %o)
  ...uses of %p...
  %next = blk.add %o, (cast %inc to i64) : i64
  scf.yield %next : i64
}
%r = blk.addptr %p0, (splat %t)
```

Only strict IR, and only steps that are the same for every element (a splat or broadcast of
a scalar); the offset is summed in i64, so it cannot wrap where the addresses did not.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from blkc.dialects import blk
from blkc.dialects.types import PtrType, element_type, with_element


@dataclass(frozen=True)
class CarryPointerOffsetsPass(ModulePass):
    """Loops carry the running offset of a uniformly advanced pointer block, not the block."""

    name = "carry-pointer-offsets"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for loop in [o for o in op.walk() if isinstance(o, scf.ForOp)]:
            _rewrite(loop)


def _uniform_scalar(value: SSAValue) -> SSAValue | None:
    """The scalar every element of `value` equals, if `value` is a splat of it (through
    expand_dims and broadcast)."""
    while isinstance(value.type, TensorType):
        owner = value.owner
        if isinstance(owner, blk.SplatOp | blk.ExpandDimsOp | blk.BroadcastOp):
            value = owner.src
        else:
            return None
    return value


def _advanced_positions(loop: scf.ForOp) -> dict[int, SSAValue]:
    """The carried pointer blocks that each iteration advances by a uniform step: their
    position among the carried values, and the step (a scalar)."""
    body = loop.body.block
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    found: dict[int, SSAValue] = {}
    for i, arg in enumerate(body.args[1:]):
        if not isinstance(arg.type, TensorType) or not isinstance(
            element_type(arg.type), PtrType
        ):
            continue
        nxt = yielded.operands[i].owner
        if isinstance(nxt, blk.AddPtrOp) and nxt.ptr is arg:
            step = _uniform_scalar(nxt.offset)
            if step is not None:
                found[i] = step
    return found


def _rewrite(loop: scf.ForOp) -> None:
    positions = _advanced_positions(loop)
    if not positions:
        return
    outer = loop.parent_block()
    assert outer is not None
    body = loop.body.block
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)

    def insert(block: Block, new: Operation, before: Operation | None) -> SSAValue:
        new.location = loop.location
        if before is None:
            block.add_op(new)
        else:
            block.insert_op_before(new, before)
        return new.results[0]

    zero = insert(outer, blk.ConstantOp(IntegerAttr(0, i64)), loop)
    inits = list(loop.iter_args)
    first = body.first_op
    for i, step in positions.items():
        start = inits[i]
        offset = body.insert_arg(i64, i + 2)
        old = body.args[i + 1]
        offsets = insert(body, blk.SplatOp(offset, with_element(start.type, i64)), first)
        old.replace_all_uses_with(insert(body, blk.AddPtrOp(start, offsets, start.type), first))
        body.erase_arg(old)
        if step.type != i64:
            step = insert(body, blk.CastOp(step, i64), yielded)
        advanced = yielded.operands[i]
        yielded.operands[i] = insert(body, blk.AddOp(offset, step, i64), yielded)
        _erase_if_unused(advanced.owner)
        inits[i] = zero
    region = loop.detach_region(loop.body)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, inits, region)
    insert(outer, new_loop, loop)
    after = loop.next_op
    for i, (old_result, new_result) in enumerate(zip(loop.results, new_loop.results, strict=True)):
        if i in positions and old_result.uses:
            start = loop.iter_args[i]
            splat = blk.SplatOp(new_result, with_element(start.type, i64))
            insert(outer, splat, after)
            final = insert(outer, blk.AddPtrOp(start, splat.results[0], start.type), after)
            old_result.replace_all_uses_with(final)
        elif i not in positions:
            old_result.replace_all_uses_with(new_result)
    loop.detach()
    loop.erase()


def _erase_if_unused(op: Operation | None) -> None:
    """Erase `op` and the splat chain feeding it once nothing uses them."""
    while isinstance(op, Operation) and all(not r.uses for r in op.results):
        feeding = [o.owner for o in op.operands if isinstance(o.owner, Operation)]
        op.detach()
        op.erase()
        shapes = (blk.SplatOp, blk.ExpandDimsOp, blk.BroadcastOp)
        chain = [f for f in feeding if isinstance(f, shapes)]
        op = chain[0] if chain else None
