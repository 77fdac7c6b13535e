"""The `triton` policy: the rules of Triton's semantics page (spec/000), the default.

Typed operands promote by an ordered rule list: kind, width, supremum (with the fp8 pair
rule), prefer unsigned. A literal (a Python number or constexpr) of a kind not above the
other operand's does not take part; one of a higher kind takes the lowest dtype it fits
(int32 < uint32 < int64 < uint64, float32 < float64). ``//`` and ``%`` truncate like C on
blocks and floor like Python when every operand is a literal.
"""

from __future__ import annotations

from blkc import dtypes
from blkc.dialects.traits import Computation
from blkc.dtypes import DType, Kind
from blkc.passes.promotion.base import Operand, Policy, Promotion, fits, fits_float32

LITERAL_INTS = (dtypes.int32, dtypes.uint32, dtypes.int64, dtypes.uint64)
"""The dtypes a Python int literal may take, lowest first."""


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

    def sum_dtype(self, d: DType) -> DType:
        if (d.is_int or d.is_bool) and d.width < 32:
            return dtypes.uint32 if not d.signed else dtypes.int32
        return d

    def math_dtype(self, d: DType) -> Promotion:
        if d.is_float:
            return Promotion(d, "same")
        return Promotion(dtypes.float32, "float-function")


def _next_wider(d: DType) -> DType:
    """The smallest dtype of `d`'s kind and signedness wider than `d` (float16/bfloat16 ->
    float32)."""
    wider = [
        c for c in dtypes.CODEGEN if c.kind == d.kind and c.width > d.width and c.signed == d.signed
    ]
    return min(wider, key=lambda c: c.width)
