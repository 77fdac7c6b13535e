"""What is known of a block's values along its last dimension: Triton's AxisInfo, for the
dimension the GPU lowering cuts into per-thread chunks.

Each block value (and scalar: a scalar is a block constant along every dimension) gets
three powers of two, about the aligned *groups* of a row (positions `g*m ... g*m + g-1`
of the last dimension):

- `contiguity` c: in each group of c, element j is the group's first plus j (pointers:
  plus j elements), modulo the integer's width;
- `constancy` k: in each group of k, every element equals the group's first;
- `divisibility` d: the first element of each group of c is a multiple of d (pointers:
  an address aligned to d bytes); with c = 1, every element is.

The convert-blk-to-simt pass asks whether a thread's chunk of `vec` elements is one
contiguous, aligned run (one vector access) and whether its mask is the same for the whole
chunk (one predicate). What it knows comes from the IR: `arange`, splats, `pid * BLOCK`
(constants' divisibility), loop induction variables, pointer arguments (16-byte aligned,
as the GPU launch checks), and hints, as Triton takes them:

- an argument attribute `blk.divisibility = 16` (what Triton's launcher specializes an
  integer divisible by 16 into, or C's `__multipleof(16)`);
- `blk.contiguity`, `blk.constancy`, `blk.divisibility` attributes on the op defining a
  value (`tl.max_contiguous`, `tl.max_constancy`, `tl.multiple_of`): an integer, or an
  array whose last entry is the last dimension's.

Contiguity is modular, so `i32` offsets may wrap inside a group; a group is known not to
wrap when its first element is divisible by its size (a multiple of a power of two cannot
be within the group's size below 2**31 or 2**32). Addresses and sign extension need that,
so `addptr` and integer casts keep only the contiguity that cannot wrap.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Operation, SSAValue

from blkc import dtypes
from blkc.dialects import blk
from blkc.dialects.types import PtrType, element_type, shape_of

UNBOUNDED = 1 << 30
"""Standing for "any power of two": the constancy of a scalar, the divisibility of 0."""
POINTER_ALIGNMENT = 16
"""Bytes every pointer argument is aligned to (the GPU launch refuses others)."""
HINTS = ("blk.contiguity", "blk.constancy", "blk.divisibility")


@dataclass(frozen=True)
class AxisInfo:
    """Contiguity, constancy and divisibility along the last dimension (see the module)."""

    contiguity: int = 1
    constancy: int = 1
    divisibility: int = 1

    def divisibility_at(self, g: int) -> int:
        """Divisibility of the elements at positions that are multiples of `g`."""
        return self.divisibility if g >= self.contiguity else min(self.divisibility, g)

    @property
    def unwrapped_contiguity(self) -> int:
        """The contiguity of groups that cannot wrap around the integer's range."""
        return min(self.contiguity, self.divisibility)


def power_of_two_divisor(n: int) -> int:
    """The largest power of two dividing `n` (at most `UNBOUNDED`; 0: `UNBOUNDED`)."""
    return UNBOUNDED if n == 0 else min(n & -n, UNBOUNDED)


def _row(value: SSAValue) -> int:
    """The largest group size a row of `value` tiles: the power-of-two part of its last
    dimension (unbounded for scalars)."""
    shape = shape_of(value.type)
    return power_of_two_divisor(shape[-1]) if shape else UNBOUNDED


def _integral(value: SSAValue) -> bool:
    t = element_type(value.type)
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data > 1)


def _is_one(value: SSAValue) -> bool:
    """Whether every element of `value` is the integer 1 (a constant, or a splat,
    broadcast or expansion of one)."""
    while isinstance(value.owner, blk.SplatOp | blk.BroadcastOp | blk.ExpandDimsOp):
        value = value.owner.src
    owner = value.owner
    if not isinstance(owner, blk.ConstantOp | arith.ConstantOp):
        return False
    attr = owner.value
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return blk.is_splat(attr) and attr.get_values()[0] == 1 and _integral(value)
    return isinstance(attr, IntegerAttr) and _integral(value) and attr.value.data == 1


def _hint(op: Operation, name: str) -> int:
    attr = op.attributes.get(name)
    if isinstance(attr, IntegerAttr):
        return power_of_two_divisor(attr.value.data)
    if isinstance(attr, DenseArrayBase):
        values = attr.get_values()
        return power_of_two_divisor(int(values[-1])) if values else 1
    return 1


class AxisInfoAnalysis:
    """Axis information for every value of `function`, computed in program order."""

    def __init__(self, function: func.FuncOp):
        self._info: dict[SSAValue, AxisInfo] = {}
        block = function.body.blocks[0]
        arg_attrs = function.arg_attrs.data if function.arg_attrs is not None else ()
        for index, arg in enumerate(block.args):
            hint = 1
            if index < len(arg_attrs):
                attr = arg_attrs[index].data.get(blk.DIVISIBILITY_ATTR)
                if isinstance(attr, IntegerAttr):
                    hint = power_of_two_divisor(attr.value.data)
            if isinstance(arg.type, PtrType):
                hint = max(hint, POINTER_ALIGNMENT)
            self._info[arg] = AxisInfo(1, UNBOUNDED, hint)
        for op in function.body.walk():
            self._visit(op)

    def __getitem__(self, value: SSAValue) -> AxisInfo:
        found = self._info.get(value)
        if found is not None:
            return found
        # A value of IR built after the analysis, or a block argument it does not know.
        return AxisInfo(1, UNBOUNDED if not shape_of(value.type) else 1, 1)

    def _visit(self, op: Operation) -> None:
        if isinstance(op, scf.ForOp):
            iv = op.body.block.args[0]
            start, step = op.lb, op.step
            divisibility = min(
                self._constant_divisibility(start), self._constant_divisibility(step)
            )
            self._info[iv] = AxisInfo(1, UNBOUNDED, divisibility)
        if len(op.results) != 1:
            return
        result = op.results[0]
        info = self._infer(op)
        hints = [_hint(op, name) for name in HINTS]
        row = _row(result)
        self._info[result] = AxisInfo(
            min(max(info.contiguity, hints[0]), row),
            min(max(info.constancy, hints[1]), row),
            max(info.divisibility, hints[2]),
        )

    def _constant_divisibility(self, value: SSAValue) -> int:
        owner = value.owner
        if isinstance(owner, arith.ConstantOp | blk.ConstantOp):
            attr = owner.value
            if isinstance(attr, IntegerAttr):
                return power_of_two_divisor(attr.value.data)
        return 1

    def _infer(self, op: Operation) -> AxisInfo:
        result = op.results[0]
        operands = [self[o] for o in op.operands]
        uniform = min((i.constancy for i in operands), default=UNBOUNDED)
        if isinstance(op, blk.ConstantOp | arith.ConstantOp):
            return self._constant(op)
        if isinstance(op, blk.ArangeOp):
            start, length = op.start.value.data, op.end.value.data - op.start.value.data
            row = power_of_two_divisor(length)
            divisor = power_of_two_divisor(start)
            return AxisInfo(row, 1, divisor if row == length else min(divisor, row))
        if isinstance(op, blk.SplatOp):
            return AxisInfo(1, UNBOUNDED, operands[0].divisibility)
        if isinstance(op, blk.BroadcastOp | blk.ExpandDimsOp):
            (src,) = operands
            if shape_of(op.src.type)[-1:] == shape_of(result.type)[-1:]:
                return src
            return AxisInfo(1, UNBOUNDED, src.divisibility_at(1))
        if isinstance(op, blk.ReshapeOp):
            # Aligned groups of a size dividing both last dimensions are aligned groups
            # of the source's rows, in row-major order.
            (src,) = operands
            group = min(_row(op.src), _row(result))
            run = min(src.contiguity, group)
            return AxisInfo(run, min(src.constancy, group), src.divisibility_at(run))
        if isinstance(op, blk.PermuteOp):
            return AxisInfo(1, 1, operands[0].divisibility_at(1))
        if isinstance(op, blk.CastOp):
            return self._cast(op, operands[0])
        if isinstance(op, blk.AddPtrOp):
            return self._addptr(op, *operands)
        if isinstance(op, blk.CmpOp):
            return self._compare(op, *operands)
        if isinstance(op, blk.WhereOp) and _integral(result):
            cond, a, b = operands
            run = min(cond.constancy, a.contiguity, b.contiguity)
            return AxisInfo(run, uniform, min(a.divisibility_at(run), b.divisibility_at(run)))
        if isinstance(op, blk.MulOp) and _integral(result):
            # x * 1 is x (a stride specialized to 1, as `offs_k * stride_ak`)
            if _is_one(op.operands[1]):
                return operands[0]
            if _is_one(op.operands[0]):
                return operands[1]
        if isinstance(op, blk.AddOp | blk.SubOp | blk.MulOp | blk.ShlOp) and _integral(result):
            return self._arithmetic(op, *operands)
        if isinstance(op, blk.ElementwiseOp | blk.BitcastOp):
            return AxisInfo(1, uniform, 1)
        return AxisInfo(1, 1 if shape_of(result.type) else UNBOUNDED, 1)

    def _constant(self, op: blk.ConstantOp | arith.ConstantOp) -> AxisInfo:
        attr = op.value
        if isinstance(attr, DenseIntOrFPElementsAttr):
            if not blk.is_splat(attr):
                return AxisInfo()
            first = attr.get_values()[0]
            divisor = power_of_two_divisor(first) if isinstance(first, int) else 1
            return AxisInfo(1, UNBOUNDED, divisor)
        if isinstance(attr, IntegerAttr):
            return AxisInfo(1, UNBOUNDED, power_of_two_divisor(attr.value.data))
        return AxisInfo(1, UNBOUNDED, 1)

    @staticmethod
    def _cast(op: blk.CastOp, src: AxisInfo) -> AxisInfo:
        if _integral(op.src) and _integral(op.result):
            # Sign extension or truncation keeps a run only where it does not wrap.
            return AxisInfo(src.unwrapped_contiguity, src.constancy, src.divisibility)
        if isinstance(element_type(op.result.type), PtrType):
            return AxisInfo(1, src.constancy, src.divisibility_at(1))
        return AxisInfo(1, src.constancy, 1)

    @staticmethod
    def _arithmetic(op: Operation, a: AxisInfo, b: AxisInfo) -> AxisInfo:
        constancy = min(a.constancy, b.constancy)
        if isinstance(op, blk.MulOp | blk.ShlOp):
            # Scaling breaks runs; every element is a multiple of the product.
            if isinstance(op, blk.ShlOp):
                return AxisInfo(1, constancy, a.divisibility_at(1))
            return AxisInfo(
                1, constancy, min(a.divisibility_at(1) * b.divisibility_at(1), UNBOUNDED)
            )
        # A run plus (minus) a value constant over the run stays a run.
        run = min(a.contiguity, b.constancy)
        if isinstance(op, blk.AddOp):
            run = max(run, min(b.contiguity, a.constancy))
        run = max(run, 1)
        return AxisInfo(run, constancy, min(a.divisibility_at(run), b.divisibility_at(run)))

    @staticmethod
    def _addptr(op: blk.AddPtrOp, ptr: AxisInfo, offset: AxisInfo) -> AxisInfo:
        pointee = element_type(op.result.type)
        assert isinstance(pointee, PtrType)
        target = pointee.pointee
        size = 8 if isinstance(target, PtrType) else max(1, dtypes.from_xdsl(target).width // 8)
        wide = isinstance(element_type(op.offset.type), IntegerType) and (
            element_type(op.offset.type).width.data == 64  # type: ignore[union-attr]
        )
        # The code generator sign-extends narrower offsets: a run must not wrap.
        steps = offset.contiguity if wide else offset.unwrapped_contiguity
        run = max(min(ptr.constancy, steps), min(ptr.contiguity, offset.constancy), 1)
        divisibility = min(ptr.divisibility_at(run), offset.divisibility_at(run) * size)
        return AxisInfo(run, min(ptr.constancy, offset.constancy), divisibility)

    @staticmethod
    def _compare(op: blk.CmpOp, a: AxisInfo, b: AxisInfo) -> AxisInfo:
        constancy = min(a.constancy, b.constancy)
        predicate = op.predicate.data
        if not (_integral(op.lhs) and _integral(op.rhs)):
            return AxisInfo(1, constancy, 1)
        # x < y over a group: with the run x and the constant y both multiples of the
        # group's size at its start, x + j < y for every j in the group iff x < y.
        if predicate in (blk.CmpPredicate.LT, blk.CmpPredicate.GE):
            run, bound = a, b
        elif predicate in (blk.CmpPredicate.GT, blk.CmpPredicate.LE):
            run, bound = b, a
        else:
            return AxisInfo(1, constancy, 1)
        group = min(run.contiguity, bound.constancy)
        while group > constancy and (
            run.divisibility_at(group) < group or bound.divisibility_at(group) < group
        ):
            group //= 2
        return AxisInfo(1, max(constancy, group), 1)


def element_bytes(ptr: SSAValue) -> int | None:
    """Bytes of the elements `ptr` (a block of pointers) points to, None for pointers to
    pointers and bools (never accessed as vectors)."""
    pointee = element_type(ptr.type)
    assert isinstance(pointee, PtrType)
    target = pointee.pointee
    if isinstance(target, PtrType):
        return None
    width = dtypes.from_xdsl(target).width
    return width // 8 if width >= 8 else None


__all__ = ["AxisInfo", "AxisInfoAnalysis", "element_bytes", "power_of_two_divisor"]
