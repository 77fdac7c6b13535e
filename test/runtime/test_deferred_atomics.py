"""Atomics combined across the programs a CPU thread runs (`blkc.runtime.deferred_atomics`):
which atomics qualify, and that results stay exact (integers), close (floats), masked and
bounds-checked as before, on one thread and on several."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy
import pytest
from xdsl.dialects import func

import blkc
import blkc.language as tl
from blkc.runtime.deferred_atomics import deferrable


def _deferred(kernel: Any, *args: Any, **constants: Any) -> list[str]:
    """The kinds of `kernel`'s deferred atomics, compiled for `args`, in program order."""
    compiled = kernel.warmup(*args, **constants, grid=(1,))
    module = blkc.parse(compiled.asm["loops"])
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    return [op.kind.data.value for op in deferrable(function)]


@blkc.jit
def sums(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))
    tl.atomic_max(out_ptr + 1, tl.max(x, axis=0))
    tl.atomic_min(out_ptr + 2, tl.min(x, axis=0), mask=n > 0)
    tl.atomic_xor(out_ptr + 3, tl.xor_sum(x, axis=0))
    tl.atomic_or(out_ptr + 4, tl.reduce_or(x, axis=0))


@blkc.jit
def float_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))
    tl.atomic_add(out_ptr + 1, tl.sum(x * x, axis=0), mask=n > 1000)


def _arrays(dtype: Any, n: int = 4096, small: bool = False) -> tuple[numpy.ndarray, numpy.ndarray]:
    """Values across `dtype`'s range (or `small` ones, 0 to 999), and the outputs' starts."""
    info = numpy.iinfo(dtype)
    rng = numpy.random.default_rng(7)
    low, high = (0, 999) if small else (info.min, info.max)
    x = rng.integers(low, high, n, dtype=dtype, endpoint=True)
    out = numpy.array([0, info.min, info.max, 0, 0], dtype)
    return x, out


def test_reductions_into_one_address_are_deferred() -> None:
    x, out = _arrays(numpy.int32)
    assert _deferred(sums, x, out, 4096, BLOCK=64) == ["add", "max", "min", "xor", "or"]
    y = numpy.zeros(2, numpy.float32)
    assert _deferred(float_sum, x.astype(numpy.float32), y, 10, BLOCK=64) == ["add", "add"]


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.uint32, numpy.int64, numpy.uint64])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("small", [False, True])
def test_deferred_integer_atomics_are_exact(dtype: Any, threads: int, small: bool) -> None:
    x, out = _arrays(dtype, small=small)
    sums[(4096 // 64,)](x, out, 4096, BLOCK=64, num_cpu_threads=threads)
    with numpy.errstate(over="ignore"):
        total = x.sum(dtype=dtype)
    expected = [total, x.max(), x.min(), numpy.bitwise_xor.reduce(x), numpy.bitwise_or.reduce(x)]
    assert out.tolist() == [int(v) for v in expected]


@pytest.mark.parametrize("threads", [1, 2])
def test_deferred_float_sums_and_their_masks(threads: int) -> None:
    x = numpy.random.default_rng(3).random(100_000, dtype=numpy.float32)
    out = numpy.array([1.5, 0.0], numpy.float32)
    float_sum[(blkc.cdiv(x.size, 256),)](x, out, x.size, BLOCK=256, num_cpu_threads=threads)
    wide = x.astype(numpy.float64)
    numpy.testing.assert_allclose(out, [1.5 + wide.sum(), (wide * wide).sum()], rtol=1e-5)
    # The mask (n > 1000) is false in every program: nothing is added at the second address.
    out = numpy.array([0.0, -0.0], numpy.float32)
    float_sum[(1,)](x, out, 1000, BLOCK=1024, num_cpu_threads=threads)
    assert out[1] == 0 and numpy.signbit(out[1])
    numpy.testing.assert_allclose(out[0], wide[:1000].sum(), rtol=1e-5)


@blkc.jit
def add_each(x_ptr, out_ptr):
    tl.atomic_add(out_ptr, tl.load(x_ptr + tl.program_id(0)))


def test_what_a_deferred_sum_starts_from_adds_nothing() -> None:
    x = -numpy.zeros(64, numpy.float32)
    out = -numpy.zeros(1, numpy.float32)
    assert _deferred(add_each, x, out) == ["add"]
    add_each[(64,)](x, out)
    assert out[0] == 0 and numpy.signbit(out[0])  # -0.0 + -0.0 + ... is -0.0


def test_a_deferred_atomic_outside_its_array_is_still_reported() -> None:
    @blkc.jit
    def past_the_end(out_ptr, BLOCK: tl.constexpr):
        tl.atomic_add(out_ptr + BLOCK, tl.sum(tl.arange(0, BLOCK), axis=0))

    out = numpy.zeros(4, numpy.int32)
    assert _deferred(past_the_end, out, BLOCK=4) == ["add"]
    with pytest.raises(IndexError):
        past_the_end[(64,)](out, BLOCK=4)
    assert not out.any()


@blkc.jit
def used_result(out_ptr, ticket_ptr):
    ticket = tl.atomic_add(ticket_ptr, 1)
    tl.store(out_ptr + tl.program_id(0), ticket)


@blkc.jit
def per_program_address(out_ptr):
    tl.atomic_add(out_ptr + tl.program_id(0) % 2, 1)


@blkc.jit
def in_a_branch(out_ptr, n):
    if tl.program_id(0) < n:
        tl.atomic_add(out_ptr, 1)


@blkc.jit
def read_back(out_ptr, seen_ptr):
    tl.atomic_add(out_ptr, 1)
    tl.store(seen_ptr + tl.program_id(0), tl.load(out_ptr))


@blkc.jit
def with_a_lock(out_ptr, lock_ptr):
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.atomic_add(out_ptr, 1)
    tl.atomic_xchg(lock_ptr, 0)


@blkc.jit
def float_maximum(x_ptr, out_ptr):
    tl.atomic_max(out_ptr, tl.load(x_ptr + tl.program_id(0)))


_KEPT: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
    (used_result, (numpy.zeros(8, numpy.int32), numpy.zeros(1, numpy.int32))),
    (per_program_address, (numpy.zeros(2, numpy.int32),)),
    (in_a_branch, (numpy.zeros(1, numpy.int32), 5)),
    (read_back, (numpy.zeros(1, numpy.int32), numpy.zeros(8, numpy.int32))),
    (with_a_lock, (numpy.zeros(1, numpy.int32), numpy.zeros(1, numpy.int32))),
    (float_maximum, (numpy.zeros(8, numpy.float32), numpy.zeros(1, numpy.float32))),
]


@pytest.mark.parametrize(("kernel", "args"), _KEPT, ids=[k.__name__ for k, _ in _KEPT])
def test_atomics_a_program_could_observe_are_not_deferred(kernel: Any, args: Any) -> None:
    assert _deferred(kernel, *args) == []


def test_tickets_and_locks_still_work_on_several_threads() -> None:
    out, tickets = numpy.zeros(4096, numpy.int32), numpy.zeros(1, numpy.int32)
    used_result[(4096,)](out, tickets, num_cpu_threads=2)
    assert sorted(out.tolist()) == list(range(4096)) and tickets[0] == 4096
    total, lock = numpy.zeros(1, numpy.int32), numpy.zeros(1, numpy.int32)
    with_a_lock[(2000,)](total, lock, num_cpu_threads=2)
    assert total[0] == 2000 and lock[0] == 0
