"""LLVM IR for `blk.dot_tile`: one register tile of a `dot`, its accumulators in vector
registers across the whole inner dimension, each step broadcasting A's elements and
loading B's row once per vector.

Without `pairs` (float32, float64; `convert-blk-to-loops` widens float16 and bfloat16
operands to float32 buffers first), step k adds ``a[r, k] * b[k, c + j]`` to lane j of
each accumulator with one fused multiply-add (`llvm.fma` on vectors), in the order of k:
the results of the scalar loop, bit for bit.

With `pairs`, step p adds ``a[r, 2p] * b[2p, c + j] + a[r, 2p + 1] * b[2p + 1, c + j]``
with one instruction: the pair of A (two adjacent elements of a row) is broadcast to every
lane, and B comes packed in pairs (`convert-blk-to-loops` loads its tile so), one vector
load a step. With an odd inner dimension the last pair's second element is zero.

| elements | accumulator | instruction |
|---|---|---|
| bfloat16 | float32 | `vdpbf16ps` (`avx512bf16`) |
| int8, uint8 (widened to 16 bits) | int32 | `vpmaddwd` and an add (`vpdpwssd` with VNNI) |

`vpmaddwd` needs `avx512bw` at 512 bits, `avx2` at 256 and SSE2 at 128.

The integer products are exact (|a * b| <= 2^15 per pair, so no pair sum overflows) and
sum in int32 with wrap-around, as the scalar loop does. `vdpbf16ps` multiplies exactly and
rounds each add to nearest even, as a fused multiply-add does, but treats bfloat16
subnormal inputs and float32 subnormal results as zero, and adds the pair's second product
first: its float32 sums may differ from the scalar loop's in the last bits (see
docs/semantics.md, "dot").
"""

from __future__ import annotations

from collections.abc import Sequence

import llvmlite.ir as ir
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from blkc import dtypes
from blkc.dialects import blk
from blkc.runtime.llvm_emitter import I32, I64, FunctionEmitter, buffer_gep, llvm_type


class _BFloat(ir.Type):
    """LLVM's `bfloat`, which llvmlite lacks (the intrinsic's operand type: the storage
    elsewhere is i16)."""

    def _to_string(self) -> str:
        return "bfloat"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _BFloat)

    def __hash__(self) -> int:
        return hash("bfloat")


I16 = ir.IntType(16)
_PAIR_INSTRUCTIONS = {
    "bfloat16": {
        16: "llvm.x86.avx512bf16.dpbf16ps.512",
        8: "llvm.x86.avx512bf16.dpbf16ps.256",
        4: "llvm.x86.avx512bf16.dpbf16ps.128",
    },
    "int": {
        16: "llvm.x86.avx512.pmaddw.d.512",
        8: "llvm.x86.avx2.pmadd.wd",
        4: "llvm.x86.sse2.pmadd.wd",
    },
}
"""The pair-product intrinsics, by element kind and 32-bit lanes per vector."""


class _Tile:
    """The translation of one `blk.dot_tile`."""

    def __init__(self, e: FunctionEmitter, op: blk.DotTileOp):
        self.e, self.b = e, e.builder
        a, b, c = (v.type for v in (op.lhs, op.rhs, op.acc))
        assert isinstance(a, MemRefType) and isinstance(b, MemRefType)
        assert isinstance(c, MemRefType)
        self.op = op
        self.kind = dtypes.from_xdsl(a.element_type).name
        self.signed = self.kind == "int8" and op.unsigned is None
        self.elem = llvm_type(a.element_type)
        self.acc_elem = llvm_type(c.element_type)
        self.k = a.get_shape()[-1]
        self.rows, self.cols, self.lanes = (x.value.data for x in (op.rows, op.cols, op.lanes))
        self.vectors = self.cols // self.lanes
        *self.batch, self.row0, self.col0 = (e.get(i) for i in op.indices)
        self.acc_vector = ir.VectorType(self.acc_elem, self.lanes)
        self.pair_vector = ir.VectorType(I16, 2 * self.lanes)
        self.pairs = op.pairs is not None
        self.elem_bytes = dtypes.from_xdsl(a.element_type).width // 8
        self.acc_elem_bytes = dtypes.from_xdsl(c.element_type).width // 8

    def splat(self, value: ir.Value) -> ir.Value:
        """`value` (a scalar) in each of `lanes` lanes."""
        vector = ir.VectorType(value.type, self.lanes)
        lanes = ir.VectorType(I32, self.lanes)
        one = self.b.insert_element(ir.Constant(vector, None), value, ir.Constant(I32, 0))
        return self.b.shuffle_vector(one, ir.Constant(vector, None), ir.Constant(lanes, None))

    # -- addresses ---------------------------------------------------------------------

    def address(self, ref: SSAValue, indices: Sequence[ir.Value]) -> ir.Value:
        """The address of `ref[batch..., *indices]` (a row-major stack buffer)."""
        t = ref.type
        assert isinstance(t, MemRefType)
        b = self.b
        linear: ir.Value = ir.Constant(I64, 0)
        for size, index in zip(t.get_shape(), [*self.batch, *indices], strict=True):
            linear = b.add(b.mul(linear, ir.Constant(I64, size)), index)
        return buffer_gep(b, self.e.get(ref), t, linear)

    def at(self, base: ir.Value, offset: int) -> ir.Value:
        return self.b.add(base, ir.Constant(I64, offset)) if offset else base

    # -- operands ----------------------------------------------------------------------

    def widen(self, value: ir.Value, t: ir.Type) -> ir.Value:
        """Integer elements widened to 16 bits (bfloat16 is already 16 bits)."""
        if self.kind == "bfloat16":
            return value
        return self.b.sext(value, t) if self.signed else self.b.zext(value, t)

    def a_pair(self, row: ir.Value, k: ir.Value, single: bool) -> ir.Value:
        """A's elements (row, k) and (row, k + 1), or (row, k) and zero where `single`, in
        every lane (as the 16-bit pairs the instruction takes)."""
        b = self.b
        address = self.address(self.op.lhs, [row, k])
        if single:
            pair = b.zext(self.widen(b.load(address, typ=self.elem), I16), I32)
        elif self.kind == "bfloat16":
            pair = b.load(address, typ=I32)
            pair.align = 2
        else:
            two = b.load(address, typ=ir.VectorType(self.elem, 2))
            two.align = 1
            pair = b.bitcast(self.widen(two, ir.VectorType(I16, 2)), I32)
        return b.bitcast(self.splat(pair), self.pair_vector)

    def b_pairs(self, pair: ir.Value, col: ir.Value) -> ir.Value:
        """The pairs of B (`rhs`, packed) at `pair` for `lanes` columns from `col`."""
        b = self.b
        address = self.address(self.op.rhs, [pair, col, ir.Constant(I64, 0)])
        load = b.load(address, typ=ir.VectorType(self.elem, 2 * self.lanes))
        load.align = self.elem_bytes
        return self.widen(load, self.pair_vector)

    def multiply_add(self, acc: ir.Value, x: ir.Value, y: ir.Value) -> ir.Value:
        """`acc` plus the pair products of `x` and `y`."""
        b = self.b
        if self.kind == "bfloat16":
            name = _PAIR_INSTRUCTIONS["bfloat16"][self.lanes]
            bf = ir.VectorType(_BFloat(), 2 * self.lanes)
            fn = self.e.declare(name, self.acc_vector, [self.acc_vector, bf, bf])
            return b.call(fn, [acc, b.bitcast(x, bf), b.bitcast(y, bf)])
        name = _PAIR_INSTRUCTIONS["int"][self.lanes]
        fn = self.e.declare(name, self.acc_vector, [self.pair_vector, self.pair_vector])
        return b.add(acc, b.call(fn, [x, y]))

    # -- one element a step (fused multiply-adds) ---------------------------------------

    def fma_step(self, accs: Sequence[ir.Value], k: ir.Value) -> list[ir.Value]:
        """`accs` after step `k` of the inner dimension: each row's element of A times
        each vector of B's row k, added with one rounding."""
        b = self.b
        ys = []
        for v in range(self.vectors):
            address = self.address(self.op.rhs, [k, self.at(self.col0, v * self.lanes)])
            load = b.load(address, typ=ir.VectorType(self.elem, self.lanes))
            load.align = self.elem_bytes
            ys.append(load)
        fma = self.e.declare(
            f"llvm.fma.v{self.lanes}{_suffix(self.acc_elem)}",
            self.acc_vector,
            [self.acc_vector] * 3,
        )
        out = list(accs)
        for r in range(self.rows):
            scalar = b.load(self.address(self.op.lhs, [self.at(self.row0, r), k]), typ=self.elem)
            x = self.splat(scalar)
            for v in range(self.vectors):
                i = r * self.vectors + v
                out[i] = b.call(fma, [x, ys[v], out[i]])
        return out

    # -- the tile ----------------------------------------------------------------------

    def step(self, accs: Sequence[ir.Value], pair: ir.Value, single: bool) -> list[ir.Value]:
        """`accs` after the products of pair `pair` of the inner dimension (its first
        element only where `single`)."""
        columns = [self.at(self.col0, v * self.lanes) for v in range(self.vectors)]
        ys = [self.b_pairs(pair, col) for col in columns]
        k = self.b.shl(pair, ir.Constant(I64, 1))
        out = list(accs)
        for r in range(self.rows):
            x = self.a_pair(self.at(self.row0, r), k, single)
            for v in range(self.vectors):
                i = r * self.vectors + v
                out[i] = self.multiply_add(out[i], x, ys[v])
        return out

    def places(self) -> list[ir.Value]:
        return [
            self.address(self.op.acc, [self.at(self.row0, r), self.at(self.col0, v * self.lanes)])
            for r in range(self.rows)
            for v in range(self.vectors)
        ]

    def emit(self) -> None:
        b = self.b
        accs: list[ir.Value] = []
        for place in self.places():
            load = b.load(place, typ=self.acc_vector)
            load.align = self.acc_elem_bytes
            accs.append(load)
        steps = self.k // 2 if self.pairs else self.k
        if steps:

            def iteration(p: ir.Value, carried: Sequence[ir.Value]) -> list[ir.Value]:
                if self.pairs:
                    return self.step(carried, p, single=False)
                return self.fma_step(carried, p)

            bounds = (ir.Constant(I64, 0), ir.Constant(I64, steps), ir.Constant(I64, 1))
            phis, _ = self.e.counted_loop(*bounds, accs, iteration, name="dot_tile")
            accs = list(phis)
        if self.pairs and self.k % 2:
            accs = self.step(accs, ir.Constant(I64, self.k // 2), single=True)
        for value, place in zip(accs, self.places(), strict=True):
            store = b.store(value, b.bitcast(place, value.type.as_pointer()))
            store.align = self.acc_elem_bytes


def _suffix(t: ir.Type) -> str:
    return {"float": "f32", "double": "f64"}[str(t)]


def emit_dot_tile(e: FunctionEmitter, op: blk.DotTileOp) -> None:
    """Translate `op` (see the module's docstring)."""
    _Tile(e, op).emit()


__all__ = ["emit_dot_tile"]
