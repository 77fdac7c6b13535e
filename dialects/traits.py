"""Traits that generic passes ask `blk` ops about, instead of switching over op names.

`promote-types` asks an op which operands share one computation dtype and what kind of
computation it is (a `Computation`, which the promotion policy answers differently for
``/`` than for ``+``);
`insert-broadcasts` asks which operands broadcast together and to what.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.traits import OpTrait

from blkc.promotion.computation import Computation


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
