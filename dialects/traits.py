"""Traits that generic passes ask `blk` ops about, instead of switching over op names.

`promote-types` asks an op which operands share one computation dtype and what kind of
computation it is (the promotion policy answers differently for ``/`` than for ``+``);
`insert-broadcasts` asks which operands broadcast together and to what.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.traits import OpTrait
from xdsl.utils.str_enum import StrEnum


class Computation(StrEnum):
    """What an op computes, as the promotion policies distinguish it."""

    ARITH = "arith"
    """``+ *``, fma: the common dtype of the operands."""
    SUBTRACT = "subtract"
    """``-``, binary and unary: like ARITH, but most libraries refuse bools (``True - True``,
    ``-True``) that they add."""
    ABS = "abs"
    """``abs``: like ARITH, except that the absolute value of a complex number is real."""
    MINMAX = "minmax"
    """``minimum maximum``: like ARITH, over dtypes the policy orders."""
    TRUEDIV = "truediv"
    """``/``: integers give a float."""
    FLOORDIV = "floordiv"
    """``//``: rounding chosen by the policy."""
    MOD = "mod"
    """``%``: rounding chosen by the policy."""
    BITWISE = "bitwise"
    """``& | ^ ~``: bools and integers only."""
    SHIFT = "shift"
    """``<< >>``: integers only."""
    COMPARE = "compare"
    """``== !=``: the common dtype, then a bool result."""
    ORDER = "order"
    """``< <= > >=``: like COMPARE, over dtypes the policy orders."""
    SELECT = "select"
    """``where``: the two values share a dtype; the condition is bool."""
    FLOAT_MATH = "float_math"
    """``exp sqrt sin ...``: floats only; integers become floats."""
    ROUNDING_MATH = "rounding_math"
    """``floor ceil``: floats only; integers become floats; complex numbers are refused."""


@dataclass(frozen=True)
class Promotes(OpTrait):
    """The named operands share one computation dtype, chosen by the promotion policy."""

    computation: Computation
    operands: tuple[str, ...]

    def computation_of(self, op: Operation) -> Computation:
        """What `op` computes: `computation`, unless the op's properties refine it (``blk.cmp``
        orders or compares by its predicate)."""
        return self.computation


@dataclass(frozen=True)
class Broadcasts(OpTrait):
    """The named operands broadcast together.

    With `to` set, they broadcast to the shape of that operand, which itself never
    changes (a store's value and mask take the shape of its pointers).
    """

    operands: tuple[str, ...]
    to: str | None = None
