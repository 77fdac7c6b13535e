"""`is` and `is not` in kernels, decided at compile time, and None passed for a parameter:
a kernel value is never None, so ``if ptr is not None:`` keeps or drops its branch."""

from __future__ import annotations

from pathlib import Path

import numpy
import pytest

import blkc
import blkc.language as tl

SOURCE = Path(__file__).read_text().splitlines()
TARGETS = ["cpu", "cpu-simt"]


@blkc.jit
def add_bias(x_ptr, bias_ptr, scale_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if bias_ptr is not None:  # with None, the load below is never compiled
        x += tl.load(bias_ptr + offs)
    if None is not scale_ptr and scale_ptr is not None:
        x *= tl.load(scale_ptr + offs)
    if scale_ptr is None:
        x = -x
    tl.store(out_ptr + offs, x)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("with_scale", [False, True])
def test_none_arguments_drop_their_branches(target: str, with_bias: bool, with_scale: bool) -> None:
    x = numpy.arange(16, dtype=numpy.float32)
    bias = numpy.full(16, 100.0, numpy.float32)
    scale = numpy.linspace(1.0, 4.0, 16, dtype=numpy.float32)
    out = numpy.zeros(16, numpy.float32)
    add_bias[(1,)](
        x, bias if with_bias else None, scale if with_scale else None, out, BLOCK=16, target=target
    )
    expected = x + bias if with_bias else x.copy()
    expected = expected * scale if with_scale else -expected
    numpy.testing.assert_array_equal(out, expected)


def test_a_none_argument_and_an_array_compile_two_variants() -> None:
    x = numpy.ones(16, numpy.float32)
    out = numpy.zeros(16, numpy.float32)
    before = add_bias.builds
    for _ in range(2):
        add_bias[(1,)](x, None, None, out, BLOCK=16)
        add_bias[(1,)](x, x, None, out, BLOCK=16)
    assert add_bias.builds - before <= 2
    numpy.testing.assert_array_equal(out, -2 * x)


@blkc.jit
def constant_identity(out_ptr, MODE: tl.constexpr):
    value = 0
    if MODE is None:
        value = 1
    elif MODE is not True:
        value = 2
    tl.store(out_ptr, value)


@pytest.mark.parametrize(("mode", "expected"), [(None, 1), (True, 0), (False, 2), (3, 2)])
def test_is_on_compile_time_values_is_python_identity(mode: object, expected: int) -> None:
    out = numpy.zeros(1, numpy.int32)
    constant_identity[(1,)](out, MODE=mode)
    assert out[0] == expected


@blkc.jit
def two_kernel_values(x_ptr):
    x = tl.load(x_ptr)
    if x is x:  # two-values
        tl.store(x_ptr, x + 1)


@blkc.jit
def kernel_value_and_a_number(x_ptr, ONE: tl.constexpr = 1):
    x = tl.load(x_ptr)
    same = ONE is not x  # value-and-number
    tl.store(x_ptr, x + same)


@pytest.mark.parametrize(
    ("kernel", "marker", "word"),
    [
        (two_kernel_values, "two-values", "'is'"),
        (kernel_value_and_a_number, "value-and-number", "'is not'"),
    ],
)
def test_is_on_kernel_values_is_refused_where_written(
    kernel: blkc.JITFunction, marker: str, word: str
) -> None:
    with pytest.raises(blkc.BlkcError) as info:
        kernel.warmup(numpy.zeros(1, numpy.int32), grid=(1,))
    message = str(info.value)
    line = next(i for i, text in enumerate(SOURCE, 1) if text.rstrip().endswith(f"# {marker}"))
    assert f"{__file__}:{line}:" in message, message
    assert f"{word} compares compile-time values, or a kernel value with None" in message
    assert "^" in message
