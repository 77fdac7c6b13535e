"""What the lowerings know of where a block of pointers points: whether a write through one
block can change what a read through another saw.

A block op sees memory as it was before it: in ``x = load(p); store(q, f(x))`` the store
writes after the whole block `x` was read. A lowering that fuses the load into the
store's loop (element `i` of `x` read just before element `i` is stored), or that runs a
program's threads one after another, keeps that meaning only where the write cannot land
on an address another element reads. `overlap` says why it cannot:

- `Overlap.ELEMENTWISE`: both are the same expression (the same value, or ops computing
  the same elements from the same operands: `addptr(splat X, offs)` built twice) and no
  two of its elements hold the same address (`injective`): the write at element `i` lands
  only where the read at element `i` did;
- `Overlap.DISTINCT_ARGUMENTS`: they derive from different pointer arguments
  (`base_argument`), which cannot overlap where the caller's arrays do not: bounds checks
  keep each access inside the array of the argument it derives from;
- `Overlap.UNKNOWN`: anything else, including pointers this analysis cannot trace (loaded
  from memory, selected by `where`, carried by loops): they may point anywhere.

```mlir
%o = blk.arange 0, 8 : tensor<8xi32>
%r = blk.sub (splat 7), %o                  // 7 - o: reversed
%src = blk.addptr (splat %X), %r            // overlap(%src, %dst) is UNKNOWN
%dst = blk.addptr (splat %X), %o            // overlap(%dst, %dst) is ELEMENTWISE
%out = blk.addptr (splat %Y), %o            // overlap(%src, %out) is DISTINCT_ARGUMENTS
```

`injective` proves distinct addresses through an affine form: offsets that are
`c + sum_k a_k * i_k` in the block's indices `i_k` (`arange`, uniform values, `+`, `-`,
`*` and `<<` by constants, `expand_dims`, `broadcast`, `permute`, integer casts; integers
of 32 bits or more), with coefficients that no two index vectors can sum to the same value
(sorted by size, each larger than the span of the smaller ones). The uniform part `c` may
be anything and may wrap: with every span below 2**31, wrapping (and sign extension after
it) only adds multiples of 2**32, more than any two elements' forms differ. Failing that,
a 1-D pointer block whose `axis_info` contiguity covers the whole block (hints included).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.traits import Pure

from blkc.dialects import blk
from blkc.dialects.types import PtrType, element_type, shape_of
from blkc.passes.axis_info import AxisInfoAnalysis

Affine = tuple[int, ...]
"""Per dimension of a block, how much its element grows when that index grows by one."""

_UNIFORM_FROM_UNIFORM = (blk.ElementwiseOp, blk.CastOp, blk.BitcastOp, blk.ReshapeOp)
"""Ops whose result is uniform where their operands are."""
VIEWS_OF_ONE_POINTER = (
    blk.SplatOp,
    blk.BroadcastOp,
    blk.ExpandDimsOp,
    blk.ReshapeOp,
    blk.PermuteOp,
)


class Overlap(Enum):
    """Why a write through one pointer block cannot change what a read through another saw
    (see the module)."""

    ELEMENTWISE = "the same injective pointer block"
    DISTINCT_ARGUMENTS = "derived from different pointer arguments"
    UNKNOWN = "may overlap"


class PointerAnalysis:
    """Questions about the pointer blocks of one function, whose entry block is `entry`.

    `opaque(value)` says which values the lowering keeps in a buffer: a pointer read back
    from one no longer shows the argument it came from (the code generator's bounds check
    then accepts any array), so it is not traced through."""

    def __init__(
        self,
        entry: Block,
        opaque: Callable[[SSAValue], bool],
        axis_info: Callable[[], AxisInfoAnalysis],
    ):
        self.entry = entry
        self.opaque = opaque
        self._axis_info = axis_info
        self._affine: dict[SSAValue, Affine | None] = {}

    def overlap(self, read: SSAValue, write: SSAValue) -> Overlap:
        """How a write through `write` can touch what a read through `read` read."""
        # A scalar pointer is no block of distinct addresses: every thread of a CTA reads it.
        if shape_of(write.type) and same_elements(read, write) and self.injective(write):
            return Overlap.ELEMENTWISE
        bases = self.base_argument(read), self.base_argument(write)
        if None not in bases and bases[0] is not bases[1]:
            return Overlap.DISTINCT_ARGUMENTS
        return Overlap.UNKNOWN

    def base_argument(self, ptr: SSAValue) -> BlockArgument | None:
        """The pointer argument every element of `ptr` is derived from by pointer arithmetic,
        None where that cannot be traced."""
        while not self.opaque(ptr):
            if isinstance(ptr, BlockArgument):
                return ptr if ptr.block is self.entry else None
            owner = ptr.owner
            if isinstance(owner, blk.AddPtrOp):
                ptr = owner.ptr
            elif isinstance(owner, VIEWS_OF_ONE_POINTER) or (
                isinstance(owner, blk.CastOp) and isinstance(element_type(owner.src.type), PtrType)
            ):
                ptr = owner.src
            else:
                return None
        return None

    def injective(self, ptr: SSAValue) -> bool:
        """Whether no two elements of the pointer block `ptr` hold the same address."""
        shape = shape_of(ptr.type)
        coefficients = self.affine(ptr)
        if coefficients is not None:
            return _distinct_sums(coefficients, shape)
        if len(shape) != 1:
            return False
        return self._axis_info()[ptr].contiguity >= shape[0]

    def affine(self, value: SSAValue) -> Affine | None:
        """The coefficients of `value` as an affine form of its indices (see the module),
        None where it is not one or its span could wrap."""
        if value not in self._affine:
            form = self._infer(value)
            if form is not None and any(form) and not _fits(form, value):
                form = None
            self._affine[value] = form
        return self._affine[value]

    def _infer(self, value: SSAValue) -> Affine | None:
        shape = shape_of(value.type)
        if not shape:
            return ()
        op = value.owner
        if not isinstance(op, Operation):
            return None
        uniform = (0,) * len(shape)
        if isinstance(op, blk.SplatOp) or integer_constant(value) is not None:
            return uniform
        if isinstance(op, _UNIFORM_FROM_UNIFORM) and all(self._uniform(o) for o in op.operands):
            return uniform
        if isinstance(op, blk.ArangeOp):
            return (1,)
        if isinstance(op, blk.ExpandDimsOp | blk.BroadcastOp | blk.PermuteOp):
            return self._view(op)
        if isinstance(op, blk.CastOp):
            return self.affine(op.src) if _integral(op.src) and _integral(value) else None
        if isinstance(op, blk.AddPtrOp):
            return _combine(self.affine(op.ptr), self.affine(op.offset), 1)
        if isinstance(op, blk.AddOp | blk.SubOp) and _integral(value):
            return _combine(self.affine(op.lhs), self.affine(op.rhs), _sign(op))
        if isinstance(op, blk.MulOp | blk.ShlOp) and _integral(value):
            return self._scaled(op)
        if isinstance(op, blk.NegOp) and _integral(value):
            form = self.affine(op.operands[0])
            return None if form is None else tuple(-c for c in form)
        return None

    def _uniform(self, value: SSAValue) -> bool:
        form = self.affine(value)
        return form is not None and not any(form)

    def _view(self, op: blk.ExpandDimsOp | blk.BroadcastOp | blk.PermuteOp) -> Affine | None:
        src = self.affine(op.src)
        if src is None:
            return None
        if isinstance(op, blk.ExpandDimsOp):
            axis = op.axis.value.data
            return (*src[:axis], 0, *src[axis:])
        if isinstance(op, blk.PermuteOp):
            return tuple(src[j] for j in op.order.get_values())
        src_shape, shape = shape_of(op.src.type), shape_of(op.result.type)
        if not src:
            return (0,) * len(shape)
        if len(src_shape) != len(shape):
            return None
        # A dimension of size 1 broadcast reads index 0 at every index.
        return tuple(c if n == m else 0 for c, n, m in zip(src, src_shape, shape, strict=True))

    def _scaled(self, op: blk.MulOp | blk.ShlOp) -> Affine | None:
        lhs, rhs = op.lhs, op.rhs
        factor = integer_constant(rhs)
        if isinstance(op, blk.ShlOp):
            if factor is None or not 0 <= factor < _bits(op.result):
                return None
            factor = 1 << factor
        elif factor is None:
            lhs, factor = rhs, integer_constant(lhs)
            if factor is None:
                return None
        form = self.affine(lhs)
        return None if form is None else tuple(c * factor for c in form)


def same_elements(a: SSAValue, b: SSAValue) -> bool:
    """Whether `a` and `b` hold the same elements: the same value, or the results of the
    same pure op on operands that hold the same elements."""
    return _same_elements(a, b, {})


def _same_elements(a: SSAValue, b: SSAValue, known: dict[tuple[int, int], bool]) -> bool:
    if a is b:
        return True
    key = (id(a), id(b))
    if key not in known:
        x, y = a.owner, b.owner
        known[key] = (
            a.type == b.type
            and isinstance(x, Operation)
            and isinstance(y, Operation)
            and type(x) is type(y)
            and x.has_trait(Pure)
            and not x.regions
            and len(x.results) == 1
            and x.properties == y.properties
            and x.attributes == y.attributes
            and len(x.operands) == len(y.operands)
            and all(
                _same_elements(p, q, known) for p, q in zip(x.operands, y.operands, strict=True)
            )
        )
    return known[key]


def _distinct_sums(coefficients: Affine, shape: tuple[int, ...]) -> bool:
    """Whether `sum_k c_k * i_k` differs for every two index vectors of `shape`: sorted by
    size, each coefficient exceeds the span of the smaller ones (mixed radix)."""
    steps = sorted((abs(c), n) for c, n in zip(coefficients, shape, strict=True) if n > 1)
    span = 0
    for step, size in steps:
        if step <= span:
            return False
        span += step * (size - 1)
    return True


def _fits(form: Affine, value: SSAValue) -> bool:
    """Whether `value` has 32 bits or more and its elements span less than 2**31: then
    wrapping cannot make two of them equal (see the module)."""
    span = sum(abs(c) * (n - 1) for c, n in zip(form, shape_of(value.type), strict=True))
    return _bits(value) >= 32 and span < 2**31


def _combine(a: Affine | None, b: Affine | None, sign: int) -> Affine | None:
    if a is None or b is None:
        return None
    if not a or not b:  # a scalar operand: uniform
        return a or tuple(sign * c for c in b)
    return tuple(x + sign * y for x, y in zip(a, b, strict=True))


def _sign(op: blk.AddOp | blk.SubOp) -> int:
    return -1 if isinstance(op, blk.SubOp) else 1


def _integral(value: SSAValue) -> bool:
    t = element_type(value.type)
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data > 1)


def _bits(value: SSAValue) -> int:
    """An integer's width (64 for `index` and pointers)."""
    t = element_type(value.type)
    return t.width.data if isinstance(t, IntegerType) else 64


def integer_constant(value: SSAValue) -> int | None:
    """The integer every element of `value` equals, when it is a constant."""
    op = value.owner
    if isinstance(op, blk.SplatOp | blk.BroadcastOp | blk.ExpandDimsOp):
        return integer_constant(op.src)
    if isinstance(op, arith.ConstantOp | blk.ConstantOp):
        attr = op.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
        if isinstance(attr, DenseIntOrFPElementsAttr) and blk.is_splat(attr):
            first = attr.get_values()[0]
            return first if isinstance(first, int) else None
    return None


__all__ = ["Overlap", "PointerAnalysis", "integer_constant", "same_elements"]
