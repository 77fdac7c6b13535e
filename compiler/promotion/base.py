"""What a promotion policy is: the questions it answers, and the machinery they share.

A policy decides, for an operation on operands of different dtypes, the dtype the
operation computes in. Operands are typed blocks, typed scalars (0-d) or *weak literals*:
Python values whose dtype the policy chooses from their value and from the other operands.
Each policy answers the same questions (ARCHITECTURE section 5):

1. the array-array dtype (`Policy.join`);
2. the dtype of a literal, alone (`Policy.literal_dtype`) or beside a typed operand
   (`Policy.join_literal`), with range errors;
3. whether 0-d operands take part like blocks (`Policy.promote`, torch overrides it);
4. the dtype of true division of integers (`Policy.true_divide`);
5. how ``//`` and ``%`` round (`Policy.rounding`);
6. the accumulator and result dtypes of reductions, scans and ``dot`` (`Policy.reduce_dtype`,
   `Policy.scan_dtype`, `Policy.dot_dtype`), and the dtype float functions compute in
   (`Policy.math_dtype`);
7. what it refuses, raising `PromotionError` with the operands, the policy and the rule: the
   kinds of dtype each computation refuses once its operands are promoted are data
   (`Policy.refusals`: shifts refuse bools and floats), and so are the computations with no
   bool loop, whose bools compute in an integer dtype instead (`Policy.bools_compute_in`);
8. what float minima and maxima (elementwise and reductions) make of NaN (`Policy.nan`),
   and whether ``>>`` is arithmetic or logical (`Policy.shift_fill`).

`Policy.decide` combines them for one operation of a given `Computation`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from blkc import dtypes
from blkc.dtypes import DType, Kind
from blkc.promotion.computation import Computation

Scalar = bool | int | float | complex

REAL_PART: dict[DType, DType] = {
    dtypes.complex64: dtypes.float32,
    dtypes.complex128: dtypes.float64,
}
"""The float a complex dtype is made of (its real part, its absolute value)."""

ACCUMULATING = ("sum", "prod")
"""The reductions and scans that accumulate (the others select: ``max``, ``min``)."""


class PromotionError(TypeError):
    """A policy refuses an operation. The message names the operands, the policy and the rule."""

    def __init__(self, message: str, *, policy: str, rule: str):
        super().__init__(f"{message} (policy '{policy}', rule '{rule}')")
        self.policy = policy
        self.rule = rule


def scalar_kind(value: Scalar) -> Kind:
    """The kind of a Python scalar: bool, int, float or complex."""
    if isinstance(value, bool):
        return Kind.BOOL
    if isinstance(value, int):
        return Kind.INT
    if isinstance(value, float):
        return Kind.FLOAT
    if isinstance(value, complex):
        return Kind.COMPLEX
    raise TypeError(f"{value!r} is not a Python bool, int, float or complex")


@dataclass(frozen=True)
class Operand:
    """One operand as a policy sees it: a typed value (with its rank) or a weak literal."""

    dtype: DType | None = None
    """The dtype of a typed operand; None for a weak literal."""
    rank: int = 1
    """Typed operands: 0 for scalars and 0-d values, the block rank otherwise."""
    literal_kind: Kind | None = None
    """Weak literals: the kind of the Python value."""
    value: Scalar | None = None
    """Weak literals: the Python value, when known."""

    @staticmethod
    def typed(dtype: DType | str, rank: int = 1) -> Operand:
        return Operand(dtype=dtypes.dtype(dtype), rank=rank)

    @staticmethod
    def literal(value: Scalar) -> Operand:
        return Operand(rank=0, literal_kind=scalar_kind(value), value=value)

    @staticmethod
    def weak(kind: Kind) -> Operand:
        """A weak literal whose value is unknown (only its kind is)."""
        return Operand(rank=0, literal_kind=kind)

    @property
    def is_literal(self) -> bool:
        return self.dtype is None

    @property
    def kind(self) -> Kind:
        assert self.literal_kind is not None or self.dtype is not None
        return self.dtype.kind if self.dtype is not None else self.literal_kind  # type: ignore[return-value]

    def __str__(self) -> str:
        if self.dtype is not None:
            return self.dtype.name if self.rank else f"{self.dtype.name} scalar"
        if self.value is not None:
            return f"literal {self.value!r}"
        return f"weak {self.kind} literal"


@dataclass(frozen=True)
class Promotion:
    """A promoted dtype and the rule that chose it (`explain=true` reports the rule)."""

    dtype: DType
    rule: str


@dataclass(frozen=True)
class Decision:
    """What an operation computes in and gives."""

    compute: DType
    """The dtype every promoted operand is cast to."""
    result: DType
    """The dtype of the result (bool for comparisons)."""
    rule: str
    """The rule that chose `compute`."""
    rounding: str | None = None
    """``floor`` or ``trunc`` for ``//`` and ``%``; None otherwise."""
    fill: str | None = None
    """``sign`` or ``zero``: what ``>>`` shifts in (`Policy.shift_fill`); None for other
    computations."""


@dataclass(frozen=True)
class Refusal:
    """Why a policy refuses a computation on some kinds of dtype."""

    rule: str
    why: str
    """Completes "<operands> promote to <dtype>: "; ``{op}`` stands for the computation,
    ``{dtype}`` for the dtype it would compute in."""

    def of(self, *kinds: Kind) -> dict[Kind, Refusal]:
        """This refusal, for each of `kinds`."""
        return dict.fromkeys(kinds, self)


def no_bool_subtraction(library: str) -> dict[Kind, Refusal]:
    """The refusal of ``-`` on bools (``True - True``, ``-True``) that several libraries
    share, worded for `library`."""
    return Refusal("bool-subtract", f"{library} does not subtract or negate bools (use ^ or ~)").of(
        Kind.BOOL
    )


FLOORING = Refusal(
    "complex-rounding", "{op} does not support complex numbers (floor is undefined for them)"
)

REFUSALS: dict[Computation, dict[Kind, Refusal]] = {
    Computation.BITWISE: Refusal("bitwise", "bitwise operations need integers or bools").of(
        Kind.FLOAT, Kind.COMPLEX
    ),
    Computation.SHIFT: Refusal("shift", "shift operations need integers").of(
        Kind.BOOL, Kind.FLOAT, Kind.COMPLEX
    ),
    Computation.FLOORDIV: FLOORING.of(Kind.COMPLEX),
    Computation.MOD: FLOORING.of(Kind.COMPLEX),
    Computation.ROUNDING_MATH: Refusal(
        "complex-rounding", "floor and ceil are undefined for complex numbers"
    ).of(Kind.COMPLEX),
}
"""What every policy refuses, unless it says otherwise."""


def promoted(operands: Sequence[Operand], dtype: DType) -> str:
    """The operands of a refused operation, as its message names them."""
    names = " and ".join(str(o) for o in operands)
    return f"{names} operand" if len(operands) == 1 else f"{names} promote to {dtype.name}"


def fits(value: int, d: DType) -> bool:
    lo, hi = d.int_range
    return lo <= value <= hi


def fits_float32(value: float) -> bool:
    """True when `value` is a normal float32 (or zero, infinite or NaN)."""
    magnitude = abs(value)
    return (
        magnitude == 0.0
        or math.isinf(magnitude)
        or math.isnan(magnitude)
        or 2.0**-126 <= magnitude <= (2 - 2**-23) * 2.0**127
    )


class Policy(ABC):
    """A promotion policy. Subclasses are data plus a few small functions."""

    name: ClassVar[str]
    dtypes: ClassVar[tuple[DType, ...]]
    """The dtypes this policy knows; others are refused."""
    wraps_literals: ClassVar[bool] = False
    """True when an integer literal out of the result dtype's range wraps instead of
    being refused (torch, jax)."""
    refusals: ClassVar[Mapping[Computation, Mapping[Kind, Refusal]]] = REFUSALS
    """The kinds of dtype each computation refuses once its operands are promoted."""
    bools_compute_in: ClassVar[Mapping[Computation, Promotion]] = {}
    """Computations with no bool loop: bools compute in this dtype instead of being refused
    (NumPy's ``True // True`` is an int8)."""
    nan: ClassVar[str] = "propagate"
    """What a float ``minimum``/``maximum``, and a ``max``/``min``/``argmax``/``argmin``
    reduction or scan of floats, make of NaN: ``propagate`` (NaN wins, as in NumPy, JAX,
    PyTorch and the Array API) or ``num`` (NaN loses: the other operand, as C's ``fmax``)."""

    # -- the questions -----------------------------------------------------------------

    @abstractmethod
    def join(self, a: DType, b: DType, computation: Computation = Computation.ARITH) -> Promotion:
        """The dtype of an operation on two typed operands of dtypes `a` and `b`."""

    @abstractmethod
    def literal_dtype(self, literal: Operand) -> DType:
        """The dtype a literal takes when no typed operand decides it."""

    @abstractmethod
    def join_literal(
        self, typed: DType, literal: Operand, computation: Computation = Computation.ARITH
    ) -> Promotion:
        """The dtype of an operation on a typed operand and a weak literal."""

    def true_divide(self, d: DType) -> Promotion:
        """The dtype ``/`` computes in when its operands promote to `d`."""
        return Promotion(d, "same")

    def rounding(self, all_literals: bool) -> str:
        """How ``//`` and ``%`` round: ``floor`` (Python) or ``trunc`` (C)."""
        return "floor"

    def shift_fill(self, operands: Sequence[Operand], compute: DType) -> str:
        """What ``value >> amount`` (`operands`) shifts in once promoted to `compute`:
        ``sign`` (arithmetic) or ``zero`` (logical). By default `compute`'s signedness, as
        C and NumPy shift the promoted value."""
        return "sign" if compute.is_int and compute.signed else "zero"

    def sum_dtype(self, d: DType) -> DType:
        """The result dtype of a sum (or product) reduction of a block of `d`."""
        return d

    def reduce_dtype(self, kind: str, d: DType) -> DType:
        """The accumulator (and result) dtype of a ``sum``, ``prod``, ``max`` or ``min``
        reduction of a block of `d`: `sum_dtype` for sums and products; maxima and minima
        keep `d`, which must be a kind the policy orders."""
        if kind in ACCUMULATING:
            return self.sum_dtype(d)
        self.check_kind(Computation.MINMAX, d, f"{kind} of {d.name}")
        return d

    def scan_dtype(self, kind: str, d: DType) -> DType:
        """The accumulator (and result) dtype of an inclusive ``kind`` scan of a block of
        `d`: the reduction's, unless a policy says otherwise."""
        return self.reduce_dtype(kind, d)

    def dot_dtype(self, lhs: DType, rhs: DType, acc: DType | None = None) -> Decision:
        """What ``dot`` of blocks of `lhs` and `rhs` computes, plus an accumulator block of
        `acc` when given: both operands are cast to `compute`, and the products are summed
        in `result` (the accumulator dtype). By default: what ``a * b (+ acc)`` gives."""
        product = self.decide(Computation.ARITH, [Operand.typed(lhs), Operand.typed(rhs)])
        if acc is None:
            return product
        total = self.decide(Computation.ARITH, [Operand.typed(product.result), Operand.typed(acc)])
        return replace(product, result=total.result)

    def math_dtype(self, d: DType) -> Promotion:
        """The dtype a float function (exp, sqrt, ...) computes in for an operand of `d`."""
        if d.is_float or d.is_complex:
            return Promotion(d, "same")
        raise self.refuse(f"{d.name} operand of a float function", "float-function")

    def check_atomic(self, kind: str, d: DType) -> None:
        """Refuse an atomic `kind` (add, max, ..., xchg, cas) on memory of `d` where the
        policy does; none do by default, as the CPU backends have atomics of every width."""
        return None

    # -- shared machinery --------------------------------------------------------------

    def refuse(self, message: str, rule: str) -> PromotionError:
        return PromotionError(message, policy=self.name, rule=rule)

    def check_kind(self, computation: Computation, d: DType, what: str) -> None:
        """Refuse `computation` on `d` (its operands, named by `what`) when the policy
        refuses `d`'s kind for it."""
        refusal = self.refusals.get(computation, {}).get(d.kind)
        if refusal is not None:
            why = refusal.why.format(op=computation.value, dtype=d.name)
            raise self.refuse(f"{what}: {why}", refusal.rule)

    def check_known(self, operand: Operand) -> None:
        if operand.dtype is not None and operand.dtype not in self.dtypes:
            raise self.refuse(
                f"{operand.dtype.name} is not a dtype of this policy "
                f"(it has {', '.join(d.name for d in self.dtypes)})",
                "unknown-dtype",
            )

    def promote(
        self, operands: Sequence[Operand], computation: Computation = Computation.ARITH
    ) -> Promotion:
        """The common dtype of `operands`: typed ones join, then literals join in."""
        for operand in operands:
            self.check_known(operand)
        typed = [o for o in operands if not o.is_literal]
        literals = [o for o in operands if o.is_literal]
        if not typed:
            dtype = self.literal_dtype(literals[0])
            promotion = Promotion(dtype, "weak-literal")
            for literal in literals[1:]:
                promotion = self._keep_rule(
                    promotion, self.join(dtype, self.literal_dtype(literal), computation)
                )
                dtype = promotion.dtype
            return promotion
        promotion = Promotion(typed[0].dtype, "same")  # type: ignore[arg-type]
        for operand in typed[1:]:
            joined = self.join(promotion.dtype, operand.dtype, computation)  # type: ignore[arg-type]
            promotion = self._keep_rule(promotion, joined)
        for literal in literals:
            joined = self.join_literal(promotion.dtype, literal, computation)
            promotion = self._keep_rule(promotion, joined)
        self.check_literal_ranges(literals, promotion.dtype)
        return promotion

    @staticmethod
    def _keep_rule(before: Promotion, after: Promotion) -> Promotion:
        """The later promotion, keeping the earlier rule when the dtype did not change."""
        return before if after.dtype == before.dtype else after

    def check_literal_ranges(self, literals: Sequence[Operand], result: DType) -> None:
        """Refuse integer literals outside `result` (unless this policy wraps them)."""
        if not (result.is_int or result.is_bool) or self.wraps_literals:
            return
        for literal in literals:
            value = literal.value
            if isinstance(value, bool) or not isinstance(value, int) or fits(value, result):
                continue
            if value < 0 and result.is_unsigned:
                raise self.refuse(
                    f"negative literal {value} with unsigned {result.name}: cast one of them "
                    "explicitly",
                    "literal-range",
                )
            raise self.refuse(
                f"literal {value} is out of range for {result.name} "
                f"[{result.int_range[0]}, {result.int_range[1]}]",
                "literal-range",
            )

    def decide(self, computation: Computation, operands: Sequence[Operand]) -> Decision:
        """The computation and result dtypes of an operation of kind `computation`."""
        promotion = self.promote(operands, computation)
        compute, rule = promotion.dtype, promotion.rule
        instead = self.bools_compute_in.get(computation) if compute.is_bool else None
        if instead is not None:
            compute, rule = instead.dtype, instead.rule
        self.check_kind(computation, compute, promoted(operands, promotion.dtype))
        result = compute
        rounding = fill = None
        if computation is Computation.TRUEDIV:
            divided = self.true_divide(compute)
            if divided.dtype != compute:
                compute, rule = divided.dtype, divided.rule
            result = compute
        elif computation in (Computation.FLOORDIV, Computation.MOD):
            rounding = self.rounding(all(o.is_literal for o in operands))
        elif computation is Computation.SHIFT:
            fill = self.shift_fill(operands, compute)
        elif computation in (Computation.FLOAT_MATH, Computation.ROUNDING_MATH):
            math_promotion = self.math_dtype(compute)
            if math_promotion.dtype != compute:
                compute, rule = math_promotion.dtype, math_promotion.rule
            result = compute
        elif computation in (Computation.COMPARE, Computation.ORDER):
            result = dtypes.bool_
        elif computation is Computation.ABS:
            result = REAL_PART.get(compute, compute)
        return Decision(compute, result, rule, rounding, fill)

    def result_type(self, operands: Sequence[Operand]) -> DType:
        """The promoted dtype of `operands` (what ``a + b`` computes in)."""
        return self.promote(operands).dtype
