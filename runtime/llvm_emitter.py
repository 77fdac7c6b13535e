"""What every LLVM target's code generator shares: loop IR to the body of an LLVM function.

The input is loop IR, what `convert-blk-to-loops` or `convert-blk-to-simt`,
`lower-int-semantics` and `emulate-small-floats` leave: `func`, `scf`, `arith`, `math`,
`memref` buffers and the scalar pointer ops of `blk` (`addptr`, `load`, `store`,
atomics, program ids) over signless integers and f16/f32/f64 (bf16 and fp8 arrive as
integer storage with explicit conversions).

`FunctionEmitter` translates one function's ops, each by its entry in `HANDLERS`. Each
target derives its own emitter from it (`llvm_codegen` for the CPU, `nvptx_codegen` for
NVIDIA GPUs), which opens the kernel function (`open_function`, `bind_arguments`), fills
in `grid`, adds the ops only it translates to the table (`handler`), and may replace
these hooks:

- `convert_float`: float conversions (here `small_floats`' software);
- `access_condition`: when a load, a store or an atomic runs (here its mask);
- `carried_state`, `set_carried_state`: the emitter's own values that control flow
  carries, as phis, beside the IR's (here none);
- `before_return`: what runs as the program ends (here nothing);
- `emit_wide_math`: the math functions of other types than float32 (here LLVM's
  intrinsics, or libm's functions where LLVM has none).

Loads and stores index typed elements with GEPs, which LLVM's vectorizers understand;
masked accesses branch around the access, which the loop vectorizer turns into masked
vector loads and stores. float32 math is `vector_math`'s code on every target.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import arith, func, math, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
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
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from blkc.diagnostics import error_at
from blkc.dialects import blk
from blkc.dialects.types import PtrType
from blkc.runtime import small_floats, special_math, vector_math
from blkc.runtime.llvm_ir import ir

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType()
_F64 = ir.DoubleType()


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


STACK_BUFFER_BYTES = 4 << 20
"""The most bytes of buffers (`memref.alloca`: materialized blocks) a program keeps on its
thread's stack. Beyond, its buffers of at least `HEAP_BUFFER_MIN_BYTES` are allocated on the
heap (`aligned_alloc`, freed at return): two 2**20-element float32 blocks of a cumsum
overflowed an 8 MiB stack and killed the process."""

HEAP_BUFFER_MIN_BYTES = 64 << 10


def element_bytes(element: Attribute) -> int:
    """The bytes of one element of type `element` (a blk dtype or a pointer)."""
    from blkc import dtypes

    return 8 if isinstance(element, PtrType) else max(1, dtypes.from_xdsl(element).width // 8)


def _buffer_bytes(t: MemRefType) -> int:
    return buffer_type(t).count * element_bytes(t.element_type)


def _function_buffer_bytes(function: func.FuncOp) -> int:
    """The bytes of all of `function`'s `memref.alloca` buffers."""
    return sum(
        _buffer_bytes(op.memref.type) for op in function.walk() if isinstance(op, memref.AllocaOp)
    )


def buffer_gep(b: ir.IRBuilder, buffer: ir.Value, t: MemRefType, linear: ir.Value) -> ir.Value:
    """The address of element `linear` of a buffer of type `t`: an alloca's pointer is
    typed ([N x T]*), a heap buffer's opaque (the array type given)."""
    index = [ir.Constant(I64, 0), linear]
    if buffer.type.is_opaque:
        return b.gep(buffer, index, inbounds=True, source_etype=buffer_type(t))
    return b.gep(buffer, index, inbounds=True)


def buffer_type(t: Attribute) -> ir.ArrayType:
    """The LLVM array holding a `memref` buffer's elements, in row-major order."""
    assert isinstance(t, MemRefType)
    count = 1
    for d in t.get_shape():
        count *= d
    return ir.ArrayType(llvm_type(t.element_type), count)


Handler = Callable[["FunctionEmitter", Operation], None]


class FunctionEmitter:
    """Translates the ops of one loop-IR `function` into the LLVM function a target's
    emitter opened in `module` (see the module's docstring for the hooks)."""

    target = "LLVM"
    """The code generator's name, for errors."""
    builder: ir.IRBuilder
    """Where the op being translated goes."""
    allocas: ir.IRBuilder
    """The function's entry block, which dominates every use: stack slots and values
    computed once."""

    def __init__(self, module: ir.Module, function: func.FuncOp):
        self.module = module
        self.function = function
        self.values: dict[SSAValue, ir.Value] = {}
        self.grid: dict[str, ir.Value] = {}
        """The program's ids (`pid_x`, `pid_y`, `pid_z`) and the grid's size (`nprog_x`,
        ...), as i32."""
        self._strings: dict[str, ir.GlobalVariable] = {}
        self._loop_hints: dict[str, ir.MDValue] = {}
        self._heap_buffers: list[ir.Value] | bool | None = None
        """The buffers on the heap (False: none may be; None: not decided yet)."""

    # -- functions ---------------------------------------------------------------------

    def open_function(self, kernel: ir.Function) -> None:
        """Start `kernel`: an entry block (`allocas`) that branches to the body, where
        `builder` starts."""
        entry = kernel.append_basic_block("entry")
        self.allocas = ir.IRBuilder(entry)
        body = kernel.append_basic_block("body")
        self.allocas.branch(body)
        self.allocas.position_before(entry.terminator)
        self.builder = ir.IRBuilder(body)

    def bind_arguments(self, llvm_args: Sequence[ir.Value]) -> None:
        """The function's arguments are `llvm_args`, as `argument` receives them."""
        block = self.function.body.blocks[0]
        params = self.function.function_type.inputs.data
        for arg, llvm_arg, t in zip(block.args, llvm_args, params, strict=True):
            self.values[arg] = self.argument(llvm_arg, t)

    def argument(self, llvm_arg: ir.Value, t: Attribute) -> ir.Value:
        """The value of an argument of type `t` passed as `llvm_arg` (`abi_type`)."""
        if llvm_type(t) != abi_type(t):
            return self.convert_float(llvm_arg, Float64Type(), t)
        return llvm_arg

    def emit_program(self) -> None:
        """Translate the function's body, which returns at its end."""
        self.emit_ops(self.function.body.blocks[0])
        if not self.builder.block.is_terminated:
            self.before_return()
            self.builder.ret_void()

    # -- hooks -------------------------------------------------------------------------

    def handler(self, op: Operation) -> Handler | None:
        """How to translate `op`, or None where this target cannot."""
        return HANDLERS.get(type(op))

    def convert_float(self, value: ir.Value, source: Attribute, target: Attribute) -> ir.Value:
        """`value` of float type `source` rounded to `target` (small floats are integers)."""
        return small_floats.convert(self.builder, value, source, target)

    def access_condition(self, op: Operation, ptr: SSAValue, mask: ir.Value | None) -> ir.Value:
        """The condition under which the access `op` at `ptr` runs, given its `mask`."""
        return ir.Constant(I1, 1) if mask is None else mask

    def carried_state(self) -> list[ir.Value]:
        """The emitter's own values that control flow carries (merged by phis)."""
        return []

    def set_carried_state(self, values: Sequence[ir.Value]) -> None:
        """Continue with `values` for `carried_state` (phis of the values before)."""

    def before_return(self) -> None:
        """Emit what runs when the program returns."""

    def emit_wide_math(self, op: Operation, name: str, x: ir.Value) -> None:
        """The math function `name` (`exp`, ...) of `x`, of another type than float32:
        LLVM's intrinsic, or libm's function (in float32 below float64) where LLVM has
        none."""
        if name not in _LIBM:
            self.set(op, self.intrinsic(f"llvm.{name}", llvm_type(op.results[0].type), [x]))
            return
        b = self.builder
        if x.type == ir.DoubleType():
            self.set(op, b.call(self.declare(name, x.type, [x.type]), [x]))
            return
        wide = b.fpext(x, ir.FloatType()) if x.type != ir.FloatType() else x
        result = b.call(self.declare(name + "f", ir.FloatType(), [ir.FloatType()]), [wide])
        self.set(op, b.fptrunc(result, x.type) if x.type != ir.FloatType() else result)

    # -- blocks and control flow -------------------------------------------------------

    def emit_ops(self, block: Block) -> None:
        for op in block.ops:
            handler = self.handler(op)
            if handler is None:
                raise error_at(op, f"the {self.target} code generator cannot translate '{op.name}'")
            handler(self, op)

    def get(self, value: SSAValue) -> ir.Value:
        return self.values[value]

    def set(self, op: Operation, value: ir.Value) -> None:
        self.values[op.results[0]] = value

    def emit_loop(self, op: scf.ForOp) -> None:
        inits = self.loop_inits(op)
        carried = self.emit_loop_range(op, self.get(op.lb), self.get(op.ub), inits)
        for result, phi in zip(op.results, carried, strict=True):
            self.values[result] = phi

    def loop_inits(self, op: scf.ForOp) -> list[ir.Value]:
        """The values loop `op` starts carrying."""
        return [self.get(v) for v in op.iter_args]

    def emit_loop_range(
        self, op: scf.ForOp, start: ir.Value, end: ir.Value, inits: Sequence[ir.Value]
    ) -> list[ir.Value]:
        """Loop `op`'s body over [start, end) by its step, from the carried values `inits`;
        returns the carried values after it (a target may run one loop in several ranges)."""
        block = op.body.blocks[0]

        def iteration(iv: ir.Value, carried: Sequence[ir.Value]) -> list[ir.Value]:
            self.values[block.args[0]] = iv
            for arg, phi in zip(block.args[1:], carried, strict=True):
                self.values[arg] = phi
            self.emit_ops(block)
            yield_op = block.last_op
            assert isinstance(yield_op, scf.YieldOp)
            return [self.get(v) for v in yield_op.operands]

        carried, back = self.counted_loop(start, end, self.get(op.step), inits, iteration)
        metadata = self.loop_metadata(op)
        if metadata is not None:
            back.set_metadata("llvm.loop", metadata)
        return list(carried)

    def counted_loop(
        self,
        lb: ir.Value,
        ub: ir.Value,
        step: ir.Value,
        inits: Sequence[ir.Value],
        iteration: Callable[[ir.Value, Sequence[ir.Value]], list[ir.Value]],
        name: str = "for",
    ) -> tuple[list[ir.PhiInstr], ir.Instruction]:
        """A loop of its induction variable from `lb` while below `ub` by `step`, carrying
        `inits`: `iteration(iv, carried)` emits one iteration and returns the next carried
        values. Returns the carried values' phis (their values after the loop) and the
        branch back to the header; the builder continues after the loop."""
        b = self.builder
        pre = b.block
        fn = b.function
        header = fn.append_basic_block(f"{name}.header")
        body = fn.append_basic_block(f"{name}.body")
        exit_ = fn.append_basic_block(f"{name}.exit")
        b.branch(header)
        b.position_at_end(header)
        iv = b.phi(lb.type)
        iv.add_incoming(lb, pre)
        carried = []
        for init in inits:
            phi = b.phi(init.type)
            phi.add_incoming(init, pre)
            carried.append(phi)
        state = self._state_phis(pre)
        b.cbranch(b.icmp_signed("<", iv, ub), body, exit_)
        b.position_at_end(body)
        following = iteration(iv, carried)
        iv.add_incoming(self.builder.add(iv, step), self.builder.block)
        back = self._close_loop(carried, following, state, header, exit_)
        return carried, back

    def loop_metadata(self, op: scf.ForOp) -> ir.MDValue | None:
        """The `llvm.loop` metadata of loop `op`'s back edge, if any (a target may add its
        own)."""
        hints: list[tuple[Any, ...]] = []
        if blk.NO_UNROLL_ATTR in op.attributes:  # unrolled at most twice
            hints.append(("llvm.loop.unroll.count", ir.Constant(I32, 2)))
        if carries_nan_skipping_extremum(op):
            hints.append(("llvm.loop.vectorize.enable", ir.Constant(I1, 0)))
        return self._loop_metadata(*hints) if hints else None

    def _loop_metadata(self, *hints: tuple[Any, ...]) -> ir.MDValue:
        """Loop metadata holding `hints`, each ``(name, operand, ...)`` where an operand is
        an LLVM value or a hint of its own (`llvm.loop.vectorize.followup_all`'s), made
        once per module."""
        key = repr(hints)
        found = self._loop_hints.get(key)
        if found is None:
            nodes = [self._hint_node(hint) for hint in hints]
            found = self.module.add_metadata([None, *nodes])
            found.operands = (found, *nodes)  # a loop's metadata names itself first
            self._loop_hints[key] = found
        return found

    def _hint_node(self, hint: tuple[Any, ...]) -> ir.MDValue:
        name, *values = hint
        operands = [self._hint_node(v) if isinstance(v, tuple) else v for v in values]
        return self.module.add_metadata([ir.MetaDataString(self.module, name), *operands])

    def _state_phis(self, pre: ir.Block) -> list[ir.PhiInstr]:
        """At a loop header entered from `pre`: a phi for each value of `carried_state`,
        which continues with them."""
        phis = []
        for value in self.carried_state():
            phi = self.builder.phi(value.type)
            phi.add_incoming(value, pre)
            phis.append(phi)
        self.set_carried_state(phis)
        return phis

    def _close_loop(
        self,
        phis: Sequence[ir.PhiInstr],
        following: Sequence[ir.Value],
        state: Sequence[ir.PhiInstr],
        header: ir.Block,
        exit_: ir.Block,
    ) -> ir.Instruction:
        """Feed the `following` values (and the carried state) back to the loop's phis,
        branch back to its header (the branch is returned) and continue after it."""
        latch = self.builder.block
        for phi, value in zip(phis, following, strict=True):
            phi.add_incoming(value, latch)
        for phi, state_value in zip(state, self.carried_state(), strict=True):
            phi.add_incoming(state_value, latch)
        self.set_carried_state(state)
        back = self.builder.branch(header)
        self.builder.position_at_end(exit_)
        return back

    def emit_if(self, op: scf.IfOp) -> None:
        b = self.builder
        fn = b.function
        then_bb = fn.append_basic_block("if.then")
        else_bb = fn.append_basic_block("if.else")
        merge = fn.append_basic_block("if.end")
        b.cbranch(self.get(op.cond), then_bb, else_bb)
        incoming = []
        state_before = self.carried_state()
        state_incoming = []
        for region, bb in ((op.true_region, then_bb), (op.false_region, else_bb)):
            self.set_carried_state(state_before)
            self.builder.position_at_end(bb)
            yielded: list[ir.Value] = []
            if region.blocks:
                block = region.blocks[0]
                self.emit_ops(block)
                last = block.last_op
                if isinstance(last, scf.YieldOp):
                    yielded = [self.get(v) for v in last.operands]
            incoming.append((yielded, self.builder.block))
            state_incoming.append((self.carried_state(), self.builder.block))
            self.builder.branch(merge)
        self.builder.position_at_end(merge)
        state = [self.builder.phi(value.type) for value in state_before]
        for values, bb in state_incoming:
            for phi, value in zip(state, values, strict=True):
                phi.add_incoming(value, bb)
        self.set_carried_state(state)
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
        state = self._state_phis(pre)
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
        go_on = self.while_condition(self.get(condition.condition))
        self.builder.cbranch(go_on, after_bb, exit_bb)
        self.builder.position_at_end(after_bb)
        after = op.after_region.blocks[0]
        for arg, value in zip(after.args, passed, strict=True):
            self.values[arg] = value
        self.emit_ops(after)
        yield_op = after.last_op
        assert isinstance(yield_op, scf.YieldOp)
        following = [self.get(v) for v in yield_op.operands]
        self._close_loop(phis, following, state, before_bb, exit_bb)
        for result, value in zip(op.results, passed, strict=True):
            self.values[result] = value

    def while_condition(self, condition: ir.Value) -> ir.Value:
        """Whether a `while` loop goes on, given its own `condition` (a target may stop
        loops that could run forever)."""
        return condition

    def emit_return(self, op: func.ReturnOp) -> None:
        self.before_return()
        self.free_heap_buffers()
        self.builder.ret_void()

    # -- memory ------------------------------------------------------------------------

    def emit_alloca(self, op: memref.AllocaOp) -> None:
        if self._heap_buffers is None:
            large = _function_buffer_bytes(self.function) > STACK_BUFFER_BYTES
            self._heap_buffers = [] if large else False
        size = _buffer_bytes(op.memref.type)
        if self._heap_buffers is not False and size >= HEAP_BUFFER_MIN_BYTES:
            # On the heap: a thread's stack (8 MiB) would overflow, killing the process.
            rounded = ir.Constant(I64, -(-size // 64) * 64)
            allocate = self.declare("aligned_alloc", PTR, [I64, I64])
            memory = self.allocas.call(allocate, [ir.Constant(I64, 64), rounded])
            self._heap_buffers.append(memory)
            self.set(op, memory)
            return
        slot = self.allocas.alloca(buffer_type(op.memref.type))
        slot.align = 64
        self.set(op, slot)

    def free_heap_buffers(self) -> None:
        """Free the buffers `emit_alloca` put on the heap (before each return)."""
        if self._heap_buffers:
            release = self.declare("free", ir.VoidType(), [PTR])
            for slot in self._heap_buffers:
                self.builder.call(release, [slot])

    def _buffer_address(self, ref: SSAValue, indices: Sequence[SSAValue]) -> ir.Value:
        t = ref.type
        assert isinstance(t, MemRefType)
        shape = t.get_shape()
        b = self.builder
        linear: ir.Value = ir.Constant(I64, 0)
        for size, index in zip(shape, indices, strict=True):
            linear = b.add(b.mul(linear, ir.Constant(I64, size)), self.get(index))
        return buffer_gep(b, self.get(ref), t, linear)

    def emit_memref_load(self, op: memref.LoadOp) -> None:
        address = self._buffer_address(op.memref, op.indices)
        self.set(op, self.builder.load(address, typ=llvm_type(op.res.type)))

    def emit_memref_store(self, op: memref.StoreOp) -> None:
        address = self._buffer_address(op.memref, op.indices)
        self.builder.store(self.get(op.value), address)

    def pointee(self, ptr: SSAValue) -> ir.Type:
        """The LLVM type of the elements `ptr` points to."""
        t = ptr.type
        assert isinstance(t, PtrType)
        return llvm_type(t.pointee)

    def element_size(self, ptr: SSAValue) -> int:
        """The bytes of the element `ptr` points to."""
        t = ptr.type
        assert isinstance(t, PtrType)
        return element_bytes(t.pointee)

    def emit_addptr(self, op: blk.AddPtrOp) -> None:
        b = self.builder
        offset = self.get(op.offset)
        if offset.type != I64:
            offset = b.sext(offset, I64)
        self.set(
            op,
            b.gep(self.get(op.ptr), [offset], inbounds=False, source_etype=self.pointee(op.ptr)),
        )

    def guarded(self, mask: ir.Value, emit: Callable[[], ir.Value | None]) -> ir.Value | None:
        """What `emit` computes, where `mask` holds (else zero)."""
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

    def _mask(self, op: blk.LoadOp | blk.StoreOp | blk.AtomicRMWOp) -> ir.Value | None:
        return self.get(op.mask) if op.mask is not None else None

    def address(self, op: blk.LoadOp | blk.StoreOp) -> ir.Value:
        """The address a load or store accesses (a target may compute it its own way)."""
        return self.get(op.ptr)

    def emit_load(self, op: blk.LoadOp) -> None:
        b = self.builder
        element = self.pointee(op.ptr)
        ptr = self.address(op)
        mask = self.access_condition(op, op.ptr, self._mask(op))
        loaded = self.guarded(mask, lambda: b.load(ptr, typ=element))
        assert loaded is not None
        other = self.get(op.other) if op.other is not None else ir.Constant(element, None)
        self.set(op, b.select(mask, loaded, other))

    def emit_store(self, op: blk.StoreOp) -> None:
        b = self.builder
        ptr, value = self.address(op), self.get(op.value)

        def store() -> None:
            b.store(value, ptr)

        self.guarded(self.access_condition(op, op.ptr, self._mask(op)), store)

    def emit_atomic_rmw(self, op: blk.AtomicRMWOp, value: ir.Value | None = None) -> None:
        """`op`, combining `value` (default: its operand's) into memory."""
        b = self.builder
        element = self.pointee(op.ptr)
        is_float = isinstance(element, ir.FloatType | ir.DoubleType | ir.HalfType)
        kind = op.kind.data.value
        if not is_float and kind in ("max", "min") and blk.UNSIGNED_ATTR in op.attributes:
            kind = "u" + kind  # unsigned integers in memory (lower-int-semantics marks it)
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
        ptr = self.get(op.ptr)
        combined = self.get(op.value) if value is None else value
        stored = op.ptr.type.pointee if isinstance(op.ptr.type, PtrType) else None

        def rmw() -> ir.Value:
            if kind != "xchg" and stored is not None and small_floats.is_storage_float(stored):
                return self._storage_float_rmw(kind, ptr, combined, stored)
            return b.atomic_rmw(names[kind], ptr, combined, "acq_rel")

        result = self.guarded(self.access_condition(op, op.ptr, self._mask(op)), rmw)
        assert result is not None
        self.set(op, result)

    def _storage_float_rmw(
        self, kind: str, ptr: ir.Value, value: ir.Value, stored: Attribute
    ) -> ir.Value:
        """An atomic add, max or min of a float kept in integer storage (bfloat16, fp8): a
        compare-and-swap loop combining in float32 (`atomicrmw`'s fadd, fmax and fmin) and
        rounding once, as the format's own op does. Returns the old value. (An exchange
        swaps the bits, as for any other type.)"""
        b = self.builder
        single = ir.FloatType()

        def combine(x: ir.Value, y: ir.Value) -> ir.Value:
            if kind == "add":
                return b.fadd(x, y)
            extremum = self.declare(f"llvm.{kind}num.f32", single, [single, single])
            return b.call(extremum, [x, y])  # maxnum, minnum: as atomicrmw fmax, fmin

        bits = value.type
        f32 = Float32Type()
        operand = small_floats.convert(b, value, stored, f32)
        start = b.load_atomic(ptr, "monotonic", align=bits.width // 8, typ=bits)
        entry = b.block
        loop = b.function.append_basic_block("atomic.retry")
        done = b.function.append_basic_block("atomic.done")
        b.branch(loop)
        b.position_at_end(loop)
        seen = b.phi(bits)
        seen.add_incoming(start, entry)
        total = combine(small_floats.convert(b, seen, stored, f32), operand)
        swapped = b.cmpxchg(
            ptr, seen, small_floats.convert(b, total, f32, stored), "acq_rel", "monotonic"
        )
        seen.add_incoming(b.extract_value(swapped, 0), b.block)
        b.cbranch(b.extract_value(swapped, 1), done, loop)
        b.position_at_end(done)
        return seen

    def emit_atomic_cas(self, op: blk.AtomicCASOp) -> None:
        b = self.builder
        ptr, cmp, value = self.get(op.ptr), self.get(op.cmp), self.get(op.value)

        def cas() -> ir.Value:
            if isinstance(cmp.type, ir.IntType | ir.PointerType):
                return b.extract_value(b.cmpxchg(ptr, cmp, value, "acq_rel", "acquire"), 0)
            # A float compare-and-swap compares bit patterns, as the hardware's does (NaN
            # can match, -0.0 does not match 0.0): LLVM's cmpxchg takes integers only.
            bits = ir.IntType({ir.HalfType(): 16, ir.FloatType(): 32}.get(cmp.type, 64))
            old = b.cmpxchg(ptr, b.bitcast(cmp, bits), b.bitcast(value, bits), "acq_rel", "acquire")
            return b.bitcast(b.extract_value(old, 0), cmp.type)

        result = self.guarded(self.access_condition(op, op.ptr, None), cas)
        assert result is not None
        self.set(op, result)

    # -- debugging ---------------------------------------------------------------------

    def string(self, text: str) -> ir.Value:
        """A pointer to `text`, a NUL-terminated constant of the module (one per text)."""
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

    def declare(
        self, name: str, result: ir.Type, args: Sequence[ir.Type], var_arg: bool = False
    ) -> ir.Function:
        """The module's function `name`, declared on first use."""
        existing = self.module.globals.get(name)
        if isinstance(existing, ir.Function):
            return existing
        return ir.Function(self.module, ir.FunctionType(result, args, var_arg=var_arg), name=name)

    def print_lines(self, op: blk.PrintOp) -> list[tuple[ir.Value, list[ir.Value]]]:
        """The printf format (a string constant) and values of each line `op` prints
        (`blk.print`'s format), the values widened as C's variadic calls pass them: ints
        to i64, floats to double."""
        b = self.builder
        prefix = op.prefix.data.replace("%", "%%")
        pid = [b.zext(self.grid[f"pid_{axis}"], I64) for axis in "xyz"]
        head = "pid (%lld, %lld, %lld)"
        if not op.args:
            return [(self.string(head + prefix + "\n"), pid)]
        widths = op.widths() or ()
        unsigned_attr = op.attributes.get(blk.UNSIGNED_ARGS_ATTR)
        unsigned = set(unsigned_attr.get_values()) if unsigned_attr is not None else set()  # type: ignore[attr-defined]
        lines = []
        for indices, label, at in op.lines():
            spec, value = self._print_value(op.args[at], op.hex is not None, at in unsigned)
            where = ", ".join(f"%{widths[i]}lld" for i in indices)
            text = f"{head} idx ({where}){prefix}"
            if label is not None:
                text += f"(operand {label}) "
            index_values = [self._as_i64(self.get(op.args[i]), signed=True) for i in indices]
            lines.append((self.string(text + spec + "\n"), [*pid, *index_values, value]))
        return lines

    def _as_i64(self, value: ir.Value, signed: bool) -> ir.Value:
        width = value.type.width  # type: ignore[attr-defined]
        if width == 64:
            return value
        extend = self.builder.sext if signed and width > 1 else self.builder.zext
        return extend(value, I64)

    def _print_value(self, arg: SSAValue, hex_: bool, unsigned: bool) -> tuple[str, ir.Value]:
        """The printf conversion of one printed value, and the value as printf takes it."""
        b = self.builder
        value, t = self.get(arg), arg.type
        if isinstance(t, PtrType) or isinstance(value.type, ir.PointerType):
            return "%p", value
        if isinstance(t, AnyFloat):
            if not isinstance(t, Float64Type):
                value = b.fpext(self.convert_float(value, t, Float32Type()), ir.DoubleType())
            return ("%a" if hex_ else "%f"), value
        width = value.type.width  # type: ignore[attr-defined]
        if hex_:
            return f"0x%0{max(1, width // 4)}llx", self._as_i64(value, signed=False)
        signed = not unsigned and width > 1
        return ("%lld" if signed else "%llu"), self._as_i64(value, signed=signed)

    def emit_assertion(self, ok: ir.Value, fail: Callable[[], None]) -> None:
        """The code `fail` emits, run where `ok` is false; then continue."""
        b = self.builder
        fn = b.function
        bad = fn.append_basic_block("assert.fail")
        good = fn.append_basic_block("assert.ok")
        b.cbranch(ok, good, bad)
        b.position_at_end(bad)
        fail()
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

    def emit_select(self, op: arith.SelectOp) -> None:
        self.set(op, self.builder.select(self.get(op.cond), self.get(op.lhs), self.get(op.rhs)))

    def emit_float_conversion(self, op: Operation) -> None:
        """extf and truncf, including the small floats kept as integer storage."""
        source, target = op.operands[0].type, op.results[0].type
        self.set(op, self.convert_float(self.get(op.operands[0]), source, target))

    def emit_math_function(self, op: Operation) -> None:
        """A transcendental function: float32 through `vector_math`'s code, which LLVM
        vectorizes (a call to the C library's `expf` stays scalar); other types through
        `emit_wide_math`."""
        x = self.get(op.operands[0])
        name, float32 = MATH_FUNCTIONS[type(op)]
        if x.type == ir.FloatType():
            self.set(op, self.builder.call(float32(self.module), [x]))
        else:
            self.emit_wide_math(op, name, x)

    def emit_named_math(self, op: blk.MathFnOp | blk.MathFn2Op) -> None:
        """A C math function (`blk.math`, `blk.math2`) of float32 or float64 operands:
        `vector_math`'s float32 code where it has the function, LLVM's intrinsic where
        LLVM vectorizes one, else the C library's function (a scalar call)."""
        name = op.fn.data
        args = [self.get(v) for v in op.operands]
        t = args[0].type
        b = self.builder
        if name in special_math.FUNCTIONS or name in _BESSEL:
            # float64 code (blkc's own, or the C library's Bessel functions); float32
            # rounded once
            wide = [a if a.type == _F64 else b.fpext(a, _F64) for a in args]
            if name in special_math.FUNCTIONS:
                fn = self.special_function(name)
            else:
                if name in ("jn", "yn"):  # C's int order first
                    wide[0] = self.intrinsic("llvm.fptosi.sat", I32, [wide[0]], [I32, _F64])
                fn = self.declare(name, _F64, [a.type for a in wide])
            result = b.call(fn, wide)
            self.set(op, result if t == _F64 else b.fptrunc(result, t))
        elif t == ir.FloatType() and name in vector_math.NAMED:
            self.set(op, b.call(vector_math.NAMED[name](self.module), args))
        elif name in _NAMED_INTRINSICS:
            self.set(op, self.intrinsic(_NAMED_INTRINSICS[name], t, args))
        elif name == "ldexp":
            exponent = self.intrinsic("llvm.fptosi.sat", I32, [args[1]], [I32, t])
            self.set(op, self.intrinsic("llvm.ldexp", t, [args[0], exponent], [t, I32]))
        else:
            symbol = name + ("f" if t == ir.FloatType() else "")
            self.set(op, b.call(self.declare(symbol, t, [a.type for a in args]), args))

    def special_function(self, name: str) -> ir.Function:
        """``double @blkc.<name>.f64(double)``, defined once in the module (internal): the
        special function `name` of `special_math`."""
        symbol = f"blkc.{name}.f64"
        existing = self.module.globals.get(symbol)
        if isinstance(existing, ir.Function):
            return existing
        fn = ir.Function(self.module, ir.FunctionType(_F64, [_F64]), name=symbol)
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        b.ret(special_math.FUNCTIONS[name](LlvmArithmetic(b, self.declare), fn.args[0]))
        return fn

    def intrinsic(
        self,
        name: str,
        t: ir.Type,
        args: Sequence[ir.Value],
        types: Sequence[ir.Type] | None = None,
    ) -> ir.Value:
        suffix = ".".join(_type_suffix(x) for x in (types or [t]))
        fn = self.declare(f"{name}.{suffix}", t, [a.type for a in args])
        return self.builder.call(fn, list(args))


def _type_suffix(t: ir.Type) -> str:
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    return {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16"}[str(t)]


MATH_FUNCTIONS: dict[type[Operation], tuple[str, Callable[[ir.Module], ir.Function]]] = {
    math.ExpOp: ("exp", vector_math.exp_f32),
    math.Exp2Op: ("exp2", vector_math.exp2_f32),
    math.LogOp: ("log", vector_math.log_f32),
    math.Log2Op: ("log2", vector_math.log2_f32),
    math.SinOp: ("sin", vector_math.sin_f32),
    math.CosOp: ("cos", vector_math.cos_f32),
    math.TanhOp: ("tanh", vector_math.tanh_f32),
    math.ErfOp: ("erf", vector_math.erf_f32),
}
"""The transcendental functions: each one's name and `vector_math`'s float32 code."""
_LIBM = ("tanh", "erf")
"""The functions LLVM has no intrinsic for."""
_BESSEL = ("j0", "j1", "y0", "y1", "jn", "yn")
"""The C library's Bessel functions (`jn` and `yn` of an int order and a double)."""
_NAMED_INTRINSICS = {
    "rint": "llvm.rint",
    "round": "llvm.round",
    "trunc": "llvm.trunc",
    "copysign": "llvm.copysign",
}
"""The functions of `blk.math` and `blk.math2` that are LLVM intrinsics it vectorizes."""


# ------------------------------------------------------------------------------------
# The special functions (`special_math`) as LLVM IR
# ------------------------------------------------------------------------------------


class LlvmArithmetic:
    """`special_math.Arithmetic` on LLVM double values, built with `b`; functions come
    from `declare` (`FunctionEmitter.declare`)."""

    def __init__(
        self, b: ir.IRBuilder, declare: Callable[[str, ir.Type, Sequence[ir.Type]], ir.Function]
    ):
        self.b, self.declare = b, declare

    def c(self, value: float) -> ir.Value:
        return ir.Constant(_F64, value)

    def add(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fadd(x, y)

    def sub(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fsub(x, y)

    def mul(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fmul(x, y)

    def div(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fdiv(x, y)

    def _declared(self, name: str, arity: int) -> ir.Function:
        return self.declare(name, _F64, [_F64] * arity)

    def fma(self, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
        return self.b.call(self._declared("llvm.fma.f64", 3), [x, y, z])

    def abs(self, x: ir.Value) -> ir.Value:
        return self.b.call(self._declared("llvm.fabs.f64", 1), [x])

    def sqrt(self, x: ir.Value) -> ir.Value:
        return self.b.call(self._declared("llvm.sqrt.f64", 1), [x])

    def rint(self, x: ir.Value) -> ir.Value:
        return self.b.call(self._declared("llvm.rint.f64", 1), [x])

    def copysign(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.call(self._declared("llvm.copysign.f64", 2), [x, y])

    def call(self, name: str, x: ir.Value) -> ir.Value:
        return self.b.call(self._declared(name, 1), [x])

    def less(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fcmp_ordered("<", x, y)

    def equal(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fcmp_ordered("==", x, y)

    def either(self, p: ir.Value, q: ir.Value) -> ir.Value:
        return self.b.or_(p, q)

    def select(self, p: ir.Value, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.select(p, x, y)


# ------------------------------------------------------------------------------------
# The op table
# ------------------------------------------------------------------------------------


def _binary(method: str) -> Handler:
    def emit(e: FunctionEmitter, op: Operation) -> None:
        a, b = (e.get(v) for v in op.operands)
        instruction = getattr(e.builder, method)(a, b)
        fastmath = op.properties.get("fastmath")
        if isinstance(fastmath, arith.FastMathFlagsAttr):
            instruction.flags.extend(sorted(flag.value for flag in fastmath.data))
        e.set(op, instruction)

    return emit


def _cast(method: str) -> Handler:
    def emit(e: FunctionEmitter, op: Operation) -> None:
        e.set(op, getattr(e.builder, method)(e.get(op.operands[0]), llvm_type(op.results[0].type)))

    return emit


def _intrinsic(name: str, arity: int = 1) -> Handler:
    def emit(e: FunctionEmitter, op: Operation) -> None:
        args = [e.get(v) for v in op.operands[:arity]]
        call = e.intrinsic(name, llvm_type(op.results[0].type), args)
        fastmath = op.properties.get("fastmath")
        if isinstance(fastmath, arith.FastMathFlagsAttr):  # `nsz` on reductions' extrema
            call.fastmath.update(flag.value for flag in fastmath.data)
        e.set(op, call)

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


def _emit_cmpi(e: FunctionEmitter, op: arith.CmpiOp) -> None:
    predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    a, b = e.get(op.lhs), e.get(op.rhs)
    if predicate.startswith("u"):
        e.set(op, e.builder.icmp_unsigned(_CMPI[predicate], a, b))
    else:
        e.set(op, e.builder.icmp_signed(_CMPI[predicate], a, b))


def _emit_cmpf(e: FunctionEmitter, op: arith.CmpfOp) -> None:
    predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    a, b = e.get(op.lhs), e.get(op.rhs)
    if predicate.startswith("u"):
        e.set(op, e.builder.fcmp_unordered(_CMPF[predicate], a, b))
    else:
        e.set(op, e.builder.fcmp_ordered(_CMPF[predicate], a, b))


def _emit_index_cast(e: FunctionEmitter, op: arith.IndexCastOp) -> None:
    value, target = e.get(op.input), llvm_type(op.result.type)
    if value.type.width == target.width:
        e.set(op, value)
    elif value.type.width < target.width:
        e.set(op, e.builder.sext(value, target))
    else:
        e.set(op, e.builder.trunc(value, target))


def _emit_fp_to_int(signed: bool) -> Handler:
    def emit(e: FunctionEmitter, op: Operation) -> None:
        value = e.get(op.operands[0])
        target = llvm_type(op.results[0].type)
        name = "llvm.fptosi.sat" if signed else "llvm.fptoui.sat"
        e.set(op, e.intrinsic(name, target, [value], [target, value.type]))

    return emit


def _emit_negf(e: FunctionEmitter, op: arith.NegfOp) -> None:
    e.set(op, e.builder.fneg(e.get(op.operand)))


def _emit_rsqrt(e: FunctionEmitter, op: math.RsqrtOp) -> None:
    a = e.get(op.operand)
    root = e.intrinsic("llvm.sqrt", a.type, [a])
    e.set(op, e.builder.fdiv(ir.Constant(a.type, 1.0), root))


def _emit_absi(e: FunctionEmitter, op: math.AbsIOp) -> None:
    a = e.get(op.operand)
    e.set(op, e.intrinsic("llvm.abs", a.type, [a, ir.Constant(I1, 0)], [a.type]))


def _emit_fma(e: FunctionEmitter, op: math.FmaOp) -> None:
    a, b, c = (e.get(v) for v in op.operands)
    e.set(op, e.intrinsic("llvm.fma", a.type, [a, b, c]))


def _emit_bitcast(e: FunctionEmitter, op: arith.BitcastOp) -> None:
    e.set(op, e.builder.bitcast(e.get(op.operands[0]), llvm_type(op.results[0].type)))


def _emit_named_math(e: FunctionEmitter, op: blk.MathFnOp | blk.MathFn2Op) -> None:
    e.emit_named_math(op)  # each target's own


def _emit_float_mod(e: FunctionEmitter, op: blk.ModOp) -> None:
    a, b = (e.get(v) for v in op.operands)
    e.set(op, e.builder.frem(a, b))


def _emit_program(grid_name: str) -> Handler:
    def emit(e: FunctionEmitter, op: Operation) -> None:
        axis = op.properties["axis"].value.data  # type: ignore[attr-defined]
        e.set(op, e.grid[f"{grid_name}_{'xyz'[axis]}"])

    return emit


def _emit_ptr_cast(e: FunctionEmitter, op: blk.CastOp) -> None:
    e.set(op, e.get(op.src))


def _emit_ptr_cmp(e: FunctionEmitter, op: blk.CmpOp) -> None:
    ops = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
    a, b = e.get(op.lhs), e.get(op.rhs)
    a64, b64 = e.builder.ptrtoint(a, I64), e.builder.ptrtoint(b, I64)
    e.set(op, e.builder.icmp_unsigned(ops[op.predicate.data.value], a64, b64))


def _nothing(e: FunctionEmitter, op: Operation) -> None:
    """Terminators handled by their parent op."""


HANDLERS: dict[type[Operation], Handler] = {
    arith.ConstantOp: FunctionEmitter.emit_constant,
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
    arith.SelectOp: FunctionEmitter.emit_select,
    arith.IndexCastOp: _emit_index_cast,
    arith.ExtSIOp: _cast("sext"),
    arith.ExtUIOp: _cast("zext"),
    arith.TruncIOp: _cast("trunc"),
    arith.SIToFPOp: _cast("sitofp"),
    arith.UIToFPOp: _cast("uitofp"),
    arith.ExtFOp: FunctionEmitter.emit_float_conversion,
    arith.TruncFOp: FunctionEmitter.emit_float_conversion,
    arith.FPToSIOp: _emit_fp_to_int(True),
    arith.FPToUIOp: _emit_fp_to_int(False),
    arith.BitcastOp: _emit_bitcast,
    **{op: FunctionEmitter.emit_math_function for op in MATH_FUNCTIONS},
    math.SqrtOp: _intrinsic("llvm.sqrt"),
    math.RsqrtOp: _emit_rsqrt,
    math.FloorOp: _intrinsic("llvm.floor"),
    math.CeilOp: _intrinsic("llvm.ceil"),
    math.TruncOp: _intrinsic("llvm.trunc"),
    math.AbsFOp: _intrinsic("llvm.fabs"),
    math.AbsIOp: _emit_absi,
    math.FmaOp: _emit_fma,
    math.CopySignOp: _intrinsic("llvm.copysign", 2),
    memref.AllocaOp: FunctionEmitter.emit_alloca,
    memref.LoadOp: FunctionEmitter.emit_memref_load,
    memref.StoreOp: FunctionEmitter.emit_memref_store,
    scf.ForOp: FunctionEmitter.emit_loop,
    scf.IfOp: FunctionEmitter.emit_if,
    scf.WhileOp: FunctionEmitter.emit_while,
    scf.YieldOp: _nothing,
    scf.ConditionOp: _nothing,
    func.ReturnOp: FunctionEmitter.emit_return,
    blk.ProgramIdOp: _emit_program("pid"),
    blk.NumProgramsOp: _emit_program("nprog"),
    blk.AddPtrOp: FunctionEmitter.emit_addptr,
    blk.LoadOp: FunctionEmitter.emit_load,
    blk.StoreOp: FunctionEmitter.emit_store,
    blk.AtomicRMWOp: FunctionEmitter.emit_atomic_rmw,
    blk.AtomicCASOp: FunctionEmitter.emit_atomic_cas,
    blk.ModOp: _emit_float_mod,
    blk.MathFnOp: _emit_named_math,
    blk.MathFn2Op: _emit_named_math,
    blk.CastOp: _emit_ptr_cast,
    blk.CmpOp: _emit_ptr_cmp,
}
"""How every target translates the ops they share (a target adds its own: `handler`)."""


_NAN_SKIPPING_EXTREMA = (arith.MaxnumfOp, arith.MinnumfOp)


def carries_nan_skipping_extremum(loop: scf.ForOp) -> bool:
    """Whether `loop` carries a float value and computes a NaN-skipping maximum or minimum
    (`llvm.maxnum`, `llvm.minnum`) in its body: a combine function of the kernel's own
    reducing with `tl.minimum`, a running maximum. LLVM's loop vectorizer (the version
    llvmlite bundles, built with assertions) aborts the process on some loops reducing
    with them ("VPlan cost model and legacy cost model disagreed"), so such loops stay
    scalar; blkc's own NaN-skipping reductions reduce with `llvm.maximum` and redo only
    rows that gave NaN, in loops that are scalar already."""
    if not any(isinstance(arg.type, AnyFloat) for arg in loop.body.blocks[0].args[1:]):
        return False
    return any(isinstance(op, _NAN_SKIPPING_EXTREMA) for op in loop.body.walk())
