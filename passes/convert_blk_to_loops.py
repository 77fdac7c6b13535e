"""`convert-blk-to-loops`: strict block IR to loops over scalars.

Every block value either *fuses* into the loops of its consumers (its element is
recomputed where it is needed, from the elements of its operands: a broadcast is an index
mapping, never a copy) or is *materialized* in a fixed-size stack buffer (`memref.alloca`)
by a loop nest of its own. Sinks (stores, atomics, reductions, scans, `dot`, prints,
asserts, loop-carried blocks) each get one loop nest whose body computes the fused
elements it needs.

Materialized: results of reductions, scans, `dot` and atomics; loop-carried blocks; the
operands of `dot` (A, where only the `dot` reads it, a band of the tile rows at a time,
inside the `dot`'s tile loops); and values whose recomputation would be costly or wrong: an
expensive value (one that loads, divides or calls a math function) used more than once or
in another region, a load whose consumer runs after a write to memory, and a load fused
into the nest of a write that may change what it reads.

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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IndexType, ModuleOp, UnitAttr, i1, i32
from xdsl.ir import Attribute, Block, BlockArgument, SSAValue
from xdsl.passes import ModulePass

from blkc import dtypes
from blkc.dialects import blk
from blkc.dialects.types import shape_of
from blkc.passes.block_lowering import (
    REASSOC_ATTR,
    BlockLowering,
    Builder,
    Index,
    LoopBody,
    NestBody,
    accumulator_type,
    defined_in,
    relies_on_disjoint_args,
)
from blkc.passes.fusion_plan import elem_type

# `REASSOC_ATTR` and `relies_on_disjoint_args` live in `block_lowering`: kept importable
# from here for existing imports.
__all__ = [
    "REASSOC_ATTR",
    "UNLIKELY",
    "ConvertBlkToLoopsPass",
    "LoopLowering",
    "relies_on_disjoint_args",
]


@dataclass(frozen=True)
class ConvertBlkToLoopsPass(ModulePass):
    """Lower every block to loops over its elements, fusing elementwise chains.

    With `disjoint_args`, accesses through different pointer arguments are taken not to
    overlap (what the launcher checks before it runs the `noalias` variant).
    `vector_bits` and `vector_registers` describe the target's vector registers (the
    `cpu` target passes the host's, `blkc.runtime.cpu_target`): `dot` sizes its register
    tile from them (`dot_register_tile`). Where rows of the result are whole vectors, each
    register tile is one `blk.dot_tile`, which the code generator turns into vector code:
    fused multiply-adds for float32 and float64 (float16 and bfloat16 operands converted to
    float32 buffers first, accumulating in float32), and, for two blocks of one of the
    element types `pair_dot_types` names (of `blk.PAIR_DOTS`: bfloat16, int8, uint8)
    accumulated in its type's accumulator, the target's instructions that multiply pairs
    of elements into 32-bit lanes. Other `dot`s carry their tile as scalars, which LLVM's
    SLP vectorizer packs."""

    name = "convert-blk-to-loops"
    disjoint_args: bool = False
    vector_bits: int = 256
    vector_registers: int = 16
    pair_dot_types: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.vector_bits < 32 or self.vector_bits & (self.vector_bits - 1):
            raise ValueError(f"vector-bits must be a power of two >= 32, got {self.vector_bits}")
        if self.vector_registers < 4:
            raise ValueError(f"vector-registers must be at least 4, got {self.vector_registers}")
        for name in self.pair_dot_types:
            if name not in blk.PAIR_DOTS:
                raise ValueError(
                    f"pair-dot-types: '{name}' is not one of {', '.join(blk.PAIR_DOTS)}"
                )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nested in list(op.walk()):
            if isinstance(nested, func.FuncOp) and not nested.is_declaration:
                lowering = LoopLowering(
                    nested,
                    self.disjoint_args,
                    self.vector_bits,
                    self.vector_registers,
                    self.pair_dot_types,
                )
                lowering.run()
                lowering.mark_disjoint_args()


_WIDENED_DOTS = {"float16": "float32", "bfloat16": "float32"}
"""The narrow float element types whose `dot` converts its operands to the accumulator's
type once (into buffers) and then runs `blk.dot_tile`'s fused multiply-adds on them."""

_SPARE_REGISTERS = 2
"""Vector registers a `dot` tile leaves beside its accumulators and its row of B: the
broadcast element of A, and one for the register allocator's own use."""

_TILE_ELEMENTS = 128
"""The most accumulators a `dot` tile holds, in elements. Where the tile is scalars carried
by the K loop (not a `blk.dot_tile`), LLVM's SLP vectorizer packs them into vectors: its
time grows steeply with their number (a 6 x 64 float32 tile took 1.5-2 s to compile,
4 x 32 0.5 s), while 8 vector accumulators already cover the FMA latency of the cores
measured (4 x 32 and 6 x 64 ran at the same speed with AVX-512, as 8 x 32 and 4 x 64
`blk.dot_tile`s of bfloat16 pairs did)."""


_TILE_VECTORS = 16
"""The most accumulators a `blk.dot_tile` holds, in vectors. Its K loop is vector code from
the start (no SLP vectorizer), so only the FMA latency bounds it from below: a core with
two vector FMA pipes needs about twice the latency (4 to 6 cycles) in independent
accumulators. On a Zen 5 core (two 512-bit FMA pipes), 8 accumulators held a bfloat16
1024^3 matmul to 352 GFLOP/s a core and 16 (4 x 64) took it to 472, float32 from 205 to
229 and int8 from 302 to 383; 24 (6 x 64, with a 2-row tail in a 128-row block) gave 446
for bfloat16."""


def dot_register_tile(
    m: int, n: int, lanes: int, registers: int, vector_tile: bool = False
) -> tuple[int, int]:
    """The register tile (rows, cols) of an m x n `dot` result on a target with `registers`
    vector registers of `lanes` accumulator elements.

    Each step of the K loop loads `cols / lanes` vectors of B, broadcasts `rows` elements
    of A and issues `rows * cols / lanes` vector FMAs into accumulators that stay in
    registers: the tile takes as many rows as the registers hold beside the vectors of B
    (`_SPARE_REGISTERS` left over), at most `_TILE_VECTORS` vectors of accumulators for a
    `blk.dot_tile` (`vector_tile`) and `_TILE_ELEMENTS` scalars otherwise, and, among
    widths of 1 to 4 vectors that divide `n`, the one that issues the most FMAs per load
    over the whole result (the narrower on a tie; the last rows, `m` modulo `rows`, form a
    shorter tile). AVX2 (16 registers of 8 float32) gets 6 x 16; AVX-512 (32 of 16) 4 x 64
    for a `blk.dot_tile` and 4 x 32 for scalars, where the result's shape allows."""
    most = _TILE_VECTORS * lanes if vector_tile else _TILE_ELEMENTS
    best: tuple[float, int, int] | None = None
    for vectors in (1, 2, 3, 4):
        cols = vectors * lanes
        if n % cols:
            continue
        rows = min(m, (registers - _SPARE_REGISTERS - vectors) // vectors, most // cols)
        if rows < 1:
            continue
        tail = m % rows
        loads = (m // rows) * (rows + vectors) + (tail + vectors if tail else 0)
        score = m * vectors / loads
        if best is None or score > best[0]:
            best = (score, rows, cols)
    if best is not None:
        return best[1], best[2]
    # Narrower than a vector (or not a multiple of one): the widest power of two dividing n,
    # one (partial) vector per row.
    cols = next(c for c in (16, 8, 4, 2, 1) if c <= lanes and n % c == 0)
    return max(1, min(m, registers - _SPARE_REGISTERS - 1, most // cols)), cols


class LoopLowering(BlockLowering):
    """One function's blocks as loop nests over all their elements, run by one thread;
    materialized blocks in stack buffers (`memref.alloca`)."""

    program_on_one_thread = True

    def __init__(
        self,
        function: func.FuncOp,
        disjoint_args: bool = False,
        vector_bits: int = 256,
        vector_registers: int = 16,
        pair_dot_types: Sequence[str] = (),
    ):
        super().__init__(function, disjoint_args)
        self.vector_bits = vector_bits
        self.vector_registers = vector_registers
        self.pair_dot_types = tuple(pair_dot_types)

    def alloca(self, shape: Sequence[int], elem: Attribute) -> SSAValue:
        op = memref.AllocaOp.get(elem, alignment=64, shape=list(shape))
        first = self.entry.first_op
        assert first is not None
        self.entry.insert_op_before(op, first)
        return op.memref

    def scratch(self, shape: Sequence[int], elem: Attribute) -> SSAValue:
        return self.alloca(shape, elem)

    def fence(self, here: Builder) -> None:
        """Nothing to order: one thread runs every loop, in program order."""

    def loop_nest(
        self, builder: Builder, shape: Sequence[int], body: NestBody, inits: Sequence[SSAValue] = ()
    ) -> list[SSAValue]:
        """Nested `scf.for` loops over `shape`; `body` gets the indices and carried values
        and returns the next carried values. Returns the final carried values."""
        ivs: Index = []

        def level(b: Builder, depth: int, carried: list[SSAValue]) -> list[SSAValue]:
            if depth == len(shape):
                return body(LoopBody(b), list(ivs), carried)
            block = Block(arg_types=[IndexType(), *(c.type for c in carried)])
            inner = Builder(block)
            ivs.append(block.args[0])
            results = level(inner, depth + 1, list(block.args[1:]))
            ivs.pop()
            inner.insert(scf.YieldOp(*results))
            loop = scf.ForOp(self.const(0), self.const(shape[depth]), self.const(1), carried, block)
            b.insert(loop)
            return list(loop.results)

        return level(builder, 0, list(inits))

    def materialize(self, value: SSAValue, here: Builder) -> None:
        buffer = self.alloca(shape_of(value.type), elem_type(value))
        self.buffers[value] = buffer

        def body(b: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            element = self.element_of_owner(value, idx, b)
            b.builder.insert(memref.StoreOp.get(element, buffer, idx))
            return []

        self.loop_nest(here, shape_of(value.type), body)

    def _ensure_buffer(self, value: SSAValue, here: Builder) -> SSAValue:
        """`value`'s buffer, computed at `here` where it has none. A block of an enclosing
        block computed here (in a loop's body) serves here only: what follows reads it
        from where it is defined, for the loop may not run at all."""
        if value in self.buffers:
            return self.buffers[value]
        self.materialize(value, here)
        buffer = self.buffers[value]
        if not defined_in(value, here.block):
            self.forget_buffer(value, None)
        return buffer

    def copy_into(
        self, value: SSAValue, buffer: SSAValue, here: Builder, temporary: bool = False
    ) -> None:
        shape = shape_of(value.type)
        source = value
        if temporary:
            source_buffer = self._ensure_buffer(value, here)
            if source_buffer is buffer:
                return  # computed in place (a dot accumulating into its loop's buffer)

            def copy(b: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                element = b.builder.value(memref.LoadOp.get(source_buffer, idx))
                b.builder.insert(memref.StoreOp.get(element, buffer, idx))
                return []

            self.loop_nest(here, shape, copy)
            return

        def fill(b: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            b.builder.insert(memref.StoreOp.get(self.element(source, idx, b), buffer, idx))
            return []

        self.loop_nest(here, shape, fill)

    def lower_atomic(self, op: blk.AtomicRMWOp | blk.AtomicCASOp, here: Builder) -> None:
        shape = shape_of(op.ptr.type)
        buffer = self.alloca(shape, elem_type(op.result))
        self.buffers[op.result] = buffer

        def body(b: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            operands = [self.element(o, idx, b) for o in op.operands]
            sizes = {}
            if isinstance(op, blk.AtomicRMWOp):
                sizes = {"operandSegmentSizes": op.properties["operandSegmentSizes"]}
            clone = type(op).create(
                operands=operands,
                result_types=[elem_type(op.result)],
                properties={**dict(op.properties), **sizes},
            )
            clone.location = op.location
            old = b.builder.value(clone)
            b.builder.insert(memref.StoreOp.get(old, buffer, idx))
            return []

        self.loop_nest(here, shape, body)

    def lower_reduce(self, op: blk.ReduceOp, here: Builder) -> None:
        kind = op.kind.data
        src_shape = list(shape_of(op.src.type))
        axes = list(range(len(src_shape))) if op.axis is None else [op.axis.value.data]
        outer = [d for d in range(len(src_shape)) if d not in axes]
        src_elem = elem_type(op.src)
        acc_elem = op.acc_dtype if op.acc_dtype is not None else src_elem
        if kind in (blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN):
            acc_elem = src_elem
        acc_elem = accumulator_type(kind, acc_elem)
        result_elem = elem_type(op.result)

        def reduce_in(
            b: Builder, out_idx: Index, nan: blk.Nan, signed_zeros: bool = True
        ) -> list[SSAValue]:
            inits = self.reduce_init(kind, acc_elem, nan)
            if kind in (blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN):
                inits = [inits[0], self.const(0, i32)]

            def inner(ib: LoopBody, red_idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                full: Index = [self.const(0)] * len(src_shape)
                for d, i in zip(outer, out_idx, strict=True):
                    full[d] = i
                for d, i in zip(axes, red_idx, strict=True):
                    full[d] = i
                x = self.element(op.src, full, ib)
                position = self.linear_i32(red_idx, [src_shape[d] for d in axes], ib)
                return self.combine(
                    kind, carried, x, acc_elem, position, ib.builder, nan, signed_zeros
                )

            return self.loop_nest(b, [src_shape[d] for d in axes], inner, inits)

        def exact(at: Builder, out_idx: Index) -> list[SSAValue]:
            nan = blk.nan_of(op)
            extremum = kind in (blk.ReduceKind.MAX, blk.ReduceKind.MIN)
            if nan is blk.Nan.NUM and extremum and dtypes.from_xdsl(acc_elem).is_float:
                return _skipping_nan(at, lambda mode, here: reduce_in(here, out_idx, mode))
            return reduce_in(at, out_idx, nan)

        def reduce_over(b: LoopBody, out_idx: Index) -> list[SSAValue]:
            extremum = kind in (blk.ReduceKind.MAX, blk.ReduceKind.MIN)
            if not extremum or dtypes.from_xdsl(acc_elem).name not in ("float32", "float64"):
                return exact(b.builder, out_idx)
            (fast,) = reduce_in(b.builder, out_idx, blk.Nan.PROPAGATE, signed_zeros=False)
            zero = self.scalar_constant(0, acc_elem)
            return _redone_where_zero_or_nan(b.builder, fast, zero, lambda at: exact(at, out_idx))

        if not outer:
            final = reduce_over(LoopBody(here), [])
            value = final[1] if kind in (blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN) else final[0]
            value = self.cast(value, result_elem, here)
            op.result.replace_all_uses_with(value)
            op.detach()
            op.erase()
            return
        buffer = self.alloca([src_shape[d] for d in outer], result_elem)
        self.buffers[op.result] = buffer

        def body(b: LoopBody, out_idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            final = reduce_over(b, out_idx)
            value = final[1] if kind in (blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN) else final[0]
            b.builder.insert(
                memref.StoreOp.get(self.cast(value, result_elem, b.builder), buffer, out_idx)
            )
            return []

        self.loop_nest(here, [src_shape[d] for d in outer], body)

    def lower_scan(self, op: blk.ScanOp, here: Builder) -> None:
        shape = list(shape_of(op.src.type))
        axis = op.axis.value.data
        kind = op.kind.data
        acc_elem = op.acc_dtype if op.acc_dtype is not None else elem_type(op.src)
        acc_elem = accumulator_type(kind, acc_elem)
        result_elem = elem_type(op.result)
        buffer = self.alloca(shape, result_elem)
        self.buffers[op.result] = buffer
        outer = [d for d in range(len(shape)) if d != axis]

        def body(b: LoopBody, out_idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            def inner(ib: LoopBody, red_idx: Index, acc: list[SSAValue]) -> list[SSAValue]:
                full: Index = [self.const(0)] * len(shape)
                for d, i in zip(outer, out_idx, strict=True):
                    full[d] = i
                full[axis] = red_idx[0]
                x = self.element(op.src, full, ib)
                (new,) = self.combine(
                    kind, acc, x, acc_elem, self.const(0, i32), ib.builder, blk.nan_of(op)
                )
                ib.builder.insert(
                    memref.StoreOp.get(self.cast(new, result_elem, ib.builder), buffer, full)
                )
                return [new]

            inits = self.reduce_init(kind, acc_elem, blk.nan_of(op))
            self.loop_nest(b.builder, [shape[axis]], inner, inits)
            return []

        self.loop_nest(here, [shape[d] for d in outer], body)

    def lower_reduce_region(self, op: blk.ReduceRegionOp, here: Builder) -> None:
        """Left to right: the first element, then the combiner over the others."""
        shape = shape_of(op.srcs[0].type)
        axis = op.axis.value.data
        outer = [size for d, size in enumerate(shape) if d != axis]

        def reduce_at(b: LoopBody, out_idx: Index) -> list[SSAValue]:
            first = [self.element(s, _with_axis(out_idx, axis, self.const(0)), b) for s in op.srcs]

            def step(ib: LoopBody, red_idx: Index, acc: list[SSAValue]) -> list[SSAValue]:
                k = ib.builder.value(arith.AddiOp(red_idx[0], self.const(1)))
                nxt = [self.element(s, _with_axis(out_idx, axis, k), ib) for s in op.srcs]
                return self.apply_combiner(op, acc, nxt, ib.builder)

            return self.loop_nest(b.builder, [shape[axis] - 1], step, first)

        if not outer:
            for result, value in zip(op.combined, reduce_at(LoopBody(here), []), strict=True):
                result.replace_all_uses_with(value)
            op.detach()
            op.erase()
            return
        buffers = [self.alloca(outer, elem_type(r)) for r in op.combined]
        self.buffers.update(zip(op.combined, buffers, strict=True))

        def body(b: LoopBody, out_idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            for value, buffer in zip(reduce_at(b, out_idx), buffers, strict=True):
                b.builder.insert(memref.StoreOp.get(value, buffer, out_idx))
            return []

        self.loop_nest(here, outer, body)

    def lower_scan_region(self, op: blk.ScanRegionOp, here: Builder) -> None:
        """From the first element to the last (`reverse`: the last to the first), storing
        each prefix."""
        shape = list(shape_of(op.srcs[0].type))
        axis = op.axis.value.data
        size = shape[axis]
        buffers = [self.alloca(shape, elem_type(r)) for r in op.combined]
        self.buffers.update(zip(op.combined, buffers, strict=True))
        outer = shape[:axis] + shape[axis + 1 :]

        def store(b: LoopBody, values: list[SSAValue], idx: Index) -> None:
            for value, buffer in zip(values, buffers, strict=True):
                b.builder.insert(memref.StoreOp.get(value, buffer, idx))

        def body(b: LoopBody, out_idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            start = _with_axis(out_idx, axis, self.const(size - 1 if op.reverse else 0))
            first = [self.element(s, start, b) for s in op.srcs]
            store(b, first, start)

            def step(ib: LoopBody, scan_idx: Index, acc: list[SSAValue]) -> list[SSAValue]:
                if op.reverse:
                    k = ib.builder.value(arith.SubiOp(self.const(size - 2), scan_idx[0]))
                else:
                    k = ib.builder.value(arith.AddiOp(scan_idx[0], self.const(1)))
                idx = _with_axis(out_idx, axis, k)
                nxt = [self.element(s, idx, ib) for s in op.srcs]
                combined = self.apply_combiner(op, acc, nxt, ib.builder)
                store(ib, combined, idx)
                return combined

            self.loop_nest(b.builder, [size - 1], step, first)
            return []

        self.loop_nest(here, outer, body)

    def lower_dot(self, op: blk.DotOp, here: Builder) -> None:
        lhs_shape, rhs_shape = shape_of(op.lhs.type), shape_of(op.rhs.type)
        out_shape = shape_of(op.result.type)
        acc_elem = op.acc_dtype if op.acc_dtype is not None else elem_type(op.result)
        if self._accumulates_in_place(op, acc_elem):
            acc_buffer = self.buffers[op.acc]  # type: ignore[index]
        else:
            acc_buffer = self.alloca(out_shape, acc_elem)

            def init(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                if op.acc is not None:
                    value = self.cast(self.element(op.acc, idx, bd), acc_elem, bd.builder)
                else:
                    value = self.scalar_constant(0, acc_elem)
                bd.builder.insert(memref.StoreOp.get(value, acc_buffer, idx))
                return []

            self.loop_nest(here, out_shape, init)
        batch = list(out_shape[:-2])
        m, k, n = lhs_shape[-2], lhs_shape[-1], rhs_shape[-1]
        lanes = max(1, self.vector_bits // dtypes.from_xdsl(acc_elem).width)
        fused = dtypes.from_xdsl(acc_elem).name in ("float32", "float64")
        pairs = self._tiles_of(op, acc_elem, n, lanes, blk.PAIR_DOTS, self.pair_dot_types)
        widen = not pairs and self._tiles_of(op, acc_elem, n, lanes, _WIDENED_DOTS, _WIDENED_DOTS)
        vectors = (
            pairs or widen or self._tiles_of(op, acc_elem, n, lanes, blk.FMA_DOTS, blk.FMA_DOTS)
        )
        rows, cols = dot_register_tile(m, n, lanes, self.vector_registers, vectors)
        # A block of A computed for the dot alone (a load of its tile) is computed a band
        # of tile rows at a time, each band just before its tiles (`_band_by_band`).
        by_rows = vectors and self._band_by_band(op)
        a_elem = acc_elem if widen else elem_type(op.lhs)
        if by_rows:
            a = self.alloca(lhs_shape, a_elem)
        elif widen:  # float16 or bfloat16 into float32 buffers, once for every tile
            a = self._widened(op.lhs, acc_elem, here)
        else:
            a = self._ensure_buffer(op.lhs, here)
        if widen:
            b_buf = self._widened(op.rhs, acc_elem, here)
        else:
            b_buf = self._pack_pairs(op.rhs, here) if pairs else self._ensure_buffer(op.rhs, here)

        def a_rows(builder: Builder, bi: Index, row0: SSAValue, count: int) -> None:
            def copy(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                r, kk = idx
                row = bd.builder.value(arith.AddiOp(row0, r))
                value = self.cast(self.element(op.lhs, [*bi, row, kk], bd), a_elem, bd.builder)
                bd.builder.insert(memref.StoreOp.get(value, a, [*bi, row, kk]))
                return []

            self.loop_nest(builder, [count, k], copy)

        def tile(builder: Builder, bi: Index, row0: SSAValue, col0: SSAValue, rows: int) -> None:
            if vectors:
                where = [*bi, row0, col0]
                builder.insert(blk.DotTileOp(a, b_buf, acc_buffer, where, rows, cols, lanes, pairs))
                return
            # A rows x cols tile of the result stays in registers (carried scalars, which
            # LLVM's SLP vectorizer packs along the columns) across the whole k loop.
            ms = [row0] + [builder.value(arith.AddiOp(row0, self.const(i))) for i in range(1, rows)]
            ns = [col0] + [builder.value(arith.AddiOp(col0, self.const(j))) for j in range(1, cols)]
            places = [[*bi, mi, ni] for mi in ms for ni in ns]
            inits = [builder.value(memref.LoadOp.get(acc_buffer, p)) for p in places]
            block = Block(arg_types=[IndexType(), *(v.type for v in inits)])
            inner = Builder(block)
            ki = block.args[0]
            xs = [
                self.cast(inner.value(memref.LoadOp.get(a, [*bi, mi, ki])), acc_elem, inner)
                for mi in ms
            ]
            ys = [
                self.cast(inner.value(memref.LoadOp.get(b_buf, [*bi, ki, ni])), acc_elem, inner)
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

        def full(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            *bi, ti, tj = idx
            row0 = bd.builder.value(arith.MuliOp(ti, self.const(rows)))
            col0 = bd.builder.value(arith.MuliOp(tj, self.const(cols)))
            tile(bd.builder, bi, row0, col0, rows)
            return []

        def band(builder: Builder, bi: Index, row0: SSAValue, count: int) -> None:
            """The band of `count` rows from `row0`: its rows of A, then its tiles."""
            a_rows(builder, bi, row0, count)

            def across(bt: LoopBody, jdx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                col0 = bt.builder.value(arith.MuliOp(jdx[0], self.const(cols)))
                tile(bt.builder, bi, row0, col0, count)
                return []

            self.loop_nest(builder, [n // cols], across)

        def bands(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            *bi, ti = idx
            band(bd.builder, bi, bd.builder.value(arith.MuliOp(ti, self.const(rows))), rows)
            return []

        if by_rows:
            self.loop_nest(here, [*batch, m // rows], bands)
        else:
            self.loop_nest(here, [*batch, m // rows, n // cols], full)
        if m % rows:  # the last rows: a shorter tile

            def last(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                *bi, tj = idx
                col0 = bd.builder.value(arith.MuliOp(tj, self.const(cols)))
                tile(bd.builder, bi, self.const(m - m % rows), col0, m % rows)
                return []

            def last_band(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                band(bd.builder, idx, self.const(m - m % rows), m % rows)
                return []

            if by_rows:
                self.loop_nest(here, batch, last_band)
            else:
                self.loop_nest(here, [*batch, n // cols], last)
        if acc_elem == elem_type(op.result):
            self.buffers[op.result] = acc_buffer
        else:
            result = self.alloca(out_shape, elem_type(op.result))

            def convert(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                value = bd.builder.value(memref.LoadOp.get(acc_buffer, idx))
                bd.builder.insert(
                    memref.StoreOp.get(
                        self.cast(value, elem_type(op.result), bd.builder), result, idx
                    )
                )
                return []

            self.loop_nest(here, out_shape, convert)
            self.buffers[op.result] = result

    def _band_by_band(self, op: blk.DotOp) -> bool:
        """Whether `dot` computes its A (`lhs`) a band of tile rows at a time, inside its
        tile loops: where A has no buffer yet (a load of A's tile that only this dot reads,
        or values computed from such), each band's rows of A are written to A's buffer
        just before the band's register tiles read them. The copy's loads and stores then
        run beside the multiply-adds of the tiles before, on lines still in the first-level
        cache, where a copy of the whole tile first had a phase of its own, whose stores
        went to lines the tiles' accumulators had pushed out to the second level: a
        bfloat16 1024^3 matmul went from 856-894 to 888-962 GFLOP/s, float32 from 397-440
        to 456-459 (Zen 5). The tiles write only the accumulator's buffer, which computing
        A never reads where the dot adds into it in place (`_accumulates_in_place`: only
        the dot reads `acc` there), so each element of A is what it was before the dot."""
        return op.lhs not in self.buffers

    @staticmethod
    def _tiles_of(
        op: blk.DotOp,
        acc_elem: Attribute,
        n: int,
        lanes: int,
        kinds: dict[str, str],
        allowed: Iterable[str],
    ) -> bool:
        """Whether `dot`'s register tiles are `blk.dot_tile`s of `kinds` (`blk.PAIR_DOTS`
        or `blk.FMA_DOTS`): both operands hold one of the `allowed` element types, the
        accumulator is that type's, and rows of the result are whole vectors."""
        name = dtypes.from_xdsl(elem_type(op.lhs)).name
        return (
            name in allowed
            and name in kinds
            and elem_type(op.rhs) == elem_type(op.lhs)
            and dtypes.from_xdsl(acc_elem).name == kinds[name]
            and n % lanes == 0
        )

    def _widened(self, value: SSAValue, elem: Attribute, here: Builder) -> SSAValue:
        """Block `value`'s elements converted to `elem`, in a buffer of their own: read from
        `value`'s buffer where it has one, else computed (a load of a tile lands there at
        once)."""
        shape = shape_of(value.type)
        buffer = self.alloca(shape, elem)

        def body(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            element = self.cast(self.element(value, idx, bd), elem, bd.builder)
            bd.builder.insert(memref.StoreOp.get(element, buffer, idx))
            return []

        self.loop_nest(here, shape, body)
        return buffer

    def _pack_pairs(self, b: SSAValue, here: Builder) -> SSAValue:
        """Block `b` (`[batch] x K x N`) in the layout of the pairs `blk.dot_tile` reads: a
        buffer `[batch] x ceil(K/2) x N x 2` holding `b[2p, j]` and `b[2p + 1, j]` side by
        side at (p, j), and zero after the last row where K is odd. Each tile of the `dot`
        then loads a vector of pairs with one load. The elements come from `b`'s buffer
        where it has one, else straight from what computes them (a load of B's tile
        lands in the pairs at once)."""
        *batch, k, n = shape_of(b.type)
        elem = elem_type(b)
        packed = self.alloca([*batch, (k + 1) // 2, n, 2], elem)

        def whole(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
            *bi, p, j, half = idx
            row = bd.builder.value(
                arith.AddiOp(bd.builder.value(arith.MuliOp(p, self.const(2))), half)
            )
            bd.builder.insert(memref.StoreOp.get(self.element(b, [*bi, row, j], bd), packed, idx))
            return []

        self.loop_nest(here, [*batch, k // 2, n, 2], whole)
        if k % 2:

            def last(bd: LoopBody, idx: Index, carried: list[SSAValue]) -> list[SSAValue]:
                *bi, j = idx
                value = self.element(b, [*bi, self.const(k - 1), j], bd)
                where = [*bi, self.const(k // 2), j]
                bd.builder.insert(memref.StoreOp.get(value, packed, [*where, self.const(0)]))
                zero = self.scalar_constant(0, elem)
                bd.builder.insert(memref.StoreOp.get(zero, packed, [*where, self.const(1)]))
                return []

            self.loop_nest(here, [*batch, n], last)
        return packed

    def _accumulates_in_place(self, op: blk.DotOp, acc_elem: Attribute) -> bool:
        """Whether `dot` may add into the buffer of its `acc`: a block carried by the loop
        around it (`scf.for`, or `scf.while`, whose condition passes it on unchanged) that
        only this dot reads and whose result the loop carries on (the K loop of a matmul),
        so no copy in or out of the accumulator."""
        acc = op.acc
        if not isinstance(acc, BlockArgument) or acc not in self.buffers:
            return False
        acc_uses, result_uses = list(acc.uses), list(op.result.uses)
        if len(acc_uses) != 1 or len(result_uses) != 1 or elem_type(acc) != acc_elem:
            return False
        (use,) = result_uses
        # The yield feeds the argument back: a for loop's arguments start with its index.
        first_carried = 1 if isinstance(acc.block.parent_op(), scf.ForOp) else 0
        return (
            isinstance(use.operation, scf.YieldOp)
            and use.operation.parent_block() is op.parent_block()
            and use.index == acc.index - first_carried
            and acc_elem == elem_type(op.result)
        )


def _with_axis(idx: Index, axis: int, position: SSAValue) -> Index:
    """`idx`, an index without dimension `axis`, with `position` there."""
    return [*idx[:axis], position, *idx[axis:]]


def _redone_where_zero_or_nan(
    here: Builder, fast: SSAValue, zero: SSAValue, exact: Callable[[Builder], list[SSAValue]]
) -> list[SSAValue]:
    """A float maximum or minimum reduction, `fast` computed ignoring the sign of zeros
    (`BlockLowering.combine` without `signed_zeros`), with NaN propagating: where that is a
    number other than zero it is the exact result (a zero takes part only where the result
    is zero, and a NaN makes it NaN), else `exact` builds the exact reduction of the op's
    NaN mode. Its maximum costs 3 instructions a vector on x86 where the exact one costs 6."""
    found_nan = here.value(blk.CmpOp("ne", fast, fast, i1))
    found_zero = here.value(blk.CmpOp("eq", fast, zero, i1))
    redo = here.value(blk.OrOp(found_nan, found_zero, i1))
    again, keep = Block(), Block()
    again.add_op(scf.YieldOp(*exact(Builder(again))))
    keep.add_op(scf.YieldOp(fast))
    return list(here.insert(_unlikely(scf.IfOp(redo, [fast.type], [again], [keep]))).results)


def _skipping_nan(
    here: Builder, reduce: Callable[[blk.Nan, Builder], list[SSAValue]]
) -> list[SSAValue]:
    """A float max or min reduction that skips NaN (`reduce` builds the loop for a mode):
    LLVM vectorizes loops reducing with `llvm.maximum`, which propagates NaN, but not all
    those reducing with `llvm.maxnum` (not one that also stores a loaded row, as softmax's
    does). So reduce propagating NaN, and again skipping it only where that gave NaN; on
    other inputs both agree."""
    (fast,) = reduce(blk.Nan.PROPAGATE, here)
    found_nan = here.value(blk.CmpOp("ne", fast, fast, i1))
    again, keep = Block(), Block()
    (slow,) = reduce(blk.Nan.NUM, Builder(again))
    again.add_op(scf.YieldOp(slow))
    keep.add_op(scf.YieldOp(fast))
    return list(here.insert(_unlikely(scf.IfOp(found_nan, [fast.type], [again], [keep]))).results)


UNLIKELY = "blk.unlikely"
"""Marks an `scf.if` whose then-region rarely runs (a reduction redone for NaN or zeros):
code generation emits its loops once, checking each element, without faster copies."""


def _unlikely(op: scf.IfOp) -> scf.IfOp:
    op.attributes[UNLIKELY] = UnitAttr()
    return op
