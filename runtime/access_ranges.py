"""Block-level bounds checks: the offsets a loop nest's memory accesses can take.

Checking every element access against its array costs half the speed of a memory-bound
kernel. Most accesses index an array with an offset affine in the indices of the loops
over the block (program start + arange, row * stride + column): their smallest and largest
value over the whole nest take a few instructions to compute. The code generator checks
those ranges once before the nest and runs an unchecked copy of it when every access is
inside its array (loop versioning), the per-element checked copy otherwise. Masks are
ignored, so the range covers more than the active lanes: a block that is partly outside
(the tail of a vector) takes the checked copy, which skips and reports exactly the
accesses outside, as before.

Masks get the same treatment, with or without bounds checks: a mask that compares affine
offsets (`offs < n`, `col < n_cols`, and conjunctions) and holds over the whole nest is
dropped from a third copy of the nest, taken first. Masked vector loads stream from memory
at a third of the speed of plain ones on these machines (measured: a 64 MiB sum, 4.8 ms
against 1.6 ms on one core), so every full block is worth it.

Exactness. Offset arithmetic wraps (modulo 2**w for a w-bit integer). An offset is
modelled as a polynomial E over *leaves* (integers defined outside the nest, read as
signed) and the nest's loop indices, of degree at most one in the indices. The ring
operations (add, sub, mul, shl by a constant, truncation) compute E modulo 2**w; a sign
or zero extension is exact only when its input lies in the input type's range, which
becomes a condition checked at run time unless the static interval implies it. The code
generator sign-extends the final offset of each `addptr`, so that offset must lie in the
signed range of its type too. The run-time evaluation computes the extremes in i64 with
overflow-detecting arithmetic (`llvm.sadd/smul.with.overflow`): an overflow fails the check
and takes the checked copy, so offsets involving i64 values (i64 strides, the running
offset `carry-pointer-offsets` carries through a K loop) get the fast copies too.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field, replace

import llvmlite.ir as ir
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from blkc.dialects import blk

I1, I64 = ir.IntType(1), ir.IntType(64)
_I64_LIMIT = 2**63 - 1

Monomial = tuple[SSAValue, ...]
"""A product of leaves and at most one loop index, in first-seen order."""
Poly = dict[Monomial, int]
"""A sum of monomials with integer coefficients."""

ACCESSES = (blk.LoadOp, blk.StoreOp, blk.AtomicRMWOp, blk.AtomicCASOp)
"""The ops that read or write memory through a pointer."""


@dataclass
class Condition:
    """`low <= poly <= high` over the whole nest (a missing bound is no bound), and also,
    when `param` is set, `poly` an element (of `size` bytes) of the array of `param`
    counted from the parameter's pointer: at least minus the elements before it (a view
    with negative strides points to its last element in memory), less than those from it
    on."""

    poly: Poly
    low: int | None
    high: int | None
    param: SSAValue | None = None
    size: int = 0
    select: Operation | None = None
    """The `arith.select` read as its true operand under this condition, if any."""


@dataclass
class NestRanges:
    """What must hold before a loop nest for the accesses `proven` to stay inside their
    arrays (`bounds`), and for the masks of the accesses `unmasked` to be all true
    (`masks`); `unmasked` also holds the selects on those masks, which read their true
    operand where the masks hold."""

    proven: set[Operation] = field(default_factory=set)
    bounds: list[Condition] = field(default_factory=list)
    unmasked: set[Operation] = field(default_factory=set)
    masks: list[Condition] = field(default_factory=list)
    mask_conditions: dict[Operation, list[Condition]] = field(default_factory=dict)
    """Each access of `unmasked`: the conditions of `masks` that make up its mask (all
    true where it is true)."""
    chosen: set[Operation] = field(default_factory=set)
    """The selects those conditions read as their true operand (`x % m` as x, see
    `convert-blk-to-loops`), valid where `choices` hold: every fast copy checks them."""
    choices: list[Condition] = field(default_factory=list)
    ranges: dict[SSAValue, tuple[int, int]] = field(default_factory=dict)
    """The first and last value of each loop index the conditions use."""
    streams: list[Stream] = field(default_factory=list)
    """The stores that write whole cache lines of one contiguous run (see `Stream`)."""
    offsets: dict[Operation, tuple[SSAValue, Poly]] = field(default_factory=dict)
    """Each access `proven`: the parameter it addresses and its offset in elements, the
    sum of its `addptr` offsets as one polynomial. Where `bounds` hold, that polynomial
    evaluated in i64 is exactly the offset its (sign-extended, possibly 32-bit) arithmetic
    computes: the code generator addresses the access so (`polynomial_i64`), which lets
    LLVM see consecutive elements at consecutive addresses."""


STREAM_MIN_BYTES = 1024
"""The smallest run a store must write for non-temporal stores: tiny blocks keep plain
stores (and no extra copy of their nest to compile)."""


@dataclass
class Stream:
    """A store whose nest writes `count` consecutive elements of `size` bytes of `param`'s
    array, starting at element `start` (a polynomial over values defined outside the nest),
    the nest's `index` stepping by one from `first`; the run is whole 64-byte lines when
    its start is 64-byte aligned. `conditions` keep the store inside its array (and its offset
    exact), as for `NestRanges.bounds`."""

    store: blk.StoreOp
    param: SSAValue
    index: SSAValue
    start: Poly
    first: int
    count: int
    size: int
    conditions: list[Condition]


def _width(t: Attribute) -> int | None:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    return None


def _signed_range(width: int) -> tuple[int, int]:
    return -(2 ** (width - 1)), 2 ** (width - 1) - 1


def constant(value: SSAValue) -> int | None:
    """`value`'s signed value where it is an integer `arith.constant`, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        width = _width(value.type)
        number = owner.value.value.data
        if width is not None:
            low, high = _signed_range(width)
            number = (number - low) % 2**width + low  # the signed reading of its bits
        return number
    return None


def loop_range(value: SSAValue) -> tuple[int, int] | None:
    """First and last value of the index of an `scf.for` with constant bounds."""
    if not isinstance(value, BlockArgument) or value.index != 0:
        return None
    loop = value.block.parent_op()
    if not isinstance(loop, scf.ForOp) or value.block is not loop.body.blocks[0]:
        return None
    lb, ub, step = (constant(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    if ub <= lb:
        return lb, lb  # the loop never runs: any range will do
    return lb, lb + (ub - lb - 1) // step * step


def base_pointer(ptr: SSAValue, pointers: Collection[SSAValue]) -> SSAValue | None:
    """Which of `pointers` (the kernel's pointer arguments) `ptr` is derived from by pointer
    arithmetic and casts; None where that cannot be traced."""
    while ptr not in pointers:
        owner = ptr.owner
        if isinstance(owner, blk.AddPtrOp):
            ptr = owner.ptr
        elif isinstance(owner, blk.CastOp):
            ptr = owner.src
        else:
            return None
    return ptr


def trip_count(loop: scf.ForOp) -> int | None:
    """How many times `loop` runs, when its bounds are constants."""
    lb, ub, step = (constant(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


def _inside(value: SSAValue, nest: Operation) -> bool:
    owner = value.owner
    node = owner.parent_op() if isinstance(owner, Block) else owner
    return node is not None and nest.is_ancestor(node)


class _Analysis:
    """Polynomials for the integer values an access offset is computed from."""

    def __init__(self, nest: scf.ForOp):
        self.nest = nest
        self.order: dict[SSAValue, int] = {}
        self.memo: dict[SSAValue, tuple[Poly, list[Condition]] | None] = {}

    def interval(self, factor: SSAValue) -> tuple[int, int]:
        known = loop_range(factor)
        if known is not None:
            return known
        width = _width(factor.type)
        assert width is not None
        return (-1, 0) if width == 1 else _signed_range(width)

    def bounds(self, poly: Poly) -> tuple[int, int]:
        """A static interval of `poly`."""
        low = high = 0
        for monomial, coefficient in poly.items():
            lo = hi = coefficient
            for factor in monomial:
                a, b = self.interval(factor)
                corners = (lo * a, lo * b, hi * a, hi * b)
                lo, hi = min(corners), max(corners)
            low, high = low + lo, high + hi
        return low, high

    def monomial(self, factors: Collection[SSAValue]) -> Monomial | None:
        if sum(1 for f in factors if _inside(f, self.nest)) > 1:
            return None  # not affine in the loop indices (the only nest values kept)
        for f in factors:
            self.order.setdefault(f, len(self.order))
        return tuple(sorted(factors, key=self.order.__getitem__))

    def poly(self, value: SSAValue) -> tuple[Poly, list[Condition]] | None:
        """`value` as a polynomial, with the conditions that make it exact; None when it
        is not affine in the loop indices or not known."""
        if value not in self.memo:
            self.memo[value] = self._poly(value)
        return self.memo[value]

    def _poly(self, value: SSAValue) -> tuple[Poly, list[Condition]] | None:
        width = _width(value.type)
        if width is None:
            return None
        number = constant(value)
        if number is not None:
            return ({(): number} if number else {}), []
        if not _inside(value, self.nest) or loop_range(value) is not None:
            self.order.setdefault(value, len(self.order))
            return {(value,): 1}, []  # a leaf, or a loop index of the nest
        op = value.owner
        if not isinstance(op, Operation):
            return None  # a loop-carried value or an index with unknown bounds
        if isinstance(op, arith.SelectOp):
            # Where its condition holds over the whole nest, a select is its true operand.
            holds, chosen = self.mask(op.cond), self.poly(op.lhs)
            if holds is None or chosen is None:
                return None
            return chosen[0], [*chosen[1], *(replace(c, select=op) for c in holds)]
        operands = [self.poly(o) for o in op.operands]
        if any(p is None for p in operands):
            return None
        polys = [p[0] for p in operands if p is not None]
        conditions = [c for p in operands if p is not None for c in p[1]]
        if isinstance(op, arith.AddiOp):
            return _combine(polys[0], polys[1], 1), conditions
        if isinstance(op, arith.SubiOp):
            return _combine(polys[0], polys[1], -1), conditions
        if isinstance(op, arith.MuliOp):
            product = self.product(polys[0], polys[1])
            return None if product is None else (product, conditions)
        if isinstance(op, arith.ShLIOp):
            shift = constant(op.operands[1])
            if shift is None or not 0 <= shift < width:
                return None
            return {m: c << shift for m, c in polys[0].items()}, conditions
        if isinstance(op, arith.TruncIOp) or (
            isinstance(op, arith.IndexCastOp) and width <= (_width(op.input.type) or 0)
        ):
            return polys[0], conditions  # modulo 2**width: still exact modulo
        if isinstance(op, arith.ExtSIOp | arith.ExtUIOp | arith.IndexCastOp):
            source = _width(op.operands[0].type)
            assert source is not None
            low, high = _signed_range(source)
            if isinstance(op, arith.ExtUIOp):
                low, high = 0, 2**source - 1
            return polys[0], [*conditions, *self.within(polys[0], low, high)]
        return None

    def within(self, poly: Poly, low: int, high: int) -> list[Condition]:
        """The condition that `poly` lies in [low, high], unless its static interval does."""
        have_low, have_high = self.bounds(poly)
        return [] if low <= have_low <= have_high <= high else [Condition(poly, low, high)]

    def mask(self, value: SSAValue) -> list[Condition] | None:
        """Conditions under which the i1 `value` is true over the whole nest; None when
        they cannot be stated."""
        number = constant(value)
        if number is not None:
            return [] if number else None
        if not _inside(value, self.nest):
            return [Condition({(value,): 1}, None, -1)]  # true reads as -1 (signed i1)
        op = value.owner
        if isinstance(op, arith.AndIOp):
            parts = [self.mask(o) for o in op.operands]
            return None if None in parts else [c for p in parts if p is not None for c in p]
        if not isinstance(op, arith.CmpiOp):
            return None
        predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        width = _width(op.lhs.type)
        sides = [self.poly(o) for o in (op.lhs, op.rhs)]
        if width is None or predicate not in _SIGNED_BOUND or sides[0] is None or sides[1] is None:
            return None
        low, high = _signed_range(width)
        conditions = [c for side in sides if side is not None for c in side[1]]
        for side in sides:
            assert side is not None
            conditions.extend(self.within(side[0], low, high))  # compared exactly
        difference = _combine(sides[0][0], sides[1][0], -1)
        return [*conditions, Condition(difference, *_SIGNED_BOUND[predicate])]

    def product(self, p: Poly, q: Poly) -> Poly | None:
        result: Poly = {}
        for m1, c1 in p.items():
            for m2, c2 in q.items():
                monomial = self.monomial([*m1, *m2])
                if monomial is None:
                    return None
                result[monomial] = result.get(monomial, 0) + c1 * c2
        return {m: c for m, c in result.items() if c}


_SIGNED_BOUND: dict[str, tuple[int | None, int | None]] = {
    "slt": (None, -1),
    "sle": (None, 0),
    "sgt": (1, None),
    "sge": (0, None),
}
"""The bounds on lhs - rhs under which a signed comparison holds."""


def _combine(p: Poly, q: Poly, sign: int) -> Poly:
    result = dict(p)
    for m, c in q.items():
        result[m] = result.get(m, 0) + sign * c
    return {m: c for m, c in result.items() if c}


def _pointer_chain(ptr: SSAValue, params: Collection[SSAValue]) -> tuple[SSAValue, list[SSAValue]]:
    """The parameter `ptr` is derived from by `addptr`s, and their offsets."""
    offsets = []
    while ptr not in params:
        owner = ptr.owner
        if not isinstance(owner, blk.AddPtrOp) or owner.ptr.type != ptr.type:
            raise LookupError
        offsets.append(owner.offset)
        ptr = owner.ptr
    return ptr, offsets


def analyse(
    nest: scf.ForOp, params: Collection[SSAValue], size_of: Callable[[SSAValue], int]
) -> NestRanges:
    """The accesses of `nest` whose offsets can be checked before it and those whose masks
    can, with the conditions that keep them inside their arrays and their masks true.
    Requires constant bounds on `nest` itself (the loops over a block): nests with
    run-time bounds (a K loop) get versioned inside."""
    result = NestRanges()
    if loop_range(nest.body.blocks[0].args[0]) is None:
        return result
    analysis = _Analysis(nest)
    selects: list[arith.SelectOp] = []
    for op in nest.walk():
        if isinstance(op, arith.SelectOp):
            selects.append(op)
        if not isinstance(op, ACCESSES):
            continue
        mask = getattr(op, "mask", None)
        if mask is not None:
            conditions = analysis.mask(mask)
            if conditions is not None:
                result.unmasked.add(op)
                kept = _choices(result, conditions)
                result.mask_conditions[op] = kept
                result.masks.extend(kept)
        try:
            param, offsets = _pointer_chain(op.ptr, params)
        except LookupError:
            continue
        found = _access_conditions(analysis, offsets, param, size_of(op.ptr))
        if found is not None:
            conditions, total = found
            result.proven.add(op)
            result.offsets[op] = (param, total)
            result.bounds.extend(_choices(result, conditions))
            stream = _stream(analysis, op, total, param, size_of(op.ptr), conditions)
            if stream is not None:
                result.streams.append(stream)
    # A select on the mask of an access proven unmasked (`tl.where(mask, x, 0.0)` beside
    # `tl.load(p, mask=mask)`) reads its true operand where that access is unmasked.
    masks = {op.mask for op in result.unmasked if getattr(op, "mask", None) is not None}
    result.unmasked.update(op for op in selects if op.cond in masks)
    result.ranges = {v: r for v in analysis.order if (r := loop_range(v)) is not None}
    return result


def _stream(
    analysis: _Analysis,
    op: Operation,
    offset: Poly,
    param: SSAValue,
    size: int,
    conditions: list[Condition],
) -> Stream | None:
    """`op` as a `Stream`: a store directly in the nest's loop (step 1), at the offset
    `index + start` (the sum of its `addptr` offsets: `Y += row * stride` then
    `Y + cols`, as Triton's tutorials write, is one run), writing whole lines from an
    aligned start and at least `STREAM_MIN_BYTES`."""
    nest = analysis.nest
    index = nest.body.blocks[0].args[0]
    span = loop_range(index)
    if (
        not isinstance(op, blk.StoreOp)
        or op.parent_op() is not nest
        or constant(nest.step) != 1
        or span is None
        or offset.get((index,)) != 1
    ):
        return None
    start = {m: c for m, c in offset.items() if m != (index,)}
    if any(_inside(f, nest) for m in start for f in m):
        return None  # another index of the nest moves the run
    first, count = span[0], span[1] - span[0] + 1
    if count * size % 64 or count * size < STREAM_MIN_BYTES:
        return None
    start = _combine(start, {(): first} if first else {}, 1)
    conditions = [c for c in conditions if c.select is None]
    return Stream(op, param, index, start, first, count, size, conditions)


def _choices(result: NestRanges, conditions: list[Condition]) -> list[Condition]:
    """The conditions that do not choose a select's operand; those that do go to
    `result.choices`."""
    for condition in conditions:
        if condition.select is not None:
            result.chosen.add(condition.select)
            result.choices.append(condition)
    return [c for c in conditions if c.select is None]


def _access_conditions(
    analysis: _Analysis, offsets: list[SSAValue], param: SSAValue, size: int
) -> tuple[list[Condition], Poly] | None:
    """The conditions that keep an access through `offsets` from `param` inside its array
    and its offsets exact, and its whole offset as a polynomial."""
    total: Poly = {}
    conditions: list[Condition] = []
    floor, cap = -_I64_LIMIT - 1, _I64_LIMIT
    for offset in offsets:
        found = analysis.poly(offset)
        width = _width(offset.type)
        if found is None or width is None:
            return None
        poly, exact = found
        conditions.extend(exact)
        low, high = _signed_range(width)
        if len(offsets) == 1:
            # the address check below implies the sign extension is exact
            floor, cap = low, high
        else:
            conditions.extend(analysis.within(poly, low, high))
        total = _combine(total, poly, 1)
    conditions.append(Condition(total, floor, cap, param, size))
    return conditions, total


def polynomial_i64(
    builder: ir.IRBuilder, poly: Poly, value_of: Callable[[SSAValue], ir.Value]
) -> ir.Value:
    """`poly` evaluated in i64, leaves and indices sign-extended (for a polynomial whose
    range check passed: there it is exact)."""
    total: ir.Value | None = None
    for monomial, coefficient in poly.items():
        term: ir.Value | None = None if coefficient == 1 else ir.Constant(I64, coefficient)
        for factor in monomial:
            value = value_of(factor)
            if value.type != I64:
                value = builder.sext(value, I64)
            term = value if term is None else builder.mul(term, value)
        term = ir.Constant(I64, 1) if term is None else term
        total = term if total is None else builder.add(total, term)
    return ir.Constant(I64, 0) if total is None else total


# ------------------------------------------------------------------------------------
# The run-time check
# ------------------------------------------------------------------------------------

Number = ir.Value | int


class _Emitter:
    """Evaluates polynomials in i64; `overflow` is true when an operation so far wrapped."""

    def __init__(self, builder: ir.IRBuilder, value_of: Callable[[SSAValue], ir.Value]):
        self.b = builder
        self.value_of = value_of
        self.leaves: dict[SSAValue, ir.Value] = {}
        self.overflow: ir.Value = ir.Constant(I1, 0)

    def leaf(self, value: SSAValue) -> ir.Value:
        if value not in self.leaves:
            llvm_value = self.value_of(value)
            width = llvm_value.type.width
            self.leaves[value] = llvm_value if width == 64 else self.b.sext(llvm_value, I64)
        return self.leaves[value]

    def _checked(self, name: str, x: Number, y: Number) -> ir.Value:
        # LLVM folds the check away where operands' ranges exclude an overflow (sign-
        # extended i32 values), so offsets of i32 values pay nothing for it.
        fn = self._intrinsic(
            f"llvm.{name}.with.overflow.i64", ir.LiteralStructType([I64, I1]), [I64, I64]
        )
        pair = self.b.call(fn, [_llvm(x), _llvm(y)])
        self.overflow = self.b.or_(self.overflow, self.b.extract_value(pair, 1))
        return self.b.extract_value(pair, 0)

    def _intrinsic(self, name: str, result: ir.Type, args: list[ir.Type]) -> ir.Function:
        fn = self.b.module.globals.get(name)
        if not isinstance(fn, ir.Function):
            fn = ir.Function(self.b.module, ir.FunctionType(result, args), name)
        return fn

    def add(self, x: Number, y: Number) -> Number:
        if isinstance(x, int) and isinstance(y, int):
            return x + y
        if isinstance(x, int) and x == 0:
            return y
        if isinstance(y, int) and y == 0:
            return x
        return self._checked("sadd", x, y)

    def mul(self, x: Number, y: Number) -> Number:
        if isinstance(x, int) and isinstance(y, int):
            return x * y
        if isinstance(x, int) and x in (0, 1):
            return 0 if x == 0 else y
        if isinstance(y, int) and y in (0, 1):
            return 0 if y == 0 else x
        return self._checked("smul", x, y)

    def pick(self, name: str, x: Number, y: Number) -> Number:
        if isinstance(x, int) and isinstance(y, int):
            return min(x, y) if name == "smin" else max(x, y)
        fn = self._intrinsic(f"llvm.{name}.i64", I64, [I64, I64])
        return self.b.call(fn, [_llvm(x), _llvm(y)])

    def extremes(self, poly: Poly, ranges: dict[SSAValue, tuple[int, int]]) -> _Extremes:
        """The smallest and largest value of `poly` over the loop indices' ranges, and
        whether computing them overflowed i64 (then they mean nothing)."""
        self.overflow = ir.Constant(I1, 0)
        groups: dict[SSAValue | None, Number] = {}
        for monomial, coefficient in poly.items():
            index = next((f for f in monomial if f in ranges), None)
            term: Number = coefficient
            for factor in monomial:
                if factor is not index:
                    term = self.mul(term, self.leaf(factor))
            groups[index] = self.add(groups.get(index, 0), term)
        low = high = groups.pop(None, 0)
        for index, coefficient in groups.items():
            assert index is not None
            first, last = ranges[index]
            a, b = self.mul(coefficient, first), self.mul(coefficient, last)
            low = self.add(low, self.pick("smin", a, b))
            high = self.add(high, self.pick("smax", a, b))
        return low, high, self.overflow


_Extremes = tuple[Number, Number, ir.Value]
"""The smallest and largest value of a polynomial, and whether computing them overflowed."""


def _llvm(x: Number) -> ir.Value:
    return ir.Constant(I64, x) if isinstance(x, int) else x


class RangeCheck:
    """Emits the run-time test of conditions before a nest, sharing the extremes of the
    polynomials between the tests. `indices` are the nest's loop indices (ranged over);
    other values are read with `value_of`; `element_range(param, size)` is the first and
    last element offset from a parameter's pointer that lie inside its array, as i64."""

    def __init__(
        self,
        builder: ir.IRBuilder,
        nest: NestRanges,
        indices: Collection[SSAValue],
        value_of: Callable[[SSAValue], ir.Value],
        element_range: Callable[[SSAValue, int], tuple[ir.Value, ir.Value]],
    ):
        self.emitter = _Emitter(builder, value_of)
        self.ranges = {v: r for v, r in nest.ranges.items() if v in indices}
        self.element_range = element_range
        self.extremes: dict[frozenset[tuple[Monomial, int]], _Extremes] = {}

    def value(self, poly: Poly) -> tuple[ir.Value, ir.Value]:
        """`poly` (free of the nest's indices) as an i64, and whether computing it
        overflowed."""
        low, _, overflow = self.emitter.extremes(poly, self.ranges)
        return _llvm(low), overflow

    def holds(self, conditions: list[Condition]) -> ir.Value:
        """An i1 that is true when every one of `conditions` holds (and was computed
        without overflow)."""
        b, e = self.emitter.b, self.emitter
        result: ir.Value = ir.Constant(I1, 1)
        for condition in conditions:
            key = frozenset(condition.poly.items())
            if key not in self.extremes:
                self.extremes[key] = e.extremes(condition.poly, self.ranges)
            low, high, overflow = self.extremes[key]
            result = b.and_(result, b.not_(overflow))
            limit: Number | None = condition.high
            floor: Number | None = condition.low
            if condition.param is not None:
                first, last = self.element_range(condition.param, condition.size)
                limit = last if limit is None else e.pick("smin", last, limit)
                floor = first if floor is None else e.pick("smax", first, floor)
            if floor is not None:
                result = b.and_(result, b.icmp_signed(">=", _llvm(low), _llvm(floor)))
            if limit is not None:
                result = b.and_(result, b.icmp_signed("<=", _llvm(high), _llvm(limit)))
        return result


def nest_indices(nest: scf.ForOp) -> Iterator[SSAValue]:
    """The loop indices of `nest` and the loops inside it."""
    for op in nest.walk():
        if isinstance(op, scf.ForOp):
            yield op.body.blocks[0].args[0]
