"""The `numpy` policy: NumPy 2 (NEP 50 weak Python scalars), with bfloat16 and the float8
types as ml_dtypes defines them (facts measured in `tables/numpy.json`).

Typed operands join at the first dtype, in NumPy's order (kind, then width), that both
*cast safely* to, NumPy's ``can_cast(a, b, "safe")``: bool goes anywhere; integers go to
wider integers of their signedness and unsigned ones to strictly wider signed ones; an
integer goes to a float whose significand holds it (and int64/uint64 to float64); floats
go to wider floats of at least 32 bits (ml_dtypes registers its types' safe casts to
float32 and float64 only), anything to the complex type whose real part it reaches. So
``int8 + uint8 -> int16``, ``int64 + uint64 -> float64``, ``float16 + bfloat16 ->
float32``. ml_dtypes also registers int8/uint8 -> float8 as safe (``int8 + float8_e4m3fn
-> float8_e4m3fn``), although it is not value-preserving.
More than two operands join left to right, as ``a + b + c`` computes (NumPy's n-ary
``result_type`` can differ: int8, uint8 and float16 give float16 there, float32 here).

A Python scalar is weak (NEP 50): beside an array of a kind not below its own it takes the
array's dtype, an integer out of that dtype's range being refused; of a higher kind it
stands for NumPy's default of its kind (int64, float64, complex128; complex64 beside a
float, which keeps the float's precision). Beside a bfloat16 or float8 array it stands for
the narrowest NumPy dtype of its kind (uint8, float16, complex64): NumPy's fallback for
dtypes it does not know, hence ``bfloat16 + 2.5 -> float32``.

``/`` on integers computes in float64; ``//``, ``%`` and shifts compute bools in int8 (NumPy
has no bool loop for them), and ``//`` and ``%`` floor; sums and cumulative sums widen
integers to int64/uint64; float functions take integers to the first of float16, float32,
float64 they cast safely to (``exp(int8)`` is float16); ``abs`` of a complex number is real.
``matmul`` has no loop for ml_dtypes' types: it computes bfloat16 and the fp8 types in the
first NumPy float they cast safely to (float32), so ``bfloat16 @ bfloat16 -> float32``.

Refused: integer literals beyond uint64 (``literal-range``), ``-`` on bools
(``bool-subtract``: ``True - True`` and ``-True``), ``//`` and ``%`` of complex numbers
(``complex-floor``), bitwise operations on floats (``bitwise``, ``shift``), ``floor`` and
``ceil`` of complex numbers (``complex-rounding``).

Departures (`tables/departures.json`): ml_dtypes refuses Python ints outside int64 beside
its types ("expected number, got int"), which blkc rounds like any other int. ``floor``
and ``ceil`` of integers and bools are float functions in blkc, so they compute in a float
where NumPy keeps the dtype. ``numpy.where`` promotes by ``numpy.result_type``, which refuses
34 pairs of ml_dtypes' types with others that ``+`` computes (``int16 + bfloat16 ->
float32``); blkc's ``where`` promotes like ``+``.
"""

from __future__ import annotations

from dataclasses import replace

from blkc import dtypes
from blkc.dtypes import DType, Kind
from blkc.promotion.base import (
    REAL_PART,
    REFUSALS,
    Decision,
    Operand,
    Policy,
    Promotion,
    Refusal,
    fits,
    no_bool_subtraction,
)
from blkc.promotion.computation import Computation

ORDER: tuple[DType, ...] = tuple(sorted(dtypes.ALL, key=lambda d: (d.kind, d.width)))
"""The order (kind, then width) in which a join tries the dtypes both operands cast to."""

EXTRA_SAFE_CASTS: dict[DType, frozenset[DType]] = {
    dtypes.int8: frozenset({dtypes.float8_e4m3fn, dtypes.float8_e5m2}),  # ml_dtypes
    dtypes.uint8: frozenset({dtypes.float8_e4m3fn, dtypes.float8_e5m2}),  # ml_dtypes
    dtypes.int64: frozenset({dtypes.float64}),
    dtypes.uint64: frozenset({dtypes.float64}),
}
"""Safe casts that the significand rule does not give."""

ML_DTYPES: frozenset[DType] = frozenset({dtypes.bfloat16, dtypes.float8_e4m3fn, dtypes.float8_e5m2})
"""ml_dtypes' types: NumPy types Python scalars beside them by its fallback for user dtypes."""

DEFAULT: dict[Kind, DType] = {
    Kind.BOOL: dtypes.bool_,
    Kind.INT: dtypes.int64,
    Kind.FLOAT: dtypes.float64,
    Kind.COMPLEX: dtypes.complex128,
}
"""NumPy's default dtype of each kind of Python scalar."""

NARROWEST: dict[Kind, DType] = {
    Kind.BOOL: dtypes.bool_,
    Kind.INT: dtypes.uint8,
    Kind.FLOAT: dtypes.float16,
    Kind.COMPLEX: dtypes.complex64,
}
"""What a Python scalar stands for beside an ml_dtypes array."""

FLOAT_LOOPS: tuple[DType, ...] = (dtypes.float16, dtypes.float32, dtypes.float64)
"""NumPy's own loops of float functions (and of matmul), in the order they are tried."""

BOOL_LOOP = Promotion(dtypes.int8, "bool-loop")
"""What bools compute in where NumPy has no bool loop (``True // True``, ``True << True``)."""


def can_cast(a: DType, b: DType) -> bool:
    """NumPy's ``can_cast(a, b, "safe")`` among blkc's dtypes."""
    if a == b or a.is_bool or b in EXTRA_SAFE_CASTS.get(a, ()):
        return True
    if b.is_complex:  # complex casts follow their real parts
        return can_cast(REAL_PART.get(a, a), REAL_PART[b])
    if a.is_int and b.is_int:
        return b.width >= a.width if a.signed == b.signed else b.signed and b.width > a.width
    if a.is_int and b.is_float:
        return b.significand_bits >= a.significand_bits
    if a.is_float and b.is_float:
        return b.width > a.width and b.width >= 32
    return False


def literal_stand_in(typed: DType, kind: Kind) -> DType:
    """The dtype a weak literal of `kind` promotes as beside an array of `typed` (NumPy's
    abstract Python int, float and complex dtypes)."""
    if typed in ML_DTYPES:
        return NARROWEST[kind]
    if kind <= typed.kind:
        return typed
    if kind is Kind.COMPLEX and typed.is_float:
        return dtypes.complex64
    return DEFAULT[kind]


def float_loop(d: DType) -> DType:
    """The first of NumPy's own float loops that `d` casts safely to."""
    return next(f for f in FLOAT_LOOPS if can_cast(d, f))


class NumpyPolicy(Policy):
    name = "numpy"
    dtypes = dtypes.ALL
    refusals = REFUSALS | {
        Computation.SUBTRACT: no_bool_subtraction("NumPy"),
        Computation.FLOORDIV: Refusal("complex-floor", "NumPy has no // for complex numbers").of(
            Kind.COMPLEX
        ),
        Computation.MOD: Refusal("complex-floor", "NumPy has no % for complex numbers").of(
            Kind.COMPLEX
        ),
    }
    bools_compute_in = dict.fromkeys(
        (Computation.FLOORDIV, Computation.MOD, Computation.SHIFT), BOOL_LOOP
    )

    def join(self, a: DType, b: DType, computation: Computation = Computation.ARITH) -> Promotion:
        joined = next(c for c in ORDER if can_cast(a, c) and can_cast(b, c))
        if a == b:
            return Promotion(a, "same")
        return Promotion(joined, "safe-cast" if joined in (a, b) else "common-type")

    def literal_dtype(self, literal: Operand) -> DType:
        value = literal.value
        if literal.kind is not Kind.INT or value is None or fits(value, dtypes.int64):  # type: ignore[arg-type]
            return DEFAULT[literal.kind]
        if fits(value, dtypes.uint64):  # type: ignore[arg-type]
            return dtypes.uint64
        raise self.refuse(
            f"literal {value} fits no NumPy integer dtype (int64 or uint64)", "literal-range"
        )

    def join_literal(
        self, typed: DType, literal: Operand, computation: Computation = Computation.ARITH
    ) -> Promotion:
        joined = self.join(typed, literal_stand_in(typed, literal.kind), computation).dtype
        return Promotion(joined, "weak-literal" if joined == typed else "literal-kind")

    def true_divide(self, d: DType) -> Promotion:
        if d.is_int or d.is_bool:
            return Promotion(dtypes.float64, "true-division")
        return Promotion(d, "same")

    def sum_dtype(self, d: DType) -> DType:
        if d.is_int or d.is_bool:
            return dtypes.uint64 if d.is_unsigned else dtypes.int64
        return d

    def math_dtype(self, d: DType) -> Promotion:
        if d.is_float or d.is_complex:
            return Promotion(d, "same")
        return Promotion(float_loop(d), "float-function")

    def dot_dtype(self, lhs: DType, rhs: DType, acc: DType | None = None) -> Decision:
        decision = super().dot_dtype(lhs, rhs, acc)
        if decision.result not in ML_DTYPES:
            return decision
        return replace(decision, result=float_loop(decision.result))
