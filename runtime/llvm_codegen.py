"""Loop IR to LLVM IR text, through `llvmlite.ir`.

The input is what `convert-blk-to-loops`, `lower-int-semantics` and
`emulate-small-floats` leave: `func`, `scf`, `arith`, `math`, `memref` buffers and the
scalar pointer ops of `blk` (`addptr`, `load`, `store`, atomics, program ids, `print`,
`assert`) over signless integers and f16/f32/f64 (bf16 and fp8 arrive as integer storage
with explicit conversions).

Each kernel becomes an internal function taking its arguments and the program id and
grid size, plus an exported launcher `<name>__grid(args..., i64 start, i64 end, i32 gx,
i32 gy, i32 gz)` that runs the programs with linear ids in [start, end). Pointer
arguments are marked `noalias` when the caller asks (the launcher checks the arrays do
not overlap). Loads and stores index typed elements with GEPs, which LLVM's vectorizers
understand; masked accesses branch around the access, which the loop vectorizer turns into
masked vector loads and stores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import llvmlite.ir as ir
from xdsl.dialects import arith, func, math, memref, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from blkc.diagnostics import error_at
from blkc.dialects import blk
from blkc.dialects.types import PtrType
from blkc.runtime import access_ranges, small_floats, vector_math

STREAM_SCOPE, STREAM_DOMAIN = "blkc.nontemporal", "blkc.streaming"
"""The names in the metadata that marks stores for non-temporal stores (see `jit`)."""
GRID_PARAMS = ("pid_x", "pid_y", "pid_z", "nprog_x", "nprog_y", "nprog_z")
I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType()


class CodegenError(Exception):
    """Loop IR the code generator cannot translate (an internal error, located)."""


def llvm_type(t: Attribute) -> ir.Type:
    """The LLVM type of a loop-IR scalar type."""
    if isinstance(t, IntegerType):
        return ir.IntType(t.width.data)
    if isinstance(t, IndexType):
        return I64
    if isinstance(t, Float32Type):
        return ir.FloatType()
    if isinstance(t, Float64Type):
        return ir.DoubleType()
    if isinstance(t, Float16Type):
        return ir.HalfType()
    if isinstance(t, BFloat16Type):
        return ir.IntType(16)  # llvmlite has no bfloat type: i16 storage, see small_floats
    if isinstance(t, Float8E4M3FNType | Float8E5M2Type):
        return I8  # LLVM has no fp8 types: i8 storage, see small_floats
    if isinstance(t, PtrType):
        return PTR
    raise CodegenError(f"type {t} has no LLVM lowering")


def abi_type(t: Attribute) -> ir.Type:
    """How a kernel argument of type `t` is passed: small floats travel as f64 (and are
    rounded once, inside the kernel)."""
    if isinstance(t, Float16Type | BFloat16Type | Float8E4M3FNType | Float8E5M2Type):
        return ir.DoubleType()
    return llvm_type(t)


@dataclass
class KernelSignature:
    """What the launcher needs to call a compiled kernel."""

    name: str
    launcher: str
    params: list[Attribute]
    """The blk types of the kernel's arguments, in order."""
    errors: str
    """The global i32 the kernel sets to 1 when one of its memory accesses fell outside
    every array it was given (the access is skipped)."""
    accesses: list[str]
    """The source location of each checked memory access, in order."""


@dataclass
class EmittedModule:
    llvm_ir: str
    kernels: dict[str, KernelSignature] = field(default_factory=dict)


def emit_module(
    module: ModuleOp,
    noalias: bool = False,
    check_bounds: bool = True,
    streaming: bool | None = None,
) -> EmittedModule:
    """Translate every kernel of `module` (loop IR) to one LLVM module.

    With `check_bounds`, every load, store and atomic first checks that its address lies
    inside an array the kernel was given; an access outside is skipped and recorded, and
    the launcher raises IndexError (the process never reads or writes memory it does not
    own). Without it, kernels run faster and trust their offsets and masks.

    With `streaming` (default: when the host supports it, see
    `jit.streaming_stores_supported`), stores that write whole cache lines get one more
    copy of their nest, taken when the run is 64-byte aligned and the launch stores more
    bytes than the threshold the launcher passes (see `launch.stream_threshold`): there
    they are marked for non-temporal stores, which `jit` applies after vectorization.
    """
    if streaming is None:
        from blkc.runtime.jit import streaming_stores_supported

        streaming = streaming_stores_supported()
    llvm_module = ir.Module(name="blkc")
    kernels: dict[str, KernelSignature] = {}
    for op in module.walk():
        if isinstance(op, func.FuncOp) and not op.is_declaration:
            signature = _FunctionEmitter(llvm_module, op, noalias, check_bounds, streaming).emit()
            kernels[signature.name] = signature
    return EmittedModule(str(llvm_module), kernels)


# ------------------------------------------------------------------------------------


_Version = tuple[
    ir.Value | None,
    set[Operation],
    set[Operation],
    set[Operation],
    dict[Operation, tuple[ir.Value, access_ranges.Stream]],
]
"""A copy of a loop nest: the condition that picks it (None: the last, checked copy), the
accesses proven inside, those proven unmasked, the selects proven chosen and the stores
streamed (see `_FunctionEmitter._streaming_version`)."""


class _FunctionEmitter:
    def __init__(
        self,
        module: ir.Module,
        function: func.FuncOp,
        noalias: bool,
        check_bounds: bool = True,
        streaming: bool = False,
    ):
        self.module = module
        self.streaming = streaming
        self.streams: dict[Operation, tuple[ir.Value, access_ranges.Stream]] = {}
        """Stores streamed in the nest being emitted -> (64-byte aligned address of their
        run, the run)."""
        self.streamed = False
        """Whether a nest got a streaming copy (the launcher then ends with a fence)."""
        self.function = function
        self.noalias = noalias
        self.check_bounds = check_bounds
        self.values: dict[SSAValue, ir.Value] = {}
        self.grid: dict[str, ir.Value] = {}
        self._strings: dict[str, ir.GlobalVariable] = {}
        self.ranges: dict[int, tuple[ir.Value, ir.Value]] = {}
        """Pointer parameter index -> (first byte, end byte) of its array, as i64."""
        self.pointer_params: dict[SSAValue, int] = {}
        self.accesses: list[str] = []
        self._limits: dict[tuple[int, int], ir.Value] = {}
        self.bad: ir.Value = ir.Constant(I1, 0)
        """Whether an access went out of bounds so far (an OR carried by loops: cheap enough
        to keep the loops vectorized)."""
        self.proven: set[Operation] = set()
        """Accesses whose loop nest checked their whole range before it ran."""
        self.unmasked: set[Operation] = set()
        """Accesses whose loop nest checked that their mask is all true before it ran."""
        self.chosen: set[Operation] = set()
        """Selects whose loop nest checked that their condition is all true before it ran."""
        self.versioning = True
        """Whether the next loop nest may be versioned (not inside a versioned one)."""

    # -- functions ---------------------------------------------------------------------

    def emit(self) -> KernelSignature:
        name = self.function.sym_name.data
        params = list(self.function.function_type.inputs.data)
        abi = [abi_type(t) for t in params]
        kernel_type = ir.FunctionType(ir.VoidType(), [*abi, PTR, *([I32] * 6)])
        kernel = ir.Function(self.module, kernel_type, name=f"{name}__kernel")
        kernel.linkage = "internal"
        kernel.attributes.add("alwaysinline")
        for arg, t in zip(kernel.args[: len(params)], params, strict=True):
            if isinstance(t, PtrType) and self.noalias:
                arg.add_attribute("noalias")
        entry = kernel.append_basic_block("entry")
        self.allocas = ir.IRBuilder(entry)
        body = kernel.append_basic_block("body")
        self.allocas.branch(body)
        self.allocas.position_before(entry.terminator)
        builder = ir.IRBuilder(body)
        block = self.function.body.blocks[0]
        for arg, llvm_arg, t in zip(block.args, kernel.args[: len(params)], params, strict=True):
            value: ir.Value = llvm_arg
            if llvm_type(t) != abi_type(t):
                value = small_floats.convert(builder, llvm_arg, Float64Type(), t)
            self.values[arg] = value
        bounds = kernel.args[len(params)]
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
        for grid_name, llvm_arg in zip(GRID_PARAMS, kernel.args[len(params) + 1 :], strict=True):
            self.grid[grid_name] = llvm_arg
        self.table = bounds
        self.threshold_slot = 2 * len(params)
        self._wanted: ir.Value | None = None
        self.errors = ir.GlobalVariable(self.module, I32, name=f"{name}__errors")
        self.errors.initializer = ir.Constant(I32, 0)
        self.builder = builder
        self.emit_ops(block)
        if not self.builder.block.is_terminated:
            self._flush_errors()
            self.builder.ret_void()
        launcher = self._emit_launcher(name, kernel, abi)
        return KernelSignature(name, launcher, params, self.errors.name, self.accesses)

    # -- bounds ------------------------------------------------------------------------

    def _base_param(self, ptr: SSAValue) -> int | None:
        """The pointer parameter `ptr` was derived from by pointer arithmetic, if known."""
        while True:
            if ptr in self.pointer_params:
                return self.pointer_params[ptr]
            owner = ptr.owner
            if isinstance(owner, blk.AddPtrOp):
                ptr = owner.ptr
            elif isinstance(owner, blk.CastOp):
                ptr = owner.src
            else:
                return None

    def checked(self, op: Operation, ptr: SSAValue, size: int, mask: ir.Value | None) -> ir.Value:
        """The condition under which the access `op` of `size` bytes at `ptr` runs: its mask
        and the address lying inside an argument's array (inside the one it was derived
        from, when that is known). Records the access when it is masked in but outside."""
        if op in self.unmasked:
            mask = None
        if not self.check_bounds or op in self.proven:
            return ir.Constant(I1, 1) if mask is None else mask
        b = self.builder
        owner = ptr.owner
        inside: ir.Value = ir.Constant(I1, 0)
        if (
            isinstance(owner, blk.AddPtrOp)
            and owner.ptr in self.pointer_params
            and isinstance(self.get(owner.offset).type, ir.IntType)
            and self.get(owner.offset).type.width == 32
        ):
            # The common case, an i32 element offset from a parameter: one 32-bit compare
            # (vectors of i32 are half as wide as vectors of addresses).
            limit = self._element_limit(self.pointer_params[owner.ptr], size)
            inside = b.icmp_unsigned("<", self.get(owner.offset), limit)
        else:
            address = b.ptrtoint(self.get(ptr), I64)
            base = self._base_param(ptr)
            candidates = [base] if base is not None else list(self.ranges)
            for index in candidates:
                first, end = self.ranges[index]
                offset = b.sub(address, first)
                limit64 = b.sub(b.sub(end, first), ir.Constant(I64, size))
                inside = b.or_(inside, b.icmp_unsigned("<=", offset, limit64))
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

    def _element_limit(self, index: int, size: int) -> ir.Value:
        """How many elements of `size` bytes parameter `index`'s array holds, capped at
        2**31 so that it fits an unsigned i32 compare (negative offsets stay outside)."""
        key = (index, size)
        if key not in self._limits:
            b = self.allocas
            first, end = self.ranges[index]
            count = b.udiv(b.sub(end, first), ir.Constant(I64, size))
            capped = b.select(
                b.icmp_unsigned(">", count, ir.Constant(I64, 2**31)),
                ir.Constant(I64, 2**31),
                count,
            )
            self._limits[key] = b.trunc(capped, I32)
        return self._limits[key]

    def _stream_wanted(self) -> ir.Value:
        """Whether this launch stores at least the launcher's threshold of bytes (the grid
        times what one program stores, loops with run-time bounds counted once): below it
        the output may still be in cache when it is read next, and plain stores win."""
        if self._wanted is None:
            b = self.allocas  # loop-invariant: computed once, in the entry block
            slot = b.gep(self.table, [ir.Constant(I64, self.threshold_slot)], source_etype=I64)
            threshold = b.load(slot, typ=I64)
            total: ir.Value = ir.Constant(I64, self._stored_bytes())
            for axis in "xyz":
                total = b.mul(total, b.zext(self.grid[f"nprog_{axis}"], I64))
            self._wanted = b.icmp_signed(">=", total, threshold)
        return self._wanted

    def _stored_bytes(self) -> int:
        """The bytes one program stores, counting loops with constant bounds."""
        total = 0
        for op in self.function.walk():
            if isinstance(op, blk.StoreOp):
                count, parent = self._size(op.ptr), op.parent_op()
                while parent is not None and parent is not self.function:
                    if isinstance(parent, scf.ForOp):
                        count *= access_ranges.trip_count(parent) or 1
                    parent = parent.parent_op()
                total += count
        return total

    def _flush_errors(self) -> None:
        b = self.builder
        fn = b.function
        record = fn.append_basic_block("errors.record")
        done = fn.append_basic_block("errors.done")
        b.cbranch(self.bad, record, done)
        b.position_at_end(record)
        b.store(ir.Constant(I32, 1), self.errors)
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
        gx64, gy64 = b.sext(gx, I64), b.sext(gy, I64)
        b.cbranch(b.icmp_signed("<", start, end), loop, done)
        b = ir.IRBuilder(loop)
        linear = b.phi(I64)
        linear.add_incoming(start, entry)
        x = b.trunc(b.srem(linear, gx64), I32)
        rest = b.sdiv(linear, gx64)
        y = b.trunc(b.srem(rest, gy64), I32)
        z = b.trunc(b.sdiv(rest, gy64), I32)
        b.call(kernel, [*args[: len(abi)], bounds, x, y, z, gx, gy, gz])
        following = b.add(linear, ir.Constant(I64, 1))
        linear.add_incoming(following, loop)
        b.cbranch(b.icmp_signed("<", following, end), loop, done)
        b = ir.IRBuilder(done)
        if self.streamed:
            # Non-temporal stores are weakly ordered: make them visible before the thread
            # that launched the kernel reads the output.
            b.call(self._function("llvm.x86.sse.sfence", ir.VoidType(), []), [])
        b.ret_void()
        return fn.name

    # -- blocks and control flow -------------------------------------------------------

    def emit_ops(self, block: Block) -> None:
        for op in block.ops:
            handler = _HANDLERS.get(type(op))
            if handler is None:
                raise error_at(op, f"the CPU code generator cannot translate '{op.name}'")
            handler(self, op)

    def get(self, value: SSAValue) -> ir.Value:
        return self.values[value]

    def set(self, op: Operation, value: ir.Value) -> None:
        self.values[op.results[0]] = value

    def emit_for(self, op: scf.ForOp) -> None:
        """A loop. A loop nest over a block whose accesses have affine offsets is versioned
        (see `access_ranges`): a range check before it picks a copy without masks (every
        mask proven true) or without bounds checks (every access proven inside), else the
        copy that checks each element. The first two read the selects whose condition the
        check proved as their true operand."""
        nest = access_ranges.NestRanges()
        if self.versioning:
            nest = access_ranges.analyse(op, self.pointer_params, self._size)
        proven = nest.proven if self.check_bounds else set()
        streams = nest.streams if self.streaming else []
        if not proven and not nest.unmasked and not nest.chosen and not streams:
            self._emit_loop(op)
            return
        b = self.builder
        check = access_ranges.RangeCheck(
            b, nest, set(access_ranges.nest_indices(op)), self.get, self._element_count
        )
        # Every fast copy reads its chosen selects as their true operands.
        bounds = check.holds([*(nest.bounds if proven else []), *nest.choices])
        fast: list[tuple[ir.Value, set[Operation], set[Operation]]] = []
        if nest.unmasked:
            fast.append((b.and_(bounds, check.holds(nest.masks)), proven, nest.unmasked))
        if proven or nest.chosen:
            fast.append((bounds, proven, set()))
        versions: list[_Version] = [(c, p, u, nest.chosen, {}) for c, p, u in fast]
        versions.append((None, set(), set(), set(), {}))
        streaming = self._streaming_version(streams, check, versions[0])
        if streaming is not None:
            versions.insert(0, streaming)
        merge = b.function.append_basic_block("nest.end")
        bad_before = self.bad
        self.versioning = False
        arms: list[tuple[list[ir.Value], ir.Value, ir.Block]] = []
        for condition, self.proven, self.unmasked, self.chosen, self.streams in versions:
            if condition is not None:
                taken = b.function.append_basic_block("nest.version")
                otherwise = b.function.append_basic_block("nest.else")
                b.cbranch(condition, taken, otherwise)
                b.position_at_end(taken)
            self.bad = bad_before
            self._emit_loop(op)
            arms.append(([self.get(r) for r in op.results], self.bad, b.block))
            b.branch(merge)
            if condition is not None:
                b.position_at_end(otherwise)
        self.versioning, self.proven, self.unmasked, self.chosen = True, set(), set(), set()
        self.streams = {}
        b.position_at_end(merge)
        for index, result in enumerate([*op.results, None]):
            phi = b.phi(I1 if result is None else llvm_type(result.type))
            for values, bad, end in arms:
                phi.add_incoming(bad if result is None else values[index], end)
            if result is None:
                self.bad = phi
            else:
                self.values[result] = phi

    def _streaming_version(
        self,
        streams: Sequence[access_ranges.Stream],
        check: access_ranges.RangeCheck,
        fastest: _Version,
    ) -> _Version | None:
        """A copy of the fastest version whose stores of whole lines (unmasked and inside
        their arrays there) go through 64-byte aligned bases, when their runs start on a
        line and the launch stores enough (`_stream_wanted`), or None. The aligned base
        (`llvm.ptrmask`, a no-op after the check) lets LLVM prove its vector stores
        aligned, which non-temporal vector stores require."""
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
                self.get(stream.param), [start], source_etype=self._pointee(stream.store.ptr)
            )
            line = b.and_(b.ptrtoint(address, I64), ir.Constant(I64, 63))
            holds = b.and_(
                holds, b.and_(b.not_(overflow), b.icmp_unsigned("==", line, ir.Constant(I64, 0)))
            )
            ptrmask = self._function("llvm.ptrmask.p0.i64", PTR, [PTR, I64])
            bases[stream.store] = (b.call(ptrmask, [address, ir.Constant(I64, -64)]), stream)
        self.streamed = True
        return holds, proven, unmasked, chosen, bases

    def _element_count(self, param: SSAValue, size: int) -> ir.Value:
        """How many elements of `size` bytes the array of pointer parameter `param` holds."""
        first, end = self.ranges[self.pointer_params[param]]
        return self.builder.udiv(self.builder.sub(end, first), ir.Constant(I64, size))

    def _emit_loop(self, op: scf.ForOp) -> None:
        b = self.builder
        lb, ub, step = self.get(op.lb), self.get(op.ub), self.get(op.step)
        inits = [self.get(v) for v in op.iter_args]
        pre = b.block
        fn = b.function
        header = fn.append_basic_block("for.header")
        body = fn.append_basic_block("for.body")
        exit_ = fn.append_basic_block("for.exit")
        b.branch(header)
        b.position_at_end(header)
        iv = b.phi(lb.type)
        iv.add_incoming(lb, pre)
        carried = []
        for init in inits:
            phi = b.phi(init.type)
            phi.add_incoming(init, pre)
            carried.append(phi)
        bad = b.phi(I1)
        bad.add_incoming(self.bad, pre)
        self.bad = bad
        b.cbranch(b.icmp_signed("<", iv, ub), body, exit_)
        b.position_at_end(body)
        block = op.body.blocks[0]
        self.values[block.args[0]] = iv
        for arg, phi in zip(block.args[1:], carried, strict=True):
            self.values[arg] = phi
        self.emit_ops(block)
        yield_op = block.last_op
        assert isinstance(yield_op, scf.YieldOp)
        iv.add_incoming(self.builder.add(iv, step), self.builder.block)
        self._close_loop(carried, yield_op, bad, header, exit_)
        for result, phi in zip(op.results, carried, strict=True):
            self.values[result] = phi

    def _close_loop(
        self,
        phis: Sequence[ir.PhiInstr],
        yield_op: scf.YieldOp,
        bad: ir.PhiInstr,
        header: ir.Block,
        exit_: ir.Block,
    ) -> None:
        """Feed the yielded values (and the out-of-bounds record) back to the loop's phis,
        branch back to its header and continue after it."""
        latch = self.builder.block
        for phi, value in zip(phis, yield_op.operands, strict=True):
            phi.add_incoming(self.get(value), latch)
        bad.add_incoming(self.bad, latch)
        self.bad = bad
        self.builder.branch(header)
        self.builder.position_at_end(exit_)

    def emit_if(self, op: scf.IfOp) -> None:
        b = self.builder
        fn = b.function
        then_bb = fn.append_basic_block("if.then")
        else_bb = fn.append_basic_block("if.else")
        merge = fn.append_basic_block("if.end")
        b.cbranch(self.get(op.cond), then_bb, else_bb)
        incoming = []
        bad_before = self.bad
        bad_incoming = []
        for region, bb in ((op.true_region, then_bb), (op.false_region, else_bb)):
            self.bad = bad_before
            self.builder.position_at_end(bb)
            yielded: list[ir.Value] = []
            if region.blocks:
                block = region.blocks[0]
                self.emit_ops(block)
                last = block.last_op
                if isinstance(last, scf.YieldOp):
                    yielded = [self.get(v) for v in last.operands]
            incoming.append((yielded, self.builder.block))
            bad_incoming.append((self.bad, self.builder.block))
            self.builder.branch(merge)
        self.builder.position_at_end(merge)
        bad = self.builder.phi(I1)
        for value, bb in bad_incoming:
            bad.add_incoming(value, bb)
        self.bad = bad
        for index, result in enumerate(op.results):
            phi = self.builder.phi(llvm_type(result.type))
            for yielded, bb in incoming:
                phi.add_incoming(yielded[index], bb)
            self.values[result] = phi

    def emit_while(self, op: scf.WhileOp) -> None:
        b = self.builder
        fn = b.function
        pre = b.block
        before_bb = fn.append_basic_block("while.before")
        after_bb = fn.append_basic_block("while.after")
        exit_bb = fn.append_basic_block("while.exit")
        b.branch(before_bb)
        b.position_at_end(before_bb)
        before = op.before_region.blocks[0]
        bad = b.phi(I1)
        bad.add_incoming(self.bad, pre)
        self.bad = bad
        phis = []
        for arg, init in zip(before.args, op.arguments, strict=True):
            phi = b.phi(llvm_type(arg.type))
            phi.add_incoming(self.get(init), pre)
            self.values[arg] = phi
            phis.append(phi)
        self.emit_ops(before)
        condition = before.last_op
        assert isinstance(condition, scf.ConditionOp)
        passed = [self.get(v) for v in condition.args]
        self.builder.cbranch(self.get(condition.condition), after_bb, exit_bb)
        self.builder.position_at_end(after_bb)
        after = op.after_region.blocks[0]
        for arg, value in zip(after.args, passed, strict=True):
            self.values[arg] = value
        self.emit_ops(after)
        yield_op = after.last_op
        assert isinstance(yield_op, scf.YieldOp)
        self._close_loop(phis, yield_op, bad, before_bb, exit_bb)
        for result, value in zip(op.results, passed, strict=True):
            self.values[result] = value

    # -- memory ------------------------------------------------------------------------

    def emit_alloca(self, op: memref.AllocaOp) -> None:
        t = op.memref.type
        assert isinstance(t, MemRefType)
        count = 1
        for d in t.get_shape():
            count *= d
        slot = self.allocas.alloca(ir.ArrayType(llvm_type(t.element_type), count))
        slot.align = 64
        self.set(op, slot)

    def _buffer_address(self, ref: SSAValue, indices: Sequence[SSAValue]) -> ir.Value:
        t = ref.type
        assert isinstance(t, MemRefType)
        shape = t.get_shape()
        b = self.builder
        linear: ir.Value = ir.Constant(I64, 0)
        for size, index in zip(shape, indices, strict=True):
            linear = b.add(b.mul(linear, ir.Constant(I64, size)), self.get(index))
        # The alloca's pointer is typed ([N x T]*): its GEP yields a T*.
        return b.gep(self.get(ref), [ir.Constant(I64, 0), linear], inbounds=True)

    def emit_memref_load(self, op: memref.LoadOp) -> None:
        address = self._buffer_address(op.memref, op.indices)
        self.set(op, self.builder.load(address, typ=llvm_type(op.res.type)))

    def emit_memref_store(self, op: memref.StoreOp) -> None:
        address = self._buffer_address(op.memref, op.indices)
        self.builder.store(self.get(op.value), address)

    def _pointee(self, ptr: SSAValue) -> ir.Type:
        t = ptr.type
        assert isinstance(t, PtrType)
        return llvm_type(t.pointee)

    def emit_addptr(self, op: blk.AddPtrOp) -> None:
        b = self.builder
        offset = self.get(op.offset)
        if offset.type != I64:
            offset = b.sext(offset, I64)
        self.set(
            op,
            b.gep(self.get(op.ptr), [offset], inbounds=False, source_etype=self._pointee(op.ptr)),
        )

    def _guarded(self, mask: ir.Value, emit: Callable[[], ir.Value | None]) -> ir.Value | None:
        b = self.builder
        fn = b.function
        start = b.block
        taken = fn.append_basic_block("masked.do")
        merge = fn.append_basic_block("masked.end")
        b.cbranch(mask, taken, merge)
        b.position_at_end(taken)
        value = emit()
        taken_end = b.block
        b.branch(merge)
        b.position_at_end(merge)
        if value is None:
            return None
        phi = b.phi(value.type)
        phi.add_incoming(value, taken_end)
        phi.add_incoming(ir.Constant(value.type, None), start)
        return phi

    def _size(self, ptr: SSAValue) -> int:
        t = ptr.type
        assert isinstance(t, PtrType)
        from blkc import dtypes

        pointee = t.pointee
        return 8 if isinstance(pointee, PtrType) else max(1, dtypes.from_xdsl(pointee).width // 8)

    def emit_load(self, op: blk.LoadOp) -> None:
        b = self.builder
        element = self._pointee(op.ptr)
        ptr = self.get(op.ptr)
        given = self.get(op.mask) if op.mask is not None else None
        mask = self.checked(op, op.ptr, self._size(op.ptr), given)
        loaded = self._guarded(mask, lambda: b.load(ptr, typ=element))
        assert loaded is not None
        other = self.get(op.other) if op.other is not None else ir.Constant(element, None)
        self.set(op, b.select(mask, loaded, other))

    def emit_store(self, op: blk.StoreOp) -> None:
        b = self.builder
        ptr, value = self.get(op.ptr), self.get(op.value)
        if op in self.streams:
            base, stream = self.streams[op]
            index = self.get(stream.index)
            if stream.first:
                index = b.sub(index, ir.Constant(I64, stream.first))
            address = b.gep(base, [index], inbounds=True, source_etype=self._pointee(op.ptr))
            b.store(value, address).set_metadata("alias.scope", self._stream_mark())
            return

        def store() -> None:
            b.store(value, ptr)

        given = self.get(op.mask) if op.mask is not None else None
        self._guarded(self.checked(op, op.ptr, self._size(op.ptr), given), store)

    def emit_atomic_rmw(self, op: blk.AtomicRMWOp) -> None:
        b = self.builder
        element = self._pointee(op.ptr)
        is_float = isinstance(element, ir.FloatType | ir.DoubleType | ir.HalfType)
        kind = op.kind.data.value
        names = {
            "add": "fadd" if is_float else "add",
            "max": "fmax" if is_float else "max",
            "min": "fmin" if is_float else "min",
            "umax": "umax",
            "umin": "umin",
            "and": "and",
            "or": "or",
            "xor": "xor",
            "xchg": "xchg",
        }
        ptr, value = self.get(op.ptr), self.get(op.value)

        def rmw() -> ir.Value:
            return b.atomic_rmw(names[kind], ptr, value, "acq_rel")

        given = self.get(op.mask) if op.mask is not None else None
        result = self._guarded(self.checked(op, op.ptr, self._size(op.ptr), given), rmw)
        assert result is not None
        self.set(op, result)

    def emit_atomic_cas(self, op: blk.AtomicCASOp) -> None:
        b = self.builder
        ptr, cmp, value = self.get(op.ptr), self.get(op.cmp), self.get(op.value)

        def cas() -> ir.Value:
            return b.extract_value(b.cmpxchg(ptr, cmp, value, "acq_rel", "acquire"), 0)

        result = self._guarded(self.checked(op, op.ptr, self._size(op.ptr), None), cas)
        assert result is not None
        self.set(op, result)

    def _stream_mark(self) -> ir.MDValue:
        """The mark of stores to make non-temporal once vectorized: an alias scope of its
        own domain, which no `!noalias` names (so it means nothing to alias analysis) and
        which the vectorizers carry to the vector stores they make."""
        domain = self.module.add_metadata([ir.MetaDataString(self.module, STREAM_DOMAIN)])
        scope = self.module.add_metadata([ir.MetaDataString(self.module, STREAM_SCOPE), domain])
        return self.module.add_metadata([scope])

    # -- debugging ---------------------------------------------------------------------

    def _string(self, text: str) -> ir.Value:
        if text not in self._strings:
            data = bytearray(text.encode() + b"\0")
            constant = ir.Constant(ir.ArrayType(I8, len(data)), data)
            variable = ir.GlobalVariable(
                self.module, constant.type, name=f".str{len(self.module.globals)}"
            )
            variable.linkage = "internal"
            variable.global_constant = True
            variable.initializer = constant
            self._strings[text] = variable
        return self._strings[text].bitcast(PTR)

    def _function(
        self, name: str, result: ir.Type, args: Sequence[ir.Type], var_arg: bool = False
    ) -> ir.Function:
        existing = self.module.globals.get(name)
        if isinstance(existing, ir.Function):
            return existing
        return ir.Function(self.module, ir.FunctionType(result, args, var_arg=var_arg), name=name)

    def print_format(self, op: blk.PrintOp) -> tuple[ir.Value, list[ir.Value]]:
        """`op`'s printf format (a string constant) and its values, widened as C's
        variadic calls pass them (ints to i64, floats to double)."""
        b = self.builder
        pieces, values = [op.prefix.data.replace("%", "%%")], []
        for arg in op.args:
            value = self.get(arg)
            if isinstance(value.type, ir.IntType):
                if value.type.width < 64:
                    value = b.sext(value, I64) if value.type.width > 1 else b.zext(value, I64)
                pieces.append(" %lld")
            elif isinstance(value.type, ir.PointerType):
                pieces.append(" %p")
            else:
                value = b.fpext(value, ir.DoubleType()) if value.type != ir.DoubleType() else value
                pieces.append(" %g")
            values.append(value)
        return self._string("".join(pieces) + "\n"), values

    def emit_print(self, op: blk.PrintOp) -> None:
        text, values = self.print_format(op)
        printf = self._function("printf", I32, [PTR], var_arg=True)
        self.builder.call(printf, [text, *values])

    def emit_assert(self, op: blk.AssertOp) -> None:
        b = self.builder
        from blkc.diagnostics import op_location

        where = op_location(op)
        text = f"{where.file}:{where.line}:{where.col}: " if where else ""
        fail = self._function("blkc_assert_fail", ir.VoidType(), [PTR])
        message = self._string(text + op.message.data)
        ok = self.get(op.cond)
        fn = b.function
        bad = fn.append_basic_block("assert.fail")
        good = fn.append_basic_block("assert.ok")
        b.cbranch(ok, good, bad)
        b.position_at_end(bad)
        b.call(fail, [message])
        b.branch(good)
        b.position_at_end(good)

    # -- scalars -----------------------------------------------------------------------

    def emit_constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        t = llvm_type(op.result.type)
        if isinstance(value, IntegerAttr):
            self.set(op, ir.Constant(t, value.value.data))
        elif isinstance(value, FloatAttr) and small_floats.is_storage_float(value.type):
            self.set(op, ir.Constant(t, small_floats.bits(value.value.data, value.type)))
        elif isinstance(value, FloatAttr):
            self.set(op, ir.Constant(t, value.value.data))
        else:
            raise error_at(op, f"constant {value} has no LLVM lowering")

    def intrinsic(
        self,
        name: str,
        t: ir.Type,
        args: Sequence[ir.Value],
        types: Sequence[ir.Type] | None = None,
    ) -> ir.Value:
        suffix = ".".join(_type_suffix(x) for x in (types or [t]))
        fn = self._function(f"{name}.{suffix}", t, [a.type for a in args])
        return self.builder.call(fn, list(args))


def _type_suffix(t: ir.Type) -> str:
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    return {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16"}[str(t)]


# ------------------------------------------------------------------------------------
# The op table
# ------------------------------------------------------------------------------------


def _binary(method: str) -> Callable[[_FunctionEmitter, Operation], None]:
    def emit(e: _FunctionEmitter, op: Operation) -> None:
        a, b = (e.get(v) for v in op.operands)
        instruction = getattr(e.builder, method)(a, b)
        fastmath = op.properties.get("fastmath")
        if isinstance(fastmath, arith.FastMathFlagsAttr):
            instruction.flags.extend(sorted(flag.value for flag in fastmath.data))
        e.set(op, instruction)

    return emit


def _vector_math(
    make: Callable[[ir.Module], ir.Function],
    fallback: Callable[[_FunctionEmitter, Operation], None],
) -> Callable[[_FunctionEmitter, Operation], None]:
    """float32: the vectorizable function `make` defines; other types: `fallback`."""

    def emit(e: _FunctionEmitter, op: Operation) -> None:
        a = e.get(op.operands[0])
        if a.type == ir.FloatType():
            e.set(op, e.builder.call(make(e.module), [a]))
        else:
            fallback(e, op)

    return emit


def _cast(method: str) -> Callable[[_FunctionEmitter, Operation], None]:
    def emit(e: _FunctionEmitter, op: Operation) -> None:
        e.set(op, getattr(e.builder, method)(e.get(op.operands[0]), llvm_type(op.results[0].type)))

    return emit


def _intrinsic(name: str, arity: int = 1) -> Callable[[_FunctionEmitter, Operation], None]:
    def emit(e: _FunctionEmitter, op: Operation) -> None:
        args = [e.get(v) for v in op.operands[:arity]]
        e.set(op, e.intrinsic(name, llvm_type(op.results[0].type), args))

    return emit


def _libm(name: str) -> Callable[[_FunctionEmitter, Operation], None]:
    def emit(e: _FunctionEmitter, op: Operation) -> None:
        (a,) = (e.get(v) for v in op.operands)
        if a.type == ir.DoubleType():
            fn = e._function(name, a.type, [a.type])
            e.set(op, e.builder.call(fn, [a]))
            return
        wide = e.builder.fpext(a, ir.FloatType()) if a.type != ir.FloatType() else a
        fn = e._function(name + "f", ir.FloatType(), [ir.FloatType()])
        result = e.builder.call(fn, [wide])
        e.set(op, e.builder.fptrunc(result, a.type) if a.type != ir.FloatType() else result)

    return emit


_CMPI = {
    "eq": "==",
    "ne": "!=",
    "slt": "<",
    "sle": "<=",
    "sgt": ">",
    "sge": ">=",
    "ult": "<",
    "ule": "<=",
    "ugt": ">",
    "uge": ">=",
}
_CMPF = {"oeq": "==", "une": "!=", "olt": "<", "ole": "<=", "ogt": ">", "oge": ">="}


def _emit_cmpi(e: _FunctionEmitter, op: arith.CmpiOp) -> None:
    predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    a, b = e.get(op.lhs), e.get(op.rhs)
    if predicate.startswith("u"):
        e.set(op, e.builder.icmp_unsigned(_CMPI[predicate], a, b))
    else:
        e.set(op, e.builder.icmp_signed(_CMPI[predicate], a, b))


def _emit_cmpf(e: _FunctionEmitter, op: arith.CmpfOp) -> None:
    predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    a, b = e.get(op.lhs), e.get(op.rhs)
    if predicate.startswith("u"):
        e.set(op, e.builder.fcmp_unordered(_CMPF[predicate], a, b))
    else:
        e.set(op, e.builder.fcmp_ordered(_CMPF[predicate], a, b))


def _emit_select(e: _FunctionEmitter, op: arith.SelectOp) -> None:
    if op in e.chosen:
        e.set(op, e.get(op.lhs))
        return
    e.set(op, e.builder.select(e.get(op.cond), e.get(op.lhs), e.get(op.rhs)))


def _emit_index_cast(e: _FunctionEmitter, op: arith.IndexCastOp) -> None:
    value, target = e.get(op.input), llvm_type(op.result.type)
    if value.type.width == target.width:
        e.set(op, value)
    elif value.type.width < target.width:
        e.set(op, e.builder.sext(value, target))
    else:
        e.set(op, e.builder.trunc(value, target))


def _emit_fp_to_int(signed: bool) -> Callable[[_FunctionEmitter, Operation], None]:
    def emit(e: _FunctionEmitter, op: Operation) -> None:
        value = e.get(op.operands[0])
        target = llvm_type(op.results[0].type)
        name = "llvm.fptosi.sat" if signed else "llvm.fptoui.sat"
        e.set(op, e.intrinsic(name, target, [value], [target, value.type]))

    return emit


def _emit_float_conversion(e: _FunctionEmitter, op: Operation) -> None:
    """extf and truncf, including the small floats kept as integer storage."""
    source, target = op.operands[0].type, op.results[0].type
    e.set(op, small_floats.convert(e.builder, e.get(op.operands[0]), source, target))


def _emit_negf(e: _FunctionEmitter, op: arith.NegfOp) -> None:
    e.set(op, e.builder.fneg(e.get(op.operand)))


def _emit_rsqrt(e: _FunctionEmitter, op: math.RsqrtOp) -> None:
    a = e.get(op.operand)
    root = e.intrinsic("llvm.sqrt", a.type, [a])
    e.set(op, e.builder.fdiv(ir.Constant(a.type, 1.0), root))


def _emit_absi(e: _FunctionEmitter, op: math.AbsIOp) -> None:
    a = e.get(op.operand)
    e.set(op, e.intrinsic("llvm.abs", a.type, [a, ir.Constant(I1, 0)], [a.type]))


def _emit_fma(e: _FunctionEmitter, op: math.FmaOp) -> None:
    a, b, c = (e.get(v) for v in op.operands)
    e.set(op, e.intrinsic("llvm.fma", a.type, [a, b, c]))


def _emit_bitcast(e: _FunctionEmitter, op: arith.BitcastOp) -> None:
    e.set(op, e.builder.bitcast(e.get(op.operands[0]), llvm_type(op.results[0].type)))


def _emit_float_mod(e: _FunctionEmitter, op: blk.ModOp) -> None:
    a, b = (e.get(v) for v in op.operands)
    e.set(op, e.builder.frem(a, b))


def _emit_program(grid_name: str) -> Callable[[_FunctionEmitter, Operation], None]:
    def emit(e: _FunctionEmitter, op: Operation) -> None:
        axis = op.properties["axis"].value.data  # type: ignore[attr-defined]
        e.set(op, e.grid[f"{grid_name}_{'xyz'[axis]}"])

    return emit


def _emit_ptr_cast(e: _FunctionEmitter, op: blk.CastOp) -> None:
    e.set(op, e.get(op.src))


def _emit_ptr_cmp(e: _FunctionEmitter, op: blk.CmpOp) -> None:
    ops = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
    a, b = e.get(op.lhs), e.get(op.rhs)
    a64, b64 = e.builder.ptrtoint(a, I64), e.builder.ptrtoint(b, I64)
    e.set(op, e.builder.icmp_unsigned(ops[op.predicate.data.value], a64, b64))


def _emit_return(e: _FunctionEmitter, op: func.ReturnOp) -> None:
    e._flush_errors()
    e.builder.ret_void()


def _nothing(e: _FunctionEmitter, op: Operation) -> None:
    """Terminators handled by their parent op."""


_HANDLERS: dict[type[Operation], Callable[[_FunctionEmitter, Operation], None]] = {
    arith.ConstantOp: _FunctionEmitter.emit_constant,
    arith.AddiOp: _binary("add"),
    arith.SubiOp: _binary("sub"),
    arith.MuliOp: _binary("mul"),
    arith.DivSIOp: _binary("sdiv"),
    arith.DivUIOp: _binary("udiv"),
    arith.RemSIOp: _binary("srem"),
    arith.RemUIOp: _binary("urem"),
    arith.AndIOp: _binary("and_"),
    arith.OrIOp: _binary("or_"),
    arith.XOrIOp: _binary("xor"),
    arith.ShLIOp: _binary("shl"),
    arith.ShRSIOp: _binary("ashr"),
    arith.ShRUIOp: _binary("lshr"),
    arith.AddfOp: _binary("fadd"),
    arith.SubfOp: _binary("fsub"),
    arith.MulfOp: _binary("fmul"),
    arith.DivfOp: _binary("fdiv"),
    arith.NegfOp: _emit_negf,
    arith.MaxSIOp: _intrinsic("llvm.smax", 2),
    arith.MinSIOp: _intrinsic("llvm.smin", 2),
    arith.MaxUIOp: _intrinsic("llvm.umax", 2),
    arith.MinUIOp: _intrinsic("llvm.umin", 2),
    arith.MaximumfOp: _intrinsic("llvm.maximum", 2),
    arith.MinimumfOp: _intrinsic("llvm.minimum", 2),
    arith.MaxnumfOp: _intrinsic("llvm.maxnum", 2),
    arith.MinnumfOp: _intrinsic("llvm.minnum", 2),
    arith.CmpiOp: _emit_cmpi,
    arith.CmpfOp: _emit_cmpf,
    arith.SelectOp: _emit_select,
    arith.IndexCastOp: _emit_index_cast,
    arith.ExtSIOp: _cast("sext"),
    arith.ExtUIOp: _cast("zext"),
    arith.TruncIOp: _cast("trunc"),
    arith.SIToFPOp: _cast("sitofp"),
    arith.UIToFPOp: _cast("uitofp"),
    arith.ExtFOp: _emit_float_conversion,
    arith.TruncFOp: _emit_float_conversion,
    arith.FPToSIOp: _emit_fp_to_int(True),
    arith.FPToUIOp: _emit_fp_to_int(False),
    arith.BitcastOp: _emit_bitcast,
    math.ExpOp: _vector_math(vector_math.exp_f32, _intrinsic("llvm.exp")),
    math.Exp2Op: _vector_math(vector_math.exp2_f32, _intrinsic("llvm.exp2")),
    math.LogOp: _vector_math(vector_math.log_f32, _intrinsic("llvm.log")),
    math.Log2Op: _vector_math(vector_math.log2_f32, _intrinsic("llvm.log2")),
    math.SqrtOp: _intrinsic("llvm.sqrt"),
    math.RsqrtOp: _emit_rsqrt,
    math.SinOp: _vector_math(vector_math.sin_f32, _intrinsic("llvm.sin")),
    math.CosOp: _vector_math(vector_math.cos_f32, _intrinsic("llvm.cos")),
    math.TanhOp: _vector_math(vector_math.tanh_f32, _libm("tanh")),
    math.ErfOp: _vector_math(vector_math.erf_f32, _libm("erf")),
    math.FloorOp: _intrinsic("llvm.floor"),
    math.CeilOp: _intrinsic("llvm.ceil"),
    math.TruncOp: _intrinsic("llvm.trunc"),
    math.AbsFOp: _intrinsic("llvm.fabs"),
    math.AbsIOp: _emit_absi,
    math.FmaOp: _emit_fma,
    math.CopySignOp: _intrinsic("llvm.copysign", 2),
    memref.AllocaOp: _FunctionEmitter.emit_alloca,
    memref.LoadOp: _FunctionEmitter.emit_memref_load,
    memref.StoreOp: _FunctionEmitter.emit_memref_store,
    scf.ForOp: _FunctionEmitter.emit_for,
    scf.IfOp: _FunctionEmitter.emit_if,
    scf.WhileOp: _FunctionEmitter.emit_while,
    scf.YieldOp: _nothing,
    scf.ConditionOp: _nothing,
    func.ReturnOp: _emit_return,
    blk.ProgramIdOp: _emit_program("pid"),
    blk.NumProgramsOp: _emit_program("nprog"),
    blk.AddPtrOp: _FunctionEmitter.emit_addptr,
    blk.LoadOp: _FunctionEmitter.emit_load,
    blk.StoreOp: _FunctionEmitter.emit_store,
    blk.AtomicRMWOp: _FunctionEmitter.emit_atomic_rmw,
    blk.AtomicCASOp: _FunctionEmitter.emit_atomic_cas,
    blk.PrintOp: _FunctionEmitter.emit_print,
    blk.AssertOp: _FunctionEmitter.emit_assert,
    blk.ModOp: _emit_float_mod,
    blk.CastOp: _emit_ptr_cast,
    blk.CmpOp: _emit_ptr_cmp,
}
