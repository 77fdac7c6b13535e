"""`convert-blk-to-loops`: strict block IR to loops over scalars.

Every block value either *fuses* into the loops of its consumers (its element is
recomputed where it is needed, from the elements of its operands: a broadcast is an index
mapping, never a copy) or is *materialized* in a fixed-size stack buffer (`memref.alloca`)
by a loop nest of its own. Sinks (stores, atomics, reductions, scans, `dot`, prints,
asserts, loop-carried blocks) each get one loop nest whose body computes the fused
elements it needs.

Materialized: results of reductions, scans, `dot` and atomics; loop-carried blocks; the
operands of `dot`; and values whose recomputation would be costly or wrong: an expensive
value (one that loads, divides or calls a math function) used more than once or in
another region, a load whose consumer runs after a write to memory, and a load fused into
the nest of a write that may change what it reads.

That last rule keeps block semantics (every op sees the whole block as it was before the
next op): fused into the loop of a store or an atomic its value flows into, a load reads
element i after the write stored elements 0 .. i-1. It stays fused only where the write
cannot land on what another element reads (`pointer_analysis`):

- both go through the same pointer block (one value, or the same expression built twice),
  no two of whose elements share an address, and the write's element i takes the load's
  element i through elementwise ops only: `x = load(X + o); store(X + o, f(x))`, one loop;
- or their pointers derive from different pointer arguments and the pass was told, by
  `disjoint-args=true`, that those do not overlap.

Anything else is read into a buffer first: `store(X + o, load(X + N - 1 - o))`, a pointer
block with repeated addresses, a transposed value, pointers loaded from memory, selected
by `where` or carried by loops. `disjoint-args` holds for launches whose arrays share no
bytes, which the launcher checks each time before it picks the variant compiled with it
(`blkc.kernel`); bounds checks keep every access inside the array of the argument it
derives from. A function whose lowering relied on the option is marked `blk.disjoint_args`:

```mlir
// convert-blk-to-loops{disjoint-args=true}: the load of X fuses into the store to Y.
func.func @copy(%X: !blk.ptr<f32>, %Y: !blk.ptr<f32>) attributes {blk.disjoint_args, ...}
```

After this pass no tensor type remains: loops (`scf.for` over `index`), `memref` buffers,
`arith` index arithmetic and scalar `blk` ops, which `lower-int-semantics` lowers next.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy
from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from blkc import dtypes
from blkc.diagnostics import error_at
from blkc.dialects import blk
from blkc.dialects.types import element_type, shape_of
from blkc.passes.axis_info import AxisInfoAnalysis
from blkc.passes.pointer_analysis import Overlap, PointerAnalysis

Index = list[SSAValue]

REASSOC_ATTR = "blk.reassoc"
"""Marks a scalar op of a reduction whose operands may be reassociated."""


DISJOINT_ARGS_ATTR = "blk.disjoint_args"
"""Marks a function whose lowering relied on its pointer arguments not overlapping (the
`disjoint-args` option changed it): it is right only for launches whose arrays do not."""


@dataclass(frozen=True)
class ConvertBlkToLoopsPass(ModulePass):
    """Lower every block to loops over its elements, fusing elementwise chains.

    With `disjoint_args`, accesses through different pointer arguments are taken not to
    overlap (what the launcher checks before it runs the `noalias` variant)."""

    name = "convert-blk-to-loops"
    disjoint_args: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nested in list(op.walk()):
            if isinstance(nested, func.FuncOp) and not nested.is_declaration:
                lowering = _FunctionLowering(nested, self.disjoint_args)
                lowering.run()
                mark_disjoint_args(nested, lowering.relies_on_disjoint_args)


def mark_disjoint_args(function: func.FuncOp, relied: bool) -> None:
    """Record on `function` that its lowering relied on disjoint pointer arguments."""
    if relied:
        function.attributes[DISJOINT_ARGS_ATTR] = UnitAttr()


def relies_on_disjoint_args(module: ModuleOp) -> bool:
    """Whether the lowering of some function of `module` relied on disjoint arguments."""
    return any(
        isinstance(op, func.FuncOp) and DISJOINT_ARGS_ATTR in op.attributes for op in module.walk()
    )


# ------------------------------------------------------------------------------------
# Inserting ops
# ------------------------------------------------------------------------------------


@dataclass
class _Builder:
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


@dataclass
class _Body:
    """A loop body being built: where to insert, and the elements computed so far."""

    builder: _Builder
    memo: dict[tuple[int, tuple[int, ...]], SSAValue] = field(default_factory=dict)


_EXPENSIVE = (
    blk.LoadOp,
    blk.MathOp,
    blk.TrueDivOp,
    blk.FloorDivOp,
    blk.ModOp,
    blk.ReduceOp,
    blk.ScanOp,
    blk.DotOp,
    blk.AtomicRMWOp,
    blk.AtomicCASOp,
)
_ALWAYS_MATERIALIZED = (
    blk.ReduceOp,
    blk.ScanOp,
    blk.DotOp,
    blk.AtomicRMWOp,
    blk.AtomicCASOp,
    scf.ForOp,
    scf.IfOp,
    scf.WhileOp,
)
_WRITES_MEMORY = (blk.StoreOp, blk.AtomicRMWOp, blk.AtomicCASOp)
_PER_ELEMENT = (blk.ElementwiseOp, blk.CastOp, blk.BitcastOp)
"""Ops whose element i is computed from their operands' elements i."""
_TILE_ROWS = (4, 2, 1)
_TILE_COLS = (32, 16, 8, 4, 2, 1)
"""The register tile of `dot`: the largest sizes dividing the result's (with AVX-512, 4 x 32
float32 is eight vector accumulators: enough to hide the latency of the FMAs)."""


def _largest(d: dtypes.DType) -> float:
    """Infinity, or the largest finite value of a float format without one (float8_e4m3fn,
    where an infinity would become NaN)."""
    import ml_dtypes

    info = ml_dtypes.finfo(d.numpy)
    has_infinity = numpy.isinf(numpy.array(numpy.inf).astype(d.numpy))
    return float("inf") if has_infinity else float(info.max)


def _is_int_mod(op: object) -> bool:
    return isinstance(op, blk.ModOp) and dtypes.from_xdsl(_elem(op.result)).is_int


def _is_block(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType)


def _elem(value: SSAValue) -> Attribute:
    return element_type(value.type)


class _FunctionLowering:
    def __init__(self, function: func.FuncOp, disjoint_args: bool = False):
        self.function = function
        self.entry = function.body.blocks[0]
        self.disjoint_args = disjoint_args
        self.relies_on_disjoint_args = False
        """Whether some decision held only because arguments are disjoint."""
        self.buffers: dict[SSAValue, SSAValue] = {}
        self.constants: dict[tuple[int, Attribute], SSAValue] = {}
        self._expensive: dict[SSAValue, bool] = {}
        self.materialized: set[SSAValue] = set()
        self._axis: AxisInfoAnalysis | None = None
        self.pointers = PointerAnalysis(self.entry, self.materialized.__contains__, self.axis_info)
        self._analyse()

    def axis_info(self) -> AxisInfoAnalysis:
        """The function's axis information (computed on first use, before lowering)."""
        if self._axis is None:
            self._axis = AxisInfoAnalysis(self.function)
        return self._axis

    # -- analysis ----------------------------------------------------------------------

    def _expensive_value(self, value: SSAValue) -> bool:
        if value in self._expensive:
            return self._expensive[value]
        owner = value.owner
        result = False
        if isinstance(owner, Operation) and not isinstance(owner, _ALWAYS_MATERIALIZED):
            # A materialized operand costs a read of its buffer: recomputing from it is
            # cheaper than storing another buffer (layer-norm's x - mean).
            result = isinstance(owner, _EXPENSIVE) or any(
                o not in self.materialized and self._expensive_value(o)
                for o in owner.operands
                if _is_block(o)
            )
        self._expensive[value] = result
        return result

    def _analyse(self) -> None:
        """Choose the values to materialize, in program order (operands first), then the
        loads a write in the loop nest they would fuse into could overwrite."""
        for op in self.function.walk():
            for value in op.results:
                if _is_block(value) and self._must_materialize(op, value):
                    self.materialized.add(value)
        for op in self.function.walk():
            if (
                isinstance(op, blk.LoadOp)
                and op.result not in self.materialized
                and _is_block(op.result)
                and self._may_clobber(
                    (self.pointers.overlap(op.ptr, write.ptr), same_element)
                    for write, same_element in self._writes_fed_by(op)
                )
            ):
                self.materialized.add(op.result)

    def _writes_fed_by(self, load: blk.LoadOp) -> Iterator[tuple[Operation, bool]]:
        """The writes whose loop nests `load` fuses into (its value reaches them through
        values that are not materialized), each with whether the write's element i gets
        the load's element i (through elementwise ops only)."""
        pending: list[tuple[SSAValue, bool]] = [(load.result, True)]
        seen: set[tuple[Operation, bool]] = set()
        while pending:
            value, same_element = pending.pop()
            for use in value.uses:
                user = use.operation
                if isinstance(user, _WRITES_MEMORY):
                    yield user, same_element
                elif (user, same_element) not in seen:
                    seen.add((user, same_element))
                    follows = same_element and isinstance(user, _PER_ELEMENT)
                    pending.extend(
                        (r, follows)
                        for r in user.results
                        if _is_block(r) and r not in self.materialized
                    )

    def _may_clobber(self, accesses: Iterable[tuple[Overlap, bool]]) -> bool:
        """Whether a write may change what an earlier read saw, for any of `accesses`: the
        overlap of the read's and the write's pointers, and whether the write's element i
        follows the read's element i (then a write into the same injective block is
        harmless). Records when only disjoint arguments say no."""
        relies = False
        for overlap, same_element in accesses:
            if overlap is Overlap.ELEMENTWISE and same_element:
                continue
            if overlap is Overlap.DISTINCT_ARGUMENTS and self.disjoint_args:
                relies = True
                continue
            return True
        self.relies_on_disjoint_args |= relies
        return False

    def _must_materialize(self, op: Operation, value: SSAValue) -> bool:
        if isinstance(op, _ALWAYS_MATERIALIZED):
            return True
        if isinstance(op, blk.ConstantOp):
            return not (isinstance(op.value, DenseIntOrFPElementsAttr) and op.value.is_splat())
        users = {use.operation for use in value.uses}
        other_region = any(u.parent_block() is not op.parent_block() for u in users)
        if isinstance(op, blk.LoadOp):
            return len(users) > 1 or other_region or self._write_before_last_use(op, value)
        if not self._expensive_value(value):
            return False
        if _is_int_mod(op) and self._flows_into_other_region(value):
            # Triton's `offs % M` inside a pointer block used in a K loop: a buffer of the
            # (small) remainders, read as `x` where 0 <= x < m (see `_read_buffer`), keeps
            # the pointer block fused, its offsets affine, instead of a buffer of pointers.
            return True
        return len(users) > 1 or other_region

    @staticmethod
    def _flows_into_other_region(value: SSAValue) -> bool:
        """Whether `value`, through the block values computed from it, reaches an op in
        another block than its own."""
        block = value.owner.parent_block() if isinstance(value.owner, Operation) else None
        pending, seen = [value], set()
        while pending:
            for use in pending.pop().uses:
                user = use.operation
                if user.parent_block() is not block:
                    return True
                if user not in seen:
                    seen.add(user)
                    pending.extend(r for r in user.results if _is_block(r))
        return False

    def _write_before_last_use(self, load: Operation, value: SSAValue) -> bool:
        """Whether memory may be written between `load` and the last op its value flows
        into through blocks: fused, the load would run there and read the new contents."""
        block = load.parent_block()
        last: Operation | None = None
        pending, seen = [value], set()
        while pending:
            current = pending.pop()
            for use in current.uses:
                user = use.operation
                if user in seen:
                    continue
                seen.add(user)
                anchor = user
                while anchor.parent_block() is not block and anchor.parent_op() is not None:
                    anchor = anchor.parent_op()  # type: ignore[assignment]
                if last is None or block.get_operation_index(anchor) > block.get_operation_index(
                    last
                ):
                    last = anchor
                pending.extend(r for r in user.results if _is_block(r))
        return last is not None and self._write_between(load, last)

    @staticmethod
    def _write_between(producer: Operation, user: Operation) -> bool:
        current = producer.next_op
        while current is not None and current is not user:
            if isinstance(current, _WRITES_MEMORY) or any(
                isinstance(n, _WRITES_MEMORY) for n in current.walk()
            ):
                return True
            current = current.next_op
        return False

    # -- driving -----------------------------------------------------------------------

    def run(self) -> None:
        for arg in self.entry.args:
            if _is_block(arg):
                raise error_at(self.function, "kernel arguments must be scalars or pointers")
        self._lower_block(self.entry)
        self._erase_blocks()
        _fuse_sibling_loops(self.entry)

    def _lower_block(self, block: Block) -> None:
        for op in list(block.ops):
            self._lower_op(op)

    def _lower_op(self, op: Operation) -> None:
        here = _Builder(op.parent_block(), op)  # type: ignore[arg-type]
        if isinstance(op, scf.ForOp) and any(_is_block(v) for v in op.iter_args):
            self._lower_for(op)
            return
        if isinstance(op, scf.IfOp) and any(_is_block(r) for r in op.results):
            self._lower_if(op)
            return
        if isinstance(op, scf.WhileOp) and any(_is_block(v) for v in op.arguments):
            self._lower_while(op)
            return
        if op.regions:
            if any(_is_block(r) for r in op.results):
                raise error_at(op, f"'{op.name}' with block results is not supported yet")
            for region in op.regions:
                for block in region.blocks:
                    self._lower_block(block)
        if isinstance(op, blk.StoreOp) and _is_block(op.ptr):
            self._lower_store(op, here)
        elif isinstance(op, blk.ReduceOp):
            self._lower_reduce(op, here)
        elif isinstance(op, blk.ScanOp):
            self._lower_scan(op, here)
        elif isinstance(op, blk.DotOp):
            self._lower_dot(op, here)
        elif isinstance(op, blk.AtomicRMWOp | blk.AtomicCASOp) and _is_block(op.ptr):
            self._lower_atomic(op, here)
        elif isinstance(op, blk.PrintOp) and any(_is_block(a) for a in op.args):
            self._lower_print(op, here)
        elif isinstance(op, blk.AssertOp) and _is_block(op.cond):
            self._lower_assert(op, here)
        elif isinstance(op, func.ReturnOp) and any(_is_block(a) for a in op.operands):
            raise error_at(op, "kernels cannot return blocks; store them instead")
        elif op.results and op.results[0] in self.materialized:
            value = op.results[0]
            self._materialize(value, here)

    # -- helpers -----------------------------------------------------------------------

    def const(self, value: int, type_: Attribute | None = None) -> SSAValue:
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

    def alloca(self, shape: Sequence[int], elem: Attribute) -> SSAValue:
        op = memref.AllocaOp.get(elem, alignment=64, shape=list(shape))
        first = self.entry.first_op
        assert first is not None
        self.entry.insert_op_before(op, first)
        return op.memref

    def loop_nest(
        self,
        builder: _Builder,
        shape: Sequence[int],
        body: Callable[[_Body, Index, list[SSAValue]], list[SSAValue]],
        inits: Sequence[SSAValue] = (),
    ) -> list[SSAValue]:
        """Nested `scf.for` loops over `shape`; `body` gets the indices and carried values
        and returns the next carried values. Returns the final carried values."""
        ivs: Index = []

        def level(b: _Builder, depth: int, carried: list[SSAValue]) -> list[SSAValue]:
            if depth == len(shape):
                return body(_Body(b), list(ivs), carried)
            block = Block(arg_types=[IndexType(), *(c.type for c in carried)])
            inner = _Builder(block)
            ivs.append(block.args[0])
            results = level(inner, depth + 1, list(block.args[1:]))
            ivs.pop()
            inner.insert(scf.YieldOp(*results))
            loop = scf.ForOp(self.const(0), self.const(shape[depth]), self.const(1), carried, block)
            b.insert(loop)
            return list(loop.results)

        return level(builder, 0, list(inits))

    def _materialize(self, value: SSAValue, here: _Builder) -> None:
        buffer = self.alloca(shape_of(value.type), _elem(value))
        self.buffers[value] = buffer

        def body(b: _Body, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            element = self._element_of_owner(value, idx, b)
            b.builder.insert(memref.StoreOp.get(element, buffer, idx))
            return []

        self.loop_nest(here, shape_of(value.type), body)

    def _ensure_buffer(self, value: SSAValue, here: _Builder) -> SSAValue:
        if value not in self.buffers:
            self._materialize(value, here)
        return self.buffers[value]

    # -- elements ----------------------------------------------------------------------

    def element(self, value: SSAValue, idx: Index, body: _Body) -> SSAValue:
        """The element of block `value` at `idx`, computed in `body`."""
        if not _is_block(value):
            return value
        key = (id(value), tuple(id(i) for i in idx))
        if key in body.memo:
            return body.memo[key]
        if value in self.buffers:
            result = self._read_buffer(value, idx, body)
        else:
            result = self._element_of_owner(value, idx, body)
        body.memo[key] = result
        return result

    def _read_buffer(self, value: SSAValue, idx: Index, body: _Body) -> SSAValue:
        b = body.builder
        loaded = b.value(memref.LoadOp.get(self.buffers[value], idx))
        op = value.owner
        if not _is_int_mod(op) or any(self._expensive_value(o) for o in op.operands):
            return loaded
        # x % m is x where 0 <= x < m (either rounding): saying so lets the code generator
        # prove it over a whole loop nest (access_ranges) and use x, affine, in its place.
        x, m = self.element(op.lhs, idx, body), self.element(op.rhs, idx, body)
        inside = b.value(blk.CmpOp("lt", x, m, i1))
        elem = _elem(value)
        if dtypes.from_xdsl(elem).signed:
            zero = self.scalar_constant(0, elem)
            inside = b.value(blk.AndOp(b.value(blk.CmpOp("ge", x, zero, i1)), inside, i1))
        return b.value(blk.WhereOp(inside, x, loaded, elem))

    def _element_of_owner(self, value: SSAValue, idx: Index, body: _Body) -> SSAValue:
        op = value.owner
        b = body.builder
        if isinstance(value, BlockArgument) or not isinstance(op, Operation):
            raise AssertionError(f"block argument {value} has no buffer")
        scalar = _elem(value)
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
        if isinstance(op, blk.ArangeOp):
            position = b.value(arith.IndexCastOp(idx[0], i32))
            start = op.start.value.data
            if start == 0:
                return position
            return b.value(blk.AddOp(position, self.const(start, i32), i32))
        if isinstance(op, blk.ConstantOp):
            attr = op.value
            assert isinstance(attr, DenseIntOrFPElementsAttr) and attr.is_splat()
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

    def _reshape_index(self, op: blk.ReshapeOp, idx: Index, b: _Builder) -> Index:
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

    @staticmethod
    def _index_op(cls: type, lhs: SSAValue, rhs: SSAValue, b: _Builder) -> SSAValue:
        return b.value(cls(lhs, rhs))

    # -- sinks -------------------------------------------------------------------------

    def _lower_store(self, op: blk.StoreOp, here: _Builder) -> None:
        def body(b: _Body, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            ptr = self.element(op.ptr, idx, b)
            value = self.element(op.value, idx, b)
            mask = self.element(op.mask, idx, b) if op.mask is not None else None
            store = blk.StoreOp(ptr, value, mask)
            store.location = op.location
            b.builder.insert(store)
            return []

        self.loop_nest(here, shape_of(op.ptr.type), body)
        op.detach()
        op.erase()

    def _lower_atomic(self, op: blk.AtomicRMWOp | blk.AtomicCASOp, here: _Builder) -> None:
        shape = shape_of(op.ptr.type)
        buffer = self.alloca(shape, _elem(op.result))
        self.buffers[op.result] = buffer

        def body(b: _Body, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            operands = [self.element(o, idx, b) for o in op.operands]
            sizes = {}
            if isinstance(op, blk.AtomicRMWOp):
                sizes = {"operandSegmentSizes": op.properties["operandSegmentSizes"]}
            clone = type(op).create(
                operands=operands,
                result_types=[_elem(op.result)],
                properties={**dict(op.properties), **sizes},
            )
            clone.location = op.location
            old = b.builder.value(clone)
            b.builder.insert(memref.StoreOp.get(old, buffer, idx))
            return []

        self.loop_nest(here, shape, body)

    def _lower_print(self, op: blk.PrintOp, here: _Builder) -> None:
        for arg in op.args:
            if not _is_block(arg):
                continue

            def body(
                b: _Body, idx: Index, carried: list[SSAValue], arg: SSAValue = arg
            ) -> list[SSAValue]:
                # The indices print as i64: blk.print takes blk values only.
                where = [b.builder.value(arith.IndexCastOp(i, i64)) for i in idx]
                printed = blk.PrintOp(op.prefix.data, [*where, self.element(arg, idx, b)])
                printed.location = op.location
                b.builder.insert(printed)
                return []

            self.loop_nest(here, shape_of(arg.type), body)
        op.detach()
        op.erase()

    def _lower_assert(self, op: blk.AssertOp, here: _Builder) -> None:
        def body(b: _Body, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            check = blk.AssertOp(self.element(op.cond, idx, b), op.message.data)
            check.location = op.location
            b.builder.insert(check)
            return []

        self.loop_nest(here, shape_of(op.cond.type), body)
        op.detach()
        op.erase()

    # -- reductions --------------------------------------------------------------------

    def _lower_reduce(self, op: blk.ReduceOp, here: _Builder) -> None:
        kind = op.kind.data
        src_shape = list(shape_of(op.src.type))
        axes = list(range(len(src_shape))) if op.axis is None else [op.axis.value.data]
        outer = [d for d in range(len(src_shape)) if d not in axes]
        src_elem = _elem(op.src)
        acc_elem = op.acc_dtype if op.acc_dtype is not None else src_elem
        if kind in (blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN):
            acc_elem = src_elem
        result_elem = _elem(op.result)

        def reduce_in(b: _Builder, out_idx: Index, nan: blk.Nan) -> list[SSAValue]:
            inits = self._reduce_init(kind, acc_elem, nan)
            if kind in (blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN):
                inits = [inits[0], self.const(0, i32)]

            def inner(ib: _Body, red_idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                full: Index = [self.const(0)] * len(src_shape)
                for d, i in zip(outer, out_idx, strict=True):
                    full[d] = i
                for d, i in zip(axes, red_idx, strict=True):
                    full[d] = i
                x = self.element(op.src, full, ib)
                position = self._linear_i32(red_idx, [src_shape[d] for d in axes], ib)
                return self._combine(kind, carried, x, acc_elem, position, ib.builder, nan)

            return self.loop_nest(b, [src_shape[d] for d in axes], inner, inits)

        def reduce_over(b: _Body, out_idx: Index) -> list[SSAValue]:
            nan = blk.nan_of(op)
            extremum = kind in (blk.ReduceKind.MAX, blk.ReduceKind.MIN)
            if nan is blk.Nan.NUM and extremum and dtypes.from_xdsl(acc_elem).is_float:
                return _skipping_nan(b.builder, lambda mode, at: reduce_in(at, out_idx, mode))
            return reduce_in(b.builder, out_idx, nan)

        if not outer:
            final = reduce_over(_Body(here), [])
            value = final[1] if kind in (blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN) else final[0]
            value = self._cast(value, result_elem, here)
            op.result.replace_all_uses_with(value)
            op.detach()
            op.erase()
            return
        buffer = self.alloca([src_shape[d] for d in outer], result_elem)
        self.buffers[op.result] = buffer

        def body(b: _Body, out_idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            final = reduce_over(b, out_idx)
            value = final[1] if kind in (blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN) else final[0]
            b.builder.insert(
                memref.StoreOp.get(self._cast(value, result_elem, b.builder), buffer, out_idx)
            )
            return []

        self.loop_nest(here, [src_shape[d] for d in outer], body)

    def _linear_i32(self, idx: Index, shape: Sequence[int], b: _Body) -> SSAValue:
        linear: SSAValue | None = None
        for size, i in zip(shape, idx, strict=True):
            if linear is None:
                linear = i
            else:
                scaled = b.builder.value(arith.MuliOp(linear, self.const(size)))
                linear = b.builder.value(arith.AddiOp(scaled, i))
        assert linear is not None
        return b.builder.value(arith.IndexCastOp(linear, i32))

    def _reduce_init(
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

    def _combine(
        self,
        kind: blk.ReduceKind,
        carried: list[SSAValue],
        x: SSAValue,
        acc_elem: Attribute,
        position: SSAValue,
        b: _Builder,
        nan: blk.Nan = blk.Nan.PROPAGATE,
    ) -> list[SSAValue]:
        x = self._cast(x, acc_elem, b)
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

    def _cast(self, value: SSAValue, elem: Attribute, b: _Builder) -> SSAValue:
        if value.type == elem:
            return value
        return b.value(blk.CastOp(value, elem))

    def _lower_scan(self, op: blk.ScanOp, here: _Builder) -> None:
        shape = list(shape_of(op.src.type))
        axis = op.axis.value.data
        acc_elem = op.acc_dtype if op.acc_dtype is not None else _elem(op.src)
        result_elem = _elem(op.result)
        buffer = self.alloca(shape, result_elem)
        self.buffers[op.result] = buffer
        outer = [d for d in range(len(shape)) if d != axis]
        kind = op.kind.data

        def body(b: _Body, out_idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            def inner(ib: _Body, red_idx: Index, acc: list[SSAValue]) -> list[SSAValue]:
                full: Index = [self.const(0)] * len(shape)
                for d, i in zip(outer, out_idx, strict=True):
                    full[d] = i
                full[axis] = red_idx[0]
                x = self.element(op.src, full, ib)
                (new,) = self._combine(
                    kind, acc, x, acc_elem, self.const(0, i32), ib.builder, blk.nan_of(op)
                )
                ib.builder.insert(
                    memref.StoreOp.get(self._cast(new, result_elem, ib.builder), buffer, full)
                )
                return [new]

            inits = self._reduce_init(kind, acc_elem, blk.nan_of(op))
            self.loop_nest(b.builder, [shape[axis]], inner, inits)
            return []

        self.loop_nest(here, [shape[d] for d in outer], body)

    def _lower_dot(self, op: blk.DotOp, here: _Builder) -> None:
        a = self._ensure_buffer(op.lhs, here)
        b_buf = self._ensure_buffer(op.rhs, here)
        lhs_shape, rhs_shape = shape_of(op.lhs.type), shape_of(op.rhs.type)
        out_shape = shape_of(op.result.type)
        acc_elem = op.acc_dtype if op.acc_dtype is not None else _elem(op.result)
        if self._accumulates_in_place(op, acc_elem):
            acc_buffer = self.buffers[op.acc]  # type: ignore[index]
        else:
            acc_buffer = self.alloca(out_shape, acc_elem)

            def init(bd: _Body, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                if op.acc is not None:
                    value = self._cast(self.element(op.acc, idx, bd), acc_elem, bd.builder)
                else:
                    value = self.scalar_constant(0, acc_elem)
                bd.builder.insert(memref.StoreOp.get(value, acc_buffer, idx))
                return []

            self.loop_nest(here, out_shape, init)
        batch = list(out_shape[:-2])
        m, k, n = lhs_shape[-2], lhs_shape[-1], rhs_shape[-1]
        rows = next(r for r in _TILE_ROWS if m % r == 0)
        cols = next(c for c in _TILE_COLS if n % c == 0)
        fused = dtypes.from_xdsl(acc_elem).name in ("float32", "float64")

        def tile(bd: _Body, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            # A rows x cols tile of the result stays in registers (carried scalars, which
            # LLVM's SLP vectorizer packs along the columns) across the whole k loop.
            *bi, ti, tj = idx
            builder = bd.builder
            row0 = builder.value(arith.MuliOp(ti, self.const(rows)))
            col0 = builder.value(arith.MuliOp(tj, self.const(cols)))
            ms = [row0] + [builder.value(arith.AddiOp(row0, self.const(i))) for i in range(1, rows)]
            ns = [col0] + [builder.value(arith.AddiOp(col0, self.const(j))) for j in range(1, cols)]
            places = [[*bi, mi, ni] for mi in ms for ni in ns]
            inits = [builder.value(memref.LoadOp.get(acc_buffer, p)) for p in places]
            block = Block(arg_types=[IndexType(), *(v.type for v in inits)])
            inner = _Builder(block)
            ki = block.args[0]
            xs = [
                self._cast(inner.value(memref.LoadOp.get(a, [*bi, mi, ki])), acc_elem, inner)
                for mi in ms
            ]
            ys = [
                self._cast(inner.value(memref.LoadOp.get(b_buf, [*bi, ki, ni])), acc_elem, inner)
                for ni in ns
            ]
            sums = []
            for (x, y), old in zip(((x, y) for x in xs for y in ys), block.args[1:], strict=True):
                if fused:  # one rounding per step, as BLAS and Triton's dot do
                    sums.append(inner.value(blk.FmaOp(x, y, old, acc_elem)))
                else:
                    product = inner.value(blk.MulOp(x, y, acc_elem))
                    sums.append(inner.value(blk.AddOp(old, product, acc_elem)))
            inner.insert(scf.YieldOp(*sums))
            loop = builder.insert(
                scf.ForOp(self.const(0), self.const(k), self.const(1), inits, block)
            )
            for value, p in zip(loop.results, places, strict=True):
                builder.insert(memref.StoreOp.get(value, acc_buffer, p))
            return []

        self.loop_nest(here, [*batch, m // rows, n // cols], tile)
        if acc_elem == _elem(op.result):
            self.buffers[op.result] = acc_buffer
        else:
            result = self.alloca(out_shape, _elem(op.result))

            def convert(bd: _Body, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                value = bd.builder.value(memref.LoadOp.get(acc_buffer, idx))
                bd.builder.insert(
                    memref.StoreOp.get(self._cast(value, _elem(op.result), bd.builder), result, idx)
                )
                return []

            self.loop_nest(here, out_shape, convert)
            self.buffers[op.result] = result

    def _accumulates_in_place(self, op: blk.DotOp, acc_elem: Attribute) -> bool:
        """Whether `dot` may add into the buffer of its `acc`: a block carried by the loop
        around it (`scf.for`, or `scf.while`, whose condition passes it on unchanged) that
        only this dot reads and whose result the loop carries on (the K loop of a matmul),
        so no copy in or out of the accumulator."""
        acc = op.acc
        if not isinstance(acc, BlockArgument) or acc not in self.buffers:
            return False
        acc_uses, result_uses = list(acc.uses), list(op.result.uses)
        if len(acc_uses) != 1 or len(result_uses) != 1 or _elem(acc) != acc_elem:
            return False
        (use,) = result_uses
        # The yield feeds the argument back: a for loop's arguments start with its index.
        first_carried = 1 if isinstance(acc.block.parent_op(), scf.ForOp) else 0
        return (
            isinstance(use.operation, scf.YieldOp)
            and use.operation.parent_block() is op.parent_block()
            and use.index == acc.index - first_carried
            and acc_elem == _elem(op.result)
        )

    # -- loops carrying blocks -----------------------------------------------------------

    def _lower_for(self, op: scf.ForOp) -> None:
        here = _Builder(op.parent_block(), op)  # type: ignore[arg-type]
        old_block = op.body.block
        carried_blocks = [i for i, v in enumerate(op.iter_args) if _is_block(v)]
        buffers: dict[int, SSAValue] = {}
        for i in carried_blocks:
            init = op.iter_args[i]
            buffer = self.alloca(shape_of(init.type), _elem(init))
            buffers[i] = buffer
            self._copy_into(init, buffer, here)
            self.buffers[old_block.args[i + 1]] = buffer
        scalar_positions = [i for i in range(len(op.iter_args)) if i not in buffers]
        new_block = Block(
            arg_types=[old_block.args[0].type, *(op.iter_args[i].type for i in scalar_positions)]
        )
        old_block.args[0].replace_all_uses_with(new_block.args[0])
        for new_arg, i in zip(new_block.args[1:], scalar_positions, strict=True):
            old_block.args[i + 1].replace_all_uses_with(new_arg)
        for inner in list(old_block.ops):
            inner.detach()
            new_block.add_op(inner)
        yield_op = new_block.last_op
        assert isinstance(yield_op, scf.YieldOp)
        self._lower_block_until(new_block, yield_op)
        yield_here = _Builder(new_block, yield_op)
        for i, buffer in buffers.items():
            self._copy_into(yield_op.operands[i], buffer, yield_here, temporary=True)
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

    def _lower_if(self, op: scf.IfOp) -> None:
        """Block results of an `scf.if` live in buffers that each branch fills."""
        here = _Builder(op.parent_block(), op)  # type: ignore[arg-type]
        buffers = {
            i: self.alloca(shape_of(r.type), _elem(r))
            for i, r in enumerate(op.results)
            if _is_block(r)
        }
        scalar_positions = [i for i in range(len(op.results)) if i not in buffers]
        blocks = []
        for region in (op.true_region, op.false_region):
            block = region.blocks[0]
            yield_op = block.last_op
            assert isinstance(yield_op, scf.YieldOp)
            self._lower_block_until(block, yield_op)
            yield_here = _Builder(block, yield_op)
            for i, buffer in buffers.items():
                self._copy_into(yield_op.operands[i], buffer, yield_here)
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
        here = _Builder(op.parent_block(), op)  # type: ignore[arg-type]
        before, after = op.before_region.blocks[0], op.after_region.blocks[0]
        condition = before.last_op
        assert isinstance(condition, scf.ConditionOp)
        buffers: dict[int, SSAValue] = {}
        for i, init in enumerate(op.arguments):
            if not _is_block(init):
                continue
            if condition.args[i] is not before.args[i]:
                raise error_at(op, "a while loop must pass its carried blocks on unchanged")
            buffer = self.alloca(shape_of(init.type), _elem(init))
            self._copy_into(init, buffer, here)
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
        yield_here = _Builder(new_after, yield_op)
        for i, buffer in buffers.items():
            self._copy_into(yield_op.operands[i], buffer, yield_here, temporary=True)
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
            self._lower_op(op)

    def _copy_into(
        self, value: SSAValue, buffer: SSAValue, here: _Builder, temporary: bool = False
    ) -> None:
        shape = shape_of(value.type)
        source = value
        if temporary and value not in self.buffers:
            self._materialize(value, here)
        if temporary:
            source_buffer = self.buffers[value]
            if source_buffer is buffer:
                return  # computed in place (a dot accumulating into its loop's buffer)

            def copy(b: _Body, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                element = b.builder.value(memref.LoadOp.get(source_buffer, idx))
                b.builder.insert(memref.StoreOp.get(element, buffer, idx))
                return []

            self.loop_nest(here, shape, copy)
            return

        def fill(b: _Body, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            b.builder.insert(memref.StoreOp.get(self.element(source, idx, b), buffer, idx))
            return []

        self.loop_nest(here, shape, fill)

    # -- clean-up ----------------------------------------------------------------------

    def _erase_blocks(self) -> None:
        doomed = [
            op
            for op in self.function.walk()
            if op is not self.function
            and (any(_is_block(r) for r in op.results) or any(_is_block(o) for o in op.operands))
        ]
        for op in reversed(doomed):
            for result in op.results:
                if result.uses:
                    users = ", ".join(sorted({u.operation.name for u in result.uses}))
                    raise error_at(op, f"internal error: {op.name} still used by {users}")
            op.detach()
            op.erase()


def _skipping_nan(
    here: _Builder, reduce: Callable[[blk.Nan, _Builder], list[SSAValue]]
) -> list[SSAValue]:
    """A float max or min reduction that skips NaN (`reduce` builds the loop for a mode):
    LLVM vectorizes loops reducing with `llvm.maximum`, which propagates NaN, but not all
    those reducing with `llvm.maxnum` (not one that also stores a loaded row, as softmax's
    does). So reduce propagating NaN, and again skipping it only where that gave NaN; on
    other inputs both agree."""
    (fast,) = reduce(blk.Nan.PROPAGATE, here)
    found_nan = here.value(blk.CmpOp("ne", fast, fast, i1))
    again, keep = Block(), Block()
    (slow,) = reduce(blk.Nan.NUM, _Builder(again))
    again.add_op(scf.YieldOp(slow))
    keep.add_op(scf.YieldOp(fast))
    return list(here.insert(scf.IfOp(found_nan, [fast.type], [again], [keep])).results)


# ------------------------------------------------------------------------------------
# Fusing sibling loops
# ------------------------------------------------------------------------------------


def _fuse_sibling_loops(block: Block) -> None:
    """Merge each loop with the next one in `block` (and inside their bodies) when both run
    over the same range and the second needs, of the first, only what the same iteration
    computed: one pass over a row instead of several (softmax's load with its maximum,
    its exponentials with their sum)."""
    op = block.first_op
    while op is not None:
        following = op.next_op
        while isinstance(following, arith.ConstantOp | blk.ConstantOp):
            following = following.next_op  # constants between the loops move before both
        if isinstance(op, scf.ForOp) and isinstance(following, scf.ForOp):
            if _fusable(op, following):
                op = _fuse(op, following)
                continue
        for region in op.regions:
            for inner in region.blocks:
                _fuse_sibling_loops(inner)
        op = op.next_op


@dataclass
class _Effects:
    """What a loop does to memory."""

    reads_arrays: bool = False
    writes_arrays: bool = False
    ordered: bool = False
    """It prints or asserts (its output order must stay)."""
    buffers: dict[SSAValue, list[tuple[bool, Sequence[SSAValue]]]] = field(default_factory=dict)
    """Each stack buffer it accesses: (is a write, indices) per access."""


def _effects(loop: scf.ForOp) -> _Effects:
    effects = _Effects()
    for op in loop.walk():
        if isinstance(op, blk.LoadOp):
            effects.reads_arrays = True
        elif isinstance(op, _WRITES_MEMORY):
            effects.writes_arrays = True
        elif isinstance(op, blk.PrintOp | blk.AssertOp):
            effects.ordered = True
        elif isinstance(op, memref.LoadOp | memref.StoreOp):
            write = isinstance(op, memref.StoreOp)
            effects.buffers.setdefault(op.memref, []).append((write, list(op.indices)))
    return effects


def _fusable(first: scf.ForOp, second: scf.ForOp) -> bool:
    if (first.lb, first.ub, first.step) != (second.lb, second.ub, second.step):
        return False
    results = set(first.results)
    if any(o in results for op in second.walk() for o in op.operands):
        return False
    a, b = _effects(first), _effects(second)
    if a.ordered or b.ordered:
        return False
    if (a.writes_arrays and (b.reads_arrays or b.writes_arrays)) or (
        b.writes_arrays and a.reads_arrays
    ):
        return False
    ivs = (first.body.blocks[0].args[0], second.body.blocks[0].args[0])
    for buffer in a.buffers.keys() & b.buffers.keys():
        accesses = [(a.buffers[buffer], ivs[0]), (b.buffers[buffer], ivs[1])]
        if not any(write for group, _ in accesses for write, _ in group):
            continue
        # Iteration i of each loop must touch only its own slice buffer[i, ...].
        if any(not idx or idx[0] is not iv for group, iv in accesses for _, idx in group):
            return False
    return True


def _fuse(first: scf.ForOp, second: scf.ForOp) -> scf.ForOp:
    carried = [*first.iter_args, *second.iter_args]
    block = Block(arg_types=[first.body.blocks[0].args[0].type, *(v.type for v in carried)])
    yielded: list[SSAValue] = []
    new_args = iter(block.args[1:])
    for loop in (first, second):
        body = loop.body.blocks[0]
        body.args[0].replace_all_uses_with(block.args[0])
        for arg in body.args[1:]:
            arg.replace_all_uses_with(next(new_args))
        terminator = body.last_op
        assert isinstance(terminator, scf.YieldOp)
        yielded.extend(terminator.operands)
        terminator.detach()
        terminator.erase()
        for op in list(body.ops):
            op.detach()
            block.add_op(op)
    block.add_op(scf.YieldOp(*yielded))
    parent = first.parent_block()
    assert parent is not None
    constant = first.next_op
    while constant is not second:
        assert constant is not None
        moved, constant = constant, constant.next_op
        moved.detach()
        parent.insert_op_before(moved, first)
    fused = scf.ForOp(first.lb, first.ub, first.step, carried, block)
    fused.location = first.location
    parent.insert_op_before(fused, first)
    old_results = [*first.results, *second.results]
    for old, new in zip(old_results, fused.results, strict=True):
        old.replace_all_uses_with(new)
    for loop in (first, second):
        loop.detach()
        loop.erase()
    return fused
