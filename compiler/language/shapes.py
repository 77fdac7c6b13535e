"""Triton's shape built-ins for `@blkc.jit` kernels: joining, splitting, gathering,
flipping, concatenating and reshaping blocks, histograms, and the function forms of
``+``, ``-`` and ``*``.

Each is built from a few IR ops: `blk.gather` (``take_along_axis``) reads a block at
computed positions, which gives `gather`, `flip` and the halves of `split`; `join` is a
`where` over the positions of a new last axis of size 2; `interleave`, `cat`, `ravel`,
`squeeze` and `unsqueeze` are joins, permutations and reshapes of those.
"""

from __future__ import annotations

import ast
import builtins as _py
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from blkc import dtypes as _dtypes
from blkc.language.core import builtin, pointer_type, tensor

if TYPE_CHECKING:
    from xdsl.ir import SSAValue

    from blkc.frontend.python import CodeGenerator


def _int(sem: CodeGenerator, value: Any, what: str) -> int:
    found = sem.constant(value, what)
    if not isinstance(found, int) or isinstance(found, bool):
        raise sem.error(f"{what} must be an integer, got {found!r}")
    return found


def _block(sem: CodeGenerator, value: Any, what: str) -> SSAValue:
    """`value` as a typed block; a located error for a scalar."""
    v = sem.ir.typed(sem.value(value, what))
    if not sem.shape_of(v):
        raise sem.error(f"{what} must be a block, got the scalar type {v.type}")
    return v


@builtin
def gather(src: Any, index: Any, axis: Any, *, _semantic: CodeGenerator) -> tensor:
    """`src` read along `axis` at the positions of the integer block `index`, of its
    shape (NumPy's ``take_along_axis``): ``out[i][j] = src[index[i][j]][j]`` for axis
    0. `index` agrees with `src` on every other axis; an index outside the axis fails the
    launch."""
    s = _semantic
    v = s.value(src, "gather's source")
    i = s.value(index, "gather's index")
    return s.wrap(s.ir.gather(v, i, _int(s, axis, "gather's axis")))


@builtin
def join(a: Any, b: Any, *, _semantic: CodeGenerator) -> tensor:
    """`a` and `b` (broadcast to one shape, of one dtype) side by side along a new last
    axis of size 2; two scalars give a block of 2."""
    s = _semantic
    return s.wrap(s.ir.join(s.value(a, "join's a"), s.value(b, "join's b")))


def _half(sem: CodeGenerator, value: SSAValue, which: int) -> SSAValue:
    """Element `which` (0 or 1) along the last axis, of size 2, of `value`."""
    shape = list(sem.shape_of(value))
    rank = len(shape)
    index = sem.ir.constant(which, _dtypes.int32, [*shape[:-1], 1])
    half = sem.ir.gather(value, index, rank - 1, in_range=True)
    if rank == 1:
        if isinstance(sem.wrap(value).dtype, pointer_type):
            raise sem.error(
                f"split of {value.type} into two scalar pointers is not supported; split a "
                "block of offsets and add them to the pointer"
            )
        return sem.ir.only_element(half)
    return sem.ir.reshape(half, shape[:-1])


@builtin
def split(a: Any, *, _semantic: CodeGenerator) -> tuple[tensor, tensor]:
    """The two halves of `a` along its last axis, which must have size 2 (a block of 2
    gives two scalars): the inverse of `join`."""
    s = _semantic
    v = _block(s, a, "split's input")
    last = s.shape_of(v)[-1]
    if last != 2:
        raise s.error(
            f"split needs a last dimension of size 2, got {v.type} (expected last dimension "
            f"to be 2 for split, got {last})"
        )
    return s.wrap(_half(s, v, 0)), s.wrap(_half(s, v, 1))


def _interleaved(sem: CodeGenerator, a: SSAValue, b: SSAValue) -> SSAValue:
    joined = sem.ir.join(a, b)
    shape = list(sem.shape_of(joined))
    if len(shape) == 1:
        return joined
    return sem.ir.reshape(joined, [*shape[:-2], 2 * shape[-2]])


@builtin
def interleave(a: Any, b: Any, *, _semantic: CodeGenerator) -> tensor:
    """The elements of `a` and `b` alternating along their last axis:
    ``join(a, b)`` with its last two axes merged."""
    s = _semantic
    return s.wrap(_interleaved(s, s.value(a, "interleave's a"), s.value(b, "interleave's b")))


@builtin
def cat(
    input: Any,  # noqa: A002 - Triton's name
    other: Any,
    can_reorder: Any = False,
    dim: Any = 0,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """`input` then `other`, blocks of one shape and dtype, concatenated along `dim`.
    Elements keep their order; `can_reorder` (which would allow another order) takes 1-D
    blocks only, as Triton's."""
    s = _semantic
    a, b = _block(s, input, "cat's input"), _block(s, other, "cat's other")
    shape, rank = list(s.shape_of(a)), len(s.shape_of(a))
    if s.constant(can_reorder, "can_reorder") and rank != 1:
        raise s.error(f"cat with can_reorder=True takes 1-D blocks, got {a.type}")
    if s.shape_of(b) != s.shape_of(a):
        raise s.error(
            f"cat needs blocks of one shape, got {a.type} and {b.type} (tl.cat requires "
            f"tensors of the same shape, got {list(s.shape_of(a))} and {list(s.shape_of(b))})"
        )
    axis = s.ir.normalize_axis(_int(s, dim, "cat's dim"), rank, "cat's input")
    order = list(_py.range(rank))
    order.insert(axis, rank)
    paired = s.ir.permute(s.ir.join(a, b), order)
    shape[axis] *= 2
    return s.wrap(s.ir.reshape(paired, shape))


@builtin
def flip(x: Any, dim: Any = None, *, _semantic: CodeGenerator) -> tensor:
    """`x` in reverse order along `dim` (the last axis when None)."""
    s = _semantic
    v = _block(s, x, "flip's input")
    shape = list(s.shape_of(v))
    given = s.constant(dim, "flip's dim")
    axis = len(shape) - 1 if given is None else _int(s, given, "flip's dim")
    axis = s.ir.normalize_axis(axis, len(shape), "flip's input")
    size = shape[axis]
    backwards = s.ir.binary("sub", s.ir.literal(size - 1), s.ir.arange(0, size))
    line = [1] * len(shape)
    line[axis] = size
    index = s.ir.broadcast_to(s.ir.reshape(backwards, line), shape)
    return s.wrap(s.ir.gather(v, index, axis, in_range=True))


@builtin
def ravel(x: Any, can_reorder: Any = False, *, _semantic: CodeGenerator) -> tensor:
    """`x` as a 1-D block, in row-major order."""
    s = _semantic
    s.constant(can_reorder, "can_reorder")
    v = s.ir.typed(s.value(x, "ravel's input"))
    count = 1
    for size in s.shape_of(v):
        count *= size
    return s.wrap(s.ir.reshape(v, [count]))


@builtin
def squeeze(x: Any, dim: Any, *, _semantic: CodeGenerator) -> tensor:
    """`x` without its dimension `dim`, which must have size 1."""
    s = _semantic
    v = _block(s, x, "squeeze's input")
    shape = list(s.shape_of(v))
    axis = s.ir.normalize_axis(_int(s, dim, "squeeze's dim"), len(shape), "squeeze's input")
    if shape[axis] != 1:
        raise s.error(
            f"squeeze removes a dimension of size 1, but dimension {axis} of {v.type} has "
            f"size {shape[axis]}"
        )
    return s.wrap(s.ir.reshape(v, shape[:axis] + shape[axis + 1 :]))


@builtin
def unsqueeze(x: Any, dim: Any, *, _semantic: CodeGenerator) -> tensor:
    """`x` with a dimension of size 1 inserted at `dim`, an axis of the result."""
    s = _semantic
    return s.wrap(s.ir.expand_dims(s.value(x, "unsqueeze's input"), _int(s, dim, "dim")))


@builtin
def swizzle2d(
    i: Any, j: Any, size_i: Any, size_j: Any, size_g: Any, *, _semantic: CodeGenerator
) -> tuple[Any, Any]:
    """The row and column that `(i, j)` of a row-major `size_i` x `size_j` matrix moves to
    when each group of `size_g` rows is read column by column (the last group may have
    fewer rows): the tile order that keeps a matmul's loads in cache."""
    s = _semantic

    def op(kind: type[ast.operator], a: Any, b: Any) -> Any:
        return s.operator(kind(), a, b)

    linear = op(ast.Add, op(ast.Mult, i, size_j), j)
    group_size = op(ast.Mult, size_g, size_j)
    first_row = op(ast.Mult, op(ast.FloorDiv, linear, group_size), size_g)
    rows_left = op(ast.Sub, size_i, first_row)
    if s.is_constant(rows_left) and s.is_constant(size_g):
        rows = _py.min(s.constant(rows_left, "size_i"), s.constant(size_g, "size_g"))
    else:
        rows = s.wrap(
            s.ir.extremum("minimum", s.value(rows_left, "size_i"), s.value(size_g, "size_g"))
        )
    in_group = op(ast.Mod, linear, group_size)
    return op(ast.Add, first_row, op(ast.Mod, in_group, rows)), op(ast.FloorDiv, in_group, rows)


@builtin
def histogram(
    input: Any,  # noqa: A002 - Triton's name
    num_bins: Any,
    mask: Any = None,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """The int32 counts of the values 0 .. `num_bins` - 1 in the 1-D int32 block `input`
    (where `mask` is true); other values are not counted."""
    s = _semantic
    v = s.ir.typed(s.value(input, "histogram's input"))
    bins = _int(s, num_bins, "num_bins")
    if len(s.shape_of(v)) != 1 or s.dtype_of(v) != _dtypes.int32:
        raise s.error(f"histogram takes a 1-D block of int32, got {v.type}")
    if bins <= 0 or bins & (bins - 1):
        raise s.error(f"histogram's num_bins must be a power of two, got {bins}")
    column = s.ir.expand_dims(v, 1)
    hits = s.ir.compare("eq", column, s.ir.expand_dims(s.ir.arange(0, bins), 0))
    if not s.is_none(mask):
        m = s.ir.typed(s.value(mask, "histogram's mask"))
        if s.dtype_of(m) != _dtypes.bool_:
            raise s.error(f"histogram's mask must be a bool block, got {m.type}")
        m = s.ir.broadcast_to(m, s.shape_of(v))
        hits = s.ir.binary("and", hits, s.ir.expand_dims(m, 1))
    return s.wrap(s.ir.reduce("sum", s.ir.cast(hits, _dtypes.int32), 0))


def _arithmetic(kind: type[ast.operator], name: str, symbol: str) -> Callable[..., Any]:
    def function(x: Any, y: Any, sanitize_overflow: Any = True, *, _semantic: CodeGenerator) -> Any:
        # Integer overflow wraps (docs/semantics.md): there is nothing to sanitize.
        _semantic.constant(sanitize_overflow, "sanitize_overflow")
        return _semantic.operator(kind(), x, y)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"``x {symbol} y``, as the operator computes it (`sanitize_overflow`: no effect)."
    )
    return builtin(function)


add = _arithmetic(ast.Add, "add", "+")
sub = _arithmetic(ast.Sub, "sub", "-")
mul = _arithmetic(ast.Mult, "mul", "*")
