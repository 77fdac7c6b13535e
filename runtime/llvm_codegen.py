"""Loop IR to LLVM IR text for the host CPU, through `llvmlite.ir`.

The input is what `convert-blk-to-loops`, `lower-int-semantics` and
`emulate-small-floats` leave; `llvm_emitter` translates the ops every target shares, and
this module what the CPU does its own way.

Each kernel becomes an internal function taking its arguments and the program id and
grid size, plus an exported launcher `<name>__grid(args..., i64 start, i64 end, i32 gx,
i32 gy, i32 gz)` that runs the programs with linear ids in [start, end). Pointer
arguments are marked `noalias` when the caller asks (the launcher checks the arrays do
not overlap). Accesses are checked against the arrays the kernel was given, loop nests
are versioned after range checks (`access_ranges`), stores of whole cache lines may
stream, `blk.print` calls `printf` and a failed `blk.assert` calls `blkc_assert_fail`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import llvmlite.ir as ir
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from blkc.dialects import blk
from blkc.dialects.types import PtrType
from blkc.passes.convert_blk_to_loops import UNLIKELY
from blkc.runtime import access_ranges, deferred_atomics
from blkc.runtime.dot_tile import emit_dot_tile
from blkc.runtime.launch import STREAM_COPIES
from blkc.runtime.llvm_emitter import (
    HANDLERS,
    I1,
    I32,
    I64,
    PTR,
    FunctionEmitter,
    Handler,
    abi_type,
    llvm_type,
)

STREAM_SCOPE, STREAM_DOMAIN = "blkc.nontemporal", "blkc.streaming"
"""The names in the metadata that marks stores for non-temporal stores (see `jit`)."""
CANCEL_SYMBOL = "blkc_cancel"
"""The runtime's i32 that, set, stops every `while` loop of a running kernel."""
LONG_LOOP = 64
"""Iterations from which an innermost loop of constant trip count is not unrolled
(`CpuKernelEmitter.loop_metadata`)."""
PREFETCH_LOCALITY = 3
"""`llvm.prefetch`'s locality for `blk.prefetch`: 3 keeps the line in every cache level
(x86 `prefetcht0`)."""
STREAM_VECTOR_BITS = 256
"""The vector width of a loop that streams its operands once (`streaming_loop_width`), on
targets with wider vectors. On a Zen 4, 256-bit loads and stores moved data from the L3
cache and memory 8-15% faster than 512-bit ones (a vector add of 256K to 2M float32 from
cold caches, 2 threads; a C loop alike), and LLVM prefers 256 bits on Intel's AVX-512
CPUs itself; loops that compute more per element (math functions, reductions, dot tiles,
anything reading a block a loop before them read) keep the full width."""
STREAM_ARITHMETIC = 2
"""The most `arith` ops per memory access a loop may do and count as streaming (besides
`_BOOKKEEPING`)."""
_BOOKKEEPING = (arith.ConstantOp, arith.IndexCastOp, arith.CmpiOp)
"""The ops of every block loop: its index to offsets, its masks."""
GRID_PARAMS = ("pid_x", "pid_y", "pid_z", "nprog_x", "nprog_y", "nprog_z")
"""The program's ids and the grid's size, as the kernel takes them (after the bounds)."""


@dataclass
class KernelSignature:
    """What the launcher needs to call a compiled kernel."""

    name: str
    launcher: str
    params: list[Attribute]
    """The blk types of the kernel's arguments, in order."""
    accesses: list[str]
    """The source location of each checked memory access, in order."""
    interruptible: bool = False
    """Whether the kernel has a loop that may run forever (`scf.while`): each iteration
    checks the process's cancellation flag, `blkc_cancel` (see `launch.run_grid`)."""


@dataclass
class EmittedModule:
    llvm_ir: str
    kernels: dict[str, KernelSignature] = field(default_factory=dict)


def emit_module(
    module: ModuleOp,
    noalias: bool = False,
    check_bounds: bool = True,
    streaming: bool | None = None,
    vector_bits: int | None = None,
) -> EmittedModule:
    """Translate every kernel of `module` (loop IR) to one LLVM module.

    With `check_bounds`, every load, store and atomic first checks that its address lies
    inside an array the kernel was given; an access outside is skipped and recorded, and
    the launcher raises IndexError (the process never reads or writes memory it does not
    own). Without it, kernels run faster and trust their offsets and masks.

    With `streaming` (default: when the host supports it, see
    `jit.streaming_stores_supported`), stores that write whole cache lines get one more
    copy of their nest, taken when the run is 16-byte aligned and the launch stores more
    bytes than the threshold the launcher passes (see `launch.stream_threshold`): there
    they are marked for non-temporal stores, which `jit` applies after vectorization.

    `vector_bits` (default: the host's, `cpu_target.host`) is the width of the target's
    vectors; where it exceeds `STREAM_VECTOR_BITS`, loops that stream their operands once
    are vectorized at that narrower width (`streaming_loop_width`).
    """
    if streaming is None:
        from blkc.runtime.jit import streaming_stores_supported

        streaming = streaming_stores_supported()
    if vector_bits is None:
        from blkc.runtime.cpu_target import host

        vector_bits = host().vector_bits
    llvm_module = ir.Module(name="blkc")
    kernels: dict[str, KernelSignature] = {}
    for op in module.walk():
        if isinstance(op, func.FuncOp) and not op.is_declaration:
            emitter = CpuKernelEmitter(
                llvm_module, op, noalias, check_bounds, streaming, vector_bits
            )
            signature = emitter.emit_kernel()
            kernels[signature.name] = signature
    return EmittedModule(str(llvm_module), kernels)


_Version = tuple[
    ir.Value | None,
    set[Operation],
    set[Operation],
    set[Operation],
    dict[Operation, tuple[ir.Value, access_ranges.Stream]],
]
"""A copy of a loop nest: the condition that picks it (None: the last, checked copy), the
accesses proven inside, those proven unmasked, the selects proven chosen and the stores
streamed (see `CpuKernelEmitter._streaming_version`)."""


class CpuKernelEmitter(FunctionEmitter):
    """One kernel and its launcher, for the host CPU (see the module's docstring)."""

    target = "CPU"

    def __init__(
        self,
        module: ir.Module,
        function: func.FuncOp,
        noalias: bool,
        check_bounds: bool = True,
        streaming: bool = False,
        vector_bits: int = STREAM_VECTOR_BITS,
    ):
        super().__init__(module, function)
        self.streaming = streaming
        self.narrow_streaming_loops = vector_bits > STREAM_VECTOR_BITS
        self._loaded_by: dict[SSAValue, int] | None = None
        self.streams: dict[Operation, tuple[ir.Value, access_ranges.Stream]] = {}
        """Stores streamed in the nest being emitted -> (aligned address of their run, the
        run)."""
        self.streamed = False
        """Whether a nest got a streaming copy (the launcher then ends with a fence)."""
        self.noalias = noalias
        self.check_bounds = check_bounds
        self.ranges: dict[int, tuple[ir.Value, ir.Value]] = {}
        """Pointer parameter index -> (first byte, end byte) of its array, as i64."""
        self.pointer_params: dict[SSAValue, int] = {}
        self.accesses: list[str] = []
        self._limits: dict[tuple[int, int], tuple[ir.Value, ir.Value]] = {}
        """(parameter index, element size) -> `_element_limit`'s values."""
        self._element_ranges: dict[tuple[int, int], tuple[ir.Value, ir.Value]] = {}
        """(parameter index, element size) -> `_element_range`'s values."""
        self.bad: ir.Value = ir.Constant(I1, 0)
        """Whether an access went out of bounds so far (an OR carried by loops: cheap enough
        to keep the loops vectorized)."""
        self.proven: set[Operation] = set()
        """Accesses whose loop nest checked their whole range before it ran."""
        self.offsets: dict[Operation, tuple[SSAValue, access_ranges.Poly]] = {}
        """The parameter and offset polynomial of each access of the nest being emitted
        (`access_ranges.NestRanges.offsets`), used where the access is `proven`."""
        self.unmasked: set[Operation] = set()
        """Accesses whose loop nest checked that their mask is all true before it ran."""
        self.chosen: set[Operation] = set()
        """Selects whose loop nest checked that their condition is all true before it ran."""
        self.masked_off: set[Operation] = set()
        """Accesses whose mask is all false where the loop being emitted runs (and the
        selects on those masks, which read their false operand): the tail of a split loop
        past the index where its masks stop holding."""
        self.versioning = True
        """Whether the next loop nest may be versioned (not inside a versioned one)."""
        self.checked_copy = False
        """Whether the loops being emitted are the copy of a versioned nest that checks
        each element (run where the range check fails: rarely, in most kernels)."""

    # -- functions ---------------------------------------------------------------------

    def emit_kernel(self) -> KernelSignature:
        name = self.function.sym_name.data
        params = list(self.function.function_type.inputs.data)
        abi = [abi_type(t) for t in params]
        self.deferred = {op: i for i, op in enumerate(deferred_atomics.deferrable(self.function))}
        # A kernel with deferred atomics also takes its accumulators and whether it is the
        # last program of the launcher's run (see `emit_atomic_rmw`).
        extra = [PTR] * len(self.deferred) + ([I1] if self.deferred else [])
        kernel_type = ir.FunctionType(ir.VoidType(), [*abi, PTR, *([I32] * 6), *extra])
        kernel = ir.Function(self.module, kernel_type, name=f"{name}__kernel")
        kernel.linkage = "internal"
        kernel.attributes.add("alwaysinline")
        for arg, t in zip(kernel.args[: len(params)], params, strict=True):
            if isinstance(t, PtrType) and self.noalias:
                arg.add_attribute("noalias")
        self.open_function(kernel)
        self.bind_arguments(kernel.args[: len(params)])
        bounds = kernel.args[len(params)]
        block = self.function.body.blocks[0]
        for index, (arg, t) in enumerate(zip(block.args, params, strict=True)):
            if isinstance(t, PtrType):
                self.pointer_params[arg] = index
                entry_builder = self.allocas  # the entry block dominates every use
                first, end = (
                    entry_builder.load(
                        entry_builder.gep(bounds, [ir.Constant(I64, i)], source_etype=I64),
                        typ=I64,
                    )
                    for i in (2 * index, 2 * index + 1)
                )
                self.ranges[index] = (first, end)
        grid_args = kernel.args[len(params) + 1 : len(params) + 7]
        for grid_name, llvm_arg in zip(GRID_PARAMS, grid_args, strict=True):
            self.grid[grid_name] = llvm_arg
        self.accumulators = list(
            kernel.args[len(params) + 7 : len(params) + 7 + len(self.deferred)]
        )
        self.last_program = kernel.args[-1] if self.deferred else None
        self.table = bounds
        self.threshold_slot = 2 * len(params)
        self._wanted: ir.Value | None = None
        self.emit_program()
        launcher = self._emit_launcher(name, kernel, abi)
        return KernelSignature(name, launcher, params, self.accesses, self.interruptible)

    def handler(self, op: Operation) -> Handler | None:
        return _HANDLERS.get(type(op))

    def loop_metadata(self, op: scf.ForOp) -> ir.MDValue | None:
        """Besides the base's: an innermost loop of at least `LONG_LOOP` iterations is not
        unrolled. The vectorizer turns it into a loop of vectors interleaved for
        parallelism already; unrolling that again doubled the machine code of a row
        softmax, and its compile time with it, for no measurable speed (the bench's
        memory-bound kernels, and tl.dot's and attention's, whose register tiles are
        `blk.dot_tile`). Short loops, whose unrolled bodies the SLP vectorizer packs,
        still unroll."""
        found = super().loop_metadata(op)
        if found is not None:
            return found
        if _unlikely(op):
            return self._scalar_loop()
        if not _innermost(op) and not isinstance(op.body.blocks[0].args[0].type, IndexType):
            # A loop of the kernel's own code around block loops: once LLVM has unrolled
            # short block loops whole, it would vectorize this loop across its iterations,
            # which gains nothing, and whose cost model aborted the process on a loop of
            # three iterations around two 16-element nests with a remainder of a variable
            # divisor (LLVM's "VPlan cost model and legacy cost model disagreed").
            return self._loop_metadata(("llvm.loop.vectorize.enable", ir.Constant(I1, 0)))
        count = access_ranges.trip_count(op)
        if _innermost(op) and count is not None and count >= LONG_LOOP:
            width = None
            if self.narrow_streaming_loops and not self._checks_accesses(op):
                if self._loaded_by is None:
                    self._loaded_by = _loops_loading(self.function, self.pointer_params)
                width = streaming_loop_width(op, self.pointer_params, self._loaded_by)
            return self._vectorized_not_unrolled(width, interleave=not self.checked_copy)
        return None

    def _checks_accesses(self, op: scf.ForOp) -> bool:
        """Whether loop `op` checks an access against the arrays' bounds in this copy: it
        then carries whether one went outside, which may keep LLVM from vectorizing it. It
        gets no vector width then, since LLVM prints a remark to stderr about each loop it
        was given a width for and could not vectorize."""
        return self.check_bounds and any(
            isinstance(inner, access_ranges.ACCESSES)
            and inner not in self.proven
            and inner not in self.masked_off
            for inner in op.body.walk()
        )

    def _vectorized_not_unrolled(
        self, width: int | None = None, interleave: bool = True
    ) -> ir.MDValue:
        """Loop metadata asking that the loops the vectorizer makes of a loop (its vector
        loop and remainder) not be unrolled: the hint goes to them only (a follow-up), so
        that the vectorizer still interleaves as its cost model chooses (a plain
        `llvm.loop.unroll.disable` on the loop turns interleaving off too). With `width`,
        it vectorizes by that many elements; without `interleave`, it makes one vector of
        each value per iteration (the checked copy of a versioned nest: a vectorized
        loop interleaved four times costs about 4 ms of LLVM's time, which a copy that
        rarely runs does not repay)."""
        hints: list[tuple[Any, ...]] = [
            ("llvm.loop.vectorize.followup_all", ("llvm.loop.unroll.disable",))
        ]
        if width is not None:
            hints.append(("llvm.loop.vectorize.width", ir.Constant(I32, width)))
        if not interleave:
            hints.append(("llvm.loop.interleave.count", ir.Constant(I32, 1)))
        return self._loop_metadata(*hints)

    def _scalar_loop(self) -> ir.MDValue:
        """Loop metadata keeping a loop as written: neither vectorized nor unrolled (a loop
        that rarely runs, `blk.unlikely`: the redo of a reduction for NaN or zeros, whose
        vector copies would cost LLVM more time than they ever save)."""
        return self._loop_metadata(
            ("llvm.loop.vectorize.enable", ir.Constant(I1, 0)), ("llvm.loop.unroll.disable",)
        )

    interruptible = False

    def while_condition(self, condition: ir.Value) -> ir.Value:
        """`condition`, and not cancelled: a Ctrl-C during the launch sets `blkc_cancel`
        (an i32 of the runtime's), and every `while` loop then stops."""
        self.interruptible = True
        flag = self.module.globals.get(CANCEL_SYMBOL)
        if flag is None:
            flag = ir.GlobalVariable(self.module, I32, name=CANCEL_SYMBOL)  # the runtime's
        b = self.builder
        cancelled = b.load_atomic(flag, "monotonic", 4, typ=I32)
        return b.and_(condition, b.icmp_signed("==", cancelled, ir.Constant(I32, 0)))

    # -- bounds ------------------------------------------------------------------------

    def _base_param(self, ptr: SSAValue) -> int | None:
        """The pointer parameter `ptr` was derived from by pointer arithmetic, if known."""
        base = access_ranges.base_pointer(ptr, self.pointer_params)
        return None if base is None else self.pointer_params[base]

    def access_condition(self, op: Operation, ptr: SSAValue, mask: ir.Value | None) -> ir.Value:
        """The access's mask and its address lying inside an argument's array (inside the
        one it was derived from, when that is known). Records the access when it is masked
        in but outside."""
        if op in self.masked_off:
            return ir.Constant(I1, 0)
        if op in self.unmasked:
            mask = None
        if not self.check_bounds or op in self.proven:
            return ir.Constant(I1, 1) if mask is None else mask
        size = self.element_size(ptr)
        b = self.builder
        owner = ptr.owner
        inside: ir.Value = ir.Constant(I1, 0)
        if (
            isinstance(owner, blk.AddPtrOp)
            and owner.ptr in self.pointer_params
            and isinstance(self.get(owner.offset).type, ir.IntType)
            and self.get(owner.offset).type.width == 32
        ):
            # The common case, an i32 element offset from a parameter: one 32-bit add and
            # compare (vectors of i32 are half as wide as vectors of addresses).
            lead, limit = self._element_limit(owner.ptr, size)
            shifted = b.add(self.get(owner.offset), lead)
            inside = b.icmp_unsigned("<", shifted, limit)
        else:
            address = b.ptrtoint(self.get(ptr), I64)
            base = self._base_param(ptr)
            candidates = [base] if base is not None else list(self.ranges)
            for index in candidates:
                first, end = self.ranges[index]
                offset = b.sub(address, first)
                span = b.sub(end, first)
                width = ir.Constant(I64, size)
                # An array of fewer bytes than an element holds none (span - size would
                # wrap around to an unsigned bound that every address meets).
                holds = b.and_(
                    b.icmp_unsigned(">=", span, width),
                    b.icmp_unsigned("<=", offset, b.sub(span, width)),
                )
                inside = b.or_(inside, holds)
        active = inside if mask is None else b.and_(mask, inside)
        wanted = ir.Constant(I1, 1) if mask is None else mask
        escaped = b.and_(wanted, b.not_(inside))
        from blkc.diagnostics import op_location

        where = op_location(op)
        location = f"{where.file}:{where.line}:{where.col}" if where else op.name
        if location not in self.accesses:  # a versioned nest checks its accesses twice
            self.accesses.append(location)
        self.bad = b.or_(self.bad, escaped)
        return active

    def _element_limit(self, param: SSAValue, size: int) -> tuple[ir.Value, ir.Value]:
        """For an i32 element offset from pointer parameter `param`: what to add to it
        (the elements before the pointer, capped at 2**30) and the bound the sum must lie
        below, unsigned (capped at 2**31), so that one compare keeps the access inside the
        array, whichever way the offset wraps."""
        key = (self.pointer_params[param], size)
        if key not in self._limits:
            b = self.allocas
            first, last = self._element_range(param, size)
            lead = b.select(
                b.icmp_signed("<", first, ir.Constant(I64, -(2**30))),
                ir.Constant(I64, 2**30),
                b.neg(first),
            )
            count = b.add(b.add(lead, last), ir.Constant(I64, 1))
            capped = b.select(
                b.icmp_signed(">", count, ir.Constant(I64, 2**31)),
                ir.Constant(I64, 2**31),
                count,
            )
            self._limits[key] = (b.trunc(lead, I32), b.trunc(capped, I32))
        return self._limits[key]

    def carried_state(self) -> list[ir.Value]:
        return [self.bad]

    def set_carried_state(self, values: Sequence[ir.Value]) -> None:
        (self.bad,) = values

    def _stream_wanted(self) -> ir.Value:
        """Whether this launch stores at least the launcher's threshold of bytes (the grid
        times what one program stores, loops with run-time bounds counted once): below it
        the output may still be in cache when it is read next, and plain stores win. And
        whether the module keeps its streaming copies: `launch.STREAM_COPIES`, a constant
        true here, false in the module's lean form (`launch.without_stream_copies`), where
        LLVM's first passes fold the copies away."""
        if self._wanted is None:
            b = self.allocas  # loop-invariant: computed once, in the entry block
            slot = b.gep(self.table, [ir.Constant(I64, self.threshold_slot)], source_etype=I64)
            threshold = b.load(slot, typ=I64)
            total: ir.Value = ir.Constant(I64, self._stored_bytes())
            for axis in "xyz":
                total = b.mul(total, b.zext(self.grid[f"nprog_{axis}"], I64))
            copies = self.module.globals.get(STREAM_COPIES)
            if copies is None:
                copies = ir.GlobalVariable(self.module, I1, name=STREAM_COPIES)
                copies.linkage = "internal"
                copies.global_constant = True
                copies.initializer = ir.Constant(I1, 1)
            kept = b.load(copies, typ=I1)
            self._wanted = b.and_(kept, b.icmp_signed(">=", total, threshold))
        return self._wanted

    def _stored_bytes(self) -> int:
        """The bytes one program stores, counting loops with constant bounds."""
        total = 0
        for op in self.function.walk():
            if isinstance(op, blk.StoreOp):
                count, parent = self.element_size(op.ptr), op.parent_op()
                while parent is not None and parent is not self.function:
                    if isinstance(parent, scf.ForOp):
                        count *= access_ranges.trip_count(parent) or 1
                    parent = parent.parent_op()
                total += count
        return total

    def before_return(self) -> None:
        """Record in the launch's bounds table (its last entry, `launch.ERRORS_SLOT`)
        whether an access went out of bounds: each launch reads its own record, however
        many threads launch the kernel at once."""
        b = self.builder
        fn = b.function
        record = fn.append_basic_block("errors.record")
        done = fn.append_basic_block("errors.done")
        b.cbranch(self.bad, record, done)
        b.position_at_end(record)
        slot = b.gep(self.table, [ir.Constant(I64, self.threshold_slot + 1)], source_etype=I64)
        b.atomic_rmw("or", slot, ir.Constant(I64, 1), "monotonic")
        b.branch(done)
        b.position_at_end(done)

    def _emit_launcher(self, name: str, kernel: ir.Function, abi: Sequence[ir.Type]) -> str:
        fn_type = ir.FunctionType(ir.VoidType(), [*abi, PTR, I64, I64, I32, I32, I32])
        fn = ir.Function(self.module, fn_type, name=f"{name}__grid")
        args = list(fn.args)
        bounds, start, end, gx, gy, gz = args[len(abi) :]
        entry = fn.append_basic_block("entry")
        loop = fn.append_basic_block("loop")
        done = fn.append_basic_block("done")
        b = ir.IRBuilder(entry)
        accumulators = []
        for op in self.deferred:
            element = self.pointee(op.ptr)
            slot = b.alloca(element)
            b.store(_identity(op, element), slot)
            accumulators.append(slot)
        # The first program's coordinates by division; each next one's by counting (a
        # division per program cost as much as a small program's loop).
        gx64, gy64 = b.sext(gx, I64), b.sext(gy, I64)
        rest = b.sdiv(start, gx64)
        x0 = b.trunc(b.srem(start, gx64), I32)
        y0, z0 = b.trunc(b.srem(rest, gy64), I32), b.trunc(b.sdiv(rest, gy64), I32)
        b.cbranch(b.icmp_signed("<", start, end), loop, done)
        b = ir.IRBuilder(loop)
        linear, x, y, z = b.phi(I64), b.phi(I32), b.phi(I32), b.phi(I32)
        for phi, first in ((linear, start), (x, x0), (y, y0), (z, z0)):
            phi.add_incoming(first, entry)
        following = b.add(linear, ir.Constant(I64, 1))
        extra = [*accumulators, b.icmp_signed("==", following, end)] if accumulators else []
        b.call(kernel, [*args[: len(abi)], bounds, x, y, z, gx, gy, gz, *extra])
        one, zero = ir.Constant(I32, 1), ir.Constant(I32, 0)
        x_next = b.add(x, one)
        x_wraps = b.icmp_signed("==", x_next, gx)
        y_next = b.select(x_wraps, b.add(y, one), y)
        y_wraps = b.icmp_signed("==", y_next, gy)
        for phi, value in (
            (linear, following),
            (x, b.select(x_wraps, zero, x_next)),
            (y, b.select(y_wraps, zero, y_next)),
            (z, b.select(y_wraps, b.add(z, one), z)),
        ):
            phi.add_incoming(value, b.block)
        b.cbranch(b.icmp_signed("<", following, end), loop, done)
        b = ir.IRBuilder(done)
        if self.streamed:
            # Non-temporal stores are weakly ordered: make them visible before the thread
            # that launched the kernel reads the output.
            b.call(self.declare("llvm.x86.sse.sfence", ir.VoidType(), []), [])
        b.ret_void()
        self._emit_packed_launcher(fn, abi)
        return fn.name

    def _emit_packed_launcher(self, launcher: ir.Function, abi: Sequence[ir.Type]) -> None:
        """`<launcher>_args(argv, bounds, start, end, gx, gy, gz)`: the launcher with the
        kernel's arguments read from 8-byte slots at `argv` (`native_pool.pack_arguments`),
        one signature for every kernel, which the native thread pool calls."""
        fn_type = ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, I64, I32, I32, I32])
        fn = ir.Function(self.module, fn_type, name=f"{launcher.name}_args")
        argv, *rest = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        values = [
            b.load(b.gep(argv, [ir.Constant(I64, 8 * i)], source_etype=ir.IntType(8)), typ=t)
            for i, t in enumerate(abi)
        ]
        b.call(launcher, [*values, *rest])
        b.ret_void()

    # -- loop versioning ---------------------------------------------------------------

    def emit_for(self, op: scf.ForOp) -> None:
        """A loop. A loop nest over a block whose accesses have affine offsets is versioned
        (see `access_ranges`): a range check before it picks a copy without masks (every
        mask proven true) or without bounds checks (every access proven inside), else the
        copy that checks each element. The first two read the selects whose condition the
        check proved as their true operand."""
        nest = access_ranges.NestRanges()
        if self.versioning and _unlikely(op):
            self.versioning = False  # one copy of a loop that rarely runs
            self.emit_loop(op)
            self.versioning = True
            return
        if self.versioning:
            nest = access_ranges.analyse(op, self.pointer_params, self.element_size)
        proven = nest.proven if self.check_bounds else set()
        streams = nest.streams if self.streaming else []
        if not proven and not nest.unmasked and not nest.chosen and not streams:
            self.emit_loop(op)
            return
        b = self.builder
        check = access_ranges.RangeCheck(
            b, nest, set(access_ranges.nest_indices(op)), self.get, self._element_range
        )
        # Every fast copy reads its chosen selects as their true operands.
        bounds = check.holds([*(nest.bounds if proven else []), *nest.choices])
        fast: list[tuple[ir.Value, set[Operation], set[Operation]]] = []
        if nest.unmasked:
            fast.append((b.and_(bounds, check.holds(nest.masks)), proven, nest.unmasked))
        if proven or nest.chosen:
            fast.append((bounds, proven, set()))
        versions: list[_Version] = [(c, p, u, nest.chosen, {}) for c, p, u in fast]
        fastest = versions[0] if versions else (None, set(), set(), set(), {})
        Head = tuple[set[Operation], set[Operation], set[Operation]]
        heads: list[Head | None] = [None] * len(versions)
        split, tail_off = self._mask_split(op, nest, check) if nest.unmasked else (None, None)
        if split is not None:
            # One copy in two loops takes the place of those without masks and with masks
            # proven: the iterations before the split (`_mask_split`) without masks and
            # proven inside their arrays, where the range check passes over them alone (the
            # weights of a row shorter than the block are read past their end only in the
            # masked tail), the rest as the checked copy. Where every mask holds, the split
            # is the end and the tail empty.
            prefix = self._prefix_check(op, nest, split) if proven else check
            condition = prefix.holds([*(nest.bounds if proven else []), *nest.choices])
            versions = [(condition, set(), set(), set(), {})]
            heads = [(proven, nest.unmasked, nest.chosen)]
            # Its prefix streams its stores where they qualify over the prefix (a row of
            # 768 in a block of 1024 too), in a copy of the split copy in place of a
            # streaming copy of the whole nest, which needs every mask to hold.
            fastest = (condition, proven, nest.unmasked, nest.chosen, {})
            streaming = self._streaming_version(streams, prefix, fastest)
            if streaming is not None:
                versions.insert(0, streaming)
                heads.insert(0, (proven, nest.unmasked, nest.chosen))
        else:
            streaming = self._streaming_version(streams, check, fastest)
            if streaming is not None:
                versions.insert(0, streaming)
                heads.insert(0, None)
        versions.append((None, set(), set(), set(), {}))
        heads.append(None)
        merge = b.function.append_basic_block("nest.end")
        bad_before = self.bad
        self.versioning = False
        self.offsets = nest.offsets
        arms: list[tuple[list[ir.Value], ir.Value, ir.Block]] = []
        # The split copy's tail runs in the checked copy's loop, entered at the split.
        entries: list[tuple[ir.Value, list[ir.Value], ir.Value, ir.Block]] = []
        for version, head in zip(versions, heads, strict=True):
            condition, self.proven, self.unmasked, self.chosen, self.streams = version
            self.checked_copy = condition is None
            if condition is not None:
                taken = b.function.append_basic_block("nest.version")
                otherwise = b.function.append_basic_block("nest.else")
                b.cbranch(condition, taken, otherwise)
                b.position_at_end(taken)
            self.bad = bad_before
            if head is not None and split is not None:
                kept = (self.proven, self.unmasked, self.chosen)
                self.proven, self.unmasked, self.chosen = head
                carried = self.emit_loop_range(op, self.get(op.lb), split, self.loop_inits(op))
                self.proven, self.unmasked, self.chosen = kept
                if tail_off is not None:
                    # Past the split every mask is false (`_mask_split`): the tail reads
                    # nothing through them and stores nothing, and computes on `other`.
                    off = b.function.append_basic_block("nest.masked_off")
                    checked = b.function.append_basic_block("nest.to_checked")
                    b.cbranch(tail_off, off, checked)
                    b.position_at_end(off)
                    bad_at_split, streamed = self.bad, self.streams
                    self.masked_off, self.streams = nest.unmasked, {}
                    rest = self.emit_loop_range(op, split, self.get(op.ub), carried)
                    self.masked_off, self.streams = set(), streamed
                    arms.append((rest, self.bad, b.block))
                    b.branch(merge)
                    self.bad = bad_at_split
                    b.position_at_end(checked)
                entries.append((split, carried, self.bad, b.block))
                # the branch to the tail follows once the checked copy's loop exists
            elif condition is None and entries:
                entries.append((self.get(op.lb), self.loop_inits(op), self.bad, b.block))
                tail = b.function.append_basic_block("nest.tail")
                for _, _, _, end in entries:
                    b.position_at_end(end)
                    b.branch(tail)
                b.position_at_end(tail)
                start = b.phi(self.get(op.lb).type)
                inits = [b.phi(llvm_type(v.type)) for v in op.iter_args]
                bad = b.phi(I1)
                for first, values, was_bad, end in entries:
                    start.add_incoming(first, end)
                    for phi, value in zip(inits, values, strict=True):
                        phi.add_incoming(value, end)
                    bad.add_incoming(was_bad, end)
                self.bad = bad
                carried = self.emit_loop_range(op, start, self.get(op.ub), inits)
                for result, value in zip(op.results, carried, strict=True):
                    self.values[result] = value
            else:
                self.emit_loop(op)
            if head is None or split is None:
                arms.append(([self.get(r) for r in op.results], self.bad, b.block))
                b.branch(merge)
            if condition is not None:
                b.position_at_end(otherwise)
        self.versioning, self.proven, self.unmasked, self.chosen = True, set(), set(), set()
        self.streams, self.offsets = {}, {}
        self.checked_copy = False
        b.position_at_end(merge)
        for index, result in enumerate([*op.results, None]):
            phi = b.phi(I1 if result is None else llvm_type(result.type))
            for values, bad, end in arms:
                phi.add_incoming(bad if result is None else values[index], end)
            if result is None:
                self.bad = phi
            else:
                self.values[result] = phi

    def _mask_split(
        self, op: scf.ForOp, nest: access_ranges.NestRanges, check: access_ranges.RangeCheck
    ) -> tuple[ir.Value, ir.Value | None] | tuple[None, None]:
        """For a loop whose masks hold on a prefix of its iterations (each condition of
        `nest.masks` is `index + rest` bounded above, or `index + rest` bounded below at
        the first index, or free of the index: `cols < n`, `off + cols < n`), the first
        index where they may stop holding, clamped to the loop's bounds; None for other
        loops (nested ones, shorter than `LONG_LOOP`, other steps, other conditions). The
        split copy runs the iterations before it without masks (`emit_for`): a row of 768
        elements in a block of 1024 then reads and writes its 768 with plain vector
        accesses. With it, where known, whether every access's mask is false from the split
        on (one of its conditions stops holding there for good): the last 256 iterations
        then run without memory accesses, else in the checked copy."""
        index = op.body.blocks[0].args[0]
        span = access_ranges.loop_range(index)
        count = access_ranges.trip_count(op)
        if (
            span is None
            or count is None
            or count < LONG_LOOP  # unrolled whole, a short loop's masks cost little
            or not _innermost(op)
            or access_ranges.constant(op.step) != 1
        ):
            return None, None
        first, last = span
        b = self.builder
        wide = ir.IntType(128)  # no sum of two i64 values overflows it
        # The selects the mask conditions read as their true operands must be chosen.
        holds: ir.Value = check.holds(nest.choices)
        split: ir.Value = ir.Constant(wide, last + 1)
        ends: dict[int, ir.Value] = {}
        for condition in nest.masks:
            coefficient = condition.poly.get((index,), 0)
            if condition.param is not None or coefficient not in (0, 1):
                return None, None
            if any(index in m for m in condition.poly if m != (index,)):
                return None, None
            if coefficient == 0:
                holds = b.and_(holds, check.holds([condition]))
                continue
            rest, overflow = check.value({m: c for m, c in condition.poly.items() if m != (index,)})
            holds = b.and_(holds, b.not_(overflow))
            rest = b.sext(rest, wide)
            if condition.low is not None:  # at the first index, and so at every later one
                at_first = b.add(rest, ir.Constant(wide, first))
                holds = b.and_(
                    holds, b.icmp_signed(">=", at_first, ir.Constant(wide, condition.low))
                )
            if condition.high is not None:  # index <= high - rest
                end = b.sub(ir.Constant(wide, condition.high + 1), rest)
                ends[id(condition)] = end
                split = b.select(b.icmp_signed("<", end, split), end, split)
        low = ir.Constant(wide, first)
        split = b.select(b.icmp_signed("<", split, low), low, split)
        # Where `holds`, an access's mask is false at every index from the split on when
        # one of its conditions stops holding at or before the split (its end).
        off = holds
        for conditions in nest.mask_conditions.values():
            stops = [ends[id(c)] for c in conditions if id(c) in ends]
            if not stops:
                off = None  # a mask that never stops holding
                break
            any_stop = b.icmp_signed("<=", stops[0], split)
            for end in stops[1:]:
                any_stop = b.or_(any_stop, b.icmp_signed("<=", end, split))
            off = b.and_(off, any_stop)
        split = b.select(holds, split, low)
        return b.trunc(split, self.get(op.lb).type), off

    def _prefix_check(
        self, op: scf.ForOp, nest: access_ranges.NestRanges, split: ir.Value
    ) -> access_ranges.RangeCheck:
        """A range check of `nest`'s conditions over its iterations before `split` only."""
        index = op.body.blocks[0].args[0]
        span = access_ranges.loop_range(index)
        assert span is not None
        b = self.builder
        check = access_ranges.RangeCheck(b, nest, {index}, self.get, self._element_range)
        wide = split if split.type == I64 else b.sext(split, I64)
        check.ranges[index] = (span[0], b.sub(wide, ir.Constant(I64, 1)))
        return check

    def _streaming_version(
        self,
        streams: Sequence[access_ranges.Stream],
        check: access_ranges.RangeCheck,
        fastest: _Version,
    ) -> _Version | None:
        """A copy of the fastest version whose stores of whole lines (unmasked and inside
        their arrays there) go through aligned bases, when their runs start on a
        `jit.NONTEMPORAL_ALIGNMENT` (16-byte) boundary and the launch stores enough
        (`_stream_wanted`), or None. The aligned base (`llvm.ptrmask`, a no-op after the
        check) lets LLVM prove its vector stores aligned, which non-temporal vector stores
        require. Not asking for a cache line's alignment lets NumPy's large arrays, 16 bytes
        past a page, stream too: a 16M-element vector add on them took 7.3 ms with plain
        stores and 6.0 with 16-byte non-temporal ones (64-byte aligned arrays: 5.4-5.6)."""
        from blkc.runtime.jit import NONTEMPORAL_ALIGNMENT

        condition, proven, unmasked, chosen, _ = fastest
        b = self.builder
        taken = {
            s.store: s
            for s in streams
            if (s.store.mask is None or s.store in unmasked)
            and (not self.check_bounds or s.store in proven)
        }
        if not taken:
            return None
        # The stores' own ranges also make their offsets exact when bounds are not checked.
        holds = self._stream_wanted()
        if condition is not None:
            holds = b.and_(condition, holds)
        holds = b.and_(holds, check.holds([c for s in taken.values() for c in s.conditions]))
        bases: dict[Operation, tuple[ir.Value, access_ranges.Stream]] = {}
        for stream in taken.values():
            start, overflow = check.value(stream.start)
            address = b.gep(
                self.get(stream.param), [start], source_etype=self.pointee(stream.store.ptr)
            )
            misaligned = b.and_(
                b.ptrtoint(address, I64), ir.Constant(I64, NONTEMPORAL_ALIGNMENT - 1)
            )
            holds = b.and_(
                holds,
                b.and_(b.not_(overflow), b.icmp_unsigned("==", misaligned, ir.Constant(I64, 0))),
            )
            ptrmask = self.declare("llvm.ptrmask.p0.i64", PTR, [PTR, I64])
            aligned = b.call(ptrmask, [address, ir.Constant(I64, -NONTEMPORAL_ALIGNMENT)])
            bases[stream.store] = (aligned, stream)
        self.streamed = True
        return holds, proven, unmasked, chosen, bases

    def _element_range(self, param: SSAValue, size: int) -> tuple[ir.Value, ir.Value]:
        """The first and last offset, in elements of `size` bytes from pointer parameter
        `param`, of an element inside its array (the first is negative where the array
        begins before the pointer: a view with negative strides); last < first where none
        is (computed once, at the kernel's entry)."""
        key = (self.pointer_params[param], size)
        if key not in self._element_ranges:
            b = self.allocas
            first, end = self.ranges[self.pointer_params[param]]
            pointer = b.ptrtoint(self.get(param), I64)
            inside = b.and_(
                b.icmp_unsigned("<=", first, pointer), b.icmp_unsigned("<=", pointer, end)
            )
            width = ir.Constant(I64, size)
            before = b.udiv(b.sub(pointer, first), width)
            after = b.udiv(b.sub(end, pointer), width)
            self._element_ranges[key] = (
                b.select(inside, b.neg(before), ir.Constant(I64, 0)),
                b.select(inside, b.sub(after, ir.Constant(I64, 1)), ir.Constant(I64, -1)),
            )
        return self._element_ranges[key]

    def address(self, op: blk.LoadOp | blk.StoreOp) -> ir.Value:
        """In a nest whose range check passed, a proven access's address is its parameter
        plus its offset polynomial in i64 (`access_ranges.polynomial_i64`), equal there to
        what its 32-bit offset arithmetic computes: LLVM then sees consecutive elements at
        consecutive addresses, where a sign-extended 32-bit sum hides it (loops that LLVM
        unrolls fully would gather)."""
        found = self.offsets.get(op) if op in self.proven else None
        if found is None:
            return super().address(op)
        param, poly = found
        offset = access_ranges.polynomial_i64(self.builder, poly, self.get)
        return self.builder.gep(
            self.get(param), [offset], inbounds=True, source_etype=self.pointee(op.ptr)
        )

    def emit_select(self, op: arith.SelectOp) -> None:
        if op in self.masked_off:
            self.set(op, self.get(op.rhs))
            return
        if op in self.chosen or op in self.unmasked:
            self.set(op, self.get(op.lhs))
            return
        super().emit_select(op)

    # -- streaming stores --------------------------------------------------------------

    def emit_store(self, op: blk.StoreOp) -> None:
        if op not in self.streams:
            super().emit_store(op)
            return
        b = self.builder
        base, stream = self.streams[op]
        index = self.get(stream.index)
        if stream.first:
            index = b.sub(index, ir.Constant(I64, stream.first))
        address = b.gep(base, [index], inbounds=True, source_etype=self.pointee(op.ptr))
        b.store(self.get(op.value), address).set_metadata("alias.scope", self._stream_mark())

    def _stream_mark(self) -> ir.MDValue:
        """The mark of stores to make non-temporal once vectorized: an alias scope of its
        own domain, which no `!noalias` names (so it means nothing to alias analysis) and
        which the vectorizers carry to the vector stores they make."""
        domain = self.module.add_metadata([ir.MetaDataString(self.module, STREAM_DOMAIN)])
        scope = self.module.add_metadata([ir.MetaDataString(self.module, STREAM_SCOPE), domain])
        return self.module.add_metadata([scope])

    # -- debugging ---------------------------------------------------------------------

    def emit_print(self, op: blk.PrintOp) -> None:
        printf = self.declare("printf", I32, [PTR], var_arg=True)
        for text, values in self.print_lines(op):
            self.builder.call(printf, [text, *values])

    def emit_global_timer(self, op: blk.GlobalTimerOp) -> None:
        """The monotonic clock, through the C library's `clock_gettime`."""
        b = self.builder
        timespec = ir.LiteralStructType([I64, I64])  # seconds, nanoseconds (LP64)
        spec = self.allocas.alloca(timespec)
        clock_gettime = self.declare("clock_gettime", I32, [I32, PTR])
        b.call(clock_gettime, [ir.Constant(I32, time.CLOCK_MONOTONIC), spec])
        zero = ir.Constant(I32, 0)
        seconds = b.load(b.gep(spec, [zero, zero]))
        nanos = b.load(b.gep(spec, [zero, ir.Constant(I32, 1)]))
        self.set(op, b.add(b.mul(seconds, ir.Constant(I64, 1_000_000_000)), nanos))

    def emit_prefetch(self, op: blk.PrefetchOp) -> None:
        """`llvm.prefetch` of `op`'s address for reading, into every cache level
        (`PREFETCH_LOCALITY`)."""
        prefetch = self.declare("llvm.prefetch.p0", ir.VoidType(), [PTR, I32, I32, I32])
        self.builder.call(
            prefetch,
            [self.get(op.ptr), ir.Constant(I32, 0), ir.Constant(I32, PREFETCH_LOCALITY),
             ir.Constant(I32, 1)],
        )  # fmt: skip

    def emit_atomic_rmw(self, op: blk.AtomicRMWOp, value: ir.Value | None = None) -> None:
        """An atomic; a deferred one (`deferred_atomics`) combines its value into the run's
        accumulator instead, and the run's last program applies the accumulated value."""
        index = self.deferred.get(op)
        if index is None or value is not None:
            super().emit_atomic_rmw(op, value)
            return
        b = self.builder
        slot = self.accumulators[index]
        element = self.pointee(op.ptr)
        combined = _combine(b, op, b.load(slot, typ=element), self.get(op.value))
        b.store(combined, slot)
        assert self.last_program is not None
        fn, start, bad = b.function, b.block, self.bad
        apply, applied = (
            fn.append_basic_block("deferred.apply"),
            fn.append_basic_block("deferred.end"),
        )
        b.cbranch(self.last_program, apply, applied)
        b.position_at_end(apply)
        super().emit_atomic_rmw(op, combined)
        apply_end = b.block
        b.branch(applied)
        b.position_at_end(applied)
        if self.bad is not bad:  # the bounds check inside: merge what it recorded
            merged = b.phi(I1)
            merged.add_incoming(bad, start)
            merged.add_incoming(self.bad, apply_end)
            self.bad = merged
        self.set(op, ir.Constant(element, None))  # unused (`deferrable` checked)

    def emit_assert(self, op: blk.AssertOp) -> None:
        from blkc.diagnostics import op_location

        where = op_location(op)
        text = f"{where.file}:{where.line}:{where.col}: " if where else ""
        fail = self.declare("blkc_assert_fail", ir.VoidType(), [PTR])
        message = self.string(text + op.message.data)
        self.emit_assertion(self.get(op.cond), lambda: self.builder.call(fail, [message]))


def _identity(op: blk.AtomicRMWOp, element: ir.Type) -> ir.Constant:
    """The value that atomic `op`'s kind combines into anything unchanged."""
    kind = op.kind.data.value
    if isinstance(element, ir.IntType):
        width = element.width
        unsigned = blk.UNSIGNED_ATTR in op.attributes
        identity = {
            "add": 0,
            "or": 0,
            "xor": 0,
            "and": -1,
            "max": 0 if unsigned else -(2 ** (width - 1)),
            "min": -1 if unsigned else 2 ** (width - 1) - 1,
        }[kind]
        return ir.Constant(element, identity)
    assert kind == "add"
    return ir.Constant(element, -0.0)  # x + -0.0 is x, -0.0 included


def _combine(b: ir.IRBuilder, op: blk.AtomicRMWOp, acc: ir.Value, value: ir.Value) -> ir.Value:
    """`acc` and `value` combined as atomic `op` combines them in memory."""
    kind = op.kind.data.value
    if not isinstance(acc.type, ir.IntType):
        return b.fadd(acc, value)
    if kind in ("max", "min"):
        unsigned = blk.UNSIGNED_ATTR in op.attributes
        compare = b.icmp_unsigned if unsigned else b.icmp_signed
        return b.select(compare(">" if kind == "max" else "<", acc, value), acc, value)
    return {"add": b.add, "and": b.and_, "or": b.or_, "xor": b.xor}[kind](acc, value)


_HANDLERS: dict[type[Operation], Handler] = {
    **HANDLERS,
    scf.ForOp: CpuKernelEmitter.emit_for,
    arith.SelectOp: CpuKernelEmitter.emit_select,
    blk.StoreOp: CpuKernelEmitter.emit_store,
    blk.AtomicRMWOp: CpuKernelEmitter.emit_atomic_rmw,
    blk.PrintOp: CpuKernelEmitter.emit_print,
    blk.AssertOp: CpuKernelEmitter.emit_assert,
    blk.GlobalTimerOp: CpuKernelEmitter.emit_global_timer,
    blk.DotTileOp: emit_dot_tile,
    blk.PrefetchOp: CpuKernelEmitter.emit_prefetch,
}


def _unlikely(op: Operation) -> bool:
    """Whether `op` lies in the then-region of an `scf.if` marked `blk.unlikely`."""
    child, parent = op, op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.IfOp) and UNLIKELY in parent.attributes:
            return child.parent_region() is parent.true_region
        child, parent = parent, parent.parent_op()
    return False


def _innermost(loop: scf.ForOp) -> bool:
    return not any(isinstance(o, scf.ForOp | scf.WhileOp) for o in loop.body.walk())


def _loops_loading(
    function: func.FuncOp, pointer_params: dict[SSAValue, int]
) -> dict[SSAValue, int]:
    """For each pointer parameter, how many innermost loops of `function` load through it."""
    counts: dict[SSAValue, int] = {}
    for op in function.walk():
        if isinstance(op, scf.ForOp) and _innermost(op):
            loaded = {
                access_ranges.base_pointer(o.ptr, pointer_params)
                for o in op.body.walk()
                if isinstance(o, blk.LoadOp)
            }
            for param in loaded:
                if param is not None:
                    counts[param] = counts.get(param, 0) + 1
    return counts


def streaming_loop_width(
    loop: scf.ForOp, pointer_params: dict[SSAValue, int], loaded_by: dict[SSAValue, int]
) -> int | None:
    """The vectorization width, in elements, of an innermost `loop` that streams its
    operands once: `STREAM_VECTOR_BITS` over the widest element it loads or stores, where
    the loop loads through kernel arguments no other loop loads through, stores, carries no
    value (no reduction), reads no buffer, calls no math function and does at most
    `STREAM_ARITHMETIC` `arith` ops per memory access besides its offsets and masks (a
    vector add, a cast, a scaled copy); else None (the target's own width)."""
    if loop.results:
        return None
    accesses, arithmetic, widest, stores = 0, 0, 0, 0
    for op in loop.body.walk():
        if isinstance(op, blk.LoadOp | blk.StoreOp):
            if isinstance(op, blk.LoadOp):
                param = access_ranges.base_pointer(op.ptr, pointer_params)
                if param is None or loaded_by.get(param) != 1:
                    return None
                element = op.result.type
            else:
                stores += 1
                element = op.value.type
            bits = _element_bits(element)
            if bits is None:
                return None
            accesses, widest = accesses + 1, max(widest, bits)
        elif op.dialect_name() == "arith":
            arithmetic += not isinstance(op, _BOOKKEEPING)
        elif not isinstance(op, blk.AddPtrOp | scf.YieldOp):
            return None  # buffers, math, atomics, dot tiles, prints, nested regions
    if not stores or arithmetic > STREAM_ARITHMETIC * accesses:
        return None
    return max(1, STREAM_VECTOR_BITS // widest)


def _element_bits(t: Attribute) -> int | None:
    from xdsl.dialects.builtin import AnyFloat, IntegerType

    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, AnyFloat):
        return t.bitwidth
    return None
