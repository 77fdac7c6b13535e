"""The `jax` policy: JAX's type promotion lattice (spec/003), with ``jax_enable_x64`` on.

JAX states its rules as a lattice and promotes by taking least upper bounds; so does this
module (`LATTICE`, `least_upper_bound`). Python ints, floats and complex numbers are *weak*
types (``i*``, ``f*``, ``c*``), nodes just below the dtypes of their kind: a literal takes
the dtype of the typed operand beside it unless it is of a higher kind (``int8 + 1000 ->
int8``, wrapping as JAX does; ``int8 + 2.5 -> float64``). A result that is still weak,
because no typed operand decided it, materializes as the x64 default of its kind (int64,
float64, complex128); so does the join of uint64 and a signed integer, which JAX places at
``f*``. 0-d values take part like blocks. Python bools are plain ``bool``.

What the lattice does not say, measured from jax 0.10.2 (`tables/jax.json`):

- float8 types sit above ``f*`` with nothing above them, so they promote with bools,
  integers and Python numbers (to themselves) and are refused with any other float or
  complex dtype (rule ``float8``);
- a Python int must fit int64, else JAX cannot convert it (rule ``literal-range``);
- ``/`` of integers and float functions of integers compute in float32, or float64 for
  64-bit integers;
- ``//`` and ``%`` floor like Python; they and shifts compute bools in int32;
- sums widen bools and signed integers to int64, unsigned integers to uint64; cumulative
  sums keep integer dtypes and take bools to int64;
- ``abs`` of a complex number is real; ``dot`` gives what ``*`` gives.

Refused: float8 with other floats or complex numbers (``float8``), Python ints outside int64
(``literal-range``), ``-`` on bools (``bool-subtract``: ``True - True`` and ``-True``),
``//``, ``%``, ``floor`` and ``ceil`` of complex numbers (``complex-rounding``), bitwise
operations on floats (``bitwise``, ``shift``).

Departures (`tables/departures.json`): ``floor`` and ``ceil`` of integers and bools are
float functions in blkc, so they compute in a float where JAX keeps the dtype.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from blkc import dtypes
from blkc.dtypes import DType, Kind
from blkc.promotion.base import (
    ACCUMULATING,
    REFUSALS,
    Operand,
    Policy,
    Promotion,
    fits,
    no_bool_subtraction,
)
from blkc.promotion.computation import Computation

Node = DType | Kind
"""A node of the lattice: a dtype, or a weak type, which is the kind of a Python number."""

WEAK_INT, WEAK_FLOAT, WEAK_COMPLEX = Kind.INT, Kind.FLOAT, Kind.COMPLEX

LATTICE: dict[Node, tuple[Node, ...]] = {
    dtypes.bool_: (WEAK_INT,),
    WEAK_INT: (dtypes.uint8, dtypes.int8),
    dtypes.uint8: (dtypes.int16, dtypes.uint16),
    dtypes.uint16: (dtypes.int32, dtypes.uint32),
    dtypes.uint32: (dtypes.int64, dtypes.uint64),
    dtypes.uint64: (WEAK_FLOAT,),
    dtypes.int8: (dtypes.int16,),
    dtypes.int16: (dtypes.int32,),
    dtypes.int32: (dtypes.int64,),
    dtypes.int64: (WEAK_FLOAT,),
    WEAK_FLOAT: (
        dtypes.float8_e4m3fn,
        dtypes.float8_e5m2,
        dtypes.bfloat16,
        dtypes.float16,
        WEAK_COMPLEX,
    ),
    dtypes.float8_e4m3fn: (),
    dtypes.float8_e5m2: (),
    dtypes.bfloat16: (dtypes.float32,),
    dtypes.float16: (dtypes.float32,),
    dtypes.float32: (dtypes.float64, dtypes.complex64),
    dtypes.float64: (dtypes.complex128,),
    WEAK_COMPLEX: (dtypes.complex64,),
    dtypes.complex64: (dtypes.complex128,),
    dtypes.complex128: (),
}
"""Each node and the nodes directly above it (JAX's ``_type_promotion_lattice``)."""

X64_DEFAULTS: dict[Node, DType] = {
    WEAK_INT: dtypes.int64,
    WEAK_FLOAT: dtypes.float64,
    WEAK_COMPLEX: dtypes.complex128,
}
"""The dtype a weak result materializes as, with x64 on."""

NUMERIC_LOOP = Promotion(dtypes.int32, "numeric")
"""What bools compute in where JAX's operation wants numbers (``True // True``)."""


@cache
def upper_bounds(node: Node) -> frozenset[Node]:
    """`node` and every node above it."""
    return frozenset({node}).union(*(upper_bounds(up) for up in LATTICE[node]))


def least_upper_bound(nodes: Iterable[Node]) -> Node | None:
    """The least node above all of `nodes`; None when they have no common upper bound."""
    common = frozenset.intersection(*(upper_bounds(n) for n in nodes))
    least = [c for c in common if common <= upper_bounds(c)]
    return least[0] if least else None


def node_of(operand: Operand) -> Node:
    """A typed operand's dtype; a literal's weak type (a Python bool is a plain bool)."""
    if operand.dtype is not None:
        return operand.dtype
    return dtypes.bool_ if operand.kind is Kind.BOOL else operand.kind


def inexact(d: DType) -> DType:
    """The float an integer or bool becomes for ``/`` and float functions."""
    return dtypes.float64 if d.width == 64 else dtypes.float32


class JaxPolicy(Policy):
    name = "jax"
    dtypes = dtypes.ALL
    wraps_literals = True
    refusals = REFUSALS | {
        Computation.SUBTRACT: no_bool_subtraction("JAX"),
    }
    bools_compute_in = dict.fromkeys(
        (Computation.FLOORDIV, Computation.MOD, Computation.SHIFT), NUMERIC_LOOP
    )

    def promote(
        self, operands: Sequence[Operand], computation: Computation = Computation.ARITH
    ) -> Promotion:
        """The join of all operands at once: the lattice is what makes that associative,
        so ``uint64, int8, float16`` give float16 (weak ``f*`` first), not float64."""
        for operand in operands:
            self.check_known(operand)
            self._check_int64(operand)
        nodes = {node_of(o) for o in operands}
        joined = least_upper_bound(nodes)
        if joined is None:
            raise self.refuse(
                f"{' and '.join(str(o) for o in operands)} have no common dtype: JAX's 8-bit "
                "floats promote only with bools, integers and Python numbers; cast explicitly "
                "(e.g. to float32)",
                "float8",
            )
        if joined in X64_DEFAULTS:
            return Promotion(X64_DEFAULTS[joined], "weak-literal")
        return Promotion(joined, "same" if len(nodes) == 1 else "lattice-join")  # type: ignore[arg-type]

    def _check_int64(self, operand: Operand) -> None:
        value = operand.value
        if isinstance(value, int) and not isinstance(value, bool):
            if not fits(value, dtypes.int64):
                raise self.refuse(
                    f"literal {value} is outside int64, so JAX cannot convert it; "
                    "use a typed constant",
                    "literal-range",
                )

    def join(self, a: DType, b: DType, computation: Computation = Computation.ARITH) -> Promotion:
        return self.promote((Operand.typed(a), Operand.typed(b)), computation)

    def literal_dtype(self, literal: Operand) -> DType:
        return self.promote((literal,)).dtype

    def join_literal(
        self, typed: DType, literal: Operand, computation: Computation = Computation.ARITH
    ) -> Promotion:
        return self.promote((Operand.typed(typed), literal), computation)

    def true_divide(self, d: DType) -> Promotion:
        if d.is_float or d.is_complex:
            return Promotion(d, "same")
        return Promotion(inexact(d), "true-division")

    def math_dtype(self, d: DType) -> Promotion:
        if d.is_float or d.is_complex:
            return Promotion(d, "same")
        return Promotion(inexact(d), "float-function")

    def sum_dtype(self, d: DType) -> DType:
        if d.is_unsigned:
            return dtypes.uint64
        if d.is_int or d.is_bool:
            return dtypes.int64
        return d

    def scan_dtype(self, kind: str, d: DType) -> DType:
        """Cumulative sums and products keep the dtype, except that bools give int64."""
        if kind not in ACCUMULATING:
            return super().scan_dtype(kind, d)
        return dtypes.int64 if d.is_bool else d
