"""Tensor descriptors: `tl.make_tensor_descriptor`, `desc.load`, `desc.store` and
`desc.atomic_add` (and `atomic_min`, `atomic_max`, `atomic_and`, `atomic_or`,
`atomic_xor`; with `tl.load_tensor_descriptor` / `tl.store_tensor_descriptor`).

A tensor descriptor describes a tensor (`base`, `shape`, `strides` in elements) and the
`block_shape` its loads and stores move; ``desc.load([i, j])`` reads the block whose first
element is at ``[i, j]``, with `padding_option` (zero, or NaN for floats) wherever the block
leaves the tensor, and ``desc.store([i, j], value)`` writes only the elements inside it. On
the CPU a descriptor is a block pointer checked in every dimension (`block_pointers`), and
it lives at compile time as one does. Triton's rules for building one are kept, so that a
kernel blkc takes is one Triton takes: 1 to 5 dimensions, the last stride 1, at least 16
bytes in the block's last dimension, leading strides that are multiples of 16 bytes.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

from blkc import dtypes
from blkc.language import block_pointers
from blkc.language.block_pointers import types
from blkc.language.core import builtin, from_blkc, tensor

if TYPE_CHECKING:
    from xdsl.ir import SSAValue

    from blkc.frontend.python import CodeGenerator


@dataclasses.dataclass(frozen=True)
class TensorDescriptor:
    """What `tl.make_tensor_descriptor` returns."""

    pointer: block_pointers.BlockPointer
    padding: str

    @property
    def block_shape(self) -> list[int]:
        return list(self.pointer.block_shape)

    @property
    def shape(self) -> tuple[tensor, ...]:
        return self.pointer.shape

    @property
    def strides(self) -> tuple[tensor, ...]:
        return self.pointer.strides

    @property
    def element(self) -> dtypes.DType:
        return dtypes.from_xdsl(types.element_type(self.pointer.base.handle.type).pointee)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"tensor descriptor (block_shape={self.block_shape}, {self.element.name})"

    # A loop or an `if` carries a descriptor as its block pointer's kernel scalars.

    def named_scalars(self) -> list[tuple[str, tensor]]:
        return self.pointer.named_scalars()

    def scalars(self) -> list[tensor]:
        return self.pointer.scalars()

    def with_scalars(self, values: Any) -> TensorDescriptor:
        """This descriptor with its kernel scalars replaced, in `scalars`' order."""
        return dataclasses.replace(self, pointer=self.pointer.with_scalars(values))

    def same_layout(self, other: object) -> bool:
        """Whether `other` is a descriptor of the same element type, block shape and
        padding (so a loop or an `if` can carry one as the other)."""
        return (
            isinstance(other, TensorDescriptor)
            and other.padding == self.padding
            and other.element == self.element
            and self.pointer.same_layout(other.pointer)
        )


def attribute(sem: CodeGenerator, desc: TensorDescriptor, name: str) -> Any:
    """`desc.name` in a kernel: a bound method or a property."""
    if name == "dtype":
        return from_blkc(desc.element)
    if name in ("block_shape", "shape", "strides"):
        return getattr(desc, name)
    raise sem.error(
        f"a tensor descriptor has no attribute '{name}'; it has {', '.join(ATTRIBUTES)}"
    )


def _constant_int(sem: CodeGenerator, value: Any) -> int | None:
    value = sem.unwrap_constexpr(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@builtin
def make_tensor_descriptor(
    base: Any,
    shape: Any,
    strides: Any,
    block_shape: Any,
    padding_option: Any = "zero",
    *,
    _semantic: CodeGenerator,
) -> TensorDescriptor:
    """A descriptor of the tensor of `shape` and `strides` (elements) at `base`, moving
    blocks of `block_shape`; loads fill with `padding_option` ("zero" or "nan") outside."""
    sem = _semantic
    shape, strides = sem.unwrap_constexpr(shape), sem.unwrap_constexpr(strides)
    block = block_pointers.constant_ints(sem, block_shape, "make_tensor_descriptor's block_shape")
    rank = len(block)
    if not isinstance(shape, tuple | list) or not 1 <= len(shape) <= 5:
        count = len(shape) if isinstance(shape, tuple | list) else 0
        raise sem.error(f"Expected 1 <= ndim <= 5 but got {count} dimensions")
    if not isinstance(strides, tuple | list) or len(strides) != len(shape):
        count = len(strides) if isinstance(strides, tuple | list) else 0
        raise sem.error(f"Expected {len(shape)} strides but got {count}")
    if rank != len(shape):
        raise sem.error(f"Expected block_shape to have {len(shape)} dimensions but got {rank}")
    pointer = sem.value(base, "make_tensor_descriptor's base")
    if types.shape_of(pointer.type) or not isinstance(
        types.element_type(pointer.type), types.PtrType
    ):
        raise sem.error(f"base must be a pointer type, got {pointer.type}")
    element = dtypes.from_xdsl(types.element_type(pointer.type).pointee)  # type: ignore[attr-defined]
    size = max(element.width // 8, 1)
    if block[-1] * size < 16:
        raise sem.error(
            "Descriptor block shape must have at least 16 bytes in the last dimension, but "
            f"got {block[-1]} * {size} = {block[-1] * size} bytes"
        )
    last = _constant_int(sem, strides[-1])
    if last is not None and last != 1:
        raise sem.error(f"Tensor descriptor last dim must be 1 but got {last}")
    for stride in strides[:-1]:
        known = _constant_int(sem, stride)
        if known is not None and known * size % 16:
            raise sem.error(
                "Tensor descriptor strides must be 16-byte aligned, but got a stride of "
                f"{known} * {size} = {known * size} bytes"
            )
    padding = sem.constant(padding_option, "padding_option")
    if padding not in ("zero", "nan"):
        raise sem.error(f"padding_option must be 'zero' or 'nan', got {padding!r}")
    if padding == "nan" and not element.is_float:
        raise sem.error("Padding option `nan` is not supported for integer blocks")
    zeros = [0] * rank
    made = block_pointers.make_block_ptr(
        sem.wrap(pointer),
        tuple(shape),
        tuple(strides),
        zeros,
        block,
        tuple(reversed(range(rank))),
        _semantic=sem,
    )
    return TensorDescriptor(made, padding)


def _descriptor(sem: CodeGenerator, value: Any, what: str) -> TensorDescriptor:
    value = sem.unwrap_constexpr(value)
    if not isinstance(value, TensorDescriptor):
        raise sem.error(f"{what} must be a tensor descriptor from tl.make_tensor_descriptor")
    return value


def _at(sem: CodeGenerator, desc: TensorDescriptor, offsets: Any) -> block_pointers.BlockPointer:
    offsets = sem.unwrap_constexpr(offsets)
    count = len(offsets) if isinstance(offsets, tuple | list) else 1
    if count != len(desc.block_shape):
        raise sem.error(f"expected {len(desc.block_shape)} offsets, but got {count}")
    return block_pointers.advance(desc.pointer, offsets, _semantic=sem)


def _every_dim(desc: TensorDescriptor) -> tuple[int, ...]:
    return tuple(range(len(desc.block_shape)))


@builtin
def load_tensor_descriptor(desc: Any, offsets: Any, *, _semantic: CodeGenerator) -> tensor:
    """The block of `desc` at `offsets`, padded outside the tensor (``desc.load``)."""
    sem = _semantic
    d = _descriptor(sem, desc, "load_tensor_descriptor's desc")
    return block_pointers.load(sem, _at(sem, d, offsets), None, None, _every_dim(d), d.padding)


def _stored(sem: CodeGenerator, d: TensorDescriptor, value: Any) -> tensor:
    data = sem.ir.typed(sem.value(value, "the value"))
    if list(types.shape_of(data.type)) != d.block_shape:
        raise sem.error(
            f"expected value shape {d.block_shape}, got {list(types.shape_of(data.type))}: a "
            "descriptor stores whole blocks"
        )
    return sem.wrap(sem.ir.cast(data, d.element))


@builtin
def store_tensor_descriptor(
    desc: Any, offsets: Any, value: Any, *, _semantic: CodeGenerator
) -> None:
    """Write `value` (of the block shape) at `offsets`, inside the tensor (``desc.store``)."""
    sem = _semantic
    d = _descriptor(sem, desc, "store_tensor_descriptor's desc")
    data = _stored(sem, d, value)
    block_pointers.store(sem, _at(sem, d, offsets), data, None, _every_dim(d))


def _rows_and_columns(
    sem: CodeGenerator, d: TensorDescriptor, x_offsets: Any, y_offset: Any, what: str
) -> tuple[SSAValue, SSAValue, int]:
    """The pointers and the mask (inside the tensor) of `desc.gather`'s and
    `desc.scatter`'s block: rows `x_offsets` of the tensor, from column `y_offset` on as
    many columns as the block has; and the number of rows. Triton's rules are kept: a 2-D
    descriptor of one-row blocks, at least 8 rows of int16 or int32 offsets, at least 32
    bytes of columns times 8 / 4 (8 columns of 32-bit elements)."""
    ir = sem.ir
    if len(d.block_shape) != 2:
        raise sem.error(f"descriptor must be 2D, but got {d.block_shape}")
    if d.block_shape[0] != 1:
        raise sem.error(f"descriptor block must have 1 row, but got {d.block_shape}")
    rows = sem.value(x_offsets, f"{what}'s x_offsets")
    shape = list(types.shape_of(rows.type))
    if len(shape) != 1:
        raise sem.error(f"x offsets must be 1D, but got {shape}")
    index_type = dtypes.from_xdsl(types.element_type(rows.type))
    if index_type.name not in ("int16", "int32"):
        raise sem.error(f"x offsets must have dtype int16 or int32, but got {index_type.name}")
    if shape[0] < 8:
        raise sem.error(f"{what} must have at least 8 rows, but got {shape}")
    least = 32 // d.element.width * 8
    if d.block_shape[1] < least:
        raise sem.error(
            f"{what} of {d.element.name} must have at least {least} columns, but got "
            f"{d.block_shape[1]}"
        )
    p = d.pointer
    row = ir.expand_dims(ir.cast(rows, dtypes.int64), 1)
    start = ir.cast(sem.value(y_offset, f"{what}'s y_offset"), dtypes.int64)
    column = ir.expand_dims(
        ir.binary("add", start, ir.cast(ir.arange(0, d.block_shape[1]), dtypes.int64)), 0
    )
    offset = ir.binary(
        "add",
        ir.binary("mul", row, p.strides[0].handle),
        ir.binary("mul", column, p.strides[1].handle),
    )
    mask = ir.binary(
        "and",
        block_pointers.within(sem, row, p.shape[0].handle),
        block_pointers.within(sem, column, p.shape[1].handle),
    )
    block = [shape[0], d.block_shape[1]]
    pointers = ir.broadcast_to(ir.addptr(p.base.handle, offset), block)
    return pointers, ir.broadcast_to(mask, block), shape[0]


@builtin
def gather_tensor_descriptor(
    desc: Any, x_offsets: Any, y_offset: Any, *, _semantic: CodeGenerator
) -> tensor:
    """Rows `x_offsets` of the tensor, each from column `y_offset` on for the block's
    columns, padded outside the tensor (``desc.gather(x_offsets, y_offset)``)."""
    sem = _semantic
    d = _descriptor(sem, desc, "desc.gather's desc")
    pointers, inside, _ = _rows_and_columns(sem, d, x_offsets, y_offset, "descriptor gather")
    fill = sem.ir.literal(math.nan) if d.padding == "nan" else None
    return sem.wrap(sem.ir.load(pointers, inside, fill))


@builtin
def scatter_tensor_descriptor(
    desc: Any, value: Any, x_offsets: Any, y_offset: Any, *, _semantic: CodeGenerator
) -> None:
    """Write `value`'s rows to rows `x_offsets` of the tensor, from column `y_offset`, only
    inside it (``desc.scatter(value, x_offsets, y_offset)``)."""
    sem = _semantic
    d = _descriptor(sem, desc, "desc.scatter's desc")
    pointers, inside, count = _rows_and_columns(sem, d, x_offsets, y_offset, "descriptor scatter")
    data = sem.ir.typed(sem.value(value, "the value"))
    expected = [count, d.block_shape[1]]
    if list(types.shape_of(data.type)) != expected:
        raise sem.error(
            f"expected value shape {expected}, got {list(types.shape_of(data.type))}: a "
            "scatter writes one block row for each x offset"
        )
    sem.ir.store(pointers, sem.ir.cast(data, d.element), inside)


def _atomic_tensor_descriptor(kind: str) -> Any:
    def atomic(desc: Any, offsets: Any, value: Any, *, _semantic: CodeGenerator) -> None:
        sem = _semantic
        d = _descriptor(sem, desc, f"desc.atomic_{kind}'s desc")
        if d.element.name not in ATOMIC_DTYPES[kind]:
            raise sem.error(
                f"desc.atomic_{kind} takes descriptors of {', '.join(ATOMIC_DTYPES[kind])}, "
                f"not {d.element.name} (as Triton's)"
            )
        data = _stored(sem, d, value)
        pointers, inside = block_pointers.expand(sem, _at(sem, d, offsets), _every_dim(d))
        sem.ir.atomic_rmw(kind, pointers, data.handle, inside)

    atomic.__name__ = atomic.__qualname__ = f"atomic_{kind}_tensor_descriptor"
    atomic.__doc__ = (
        f"Atomically combine `value` (of the block shape) into the block at `offsets` with "
        f"{kind}, inside the tensor (``desc.atomic_{kind}``)."
    )
    return builtin(atomic)


_BITWISE = ("uint32", "int32", "uint64", "int64")
ATOMIC_DTYPES = {
    "add": ("uint32", "int32", "uint64", "float32", "float16", "bfloat16"),
    "min": _BITWISE,
    "max": _BITWISE,
    "and": _BITWISE,
    "or": _BITWISE,
    "xor": _BITWISE,
}
"""The element types of the descriptors each atomic combination takes (``desc.atomic_min``
...): Triton's, without the 16-bit float minimum and maximum it does only with a GPU's
native tensor memory accelerator."""

atomic_add_tensor_descriptor = _atomic_tensor_descriptor("add")
atomic_min_tensor_descriptor = _atomic_tensor_descriptor("min")
atomic_max_tensor_descriptor = _atomic_tensor_descriptor("max")
atomic_and_tensor_descriptor = _atomic_tensor_descriptor("and")
atomic_or_tensor_descriptor = _atomic_tensor_descriptor("or")
atomic_xor_tensor_descriptor = _atomic_tensor_descriptor("xor")


METHODS = {
    "load": load_tensor_descriptor,
    "store": store_tensor_descriptor,
    "atomic_add": atomic_add_tensor_descriptor,
    "atomic_min": atomic_min_tensor_descriptor,
    "atomic_max": atomic_max_tensor_descriptor,
    "atomic_and": atomic_and_tensor_descriptor,
    "atomic_or": atomic_or_tensor_descriptor,
    "atomic_xor": atomic_xor_tensor_descriptor,
    "gather": gather_tensor_descriptor,
    "scatter": scatter_tensor_descriptor,
}

ATTRIBUTES = (*METHODS, "block_shape", "shape", "strides", "dtype")
"""What kernels read of a descriptor (`x.load`, `x.block_shape`, ...)."""
