"""The types `blkc FILE.py` gives parameters `--signature` leaves out: the kind each use
decides (pointer, integer, float), followed through pointer arithmetic, reassignment and
`@blkc.jit` helpers; where no use decides, one error naming every such parameter."""

from __future__ import annotations

from pathlib import Path

import pytest

import blkc
import blkc.language as tl
from blkc import dtypes
from blkc.frontend.infer_signature import Kind, infer_kinds, typed
from blkc.tools.blkc_main import main

POINTER, INT, FLOAT = Kind.POINTER, Kind.INT, Kind.FLOAT


def kinds(kernel: blkc.JITFunction, **given: dtypes.DType) -> dict[str, Kind | None]:
    constants = {name: 16 for name in kernel.constexprs}
    return infer_kinds(kernel, constants, {n: typed(d, pointer=True) for n, d in given.items()})


@blkc.jit
def row_kernel(X, Y, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < N, other=0.0)
    tl.store(Y + cols, x / tl.sqrt(tl.sum(x * x, axis=0) + eps), mask=cols < N)


def test_pointer_through_reassignment_and_integer_through_comparison() -> None:
    assert kinds(row_kernel) == {"X": POINTER, "Y": POINTER, "stride": INT, "N": INT, "eps": FLOAT}


@blkc.jit
def loop_kernel(out_ptr, count, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for _ in tl.range(0, count):
        acc += 1.0
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


def test_integer_through_a_range_bound() -> None:
    assert kinds(loop_kernel) == {"out_ptr": POINTER, "count": INT}


@blkc.jit
def offset_kernel(src, dst, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs))
    tl.store(src + offs + shift, 0.0)


def test_integer_through_an_offset_added_to_a_pointer() -> None:
    assert kinds(offset_kernel) == {"src": POINTER, "dst": POINTER, "shift": INT}


@blkc.jit
def divide_kernel(out, d, m, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, (offs // d) + (offs % m))


def test_integer_through_floordiv_and_mod() -> None:
    assert kinds(divide_kernel) == {"out": POINTER, "d": INT, "m": INT}


@blkc.jit
def scale_kernel(x_ptr, y_ptr, alpha, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * alpha)


def test_float_through_float_arithmetic() -> None:
    assert kinds(scale_kernel) == {"x_ptr": POINTER, "y_ptr": POINTER, "alpha": FLOAT}


def test_loads_from_an_integer_pointer_are_integers() -> None:
    int32 = dtypes.dtype("int32")
    assert kinds(scale_kernel, x_ptr=int32, y_ptr=int32) == {"alpha": None}


@blkc.jit
def masked_store(p, values, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(p + offs, values, mask=offs < n)


@blkc.jit
def helper_kernel(dst, size, BLOCK: tl.constexpr):
    masked_store(dst, tl.zeros([BLOCK], dtype=tl.float32), size, BLOCK)


def test_uses_are_followed_into_helpers() -> None:
    assert kinds(helper_kernel) == {"dst": POINTER, "size": INT}


@blkc.jit
def pointer_uses(a, b, c, d, e, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(a + offs, 1.0)
    tl.store(pointer=b + offs, value=tl.load(c))
    tl.make_block_ptr(d, (BLOCK,), (1,), (0,), (BLOCK,), (0,))
    tl.atomic_max(e, 1)


def test_every_memory_function_takes_a_pointer() -> None:
    assert kinds(pointer_uses) == dict.fromkeys("abcde", POINTER)


@blkc.jit
def branch_kernel(a, b, USE_A: tl.constexpr):
    if USE_A:
        tl.store(a, 1.0)
    else:
        tl.store(b, 1.0)


def test_a_constexpr_test_takes_one_branch() -> None:
    assert infer_kinds(branch_kernel, {"USE_A": True}, {}) == {"a": POINTER, "b": None}


@blkc.jit
def undecided_kernel(out_ptr, value, unused, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), value)


def test_no_use_decides_a_stored_value_or_an_unused_parameter() -> None:
    assert kinds(undecided_kernel) == {"out_ptr": POINTER, "value": None, "unused": None}


UNDECIDED_FILE = """\
import blkc
import blkc.language as tl


@blkc.jit
def fill(out_ptr, value, unused, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), value)


@blkc.jit
def copy(src, dst, n, start, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + start + offs), mask=offs < n)
"""


def cli_error(path: Path, *argv: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main([str(path), "-DBLOCK=16", *argv]) == 1
    return capsys.readouterr().err


def test_undecided_parameters_are_listed_with_the_signature_to_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "kernels.py"
    path.write_text(UNDECIDED_FILE)
    err = cli_error(path, "--kernel", "fill", capsys=capsys)
    assert f"{path}:6:19: error: no use in kernel 'fill' decides the type of 'value', " in err
    assert "decides the type of 'value', 'unused': " in err
    assert "pass --signature 'value=...,unused=...'" in err
    assert "def fill(out_ptr, value, unused, BLOCK: tl.constexpr):" in err


def test_the_listing_keeps_the_signature_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "kernels.py"
    path.write_text(UNDECIDED_FILE)
    err = cli_error(path, "--kernel", "fill", "--signature", "value=fp16", capsys=capsys)
    assert "decides the type of 'unused': pass --signature 'value=fp16,unused=...'" in err


def test_every_kernel_of_a_file_is_reported_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "kernels.py"
    path.write_text(UNDECIDED_FILE)
    err = cli_error(path, capsys=capsys)
    assert f"{path}:6:19: error: no use in kernel 'fill'" in err
    # `src + start` is a pointer, but either could be it.
    assert f"{path}:11:10: error: no use in kernel 'copy' decides the type of 'src', 'start'" in err


@blkc.jit
def asserting_kernel(out_ptr, count, scale):
    tl.static_assert(count.dtype.is_int(), "count is an integer")
    tl.static_assert(scale.dtype.is_floating())
    tl.store(out_ptr, count * scale)


@blkc.jit
def random_kernel(out_ptr, p, seed, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.where(tl.rand(seed, offsets) > p, 1.0, 0.0))


def test_a_static_assert_on_a_dtype_predicate_decides_the_kind() -> None:
    assert kinds(asserting_kernel) == {"out_ptr": POINTER, "count": INT, "scale": FLOAT}


def test_the_seed_of_tl_random_is_an_integer_through_its_helpers() -> None:
    assert kinds(random_kernel) == {"out_ptr": POINTER, "p": FLOAT, "seed": INT}
