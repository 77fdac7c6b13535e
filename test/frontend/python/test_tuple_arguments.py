"""Tuples as kernel arguments, as Triton 3 takes them: `x.shape`, strides, nested tuples
and NamedTuples of arrays and numbers. Each element specialises the kernel as an argument
of its own would; the kernel gets the tuple back."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def m_to_the_n(X, shape: tl.constexpr, strides, m_n):
    rows = tl.arange(0, shape[0])[:, None]
    Xs = X + rows * strides[0] + tl.arange(0, shape[1])[None, :] * strides[1]
    data = tl.load(Xs)
    for _ in tl.range(0, m_n[1]):
        data = m_n[0] * data
    tl.store(Xs, data)


def test_a_shape_strides_and_a_pair() -> None:
    x = numpy.arange(64).reshape(8, 8)
    expected = 8 * x
    m_to_the_n[(1,)](x, x.shape, tuple(s // x.itemsize for s in x.strides), (2, 3))
    numpy.testing.assert_array_equal(x, expected)
    y = numpy.arange(64).reshape(8, 8)
    m_to_the_n[(1,)](y, y.shape, (8, 1), (3, 2))
    numpy.testing.assert_array_equal(y, 9 * numpy.arange(64).reshape(8, 8))


class Tensor(NamedTuple):
    ptr: Any
    shape: tuple
    stride: tuple


@blkc.jit
def copy_tile(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    om = tl.arange(0, BM)[:, None]
    on = tl.arange(0, BN)[None, :]
    inside = (om < src.shape[0]) & (on < src.shape[1])
    v = tl.load(src.ptr + om * src.stride[0] + on * src.stride[1], mask=inside, other=0)
    tl.store(dst.ptr + om * dst.stride[0] + on * dst.stride[1], v, mask=inside)


def test_named_tuples_keep_their_fields() -> None:
    a = numpy.random.default_rng(0).random((5, 7), dtype=numpy.float32)
    for _ in range(3):  # the third launch goes through a launch stub
        b = numpy.zeros((7, 5), numpy.float32)
        copy_tile[(1,)](Tensor(a, a.shape, (7, 1)), Tensor(b, a.shape, (1, 5)), 8, 8)
        numpy.testing.assert_array_equal(b, a.T)


@blkc.jit
def nested(out, tree, cst: tl.constexpr, val):
    tl.static_assert(tree[1][1] is None)
    tl.static_assert(tree[1][3] == 4)
    tl.store(out + 0, tl.load(tree[0]))
    tl.store(out + 1, tree[1][0])
    tl.store(out + 2, tl.load(tree[1][2]))
    tl.store(out + 3, cst + val)
    tl.store(out + 4, len(tree[1]))


def test_nested_tuples_with_none_and_constexprs() -> None:
    x0, x1 = numpy.array([8], numpy.int32), numpy.array([12], numpy.int32)
    out = numpy.zeros(5, numpy.int32)
    nested[(1,)](out, (x0, (7, None, x1, tl.constexpr(4))), 20, 1)
    assert out.tolist() == [8, 7, 12, 21, 4]


@blkc.jit
def first_times_second(out, pair):
    tl.store(out, pair[0] * pair[1])


def test_elements_specialise_as_arguments_do() -> None:
    out = numpy.zeros(1, numpy.int64)
    builds = first_times_second.builds
    for pair, product in (((3, 5), 15), ((1, 5), 5), ((4, 6), 24), ((2**40, 3), 3 * 2**40)):
        first_times_second[(1,)](out, pair)
        assert out[0] == product
    # an i32 pair, a pair whose first element is 1 (compiled in), an i64 pair
    assert first_times_second.builds == builds + 3


def test_an_element_no_kernel_takes_is_named() -> None:
    with pytest.raises(TypeError, match=r"argument 'pair\.1': cannot pass str"):
        first_times_second[(1,)](numpy.zeros(1, numpy.int64), (3, "five"))


@blkc.jit
def _incremented(values):
    return tl.tuple([v + 1 for v in values])


@blkc.jit
def _store_each(ptrs, values):
    for i in tl.static_range(len(values)):
        tl.store(ptrs[i], values[i])


@blkc.jit
def tuple_index(_0, ptrs, _1: tl.constexpr, values, _2, _3: tl.constexpr, _4):
    values = _incremented(values)
    _store_each(ptrs, values)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4])
def test_tritons_tuple_index(size: int) -> None:
    """Triton's test_tuple.py `test_index`: parameters named `_0` .. `_4`, a tuple of
    arrays and one of numbers, `tl.tuple` of a comprehension."""
    values = tuple(i + 1 for i in range(size))
    outs = tuple(numpy.zeros(1, numpy.float32) for _ in values)
    tuple_index[(1,)](0, outs, 0, values, 0, 0, 0)
    assert tuple(o[0] - 1 for o in outs) == values


@blkc.jit
def comprehensions(out, N: tl.constexpr):
    t = tl.tuple((1, 2)) + (3, 4)
    i = 100
    squares = [i * i for i in tl.static_range(N) if i % 2 == 0]
    pairs = [a * b for a, b in ((1, 2), (3, 4))]
    for k in tl.static_range(len(squares)):
        tl.store(out + k, squares[k] + t[k])
    tl.store(out + 3, pairs[0] + pairs[1] + i)  # the comprehensions' `i` did not leak
    tl.store(out + 4, (tl.tuple((1, 2)) == (1, 2)) + 0)


def test_comprehensions_over_constants_unroll() -> None:
    out = numpy.zeros(5, numpy.int32)
    comprehensions[(1,)](out, 5)
    assert out.tolist() == [1, 6, 19, 114, 1]


@blkc.jit
def comprehension_over_a_block(out):
    x = tl.arange(0, 4)
    tl.store(out, len([v for v in x]))


def test_a_comprehension_over_a_kernel_value_is_a_located_error() -> None:
    with pytest.raises(blkc.BlkcError, match="iterable must be a compile-time") as e:
        comprehension_over_a_block[(1,)](numpy.zeros(1, numpy.int32))
    assert "test_tuple_arguments.py:" in str(e.value)
