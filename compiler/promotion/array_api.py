"""The `array_api` policy: the Array API standard's required promotions, and nothing more
(spec/001; facts measured from array-api-strict in `tables/array_api.json`).

Its dtypes are bool, int8 ... int64, uint8 ... uint64, float32, float64, complex64 and
complex128; float16, bfloat16 and the float8 types are refused. The standard's promotion
tables form a lattice, kept here as its edges (`PROMOTES_TO`); two dtypes join at their
least common upper bound. Where the standard defines none, the operation is refused:
dtypes of different kinds (bool, integer, floating-point, where real and complex floats
are one kind: ``float32 + complex64 -> complex64``), and a signed integer with uint64
(no standard integer holds both).

Arithmetic (``+ - * / // %``, ``abs``) needs numeric dtypes, so bool is refused there; ``/``
needs floating-point dtypes (integer division is left to implementations); ``//``, ``%``,
``floor``, ``ceil``, ordering (``< <= > >=``, ``minimum``, ``maximum``, ``max``, ``min``)
need real numeric ones, so bool and complex are refused there; ``==`` and ``!=`` take
any dtype. Sums and cumulative sums widen integers to int64/uint64 and refuse bool; float
functions refuse integers; ``abs`` of a complex number is real; ``matmul`` promotes like
``*``.

Python scalars, as array-api-strict treats them: a bool only beside a bool array, an int
beside integer and floating-point arrays (within the integer dtype's range), a float
beside floating-point arrays, a complex beside floating-point arrays (giving the complex
dtype of the array's precision). Alone they take the default dtypes: bool, int64, float64,
complex128.

Refused, by rule: dtypes outside the standard (``unknown-dtype``: float16, bfloat16, fp8),
mixed kinds (``mixed-kinds``), a signed integer with uint64 (``signed-uint64``), Python
scalars of another kind (``literal-kind``) or out of range (``literal-range``), bool where
numbers are needed (``numeric``), bool and complex where real numbers are
(``real-numeric``), integer ``/`` (``true-division``), float functions of integers
(``float-function``), bitwise operations on floats (``bitwise``, ``shift``).

Departures (`tables/departures.json`): ``floor`` and ``ceil`` are float functions in blkc,
so they refuse integers, which the standard returns unchanged. array-api-strict's
``matmul`` mixes integers and floats (``int8 @ float32 -> float32``, NumPy's answer) where
the standard defines no promotion: blkc refuses them as it refuses ``int8 + float32``.
"""

from __future__ import annotations

from functools import cache

from blkc import dtypes
from blkc.dtypes import DType, Kind
from blkc.promotion.base import (
    REFUSALS,
    Operand,
    Policy,
    Promotion,
    Refusal,
    fits,
)
from blkc.promotion.computation import Computation

PROMOTES_TO: dict[DType, tuple[DType, ...]] = {
    dtypes.int8: (dtypes.int16,),
    dtypes.int16: (dtypes.int32,),
    dtypes.int32: (dtypes.int64,),
    dtypes.uint8: (dtypes.uint16, dtypes.int16),
    dtypes.uint16: (dtypes.uint32, dtypes.int32),
    dtypes.uint32: (dtypes.uint64, dtypes.int64),
    dtypes.float32: (dtypes.float64, dtypes.complex64),
    dtypes.float64: (dtypes.complex128,),
    dtypes.complex64: (dtypes.complex128,),
}
"""The standard's promotion lattice: each dtype's immediate successors."""

DTYPES: tuple[DType, ...] = tuple(
    d for d in dtypes.ALL if d.is_bool or d.is_int or d.is_complex or d.width >= 32
)

KIND_NAMES: dict[Kind, str] = {
    Kind.BOOL: "bool",
    Kind.INT: "integer",
    Kind.FLOAT: "floating-point",
    Kind.COMPLEX: "floating-point",
}
"""The standard's kinds: real and complex floats are one."""

LITERAL_PARTNERS: dict[Kind, frozenset[Kind]] = {
    Kind.BOOL: frozenset({Kind.BOOL}),
    Kind.INT: frozenset({Kind.INT, Kind.FLOAT, Kind.COMPLEX}),
    Kind.FLOAT: frozenset({Kind.FLOAT, Kind.COMPLEX}),
    Kind.COMPLEX: frozenset({Kind.FLOAT, Kind.COMPLEX}),
}
"""The kinds of array a Python scalar of each kind may meet."""

DEFAULT: dict[Kind, DType] = {
    Kind.BOOL: dtypes.bool_,
    Kind.INT: dtypes.int64,
    Kind.FLOAT: dtypes.float64,
    Kind.COMPLEX: dtypes.complex128,
}
"""The default dtype of each kind of Python scalar."""

NOT_NUMERIC = Refusal(
    "numeric", "{op} operations need numeric dtypes in the Array API standard"
).of(Kind.BOOL)
NOT_REAL = Refusal("real-numeric", "{op} needs real dtypes in the Array API standard").of(
    Kind.COMPLEX
)


@cache
def upper_set(d: DType) -> frozenset[DType]:
    """`d` and every dtype it promotes to."""
    return frozenset({d}).union(*(upper_set(s) for s in PROMOTES_TO.get(d, ())))


def least_upper_bound(a: DType, b: DType) -> DType | None:
    """The dtype `a` and `b` join at in the lattice; None where the standard defines none."""
    common = upper_set(a) & upper_set(b)
    return next((c for c in common if common <= upper_set(c)), None)


def join_rule(a: DType, b: DType) -> str:
    """The name of the rule by which two joinable dtypes promote (for ``explain``)."""
    if a == b:
        return "same"
    if a.kind != b.kind:
        return "complex"
    return "width" if a.signed == b.signed else "mixed-sign"


class ArrayApiPolicy(Policy):
    name = "array_api"
    dtypes = DTYPES
    refusals = (
        REFUSALS
        | dict.fromkeys(
            (Computation.ARITH, Computation.SUBTRACT, Computation.ABS, Computation.TRUEDIV),
            NOT_NUMERIC,
        )
        | dict.fromkeys(
            (
                Computation.FLOORDIV,
                Computation.MOD,
                Computation.ROUNDING_MATH,
                Computation.ORDER,
                Computation.MINMAX,
            ),
            NOT_NUMERIC | NOT_REAL,
        )
    )

    def join(self, a: DType, b: DType, computation: Computation = Computation.ARITH) -> Promotion:
        for d in (a, b):
            self.check_known(Operand(dtype=d))
        joined = least_upper_bound(a, b)
        if joined is not None:
            return Promotion(joined, join_rule(a, b))
        if KIND_NAMES[a.kind] != KIND_NAMES[b.kind]:
            raise self.refuse(
                f"{a.name} and {b.name}: the Array API standard does not promote between "
                f"{KIND_NAMES[a.kind]} and {KIND_NAMES[b.kind]} dtypes; cast one explicitly",
                "mixed-kinds",
            )
        raise self.refuse(
            f"{a.name} and {b.name}: the Array API standard defines no promotion of a signed "
            "integer with uint64 (no integer dtype holds both); cast one explicitly",
            "signed-uint64",
        )

    def literal_dtype(self, literal: Operand) -> DType:
        value = literal.value
        if literal.kind is Kind.INT and value is not None and not fits(value, dtypes.int64):  # type: ignore[arg-type]
            raise self.refuse(f"literal {value} is out of range for int64", "literal-range")
        return DEFAULT[literal.kind]

    def join_literal(
        self, typed: DType, literal: Operand, computation: Computation = Computation.ARITH
    ) -> Promotion:
        partners = LITERAL_PARTNERS[literal.kind]
        if typed.kind not in partners:
            allowed = dict.fromkeys(KIND_NAMES[k] for k in sorted(partners))
            raise self.refuse(
                f"{literal} with {typed.name}: Python {literal.kind} scalars promote only with "
                f"{' and '.join(allowed)} arrays",
                "literal-kind",
            )
        if literal.kind <= typed.kind:
            return Promotion(typed, "weak-literal")
        # A complex scalar beside a real float: the complex dtype of the float's precision.
        return Promotion(self.join(typed, dtypes.complex64).dtype, "literal-kind")

    def true_divide(self, d: DType) -> Promotion:
        if d.is_float or d.is_complex:
            return Promotion(d, "same")
        raise self.refuse(
            f"/ on {d.name}: the Array API standard defines true division for "
            "floating-point dtypes only",
            "true-division",
        )

    def sum_dtype(self, d: DType) -> DType:
        if d.is_bool:
            raise self.refuse("sum of bool: the Array API standard sums numeric dtypes", "numeric")
        if d.is_int:
            return dtypes.uint64 if d.is_unsigned else dtypes.int64
        return d
