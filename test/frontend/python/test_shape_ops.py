"""Triton's shape built-ins (`tl.gather`, `join`, `split`, `interleave`, `cat`, `flip`,
`ravel`, `squeeze`, `unsqueeze`, `swizzle2d`, `histogram`, `reduce_or`, `add`/`sub`/`mul`)
against NumPy, compiled for the cpu and cpu-simt targets and run by the reference
interpreter; bad input gets a located error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import interpreter

TARGETS = ["cpu", "cpu-simt", "interpreter"]
SOURCE = Path(__file__).read_text().splitlines()


def launch(kernel: blkc.JITFunction, target: str, *args: Any, **meta: Any) -> None:
    """Run `kernel` on one program, compiled for `target` or by the reference interpreter."""
    if target != "interpreter":
        kernel[(1,)](*args, target=target, **meta)
        return
    loose = kernel.warmup(*args, **meta).asm["loose"]
    module = blkc.run_pipeline(blkc.parse(loose, "kernel.mlir"), "to-strict{warn=false}")
    interpreter.run(module, None, (1,), list(args))


@blkc.jit
def grid_offsets(ROWS: tl.constexpr, COLS: tl.constexpr):
    return tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]


# -- gather --------------------------------------------------------------------------------


@blkc.jit
def gather_2d(x_ptr, i_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
              AXIS: tl.constexpr):  # fmt: skip
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    if AXIS == 0:
        at = tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :]
    else:
        at = tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :]
    i = tl.load(i_ptr + at)
    tl.store(out_ptr + at, x.gather(i, AXIS))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", ["float32", "int8", "float16", "uint64"])
def test_gather_is_take_along_axis(target: str, axis: int, dtype: str) -> None:
    rng = numpy.random.default_rng(axis)
    x = (rng.standard_normal((8, 16)) * 50).astype(dtype)
    shape = (4, 16) if axis == 0 else (8, 32)
    index = rng.integers(0, x.shape[axis], shape).astype(numpy.int64)
    out = numpy.zeros(shape, dtype)
    launch(gather_2d, target, x, index, out, M=8, N=16, K=shape[axis], AXIS=axis)
    numpy.testing.assert_array_equal(out, numpy.take_along_axis(x, index, axis))


@blkc.jit
def gather_of_computed(x_ptr, i_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.exp(tl.load(x_ptr + offs)) + tl.cumsum(tl.load(x_ptr + offs), 0)
    i = tl.load(i_ptr + offs).to(tl.uint8)
    tl.store(out_ptr + offs, tl.gather(x, i, 0) + tl.gather(x, N - 1 - i, 0))


@pytest.mark.parametrize("target", TARGETS)
def test_gather_of_an_expensive_source(target: str) -> None:
    x = numpy.linspace(-1, 1, 64).astype(numpy.float32)
    index = numpy.random.default_rng(1).integers(0, 64, 64).astype(numpy.int32)
    out = numpy.zeros(64, numpy.float32)
    launch(gather_of_computed, target, x, index, out, N=64)
    y = numpy.exp(x) + numpy.cumsum(x, dtype=numpy.float32)
    numpy.testing.assert_allclose(out, y[index] + y[63 - index], rtol=1e-5, atol=1e-5)


@blkc.jit
def gather_1d(x_ptr, i_ptr, out_ptr):
    offs = tl.arange(0, 8)
    tl.store(out_ptr + offs, tl.gather(tl.load(x_ptr + offs), tl.load(i_ptr + offs), 0))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("bad", [8, -1])
def test_gather_index_out_of_range_fails_the_launch(target: str, bad: int) -> None:
    x = numpy.arange(8, dtype=numpy.float32)
    index = numpy.array([0, 1, 2, bad, 4, 5, 6, 7], numpy.int32)
    out = numpy.zeros(8, numpy.float32)
    expected = IndexError if target == "interpreter" else AssertionError
    with pytest.raises(expected, match="gather index"):
        launch(gather_1d, target, x, index, out)


@blkc.jit
def gather_of_rows(x_ptr, i_ptr, out_ptr):
    x = tl.load(x_ptr + grid_offsets(8, 16))
    i = tl.load(i_ptr + tl.arange(0, 8))
    tl.store(out_ptr + tl.arange(0, 8), tl.gather(tl.sum(x, 1), i, 0))


@pytest.mark.parametrize("target", TARGETS)
def test_gather_of_a_reduction(target: str) -> None:
    x = numpy.random.default_rng(3).random((8, 16), numpy.float32)
    index = numpy.array([7, 0, 3, 3, 1, 2, 6, 5], numpy.int32)
    out = numpy.zeros(8, numpy.float32)
    launch(gather_of_rows, target, x, index, out)
    numpy.testing.assert_allclose(out, x.sum(1)[index], rtol=1e-5)


# -- flip ------------------------------------------------------------------------------------


@blkc.jit
def flip_3d(x_ptr, out_ptr, DIM: tl.constexpr):
    offs = (tl.arange(0, 2)[:, None, None] * 32 + tl.arange(0, 4)[None, :, None] * 8
            + tl.arange(0, 8)[None, None, :])  # fmt: skip
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.flip(x, DIM) if DIM is not None else x.flip())


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dim", [None, 0, 1, 2, -2])
def test_flip(target: str, dim: int | None) -> None:
    x = numpy.arange(64, dtype=numpy.float32).reshape(2, 4, 8)
    x[0, 0, 0] = -0.0
    out = numpy.zeros_like(x)
    launch(flip_3d, target, x, out, DIM=dim)
    numpy.testing.assert_array_equal(out, numpy.flip(x, -1 if dim is None else dim))


@blkc.jit
def flip_in_a_loop(x_ptr, out_ptr):
    acc = tl.load(x_ptr + tl.arange(0, 64))
    for k in range(3):
        acc = tl.flip(acc, 0) + k
    tl.store(out_ptr + tl.arange(0, 64), acc)
    tl.store(out_ptr + 64 + tl.arange(0, 16), tl.load(tl.flip(x_ptr + tl.arange(0, 16))))


@pytest.mark.parametrize("target", TARGETS)
def test_flip_of_a_carried_block_and_of_pointers(target: str) -> None:
    x = numpy.arange(64, dtype=numpy.float32)
    out = numpy.zeros(80, numpy.float32)
    launch(flip_in_a_loop, target, x, out)
    expected = x
    for k in range(3):
        expected = expected[::-1] + k
    numpy.testing.assert_array_equal(out[:64], expected)
    numpy.testing.assert_array_equal(out[64:], x[:16][::-1])


# -- join, split, interleave -------------------------------------------------------------------


@blkc.jit
def join_split(x_ptr, y_ptr, joined_ptr, a_ptr, b_ptr):
    offs = grid_offsets(4, 8)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + tl.arange(0, 8))[None, :]  # broadcast against x
    z = tl.join(x, y)
    tl.store(joined_ptr + offs[:, :, None] * 2 + tl.arange(0, 2)[None, None, :], z)
    a, b = z.split()
    tl.store(a_ptr + offs, a)
    tl.store(b_ptr + offs, b)


@pytest.mark.parametrize("target", TARGETS)
def test_join_and_split(target: str) -> None:
    x = numpy.arange(32, dtype=numpy.int16).reshape(4, 8)
    y = -numpy.arange(8, dtype=numpy.int16)
    joined = numpy.zeros((4, 8, 2), numpy.int16)
    a, b = numpy.zeros_like(x), numpy.zeros_like(x)
    launch(join_split, target, x, y, joined, a, b)
    numpy.testing.assert_array_equal(joined, numpy.stack([x, numpy.broadcast_to(y, x.shape)], -1))
    numpy.testing.assert_array_equal(a, x)
    numpy.testing.assert_array_equal(b, numpy.broadcast_to(y, x.shape))


@blkc.jit
def scalars(x_ptr, out_ptr, first_ptr, second_ptr, s, t):
    tl.store(out_ptr + tl.arange(0, 2), tl.join(s, t))
    tl.store(out_ptr + 2 + tl.arange(0, 2), tl.interleave(t, s))
    first, second = tl.split(tl.load(x_ptr + tl.arange(0, 2)))
    tl.store(first_ptr, first)
    tl.store(second_ptr, second)


@pytest.mark.parametrize("target", TARGETS)
def test_scalars_join_and_split(target: str) -> None:
    x = numpy.array([-0.0, numpy.nan], numpy.float32)
    out = numpy.zeros(4, numpy.int32)
    first, second = numpy.ones(1, numpy.float32), numpy.zeros(1, numpy.float32)
    launch(scalars, target, x, out, first, second, 42, 100)
    numpy.testing.assert_array_equal(out, [42, 100, 100, 42])
    assert first[0] == 0 and numpy.signbit(first[0]) and numpy.isnan(second[0])


@blkc.jit
def interleave_2d(x_ptr, y_ptr, out_ptr):
    offs = grid_offsets(4, 8)
    z = tl.interleave(tl.load(x_ptr + offs), tl.load(y_ptr + offs))
    tl.store(out_ptr + grid_offsets(4, 16), z)


@pytest.mark.parametrize("target", TARGETS)
def test_interleave(target: str) -> None:
    x = numpy.arange(32, dtype=numpy.float64).reshape(4, 8)
    out = numpy.zeros((4, 16))
    launch(interleave_2d, target, x, x + 100, out)
    expected = numpy.empty((4, 16))
    expected[:, 0::2], expected[:, 1::2] = x, x + 100
    numpy.testing.assert_array_equal(out, expected)


# -- cat, ravel, squeeze, unsqueeze --------------------------------------------------------------


@blkc.jit
def cat_1d(x_ptr, y_ptr, out_ptr, REORDER: tl.constexpr):
    offs = tl.arange(0, 16)
    z = tl.cat(tl.load(x_ptr + offs), tl.load(y_ptr + offs), can_reorder=REORDER)
    tl.store(out_ptr + tl.arange(0, 32), z)


@blkc.jit
def cat_2d(x_ptr, y_ptr, out_ptr, DIM: tl.constexpr):
    offs = grid_offsets(4, 8)
    z = tl.cat(tl.load(x_ptr + offs), tl.load(y_ptr + offs), dim=DIM)
    if DIM == 0:
        tl.store(out_ptr + grid_offsets(8, 8), z)
    else:
        tl.store(out_ptr + grid_offsets(4, 16), z)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("reorder", [False, True])
def test_cat_1d_keeps_the_order(target: str, reorder: bool) -> None:
    x, y = numpy.arange(16, dtype=numpy.uint8), numpy.arange(100, 116, dtype=numpy.uint8)
    out = numpy.zeros(32, numpy.uint8)
    launch(cat_1d, target, x, y, out, REORDER=reorder)
    numpy.testing.assert_array_equal(out, numpy.concatenate([x, y]))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_2d(target: str, dim: int) -> None:
    x = numpy.arange(32, dtype=numpy.float32).reshape(4, 8)
    out = numpy.zeros((8, 8) if dim == 0 else (4, 16), numpy.float32)
    launch(cat_2d, target, x, -x, out, DIM=dim)
    numpy.testing.assert_array_equal(out, numpy.concatenate([x, -x], dim))


@blkc.jit
def reshapes(x_ptr, flat_ptr, squeezed_ptr, unsqueezed_ptr):
    x = tl.load(x_ptr + grid_offsets(4, 8))
    tl.store(flat_ptr + tl.arange(0, 32), tl.ravel(x.T))
    column = tl.unsqueeze(tl.arange(0, 8), 1)
    tl.store(squeezed_ptr + tl.arange(0, 8), tl.squeeze(column, -1) * 3)
    tl.store(unsqueezed_ptr + tl.arange(0, 8)[None, :], tl.unsqueeze(tl.arange(0, 8), -2))


@pytest.mark.parametrize("target", TARGETS)
def test_ravel_squeeze_unsqueeze(target: str) -> None:
    x = numpy.arange(32, dtype=numpy.int32).reshape(4, 8)
    flat, squeezed, unsqueezed = (numpy.zeros(n, numpy.int32) for n in (32, 8, 8))
    launch(reshapes, target, x, flat, squeezed, unsqueezed)
    numpy.testing.assert_array_equal(flat, x.T.reshape(-1))
    numpy.testing.assert_array_equal(squeezed, numpy.arange(8) * 3)
    numpy.testing.assert_array_equal(unsqueezed, numpy.arange(8))


# -- swizzle2d, histogram, reduce_or, add/sub/mul --------------------------------------------------


@blkc.jit
def swizzle(out_ptr, size_i, size_j, size_g):
    for i in range(0, size_i):
        for j in range(0, size_j):
            new_i, new_j = tl.swizzle2d(i, j, size_i, size_j, size_g)
            tl.store(out_ptr + new_i * size_j + new_j, i * size_j + j)


def swizzled(size_i: int, size_j: int, size_g: int) -> numpy.ndarray:
    """Where each (i, j) goes, written out: groups of `size_g` rows read by columns."""
    out = numpy.zeros((size_i, size_j), numpy.int32)
    order = [(r, c) for g in range(0, size_i, size_g) for c in range(size_j)
             for r in range(g, min(g + size_g, size_i))]  # fmt: skip
    for k, (r, c) in enumerate(order):
        out[r, c] = k
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("sizes", [(5, 7, 3), (4, 4, 2), (6, 3, 4)])
def test_swizzle2d(target: str, sizes: tuple[int, int, int]) -> None:
    out = numpy.zeros(sizes[:2], numpy.int32)
    launch(swizzle, target, out, *sizes)
    numpy.testing.assert_array_equal(out, swizzled(*sizes))


@blkc.jit
def swizzle_constants(out_ptr):
    new_i, new_j = tl.swizzle2d(4, 5, 6, 7, 4)
    tl.store(out_ptr + tl.arange(0, 2), tl.join(new_i, new_j))


def test_swizzle2d_of_constants() -> None:
    out = numpy.zeros(2, numpy.int32)
    launch(swizzle_constants, "cpu", out)
    # (4, 5) is element 33 of the 6 x 7 matrix; the last group has rows 4 and 5 only
    assert out.tolist() == [5, 2]
    assert swizzled(6, 7, 4)[5, 2] == 4 * 7 + 5


@blkc.jit
def histogram_kernel(x_ptr, out_ptr, masked_ptr, N: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))
    tl.store(masked_ptr + tl.arange(0, BINS), x.histogram(BINS, mask=x % 2 == 0))


@pytest.mark.parametrize("target", TARGETS)
def test_histogram_drops_values_outside_the_bins(target: str) -> None:
    x = numpy.random.default_rng(2).integers(-4, 20, 128).astype(numpy.int32)
    out, masked = numpy.zeros(16, numpy.int32), numpy.zeros(16, numpy.int32)
    launch(histogram_kernel, target, x, out, masked, N=128, BINS=16)
    numpy.testing.assert_array_equal(out, numpy.bincount(x[(x >= 0) & (x < 16)], minlength=16))
    even = x[(x >= 0) & (x < 16) & (x % 2 == 0)]
    numpy.testing.assert_array_equal(masked, numpy.bincount(even, minlength=16))


@blkc.jit
def reduce_or_kernel(x_ptr, rows_ptr, all_ptr):
    x = tl.load(x_ptr + grid_offsets(4, 8))
    tl.store(rows_ptr + tl.arange(0, 4), tl.reduce_or(x, 1))
    tl.store(all_ptr, x.reduce_or(None))


@pytest.mark.parametrize("target", TARGETS)
def test_reduce_or(target: str) -> None:
    x = (numpy.uint32(1) << numpy.arange(32, dtype=numpy.uint32)).reshape(4, 8)
    x[2] = 0
    rows, every = numpy.zeros(4, numpy.uint32), numpy.zeros(1, numpy.uint32)
    launch(reduce_or_kernel, target, x, rows, every)
    numpy.testing.assert_array_equal(rows, numpy.bitwise_or.reduce(x, axis=1))
    assert every[0] == numpy.bitwise_or.reduce(x, axis=None) == 0xFF00FFFF


@blkc.jit
def arithmetic(x_ptr, out_ptr):
    offs = tl.arange(0, 8)
    x = tl.load(tl.add(x_ptr, offs))
    tl.store(out_ptr + offs, tl.add(x, 1, sanitize_overflow=False))
    tl.store(out_ptr + 8 + offs, tl.sub(x, 3))
    tl.store(out_ptr + 16 + offs, tl.mul(x, x, sanitize_overflow=True))


@pytest.mark.parametrize("target", TARGETS)
def test_add_sub_mul_wrap_as_the_operators(target: str) -> None:
    x = numpy.array([127, -128, 0, 1, -1, 64, 100, 11], numpy.int8)
    out = numpy.zeros(24, numpy.int8)
    launch(arithmetic, target, x, out)
    with numpy.errstate(over="ignore"):
        expected = numpy.concatenate([x + numpy.int8(1), x - numpy.int8(3), x * x])
    numpy.testing.assert_array_equal(out, expected)


# -- located errors ----------------------------------------------------------------------------


def line_of(marker: str) -> int:
    """The 1-based line of this file holding `# <marker>`."""
    return next(i for i, text in enumerate(SOURCE, 1) if text.rstrip().endswith(f"# {marker}"))


@blkc.jit
def bad_shapes(x_ptr, CASE: tl.constexpr):
    offs = tl.arange(0, 8)
    x = tl.load(x_ptr + offs)
    if CASE == "join-shapes":
        tl.join(x, tl.load(x_ptr + tl.arange(0, 4)))  # join-shapes
    if CASE == "join-dtypes":
        tl.join(x, offs)  # join-dtypes
    if CASE == "split-last":
        tl.split(x)  # split-last
    if CASE == "split-scalar":
        tl.split(x_ptr)  # split-scalar
    if CASE == "split-pointers":
        tl.split(x_ptr + tl.arange(0, 2))  # split-pointers
    if CASE == "gather-float":
        tl.gather(x, x, 0)  # gather-float
    if CASE == "gather-rank":
        tl.gather(x, offs[:, None], 0)  # gather-rank
    if CASE == "gather-axis":
        tl.gather(x, offs, 1)  # gather-axis
    if CASE == "gather-dim":
        tl.gather(x[:, None] + x[None, :], offs[:, None], 0)  # gather-dim
    if CASE == "cat-shapes":
        tl.cat(x, tl.load(x_ptr + tl.arange(0, 4)))  # cat-shapes
    if CASE == "cat-reorder":
        tl.cat(x[:, None], x[:, None], can_reorder=True)  # cat-reorder
    if CASE == "flip-dim":
        tl.flip(x, 1)  # flip-dim
    if CASE == "squeeze-size":
        tl.squeeze(x, 0)  # squeeze-size
    if CASE == "histogram-dtype":
        tl.histogram(x, 8)  # histogram-dtype
    if CASE == "histogram-bins":
        tl.histogram(offs, 6)  # histogram-bins
    if CASE == "reduce-or-float":
        tl.reduce_or(x, 0)  # reduce-or-float


@pytest.mark.parametrize(
    "case, text",
    [
        ("join-shapes", "cannot broadcast"),
        ("join-dtypes", "join needs operands of one dtype, got f32 and i32"),
        ("split-last", "split needs a last dimension of size 2"),
        ("split-scalar", "split's input must be a block"),
        ("split-pointers", "into two scalar pointers is not supported"),
        ("gather-float", "gather's index must be a block of integers"),
        ("gather-rank", "must be blocks of one rank"),
        ("gather-axis", "axis 1 is out of range for gather's source, of rank 1"),
        ("gather-dim", "differs from its source (tensor<8x8xf32>) in dimension 1"),
        ("cat-shapes", "tl.cat requires tensors of the same shape, got [8] and [4]"),
        ("cat-reorder", "can_reorder=True takes 1-D blocks"),
        ("flip-dim", "axis 1 is out of range for flip's input"),
        ("squeeze-size", "dimension 0 of tensor<8xf32> has size 8"),
        ("histogram-dtype", "histogram takes a 1-D block of int32"),
        ("histogram-bins", "num_bins must be a power of two, got 6"),
        ("reduce-or-float", "reduce_or only supported for integers"),
    ],
)
def test_bad_input_is_located(case: str, text: str) -> None:
    with pytest.raises(blkc.BlkcError) as info:
        bad_shapes.warmup(numpy.zeros(8, numpy.float32), CASE=case)
    message = str(info.value)
    assert f"{__file__}:{line_of(case)}:" in message, message
    assert text in message, message


@blkc.jit
def split_checked(x_ptr, first_ptr, second_ptr):
    first, second = tl.split(tl.load(x_ptr + tl.arange(0, 2)))
    tl.static_assert(isinstance(first, tl.tensor) and isinstance(second, tl.tensor))
    tl.static_assert(first.shape == () and not isinstance(first, int))
    tl.store(first_ptr, first)
    tl.store(second_ptr, second)


def test_split_gives_scalar_tensors_known_at_compile_time() -> None:
    first, second = numpy.zeros(1, numpy.int64), numpy.zeros(1, numpy.int64)
    launch(split_checked, "cpu", numpy.array([7, -9], numpy.int64), first, second)
    assert (first[0], second[0]) == (7, -9)
