"""Block pointers: `tl.make_block_ptr`, `tl.advance`, and `tl.load`/`tl.store` through them,
as Triton's matmul tutorial uses them.

A block pointer lives at compile time: it holds the kernel scalars `base`, `shape`,
`strides` and `offsets` and the constants `block_shape` and `order`. A load or store
expands it to a block of pointers,

    base + sum over d of (offsets[d] + arange(0, block_shape[d])) * strides[d]

(each term broadcast along its own dimension), masked by ``0 <= index < shape[d]`` in the
dimensions of `boundary_check`. Loops carry a block pointer as its kernel scalars
(`scalars` / `with_scalars`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from blkc import dtypes
from blkc.language.core import builtin, tensor


class _Types:
    """`blkc.dialects.types`, imported at first use: `import blkc.language` stays free of
    xDSL (kernels only need it once they compile)."""

    def __getattr__(self, name: str) -> Any:
        from blkc.dialects import types as module

        return getattr(module, name)


types = _Types()

if TYPE_CHECKING:
    from xdsl.ir import SSAValue

    from blkc.frontend.python import CodeGenerator

_FIELDS = ("shape", "strides", "offsets")


@dataclasses.dataclass(frozen=True)
class BlockPointer:
    """What `tl.make_block_ptr` returns: a pointer to a `block_shape` window of a tensor of
    `shape` and `strides` (elements) at `base`, starting at `offsets`."""

    base: tensor
    shape: tuple[tensor, ...]
    strides: tuple[tensor, ...]
    offsets: tuple[tensor, ...]
    block_shape: tuple[int, ...]
    order: tuple[int, ...]

    @property
    def rank(self) -> int:
        return len(self.block_shape)

    def named_scalars(self) -> list[tuple[str, tensor]]:
        """The kernel scalars, named as a variable's parts (``base``, ``offsets[1]``)."""
        named = [("base", self.base)]
        for field in _FIELDS:
            named += [(f"{field}[{d}]", v) for d, v in enumerate(getattr(self, field))]
        return named

    def scalars(self) -> list[tensor]:
        return [v for _, v in self.named_scalars()]

    def with_scalars(self, values: Sequence[tensor]) -> BlockPointer:
        """This block pointer with its kernel scalars replaced, in `scalars`' order."""
        r = self.rank
        parts = {f: tuple(values[1 + i * r : 1 + (i + 1) * r]) for i, f in enumerate(_FIELDS)}
        return dataclasses.replace(self, base=values[0], **parts)

    def same_layout(self, other: object) -> bool:
        """Whether `other` is a block pointer of the same block shape and order (so a loop
        or an `if` can carry one as the other)."""
        return (
            isinstance(other, BlockPointer)
            and other.block_shape == self.block_shape
            and other.order == self.order
        )

    def __repr__(self) -> str:
        return f"block pointer (block_shape={list(self.block_shape)}, order={list(self.order)})"


def constant_ints(sem: CodeGenerator, values: Any, what: str) -> tuple[int, ...]:
    values = sem.constant(values, what)
    if not isinstance(values, tuple | list):
        values = (values,)
    found = tuple(sem.constant(v, what) for v in values)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in found):
        raise sem.error(f"{what} must be a tuple of integer constants, got {list(found)}")
    return found


def _scalars(
    sem: CodeGenerator, values: Any, what: str, rank: int, dtype: dtypes.DType
) -> tuple[tensor, ...]:
    values = sem.unwrap_constexpr(values)
    if not isinstance(values, tuple | list):
        values = (values,)
    if len(values) != rank:
        raise sem.error(
            f"make_block_ptr: {what} has {len(values)} entries but block_shape has rank {rank}; "
            "shape, strides, offsets, block_shape and order need one entry per dimension"
        )
    found = []
    for v in values:
        handle = sem.value(v, f"make_block_ptr's {what}")
        if types.shape_of(handle.type):
            raise sem.error(f"make_block_ptr's {what} must be scalars, got {handle.type}")
        found.append(sem.wrap(sem.ir.cast(handle, dtype)))
    return tuple(found)


@builtin
def make_block_ptr(
    base: Any,
    shape: Any,
    strides: Any,
    offsets: Any,
    block_shape: Any,
    order: Any,
    *,
    _semantic: CodeGenerator,
) -> BlockPointer:
    """A block pointer to the `block_shape` window at `offsets` of the tensor of `shape`
    and `strides` (in elements) at `base`; `order` lists the dimensions from the fastest
    varying (a layout hint)."""
    sem = _semantic
    pointer = sem.value(base, "make_block_ptr's base")
    if types.shape_of(pointer.type) or not isinstance(
        types.element_type(pointer.type), types.PtrType
    ):
        raise sem.error(
            "Expected `base` to be a pointer type (but not a block pointer type or others): "
            f"make_block_ptr's base must be a scalar pointer, got {pointer.type}"
        )
    block = constant_ints(sem, block_shape, "make_block_ptr's block_shape")
    if not all(d > 0 and d & (d - 1) == 0 for d in block):
        raise sem.error(f"block_shape's dimensions must be powers of two, got {list(block)}")
    rank = len(block)
    dims = constant_ints(sem, order, "make_block_ptr's order")
    if sorted(dims) != list(range(rank)):
        raise sem.error(
            f"Expected a permutation of (0, 1, ..., len(order)-1) in order: order {list(dims)} "
            f"is not a permutation of the {rank} dimensions of block_shape {list(block)}"
        )
    return BlockPointer(
        sem.wrap(pointer),
        _scalars(sem, shape, "shape", rank, dtypes.int64),
        _scalars(sem, strides, "strides", rank, dtypes.int64),
        _scalars(sem, offsets, "offsets", rank, dtypes.int32),
        block,
        dims,
    )


def _block_pointer(sem: CodeGenerator, value: Any, what: str) -> BlockPointer:
    value = sem.unwrap_constexpr(value)
    if not isinstance(value, BlockPointer):
        shown = value.handle.type if isinstance(value, tensor) else repr(value)
        raise sem.error(f"{what} must be a block pointer from tl.make_block_ptr, got {shown}")
    return value


@builtin
def advance(base: Any, offsets: Any, *, _semantic: CodeGenerator) -> BlockPointer:
    """The block pointer `base` moved by `offsets` (one per dimension); `base` is unchanged."""
    sem = _semantic
    pointer = _block_pointer(sem, base, "tl.advance's base")
    steps = _scalars(sem, offsets, "offsets", pointer.rank, dtypes.int32)
    moved = tuple(
        sem.wrap(sem.ir.binary("add", old.handle, step.handle))
        for old, step in zip(pointer.offsets, steps, strict=True)
    )
    return dataclasses.replace(pointer, offsets=moved)


advance._must_use_result = (  # type: ignore[attr-defined]
    "tl.advance moves nothing in place: assign its result (p = tl.advance(p, offsets))."
)


def _checked_dims(sem: CodeGenerator, boundary_check: Any, rank: int) -> list[int]:
    dims = constant_ints(sem, boundary_check, "boundary_check")
    for d in dims:
        if not 0 <= d < rank:
            raise sem.error(
                f"boundary_check dimension {d} is out of range for a block pointer of rank "
                f"{rank} (boundary_check must be within [0, {rank}))"
            )
    return sorted(set(dims))


def _index(sem: CodeGenerator, pointer: BlockPointer, d: int) -> SSAValue:
    """``offsets[d] + arange(0, block_shape[d])`` in int64, along dimension `d`."""
    ir = sem.ir
    lane = ir.cast(ir.arange(0, pointer.block_shape[d]), dtypes.int64)
    index = ir.binary("add", ir.cast(pointer.offsets[d].handle, dtypes.int64), lane)
    for axis in range(pointer.rank):
        if axis != d:
            index = ir.expand_dims(index, axis)
    return index


def within(sem: CodeGenerator, index: SSAValue, size: SSAValue) -> SSAValue:
    """Where `index` is inside a dimension of `size` elements: ``0 <= index < size``."""
    ir = sem.ir
    return ir.binary("and", ir.compare("ge", index, ir.literal(0)), ir.compare("lt", index, size))


def expand(
    sem: CodeGenerator, pointer: BlockPointer, boundary_check: Any
) -> tuple[SSAValue, SSAValue | None]:
    """The block of pointers `pointer` stands for, and the mask of `boundary_check`."""
    ir = sem.ir
    checked = _checked_dims(sem, boundary_check, pointer.rank)
    offset: SSAValue | None = None
    mask: SSAValue | None = None
    for d in range(pointer.rank):
        index = _index(sem, pointer, d)
        term = ir.binary("mul", index, pointer.strides[d].handle)
        offset = term if offset is None else ir.binary("add", offset, term)
        if d in checked:
            inside = within(sem, index, pointer.shape[d].handle)
            mask = inside if mask is None else ir.binary("and", mask, inside)
    assert offset is not None
    block = ir.broadcast_to(ir.addptr(pointer.base.handle, offset), pointer.block_shape)
    return block, mask


def load(
    sem: CodeGenerator,
    pointer: BlockPointer,
    mask: Any,
    other: Any,
    boundary_check: Any,
    padding_option: Any,
) -> tensor:
    """`tl.load` of a block pointer: the block, zero (or NaN, `padding_option="nan"`) where
    `boundary_check`'s dimensions leave the tensor."""
    if not sem.is_none(mask) or not sem.is_none(other):
        raise sem.error(
            "`mask` and `other` arguments cannot be specified for loading block pointers: "
            "use boundary_check and padding_option"
        )
    padding = sem.constant(padding_option, "padding_option")
    if padding not in ("", "zero", "nan"):
        raise sem.error(f"Padding option {padding} not supported: use '', 'zero' or 'nan'")
    pointee = dtypes.from_xdsl(types.element_type(pointer.base.handle.type).pointee)  # type: ignore[attr-defined]
    if padding == "nan" and not pointee.is_float:
        raise sem.error(
            f"Padding option `nan` is not supported for integer block pointers ({pointee.name})"
        )
    block, in_bounds = expand(sem, pointer, boundary_check)
    fill = None
    if in_bounds is not None and padding == "nan":
        fill = sem.ir.literal(math.nan)
    return sem.wrap(sem.ir.load(block, in_bounds, fill))


def store(
    sem: CodeGenerator, pointer: BlockPointer, value: Any, mask: Any, boundary_check: Any
) -> None:
    """`tl.store` of `value` (broadcast to the block shape) through a block pointer, only
    inside the tensor in `boundary_check`'s dimensions."""
    if not sem.is_none(mask):
        raise sem.error(
            "`mask` argument cannot be specified for storing block pointers: use boundary_check"
        )
    block, in_bounds = expand(sem, pointer, boundary_check)
    data = sem.ir.typed(sem.value(value, "store's value"))
    if types.shape_of(data.type) != pointer.block_shape:
        data = sem.ir.broadcast_to(data, pointer.block_shape)
    sem.ir.store(block, data, in_bounds)
