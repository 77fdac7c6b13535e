"""The reference interpreter of strict blk IR: the oracle of the differential tests.

It runs a kernel over a grid on NumPy arrays, one program after another, computing every
value as `docs/semantics.md` says (the arithmetic lives in `blkc.runtime.numerics`). It is
meant to be obviously right rather than fast.

    module = blkc.run_pipeline(blkc.parse(text, "add.mlir"), "to-strict{warn=false}")
    x, y, out = np.ones(4096, np.float32), np.ones(4096, np.float32), np.empty(4096, np.float32)
    run(module, "vector_add", (4,), [x, y, out, 4096])

Values: a number or a block of numbers is a NumPy array in its dtype's storage type (a
scalar is a 0-d array). A pointer, or a block of pointers, is `Pointers`: the `Buffer` of
one pointer argument (the argument array, flattened) and an int64 array of element
offsets into it. Triton-style kernels offset one base pointer per block; a block whose
lanes point into two different arguments is refused. Memory ops check every active lane
(the unmasked ones) against its argument's bounds and raise an IndexError located at
the op otherwise: where compiled code would read garbage, the oracle says so.

The interpreter is a dispatch table from op class to one small function, not xDSL's
interpreter framework: that framework attaches a dump of the whole module to every
exception raised while an op runs (once per enclosing region op), where blkc promises
located diagnostics (``file:line:col: error: ...``, the source line, a caret) instead.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias, TypeVar

import numpy as np
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import SymbolTable

from blkc import dtypes
from blkc.diagnostics import Diagnostic, Severity, error_at, op_location
from blkc.dialects import blk
from blkc.dialects.kernels import find_kernel
from blkc.dialects.strict import strict_problem
from blkc.dialects.types import PtrType, element_type, shape_of
from blkc.dtypes import DType
from blkc.runtime import numerics
from blkc.runtime.numerics import Array

__all__ = ["Buffer", "Pointers", "run"]

# --------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Buffer:
    """The memory behind one pointer argument: its array, flattened (a view, so writes
    reach the caller's array)."""

    index: int
    """The argument's position: two pointers share a base when their indices are equal."""
    name: str
    """How messages name the argument (``'%x_ptr' (argument 0)``)."""
    data: Array


@dataclass(frozen=True, eq=False)
class Pointers:
    """A pointer (0-d `offsets`) or a block of pointers into one argument's memory."""

    buffer: Buffer
    offsets: Array
    """Element offsets from the start of the argument, int64, of the value's shape."""


Value: TypeAlias = Array | Pointers


def run(
    module: ModuleOp,
    kernel: str | None,
    grid: tuple[int, ...],
    args: Sequence[object],
) -> None:
    """Run `kernel` of strict `module` on every program id of `grid`, in order (axis 0
    fastest).

    `kernel` names a ``func.func`` with the ``blk.kernel`` attribute (None: the module's
    only kernel); `grid` has 1 to 3 sizes. Pointer parameters take C-contiguous NumPy
    arrays of the pointee's dtype (`blkc.dtypes`: ``bf16`` is ``ml_dtypes.bfloat16``),
    which the kernel reads and writes in place; scalar parameters take Python (or NumPy)
    numbers, converted to the parameter's dtype (integers wrap).

    Raises TypeError for arguments that do not fit, ValueError for a bad grid or kernel
    name, `blkc.BlkcError` for IR that is not strict, and, located at the op: IndexError
    for an out-of-bounds access, AssertionError for a failing ``blk.assert``,
    NotImplementedError for an op the interpreter does not know.
    """
    kernel_op = find_kernel(module, kernel)
    _check_strict(kernel_op)
    sizes = _check_grid(grid)
    params = _bind_arguments(kernel_op, args)
    with np.errstate(all="ignore"):
        for z in range(sizes[2]):
            for y in range(sizes[1]):
                for x in range(sizes[0]):
                    _Program(module, (x, y, z), sizes).call(kernel_op, params)


def _check_strict(kernel: func.FuncOp) -> None:
    for op in kernel.walk():
        problem = strict_problem(op)
        if problem is not None:
            raise error_at(op, f"is not strict: {problem[0]} (run to-strict first)")


def _check_grid(grid: tuple[int, ...]) -> tuple[int, int, int]:
    sizes = tuple(grid) if isinstance(grid, tuple | list) else ()
    if not 1 <= len(sizes) <= 3 or not all(
        isinstance(s, int | np.integer) and not isinstance(s, bool) and s >= 0 for s in sizes
    ):
        raise ValueError(f"the grid must be 1 to 3 non-negative integers, got {grid!r}")
    x, y, z = (*(int(s) for s in sizes), 1, 1)[:3]
    return x, y, z


def _param_name(block_arg: SSAValue, index: int) -> str:
    hint = f"'%{block_arg.name_hint}' " if block_arg.name_hint else ""
    return f"{hint}(argument {index})"


def _bind_arguments(kernel: func.FuncOp, args: Sequence[object]) -> list[Value]:
    params = kernel.body.block.args
    if len(args) != len(params):
        raise TypeError(
            f"kernel '{kernel.sym_name.data}' takes {len(params)} arguments, got {len(args)}"
        )
    return [
        _bind_argument(_param_name(p, i), i, p.type, a)
        for i, (p, a) in enumerate(zip(params, args, strict=True))
    ]


def _bind_argument(name: str, index: int, type_: Attribute, arg: object) -> Value:
    if isinstance(type_, PtrType):
        if isinstance(type_.pointee, PtrType):
            raise TypeError(f"parameter {name} is {type_}: pointers to pointers are not supported")
        d = dtypes.from_xdsl(type_.pointee)
        if not isinstance(arg, np.ndarray):
            raise TypeError(
                f"parameter {name} is {type_}: pass a NumPy array of {d.numpy}, "
                f"got {type(arg).__name__}"
            )
        if arg.dtype != d.numpy:
            raise TypeError(
                f"parameter {name} is {type_}: the array has dtype {arg.dtype}, expected {d.numpy}"
            )
        if not arg.flags.c_contiguous:
            raise TypeError(f"parameter {name} is {type_}: the array is not C-contiguous")
        buffer = Buffer(index, name, arg.reshape(-1))
        return Pointers(buffer, np.zeros((), np.int64))
    d = _dtype(type_)
    if shape_of(type_):
        raise TypeError(f"parameter {name} is {type_}: kernels take scalars and pointers only")
    if not isinstance(arg, bool | int | float | np.bool_ | np.integer | np.floating):
        raise TypeError(f"parameter {name} is {type_}: pass a number, got {type(arg).__name__}")
    if d.is_bool and not isinstance(arg, bool | np.bool_):
        raise TypeError(f"parameter {name} is i1: pass a bool, got {arg!r}")
    if d.is_int and isinstance(arg, float | np.floating):
        raise TypeError(f"parameter {name} is {type_}: pass an integer, got {arg!r}")
    return numerics.from_python(arg.item() if isinstance(arg, np.generic) else arg, d)


def _dtype(t: Attribute) -> DType:
    """The dtype of a scalar or block type; ``index`` computes as int64."""
    elem = element_type(t)
    return dtypes.int64 if isinstance(elem, IndexType) else dtypes.from_xdsl(elem)


# --------------------------------------------------------------------------------------
# Programs, frames and the dispatch table
# --------------------------------------------------------------------------------------


@dataclass
class _Program:
    """One program instance of the grid."""

    module: ModuleOp
    pid: tuple[int, int, int]
    grid: tuple[int, int, int]

    def call(self, function: func.FuncOp, args: Sequence[Value]) -> tuple[Value, ...]:
        """Run `function` on `args` in a fresh frame; its returned values."""
        return _Frame(self).run_block(function.body.block, args)


OpT = TypeVar("OpT", bound=Operation)
Impl: TypeAlias = Callable[["_Frame", Any], Sequence[Value]]
_IMPLS: dict[type[Operation], Impl] = {}
_TERMINATORS = (func.ReturnOp, scf.YieldOp, scf.ConditionOp, blk.YieldOp)


def _implements(
    *op_types: type[OpT],
) -> Callable[[Callable[[_Frame, OpT], Sequence[Value]]], Callable[[_Frame, OpT], Sequence[Value]]]:
    """Register the decorated function as the implementation of `op_types`."""

    def register(
        impl: Callable[[_Frame, OpT], Sequence[Value]],
    ) -> Callable[[_Frame, OpT], Sequence[Value]]:
        for op_type in op_types:
            _IMPLS[op_type] = impl
        return impl

    return register


@dataclass
class _Frame:
    """The values of one function invocation of one program."""

    program: _Program
    values: dict[SSAValue, Value] = field(default_factory=dict)

    def run_block(self, block: Block, args: Sequence[Value]) -> tuple[Value, ...]:
        """Run `block` with `args` bound to its arguments; the values its terminator
        passes on (none for a block without one)."""
        for arg, value in zip(block.args, args, strict=True):
            self.values[arg] = value
        for op in block.ops:
            impl = _IMPLS.get(type(op))
            if impl is None:
                raise NotImplementedError(
                    self.located(op, f"the reference interpreter cannot run '{op.name}'")
                )
            results = tuple(impl(self, op))
            if isinstance(op, _TERMINATORS):
                return results
            self.values.update(zip(op.results, results, strict=True))
        return ()

    def get(self, value: SSAValue) -> Value:
        return self.values[value]

    def array(self, value: SSAValue) -> Array:
        found = self.values[value]
        assert isinstance(found, np.ndarray), f"expected a number, got {found!r}"
        return found

    def pointers(self, value: SSAValue) -> Pointers:
        found = self.values[value]
        assert isinstance(found, Pointers), f"expected a pointer, got {found!r}"
        return found

    def located(self, op: Operation, message: str, lane: tuple[int, ...] | None = None) -> str:
        """`message` about `op` (and one `lane` of its block) in this program, as a
        located diagnostic: ``file:line:col: error: message (program (x, y, z), lane
        (i,))``, the source line and a caret."""
        where = f"program {self.program.pid}" + ("" if lane is None else f", lane {lane}")
        text = f"{message} ({where})"
        return Diagnostic(Severity.ERROR, text, op_location(op)).format().rstrip("\n")


def _operands(frame: _Frame, op: Operation) -> list[Array]:
    return [frame.array(v) for v in op.operands]


def _result_dtype(op: Operation) -> DType:
    return _dtype(op.results[0].type)


# --------------------------------------------------------------------------------------
# blk: program ids, constants, shapes, conversions
# --------------------------------------------------------------------------------------


@_implements(blk.ProgramIdOp)
def _program_id(frame: _Frame, op: blk.ProgramIdOp) -> Sequence[Value]:
    return (np.asarray(frame.program.pid[op.axis.value.data], np.int32),)


@_implements(blk.NumProgramsOp)
def _num_programs(frame: _Frame, op: blk.NumProgramsOp) -> Sequence[Value]:
    return (np.asarray(frame.program.grid[op.axis.value.data], np.int32),)


@_implements(blk.GlobalTimerOp)
def _global_timer(frame: _Frame, op: blk.GlobalTimerOp) -> Sequence[Value]:
    return (np.asarray(time.monotonic_ns(), np.int64),)


@_implements(blk.ArangeOp)
def _arange(frame: _Frame, op: blk.ArangeOp) -> Sequence[Value]:
    return (np.arange(op.start.value.data, op.end.value.data, dtype=np.int32),)


def _constant(value: Attribute, result_type: Attribute) -> Array:
    d, shape = _dtype(result_type), shape_of(result_type)
    if isinstance(value, DenseIntOrFPElementsAttr):
        values = numerics.from_python(list(value.get_values()), d)
        return np.broadcast_to(values, shape) if values.size == 1 else values.reshape(shape)
    assert isinstance(value, IntegerAttr | FloatAttr)
    return numerics.from_python(value.value.data, d)


@_implements(blk.ConstantOp, arith.ConstantOp)
def _run_constant(frame: _Frame, op: blk.ConstantOp | arith.ConstantOp) -> Sequence[Value]:
    return (_constant(op.value, op.result.type),)


def _map_value(value: Value, transform: Callable[[Array], Array]) -> Value:
    """Apply a shape transformation to a block of numbers or to a block's pointer offsets."""
    if isinstance(value, Pointers):
        return Pointers(value.buffer, transform(value.offsets))
    return transform(value)


@_implements(blk.SplatOp, blk.BroadcastOp)
def _splat(frame: _Frame, op: blk.SplatOp | blk.BroadcastOp) -> Sequence[Value]:
    shape = shape_of(op.result.type)
    return (_map_value(frame.get(op.src), lambda a: np.broadcast_to(a, shape)),)


@_implements(blk.ExpandDimsOp)
def _expand_dims(frame: _Frame, op: blk.ExpandDimsOp) -> Sequence[Value]:
    axis = op.axis.value.data
    return (_map_value(frame.get(op.src), lambda a: np.expand_dims(a, axis)),)


@_implements(blk.ReshapeOp)
def _reshape(frame: _Frame, op: blk.ReshapeOp) -> Sequence[Value]:
    shape = shape_of(op.result.type)
    return (_map_value(frame.get(op.src), lambda a: np.reshape(a, shape)),)


@_implements(blk.PermuteOp)
def _permute(frame: _Frame, op: blk.PermuteOp) -> Sequence[Value]:
    order = tuple(op.order.get_values())
    return (_map_value(frame.get(op.src), lambda a: np.transpose(a, order)),)


@_implements(blk.GatherOp)
def _gather(frame: _Frame, op: blk.GatherOp) -> Sequence[Value]:
    axis = op.axis.value.data
    index = frame.array(op.index).astype(np.int64)
    size = shape_of(op.src.type)[axis]
    outside = (index < 0) | (index >= size)
    if outside.any():
        lane = int(np.argmax(outside.reshape(-1)))
        found = index.reshape(-1)[lane]
        raise IndexError(
            frame.located(
                op,
                f"gather index {found} is out of range for axis {axis} of size {size}",
                _lane_index(lane, index.shape),
            )
        )
    return (_map_value(frame.get(op.src), lambda a: np.take_along_axis(a, index, axis)),)


@_implements(blk.CastOp)
def _cast(frame: _Frame, op: blk.CastOp) -> Sequence[Value]:
    source = frame.get(op.src)
    if isinstance(source, Pointers):
        return (_cast_pointers(frame, op, source),)
    return (numerics.convert(source, _dtype(op.src.type), _result_dtype(op)),)


def _cast_pointers(frame: _Frame, op: blk.CastOp, source: Pointers) -> Pointers:
    """A pointer cast reinterprets the argument's memory as the new pointee type."""
    pointee = element_type(op.result.type)
    assert isinstance(pointee, PtrType)
    if isinstance(pointee.pointee, PtrType):
        raise NotImplementedError(frame.located(op, "pointers to pointers are not supported"))
    new = dtypes.from_xdsl(pointee.pointee).numpy
    old = source.buffer.data.dtype
    byte_offsets = source.offsets * old.itemsize
    if source.buffer.data.nbytes % new.itemsize or np.any(byte_offsets % new.itemsize):
        raise ValueError(
            frame.located(op, f"cannot view {source.buffer.name} as {new}: it is not aligned")
        )
    buffer = Buffer(source.buffer.index, source.buffer.name, source.buffer.data.view(new))
    return Pointers(buffer, byte_offsets // new.itemsize)


@_implements(blk.BitcastOp)
def _bitcast(frame: _Frame, op: blk.BitcastOp) -> Sequence[Value]:
    return (np.asarray(frame.array(op.src)).view(_result_dtype(op).numpy),)


# --------------------------------------------------------------------------------------
# blk: elementwise arithmetic
# --------------------------------------------------------------------------------------


@_implements(
    blk.AddOp,
    blk.SubOp,
    blk.MulOp,
    blk.AndOp,
    blk.OrOp,
    blk.XorOp,
    blk.ShlOp,
    blk.NegOp,
    blk.AbsOp,
    blk.NotOp,
    blk.FmaOp,
)
def _elementwise(frame: _Frame, op: Operation) -> Sequence[Value]:
    name = op.name.removeprefix("blk.")
    return (numerics.elementwise(name, _result_dtype(op), *_operands(frame, op)),)


@_implements(blk.MinimumOp, blk.MaximumOp)
def _extremum(frame: _Frame, op: blk.MinimumOp | blk.MaximumOp) -> Sequence[Value]:
    name = "min" if isinstance(op, blk.MinimumOp) else "max"
    name += "num" if blk.nan_of(op) is blk.Nan.NUM else "imum"
    return (numerics.elementwise(name, _result_dtype(op), *_operands(frame, op)),)


@_implements(blk.ShrOp)
def _shr(frame: _Frame, op: blk.ShrOp) -> Sequence[Value]:
    # The shift reads the bits as signed (arithmetic) or unsigned (logical), as `fill` says.
    d = _result_dtype(op)
    bits = _signed(d) if op.arithmetic() else _unsigned(d)
    operands = [_reinterpret(x, bits) for x in _operands(frame, op)]
    return (_reinterpret(numerics.elementwise("shr", bits, *operands), d),)


@_implements(blk.TrueDivOp)
def _truediv(frame: _Frame, op: blk.TrueDivOp) -> Sequence[Value]:
    # Strict IR divides floats; integer operands (which promote-types never leaves) are
    # converted to the float result first.
    d, src = _result_dtype(op), _dtype(op.lhs.type)
    lhs, rhs = (numerics.convert(x, src, d) for x in _operands(frame, op))
    return (numerics.elementwise("truediv", d, lhs, rhs),)


@_implements(blk.FloorDivOp, blk.ModOp)
def _rounding_division(frame: _Frame, op: blk.FloorDivOp | blk.ModOp) -> Sequence[Value]:
    if op.rounding is None:
        raise ValueError(frame.located(op, "its rounding is not set (run to-strict first)"))
    rounding: numerics.Rounding = "floor" if op.rounding.data is blk.Rounding.FLOOR else "trunc"
    function = numerics.floordiv if isinstance(op, blk.FloorDivOp) else numerics.mod
    lhs, rhs = _operands(frame, op)
    return (function(_result_dtype(op), lhs, rhs, rounding),)


@_implements(
    blk.ExpOp,
    blk.Exp2Op,
    blk.LogOp,
    blk.Log2Op,
    blk.SqrtOp,
    blk.RsqrtOp,
    blk.SinOp,
    blk.CosOp,
    blk.TanhOp,
    blk.ErfOp,
    blk.FloorOp,
    blk.CeilOp,
)
def _math(frame: _Frame, op: blk.MathOp) -> Sequence[Value]:
    d = _result_dtype(op)
    operand = numerics.convert(frame.array(op.operand), _dtype(op.operand.type), d)
    name = op.name.removeprefix("blk.")
    if name in numerics.MATH_FUNCTIONS:
        return (numerics.math_function(name, d, operand),)
    return (numerics.elementwise(name, d, operand),)


@_implements(blk.MathFnOp, blk.MathFn2Op)
def _named_math(frame: _Frame, op: blk.MathFnOp | blk.MathFn2Op) -> Sequence[Value]:
    d = _result_dtype(op)
    operands = [numerics.convert(frame.array(v), _dtype(v.type), d) for v in op.operands]
    return (numerics.named_math(op.fn.data, d, *operands),)


@_implements(blk.CmpOp)
def _cmp(frame: _Frame, op: blk.CmpOp) -> Sequence[Value]:
    predicate = op.predicate.data.value
    lhs, rhs = frame.get(op.lhs), frame.get(op.rhs)
    if isinstance(lhs, Pointers) and isinstance(rhs, Pointers):
        return (_compare_pointers(frame, op, predicate, lhs, rhs),)
    assert isinstance(lhs, np.ndarray) and isinstance(rhs, np.ndarray)
    return (numerics.compare(predicate, _dtype(op.lhs.type), lhs, rhs),)


def _compare_pointers(
    frame: _Frame, op: Operation, predicate: str, lhs: Pointers, rhs: Pointers
) -> Array:
    if lhs.buffer.index == rhs.buffer.index:
        return numerics.compare(predicate, dtypes.int64, lhs.offsets, rhs.offsets)
    if predicate in ("eq", "ne"):
        shape = np.broadcast_shapes(lhs.offsets.shape, rhs.offsets.shape)
        return np.full(shape, predicate == "ne")
    raise ValueError(
        frame.located(
            op,
            f"orders pointers into different arguments, {lhs.buffer.name} and {rhs.buffer.name}",
        )
    )


def _select(frame: _Frame, op: Operation, cond: Array, yes: Value, no: Value) -> Value:
    if isinstance(yes, np.ndarray) and isinstance(no, np.ndarray):
        return np.asarray(np.where(cond, yes, no))
    assert isinstance(yes, Pointers) and isinstance(no, Pointers)
    if yes.buffer.index == no.buffer.index:
        return Pointers(yes.buffer, np.asarray(np.where(cond, yes.offsets, no.offsets)))
    # A scalar (or uniform) choice between two bases is one pointer; a block mixing
    # them has no single base.
    if np.all(cond):
        return Pointers(yes.buffer, np.broadcast_to(yes.offsets, np.shape(cond)))
    if not np.any(cond):
        return Pointers(no.buffer, np.broadcast_to(no.offsets, np.shape(cond)))
    raise ValueError(
        frame.located(
            op,
            f"mixes pointers into {yes.buffer.name} and {no.buffer.name} in one block; "
            "the interpreter models a block of pointers as offsets from one argument",
        )
    )


@_implements(blk.WhereOp)
def _where(frame: _Frame, op: blk.WhereOp) -> Sequence[Value]:
    cond = frame.array(op.cond)
    return (_select(frame, op, cond, frame.get(op.true_value), frame.get(op.false_value)),)


# --------------------------------------------------------------------------------------
# blk: memory
# --------------------------------------------------------------------------------------


@_implements(blk.AddPtrOp)
def _addptr(frame: _Frame, op: blk.AddPtrOp) -> Sequence[Value]:
    base = frame.pointers(op.ptr)
    offset = frame.array(op.offset).astype(np.int64)  # no 32-bit wraparound
    return (Pointers(base.buffer, np.asarray(base.offsets + offset)),)


def _active_lanes(
    frame: _Frame, op: Operation, ptrs: Pointers, mask: SSAValue | None, access: str
) -> tuple[Array, Array]:
    """The active lanes of a memory op (flattened, row-major) and, for each, its element
    offset, checked against the argument's bounds."""
    shape = ptrs.offsets.shape
    active = np.ones(shape, np.bool_) if mask is None else np.broadcast_to(frame.array(mask), shape)
    active = active.reshape(-1)
    offsets = ptrs.offsets.reshape(-1)
    size = ptrs.buffer.data.size
    outside = active & ((offsets < 0) | (offsets >= size))
    if outside.any():
        lane = int(np.argmax(outside))
        raise IndexError(
            frame.located(
                op,
                f"{access} out of bounds: element {offsets[lane]} of {ptrs.buffer.name}, "
                f"which has {size} elements",
                _lane_index(lane, shape),
            )
        )
    return active, offsets


def _lane_index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index in a block of `shape` of its `flat`-th lane in row-major order."""
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def _flat(value: Array, shape: tuple[int, ...]) -> Array:
    return np.broadcast_to(value, shape).reshape(-1)


@_implements(blk.LoadOp)
def _load(frame: _Frame, op: blk.LoadOp) -> Sequence[Value]:
    ptrs = frame.pointers(op.ptr)
    shape = ptrs.offsets.shape
    active, offsets = _active_lanes(frame, op, ptrs, op.mask, "reads")
    if op.other is None:
        out = np.zeros(active.size, ptrs.buffer.data.dtype)
    else:
        out = _flat(frame.array(op.other), shape).copy()
    out[active] = ptrs.buffer.data[offsets[active]]
    return (out.reshape(shape),)


@_implements(blk.StoreOp)
def _store(frame: _Frame, op: blk.StoreOp) -> Sequence[Value]:
    ptrs = frame.pointers(op.ptr)
    active, offsets = _active_lanes(frame, op, ptrs, op.mask, "writes")
    values = _flat(frame.array(op.value), ptrs.offsets.shape)
    ptrs.buffer.data[offsets[active]] = values[active]
    return ()


_ATOMIC_COMBINE = {
    blk.AtomicKind.ADD: "add",
    blk.AtomicKind.MAX: "maximum",
    blk.AtomicKind.MIN: "minimum",
    blk.AtomicKind.AND: "and",
    blk.AtomicKind.OR: "or",
    blk.AtomicKind.XOR: "xor",
}


@_implements(blk.AtomicRMWOp)
def _atomic_rmw(frame: _Frame, op: blk.AtomicRMWOp) -> Sequence[Value]:
    # Lane by lane in row-major order, each update atomic on its own: repeated
    # addresses accumulate. Masked-off lanes return 0.
    ptrs = frame.pointers(op.ptr)
    shape = ptrs.offsets.shape
    active, offsets = _active_lanes(frame, op, ptrs, op.mask, "updates")
    values = _flat(frame.array(op.value), shape)
    memory = ptrs.buffer.data
    d = dtypes.from_numpy(memory.dtype)
    combine = _ATOMIC_COMBINE.get(op.kind.data)
    old = np.zeros(active.size, memory.dtype)
    for lane in np.flatnonzero(active):
        at = offsets[lane]
        current = memory[at : at + 1]
        old[lane] = current[0]
        new = values[lane : lane + 1]
        memory[at] = (
            new[0] if combine is None else numerics.elementwise(combine, d, current, new)[0]
        )
    return (old.reshape(shape),)


@_implements(blk.AtomicCASOp)
def _atomic_cas(frame: _Frame, op: blk.AtomicCASOp) -> Sequence[Value]:
    # Compares bit patterns, as the hardware does (so NaN can match, and -0.0 != 0.0).
    ptrs = frame.pointers(op.ptr)
    shape = ptrs.offsets.shape
    active, offsets = _active_lanes(frame, op, ptrs, None, "updates")
    expected = _flat(frame.array(op.cmp), shape)
    values = _flat(frame.array(op.value), shape)
    memory = ptrs.buffer.data
    old = np.zeros(active.size, memory.dtype)
    for lane in range(active.size):
        at = offsets[lane]
        old[lane] = memory[at]
        if numerics.bits(memory[at : at + 1]) == numerics.bits(expected[lane : lane + 1]):
            memory[at] = values[lane]
    return (old.reshape(shape),)


# --------------------------------------------------------------------------------------
# blk: reductions, scans, dot
# --------------------------------------------------------------------------------------


def _acc_dtype(acc: Attribute | None) -> DType | None:
    return None if acc is None else dtypes.from_xdsl(acc)


@_implements(blk.ReduceOp)
def _reduce(frame: _Frame, op: blk.ReduceOp) -> Sequence[Value]:
    axis = None if op.axis is None else op.axis.value.data
    result = numerics.reduce(
        op.kind.data.value,
        frame.array(op.src),
        _dtype(op.src.type),
        axis,
        _acc_dtype(op.acc_dtype),
        _result_dtype(op),
        blk.nan_of(op).value,
    )
    return (result,)


@_implements(blk.ScanOp)
def _scan(frame: _Frame, op: blk.ScanOp) -> Sequence[Value]:
    result = numerics.scan(
        op.kind.data.value,
        frame.array(op.src),
        _dtype(op.src.type),
        op.axis.value.data,
        _acc_dtype(op.acc_dtype),
        _result_dtype(op),
        blk.nan_of(op).value,
    )
    return (result,)


def _lines(frame: _Frame, op: blk.CombineRegionOp) -> list[Array]:
    """Each operand with `axis` moved last: the lines the combiner runs along."""
    return [np.moveaxis(frame.array(s), op.axis.value.data, -1) for s in op.srcs]


@_implements(blk.ReduceRegionOp)
def _reduce_region(frame: _Frame, op: blk.ReduceRegionOp) -> Sequence[Value]:
    lines = _lines(frame, op)
    outs = [np.empty(line.shape[:-1], line.dtype) for line in lines]
    for where in np.ndindex(outs[0].shape):
        acc = tuple(np.asarray(line[where][0]) for line in lines)
        for k in range(1, lines[0].shape[-1]):
            nxt = tuple(np.asarray(line[where][k]) for line in lines)
            acc = frame.run_block(op.combiner.block, (*acc, *nxt))
        for out, value in zip(outs, acc, strict=True):
            out[where] = value
    return outs


@_implements(blk.ScanRegionOp)
def _scan_region(frame: _Frame, op: blk.ScanRegionOp) -> Sequence[Value]:
    lines = _lines(frame, op)
    outs = [np.empty_like(line) for line in lines]
    size = lines[0].shape[-1]
    order = range(size - 1, -1, -1) if op.reverse else range(size)
    for where in np.ndindex(lines[0].shape[:-1]):
        acc: tuple[Value, ...] = ()
        for k in order:
            nxt = tuple(np.asarray(line[where][k]) for line in lines)
            acc = frame.run_block(op.combiner.block, (*acc, *nxt)) if acc else nxt
            for out, value in zip(outs, acc, strict=True):
                out[where][k] = value
    axis = op.axis.value.data
    return [np.moveaxis(out, -1, axis) for out in outs]


@_implements(blk.SortOp, blk.BitonicMergeOp)
def _bitonic(frame: _Frame, op: blk.SortOp | blk.BitonicMergeOp) -> Sequence[Value]:
    """The op's network (`blk.bitonic_network`) along its axis, every line at once."""
    axis = op.axis.value.data
    lines = np.moveaxis(frame.array(op.src), axis, -1)
    for step in op.network():
        lines = _network_step(lines, step, op.descending is not None)
    return (np.moveaxis(lines, -1, axis),)


def _network_step(lines: Array, step: blk.NetworkStep, descending: bool) -> Array:
    if isinstance(step, blk.Halve):
        pairs = lines.reshape(*lines.shape[:-1], -1, 2, step.distance)
        low, high = pairs[..., 0, :], pairs[..., 1, :]
        better = (high > low) if descending else (high < low)
        better |= low != low  # a NaN loses to anything
        return np.where(better, high, low).reshape(*lines.shape[:-1], -1)
    position = np.arange(step.length)
    upper = (position & step.distance) != 0
    if step.direction is None:
        flip = np.full(step.length, descending)
    else:
        flip = (position & step.direction) != 0
    partner = lines[..., position ^ step.distance]
    return np.where((lines > partner) != (flip ^ upper), partner, lines)


@_implements(blk.DotOp)
def _dot(frame: _Frame, op: blk.DotOp) -> Sequence[Value]:
    addend = None if op.acc is None else (frame.array(op.acc), _dtype(op.acc.type))
    result = numerics.dot(
        frame.array(op.lhs),
        frame.array(op.rhs),
        _dtype(op.lhs.type),
        addend,
        _acc_dtype(op.acc_dtype),
        _result_dtype(op),
    )
    return (result,)


# --------------------------------------------------------------------------------------
# blk: debugging
# --------------------------------------------------------------------------------------


@_implements(blk.PrintOp)
def _print(frame: _Frame, op: blk.PrintOp) -> Sequence[Value]:
    pid = f"pid ({', '.join(str(p) for p in frame.program.pid)})"
    prefix = op.prefix.data
    if not op.args:
        print(f"{pid}{prefix}")
        return ()
    hex_ = op.hex is not None

    def line(index: Sequence[int], widths: Sequence[int], label: int | None, value: Value) -> None:
        where = ", ".join(f"{int(i):{w}d}" for i, w in zip(index, widths, strict=True))
        labelled = "" if label is None else f"(operand {label}) "
        print(f"{pid} idx ({where}){prefix}{labelled}{_element_text(value, hex_)}")

    widths = op.widths()
    if widths is not None:  # one element, after its indices
        *where, value = (frame.get(v) for v in op.args)
        line(where, widths, None if op.operand is None else op.operand.value.data, value)
        return ()
    several = len(op.args) > 1
    for number, arg in enumerate(op.args):
        value, shape = frame.get(arg), shape_of(arg.type)
        dims = blk.PrintOp.widths_of(shape)
        for index in np.ndindex(*shape):
            line(index, dims, number if several else None, _element(value, index))
    return ()


def _element(value: Value, index: tuple[int, ...]) -> Value:
    if isinstance(value, Pointers):
        return Pointers(value.buffer, np.asarray(value.offsets)[index])
    return np.asarray(value)[index]


def _element_text(value: Value, hex_: bool) -> str:
    """One element as `blk.print` shows it (C's `%f`, `%a`, `%lld`, `%llu`, `0x%0Nllx`)."""
    if isinstance(value, Pointers):
        return f"{value.buffer.name} + {int(np.asarray(value.offsets))}"
    array = np.asarray(value)
    kind = array.dtype
    if kind == np.bool_:
        return f"0x{int(array)}" if hex_ else str(int(array))
    if np.issubdtype(kind, np.integer):
        number = int(array)
        bits = kind.itemsize * 8
        return f"0x{number & ((1 << bits) - 1):0{bits // 4}x}" if hex_ else str(number)
    x = float(array.astype(np.float64))
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    if not hex_:
        return f"{x:f}"
    mantissa, exponent = x.hex().split("p")
    if "." in mantissa:  # C leaves out trailing zeros
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}p{exponent}"


@_implements(blk.AssertOp)
def _assert(frame: _Frame, op: blk.AssertOp) -> Sequence[Value]:
    cond = frame.array(op.cond)
    if not np.all(cond):
        lane = _lane_index(int(np.argmin(cond)), cond.shape)
        raise AssertionError(frame.located(op, f"assertion failed: {op.message.data}", lane))
    return ()


# --------------------------------------------------------------------------------------
# func and scf
# --------------------------------------------------------------------------------------


@_implements(func.ReturnOp, scf.YieldOp, scf.ConditionOp, blk.YieldOp)
def _terminator(frame: _Frame, op: Operation) -> Sequence[Value]:
    return [frame.get(v) for v in op.operands]


@_implements(func.CallOp)
def _call(frame: _Frame, op: func.CallOp) -> Sequence[Value]:
    callee = SymbolTable.lookup_symbol(frame.program.module, op.callee)
    if not isinstance(callee, func.FuncOp) or not callee.body.blocks:
        raise NotImplementedError(
            frame.located(op, f"cannot call '{op.callee.string_value()}': no body to run")
        )
    return frame.program.call(callee, [frame.get(v) for v in op.arguments])


@_implements(scf.ForOp)
def _for(frame: _Frame, op: scf.ForOp) -> Sequence[Value]:
    lower, upper, step = (int(frame.array(v)) for v in (op.lb, op.ub, op.step))
    if step <= 0:
        raise ValueError(frame.located(op, f"scf.for needs a positive step, got {step}"))
    index_type = _dtype(op.lb.type).numpy
    carried = tuple(frame.get(v) for v in op.iter_args)
    for i in range(lower, upper, step):
        carried = frame.run_block(op.body.block, (np.asarray(i, index_type), *carried))
    return carried


@_implements(scf.IfOp)
def _if(frame: _Frame, op: scf.IfOp) -> Sequence[Value]:
    region = op.true_region if bool(frame.array(op.cond)) else op.false_region
    return frame.run_block(region.block, ()) if region.blocks else ()


@_implements(scf.WhileOp)
def _while(frame: _Frame, op: scf.WhileOp) -> Sequence[Value]:
    values = tuple(frame.get(v) for v in op.arguments)
    while True:
        cond, *forwarded = frame.run_block(op.before_region.block, values)
        assert isinstance(cond, np.ndarray)
        if not bool(cond):
            return forwarded
        values = frame.run_block(op.after_region.block, forwarded)


# --------------------------------------------------------------------------------------
# arith, on the scalars frontends emit for loop bounds and index math
# --------------------------------------------------------------------------------------
#
# arith integers are signless: they are held as signed NumPy integers (index as int64)
# and the unsigned ops reinterpret their bits.


def _unsigned(d: DType) -> DType:
    return dtypes.dtype(f"uint{d.width}") if d.is_int else d


def _signed(d: DType) -> DType:
    return dtypes.dtype(f"int{d.width}") if d.is_int else d


def _reinterpret(x: Array, d: DType) -> Array:
    return np.asarray(x).view(d.numpy)


# op class -> (numerics elementwise name, operands read as unsigned)
_ARITH_ELEMENTWISE: dict[type[Operation], tuple[str, bool]] = {
    arith.AddiOp: ("add", False),
    arith.SubiOp: ("sub", False),
    arith.MuliOp: ("mul", False),
    arith.AndIOp: ("and", False),
    arith.OrIOp: ("or", False),
    arith.XOrIOp: ("xor", False),
    arith.MaxSIOp: ("maximum", False),
    arith.MinSIOp: ("minimum", False),
    arith.MaxUIOp: ("maximum", True),
    arith.MinUIOp: ("minimum", True),
    arith.ShLIOp: ("shl", False),
    arith.ShRSIOp: ("shr", False),
    arith.ShRUIOp: ("shr", True),
    arith.AddfOp: ("add", False),
    arith.SubfOp: ("sub", False),
    arith.MulfOp: ("mul", False),
    arith.DivfOp: ("truediv", False),
    arith.MaximumfOp: ("maximum", False),
    arith.MinimumfOp: ("minimum", False),
    arith.MaxnumfOp: ("maxnum", False),
    arith.MinnumfOp: ("minnum", False),
    arith.NegfOp: ("neg", False),
}


@_implements(*_ARITH_ELEMENTWISE)
def _arith_elementwise(frame: _Frame, op: Operation) -> Sequence[Value]:
    name, unsigned = _ARITH_ELEMENTWISE[type(op)]
    d = _result_dtype(op)
    compute = _unsigned(d) if unsigned else d
    operands = [_reinterpret(x, compute) for x in _operands(frame, op)]
    return (_reinterpret(numerics.elementwise(name, compute, *operands), d),)


# op class -> (quotient or remainder, rounding, operands read as unsigned)
_ARITH_DIVISION: dict[type[Operation], tuple[str, numerics.Rounding, bool]] = {
    arith.DivSIOp: ("div", "trunc", False),
    arith.RemSIOp: ("rem", "trunc", False),
    arith.FloorDivSIOp: ("div", "floor", False),
    arith.CeilDivSIOp: ("ceildiv", "floor", False),
    arith.DivUIOp: ("div", "floor", True),
    arith.RemUIOp: ("rem", "floor", True),
    arith.CeilDivUIOp: ("ceildiv", "floor", True),
}


@_implements(*_ARITH_DIVISION)
def _arith_division(frame: _Frame, op: Operation) -> Sequence[Value]:
    # Division by zero is undefined behaviour in arith (unlike blk): say so.
    what, rounding, unsigned = _ARITH_DIVISION[type(op)]
    d = _result_dtype(op)
    compute = _unsigned(d) if unsigned else d
    lhs, rhs = (_reinterpret(x, compute) for x in _operands(frame, op))
    if np.any(rhs == 0):
        raise ZeroDivisionError(frame.located(op, f"'{op.name}' divides by zero"))
    if what == "rem":
        result = numerics.mod(compute, lhs, rhs, rounding)
    else:
        result = numerics.floordiv(compute, lhs, rhs, rounding)
        if what == "ceildiv":
            exact = numerics.mod(compute, lhs, rhs, rounding) == 0
            result = np.where(
                exact, result, numerics.elementwise("add", compute, result, np.ones_like(result))
            )
    return (_reinterpret(result, d),)


_CMPI = {"slt": "lt", "sle": "le", "sgt": "gt", "sge": "ge"}


@_implements(arith.CmpiOp)
def _cmpi(frame: _Frame, op: arith.CmpiOp) -> Sequence[Value]:
    predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    d = _dtype(op.lhs.type)
    if predicate.startswith("u"):
        d, predicate = _unsigned(d), predicate[1:]
    lhs, rhs = (_reinterpret(x, d) for x in _operands(frame, op))
    return (numerics.compare(_CMPI.get(predicate, predicate), d, lhs, rhs),)


@_implements(arith.CmpfOp)
def _cmpf(frame: _Frame, op: arith.CmpfOp) -> Sequence[Value]:
    predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    d = _dtype(op.lhs.type)
    lhs, rhs = _operands(frame, op)
    ordered = ~(np.isnan(numerics.to_compute(lhs, d)) | np.isnan(numerics.to_compute(rhs, d)))
    if predicate in ("true", "false"):
        return (np.full(ordered.shape, predicate == "true"),)
    if predicate in ("ord", "uno"):
        return (np.asarray(ordered if predicate == "ord" else ~ordered),)
    base = {"eq": "eq", "ne": "ne", "gt": "gt", "ge": "ge", "lt": "lt", "le": "le"}[predicate[1:]]
    result = numerics.compare(base, d, lhs, rhs)
    return (np.asarray(result & ordered if predicate[0] == "o" else result | ~ordered),)


@_implements(arith.SelectOp)
def _arith_select(frame: _Frame, op: arith.SelectOp) -> Sequence[Value]:
    cond = frame.array(op.cond)
    return (_select(frame, op, cond, frame.get(op.lhs), frame.get(op.rhs)),)


# op class -> (source read as unsigned, result read as unsigned)
_ARITH_CASTS: dict[type[Operation], tuple[bool, bool]] = {
    arith.IndexCastOp: (False, False),
    arith.ExtSIOp: (False, False),
    arith.ExtUIOp: (True, False),
    arith.TruncIOp: (False, False),
    arith.SIToFPOp: (False, False),
    arith.UIToFPOp: (True, False),
    arith.FPToSIOp: (False, False),
    arith.FPToUIOp: (False, True),
    arith.ExtFOp: (False, False),
    arith.TruncFOp: (False, False),
}


@_implements(*_ARITH_CASTS)
def _arith_cast(frame: _Frame, op: Operation) -> Sequence[Value]:
    source_unsigned, result_unsigned = _ARITH_CASTS[type(op)]
    (source,) = _operands(frame, op)
    src, dst = _dtype(op.operands[0].type), _result_dtype(op)
    if source_unsigned:
        src = _unsigned(src)
        source = _reinterpret(source, src)
    converted = numerics.convert(source, src, _unsigned(dst) if result_unsigned else dst)
    return (_reinterpret(converted, dst),)


@_implements(arith.BitcastOp)
def _arith_bitcast(frame: _Frame, op: arith.BitcastOp) -> Sequence[Value]:
    return (_reinterpret(frame.array(op.input), _result_dtype(op)),)
