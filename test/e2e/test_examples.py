"""The example kernels, compiled for the CPU and run on NumPy data."""

import re
from pathlib import Path

import numpy
import pytest

import blkc

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def compile_example(name: str) -> blkc.Kernel:
    return blkc.compile((EXAMPLES / name).read_text(), filename=str(EXAMPLES / name))


@pytest.mark.parametrize("n", [1, 1000, 1024, 5000])
def test_vector_add_with_masked_tail(n: int) -> None:
    rng = numpy.random.default_rng(n)
    x, y = rng.random(n, dtype=numpy.float32), rng.random(n, dtype=numpy.float32)
    out = numpy.full(n + 7, -1.0, numpy.float32)  # the kernel must not write past n
    compile_example("vector_add.mlir")[((n + 1023) // 1024,)](x, y, out, n)
    numpy.testing.assert_array_equal(out[:n], x + y)
    assert (out[n:] == -1.0).all()


def test_vector_add_in_place_aliasing() -> None:
    x = numpy.arange(3000, dtype=numpy.float32)
    expected = x + x
    compile_example("vector_add.mlir")[(3,)](x, x, x, 3000)
    numpy.testing.assert_array_equal(x, expected)


@pytest.mark.parametrize("cols", [1, 700, 1024])
def test_softmax_rows(cols: int) -> None:
    x = numpy.random.default_rng(0).standard_normal((33, cols)).astype(numpy.float32) * 5
    y = numpy.zeros_like(x)
    compile_example("softmax.mlir")[(33,)](x, y, cols, cols)
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    numpy.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(("m", "n", "k"), [(32, 32, 32), (100, 70, 50), (1, 65, 3)])
def test_matmul_tiles_with_masked_edges(m: int, n: int, k: int) -> None:
    rng = numpy.random.default_rng(m * n * k)
    a = rng.standard_normal((m, k)).astype(numpy.float32)
    b = rng.standard_normal((k, n)).astype(numpy.float32)
    c = numpy.full((m, n), numpy.nan, numpy.float32)
    compile_example("matmul.mlir")[((m + 31) // 32, (n + 31) // 32)](a, b, c, m, n, k)
    numpy.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_kernel_arguments_are_checked() -> None:
    kernel = compile_example("vector_add.mlir")
    x = numpy.zeros(4, numpy.float32)
    with pytest.raises(TypeError, match="points to float32, but the array holds float64"):
        kernel[(1,)](x, numpy.zeros(4), x, 4)
    with pytest.raises(TypeError, match="takes 4 arguments, got 3"):
        kernel[(1,)](x, x, x)
    with pytest.raises(OverflowError, match="out of range for int32"):
        kernel[(1,)](x, x, x, 2**40)
    with pytest.raises(ValueError, match="a grid has 1 to 3 axes"):
        kernel[(1, 1, 1, 1)](x, x, x, 4)


def test_compiled_kernels_are_cached_in_memory() -> None:
    assert compile_example("softmax.mlir") is compile_example("softmax.mlir")


def test_stages_are_available() -> None:
    stages = compile_example("vector_add.mlir").asm
    assert "blk.literal" in stages["loose"]
    assert "blk.literal" not in stages["strict"] and "blk.splat" in stages["strict"]
    assert "scf.for" in stages["loops"] and "tensor<" not in stages["loops"]
    assert "define" in stages["llvm"]
    assert "vector_add__grid" in stages["asm"]


def test_out_of_bounds_accesses_are_skipped_and_reported() -> None:
    kernel = compile_example("vector_add.mlir")
    x, y = numpy.ones(100, numpy.float32), numpy.ones(100, numpy.float32)
    out = numpy.zeros(100, numpy.float32)
    guard = numpy.full(1000, 7.0, numpy.float32)  # memory a wild store could hit
    with pytest.raises(IndexError, match="accessed memory outside the arrays it was given"):
        kernel[(1,)](x, y, out, 5000)  # the mask lets lanes 100..1023 through
    numpy.testing.assert_array_equal(out, 2.0)  # the lanes inside were computed
    assert (guard == 7.0).all()
    kernel[(1,)](x, y, out, 100)  # the next launch starts clean


def test_bounds_checks_can_be_turned_off() -> None:
    text = (EXAMPLES / "vector_add.mlir").read_text()
    checked = blkc.compile(text, check_bounds=True)
    unchecked = blkc.compile(text, check_bounds=False)
    assert checked is not unchecked
    x = numpy.arange(2048, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    unchecked[(2,)](x, x, out, 2048)
    numpy.testing.assert_array_equal(out, 2 * x)
    # A checked access that fails branches to a block recording it in the launch's bounds
    # table (atomically: several threads run one launch); without checks nothing does.
    records_errors = re.compile(r"atomicrmw or ptr %\S+, i64 1 monotonic")
    assert records_errors.search(checked.asm["llvm"])
    assert not records_errors.search(unchecked.asm["llvm"])
    assert "errors.record" in checked.asm["llvm"]
    assert "errors.record" not in unchecked.asm["llvm"]
