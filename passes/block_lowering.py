"""What `convert-blk-to-loops` and `convert-blk-to-simt` share: strict block IR to loops
over the elements of its blocks.

`BlockLowering` lowers the block ops of one function, in program order. It follows a
`FusionPlan` (which block values fuse into their users' loops, which are materialized),
computes a fused value's element at an index from its operands' elements (`element`:
elementwise ops, casts, broadcasts and the other views, loads, constants), builds the
scalar steps of reductions (`reduce_init`, `combine`) and lowers what both lowerings lower
alike: stores, prints, asserts, and `scf` loops and branches carrying blocks (in buffers).
A lowering derived from it says where buffers live and how loops visit a block's elements
(`alloca`, `loop_nest`, `materialize`, `copy_into`), and lowers atomics, reductions,
scans and `dot` its own way.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnitAttr,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from blkc import dtypes
from blkc.diagnostics import error_at
from blkc.dialects import blk
from blkc.dialects.types import shape_of
from blkc.passes.fusion_plan import (
    FusionPlan,
    elem_type,
    is_block,
    is_int_mod,
    is_splat_constant,
)
from blkc.passes.sibling_loops import fuse_sibling_loops
from blkc.passes.sort_lowering import lower_sort

Index = list[SSAValue]

REASSOC_ATTR = "blk.reassoc"
"""Marks a scalar op of a reduction whose operands may be reassociated."""

DISJOINT_ARGS_ATTR = "blk.disjoint_args"
"""Marks a function whose lowering relied on its pointer arguments not overlapping (the
`disjoint-args` option changed it): it is right only for launches whose arrays do not."""


def _ignoring_zero_signs(extremum: blk.MaximumOp | blk.MinimumOp) -> Operation:
    """`extremum` (float32 or float64, propagating NaN) as the `arith` op that may give
    either zero where both operands are zeros (`nsz`)."""
    assert blk.nan_of(extremum) is blk.Nan.PROPAGATE
    assert dtypes.from_xdsl(extremum.result.type).name in ("float32", "float64")
    op_type = arith.MaximumfOp if isinstance(extremum, blk.MaximumOp) else arith.MinimumfOp
    flags = arith.FastMathFlagsAttr([arith.FastMathFlag.NO_SIGNED_ZEROS])
    return op_type(*extremum.operands, flags)


def relies_on_disjoint_args(module: ModuleOp) -> bool:
    """Whether the lowering of some function of `module` relied on disjoint arguments."""
    return any(
        isinstance(op, func.FuncOp) and DISJOINT_ARGS_ATTR in op.attributes for op in module.walk()
    )


@dataclass
class Builder:
    """Inserts ops into `block`, before `before` (or at the end)."""

    block: Block
    before: Operation | None = None

    def insert(self, op: Operation) -> Operation:
        if self.before is None:
            self.block.add_op(op)
        else:
            self.block.insert_op_before(op, self.before)
        return op

    def value(self, op: Operation) -> SSAValue:
        return self.insert(op).results[0]


def defined_in(value: SSAValue, block: Block) -> bool:
    """Whether `value` is defined in `block` itself (not in an enclosing one)."""
    if isinstance(value, BlockArgument):
        return value.block is block
    return value.owner.parent_block() is block  # type: ignore[union-attr]


@dataclass
class LoopBody:
    """A loop body being built: where to insert, and the elements computed so far."""

    builder: Builder
    memo: dict[tuple[int, tuple[int, ...]], SSAValue] = field(default_factory=dict)


NestBody = Callable[[LoopBody, Index, list[SSAValue]], list[SSAValue]]
"""A loop nest's body: it gets the visit's indices and carried values, and returns the
next carried values."""


_WIDENED_SUMS = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")
"""The element types whose sums and products accumulate in float32 (`accumulator_type`)."""


def accumulator_type(kind: blk.ReduceKind, elem: Attribute) -> Attribute:
    """The element type a `kind` reduction or scan whose accumulator is `elem`
    accumulates in: float32 for a sum or product of float16, bfloat16 or fp8 elements,
    rounded to the result's type once (a reduction's result, each element of a scan's),
    else `elem`. Their arithmetic rounds after each op (`emulate-small-floats`), and a sum
    rounded after each element stalls: 256 + 1 is 256 in bfloat16, so a running sum of
    ones stopped there (2048 in float16). The order and precision of a float sum are unspecified
    (docs/semantics.md); Triton's tree of partial sums, like float32 accumulation, gives
    about n where left to right gives 256."""
    if kind in (blk.ReduceKind.SUM, blk.ReduceKind.PROD):
        if dtypes.from_xdsl(elem).name in _WIDENED_SUMS:
            return f32
    return elem


def _largest(d: dtypes.DType) -> float:
    """Infinity, or the largest finite value of a float format without one (float8_e4m3fn,
    where an infinity would become NaN)."""
    import ml_dtypes

    info = ml_dtypes.finfo(d.numpy)
    has_infinity = numpy.isinf(numpy.array(numpy.inf).astype(d.numpy))
    return float("inf") if has_infinity else float(info.max)


class BlockLowering(ABC):
    """Lowers the block ops of one `function` to loops over their elements (see the
    module's docstring)."""

    program_on_one_thread = False
    """Whether one thread runs a program's loops over its own stack buffers (not the SIMT
    lowering, whose threads share buffers and keep their elements in registers). Then a
    loop's carried splats start in its first iteration (`lower_for`), and loads with
    several users are read again by each (`FusionPlan`'s `rereads`)."""

    def __init__(self, function: func.FuncOp, disjoint_args: bool = False):
        self.function = function
        self.entry = function.body.blocks[0]
        self.plan = FusionPlan(function, disjoint_args, rereads=self.program_on_one_thread)
        self.materialized = self.plan.materialized
        self.buffers: dict[SSAValue, SSAValue] = {}
        """Each materialized block value (and loop-carried block) -> its buffer."""
        self.constants: dict[tuple[int, Attribute], SSAValue] = {}
        self.first_iteration: dict[SSAValue, tuple[SSAValue, SSAValue, SSAValue]] = {}
        """Carried blocks whose buffer is not filled before their loop: each with the
        loop's index, its lower bound and the block it starts as (a splat), which the
        first iteration reads instead (`lower_for`)."""

    # -- what a lowering decides -------------------------------------------------------

    @abstractmethod
    def alloca(self, shape: Sequence[int], elem: Attribute) -> SSAValue:
        """A new buffer for a block of `shape` and element type `elem`."""

    @abstractmethod
    def loop_nest(
        self, builder: Builder, shape: Sequence[int], body: NestBody, inits: Sequence[SSAValue] = ()
    ) -> list[SSAValue]:
        """Loops visiting the elements of `shape`, carrying `inits` through `body`;
        returns the final carried values."""

    @abstractmethod
    def materialize(self, value: SSAValue, here: Builder) -> None:
        """Compute block `value` into a buffer (`buffers`), at `here`."""

    @abstractmethod
    def copy_into(
        self, value: SSAValue, buffer: SSAValue, here: Builder, temporary: bool = False
    ) -> None:
        """Copy block `value` into `buffer` at `here`; `temporary`: `value` may read
        `buffer` (a loop's next carried block), so compute it first."""

    @abstractmethod
    def lower_atomic(self, op: blk.AtomicRMWOp | blk.AtomicCASOp, here: Builder) -> None:
        """A block atomic: one per element, their old values in a buffer."""

    @abstractmethod
    def lower_reduce(self, op: blk.ReduceOp, here: Builder) -> None: ...

    @abstractmethod
    def lower_scan(self, op: blk.ScanOp, here: Builder) -> None: ...

    @abstractmethod
    def lower_dot(self, op: blk.DotOp, here: Builder) -> None: ...

    @abstractmethod
    def lower_reduce_region(self, op: blk.ReduceRegionOp, here: Builder) -> None: ...

    @abstractmethod
    def lower_scan_region(self, op: blk.ScanRegionOp, here: Builder) -> None: ...

    @abstractmethod
    def scratch(self, shape: Sequence[int], elem: Attribute) -> SSAValue:
        """A buffer for a block that loops read and write at any element (a sort's
        lines)."""

    @abstractmethod
    def fence(self, here: Builder) -> None:
        """Order the writes to scratch buffers before `here` before the reads after it."""

    # -- driving -----------------------------------------------------------------------

    def run(self) -> None:
        """Lower the function's blocks, then merge sibling loops where they allow it."""
        for arg in self.entry.args:
            if is_block(arg):
                raise error_at(self.function, "kernel arguments must be scalars or pointers")
        self._lower_block(self.entry)
        self._erase_blocks()
        fuse_sibling_loops(self.entry)

    def mark_disjoint_args(self) -> None:
        """Record on the function that its lowering relied on disjoint pointer arguments
        (`DISJOINT_ARGS_ATTR`), where it did."""
        if self.plan.relies_on_disjoint_args:
            self.function.attributes[DISJOINT_ARGS_ATTR] = UnitAttr()

    def _lower_block(self, block: Block) -> None:
        for op in list(block.ops):
            self.lower_op(op)

    def lower_op(self, op: Operation) -> None:
        """Lower `op` (and the ops in its regions): a sink gets its loops, a value the
        plan materializes its buffer."""
        here = Builder(op.parent_block(), op)  # type: ignore[arg-type]
        if isinstance(op, scf.ForOp) and any(is_block(v) for v in op.iter_args):
            self.lower_for(op)
            return
        if isinstance(op, scf.IfOp) and any(is_block(r) for r in op.results):
            self._lower_if(op)
            return
        if isinstance(op, scf.WhileOp) and any(is_block(v) for v in op.arguments):
            self._lower_while(op)
            return
        if isinstance(op, blk.ReduceRegionOp):
            self.lower_reduce_region(op, here)
            return
        if isinstance(op, blk.ScanRegionOp):
            self.lower_scan_region(op, here)
            return
        if op.regions:
            if any(is_block(r) for r in op.results):
                raise error_at(op, f"'{op.name}' with block results is not supported yet")
            for region in op.regions:
                for block in region.blocks:
                    self._lower_block(block)
        if isinstance(op, blk.StoreOp) and is_block(op.ptr):
            self.lower_store(op, here)
        elif isinstance(op, blk.ReduceOp):
            self.lower_reduce(op, here)
        elif isinstance(op, blk.ScanOp):
            self.lower_scan(op, here)
        elif isinstance(op, blk.SortOp | blk.BitonicMergeOp):
            lower_sort(self, op, here)
        elif isinstance(op, blk.DotOp):
            self.lower_dot(op, here)
        elif isinstance(op, blk.AtomicRMWOp | blk.AtomicCASOp) and is_block(op.ptr):
            self.lower_atomic(op, here)
        elif isinstance(op, blk.PrintOp) and any(is_block(a) for a in op.args):
            self._lower_print(op, here)
        elif isinstance(op, blk.AssertOp) and is_block(op.cond):
            self._lower_assert(op, here)
        elif isinstance(op, func.ReturnOp) and any(is_block(a) for a in op.operands):
            raise error_at(op, "kernels cannot return blocks; store them instead")
        elif op.results and op.results[0] in self.materialized:
            value = op.results[0]
            self.materialize(value, here)

    # -- helpers -----------------------------------------------------------------------

    def const(self, value: int, type_: Attribute | None = None) -> SSAValue:
        """The constant `value` of `type_` (index by default), defined once at the
        function's start."""
        t = IndexType() if type_ is None else type_
        key = (value, t)
        if key not in self.constants:
            op = arith.ConstantOp(IntegerAttr(value, t))
            first = self.entry.first_op
            if first is None:
                self.entry.add_op(op)
            else:
                self.entry.insert_op_before(op, first)
            self.constants[key] = op.result
        return self.constants[key]

    # -- elements ----------------------------------------------------------------------

    def element(self, value: SSAValue, idx: Index, body: LoopBody) -> SSAValue:
        """The element of block `value` at `idx`, computed in `body`."""
        if not is_block(value):
            return value
        key = (id(value), tuple(id(i) for i in idx))
        if key in body.memo:
            return body.memo[key]
        if value in self.first_iteration:
            index, lower, init = self.first_iteration[value]
            b = body.builder
            first = b.value(blk.CmpOp("eq", index, lower, i1))
            start = self.element(init, idx, body)
            loaded = self._read_buffer(value, idx, body)
            result = b.value(blk.WhereOp(first, start, loaded, elem_type(value)))
        elif value in self.buffers:
            result = self._read_buffer(value, idx, body)
        else:
            result = self.element_of_owner(value, idx, body)
        body.memo[key] = result
        return result

    def _read_buffer(self, value: SSAValue, idx: Index, body: LoopBody) -> SSAValue:
        b = body.builder
        loaded = b.value(memref.LoadOp.get(self.buffers[value], idx))
        op = value.owner
        if not is_int_mod(op) or any(self.plan.expensive(o) for o in op.operands):
            return loaded
        # x % m is x where 0 <= x < m (either rounding): saying so lets the code generator
        # prove it over a whole loop nest (access_ranges) and use x, affine, in its place.
        x, m = self.element(op.lhs, idx, body), self.element(op.rhs, idx, body)
        inside = b.value(blk.CmpOp("lt", x, m, i1))
        elem = elem_type(value)
        if dtypes.from_xdsl(elem).signed:
            zero = self.scalar_constant(0, elem)
            inside = b.value(blk.AndOp(b.value(blk.CmpOp("ge", x, zero, i1)), inside, i1))
        return b.value(blk.WhereOp(inside, x, loaded, elem))

    def element_of_owner(self, value: SSAValue, idx: Index, body: LoopBody) -> SSAValue:
        """The element of block `value` at `idx`, from its op's operands' elements."""
        op = value.owner
        b = body.builder
        if isinstance(value, BlockArgument) or not isinstance(op, Operation):
            raise AssertionError(f"block argument {value} has no buffer")
        scalar = elem_type(value)
        if isinstance(op, blk.SplatOp):
            return op.src
        if isinstance(op, blk.BroadcastOp):
            src_shape = shape_of(op.src.type)
            return self.element(
                op.src,
                [self.const(0) if s == 1 else i for s, i in zip(src_shape, idx, strict=True)],
                body,
            )
        if isinstance(op, blk.ExpandDimsOp):
            axis = op.axis.value.data
            return self.element(op.src, idx[:axis] + idx[axis + 1 :], body)
        if isinstance(op, blk.PermuteOp):
            order = list(op.order.get_values())
            src_idx: Index = [idx[0]] * len(order)
            for k, j in enumerate(order):
                src_idx[j] = idx[k]
            return self.element(op.src, src_idx, body)
        if isinstance(op, blk.ReshapeOp):
            return self.element(op.src, self._reshape_index(op, idx, b), body)
        if isinstance(op, blk.GatherOp):
            return self.element(op.src, self._gathered_index(op, idx, body), body)
        if isinstance(op, blk.ArangeOp):
            position = b.value(arith.IndexCastOp(idx[0], i32))
            start = op.start.value.data
            if start == 0:
                return position
            return b.value(blk.AddOp(position, self.const(start, i32), i32))
        if isinstance(op, blk.ConstantOp):
            attr = op.value
            assert isinstance(attr, DenseIntOrFPElementsAttr)
            if not blk.is_splat(attr):
                raise error_at(
                    op,
                    "a block constant of different values is not supported; build it from "
                    "blk.arange and blk.where, or load it from an array",
                )
            return self.scalar_constant(attr.get_values()[0], scalar)
        if isinstance(op, blk.LoadOp):
            ptr = self.element(op.ptr, idx, body)
            mask = self.element(op.mask, idx, body) if op.mask is not None else None
            other = self.element(op.other, idx, body) if op.other is not None else None
            load = blk.LoadOp(ptr, mask, other, scalar)
            load.location = op.location
            return b.value(load)
        if isinstance(op, blk.ElementwiseOp | blk.CastOp | blk.BitcastOp):
            operands = [self.element(o, idx, body) for o in op.operands]
            clone = type(op).create(
                operands=operands,
                result_types=[scalar],
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            )
            clone.location = op.location
            return b.value(clone)
        raise error_at(op, f"'{op.name}' on blocks is not supported by the CPU backend yet")

    def scalar_constant(self, value: int | float, type_: Attribute) -> SSAValue:
        """The scalar `blk.constant` `value` of `type_`, defined once at the function's
        start."""
        d = dtypes.from_xdsl(type_)
        attr = FloatAttr(float(value), type_) if d.is_float else IntegerAttr(int(value), type_)
        key = (hash(("c", attr)), type_)
        if key not in self.constants:
            op = blk.ConstantOp(attr)
            first = self.entry.first_op
            assert first is not None
            self.entry.insert_op_before(op, first)
            self.constants[key] = op.result
        return self.constants[key]

    def _reshape_index(self, op: blk.ReshapeOp, idx: Index, b: Builder) -> Index:
        res_shape, src_shape = shape_of(op.result.type), shape_of(op.src.type)
        linear: SSAValue | None = None
        for size, i in zip(res_shape, idx, strict=True):
            linear = (
                i
                if linear is None
                else self._index_op(
                    arith.AddiOp, self._index_op(arith.MuliOp, linear, self.const(size), b), i, b
                )
            )
        assert linear is not None
        out: Index = []
        stride = 1
        strides = []
        for size in reversed(src_shape):
            strides.append(stride)
            stride *= size
        for size, s in zip(src_shape, reversed(strides), strict=True):
            q = self._index_op(arith.DivUIOp, linear, self.const(s), b)
            out.append(self._index_op(arith.RemUIOp, q, self.const(size), b))
        return out

    def _gathered_index(self, op: blk.GatherOp, idx: Index, body: LoopBody) -> Index:
        """`idx` with its gathered coordinate replaced by the index block's element there.
        An index outside the axis fails the launch (unless the frontend built it inside:
        `in_range`) and reads the axis's first element, so no access leaves the block."""
        b = body.builder
        axis = op.axis.value.data
        wide = self.cast(self.element(op.index, idx, body), i64, b)
        zero = self.scalar_constant(0, i64)
        size = self.scalar_constant(shape_of(op.src.type)[axis], i64)
        above = b.value(blk.CmpOp("ge", wide, zero, i1))
        inside = b.value(blk.AndOp(above, b.value(blk.CmpOp("lt", wide, size, i1)), i1))
        if op.in_range is None:
            check = blk.AssertOp(inside, "gather index out of range")
            check.location = op.location
            b.insert(check)
        kept = b.value(blk.WhereOp(inside, wide, zero, i64))
        return [*idx[:axis], b.value(arith.IndexCastOp(kept, IndexType())), *idx[axis + 1 :]]

    @staticmethod
    def _index_op(cls: type, lhs: SSAValue, rhs: SSAValue, b: Builder) -> SSAValue:
        return b.value(cls(lhs, rhs))

    # -- sinks -------------------------------------------------------------------------

    def lower_store(self, op: blk.StoreOp, here: Builder) -> None:
        """A block store: one scalar store per element."""

        def body(b: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            ptr = self.element(op.ptr, idx, b)
            value = self.element(op.value, idx, b)
            mask = self.element(op.mask, idx, b) if op.mask is not None else None
            store = blk.StoreOp(ptr, value, mask)
            store.location = op.location
            b.builder.insert(store)
            return []

        self.lower_sink(op, shape_of(op.ptr.type), here, body)

    def _lower_print(self, op: blk.PrintOp, here: Builder) -> None:
        """Each value in turn, a line per element (`blk.print`'s element form): a block's
        in a loop nest, with its indices; a scalar's as it is."""
        several = len(op.args) > 1
        hex_ = op.hex is not None
        for number, arg in enumerate(op.args):
            label = number if several else None
            shape = shape_of(arg.type)
            widths = blk.PrintOp.widths_of(shape)

            def body(
                b: LoopBody,
                idx: Index,
                carried: list[SSAValue],
                arg: SSAValue = arg,
                widths: list[int] = widths,
                label: int | None = label,
            ) -> list[SSAValue]:
                # The indices print as i64: blk.print takes blk values only.
                where = [b.builder.value(arith.IndexCastOp(i, i64)) for i in idx]
                element = self.element(arg, idx, b)
                printed = blk.PrintOp(op.prefix.data, [*where, element], hex_, widths, label)
                printed.location = op.location
                b.builder.insert(printed)
                return []

            if shape:
                self.loop_nest(here, shape, body)
            else:
                printed = blk.PrintOp(op.prefix.data, [arg], hex_, [], label)
                printed.location = op.location
                here.insert(printed)
        op.detach()
        op.erase()

    def _lower_assert(self, op: blk.AssertOp, here: Builder) -> None:
        def body(b: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            check = blk.AssertOp(self.element(op.cond, idx, b), op.message.data)
            check.location = op.location
            b.builder.insert(check)
            return []

        self.lower_sink(op, shape_of(op.cond.type), here, body)

    def lower_sink(
        self, op: Operation, shape: Sequence[int], here: Builder, body: NestBody
    ) -> None:
        """Replace `op`, a side effect on blocks of `shape`, by loops running `body`."""
        self.loop_nest(here, shape, body)
        op.detach()
        op.erase()

    # -- reductions --------------------------------------------------------------------

    def linear_i32(self, idx: Index, shape: Sequence[int], b: LoopBody) -> SSAValue:
        """The row-major position of `idx` in `shape`, as i32."""
        linear: SSAValue | None = None
        for size, i in zip(shape, idx, strict=True):
            if linear is None:
                linear = i
            else:
                scaled = b.builder.value(arith.MuliOp(linear, self.const(size)))
                linear = b.builder.value(arith.AddiOp(scaled, i))
        assert linear is not None
        return b.builder.value(arith.IndexCastOp(linear, i32))

    def reduce_init(
        self, kind: blk.ReduceKind, elem: Attribute, nan: blk.Nan = blk.Nan.PROPAGATE
    ) -> list[SSAValue]:
        """The identity `kind` starts from; NaN for float extrema that skip NaN (`maxnum`
        returns the other operand), so that only an all-NaN input gives NaN."""
        d = dtypes.from_xdsl(elem)
        if kind is blk.ReduceKind.SUM or kind in (blk.ReduceKind.OR, blk.ReduceKind.XOR):
            value: int | float = 0
        elif kind is blk.ReduceKind.PROD:
            value = 1
        elif kind is blk.ReduceKind.AND:
            value = -1 if d.signed else d.int_range[1]
            if d.is_bool:
                value = 1
        elif d.is_float and nan is blk.Nan.NUM:
            value = float("nan")
        elif kind in (blk.ReduceKind.MAX, blk.ReduceKind.ARGMAX):
            value = -_largest(d) if d.is_float else d.int_range[0]
        else:
            value = _largest(d) if d.is_float else d.int_range[1]
        if d.is_bool:
            value = int(value != 0)
        return [self.scalar_constant(value, elem)]

    def combine(
        self,
        kind: blk.ReduceKind,
        carried: list[SSAValue],
        x: SSAValue,
        acc_elem: Attribute,
        position: SSAValue,
        b: Builder,
        nan: blk.Nan = blk.Nan.PROPAGATE,
        signed_zeros: bool = True,
    ) -> list[SSAValue]:
        """One step of a `kind` reduction: `carried` (the accumulator, and for arg kinds
        its position) combined with element `x` at `position`; the next carried values.
        Without `signed_zeros`, a float32 or float64 maximum or minimum propagating NaN may
        give either zero where the exact one orders -0.0 below +0.0 (`nsz`): x86 computes
        it in 3 instructions a vector instead of 6, and a caller that redoes the reduction
        exactly where its result is zero gives the exact result."""
        x = self.cast(x, acc_elem, b)
        acc = carried[0]
        simple = {
            blk.ReduceKind.SUM: blk.AddOp,
            blk.ReduceKind.PROD: blk.MulOp,
            blk.ReduceKind.MAX: blk.MaximumOp,
            blk.ReduceKind.MIN: blk.MinimumOp,
            blk.ReduceKind.AND: blk.AndOp,
            blk.ReduceKind.OR: blk.OrOp,
            blk.ReduceKind.XOR: blk.XorOp,
        }
        if kind in simple:
            combined = simple[kind](acc, x, acc_elem)
            floats = dtypes.from_xdsl(acc_elem).is_float
            if isinstance(combined, blk.MaximumOp | blk.MinimumOp) and floats:
                combined.properties["nan"] = blk.NanAttr(nan)
                if not signed_zeros:
                    return [b.value(_ignoring_zero_signs(combined))]
            # The order of a reduction is unspecified (docs/semantics.md): the code
            # generator may reassociate it, which lets LLVM vectorize float sums.
            combined.attributes[REASSOC_ATTR] = UnitAttr()
            return [b.value(combined)]
        predicate = "gt" if kind is blk.ReduceKind.ARGMAX else "lt"
        better = b.value(blk.CmpOp(predicate, x, acc, i1))
        if dtypes.from_xdsl(acc_elem).is_float:
            # propagate: a NaN x beats a number (the first NaN wins); num: a number x
            # beats a NaN (the start value)
            is_nan, is_number = (x, acc) if nan is blk.Nan.PROPAGATE else (acc, x)
            nan_here = b.value(blk.CmpOp("ne", is_nan, is_nan, i1))
            number_there = b.value(blk.CmpOp("eq", is_number, is_number, i1))
            overrides = b.value(blk.AndOp(nan_here, number_there, i1))
            better = b.value(blk.OrOp(better, overrides, i1))
        best = b.value(blk.WhereOp(better, x, acc, acc_elem))
        index = b.value(blk.WhereOp(better, position, carried[1], i32))
        return [best, index]

    def apply_combiner(
        self,
        op: blk.CombineRegionOp,
        acc: Sequence[SSAValue],
        nxt: Sequence[SSAValue],
        b: Builder,
    ) -> list[SSAValue]:
        """One step of a `blk.reduce_region` or `blk.scan_region`: its combiner's ops,
        cloned at `b` on the accumulated scalars `acc` and the next elements `nxt`; the
        combined scalars."""
        block = op.combiner.block
        mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, [*acc, *nxt], strict=True))
        for inner in block.ops:
            if isinstance(inner, blk.YieldOp):
                return [mapping.get(v, v) for v in inner.values]
            b.insert(inner.clone(value_mapper=mapping))
        raise AssertionError("a combiner ends in blk.yield")

    def cast(self, value: SSAValue, elem: Attribute, b: Builder) -> SSAValue:
        """`value` as `elem` (a `blk.cast` where the types differ)."""
        if value.type == elem:
            return value
        return b.value(blk.CastOp(value, elem))

    # -- loops carrying blocks -----------------------------------------------------------

    def lower_for(self, op: scf.ForOp) -> None:
        """An `scf.for` carrying blocks: each lives in a buffer, filled before the loop
        and at the end of each iteration."""
        here = Builder(op.parent_block(), op)  # type: ignore[arg-type]
        old_block = op.body.block
        carried_blocks = [i for i, v in enumerate(op.iter_args) if is_block(v)]
        buffers: dict[int, SSAValue] = {}
        scalar_positions = [i for i in range(len(op.iter_args)) if i not in carried_blocks]
        new_block = Block(
            arg_types=[old_block.args[0].type, *(op.iter_args[i].type for i in scalar_positions)]
        )
        for i in carried_blocks:
            init = op.iter_args[i]
            buffer = self.alloca(shape_of(init.type), elem_type(init))
            buffers[i] = buffer
            arg = old_block.args[i + 1]
            if self.program_on_one_thread and self._starts_in_first_iteration(op, i):
                # Filled only where the loop never runs; the first iteration reads the
                # splat (a `tl.zeros` accumulator: no memset of it each program).
                skipped = here.value(blk.CmpOp("ge", op.lb, op.ub, i1))
                fill = Block()
                self.copy_into(init, buffer, Builder(fill))
                fill.add_op(scf.YieldOp())
                here.insert(scf.IfOp(skipped, [], [fill]))
                self.first_iteration[arg] = (new_block.args[0], op.lb, init)
            else:
                self.copy_into(init, buffer, here)
            self.buffers[arg] = buffer
        old_block.args[0].replace_all_uses_with(new_block.args[0])
        for new_arg, i in zip(new_block.args[1:], scalar_positions, strict=True):
            old_block.args[i + 1].replace_all_uses_with(new_arg)
        for inner in list(old_block.ops):
            inner.detach()
            new_block.add_op(inner)
        yield_op = new_block.last_op
        assert isinstance(yield_op, scf.YieldOp)
        self._lower_block_until(new_block, yield_op)
        self._carry_on(yield_op, buffers, Builder(new_block, yield_op))
        new_yield = scf.YieldOp(*(yield_op.operands[i] for i in scalar_positions))
        new_block.insert_op_before(new_yield, yield_op)
        yield_op.detach()
        yield_op.erase()
        new_for = scf.ForOp(
            op.lb, op.ub, op.step, [op.iter_args[i] for i in scalar_positions], new_block
        )
        new_for.location = op.location
        here.insert(new_for)
        for result, i in zip(new_for.results, scalar_positions, strict=True):
            op.results[i].replace_all_uses_with(result)
        for i, buffer in buffers.items():
            self.buffers[op.results[i]] = buffer

    def _carry_on(self, yield_op: scf.YieldOp, buffers: dict[int, SSAValue], here: Builder) -> None:
        """Fill each carried block's buffer with the block `yield_op` yields for it, as one
        simultaneous assignment (``a, b = b, a + b``): first every yielded block is computed
        into a buffer of its own (a block that is another carried one, whose buffer this
        fills, is copied aside), while the carried buffers still hold this iteration's
        blocks; then they are copied in."""
        carried = list(buffers.values())
        sources: dict[int, SSAValue] = {}
        before = {value: self.buffers.get(value) for value in yield_op.operands}
        for i, buffer in buffers.items():
            value = yield_op.operands[i]
            if value not in self.buffers:
                self.materialize(value, here)
            source = self.buffers[value]
            if source is not buffer and any(source is c for c in carried):
                aside = self.alloca(shape_of(value.type), elem_type(value))
                self.copy_into(value, aside, here)
                source = aside
            sources[i] = source
        for i, buffer in buffers.items():
            value = yield_op.operands[i]
            if sources[i] is buffer:
                continue  # computed in place (a dot accumulating into its loop's buffer)
            self.buffers[value] = sources[i]  # its block's values now live there
            self.copy_into(value, buffer, here, temporary=True)
        for value in yield_op.operands:
            if not defined_in(value, here.block):
                # A block of an enclosing block, computed here: what follows the loop reads
                # it from where it is defined, for the loop may not run at all.
                self.forget_buffer(value, before[value])

    def forget_buffer(self, value: SSAValue, kept: SSAValue | None) -> None:
        """Make `value`'s buffer `kept` again (none: `value` is computed where read)."""
        if kept is None:
            self.buffers.pop(value, None)
        else:
            self.buffers[value] = kept

    @staticmethod
    def _starts_in_first_iteration(op: scf.ForOp, i: int) -> bool:
        """Whether carried block `i` of `op` may start unfilled: it starts as a splat (its
        element the same everywhere), the body reads it only element by element (through
        elementwise ops and casts) and yields a new block for it, and the loop counts an
        integer (whose first value `lb` is)."""
        init, arg = op.iter_args[i], op.body.block.args[i + 1]
        yielded = op.body.block.last_op
        return (
            (isinstance(init.owner, blk.SplatOp) or is_splat_constant(init.owner))
            and isinstance(op.lb.type, IntegerType)
            and isinstance(yielded, scf.YieldOp)
            and yielded.operands[i] is not arg
            and all(isinstance(u.operation, blk.ElementwiseOp | blk.CastOp) for u in arg.uses)
        )

    def _lower_if(self, op: scf.IfOp) -> None:
        """Block results of an `scf.if` live in buffers that each branch fills."""
        here = Builder(op.parent_block(), op)  # type: ignore[arg-type]
        buffers = {
            i: self.alloca(shape_of(r.type), elem_type(r))
            for i, r in enumerate(op.results)
            if is_block(r)
        }
        scalar_positions = [i for i in range(len(op.results)) if i not in buffers]
        blocks = []
        for region in (op.true_region, op.false_region):
            block = region.blocks[0]
            yield_op = block.last_op
            assert isinstance(yield_op, scf.YieldOp)
            self._lower_block_until(block, yield_op)
            yield_here = Builder(block, yield_op)
            for i, buffer in buffers.items():
                self.copy_into(yield_op.operands[i], buffer, yield_here)
            block.insert_op_before(
                scf.YieldOp(*(yield_op.operands[i] for i in scalar_positions)), yield_op
            )
            yield_op.detach()
            yield_op.erase()
            region.detach_block(block)
            blocks.append(block)
        new_if = scf.IfOp(
            op.cond, [op.results[i].type for i in scalar_positions], [blocks[0]], [blocks[1]]
        )
        new_if.location = op.location
        here.insert(new_if)
        for result, i in zip(new_if.results, scalar_positions, strict=True):
            op.results[i].replace_all_uses_with(result)
        for i, buffer in buffers.items():
            self.buffers[op.results[i]] = buffer

    def _lower_while(self, op: scf.WhileOp) -> None:
        """Blocks carried by an `scf.while` live in buffers, as in `_lower_for`; the
        condition must pass them on unchanged (as the frontends build it)."""
        here = Builder(op.parent_block(), op)  # type: ignore[arg-type]
        before, after = op.before_region.blocks[0], op.after_region.blocks[0]
        condition = before.last_op
        assert isinstance(condition, scf.ConditionOp)
        buffers: dict[int, SSAValue] = {}
        for i, init in enumerate(op.arguments):
            if not is_block(init):
                continue
            if condition.args[i] is not before.args[i]:
                raise error_at(op, "a while loop must pass its carried blocks on unchanged")
            buffer = self.alloca(shape_of(init.type), elem_type(init))
            self.copy_into(init, buffer, here)
            buffers[i] = buffer
            for value in (before.args[i], after.args[i], op.results[i]):
                self.buffers[value] = buffer
        scalars = [i for i in range(len(op.arguments)) if i not in buffers]
        types = [op.arguments[i].type for i in scalars]
        new_before, new_after = Block(arg_types=types), Block(arg_types=types)
        for old, new in ((before, new_before), (after, new_after)):
            for new_arg, i in zip(new.args, scalars, strict=True):
                old.args[i].replace_all_uses_with(new_arg)
            for inner in list(old.ops):
                inner.detach()
                new.add_op(inner)
        self._lower_block_until(new_before, condition)
        new_before.insert_op_before(
            scf.ConditionOp(condition.condition, *(condition.args[i] for i in scalars)), condition
        )
        condition.detach()
        condition.erase()
        yield_op = new_after.last_op
        assert isinstance(yield_op, scf.YieldOp)
        self._lower_block_until(new_after, yield_op)
        self._carry_on(yield_op, buffers, Builder(new_after, yield_op))
        new_after.insert_op_before(scf.YieldOp(*(yield_op.operands[i] for i in scalars)), yield_op)
        yield_op.detach()
        yield_op.erase()
        new_while = scf.WhileOp(
            [op.arguments[i] for i in scalars], types, [new_before], [new_after]
        )
        new_while.location = op.location
        here.insert(new_while)
        for result, i in zip(new_while.results, scalars, strict=True):
            op.results[i].replace_all_uses_with(result)

    def _lower_block_until(self, block: Block, stop: Operation) -> None:
        for op in list(block.ops):
            if op is stop:
                return
            self.lower_op(op)

    # -- clean-up ----------------------------------------------------------------------

    def _erase_blocks(self) -> None:
        doomed = [
            op
            for op in self.function.walk()
            if op is not self.function
            and (any(is_block(r) for r in op.results) or any(is_block(o) for o in op.operands))
        ]
        for op in reversed(doomed):
            for result in op.results:
                if result.uses:
                    users = ", ".join(sorted({u.operation.name for u in result.uses}))
                    raise error_at(op, f"internal error: {op.name} still used by {users}")
            op.detach()
            op.erase()
