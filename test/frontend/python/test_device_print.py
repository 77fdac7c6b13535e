"""`tl.device_print`, Python's `print` and `tl.static_print` in kernels: Triton's line
format (`pid (x, y, z) idx (i, j) prefix: value`, one line per element, `(operand n)` for
several values, `hex=True`), the same on every CPU target and the reference interpreter,
with each dtype shown as its own (unsigned, bfloat16, float16)."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy
import pytest

import blkc
import blkc.language as tl

TARGETS = ["cpu", "cpu-simt", "interpreter"]


def printed(capfd: pytest.CaptureFixture[str]) -> list[str]:
    return capfd.readouterr().out.splitlines()


@blkc.jit
def show_block(x_ptr, BLOCK: tl.constexpr):
    tl.device_print("x", tl.load(x_ptr + tl.arange(0, BLOCK)))


@pytest.mark.parametrize("target", TARGETS)
def test_a_block_prints_a_line_per_element_with_its_index_padded(
    target: str, capfd: pytest.CaptureFixture[str], launch_on: Callable[..., None]
) -> None:
    x = numpy.arange(12, dtype=numpy.float32) - 2.5
    launch_on(show_block, target, (1,), x, BLOCK=8)
    lines = printed(capfd)
    assert sorted(lines) == sorted(
        f"pid (0, 0, 0) idx ({i}) x: {v:f}" for i, v in enumerate(x[:8].tolist())
    )


@blkc.jit
def show_2d(x_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    tl.device_print("v = ", tl.load(x_ptr + r * COLS + c) + tl.program_id(0))


@pytest.mark.parametrize("target", TARGETS)
def test_each_index_is_padded_to_the_digits_of_its_dimension_and_pids_show(
    target: str, capfd: pytest.CaptureFixture[str], launch_on: Callable[..., None]
) -> None:
    x = numpy.arange(2 * 16, dtype=numpy.int32)
    launch_on(show_2d, target, (2,), x, ROWS=2, COLS=16)
    lines = printed(capfd)
    expected = [
        f"pid ({p}, 0, 0) idx ({r}, {c:2}) v =: {r * 16 + c + p}"
        for p in range(2)
        for r in range(2)
        for c in range(16)
    ]
    assert sorted(lines) == sorted(expected)


@blkc.jit
def show_kinds(u_ptr, b_ptr, h_ptr, i_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.device_print("u", tl.load(u_ptr + o))
    tl.device_print("b", tl.load(b_ptr + o))
    tl.device_print("h", tl.load(h_ptr + o))
    tl.device_print("i", tl.load(i_ptr + o), hex=True)
    tl.device_print("f", tl.load(h_ptr + o).to(tl.float32), hex=True)


@pytest.mark.parametrize("target", TARGETS)
def test_each_dtype_prints_as_itself(
    target: str, capfd: pytest.CaptureFixture[str], launch_on: Callable[..., None]
) -> None:
    u = numpy.array([1, 0xFFFFFFFF], numpy.uint32)
    b = numpy.array([0.5, -3], ml_dtypes.bfloat16)
    h = numpy.array([0.1, 6], numpy.float16)
    i = numpy.array([-1, 26], numpy.int8)
    launch_on(show_kinds, target, (1,), u, b, h, i, BLOCK=2)
    lines = set(printed(capfd))
    assert lines == {
        "pid (0, 0, 0) idx (0) u: 1",
        "pid (0, 0, 0) idx (1) u: 4294967295",  # unsigned, not -1
        "pid (0, 0, 0) idx (0) b: 0.500000",  # the value, not its bits
        "pid (0, 0, 0) idx (1) b: -3.000000",
        f"pid (0, 0, 0) idx (0) h: {float(numpy.float16(0.1)):f}",
        "pid (0, 0, 0) idx (1) h: 6.000000",
        "pid (0, 0, 0) idx (0) i: 0xff",  # the bits of its width
        "pid (0, 0, 0) idx (1) i: 0x1a",
        f"pid (0, 0, 0) idx (0) f: {_c_hex(float(numpy.float16(0.1)))}",
        "pid (0, 0, 0) idx (1) f: 0x1.8p+2",
    }


def _c_hex(x: float) -> str:
    mantissa, exponent = x.hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}"


@blkc.jit
def show_several(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("several", x, n, x > 1)
    print("n is", n)
    tl.device_print("done")


@pytest.mark.parametrize("target", TARGETS)
def test_several_values_print_one_after_another_with_operand_labels(
    target: str, capfd: pytest.CaptureFixture[str], launch_on: Callable[..., None]
) -> None:
    launch_on(show_several, target, (1,), numpy.array([1, 2], numpy.int32), 7, BLOCK=2)
    lines = printed(capfd)
    assert lines == [
        "pid (0, 0, 0) idx (0) several: (operand 0) 1",
        "pid (0, 0, 0) idx (1) several: (operand 0) 2",
        "pid (0, 0, 0) idx () several: (operand 1) 7",
        "pid (0, 0, 0) idx (0) several: (operand 2) 0",
        "pid (0, 0, 0) idx (1) several: (operand 2) 1",
        "pid (0, 0, 0) idx () n is: 7",
        "pid (0, 0, 0) done",
    ]


@blkc.jit
def show_statically(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK)[:, None] + tl.arange(0, BLOCK)[None, :])
    tl.static_print("x is", x, "and BLOCK is", BLOCK)
    tl.static_print(x_ptr, tl.sum(x))


def test_static_print_shows_dtypes_and_shapes_on_stdout_once(
    capfd: pytest.CaptureFixture[str],
) -> None:
    x = numpy.zeros(64, numpy.float32)
    show_statically[(1,)](x, BLOCK=4)
    show_statically[(1,)](x, BLOCK=4)  # cached: compiled once, printed once
    out, err = capfd.readouterr()
    assert out.splitlines() == [
        "x is fp32[constexpr[4], constexpr[4]] and BLOCK is 4",
        "pointer<fp32>[] fp32[]",
    ]
    assert err == ""
