"""The `torch` policy: PyTorch 2.13's type promotion (spec/004, `tables/torch.json`).

Two dtypes promote by torch's table (`promote_types`), stated here as its rules: the higher
kind wins (bool < integer < floating < complex), a float meeting a complex keeps its
precision (float64 + complex64 -> complex128), otherwise the wider dtype wins; uint8 with
a signed integer gives the next signed integer (int16), float16 with bfloat16 float32.

Operands take part by *category* (`promote`, torch's ``ResultTypeState``): blocks (torch's
dimensioned tensors), runtime scalars (0-d tensors) and weak literals (wrapped numbers)
promote within their group, and then a lower-priority group only counts when it is of a
higher category (`combine_categories`): ``int8 block + int64 scalar -> int8``, but
``int8 block + float64 scalar -> float64`` and ``int32 block + 2.5 -> float32``. Literals
are typed as torch wraps Python numbers: bool, int64 (uint64 beyond int64's range, as torch
keeps such values), float32 (the default dtype) and complex64; an integer literal outside
the result dtype wraps. ``/`` of integers and float functions of integers compute in
float32, ``//`` and ``%`` floor, sums and cumulative sums of bools and integers give int64,
``abs`` of a complex number is real, and ``matmul`` needs operands of one dtype.

Refused, as torch does: uint16, uint32 and uint64 mixed with any other dtype but a float
(``unsigned-promotion``), any promotion involving a float8 dtype (``float8``), integer
literals beyond uint64 (``literal-range``), ``-`` on bools (``bool-subtract``: ``True -
True`` and ``-True``), ``//``, ``%``, ``floor`` and ``ceil`` of complex numbers
(``complex-rounding``), ordering complex numbers (``complex-order``: ``<``, ``minimum``,
``max``), bitwise operations on floats (``bitwise``, ``shift``), ``dot`` of two dtypes
(``matmul-dtypes``).

Departures (`tables/departures.json`):

- float16 with a complex 0-d value or literal gives torch's complex32, which is not a blkc
  dtype: refused (rule ``complex32``);
- where the promotion is fine but torch's CPU build has no kernel (uint16 + uint16, float8
  with itself, a uint16 or float8 block with integer scalars, bool // bool, ``abs`` of a
  bool, ``exp`` of float8, ``max`` of uint16, ``dot`` of bools ...), blkc computes in the
  promoted dtype: a missing kernel is not a promotion rule;
- ``floor`` and ``ceil`` of integers are float functions in blkc: they compute in float32
  where torch keeps the integer.
"""

from __future__ import annotations

from collections.abc import Sequence

from blkc import dtypes
from blkc.dtypes import DType, Kind
from blkc.promotion.base import (
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

BAREBONES_UNSIGNED = frozenset({dtypes.uint16, dtypes.uint32, dtypes.uint64})
"""Unsigned dtypes torch promotes with floats only."""

LITERAL_DTYPES: dict[Kind, DType] = {
    Kind.BOOL: dtypes.bool_,
    Kind.INT: dtypes.int64,
    Kind.FLOAT: dtypes.float32,
    Kind.COMPLEX: dtypes.complex64,
}
"""The dtype of a wrapped Python number: int64, and torch's default float and complex."""

SIGNED_BY_WIDTH = {d.width: d for d in (dtypes.int16, dtypes.int32, dtypes.int64)}

COMPLEX_OF: dict[DType, DType] = {
    dtypes.bfloat16: dtypes.complex64,
    dtypes.float32: dtypes.complex64,
    dtypes.float64: dtypes.complex128,
}
"""torch's ``toComplexType`` for the floats it maps to a blkc dtype (float16 gives
complex32, float8 nothing)."""


UNORDERED = Refusal("complex-order", "torch does not order complex numbers").of(Kind.COMPLEX)


def operand_names(operands: Sequence[Operand]) -> str:
    return " and ".join(str(o) for o in operands)


class TorchPolicy(Policy):
    name = "torch"
    dtypes = dtypes.ALL
    wraps_literals = True
    refusals = REFUSALS | {
        Computation.SUBTRACT: no_bool_subtraction("torch"),
        Computation.ORDER: UNORDERED,
        Computation.MINMAX: UNORDERED,
    }

    # -- two dtypes (torch.promote_types) ----------------------------------------------

    def promote_types(self, a: DType, b: DType, what: str) -> Promotion:
        """torch's table for `a` and `b`; `what` names the operands in refusals."""
        if a == b:
            return Promotion(a, "same")
        if a.is_fp8 or b.is_fp8:
            raise self.refuse(
                f"{what}: torch does not promote float8 dtypes ({a.name} with {b.name}); "
                "cast explicitly",
                "float8",
            )
        if a in BAREBONES_UNSIGNED or b in BAREBONES_UNSIGNED:
            other = b if a in BAREBONES_UNSIGNED else a
            if other.is_float:
                return Promotion(other, "kind")
            raise self.refuse(
                f"{what}: torch promotes uint16, uint32 and uint64 only with floats "
                f"({a.name} with {b.name}); cast one explicitly",
                "unsigned-promotion",
            )
        low, high = sorted((a, b), key=lambda d: (d.kind, d.width))
        if low.kind != high.kind:
            if high.is_complex and low.is_float and high.width < 2 * low.width:
                return Promotion(dtypes.complex128, "complex")  # wide enough for the float
            return Promotion(high, "kind")
        if low.signed != high.signed:  # uint8 and a signed integer
            unsigned, signed = (low, high) if high.signed else (high, low)
            return Promotion(SIGNED_BY_WIDTH[max(2 * unsigned.width, signed.width)], "signed")
        if low.width == high.width:  # float16 and bfloat16
            return Promotion(dtypes.float32, "float16-bfloat16")
        return Promotion(high, "width")

    def complex_of(self, d: DType, what: str) -> DType:
        """The complex dtype holding float `d` (torch's ``toComplexType``)."""
        if d.is_fp8:
            raise self.refuse(
                f"{what}: torch has no complex dtype for {d.name} (float8 does not promote)",
                "float8",
            )
        if d not in COMPLEX_OF:
            raise self.refuse(
                f"{what}: torch gives complex32 (complex {d.name}), which is not a blkc dtype; "
                f"cast the {d.name} operand to float32 first",
                "complex32",
            )
        return COMPLEX_OF[d]

    # -- groups of operands (torch's ResultTypeState) ----------------------------------

    def promote(
        self, operands: Sequence[Operand], computation: Computation = Computation.ARITH
    ) -> Promotion:
        """Blocks, then 0-d values, then literals: each group promotes within itself and a
        lower-priority group takes part only when of a higher category."""
        what = operand_names(operands)
        for operand in operands:
            self.check_known(operand)
        typed = [o for o in operands if not o.is_literal]
        dims = [Promotion(o.dtype, "same") for o in typed if o.rank > 0]  # type: ignore[arg-type]
        zeros = [Promotion(o.dtype, "same") for o in typed if o.rank == 0]  # type: ignore[arg-type]
        wrapped = [
            Promotion(self.literal_dtype(o), "weak-literal") for o in operands if o.is_literal
        ]
        dim, zero, literal = (self._promote_group(g, what) for g in (dims, zeros, wrapped))
        result = self.combine_categories(dim, self.combine_categories(zero, literal, what), what)
        assert result is not None
        return result

    def _promote_group(self, group: list[Promotion], what: str) -> Promotion | None:
        result = group[0] if group else None
        for member in group[1:]:
            assert result is not None
            result = self._keep_rule(result, self.promote_types(result.dtype, member.dtype, what))
        return result

    def combine_categories(
        self, higher: Promotion | None, lower: Promotion | None, what: str
    ) -> Promotion | None:
        """torch's ``combine_categories``: `lower` counts only when of a higher category."""
        if higher is None or lower is None:
            return higher or lower
        h, low = higher.dtype, lower.dtype
        if h.is_complex:
            return higher
        if low.is_complex:
            combined = self.complex_of(h, what) if h.is_float else low
        elif h.is_float:
            return higher
        elif h.is_bool or low.is_float:
            combined = self.promote_types(h, low, what).dtype
        else:
            return higher
        return higher if combined == h else Promotion(combined, "category")

    # -- the other questions -----------------------------------------------------------

    def join(self, a: DType, b: DType, computation: Computation = Computation.ARITH) -> Promotion:
        return self.promote_types(a, b, f"{a.name} and {b.name}")

    def literal_dtype(self, literal: Operand) -> DType:
        value = literal.value
        if literal.kind is not Kind.INT or value is None or fits(value, dtypes.int64):  # type: ignore[arg-type]
            return LITERAL_DTYPES[literal.kind]
        if fits(value, dtypes.uint64):  # type: ignore[arg-type]
            return dtypes.uint64
        raise self.refuse(
            f"literal {value} fits neither int64 nor uint64, so torch cannot wrap it",
            "literal-range",
        )

    def join_literal(
        self, typed: DType, literal: Operand, computation: Computation = Computation.ARITH
    ) -> Promotion:
        return self.promote((Operand.typed(typed), literal), computation)

    def true_divide(self, d: DType) -> Promotion:
        if d.is_float or d.is_complex:
            return Promotion(d, "same")
        return Promotion(dtypes.float32, "true-division")

    def math_dtype(self, d: DType) -> Promotion:
        if d.is_float or d.is_complex:
            return Promotion(d, "same")
        return Promotion(dtypes.float32, "float-function")

    def sum_dtype(self, d: DType) -> DType:
        return dtypes.int64 if d.is_int or d.is_bool else d

    def dot_dtype(self, lhs: DType, rhs: DType, acc: DType | None = None) -> Decision:
        if lhs != rhs:
            raise self.refuse(
                f"dot of {lhs.name} and {rhs.name}: torch's matmul needs operands of one "
                "dtype; cast one of them",
                "matmul-dtypes",
            )
        return super().dot_dtype(lhs, rhs, acc)
