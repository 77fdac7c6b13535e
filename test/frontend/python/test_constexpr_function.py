"""`blkc.constexpr_function` (Triton's `triton.constexpr_function`): Python functions a
kernel runs on constants while it compiles, `blkc.cdiv` and `blkc.next_power_of_2` among
them, as in Triton 3.9."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl

_FACTOR = 2


@blkc.constexpr_function
def times_factor(v):
    return v * _FACTOR


@blkc.constexpr_function
def wider(dtype, n, *, at_least=4):
    return tl.float32 if n >= at_least else dtype


@blkc.jit
def padded(x_ptr, o_ptr, N: tl.constexpr):
    B: tl.constexpr = blkc.next_power_of_2(N)
    C: tl.constexpr = blkc.cdiv(N, 4)
    offs = tl.arange(0, B)
    x = tl.load(x_ptr + offs, mask=offs < N, other=0)
    d: tl.constexpr = wider(tl.float16, N, at_least=5)
    tl.store(o_ptr + offs, x.to(d) * times_factor(1) + C, mask=offs < N)
    tl.store(o_ptr + N, B)


def run(n: int) -> numpy.ndarray:
    x = numpy.arange(n, dtype=numpy.float32)
    o = numpy.zeros(n + 1, numpy.float32)
    padded[(1,)](x, o, n)
    return o


def test_kernels_run_constexpr_functions_on_constants() -> None:
    global _FACTOR
    assert run(6).tolist() == [2 * i + 2 for i in range(6)] + [8]
    assert run(3).tolist() == [2 * i + 1 for i in range(3)] + [4]
    # The value a constexpr_function read is part of the kernel: a new one recompiles.
    builds = padded.builds
    _FACTOR = 3
    try:
        assert run(6).tolist() == [3 * i + 2 for i in range(6)] + [8]
        assert padded.builds == builds + 1
    finally:
        _FACTOR = 2
    assert run(6).tolist() == [2 * i + 2 for i in range(6)] + [8]


def test_they_are_plain_functions_on_the_host() -> None:
    assert times_factor(tl.constexpr(5)) == 10
    assert wider(tl.int8, 1) is tl.int8
    assert [blkc.cdiv(x, 4) for x in (0, 1, 4, 5)] == [0, 1, 1, 2]
    # Triton's bit arithmetic: 0 for n <= 0
    assert [blkc.next_power_of_2(n) for n in (-3, 0, 1, 2, 3, 1000)] == [0, 0, 1, 2, 4, 1024]

    class Shape:
        width = 3

        @blkc.constexpr_function
        def doubled(self):
            return 2 * self.width

    assert Shape().doubled() == 6


@blkc.constexpr_function
def fails(n):
    return 1 // (n - n)


@blkc.jit
def calls_on_a_kernel_value(o_ptr, n):
    tl.store(o_ptr, blkc.next_power_of_2(n))  # not a constant


@blkc.jit
def calls_one_that_raises(o_ptr, N: tl.constexpr):
    tl.store(o_ptr, fails(N))


def plain(n):
    return n


@blkc.jit
def calls_a_plain_function(o_ptr, N: tl.constexpr):
    tl.store(o_ptr, plain(N))


@pytest.mark.parametrize(
    ("kernel", "words"),
    [
        (calls_on_a_kernel_value, "an argument of next_power_of_2() must be a compile-time"),
        (calls_one_that_raises, "fails(): ZeroDivisionError: integer division or modulo"),
        (calls_a_plain_function, "or with @blkc.constexpr_function to run it on constants"),
    ],
)
def test_errors_point_at_the_call(kernel: blkc.JITFunction, words: str) -> None:
    with pytest.raises(blkc.BlkcError) as caught:
        kernel[(1,)](numpy.zeros(1, numpy.int32), 5)
    message = str(caught.value)
    assert words in message
    assert "test_constexpr_function.py:" in message and "^" in message


def test_a_constexpr_function_takes_a_function() -> None:
    with pytest.raises(TypeError, match="takes a function"):
        blkc.constexpr_function(3)


@blkc.jit
def by_target(o_ptr):
    if tl.target_info.is_cuda() or tl.target_info.is_hip():
        tl.store(o_ptr, 1)
    else:
        tl.store(o_ptr, 2)
    tl.store(o_ptr + 1, tl.target_info.cuda_capability_geq(7, 0))


def test_target_info_answers_while_the_kernel_compiles() -> None:
    assert tl.target_info.current_target().backend == "cpu"
    o = numpy.zeros(2, numpy.int32)
    by_target[(1,)](o)
    assert o.tolist() == [2, 0]  # as in Triton's interpreter on the CPU


def test_tritons_largest_block_is_named() -> None:
    assert tl.TRITON_MAX_TENSOR_NUMEL == 1 << 20  # Triton 3.9's value
    assert blkc.next_power_of_2(3 * tl.TRITON_MAX_TENSOR_NUMEL // 4) == tl.TRITON_MAX_TENSOR_NUMEL
