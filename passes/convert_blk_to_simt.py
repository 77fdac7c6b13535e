"""`convert-blk-to-simt{num-warps=4}`: strict block IR to the code of one thread of a CTA.

One program becomes one CTA of `num_warps * 32` threads. Every block is distributed over
the threads by Triton's blocked layout (`Layout`): a thread owns chunks of a few
contiguous elements along the fastest dimension. Scalars stay *uniform*: every thread
computes them. What `convert-blk-to-loops` does for one thread (fusing elementwise
chains, recomputing broadcasts through index maps) this pass does per thread, over the
elements the thread owns, inside `simt.threads` regions:

- a store, an atomic, a materialized value: one region whose loops visit the thread's
  own elements;
- a materialized block lives in the thread's registers (`simt.alloc_local`, indexed by
  the thread's own element count) when every reader visits it element for element, and
  in shared memory (`simt.alloc_shared`, block-indexed, written then `simt.barrier`)
  when a reader goes through a view (`broadcast`, `expand_dims`, `permute`, `reshape`),
  which can land on another thread's element;
- a reduction to a scalar: each thread's partial, a butterfly of warp shuffles, one value
  per warp in shared memory, a barrier, and every thread combining the warps' values;
  a reduction along an axis, a scan and `dot` read their operands from shared memory
  (`dot`: each thread computes its own elements of the result, over k);
- a scalar side effect (a store, an atomic, a print through a scalar pointer) runs in
  thread 0 only; an atomic's old value reaches the others through shared memory;
- a load or store whose chunk is provably one contiguous run of addresses, aligned to the
  chunk's size, under one mask value (`axis_info`: `pid * BLOCK + arange`, aligned
  pointers, hints) moves the chunk as one access (`simt.vector_load`,
  `simt.vector_store`: PTX `ld.global.v4`); a contiguous run under a per-element mask
  addresses its elements from the chunk's first (one address computation per chunk, not
  one sign extension per element).

Memory written by one thread and read by another is separated by a barrier: after a
store (unless the kernel returns next) and around every shared buffer write inside a
loop, where the previous iteration's readers may still be busy. Memory read by one thread
and then written by another too: a store or an atomic waits at a barrier for the loads
since the last one (in a loop, the previous iteration's too) unless none can read what it
writes, by `convert-blk-to-loops`'s rule (`disjoint-args` as there), where a load read by
the thread owning its element and a write through the same injective pointer block land
in the same thread. A load fused into the write's region is read into registers first.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from math import prod

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, i1, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from blkc import dtypes
from blkc.dialects import blk
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
from blkc.dialects.types import PtrType, element_type, shape_of
from blkc.passes.axis_info import element_bytes
from blkc.passes.block_lowering import (
    BlockLowering,
    Builder,
    Index,
    LoopBody,
    NestBody,
    accumulator_type,
    defined_in,
)
from blkc.passes.fusion_plan import WRITES_MEMORY, elem_type, is_block
from blkc.passes.pointer_analysis import Overlap

VECTOR = 4
"""Contiguous elements per chunk (4 x f32: one 16-byte `ld.global.v4`)."""

_VIEWS = (blk.BroadcastOp, blk.ExpandDimsOp, blk.PermuteOp, blk.ReshapeOp)
_FUSED = (blk.ElementwiseOp, blk.CastOp, blk.BitcastOp, blk.LoadOp, blk.GatherOp)
_ARG_KINDS = (blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN)


@dataclass(frozen=True)
class ConvertBlkToSimtPass(ModulePass):
    """Lower every block to per-thread code of a CTA of `num_warps` warps."""

    name = "convert-blk-to-simt"
    num_warps: int = 4
    disjoint_args: bool = False
    """Take accesses through different pointer arguments not to overlap (as
    `convert-blk-to-loops{disjoint-args=true}`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nested in list(op.walk()):
            if isinstance(nested, func.FuncOp) and not nested.is_declaration:
                lowering = SimtLowering(nested, self.num_warps, self.disjoint_args)
                lowering.run()
                nested.attributes[NUM_WARPS_ATTR] = IntegerAttr(self.num_warps, i64)
                lowering.mark_disjoint_args()


@dataclass(frozen=True)
class Layout:
    """Triton's blocked layout, row-major: a block's elements, in row-major order, are cut
    into chunks of `vec` elements along the last dimension, and chunk `c` is the
    `c // threads`-th chunk of thread `c % threads`. A warp's 32 threads thus touch 32
    consecutive chunks (coalesced), and every element has exactly one owner (threads past
    the last chunk own none), so stores, atomics and reductions need no deduplication."""

    shape: tuple[int, ...]
    threads: int

    @property
    def vec(self) -> int:
        v = VECTOR
        while self.shape[-1] % v:
            v //= 2
        return v

    @property
    def chunks(self) -> int:
        return prod(self.shape) // self.vec

    @property
    def reps(self) -> int:
        return -(-self.chunks // self.threads)

    @property
    def guarded(self) -> bool:
        """Whether some threads own one chunk fewer than `reps`."""
        return self.chunks % self.threads != 0

    @property
    def local_size(self) -> int:
        return self.reps * self.vec


@dataclass
class _Chunk:
    """The chunk of `vec` contiguous elements a thread's loop visits: code for the whole
    chunk goes `before` that loop (computed at the chunk's first element, by `first`),
    or after it (`after`, run once the loop is built)."""

    before: Builder
    start: Index
    first: _ThreadBody
    vec: int
    lane: SSAValue | None = None
    """The visited element's position in the chunk (the loop's induction variable)."""
    loaded: dict[SSAValue, tuple[SSAValue, SSAValue | None]] = field(default_factory=dict)
    """Vector-loaded blocks: their chunk's buffer and mask."""
    after: list[Callable[[Builder], None]] = field(default_factory=list)


@dataclass
class _ThreadBody(LoopBody):
    """A loop body visiting one element the thread owns: `local` is its position in the
    thread's registers, `key` identifies the block index values of the visit, `chunk` the
    chunk it belongs to (None where the layout has one element per chunk)."""

    key: tuple[int, ...] = ()
    shape: tuple[int, ...] = ()
    local: SSAValue | None = field(default=None)
    chunk: _Chunk | None = None


class SimtLowering(BlockLowering):
    """One function's blocks as the code of one thread of a CTA of `num_warps` warps,
    each thread visiting the elements it owns (`Layout`)."""

    def __init__(self, function: func.FuncOp, num_warps: int, disjoint_args: bool = False):
        super().__init__(function, disjoint_args)
        self.num_warps = num_warps
        self.threads = num_warps * WARP_SIZE
        self.registers: set[SSAValue] = set()
        """The buffers private to each thread (indexed by the thread's own positions)."""
        self._indirect: dict[SSAValue, bool] = {}
        self._loop_depth = 0
        self._carried_shared = False
        self.axis = self.plan.axis_info()
        self._barrier_before = {
            op
            for op in function.walk()
            if isinstance(op, WRITES_MEMORY) and self.plan.may_clobber(self._earlier_reads(op))
        }
        """The writes that may land where another thread read since the last barrier."""

    def run(self) -> None:
        super().run()
        _drop_repeated_barriers(self.entry)

    # -- storage -----------------------------------------------------------------------

    def layout(self, shape: Sequence[int]) -> Layout:
        return Layout(tuple(shape), self.threads)

    def _read_indirectly(self, value: SSAValue) -> bool:
        """Whether some reader of `value` goes through a view or gathers from it, which
        may map an element this thread visits onto another thread's element."""
        if value not in self._indirect:
            self._indirect[value] = any(
                isinstance(use.operation, _VIEWS)
                or (isinstance(use.operation, blk.GatherOp) and use.index == 0)
                or (
                    isinstance(use.operation, _FUSED)
                    and is_block(use.operation.results[0])
                    and use.operation.results[0] not in self.materialized
                    and self._read_indirectly(use.operation.results[0])
                )
                for use in value.uses
            )
        return self._indirect[value]

    def _alloc(self, shape: Sequence[int], elem: Attribute, shared: bool) -> SSAValue:
        op: Operation
        if shared:
            op = AllocSharedOp(list(shape), elem)
        else:
            op = AllocLocalOp([self.layout(shape).local_size], elem)
        first = self.entry.first_op
        assert first is not None
        self.entry.insert_op_before(op, first)
        buffer = op.results[0]
        if not shared:
            self.registers.add(buffer)
        return buffer

    def _buffer_for(self, value: SSAValue) -> SSAValue:
        return self._alloc(shape_of(value.type), elem_type(value), self._read_indirectly(value))

    def alloca(self, shape: Sequence[int], elem: Attribute) -> SSAValue:
        # Only the base class still calls this: the buffers of blocks loops carry.
        return self._alloc(shape, elem, self._carried_shared)

    def scratch(self, shape: Sequence[int], elem: Attribute) -> SSAValue:
        return self._alloc(shape, elem, shared=True)

    def fence(self, here: Builder) -> None:
        here.insert(BarrierOp())

    def _in_loop(self, here: Builder) -> bool:
        if self._loop_depth:
            return True
        op = here.block.parent_op()
        while op is not None:
            if isinstance(op, scf.ForOp | scf.WhileOp):
                return True
            op = op.parent_op()
        return False

    def _store(self, buffer: SSAValue, value: SSAValue, idx: Index, body: LoopBody) -> None:
        position = [self._local(body, idx)] if buffer in self.registers else idx
        body.builder.insert(memref.StoreOp.get(value, buffer, position))

    def _local(self, body: LoopBody, idx: Index) -> SSAValue:
        if not isinstance(body, _ThreadBody) or body.key != _key(idx):
            raise AssertionError("a per-thread buffer accessed at another thread's element")
        assert body.local is not None
        return body.local

    def element(self, value: SSAValue, idx: Index, body: LoopBody) -> SSAValue:
        buffer = self.buffers.get(value) if is_block(value) else None
        if buffer is None or buffer not in self.registers:
            return super().element(value, idx, body)
        key = (id(value), _key(idx))
        if key not in body.memo:
            if shape_of(value.type) != getattr(body, "shape", None):
                raise AssertionError("a per-thread buffer read through a view")
            load = memref.LoadOp.get(buffer, [self._local(body, idx)])
            body.memo[key] = body.builder.value(load)
        return body.memo[key]

    # -- the elements a thread owns ----------------------------------------------------

    def loop_nest(
        self,
        builder: Builder,
        shape: Sequence[int],
        body: NestBody,
        inits: Sequence[SSAValue] = (),
    ) -> list[SSAValue]:
        """Each thread visits its own elements of `shape`, in a `simt.threads` region of
        its own (no value leaves it: `inits` must be empty)."""
        assert not inits, "values cannot leave a simt.threads region"
        region = ThreadsOp()
        builder.insert(region)
        self.owned_nest(Builder(region.body.block), region.tid, shape, body)
        return []

    def owned_nest(
        self,
        builder: Builder,
        tid: SSAValue,
        shape: Sequence[int],
        body: NestBody,
        inits: Sequence[SSAValue] = (),
    ) -> list[SSAValue]:
        """Loops over the elements of `shape` thread `tid` owns (`Layout`), carrying
        `inits` through `body`; returns the final carried values."""
        layout = self.layout(shape)

        def chunk(b: Builder, rep: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
            c = tid
            if layout.reps > 1:
                c = b.value(
                    arith.AddiOp(tid, b.value(arith.MuliOp(rep, self.const(layout.threads))))
                )
            if not layout.guarded:
                return elements(b, c, rep, carried)
            inside = b.value(arith.CmpiOp(c, self.const(layout.chunks), "ult"))
            then = Block()
            results = elements(Builder(then), c, rep, carried)
            then.add_op(scf.YieldOp(*results))
            otherwise = Block()
            otherwise.add_op(scf.YieldOp(*carried))
            branch = scf.IfOp(inside, [v.type for v in carried], Region(then), Region(otherwise))
            b.insert(branch)
            return list(branch.results)

        def elements(
            b: Builder, c: SSAValue, rep: SSAValue, carried: list[SSAValue]
        ) -> list[SSAValue]:
            base = b.value(arith.MuliOp(c, self.const(layout.vec))) if layout.vec > 1 else c
            start = self._unravel(base, shape, b)
            first_local = (
                b.value(arith.MuliOp(rep, self.const(layout.vec))) if layout.vec > 1 else rep
            )

            chunk: _Chunk | None = None
            if layout.vec > 1:
                first = _ThreadBody(b, key=_key(start), shape=tuple(shape), local=first_local)
                chunk = _Chunk(b, start, first, layout.vec)

            def visit(vb: Builder, j: SSAValue | None, carried: list[SSAValue]) -> list[SSAValue]:
                idx = list(start)
                local = first_local
                if j is not None:
                    idx[-1] = vb.value(arith.AddiOp(start[-1], j))
                    local = vb.value(arith.AddiOp(first_local, j))
                if chunk is not None:
                    chunk.lane = j
                visit_body = _ThreadBody(
                    vb, key=_key(idx), shape=tuple(shape), local=local, chunk=chunk
                )
                return body(visit_body, idx, carried)

            if chunk is None:
                return visit(b, None, carried)
            # What the visit hoists for the chunk lands in `b` before the loop, which is
            # inserted once its body is built.
            results = self._for(b, layout.vec, visit, carried)
            for finish in chunk.after:
                finish(b)
            return results

        if layout.reps == 1:
            return chunk(builder, self.const(0), list(inits))
        return self._for(builder, layout.reps, chunk, list(inits))

    def _for(
        self,
        b: Builder,
        count: int,
        body: Callable[[Builder, SSAValue, list[SSAValue]], list[SSAValue]],
        carried: list[SSAValue],
        start: SSAValue | None = None,
        stop: SSAValue | None = None,
    ) -> list[SSAValue]:
        block = Block(arg_types=[IndexType(), *(c.type for c in carried)])
        inner = Builder(block)
        results = body(inner, block.args[0], list(block.args[1:]))
        inner.insert(scf.YieldOp(*results))
        loop = scf.ForOp(
            start or self.const(0), stop or self.const(count), self.const(1), carried, block
        )
        b.insert(loop)
        return list(loop.results)

    # -- chunks: vector accesses and addresses from the chunk's first ----------------------

    def _chunk_visited(self, value: SSAValue, idx: Index, body: LoopBody) -> _Chunk | None:
        """The chunk `body` visits, when it visits `value` element for element."""
        if (
            isinstance(body, _ThreadBody)
            and body.chunk is not None
            and body.key == _key(idx)
            and shape_of(value.type) == body.shape
        ):
            return body.chunk
        return None

    def _vectorizable(self, op: blk.LoadOp | blk.StoreOp) -> bool:
        """Whether every chunk of `op` is one aligned run of addresses under one mask."""
        size = element_bytes(op.ptr)
        vec = self.layout(shape_of(op.ptr.type)).vec
        if size is None or vec == 1:
            return False
        ptr = self.axis[op.ptr]
        return (
            ptr.contiguity >= vec
            and ptr.divisibility >= vec * size
            and (op.mask is None or self.axis[op.mask].constancy >= vec)
        )

    def element_of_owner(self, value: SSAValue, idx: Index, body: LoopBody) -> SSAValue:
        chunk = self._chunk_visited(value, idx, body)
        op = value.owner
        if chunk is not None and chunk.lane is not None:
            if isinstance(op, blk.LoadOp) and self._vectorizable(op):
                return self._vector_loaded(op, chunk, idx, body)
            if isinstance(element_type(value.type), PtrType) and (
                self.axis[value].contiguity >= chunk.vec
            ):
                # The element's address is the chunk's first plus its position: no
                # per-element offset to sign-extend.
                first = self.element(value, chunk.start, chunk.first)
                lane = body.builder.value(arith.IndexCastOp(chunk.lane, i64))
                return body.builder.value(blk.AddPtrOp(first, lane, first.type))
        return super().element_of_owner(value, idx, body)

    def _vector_loaded(self, op: blk.LoadOp, chunk: _Chunk, idx: Index, body: LoopBody) -> SSAValue:
        uniform_other = op.other is not None and self.axis[op.other].constancy >= chunk.vec
        if op.result not in chunk.loaded:
            first = chunk.first
            ptr = self.element(op.ptr, chunk.start, first)
            mask = self.element(op.mask, chunk.start, first) if op.mask is not None else None
            other = None
            if uniform_other and mask is not None:
                assert op.other is not None
                other = self.element(op.other, chunk.start, first)
            buffer = self._alloc([chunk.vec], elem_type(op.result), shared=False)
            load = VectorLoadOp(ptr, buffer, mask, other)
            load.location = op.location
            chunk.before.insert(load)
            chunk.loaded[op.result] = (buffer, mask)
        buffer, mask = chunk.loaded[op.result]
        assert chunk.lane is not None
        b = body.builder
        value = b.value(memref.LoadOp.get(buffer, [chunk.lane]))
        if op.other is None or mask is None or uniform_other:
            return value
        other = self.element(op.other, idx, body)
        return b.value(blk.WhereOp(mask, value, other, elem_type(op.result)))

    def lower_store(self, op: blk.StoreOp, here: Builder) -> None:
        if not self._vectorizable(op):
            super().lower_store(op, here)
            return
        buffer = self._alloc([self.layout(shape_of(op.ptr.type)).vec], elem_type(op.value), False)

        def body(b: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            chunk = self._chunk_visited(op.ptr, idx, b)
            assert chunk is not None and chunk.lane is not None
            b.builder.insert(
                memref.StoreOp.get(self.element(op.value, idx, b), buffer, [chunk.lane])
            )
            ptr = self.element(op.ptr, chunk.start, chunk.first)
            mask = self.element(op.mask, chunk.start, chunk.first) if op.mask is not None else None

            def store(after: Builder) -> None:
                vector = VectorStoreOp(ptr, buffer, mask)
                vector.location = op.location
                after.insert(vector)

            chunk.after.append(store)
            return []

        self.lower_sink(op, shape_of(op.ptr.type), here, body)

    def _unravel(self, linear: SSAValue, shape: Sequence[int], b: Builder) -> Index:
        idx: Index = []
        for depth in range(len(shape) - 1, -1, -1):
            if depth == 0:
                idx.append(linear)
                break
            idx.append(b.value(arith.RemUIOp(linear, self.const(shape[depth]))))
            linear = b.value(arith.DivUIOp(linear, self.const(shape[depth])))
        return idx[::-1]

    def _fill(
        self,
        buffer: SSAValue,
        shape: Sequence[int],
        here: Builder,
        compute: Callable[[LoopBody, Index], SSAValue],
    ) -> None:
        """Every thread writes its own elements of `buffer`; a shared buffer is fenced by
        barriers (before it, too, inside a loop: last iteration's readers)."""
        shared = buffer not in self.registers
        if shared and self._in_loop(here):
            here.insert(BarrierOp())

        def body(b: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            self._store(buffer, compute(b, idx), idx, b)
            return []

        self.loop_nest(here, shape, body)
        if shared:
            here.insert(BarrierOp())

    def materialize(self, value: SSAValue, here: Builder) -> None:
        buffer = self._buffer_for(value)
        self.buffers[value] = buffer
        self._fill(
            buffer, shape_of(value.type), here, lambda b, idx: self.element_of_owner(value, idx, b)
        )

    def _shared_copy(self, value: SSAValue, here: Builder) -> SSAValue:
        """`value` in a shared buffer, readable at any element."""
        buffer = self.buffers.get(value)
        if buffer is not None and buffer not in self.registers:
            return buffer
        shared = self._alloc(shape_of(value.type), elem_type(value), shared=True)
        self._fill(shared, shape_of(value.type), here, lambda b, idx: self.element(value, idx, b))
        return shared

    def copy_into(
        self, value: SSAValue, buffer: SSAValue, here: Builder, temporary: bool = False
    ) -> None:
        computed = temporary and value not in self.buffers
        if computed:
            # The yielded value may read the buffer being overwritten: compute it first.
            self.materialize(value, here)
        self._fill(buffer, shape_of(value.type), here, lambda b, idx: self.element(value, idx, b))
        if computed and not defined_in(value, here.block):
            self.forget_buffer(value, None)  # computed in a loop that may not run

    def lower_for(self, op: scf.ForOp) -> None:
        carried = [i for i, v in enumerate(op.iter_args) if is_block(v)]
        self._carried_shared = any(
            self._read_indirectly(op.body.block.args[i + 1]) or self._read_indirectly(op.results[i])
            for i in carried
        )
        self._loop_depth += 1
        super().lower_for(op)
        self._loop_depth -= 1

    # -- side effects ------------------------------------------------------------------

    def _earlier_reads(self, write: Operation) -> Iterator[tuple[Overlap, bool]]:
        """For each load that may run after the last barrier before `write`: how their
        pointers overlap, and whether the thread writing an element read it (the load's
        elements are each read by their owner, in the same loop iteration)."""
        for load, same_iteration in _unfenced_loads(write):
            owner_reads = same_iteration and (
                load.result in self.materialized or not self._read_indirectly(load.result)
            )
            yield self.plan.pointers.overlap(load.ptr, write.ptr), owner_reads  # type: ignore[attr-defined]

    def lower_op(self, op: Operation) -> None:
        if op in self._barrier_before and not isinstance(op.prev_op, BarrierOp):
            # Other threads may still read what this write overwrites (the CPU's thread
            # loops run them first anyway).
            block = op.parent_block()
            assert block is not None
            block.insert_op_before(BarrierOp(), op)
        if isinstance(op, blk.StoreOp | blk.AtomicRMWOp | blk.AtomicCASOp) and not is_block(op.ptr):
            self._in_one_thread(op)
        elif isinstance(op, blk.PrintOp) and not any(is_block(a) for a in op.args):
            self._in_one_thread(op)
        elif isinstance(op, blk.AssertOp) and not is_block(op.cond):
            self._in_one_thread(op)
        elif isinstance(op, blk.StoreOp | blk.AtomicRMWOp | blk.AtomicCASOp):
            after = op.next_op
            super().lower_op(op)
            self._fence_writes(after)
        else:
            super().lower_op(op)

    def _fence_writes(self, after: Operation | None) -> None:
        """A barrier after global memory writes, before anything that may read them."""
        if after is not None and not isinstance(after, func.ReturnOp):
            block = after.parent_block()
            assert block is not None
            block.insert_op_before(BarrierOp(), after)

    def _in_one_thread(self, op: Operation) -> None:
        block = op.parent_block()
        assert block is not None
        after = op.next_op
        region = ThreadsOp()
        block.insert_op_before(region, op)
        inside = Builder(region.body.block)
        first = inside.value(arith.CmpiOp(region.tid, self.const(0), "eq"))
        then = Block()
        inside.insert(scf.IfOp(first, [], Region(then)))
        results = [r for r in op.results if r.uses]
        op.detach()
        then.add_op(op)
        if results:
            (result,) = results
            slot = self._alloc([1], result.type, shared=True)
            uniform = Builder(block, after)
            uniform.insert(BarrierOp())
            value = uniform.value(memref.LoadOp.get(slot, [self.const(0)]))
            result.replace_all_uses_with(value)
            then.add_op(memref.StoreOp.get(result, slot, [self.const(0)]))
        then.add_op(scf.YieldOp())
        if isinstance(op, blk.StoreOp | blk.AtomicRMWOp | blk.AtomicCASOp):
            self._fence_writes(after)

    def lower_atomic(self, op: blk.AtomicRMWOp | blk.AtomicCASOp, here: Builder) -> None:
        buffer = self._buffer_for(op.result) if op.result.uses else None
        if buffer is not None:
            self.buffers[op.result] = buffer
            if buffer not in self.registers and self._in_loop(here):
                here.insert(BarrierOp())

        def body(b: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            operands = [self.element(o, idx, b) for o in op.operands]
            properties = dict(op.properties)
            clone = type(op).create(
                operands=operands, result_types=[elem_type(op.result)], properties=properties
            )
            clone.location = op.location
            old = b.builder.value(clone)
            if buffer is not None:
                self._store(buffer, old, idx, b)
            return []

        self.loop_nest(here, shape_of(op.ptr.type), body)
        if buffer is not None and buffer not in self.registers:
            here.insert(BarrierOp())

    # -- reductions, scans, dot ----------------------------------------------------------

    def lower_reduce(self, op: blk.ReduceOp, here: Builder) -> None:
        if op.axis is not None and len(shape_of(op.src.type)) > 1:
            self._lower_axis_reduce(op, here)
            return
        kind = op.kind.data
        shape = shape_of(op.src.type)
        src_elem = elem_type(op.src)
        acc_elem = src_elem if kind in _ARG_KINDS else (op.acc_dtype or src_elem)
        acc_elem = accumulator_type(kind, acc_elem)
        nan = blk.nan_of(op)
        inits = self.reduce_init(kind, acc_elem, nan)
        scratch = [self._alloc([self.num_warps], acc_elem, shared=True)]
        if kind in _ARG_KINDS:
            inits.append(self.const(0, i32))
            scratch.append(self._alloc([self.num_warps], i32, shared=True))
        if self._in_loop(here):
            here.insert(BarrierOp())
        region = ThreadsOp()
        here.insert(region)
        inside = Builder(region.body.block)

        def body(b: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            x = self.element(op.src, idx, b)
            position = self.linear_i32(idx, shape, b) if kind in _ARG_KINDS else self.const(0, i32)
            return self.combine(kind, carried, x, acc_elem, position, b.builder, nan)

        partial = self.owned_nest(inside, region.tid, shape, body, inits)
        lane_mask = WARP_SIZE // 2
        while lane_mask:
            other = [inside.value(ShuffleXorOp(p, lane_mask)) for p in partial]
            partial = self._merge(kind, partial, other, acc_elem, inside, nan)
            lane_mask //= 2
        lane = inside.value(arith.RemUIOp(region.tid, self.const(WARP_SIZE)))
        warp = inside.value(arith.DivUIOp(region.tid, self.const(WARP_SIZE)))
        then = Block()
        for value, buffer in zip(partial, scratch, strict=True):
            then.add_op(memref.StoreOp.get(value, buffer, [warp]))
        then.add_op(scf.YieldOp())
        first_lane = inside.value(arith.CmpiOp(lane, self.const(0), "eq"))
        inside.insert(scf.IfOp(first_lane, [], Region(then)))
        here.insert(BarrierOp())
        total: list[SSAValue] | None = None
        for w in range(self.num_warps):
            values = [here.value(memref.LoadOp.get(s, [self.const(w)])) for s in scratch]
            if total is None:
                total = values
            else:
                total = self._merge(kind, total, values, acc_elem, here, nan)
        assert total is not None
        result = total[1] if kind in _ARG_KINDS else self.cast(total[0], elem_type(op.result), here)
        op.result.replace_all_uses_with(result)
        op.detach()
        op.erase()

    def _merge(
        self,
        kind: blk.ReduceKind,
        a: list[SSAValue],
        b: list[SSAValue],
        elem: Attribute,
        builder: Builder,
        nan: blk.Nan,
    ) -> list[SSAValue]:
        """Combine two partial results of a reduction; for arg kinds, (value, index) pairs
        where ties go to the lower index, as the first occurrence wins, and NaN beats
        every number (`nan = propagate`, the lower index among NaNs) or loses to it
        (`num`)."""
        if kind not in _ARG_KINDS:
            return self.combine(kind, a, b[0], elem, self.const(0, i32), builder, nan)
        (av, ai), (bv, bi) = a, b
        v = builder.value
        predicate = "gt" if kind is blk.ReduceKind.ARGMAX else "lt"
        earlier = v(blk.CmpOp("lt", bi, ai, i1))
        tie = v(blk.AndOp(v(blk.CmpOp("eq", bv, av, i1)), earlier, i1))
        better = v(blk.OrOp(v(blk.CmpOp(predicate, bv, av, i1)), tie, i1))
        if dtypes.from_xdsl(elem).is_float:
            a_nan = v(blk.CmpOp("ne", av, av, i1))
            b_nan = v(blk.CmpOp("ne", bv, bv, i1))
            if nan is blk.Nan.PROPAGATE:
                both = v(blk.AndOp(b_nan, earlier, i1))
                better = v(blk.WhereOp(a_nan, both, v(blk.OrOp(better, b_nan, i1)), i1))
            else:
                both = v(blk.AndOp(a_nan, earlier, i1))
                better = v(blk.WhereOp(b_nan, both, v(blk.OrOp(better, a_nan, i1)), i1))
        return [v(blk.WhereOp(better, bv, av, elem)), v(blk.WhereOp(better, bi, ai, i32))]

    def _lower_axis_reduce(self, op: blk.ReduceOp, here: Builder) -> None:
        kind = op.kind.data
        src_shape = list(shape_of(op.src.type))
        axis = op.axis.value.data  # type: ignore[union-attr]
        outer = [d for d in range(len(src_shape)) if d != axis]
        src_elem = elem_type(op.src)
        acc_elem = src_elem if kind in _ARG_KINDS else (op.acc_dtype or src_elem)
        acc_elem = accumulator_type(kind, acc_elem)
        staged = self._shared_copy(op.src, here)

        nan = blk.nan_of(op)

        def compute(b: LoopBody, out_idx: Index) -> SSAValue:
            inits = self.reduce_init(kind, acc_elem, nan)
            if kind in _ARG_KINDS:
                inits.append(self.const(0, i32))

            def step(sb: Builder, k: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
                full = list(out_idx)
                full.insert(axis, k)
                x = sb.value(memref.LoadOp.get(staged, full))
                position = sb.value(arith.IndexCastOp(k, i32))
                return self.combine(kind, carried, x, acc_elem, position, sb, nan)

            final = self._for(b.builder, src_shape[axis], step, inits)
            if kind in _ARG_KINDS:
                return final[1]
            return self.cast(final[0], elem_type(op.result), b.builder)

        buffer = self._buffer_for(op.result)
        self.buffers[op.result] = buffer
        self._fill(buffer, [src_shape[d] for d in outer], here, compute)

    def lower_scan(self, op: blk.ScanOp, here: Builder) -> None:
        shape = list(shape_of(op.src.type))
        axis = op.axis.value.data
        kind = op.kind.data
        acc_elem = op.acc_dtype if op.acc_dtype is not None else elem_type(op.src)
        acc_elem = accumulator_type(kind, acc_elem)
        nan = blk.nan_of(op)
        staged = self._shared_copy(op.src, here)

        def compute(b: LoopBody, idx: Index) -> SSAValue:
            def step(sb: Builder, k: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
                full = list(idx)
                full[axis] = k
                x = sb.value(memref.LoadOp.get(staged, full))
                return self.combine(kind, carried, x, acc_elem, self.const(0, i32), sb, nan)

            stop = b.builder.value(arith.AddiOp(idx[axis], self.const(1)))
            inits = self.reduce_init(kind, acc_elem, nan)
            (final,) = self._for(b.builder, 0, step, inits, stop=stop)
            return self.cast(final, elem_type(op.result), b.builder)

        buffer = self._buffer_for(op.result)
        self.buffers[op.result] = buffer
        self._fill(buffer, shape, here, compute)

    def lower_reduce_region(self, op: blk.ReduceRegionOp, here: Builder) -> None:
        """From shared memory, sequentially: each thread combines, left to right, the
        elements of the results it owns (a reduction to scalars: every thread, all)."""
        shape = shape_of(op.srcs[0].type)
        axis = op.axis.value.data
        staged = [self._shared_copy(s, here) for s in op.srcs]

        def reduce_at(b: Builder, out_idx: Index) -> list[SSAValue]:
            def load(at: Builder, k: SSAValue) -> list[SSAValue]:
                idx = [*out_idx[:axis], k, *out_idx[axis:]]
                return [at.value(memref.LoadOp.get(s, idx)) for s in staged]

            def step(sb: Builder, k: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                return self.apply_combiner(op, acc, load(sb, k), sb)

            first = load(b, self.const(0))
            return self._for(b, shape[axis], step, first, start=self.const(1))

        if len(shape) == 1:
            for result, value in zip(op.combined, reduce_at(here, []), strict=True):
                result.replace_all_uses_with(value)
            op.detach()
            op.erase()
            return
        out_shape = shape_of(op.combined[0].type)
        for i, result in enumerate(op.combined):
            self._fill_result(result, out_shape, here, lambda b, idx, i=i: reduce_at(b, idx)[i])

    def lower_scan_region(self, op: blk.ScanRegionOp, here: Builder) -> None:
        """From shared memory, sequentially: each thread combines the prefix of each
        element it owns (`reverse`: the suffix), O(n) steps per element."""
        shape = shape_of(op.srcs[0].type)
        axis = op.axis.value.data
        last = shape[axis] - 1
        staged = [self._shared_copy(s, here) for s in op.srcs]

        def scan_at(b: Builder, idx: Index) -> list[SSAValue]:
            def load(at: Builder, k: SSAValue) -> list[SSAValue]:
                full = list(idx)
                full[axis] = k
                return [at.value(memref.LoadOp.get(s, full)) for s in staged]

            def step(sb: Builder, j: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                k = sb.value(arith.SubiOp(self.const(last), j)) if op.reverse else j
                return self.apply_combiner(op, acc, load(sb, k), sb)

            first = load(b, self.const(last if op.reverse else 0))
            steps = b.value(arith.SubiOp(self.const(last), idx[axis])) if op.reverse else idx[axis]
            stop = b.value(arith.AddiOp(steps, self.const(1)))
            return self._for(b, 0, step, first, start=self.const(1), stop=stop)

        for i, result in enumerate(op.combined):
            self._fill_result(result, shape, here, lambda b, idx, i=i: scan_at(b, idx)[i])

    def _fill_result(
        self,
        result: SSAValue,
        shape: Sequence[int],
        here: Builder,
        compute: Callable[[Builder, Index], SSAValue],
    ) -> None:
        """Compute block `result` (when used) into its buffer, each thread its own
        elements."""
        if not result.uses:
            return
        buffer = self._buffer_for(result)
        self.buffers[result] = buffer
        self._fill(buffer, shape, here, lambda b, idx: compute(b.builder, idx))

    def lower_dot(self, op: blk.DotOp, here: Builder) -> None:
        a = self._shared_copy(op.lhs, here)
        b_shared = self._shared_copy(op.rhs, here)
        out_shape = shape_of(op.result.type)
        acc_elem = op.acc_dtype if op.acc_dtype is not None else elem_type(op.result)
        k_size = shape_of(op.lhs.type)[-1]
        acc = self._alloc(out_shape, acc_elem, shared=False)
        result = self._buffer_for(op.result)
        self.buffers[op.result] = result
        if result not in self.registers and self._in_loop(here):
            here.insert(BarrierOp())
        region = ThreadsOp()
        here.insert(region)
        inside = Builder(region.body.block)

        def init(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            if op.acc is not None:
                value = self.cast(self.element(op.acc, idx, bd), acc_elem, bd.builder)
            else:
                value = self.scalar_constant(0, acc_elem)
            self._store(acc, value, idx, bd)
            return []

        def over_k(kb: Builder, k: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
            def fma(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                *batch, m, n = idx
                bb = bd.builder
                x = self.cast(bb.value(memref.LoadOp.get(a, [*batch, m, k])), acc_elem, bb)
                y = self.cast(bb.value(memref.LoadOp.get(b_shared, [*batch, k, n])), acc_elem, bb)
                local = [self._local(bd, idx)]
                old = bb.value(memref.LoadOp.get(acc, local))
                product = bb.value(blk.MulOp(x, y, acc_elem))
                bb.insert(
                    memref.StoreOp.get(bb.value(blk.AddOp(old, product, acc_elem)), acc, local)
                )
                return []

            self.owned_nest(kb, region.tid, out_shape, fma)
            return []

        def convert(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            value = bd.builder.value(memref.LoadOp.get(acc, [self._local(bd, idx)]))
            self._store(result, self.cast(value, elem_type(op.result), bd.builder), idx, bd)
            return []

        self.owned_nest(inside, region.tid, out_shape, init)
        self._for(inside, k_size, over_k, [])
        self.owned_nest(inside, region.tid, out_shape, convert)
        if result not in self.registers:
            here.insert(BarrierOp())


def _key(idx: Index) -> tuple[int, ...]:
    return tuple(id(i) for i in idx)


def _drop_repeated_barriers(block: Block) -> None:
    """Erase each barrier that directly follows another (the one before a write that may
    overwrite what other threads read often follows a shared buffer's)."""
    for op in list(block.ops):
        if isinstance(op, BarrierOp) and isinstance(op.prev_op, BarrierOp):
            op.detach()
            op.erase()
        for region in op.regions:
            for inner in region.blocks:
                _drop_repeated_barriers(inner)


def _unfenced_loads(write: Operation) -> Iterator[tuple[blk.LoadOp, bool]]:
    """The loads that may run between the last barrier before `write` and `write`, each
    with whether it runs in the same iteration of the loops around `write`.

    Every write at the top of a block is followed by a barrier (`_fence_writes`): walking
    back from `write`, one ends the search. A load fused into a later nest than its own
    position never crosses a write (`FusionPlan`). In a loop, the previous
    iteration ran what follows `write` in its block (and a while loop's other region)."""
    op = write
    while True:
        block = op.parent_block()
        assert block is not None
        if (yield from _loads_back(op.prev_op, None, True)):
            return
        parent = block.parent_op()
        if parent is None or isinstance(parent, func.FuncOp):
            return
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            earlier = [r for r in parent.regions if r is not block.parent] + list(op.regions)
            for region in earlier:
                yield from ((n, False) for n in region.walk() if isinstance(n, blk.LoadOp))
            yield from _loads_back(block.last_op, op, False)
        op = parent


def _loads_back(
    op: Operation | None, stop: Operation | None, same_iteration: bool
) -> Generator[tuple[blk.LoadOp, bool], None, bool]:
    """The loads in `op` and the ops before it, back to `stop` or a write (then True)."""
    while op is not None and op is not stop:
        if isinstance(op, WRITES_MEMORY):
            return True
        yield from ((n, same_iteration) for n in op.walk() if isinstance(n, blk.LoadOp))
        op = op.prev_op
    return False


__all__ = ["ConvertBlkToSimtPass", "Layout", "SimtLowering"]
