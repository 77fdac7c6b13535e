"""Broadcasting of block shapes: NumPy's rule, the one Triton follows.

Shapes are aligned on the right; a missing leading dimension counts as 1; two sizes are
compatible when equal or when one of them is 1. Scalars have shape ``()``.
"""

from __future__ import annotations

from collections.abc import Sequence


class BroadcastError(ValueError):
    """Shapes that cannot broadcast. The message names the shapes and the dimension."""

    def __init__(self, message: str, shapes: Sequence[tuple[int, ...]], dim: int):
        super().__init__(message)
        self.shapes = tuple(shapes)
        self.dim = dim
        """The dimension of the broadcast result (counted from the left) that disagrees."""


def format_shape(shape: Sequence[int]) -> str:
    """A shape as the IR spells it: ``16x32``, or ``()`` for a scalar."""
    return "x".join(str(d) for d in shape) if shape else "()"


def broadcast_shapes(*shapes: Sequence[int], names: Sequence[str] | None = None) -> tuple[int, ...]:
    """The shape all `shapes` broadcast to; `BroadcastError` when they cannot.

    `names` (one per shape) label the operands in the error message.

    >>> broadcast_shapes((16, 1), (32,))
    (16, 32)
    """
    labels = list(names) if names is not None else [f"shape {tuple(s)}" for s in shapes]
    rank = max((len(s) for s in shapes), default=0)
    result: list[int] = []
    for dim in range(rank):
        size = 1
        owner = -1
        for index, shape in enumerate(shapes):
            offset = dim - (rank - len(shape))
            if offset < 0:
                continue
            here = shape[offset]
            if here == 1 or here == size:
                continue
            if size == 1:
                size, owner = here, index
                continue
            raise BroadcastError(
                f"{labels[owner]} and {labels[index]} cannot broadcast: dimension {dim} has "
                f"sizes {size} and {here} (sizes must be equal, or one of them 1)",
                (tuple(shapes[owner]), tuple(shape)),
                dim,
            )
        result.append(size)
    return tuple(result)
