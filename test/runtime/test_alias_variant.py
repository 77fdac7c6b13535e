"""A kernel's variant for overlapping arrays is made only when a launch's arrays overlap
(`backends.cpu.alias_llvm_ir`, from the kernel's strict IR): compiling makes the noalias
variant alone, and a kernel rebuilt from its description (the disk cache, a pickle) makes
the other one the same way."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.backends import TargetOptions


@pytest.fixture(autouse=True)
def _no_disk_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk cache off: where a run before this one (the same tests under memcheck)
    stored the overlapping variant's object code, a launch would load it, not make it."""
    monkeypatch.setenv("BLKC_CACHE", "0")


@blkc.jit
def shift_copy(X, Y, N: tl.constexpr):
    # Reads X's whole block before writing Y: with Y one element past X, the data moves
    # up by one, as Triton's interpreter has it.
    o = tl.arange(0, N)
    x = tl.load(X + o)
    tl.store(Y + o, x * 2)


def _expected(data: numpy.ndarray) -> numpy.ndarray:
    out = data.copy()
    out[1:17] = data[:16] * 2
    return out


def test_the_overlapping_variant_is_made_at_the_first_overlapping_launch() -> None:
    data = numpy.arange(17, dtype=numpy.float32)
    kernel = shift_copy.warmup(data[:16], data[1:], 16, grid=(1,))
    assert set(kernel.program.llvm_variants) == {True}
    assert kernel.to_meta()["program"]["llvm"]["alias"] is None
    apart = numpy.arange(32, dtype=numpy.float32)
    shift_copy[(1,)](apart[:16], apart[16:], 16)
    assert apart[16:].tolist() == (2 * numpy.arange(16)).tolist()
    assert set(kernel.program.llvm_variants) == {True}  # arrays apart: not needed
    expected = _expected(data)
    shift_copy[(1,)](data[:16], data[1:], 16)
    assert data.tolist() == expected.tolist()
    assert set(kernel.program.llvm_variants) == {True, False}
    assert "noalias" not in kernel.program.llvm_variants[False].split("define")[1].split("\n")[0]


def test_a_rebuilt_kernel_makes_it_from_its_strict_ir() -> None:
    data = numpy.arange(17, dtype=numpy.float32)
    compiled = shift_copy.warmup(data[:16], data[1:], 16, grid=(1,))
    meta = compiled.to_meta()
    meta["program"]["llvm"]["alias"] = None
    rebuilt = blkc.Kernel.from_meta(meta, TargetOptions("cpu"))
    expected = _expected(data)
    rebuilt[(1,)](data[:16], data[1:])
    assert data.tolist() == expected.tolist()
    assert set(rebuilt.program.llvm_variants) == {True, False}
