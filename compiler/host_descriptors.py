"""Host-side tensor descriptors, which users import from `blkc.tools.tensor_descriptor`
(Triton's `triton.tools.tensor_descriptor`): `TensorDescriptor.from_tensor(x, block_shape)`
describes an array (`base`, `shape`, `strides` in elements) and the block a kernel moves
through it, and is passed to a kernel as one argument.

In the kernel the argument is what `tl.make_tensor_descriptor(base, shape, strides,
block_shape, padding)` returns: ``desc.load([i, j])``, ``desc.store([i, j], value)``,
``desc.atomic_add``, ``desc.block_shape``, ``desc.shape``. The launch passes `base` as a
pointer and `shape` and `strides` as ints (so they specialize as other ints do); the
block shape and the padding are compiled in. Any object of a class named
`TensorDescriptor` with these fields is taken as one, so descriptors made by Triton's own
class launch as well.

Triton's rules for a descriptor hold and are checked here, with a ValueError or TypeError
saying which one failed: 1 to 5 dimensions, as many strides and block dimensions, a base
aligned to 16 bytes, the last stride 1, the others multiples of 16 bytes, positive sizes,
block dimensions that are powers of two, padding "zero" or "nan" (NaN for float arrays
only: the kernel's compilation says so).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any

MAX_BLOCK_ELEMENTS = 1 << 20
"""The most elements a descriptor's block may hold (Triton's limit on a block's size)."""


@dataclass
class TensorDescriptor:
    """A descriptor of the array `base` of `shape` and `strides` (elements), moving blocks
    of `block_shape`; loads fill with `padding` ("zero" or "nan") outside the array."""

    base: Any
    shape: list[int]
    strides: list[int]
    block_shape: list[int]
    padding: str = "zero"
    round_f32_to_tf32: bool = False

    def __post_init__(self) -> None:
        checked(self)

    @staticmethod
    def from_tensor(
        tensor: Any, block_shape: list[int], padding: str = "zero", round_f32_to_tf32: bool = False
    ) -> TensorDescriptor:
        """A descriptor of all of `tensor` (a NumPy array, or a tensor with `stride()`)."""
        shape, strides = list(tensor.shape), element_strides(tensor)
        return TensorDescriptor(
            tensor, shape, strides, list(block_shape), padding, round_f32_to_tf32
        )


def element_strides(array: Any) -> list[int]:
    """`array`'s strides in elements (torch's `stride()`, or NumPy's bytes over the item
    size)."""
    stride = getattr(array, "stride", None)
    if callable(stride):
        return [int(s) for s in stride()]
    itemsize = array.dtype.itemsize
    if any(s % itemsize for s in array.strides):
        raise ValueError(
            f"a descriptor's array must have whole-element strides, got {array.strides}"
        )
    return [s // itemsize for s in array.strides]


def is_host_descriptor(value: Any) -> bool:
    """Whether kernel argument `value` is a host-side tensor descriptor (this module's, or
    any class named `TensorDescriptor` with its fields)."""
    return type(value).__name__ == "TensorDescriptor" and all(
        hasattr(value, field) for field in ("base", "shape", "strides", "block_shape")
    )


def _address(base: Any) -> int:
    pointer = getattr(base, "data_ptr", None)
    if callable(pointer):
        return int(pointer())
    data = getattr(getattr(base, "ctypes", None), "data", None)
    return int(data) if data is not None else 0


def _itemsize(base: Any) -> int:
    dtype = base.dtype
    size = getattr(dtype, "itemsize", None)
    return int(size) if size is not None else int(base.element_size())


def _ints(desc: Any, name: str) -> list[int]:
    """`desc.name` as ints (anything `operator.index` takes: ints, NumPy ints), else a
    TypeError naming the element."""
    values = []
    for i, v in enumerate(getattr(desc, name)):
        try:
            if isinstance(v, bool):
                raise TypeError
            values.append(operator.index(v))
        except TypeError:
            raise TypeError(
                f"a tensor descriptor's {name}[{i}] must be an int, got {v!r}"
            ) from None
    return values


def checked(desc: Any) -> tuple[list[int], list[int], list[int]]:
    """`desc`'s shape, strides and block shape as ints; a ValueError or TypeError unless
    `desc` follows Triton's rules for a descriptor."""
    shape, strides, block = (_ints(desc, n) for n in ("shape", "strides", "block_shape"))
    rank = len(shape)
    if not 1 <= rank <= 5:
        raise ValueError(f"a tensor descriptor has 1 to 5 dimensions, got {rank}")
    if len(strides) != rank or len(block) != rank:
        raise ValueError(
            f"a tensor descriptor's shape, strides and block_shape must have as many "
            f"dimensions: got {rank}, {len(strides)} and {len(block)}"
        )
    for i, d in enumerate(block):
        if d < 1 or d & (d - 1):
            raise ValueError(f"block_shape[{i}] must be a power of 2, got {d}")
    if math.prod(block) > MAX_BLOCK_ELEMENTS:
        raise ValueError(
            f"a descriptor's block holds {math.prod(block)} elements, more than "
            f"{MAX_BLOCK_ELEMENTS}"
        )
    if any(d <= 0 for d in shape):
        raise ValueError(f"a tensor descriptor's shape must be positive, got {shape}")
    size = _itemsize(desc.base)
    if _address(desc.base) % 16:
        raise ValueError("a tensor descriptor's base must be aligned to 16 bytes")
    if strides[-1] != 1:
        raise ValueError(f"a tensor descriptor's last stride must be 1, got {strides[-1]}")
    for stride in strides[:-1]:
        if stride * size % 16:
            raise ValueError(
                f"a tensor descriptor's strides must be multiples of 16 bytes, got a stride of "
                f"{stride} elements of {size} bytes"
            )
    padding = getattr(desc, "padding", "zero")
    if padding not in ("zero", "nan"):
        raise ValueError(f"a tensor descriptor's padding must be 'zero' or 'nan', got {padding!r}")
    return shape, strides, block


__all__ = ["TensorDescriptor", "checked", "element_strides", "is_host_descriptor"]
