"""`prefetch-next-iteration`: in a loop whose body multiplies tiles (`blk.dot_tile`), the
cache lines its loads will read in the next iteration are prefetched during this
iteration's multiplication.

A matmul's K loop copies a tile of A and a tile of B each iteration, row by row. Rows of a
large matrix lie pages apart, where the hardware's prefetchers do not follow, so each copy
waits for memory: in a 2048^3 bfloat16 matmul with 128 x 128 x 64 blocks the two copies
took a fifth of the time, most of it waiting. This pass runs on loop IR (after
`convert-blk-to-loops`) and gives the waiting to the arithmetic instead, as Triton's
software pipelining (`num_stages`) does on GPUs:

- a loop of the kernel's own code (not one of the lowering's `index` loops) qualifies
  when its body holds a `blk.dot_tile` in a nest of counted loops (the tile loops of a
  `dot`) and loads in other nests of counted loops (the copies: B's tile before the tile
  loops, A's rows inside them, a band of tile rows at a time), and its dots do at least
  `WORK_PER_LINE` vector multiply-adds per line to prefetch;
- a load's next address is its address computed again with the loop's index advanced by
  its step and each induction variable (a loop-carried integer the body advances by a
  loop-invariant amount, as `carry-pointer-offsets` leaves `a_ptrs += BLOCK_K`) advanced
  by its increment; a load whose address depends on anything else (a value loaded in the
  loop, another loop-carried value) is left alone;
- the load's nest is walked one cache line at a time along its contiguous dimension (the
  loop index that moves the address by one element), and every other dimension in full;
- its rows (every index but the contiguous one) are spread evenly over the visits of the
  dot's tile loops, each visit prefetching its share (`blk.prefetch`, which never faults:
  masks are ignored, and the last iteration's prefetches past the data are harmless); a
  row's address is computed once, its lines are constant offsets from it.

Nothing is read or written that was not before: only the time at which lines arrive
changes.

```mlir
%r = scf.for %k = %lb to %ub step %s iter_args(%o = %zero) -> (i64) : i32 {
  scf.for %i = %c0 to %c64 step %c1 {       // the copy of B's tile (in pairs)
    ...%x = blk.load %p mask %m other %z : !blk.ptr<bf16>...
  }
  scf.for %ti = %c0 to %c32 step %c1 {      // the dot's bands of tile rows
    scf.for %i = %c0 to %c4 step %c1 {      // the copy of the band's rows of A
      scf.for %j = %c0 to %c64 step %c1 {
        ...%p = blk.addptr %row, %o...
        %x = blk.load %p mask %m other %z : !blk.ptr<bf16>
        memref.store %x, %a[%ti * 4 + %i, %j] : memref<128x64xbf16>
      }
    }
    scf.for %tj = %c0 to %c2 step %c1 {     // the band's tiles
      // added: this visit's share of the 128 rows of A's next tile, 3 lines each
      scf.for %r = %lo to %hi step %c1 {
        ...%row = the address of row %r's first element next iteration...
        blk.prefetch %row   blk.prefetch (%row + 16)   blk.prefetch (%row + 31)
      }
      // and its share of B's next rows
      blk.dot_tile %a, %b, %c[...] ...
    }
  }
  scf.yield (%o + 64)
}
```
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, i64
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import Pure

from blkc import dtypes
from blkc.dialects import blk
from blkc.dialects.types import PtrType
from blkc.passes.pointer_analysis import integer_constant

LINE_BYTES = 64
"""The cache line of every x86-64 CPU (and most others)."""

WORK_PER_LINE = 32
"""A loop prefetches only where its dots do at least this many vector multiply-adds an
iteration per line it would prefetch: each prefetch costs a few instructions of address
arithmetic, which small tiles (already in cache) do not repay. On the Zen 4 machine a
16 x 16 x 16 float32 matmul tile (4 per line) ran 20% slower prefetching, 64 x 64 x 64
(26 per line) no faster, 128 x 128 x 64 (54 per line; bfloat16 47) 7-20% faster."""


@dataclass(frozen=True)
class PrefetchNextIterationPass(ModulePass):
    """Loops that multiply tiles prefetch their loads' next tiles while they multiply."""

    name = "prefetch-next-iteration"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for loop in [o for o in op.walk() if isinstance(o, scf.ForOp)]:
            _Loop(loop).prefetch()


def _counted_nest(op: Operation, stop: Operation) -> list[scf.ForOp] | None:
    """The loops from `stop`'s body down to `op` (outermost first), if each is a loop
    over 0, 1, ... n - 1 with constant n and no carried values; else None."""
    loops: list[scf.ForOp] = []
    parent = op.parent_op()
    while parent is not stop:
        if (
            not isinstance(parent, scf.ForOp)
            or parent.iter_args
            or integer_constant(parent.lb) != 0
            or integer_constant(parent.step) != 1
            or integer_constant(parent.ub) is None
        ):
            return None
        loops.append(parent)
        parent = parent.parent_op()
        if parent is None:
            return None
    return loops[::-1]


_DIVISIONS = (
    arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp, arith.CeilDivSIOp,
    arith.CeilDivUIOp, arith.FloorDivSIOp, blk.TrueDivOp, blk.FloorDivOp, blk.ModOp,
)  # fmt: skip


def _safe(op: Operation, stored: set[SSAValue]) -> bool:
    """Whether computing `op` again, where the loop's next iteration might not run, can do
    no harm: pure arithmetic (an integer division only by a constant other than 0 and -1,
    which traps on the smallest integer) or a read of a buffer the loop does not write."""
    if isinstance(op, memref.LoadOp):
        return op.memref not in stored
    if isinstance(op, _DIVISIONS):
        return integer_constant(op.operands[1]) not in (None, 0, -1)
    return op.has_trait(Pure) or op.name.startswith("arith.")


def _trips(loop: scf.ForOp) -> int:
    trips = integer_constant(loop.ub)
    assert trips is not None
    return trips


class _Loop:
    """One `scf.for` and what it takes to compute its next iteration's addresses."""

    def __init__(self, loop: scf.ForOp):
        self.loop = loop
        self.body = loop.body.block
        self.stored = {
            o.memref for o in loop.walk() if isinstance(o, memref.StoreOp)
        }  # buffers the loop writes: reading them again later may give other values

    def prefetch(self) -> None:
        if isinstance(self.body.args[0].type, IndexType):
            return  # a loop of the lowering's own (a dot's tiles), not of the kernel's code
        dot = next((o for o in self.loop.walk() if isinstance(o, blk.DotTileOp)), None)
        tiles = _counted_nest(dot, self.loop) if dot is not None else None
        if dot is None or tiles is None:
            return
        # Loads in a loop of the kernel's around the dot are that loop's to prefetch, and
        # the dot's innermost tile loop holds none; a copy in an outer tile loop (A's rows
        # for a band of tiles) is prefetched as any other.
        skipped = [t for t in tiles if not isinstance(t.body.block.args[0].type, IndexType)]
        skipped += tiles[-1:]
        inductions = self._inductions()
        loads = []
        for load in self.loop.walk():
            if not isinstance(load, blk.LoadOp) or any(t.is_ancestor(load) for t in skipped):
                continue
            nest = _counted_nest(load, self.loop)
            if nest is None:
                continue
            ops = self._slice(load.ptr, {*inductions, self.body.args[0]}, nest)
            if ops is None:
                continue
            walk = _line_walk(load.ptr, nest, ops)
            if walk is not None:
                loads.append((load, nest, ops, walk))
        lines = sum(_product(counts) for *_, (counts, _, _) in loads)
        if not loads or _vector_steps(self.loop) < WORK_PER_LINE * lines:
            return
        here = Block()
        visit, visits = _visit_index(here, tiles)
        mapping = self._next_iteration(here, inductions)
        for load, nest, ops, (counts, contiguous, line) in loads:
            self._spread(here, visit, visits, load, nest, ops, counts, contiguous, line, mapping)
        inner = tiles[-1].body.block if tiles else self.body
        anchor = dot if dot.parent_block() is inner else inner.first_op
        for op in list(here.ops):
            op.detach()
            inner.insert_op_before(op, anchor)
        index = self.body.args[0]
        following = mapping[index].owner
        if isinstance(following, Operation) and not following.results[0].uses:
            following.detach()
            following.erase()

    # -- what the next iteration computes ------------------------------------------------

    def _inductions(self) -> dict[SSAValue, tuple[SSAValue, list[Operation]]]:
        """The carried integers the body advances by a loop-invariant increment: each with
        that increment and the ops inside the loop that compute it."""
        found: dict[SSAValue, tuple[SSAValue, list[Operation]]] = {}
        yielded = self.body.last_op
        if not isinstance(yielded, scf.YieldOp):
            return found
        for arg, value in zip(self.body.args[1:], yielded.operands, strict=True):
            add = value.owner
            if not isinstance(add, arith.AddiOp | blk.AddOp):
                continue
            if add.lhs is arg:
                increment = add.rhs
            elif add.rhs is arg:
                increment = add.lhs
            else:
                continue
            ops = self._slice(increment, set(), [])
            if ops is not None:
                found[arg] = (increment, ops)
        return found

    def _slice(
        self, value: SSAValue, leaves: set[SSAValue], nest: Sequence[scf.ForOp]
    ) -> list[Operation] | None:
        """The ops inside the loop that `value` depends on, in order, where each is pure
        or reads a buffer the loop does not write, and the block arguments reached are
        `leaves` or the indices of `nest`; else None."""
        indices = {loop.body.block.args[0] for loop in nest}
        order: list[Operation] = []
        seen: set[Operation] = set()
        advanced: set[SSAValue] = set(leaves)  # values the next iteration changes

        def visit(v: SSAValue) -> bool:
            if isinstance(v, BlockArgument):
                return v in leaves or v in indices or not self.loop.is_ancestor(v.owner)
            op = v.owner
            assert isinstance(op, Operation)
            if op in seen or not self.loop.is_ancestor(op):
                return True
            if op.regions or not _safe(op, self.stored) or not all(visit(o) for o in op.operands):
                return False
            if isinstance(op, memref.LoadOp) and any(i in advanced for i in op.indices):
                return False  # a buffer read at the next iteration's index may be outside it
            if any(o in advanced for o in op.operands):
                advanced.update(op.results)
            seen.add(op)
            order.append(op)
            return True

        return order if visit(value) else None

    def _next_iteration(
        self, here: Block, inductions: dict[SSAValue, tuple[SSAValue, list[Operation]]]
    ) -> dict[SSAValue, SSAValue]:
        """The loop's index and induction variables as the next iteration sees them,
        computed at the end of `here`."""
        index = self.body.args[0]
        after = arith.AddiOp(index, self.loop.step)
        here.add_op(after)
        mapping: dict[SSAValue, SSAValue] = {index: after.result}
        for arg, (increment, ops) in inductions.items():
            copies: dict[SSAValue, SSAValue] = {}
            for op in ops:
                here.add_op(op.clone(copies))
            advanced = arith.AddiOp(arg, copies.get(increment, increment))
            here.add_op(advanced)
            mapping[arg] = advanced.result
        return mapping

    # -- the prefetches -----------------------------------------------------------------

    def _spread(
        self,
        here: Block,
        visit: SSAValue,
        visits: int,
        load: blk.LoadOp,
        nest: Sequence[scf.ForOp],
        ops: Sequence[Operation],
        counts: Sequence[int],
        contiguous: int,
        line: int,
        mapping: dict[SSAValue, SSAValue],
    ) -> None:
        """Visit `visit` of `visits` prefetches its share of `load`'s rows (every index
        of its nest but the contiguous one): a loop over rows r in [visit * R / visits,
        (visit + 1) * R / visits) of the R of its nest, each row's address computed once
        (at contiguous index 0) and each of its lines a constant number of elements on."""
        rows = _product([c for position, c in enumerate(counts) if position != contiguous])
        index = IndexType()

        def const(n: int, block: Block) -> SSAValue:
            op = arith.ConstantOp(IntegerAttr(n, index))
            block.add_op(op)
            return op.result

        def share(v: SSAValue) -> SSAValue:
            scaled = arith.MuliOp(v, const(rows, here))
            part = arith.DivUIOp(scaled, const(visits, here))
            here.add_ops([scaled, part])
            return part.result

        first = share(visit)
        following = arith.AddiOp(visit, const(1, here))
        here.add_op(following)
        last = share(following.result)
        step = Block(arg_types=[index])
        copies = dict(mapping)
        rest: SSAValue = step.args[0]
        positions = [p for p in range(len(counts) - 1, -1, -1) if p != contiguous]
        for order, position in enumerate(positions):  # the innermost dimension first
            digit = rest
            if order < len(positions) - 1:
                count = const(counts[position], step)
                remainder, quotient = arith.RemUIOp(rest, count), arith.DivUIOp(rest, count)
                step.add_ops([remainder, quotient])
                digit, rest = remainder.result, quotient.result
            copies[nest[position].body.block.args[0]] = digit
        copies[nest[contiguous].body.block.args[0]] = const(0, step)
        for op in ops:
            step.add_op(op.clone(copies))
        row = copies.get(load.ptr, load.ptr)
        trips = _trips(nest[contiguous])
        for number in range(counts[contiguous]):  # a line's first element, the last one last
            element = min(number * line, trips - 1)
            address = row
            if element:
                offset = blk.ConstantOp(IntegerAttr(element, i64))
                moved = blk.AddPtrOp(row, offset, row.type)
                step.add_ops([offset, moved])
                address = moved.result
            step.add_op(blk.PrefetchOp(address))
        step.add_op(scf.YieldOp())
        here.add_op(scf.ForOp(first, last, const(1, here), [], step))


def _product(counts: Sequence[int]) -> int:
    product = 1
    for count in counts:
        product *= count
    return product


def _vector_steps(loop: scf.ForOp) -> int:
    """The vector multiply-adds an iteration of `loop` does in its `blk.dot_tile`s (each
    tile's vectors times its steps, times the visits of its counted loops)."""
    total = 0
    for tile in loop.walk():
        if not isinstance(tile, blk.DotTileOp):
            continue
        nest = _counted_nest(tile, loop)
        lhs = tile.lhs.type
        if nest is None or not isinstance(lhs, MemRefType):
            continue
        k = lhs.get_shape()[-1]
        steps = (k + 1) // 2 if tile.pairs is not None else k
        vectors = tile.rows.value.data * (tile.cols.value.data // tile.lanes.value.data)
        total += _product([_trips(o) for o in nest]) * vectors * steps
    return total


def _visit_index(here: Block, tiles: Sequence[scf.ForOp]) -> tuple[SSAValue, int]:
    """The visit's number among the tile loops' visits (row-major), and their count."""
    index = IndexType()
    zero = arith.ConstantOp(IntegerAttr(0, index))
    here.add_op(zero)
    visit: SSAValue = zero.result
    visits = 1
    for loop in tiles:
        trips = arith.ConstantOp(IntegerAttr(_trips(loop), index))
        scaled = arith.MuliOp(visit, trips)
        added = arith.AddiOp(scaled, loop.body.block.args[0])
        here.add_ops([trips, scaled, added])
        visit, visits = added.result, visits * _trips(loop)
    return visit, visits


def _line_walk(
    ptr: SSAValue, nest: Sequence[scf.ForOp], ops: Sequence[Operation]
) -> tuple[list[int], int, int] | None:
    """How to walk the lines `ptr` reads over `nest`: the trip counts with the contiguous
    dimension counted in lines (plus one for a last line that is not aligned), that
    dimension, and the elements a line holds; None where no index of the nest moves the
    address by one element."""
    pointee = ptr.type.pointee if isinstance(ptr.type, PtrType) else None
    if pointee is None:
        return None
    width = max(8, dtypes.from_xdsl(pointee).width)  # booleans take a byte each
    line = max(1, LINE_BYTES * 8 // width)
    in_slice = set(ops)
    contiguous = None
    for position in range(len(nest) - 1, -1, -1):
        if _derivative(ptr, nest[position].body.block.args[0], in_slice, {}) == 1:
            contiguous = position
            break
    if contiguous is None:
        return None
    counts = [_trips(loop) for loop in nest]
    trips = counts[contiguous]
    counts[contiguous] = (trips - 1 + line - 1) // line + 1 if trips > 1 else 1
    return counts, contiguous, line


_SAME = (arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, blk.CastOp)
_SUMS = (arith.AddiOp, arith.SubiOp, blk.AddOp, blk.SubOp, blk.AddPtrOp)


def _derivative(
    value: SSAValue, index: SSAValue, ops: set[Operation], memo: dict[SSAValue, int | None]
) -> int | None:
    """How far `value` moves (in elements, for pointers) when `index` grows by one, where
    the slice's arithmetic says so; None where it does not. Of a select's two values the
    first known one counts (a prefetch's address may be wrong, never harmful)."""
    if value is index:
        return 1
    if isinstance(value, BlockArgument) or value.owner not in ops:
        return 0
    if value in memo:
        return memo[value]
    op = value.owner
    assert isinstance(op, Operation)

    def of(v: SSAValue) -> int | None:
        return _derivative(v, index, ops, memo)

    result: int | None
    if isinstance(op, arith.ConstantOp):
        result = 0
    elif isinstance(op, _SAME):
        result = of(op.operands[0])
    elif isinstance(op, _SUMS):
        a, b = of(op.operands[0]), of(op.operands[1])
        sign = -1 if isinstance(op, arith.SubiOp | blk.SubOp) else 1
        result = None if a is None or b is None else a + sign * b
    elif isinstance(op, arith.MuliOp | blk.MulOp):
        lhs, rhs = op.operands
        a, b = of(lhs), of(rhs)
        ca, cb = integer_constant(lhs), integer_constant(rhs)
        if a == 0 and b == 0:
            result = 0
        elif a == 0 and ca is not None and b is not None:
            result = ca * b
        elif b == 0 and cb is not None and a is not None:
            result = cb * a
        else:
            result = None
    elif isinstance(op, arith.SelectOp | blk.WhereOp):
        a, b = of(op.operands[1]), of(op.operands[2])
        result = a if a is not None else b
    else:
        result = 0 if all(of(o) == 0 for o in op.operands) else None
    memo[value] = result
    return result


__all__ = ["PrefetchNextIterationPass"]
