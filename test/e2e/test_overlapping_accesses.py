"""Block semantics where a kernel writes memory it also reads: each op sees the whole
block as it was before the next op, however the lowering fuses loads into the loops of
later writes, on the CPU and under cpu-simt (a CTA's threads run one after another).

Each kernel's expected result is what Triton's interpreter gives (and blkc's reference
interpreter): the loaded block is read completely before the write."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl

TARGETS = pytest.mark.parametrize("target", ["cpu", "cpu-simt"])


@blkc.jit
def reverse(X, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + (N - 1 - o))
    tl.store(X + o, x)


@blkc.jit
def shift_right(X, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + o, mask=o < N - 1, other=0.0)
    tl.store(X + o + 1, x, mask=o < N - 1)


@blkc.jit
def shift_left_descending(X, N: tl.constexpr):
    # The offsets run downwards, so a fused load would read what the store just wrote.
    o = N - 1 - tl.arange(0, N)
    x = tl.load(X + o + 1, mask=o < N - 1, other=0.0)
    tl.store(X + o, x, mask=o < N - 1)


@blkc.jit
def increment_one_address(X, N: tl.constexpr):
    p = X + tl.arange(0, N) * 0  # every element points at X[0]
    x = tl.load(p)
    tl.store(p, x + 1)


@blkc.jit
def transpose_in_place(X, N: tl.constexpr):
    r = tl.arange(0, N)
    p = X + r[:, None] * N + r[None, :]
    x = tl.load(p)
    tl.store(p, tl.trans(x))


@blkc.jit
def add_reversed_atomically(X, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + (N - 1 - o))
    tl.atomic_add(X + o, x)


@blkc.jit
def clear_where_mirrored(X, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.atomic_cas(X + o, tl.load(X + (N - 1 - o)), -1)


@blkc.jit
def copy_reversed(X, Y, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(Y + o, tl.load(X + (N - 1 - o)))


@blkc.jit
def copy(X, Y, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(Y + o, tl.load(X + o))


@blkc.jit
def double_in_place(X, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + o)
    tl.store(X + o, x * 2)


@blkc.jit
def double_rows_in_place(X, N: tl.constexpr):
    r = tl.arange(0, N)
    p = X + r[:, None] * N + r[None, :]
    tl.store(p, tl.load(p) * 2)


N = 256
"""Two elements per thread under cpu-simt's 4 warps: loads and stores in chunks."""


def numbers(n: int = N) -> numpy.ndarray:
    return numpy.arange(n, dtype=numpy.float32)


@TARGETS
def test_reverse_in_place(target: str) -> None:
    a = numbers()
    reverse[(1,)](a, N, target=target)
    numpy.testing.assert_array_equal(a, numbers()[::-1])


@TARGETS
def test_shift_right_in_place(target: str) -> None:
    a = numbers()
    shift_right[(1,)](a, N, target=target)
    numpy.testing.assert_array_equal(a, numpy.concatenate([[0], numbers()[:-1]]))


@TARGETS
def test_shift_left_in_place(target: str) -> None:
    a = numbers()
    shift_left_descending[(1,)](a, N, target=target)
    numpy.testing.assert_array_equal(a, numpy.concatenate([numbers()[1:], [N - 1]]))


@TARGETS
def test_read_modify_write_of_one_address_reads_it_once(target: str) -> None:
    a = numpy.zeros(4, numpy.float32)
    increment_one_address[(1,)](a, 4, target=target)
    numpy.testing.assert_array_equal(a, [1, 0, 0, 0])


@TARGETS
def test_transpose_in_place(target: str) -> None:
    a = numbers().reshape(16, 16)
    transpose_in_place[(1,)](a, 16, target=target)
    numpy.testing.assert_array_equal(a, numbers().reshape(16, 16).T)


@TARGETS
def test_atomic_add_of_a_block_read_before_it(target: str) -> None:
    a = numbers()
    add_reversed_atomically[(1,)](a, N, target=target)
    numpy.testing.assert_array_equal(a, numpy.full(N, N - 1, numpy.float32))


@TARGETS
def test_compare_and_swap_with_a_block_read_before_it(target: str) -> None:
    half = numpy.arange(N // 2, dtype=numpy.int32)
    a = numpy.concatenate([half, half[::-1]])  # equal to its mirror everywhere
    clear_where_mirrored[(1,)](a, N, target=target)
    numpy.testing.assert_array_equal(a, numpy.full(N, -1, numpy.int32))


@TARGETS
def test_two_arguments_given_the_same_array(target: str) -> None:
    a = numbers()
    copy_reversed[(1,)](a, a, N, target=target)
    numpy.testing.assert_array_equal(a, numbers()[::-1])


@TARGETS
def test_two_arguments_given_overlapping_views(target: str) -> None:
    a = numbers(N + 1)
    copy[(1,)](a[:-1], a[1:], N, target=target)
    numpy.testing.assert_array_equal(a, numpy.concatenate([[0], numbers()]))


@TARGETS
def test_two_arguments_given_disjoint_arrays(target: str) -> None:
    a, b = numbers(), numpy.zeros(N, numpy.float32)
    copy_reversed[(1,)](a, b, N, target=target)
    numpy.testing.assert_array_equal(b, numbers()[::-1])
    numpy.testing.assert_array_equal(a, numbers())


@TARGETS
def test_in_place_update_at_the_same_offsets(target: str) -> None:
    a = numbers()
    double_in_place[(1,)](a, N, target=target)
    numpy.testing.assert_array_equal(a, numbers() * 2)
    m = numbers().reshape(16, 16)
    double_rows_in_place[(1,)](m, 16, target=target)
    numpy.testing.assert_array_equal(m, numbers().reshape(16, 16) * 2)


def loop_ir(kernel: blkc.JITFunction, *args: object) -> str:
    return kernel.warmup(*args, grid=(1,)).asm["loops"]


def test_in_place_update_at_the_same_offsets_stays_fused() -> None:
    """`x = load(X + o); store(X + o, f(x))` writes only where the same element read: one
    loop, no buffer."""
    assert "memref.alloca" not in loop_ir(double_in_place, numbers(), N)
    assert "memref.alloca" not in loop_ir(double_rows_in_place, numbers().reshape(16, 16), 16)
    assert "memref.alloca" in loop_ir(reverse, numbers(), N)
    assert "memref.alloca" in loop_ir(transpose_in_place, numbers().reshape(16, 16), 16)


def test_distinct_arguments_stay_fused_where_the_arrays_do_not_overlap() -> None:
    """The launcher runs the variant lowered for disjoint arguments only when the arrays
    share no bytes; the variant for overlapping arrays reads the block first."""
    kernel = copy_reversed.warmup(numbers(), numbers(), N, grid=(1,))
    assert "memref.alloca" not in kernel.asm["loops"]
    assert "alloca" not in kernel.program.llvm_variants[True]
    assert "alloca" in kernel.program.llvm_variants[False]
