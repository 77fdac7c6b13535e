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

`scf.while` loops (Triton-C's `for (k = K; k > 0; k -= TK)`) get the same treatment when
their condition passes the pointer block on unchanged. Only strict IR, and only steps that
are the same for every element (a splat or broadcast of a scalar); the offset is summed in
i64, so it cannot wrap where the addresses did not.
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
        for loop in [o for o in op.walk() if isinstance(o, scf.ForOp | scf.WhileOp)]:
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


def _is_pointer_block(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and isinstance(element_type(value.type), PtrType)


def _advanced_positions(loop: scf.ForOp | scf.WhileOp) -> dict[int, SSAValue]:
    """The carried pointer blocks that each iteration advances by a uniform step: their
    position among the carried values, and the step (a scalar). A while loop's condition
    must pass them on unchanged."""
    body = _body(loop)
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    carried = body.args[1:] if isinstance(loop, scf.ForOp) else body.args
    found: dict[int, SSAValue] = {}
    for i, arg in enumerate(carried):
        if not _is_pointer_block(arg):
            continue
        if isinstance(loop, scf.WhileOp):
            before = loop.before_region.block
            condition = before.last_op
            assert isinstance(condition, scf.ConditionOp)
            if condition.args[i] is not before.args[i]:
                continue
        nxt = yielded.operands[i].owner
        if isinstance(nxt, blk.AddPtrOp) and nxt.ptr is arg:
            step = _uniform_scalar(nxt.offset)
            if step is not None:
                found[i] = step
    return found


def _body(loop: scf.ForOp | scf.WhileOp) -> Block:
    """The block that advances the pointers and yields them."""
    return loop.body.block if isinstance(loop, scf.ForOp) else loop.after_region.block


def _insert(block: Block, new: Operation, before: Operation | None, loop: Operation) -> SSAValue:
    new.location = loop.location
    if before is None:
        block.add_op(new)
    else:
        block.insert_op_before(new, before)
    return new.results[0]


def _offset_argument(block: Block, index: int, start: SSAValue, loop: Operation) -> SSAValue:
    """Replace the pointer block argument `index` of `block` by an i64 offset from `start`;
    its uses get `start` advanced by that offset."""
    old = block.args[index]
    offset = block.insert_arg(i64, index)
    first = block.first_op
    offsets = _insert(block, blk.SplatOp(offset, with_element(start.type, i64)), first, loop)
    old.replace_all_uses_with(_insert(block, blk.AddPtrOp(start, offsets, start.type), first, loop))
    block.erase_arg(old)
    return offset


def _rewrite(loop: scf.ForOp | scf.WhileOp) -> None:
    positions = _advanced_positions(loop)
    if not positions:
        return
    outer = loop.parent_block()
    assert outer is not None
    body = _body(loop)
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    first_carried = 1 if isinstance(loop, scf.ForOp) else 0
    zero = _insert(outer, blk.ConstantOp(IntegerAttr(0, i64)), loop, loop)
    starts = list(loop.iter_args if isinstance(loop, scf.ForOp) else loop.arguments)
    inits = list(starts)
    for i, step in positions.items():
        offset = _offset_argument(body, i + first_carried, starts[i], loop)
        if step.type != i64:
            step = _insert(body, blk.CastOp(step, i64), yielded, loop)
        advanced = yielded.operands[i]
        yielded.operands[i] = _insert(body, blk.AddOp(offset, step, i64), yielded, loop)
        _erase_if_unused(advanced.owner)
        inits[i] = zero
    if isinstance(loop, scf.ForOp):
        region = loop.detach_region(loop.body)
        new_loop: scf.ForOp | scf.WhileOp = scf.ForOp(loop.lb, loop.ub, loop.step, inits, region)
    else:
        before = loop.before_region.block
        condition = before.last_op
        assert isinstance(condition, scf.ConditionOp)
        for i in positions:
            offset = _offset_argument(before, i, starts[i], loop)
            pointers = condition.args[i]
            condition.operands[i + 1] = offset  # the condition passes the offset on
            _erase_if_unused(pointers.owner)
        types = [v.type for v in before.args]
        regions = [loop.detach_region(r) for r in (loop.before_region, loop.after_region)]
        new_loop = scf.WhileOp(inits, types, *regions)
    _insert(outer, new_loop, loop, loop)
    after = loop.next_op
    for i, (old_result, new_result) in enumerate(zip(loop.results, new_loop.results, strict=True)):
        if i in positions and old_result.uses:
            splat = blk.SplatOp(new_result, with_element(starts[i].type, i64))
            _insert(outer, splat, after, loop)
            final = _insert(
                outer, blk.AddPtrOp(starts[i], splat.results[0], starts[i].type), after, loop
            )
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
