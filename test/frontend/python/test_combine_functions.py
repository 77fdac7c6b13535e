"""`tl.reduce` and `tl.associative_scan` with `@blkc.jit` combine functions (of one tensor
or of tuples), and `tl.cumsum`/`tl.cumprod` with `reverse=True`: compiled for cpu and
cpu-simt and run by the reference interpreter, compared with NumPy; where the order of a
non-commutative combine shows, with the values Triton 3.9's interpreter gives."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import interpreter

TARGETS = ["cpu", "cpu-simt", "interpreter"]

rng = numpy.random.default_rng(11)


def launch(kernel: blkc.JITFunction, target: str, *args: Any, **meta: Any) -> None:
    """Run `kernel` on one program, compiled for `target` or by the reference interpreter."""
    if target != "interpreter":
        kernel[(1,)](*args, target=target, **meta)
        return
    loose = kernel.warmup(*args, **meta).asm["loose"]
    module = blkc.run_pipeline(blkc.parse(loose, "kernel.mlir"), "to-strict{warn=false}")
    interpreter.run(module, None, (1,), list(args))


@blkc.jit
def add_fn(a, b):
    return a + b


@blkc.jit
def mul_fn(a, b):
    return a * b


@blkc.jit
def max_fn(a, b):
    return tl.maximum(a, b)


@blkc.jit
def argmax_first(v1, i1, v2, i2):
    keep = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(keep, v1, v2), tl.where(keep, i1, i2)


@blkc.jit
def argmax_last(v1, i1, v2, i2):
    keep = (v1 > v2) | ((v1 == v2) & (i1 > i2))
    return tl.where(keep, v1, v2), tl.where(keep, i1, i2)


@blkc.jit
def first_fn(a, b):
    return a


@blkc.jit
def affine_fn(a1, b1, a2, b2):
    """Composes x -> a1 x + b1 then x -> a2 x + b2: associative, not commutative."""
    return a1 * a2, b1 * a2 + b2


def _combine(name: str) -> blkc.JITFunction:
    return {"add": add_fn, "mul": mul_fn, "max": max_fn, "first": first_fn}[name]


# -- reductions ------------------------------------------------------------------------------


@blkc.jit
def reduce_2d(x_ptr, out_ptr, OP: tl.constexpr, AXIS: tl.constexpr, KEEP: tl.constexpr,
              M: tl.constexpr, N: tl.constexpr):  # fmt: skip
    rows, cols = tl.arange(0, M)[:, None], tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    if OP == "add":
        r = tl.reduce(x, AXIS, add_fn, keep_dims=KEEP)
    else:
        r = tl.reduce(x, AXIS, max_fn, keep_dims=KEEP)
    if AXIS == 0:
        tl.store(out_ptr + cols if KEEP else out_ptr + tl.arange(0, N), r)
    elif AXIS == 1:
        tl.store(out_ptr + rows if KEEP else out_ptr + tl.arange(0, M), r)
    else:
        tl.store(out_ptr + rows * 0 + cols * 0 if KEEP else out_ptr, r)


REDUCE_REFERENCE = {"add": numpy.sum, "max": numpy.max}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["add", "max"])
@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_with_a_combine_function(target: str, op: str, axis: int | None, keep: bool) -> None:
    x = rng.standard_normal((4, 8)).astype(numpy.float32)
    want = REDUCE_REFERENCE[op](x, axis=axis, keepdims=keep)
    out = numpy.zeros(max(want.size, 1), numpy.float32)
    launch(reduce_2d, target, x, out, OP=op, AXIS=axis, KEEP=keep, M=4, N=8)
    numpy.testing.assert_allclose(out, want.ravel(), rtol=1e-5, atol=1e-6)


@blkc.jit
def argmax_pairs(x_ptr, v_ptr, i_ptr, LAST: tl.constexpr, AXIS: tl.constexpr,
                 M: tl.constexpr, N: tl.constexpr):  # fmt: skip
    rows, cols = tl.arange(0, M)[:, None], tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    index = rows * 0 + cols if AXIS == 1 else rows + cols * 0
    if LAST:
        v, i = tl.reduce((x, index), AXIS, argmax_last)
    else:
        v, i = tl.reduce((x, index), AXIS, argmax_first)
    size = M if AXIS == 1 else N
    tl.store(v_ptr + tl.arange(0, size), v)
    tl.store(i_ptr + tl.arange(0, size), i)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("last", [False, True])
def test_tuple_argmax_resolves_ties_as_its_combine_says(target: str, axis: int, last: bool) -> None:
    x = rng.integers(0, 3, (4, 8)).astype(numpy.int32)  # many ties
    v = numpy.zeros(x.shape[1 - axis], numpy.int32)
    i = numpy.zeros_like(v)
    launch(argmax_pairs, target, x, v, i, LAST=last, AXIS=axis, M=4, N=8)
    first = numpy.argmax(x, axis=axis)
    flipped = numpy.flip(x, axis=axis)
    want = x.shape[axis] - 1 - numpy.argmax(flipped, axis=axis) if last else first
    numpy.testing.assert_array_equal(v, numpy.max(x, axis=axis))
    numpy.testing.assert_array_equal(i, want)


# -- scans -----------------------------------------------------------------------------------


@blkc.jit
def scan_2d(x_ptr, out_ptr, OP: tl.constexpr, AXIS: tl.constexpr, REVERSE: tl.constexpr,
            M: tl.constexpr, N: tl.constexpr):  # fmt: skip
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    if OP == "add":
        r = tl.associative_scan(x, AXIS, add_fn, reverse=REVERSE)
    elif OP == "mul":
        r = tl.associative_scan(x, AXIS, mul_fn, reverse=REVERSE)
    else:
        r = tl.associative_scan(x, AXIS, max_fn, reverse=REVERSE)
    tl.store(out_ptr + offs, r)


SCAN_REFERENCE = {"add": numpy.cumsum, "mul": numpy.cumprod, "max": numpy.maximum.accumulate}


def _scanned(op: str, x: numpy.ndarray, axis: int, reverse: bool) -> numpy.ndarray:
    if not reverse:
        return SCAN_REFERENCE[op](x, axis=axis)
    return numpy.flip(SCAN_REFERENCE[op](numpy.flip(x, axis=axis), axis=axis), axis=axis)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["add", "mul", "max"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan(target: str, op: str, axis: int, reverse: bool) -> None:
    x = rng.integers(-3, 4, (4, 8)).astype(numpy.int32)
    out = numpy.zeros_like(x)
    launch(scan_2d, target, x, out, OP=op, AXIS=axis, REVERSE=reverse, M=4, N=8)
    numpy.testing.assert_array_equal(out, _scanned(op, x, axis, reverse))


@blkc.jit
def affine_scan(x_ptr, y_ptr, a_ptr, b_ptr, f_ptr, REVERSE: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    a, b = tl.associative_scan((x, y), 0, affine_fn, reverse=REVERSE)
    tl.store(a_ptr + offs, a)
    tl.store(b_ptr + offs, b)
    tl.store(f_ptr + offs, tl.associative_scan(y, 0, first_fn, reverse=REVERSE))


AFFINE_X = [2, 1, 3, 1, 2, 1, 1, 2]
AFFINE_Y = [1, 2, 3, 4, 5, 6, 7, 8]
TRITON_AFFINE = {  # Triton 3.9's interpreter on these kernels
    False: ([2, 2, 6, 6, 12, 12, 12, 24], [1, 3, 12, 16, 37, 43, 50, 108]),
    True: ([24, 12, 12, 4, 4, 2, 2, 2], [317, 158, 156, 51, 47, 21, 15, 8]),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("reverse", [False, True])
def test_tuple_scan_keeps_the_order_of_a_non_commutative_combine(
    target: str, reverse: bool
) -> None:
    x, y = numpy.array(AFFINE_X, numpy.int32), numpy.array(AFFINE_Y, numpy.int32)
    a, b, f = numpy.zeros_like(x), numpy.zeros_like(x), numpy.zeros_like(x)
    launch(affine_scan, target, x, y, a, b, f, REVERSE=reverse, N=8)
    numpy.testing.assert_array_equal(a, TRITON_AFFINE[reverse][0])
    numpy.testing.assert_array_equal(b, TRITON_AFFINE[reverse][1])
    # the accumulated value is the left operand: the first element, or the last reversed
    numpy.testing.assert_array_equal(f, numpy.full(8, y[-1] if reverse else y[0]))


@blkc.jit
def cumulative(x_ptr, out_ptr, OP: tl.constexpr, AXIS: tl.constexpr, M: tl.constexpr,
               N: tl.constexpr):  # fmt: skip
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    if OP == "add":
        r = tl.cumsum(x, AXIS, reverse=True)
    else:
        r = tl.cumprod(x, AXIS, reverse=True)
    tl.store(out_ptr + offs, r)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["add", "mul"])
@pytest.mark.parametrize("axis", [0, 1])
def test_cumsum_and_cumprod_reversed(target: str, op: str, axis: int) -> None:
    x = rng.integers(-3, 4, (4, 8)).astype(numpy.int32)
    out = numpy.zeros_like(x)
    launch(cumulative, target, x, out, OP=op, AXIS=axis, M=4, N=8)
    numpy.testing.assert_array_equal(out, _scanned(op, x, axis, True))


@blkc.jit
def cumsum_int8(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 0, reverse=True))


@pytest.mark.parametrize("target", TARGETS)
def test_reversed_cumsum_accumulates_int8_in_int32(target: str) -> None:
    x = numpy.full(64, 100, numpy.int8)
    out = numpy.zeros(64, numpy.int32)
    launch(cumsum_int8, target, x, out, N=64)
    numpy.testing.assert_array_equal(out, numpy.arange(64, 0, -1) * 100)


@blkc.jit
def cumsum_both_ways(x_ptr, fwd_ptr, rev_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(fwd_ptr + offs, tl.cumsum(x, 0))
    tl.store(rev_ptr + offs, tl.cumsum(x, 0, reverse=True))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, numpy.float16])
def test_a_reversed_narrow_float_cumsum_rounds_each_element_once(target: str, dtype: Any) -> None:
    """Both directions accumulate a 16-bit float scan in float32 and round each element
    once: a reversed scan is the forward scan of the reversed block (it rounded after each
    step, 1% away from float32's sums where Triton's tests allow 1%)."""
    x = numpy.random.default_rng(5).normal(0, 1, 64).astype(dtype)
    fwd, rev = numpy.zeros_like(x), numpy.zeros_like(x)
    launch(cumsum_both_ways, target, x, fwd, rev, N=64)
    wide = x.astype(numpy.float32)
    numpy.testing.assert_array_equal(fwd, numpy.cumsum(wide).astype(dtype))
    numpy.testing.assert_array_equal(rev, numpy.cumsum(wide[::-1])[::-1].astype(dtype))


def test_combine_functions_compile_for_ptx() -> None:
    x = numpy.zeros(8, numpy.int32)
    ptx = affine_scan.warmup(x, x, x, x, x, REVERSE=True, N=8, target="ptx").asm["ptx"]
    assert ".entry affine_scan" in ptx
    pairs = numpy.zeros((4, 8), numpy.int32)
    ptx = argmax_pairs.warmup(pairs, x, x, LAST=False, AXIS=1, M=4, N=8, target="ptx").asm["ptx"]
    assert ".entry argmax_pairs" in ptx
