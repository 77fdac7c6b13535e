"""The `triton` policy: the rules of Triton's semantics page (spec/000), the default.

Typed operands promote by an ordered rule list: kind, width, supremum (with the fp8 pair
rule), prefer unsigned. A literal (a Python number or constexpr) of a kind not above the
other operand's does not take part; one of a higher kind takes the lowest dtype it fits
(int32 < uint32 < int64 < uint64, float32 < float64). ``//`` and ``%`` truncate like C on
blocks and floor like Python when every operand is a literal.

Where the page is silent, the policy does what Triton 3.9's front end does
(`tables/triton.json`): bools subtract, negate and shift as 1-bit integers (``True - True``,
``-True`` and ``True << True`` are bools); sums and cumulative sums widen integers to 32 bits
(``int8 -> int32``, ``bool``/``uint8``/``uint16 -> uint32``); ``max`` and ``min`` reductions
widen 8- and 16-bit values to int32 or float32; ``dot`` takes operands of one dtype among
int8, float16, bfloat16, float32, float64 and the fp8 types (two fp8 types may differ: they
compute in float16, which holds both) and accumulates int8 in int32, floats below 64 bits in
float32, or in the accumulator block's dtype when one is given.

``minimum``, ``maximum`` and the ``max``/``min``/``argmax``/``argmin`` reductions of floats skip
NaN (``tl.PropagateNan.NONE``, LLVM's ``maxnum``): NaN only where every operand is NaN. ``>>``
is arithmetic when the shifted operand is signed before promotion (Triton dispatches on it:
``int8 >> uint8`` computes in uint8 but shifts the sign bit in), logical otherwise; a literal
shifted by a block follows the block, as Triton's ``__rrshift__`` does.

Refused: literals that fit no 64-bit integer or do not fit the typed operand
(``literal-range``), complex literals (``complex``), bitwise operations on floats
(``bitwise``, ``shift``), ``dot`` of two dtypes (``dot-dtypes``) or of a dtype Triton has no
``tl.dot`` for (``dot-dtype``).

Departures (`tables/departures.json`): it follows the page where the front end departs
from it, for ``+`` and so for ``where``, ``minimum`` and ``<``; float functions compute in
every float dtype and take integers and bools to float32 (Triton's ``tl.exp`` and friends
take float32 and float64 only, a limit of its GPU math library); division of integers of
different signedness computes in float32; and, like `triton-compat`, int8 and fp8 ``dot``
at any K (Triton's MMA needs K >= 32), the accumulator's dtype for ``dot`` with an
accumulator (what the ``tt.dot`` Triton emits computes, whatever dtype its tensor claims),
and an explicit accumulator dtype honoured (Triton ignores ``out_dtype=float16`` except for
float16 and fp8 operands).
"""

from __future__ import annotations

from collections.abc import Sequence

from blkc import dtypes
from blkc.dtypes import DType, Kind
from blkc.promotion.base import (
    ACCUMULATING,
    REFUSALS,
    Decision,
    Operand,
    Policy,
    Promotion,
    Refusal,
    fits,
    fits_float32,
)
from blkc.promotion.computation import Computation

LITERAL_INTS = (dtypes.int32, dtypes.uint32, dtypes.int64, dtypes.uint64)
"""The dtypes a Python int literal may take, lowest first."""

DOT_ACCUMULATORS: dict[DType, DType] = {
    dtypes.int8: dtypes.int32,
    dtypes.float16: dtypes.float32,
    dtypes.bfloat16: dtypes.float32,
    dtypes.float32: dtypes.float32,
    dtypes.float64: dtypes.float64,
    dtypes.float8_e4m3fn: dtypes.float32,
    dtypes.float8_e5m2: dtypes.float32,
}
"""The operand dtypes ``tl.dot`` takes, and the accumulator it sums their products in."""


def literal_dtype(literal: Operand, refuse) -> DType:  # type: ignore[no-untyped-def]
    """The dtype Triton gives a lone literal, by kind and value."""
    kind, value = literal.kind, literal.value
    if kind is Kind.BOOL:
        return dtypes.bool_
    if kind is Kind.INT:
        if value is None:
            return dtypes.int32
        for candidate in LITERAL_INTS:
            if fits(value, candidate):  # type: ignore[arg-type]
                return candidate
        raise refuse(f"literal {value} fits no integer dtype (at most uint64)", "literal-range")
    if kind is Kind.FLOAT:
        return dtypes.float32 if value is None or fits_float32(value) else dtypes.float64  # type: ignore[arg-type]
    raise refuse(f"literal {value!r}: Triton has no complex numbers", "complex")


class TritonPolicy(Policy):
    name = "triton"
    dtypes = dtypes.CODEGEN
    nan = "num"
    # Triton's own words lead ("invalid operands of type"), so tests written against
    # Triton's message match blkc's.
    refusals = REFUSALS | {
        Computation.BITWISE: Refusal(
            "bitwise", "invalid operands of type {dtype}: bitwise operations need integers or bools"
        ).of(Kind.FLOAT, Kind.COMPLEX),
        Computation.SHIFT: Refusal(
            "shift", "invalid operands of type {dtype}: shift operations need integers or bools"
        ).of(Kind.FLOAT, Kind.COMPLEX),
    }

    def join(self, a: DType, b: DType, computation: Computation = Computation.ARITH) -> Promotion:
        if a == b:
            return Promotion(a, "same")
        if a.kind != b.kind:
            return Promotion(a if a.kind > b.kind else b, "kind")
        if a.width != b.width:
            return Promotion(a if a.width > b.width else b, "width")
        if a.is_fp8 and b.is_fp8:
            return Promotion(dtypes.float16, "fp8-pair")
        if a.signed == b.signed:
            return Promotion(_next_wider(a), "supremum")
        return Promotion(b if a.signed else a, "prefer-unsigned")

    def literal_dtype(self, literal: Operand) -> DType:
        return literal_dtype(literal, self.refuse)

    def join_literal(
        self, typed: DType, literal: Operand, computation: Computation = Computation.ARITH
    ) -> Promotion:
        lone = self.literal_dtype(literal)  # refuses unrepresentable literals
        if literal.kind <= typed.kind:
            return Promotion(typed, "weak-literal")
        return Promotion(lone, "weak-literal")

    def true_divide(self, d: DType) -> Promotion:
        if d.is_float:
            return Promotion(d, "same")
        return Promotion(dtypes.float32, "true-division")

    def rounding(self, all_literals: bool) -> str:
        return "floor" if all_literals else "trunc"

    def shift_fill(self, operands: Sequence[Operand], compute: DType) -> str:
        value, amount = operands
        decides = amount if value.is_literal and not amount.is_literal else value
        if decides.is_literal:
            return super().shift_fill(operands, compute)
        return "sign" if decides.kind is Kind.INT and decides.dtype.signed else "zero"  # type: ignore[union-attr]

    def sum_dtype(self, d: DType) -> DType:
        if (d.is_int or d.is_bool) and d.width < 32:
            return dtypes.uint32 if not d.signed else dtypes.int32
        return d

    def math_dtype(self, d: DType) -> Promotion:
        if d.is_float:
            return Promotion(d, "same")
        return Promotion(dtypes.float32, "float-function")

    def reduce_dtype(self, kind: str, d: DType) -> DType:
        if kind in ACCUMULATING:
            return self.sum_dtype(d)
        if d.width >= 32:
            return d
        return dtypes.float32 if d.is_float else dtypes.int32  # tl.max, tl.min

    def scan_dtype(self, kind: str, d: DType) -> DType:
        """Cumulative sums widen like sums; scans of maxima keep the dtype."""
        return super().reduce_dtype(kind, d)

    def dot_dtype(self, lhs: DType, rhs: DType, acc: DType | None = None) -> Decision:
        if lhs != rhs and not (lhs.is_fp8 and rhs.is_fp8):
            raise self.refuse(
                f"dot of {lhs.name} and {rhs.name}: tl.dot needs operands of one dtype; "
                "cast one of them",
                "dot-dtypes",
            )
        if lhs not in DOT_ACCUMULATORS:
            raise self.refuse(
                f"dot of {lhs.name}: tl.dot takes int8, float16, bfloat16, float32, float64 "
                "and fp8 operands",
                "dot-dtype",
            )
        compute = self.join(lhs, rhs)  # two fp8 types: float16
        return Decision(compute.dtype, acc or DOT_ACCUMULATORS[lhs], compute.rule)


def _next_wider(d: DType) -> DType:
    """The smallest dtype of `d`'s kind and signedness wider than `d` (float16/bfloat16 ->
    float32)."""
    wider = [
        c for c in dtypes.CODEGEN if c.kind == d.kind and c.width > d.width and c.signed == d.signed
    ]
    return min(wider, key=lambda c: c.width)
