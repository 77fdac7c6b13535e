"""Which block values a lowering to loops fuses and which it materializes.

A fused value's element is recomputed in the loops of the ops that use it, from its
operands' elements; a materialized one is computed once, by a loop nest of its own, into a
buffer its users read. `convert-blk-to-loops` and `convert-blk-to-simt` both follow this
plan; the former's docstring gives the rules and why they hold.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from blkc import dtypes
from blkc.dialects import blk
from blkc.dialects.types import element_type
from blkc.passes.axis_info import AxisInfoAnalysis
from blkc.passes.pointer_analysis import Overlap, PointerAnalysis

_EXPENSIVE = (
    blk.LoadOp,
    blk.MathOp,
    blk.MathFn2Op,
    blk.TrueDivOp,
    blk.FloorDivOp,
    blk.ModOp,
    blk.ReduceOp,
    blk.ScanOp,
    blk.ReduceRegionOp,
    blk.ScanRegionOp,
    blk.SortOp,
    blk.BitonicMergeOp,
    blk.DotOp,
    blk.AtomicRMWOp,
    blk.AtomicCASOp,
)
_ALWAYS_MATERIALIZED = (
    blk.ReduceOp,
    blk.ScanOp,
    blk.ReduceRegionOp,
    blk.ScanRegionOp,
    blk.SortOp,
    blk.BitonicMergeOp,
    blk.DotOp,
    blk.AtomicRMWOp,
    blk.AtomicCASOp,
    scf.ForOp,
    scf.IfOp,
    scf.WhileOp,
)
_REREADS = (blk.ElementwiseOp, blk.CastOp, blk.ReduceOp, blk.ReduceRegionOp, blk.StoreOp)
"""The users that a load with several users fuses into, each reading the load's elements
where it reads its own (one pass over the block, in its own loop nest)."""
WRITES_MEMORY = (blk.StoreOp, blk.AtomicRMWOp, blk.AtomicCASOp)
"""The ops that write memory."""
_PER_ELEMENT = (blk.ElementwiseOp, blk.CastOp, blk.BitcastOp)
"""Ops whose element i is computed from their operands' elements i."""


def is_block(value: SSAValue) -> bool:
    """Whether `value` is a block (a tensor), not a scalar."""
    return isinstance(value.type, TensorType)


def elem_type(value: SSAValue) -> Attribute:
    """The type of the elements of block `value`."""
    return element_type(value.type)


def is_splat_constant(op: object) -> bool:
    """Whether `op` is a block constant of one value everywhere."""
    return (
        isinstance(op, blk.ConstantOp)
        and isinstance(op.value, DenseIntOrFPElementsAttr)
        and blk.is_splat(op.value)
    )


def is_int_mod(op: object) -> bool:
    """Whether `op` is an integer `%`."""
    return isinstance(op, blk.ModOp) and dtypes.from_xdsl(elem_type(op.result)).is_int


class FusionPlan:
    """The block values of `function` to materialize (`materialized`); the others fuse.

    With `disjoint_args`, accesses through different pointer arguments are taken not to
    overlap (what the launcher checks before it runs the `noalias` variant). With
    `rereads`, a load with several users fuses into each where they all read it again in
    their own loops (a CPU's cache serves the second read; a GPU thread keeps the block in
    registers instead)."""

    def __init__(self, function: func.FuncOp, disjoint_args: bool = False, rereads: bool = False):
        self.function = function
        self.disjoint_args = disjoint_args
        self.rereads = rereads
        self.relies_on_disjoint_args = False
        """Whether some decision held only because arguments are disjoint."""
        self._expensive: dict[SSAValue, bool] = {}
        self.materialized: set[SSAValue] = set()
        self._axis: AxisInfoAnalysis | None = None
        entry = function.body.blocks[0]
        self.pointers = PointerAnalysis(entry, self.materialized.__contains__, self.axis_info)
        self._analyse()

    def axis_info(self) -> AxisInfoAnalysis:
        """The function's axis information (computed on first use, before lowering)."""
        if self._axis is None:
            self._axis = AxisInfoAnalysis(self.function)
        return self._axis

    def expensive(self, value: SSAValue) -> bool:
        """Whether computing `value` loads, divides or calls a math function (through
        operands that are not materialized)."""
        if value in self._expensive:
            return self._expensive[value]
        owner = value.owner
        result = False
        if isinstance(owner, Operation) and not isinstance(owner, _ALWAYS_MATERIALIZED):
            # A materialized operand costs a read of its buffer: recomputing from it is
            # cheaper than storing another buffer (layer-norm's x - mean).
            result = isinstance(owner, _EXPENSIVE) or any(
                o not in self.materialized and self.expensive(o)
                for o in owner.operands
                if is_block(o)
            )
        self._expensive[value] = result
        return result

    def _analyse(self) -> None:
        """Choose the values to materialize, in program order (operands first), then the
        loads a write in the loop nest they would fuse into could overwrite."""
        for op in self.function.walk():
            for value in op.results:
                if is_block(value) and self._must_materialize(op, value):
                    self.materialized.add(value)
        for op in self.function.walk():
            if (
                isinstance(op, blk.LoadOp)
                and op.result not in self.materialized
                and is_block(op.result)
                and self.may_clobber(
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
                if isinstance(user, WRITES_MEMORY):
                    yield user, same_element
                elif (user, same_element) not in seen:
                    seen.add((user, same_element))
                    follows = same_element and isinstance(user, _PER_ELEMENT)
                    pending.extend(
                        (r, follows)
                        for r in user.results
                        if is_block(r) and r not in self.materialized
                    )

    def may_clobber(self, accesses: Iterable[tuple[Overlap, bool]]) -> bool:
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
            return not is_splat_constant(op)
        users = {use.operation for use in value.uses}
        other_region = any(u.parent_block() is not op.parent_block() for u in users)
        if isinstance(op, blk.LoadOp):
            if other_region or self._write_before_last_use(op, value):
                return True
            # Each user re-reads a load it fuses into: as many reads as from a buffer, and
            # no copy into one (softmax's row, read by its max and then by `x - max`).
            return len(users) > 1 and not (
                self.rereads and all(isinstance(u, _REREADS) for u in users)
            )
        if not self.expensive(value):
            return False
        if any(isinstance(u, blk.GatherOp) and u.src == value for u in users):
            return True  # a gather reads it at other positions, maybe several times
        if is_int_mod(op) and self._flows_into_other_region(value):
            # Triton's `offs % M` inside a pointer block used in a K loop: a buffer of the
            # (small) remainders, read as `x` where 0 <= x < m (see `block_lowering`), keeps
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
                    pending.extend(r for r in user.results if is_block(r))
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
                pending.extend(r for r in user.results if is_block(r))
        return last is not None and self._write_between(load, last)

    @staticmethod
    def _write_between(producer: Operation, user: Operation) -> bool:
        current = producer.next_op
        while current is not None and current is not user:
            if isinstance(current, WRITES_MEMORY) or any(
                isinstance(n, WRITES_MEMORY) for n in current.walk()
            ):
                return True
            current = current.next_op
        return False
