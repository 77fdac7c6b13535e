"""`convert-simt-to-thread-loops`: run a CTA's threads one after another on a CPU.

The technique of CPU OpenCL implementations (pocl's work-item loops): the threads of a
CTA meet only at barriers, which `convert-blk-to-simt` leaves in uniform code, and at warp
shuffles, which it leaves at the top level of `simt.threads` regions. So

- each `simt.threads` region becomes loops over the threads, one loop per stretch
  between shuffles; a shuffle stores its operand into an exchange array (one slot per
  thread) at the end of one loop and reads the partner's slot (`tid ^ mask`) at the start
  of the next. A value computed before a shuffle and used after it travels in a context
  array, one slot per thread;
- a barrier disappears: every thread finished the loop before it when the next begins;
- shared memory becomes one buffer; each thread's private buffer becomes one row of a
  buffer with a row per thread;
- a vector access becomes a loop of scalar ones (under the same mask).

Running all threads of one stretch before any thread of the next is one of the schedules
a GPU may choose, so the results are those of the GPU code, up to races it would have.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from blkc.dialects.blk import AddPtrOp, LoadOp, StoreOp
from blkc.dialects.simt import (
    NUM_WARPS_ATTR,
    WARP_SIZE,
    AllocLocalOp,
    AllocSharedOp,
    BarrierOp,
    ShuffleXorOp,
    ThreadsOp,
    VectorLoadOp,
    VectorStoreOp,
)


@dataclass(frozen=True)
class ConvertSimtToThreadLoopsPass(ModulePass):
    """Turn every `simt.threads` region into loops over the CTA's threads."""

    name = "convert-simt-to-thread-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nested in list(op.walk()):
            if isinstance(nested, func.FuncOp) and NUM_WARPS_ATTR in nested.attributes:
                _ThreadLoops(nested).run()


def _enclosing_region(op: Operation) -> ThreadsOp:
    parent = op.parent_op()
    while not isinstance(parent, ThreadsOp):
        assert parent is not None, f"'{op.name}' on a per-thread buffer outside simt.threads"
        parent = parent.parent_op()
    return parent


class _ThreadLoops:
    def __init__(self, function: func.FuncOp):
        attr = function.attributes[NUM_WARPS_ATTR]
        assert isinstance(attr, IntegerAttr)
        self.threads = attr.value.data * WARP_SIZE
        self.function = function
        self.entry = function.body.blocks[0]
        self._constants: dict[int, SSAValue] = {}

    def const(self, value: int) -> SSAValue:
        if value not in self._constants:
            op = arith.ConstantOp(IntegerAttr(value, IndexType()))
            self._at_entry(op)
            self._constants[value] = op.result
        return self._constants[value]

    def _at_entry(self, op: Operation) -> None:
        first = self.entry.first_op
        assert first is not None
        self.entry.insert_op_before(op, first)

    def alloca(self, shape: list[int], element: Attribute) -> SSAValue:
        op = memref.AllocaOp.get(element, alignment=64, shape=shape)
        self._at_entry(op)
        return op.memref

    def run(self) -> None:
        for op in list(self.function.walk()):
            if isinstance(op, VectorLoadOp | VectorStoreOp):
                self._scalar_accesses(op)
        ops = list(self.function.walk())
        for op in ops:
            if isinstance(op, AllocSharedOp):
                t = op.memref.type
                assert isinstance(t, MemRefType)
                op.memref.replace_all_uses_with(self.alloca(list(t.get_shape()), t.element_type))
                op.detach()
                op.erase()
            elif isinstance(op, AllocLocalOp):
                self._one_row_per_thread(op)
        for op in ops:
            if isinstance(op, ThreadsOp):
                self._loops(op)
            elif isinstance(op, BarrierOp):
                op.detach()
                op.erase()

    def _scalar_accesses(self, op: VectorLoadOp | VectorStoreOp) -> None:
        """A loop over the elements of a vector access, each accessed alone."""
        body = Block(arg_types=[IndexType()])
        lane = body.args[0]
        offset = arith.IndexCastOp(lane, i64)
        ptr = AddPtrOp(op.ptr, offset.result, op.ptr.type)
        access: list[Operation]
        if isinstance(op, VectorLoadOp):
            load = LoadOp(ptr.result, op.mask, op.other)
            access = [load, memref.StoreOp.get(load.result, op.buffer, [lane])]
        else:
            value = memref.LoadOp.get(op.buffer, [lane])
            access = [value, StoreOp(ptr.result, value.res, op.mask)]
        for new in (offset, ptr, *access):
            new.location = op.location
            body.add_op(new)
        body.add_op(scf.YieldOp())
        loop = scf.ForOp(self.const(0), self.const(op.width), self.const(1), [], body)
        block = op.parent_block()
        assert block is not None
        block.insert_op_before(loop, op)
        op.detach()
        op.erase()

    def _one_row_per_thread(self, op: AllocLocalOp) -> None:
        t = op.memref.type
        assert isinstance(t, MemRefType)
        rows = self.alloca([self.threads, *t.get_shape()], t.element_type)
        for use in list(op.memref.uses):
            access = use.operation
            tid = _enclosing_region(access).tid
            new: Operation
            if isinstance(access, memref.LoadOp):
                new = memref.LoadOp.get(rows, [tid, *access.indices])
                access.res.replace_all_uses_with(new.results[0])
            elif isinstance(access, memref.StoreOp):
                new = memref.StoreOp.get(access.value, rows, [tid, *access.indices])
            else:
                raise AssertionError(f"per-thread buffer used by '{access.name}'")
            block = access.parent_block()
            assert block is not None
            block.insert_op_before(new, access)
            access.detach()
            access.erase()
        op.detach()
        op.erase()

    def _loops(self, region: ThreadsOp) -> None:
        """Replace `region` by loops over the threads, split at its shuffles."""
        block = region.body.block
        stretches: list[list[Operation]] = [[]]
        ends: list[list[ShuffleXorOp]] = [[]]
        for op in list(block.ops):
            if isinstance(op, ShuffleXorOp):
                if stretches[-1]:
                    stretches.append([])
                    ends.append([])
                ends[-2].append(op)
            else:
                stretches[-1].append(op)
        loops = [self._thread_loop(region) for _ in stretches]
        for k, ops in enumerate(stretches):
            body, tid = loops[k]
            for op in ops:
                op.detach()
                body.add_op(op)
            # The thread index of this stretch is its loop's.
            region.tid.replace_uses_with_if(tid, lambda use, body=body: self._inside(use, body))
        for k, shuffles in enumerate(ends):
            for shuffle in shuffles:
                self._exchange(shuffle, loops[k], loops[k + 1])
        for k, ops in enumerate(stretches):
            for op in ops:
                for result in op.results:
                    self._carry(result, k, loops)
        for body, _ in loops:
            body.add_op(scf.YieldOp())
        region.detach()
        region.erase()

    @staticmethod
    def _inside(use: object, body: Block) -> bool:
        op = use.operation  # type: ignore[attr-defined]
        while op is not None:
            if op.parent_block() is body:
                return True
            op = op.parent_op()
        return False

    def _thread_loop(self, region: ThreadsOp) -> tuple[Block, SSAValue]:
        body = Block(arg_types=[IndexType()])
        loop = scf.ForOp(self.const(0), self.const(self.threads), self.const(1), [], body)
        parent = region.parent_block()
        assert parent is not None
        parent.insert_op_before(loop, region)
        return body, body.args[0]

    def _exchange(
        self, shuffle: ShuffleXorOp, before: tuple[Block, SSAValue], after: tuple[Block, SSAValue]
    ) -> None:
        """Each thread leaves its operand in a slot; the next loop reads the partner's."""
        slots = self.alloca([self.threads], shuffle.value.type)
        body, tid = before
        body.add_op(memref.StoreOp.get(shuffle.value, slots, [tid]))
        next_body, next_tid = after
        mask = self.const(shuffle.lane_mask.value.data)
        partner = arith.XOrIOp(next_tid, mask)
        read = memref.LoadOp.get(slots, [partner.result])
        first = next_body.first_op
        for op in (partner, read):
            if first is None:
                next_body.add_op(op)
            else:
                next_body.insert_op_before(op, first)
        shuffle.result.replace_all_uses_with(read.res)
        shuffle.detach()
        shuffle.erase()

    def _carry(
        self,
        value: SSAValue,
        k: int,
        loops: list[tuple[Block, SSAValue]],
    ) -> None:
        """Pass `value`, computed in loop `k`, to the later loops using it through a
        context array (one slot per thread)."""
        later = {
            loop
            for use in value.uses
            if (loop := self._loop_of(use.operation, loops)) is not None and loop != k
        }
        if not later:
            return
        slots = self.alloca([self.threads], value.type)
        owner = value.owner
        assert isinstance(owner, Operation)
        body, tid = loops[k]
        store = memref.StoreOp.get(value, slots, [tid])
        if owner.next_op is None:
            body.add_op(store)
        else:
            body.insert_op_before(store, owner.next_op)
        for j in sorted(later):
            next_body, next_tid = loops[j]
            read = memref.LoadOp.get(slots, [next_tid])
            first = next_body.first_op
            assert first is not None
            next_body.insert_op_before(read, first)
            value.replace_uses_with_if(
                read.res,
                lambda use, b=next_body, r=read: use.operation is not r and self._inside(use, b),
            )

    def _loop_of(self, op: Operation, loops: list[tuple[Block, SSAValue]]) -> int | None:
        for k, (body, _) in enumerate(loops):
            current: Operation | None = op
            while current is not None:
                if current.parent_block() is body:
                    return k
                current = current.parent_op()
        return None
