"""The Triton-C examples (examples/triton_c/*.tc) against NumPy, on shapes with ragged
edges, and the demo that `make demo` runs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy
import pytest

import blkc.triton_c as tc
from blkc.triton_c.tuning import TritonCKernel

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "triton_c"
rng = numpy.random.default_rng(3)


def example(name: str, **defines: object) -> TritonCKernel:
    return tc.compile(EXAMPLES / f"{name}.tc", defines=defines)[name]  # type: ignore[arg-type]


@pytest.fixture(autouse=True, params=["cpu", "cpu-simt"])
def target(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every example on the CPU, and under cpu-simt (the GPU lowering run on the CPU)."""
    monkeypatch.setenv("BLKC_TARGET", request.param)
    return str(request.param)


@pytest.mark.parametrize(("n", "tm"), [(1, 64), (1000, 128), (4096, 1024), (5000, 512)])
def test_vector_add(n: int, tm: int) -> None:
    x, y = rng.random(n, dtype=numpy.float32), rng.random(n, dtype=numpy.float32)
    z = numpy.zeros(n + 7, numpy.float32)  # past n stays untouched
    example("vector_add", TM=tm)[lambda meta: ((n + meta["TM"] - 1) // meta["TM"],)](x, y, z, n)
    numpy.testing.assert_array_equal(z[:n], x + y)
    assert not z[n:].any()


@pytest.mark.parametrize(("m", "k", "n"), [(32, 16, 32), (100, 70, 90), (1, 5, 3), (65, 33, 17)])
def test_matmul(m: int, k: int, n: int) -> None:
    a = rng.standard_normal((m, k)).astype(numpy.float32)
    b = rng.standard_normal((k, n)).astype(numpy.float32)
    c = numpy.zeros((m, n), numpy.float32)
    example("matmul")[(m + 31) // 32, (n + 31) // 32](a, b, c, m, n, k, k, n, n)
    numpy.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_matmul_half_with_other_tiles() -> None:
    m, k, n = 70, 40, 50
    a = rng.standard_normal((m, k)).astype(numpy.float16)
    b = rng.standard_normal((k, n)).astype(numpy.float16)
    c = numpy.zeros((m, n), numpy.float16)
    example("matmul", TYPE="half", TM=16, TN=64)[(m + 15) // 16, (n + 63) // 64](
        a, b, c, m, n, k, k, n, n
    )
    reference = a.astype(numpy.float32) @ b.astype(numpy.float32)
    numpy.testing.assert_allclose(c.astype(numpy.float32), reference, rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize(("rows", "cols", "tn"), [(7, 1000, 1024), (64, 3, 16), (1, 128, 128)])
def test_softmax(rows: int, cols: int, tn: int) -> None:
    x = rng.standard_normal((rows, cols)).astype(numpy.float32) * 10
    y = numpy.zeros_like(x)
    example("softmax", TN=tn)[(rows,)](x, y, cols, cols)
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    numpy.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(("rows", "cols"), [(8, 128), (13, 1000), (1, 1), (100, 129)])
def test_row_sum(rows: int, cols: int) -> None:
    x = rng.standard_normal((rows, cols)).astype(numpy.float32)
    s = numpy.zeros(rows, numpy.float32)
    example("row_sum")[((rows + 7) // 8,)](x, s, rows, cols, cols)
    numpy.testing.assert_allclose(s, x.sum(axis=1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("m", "n"), [(32, 32), (50, 700), (1, 33), (100, 1)])
def test_transpose(m: int, n: int) -> None:
    x = rng.standard_normal((m, n)).astype(numpy.float32)
    y = numpy.zeros((n, m), numpy.float32)
    example("transpose")[(m + 31) // 32, (n + 31) // 32](x, y, m, n)
    numpy.testing.assert_array_equal(y, x.T)


def test_demo_runs_every_example() -> None:
    spec = importlib.util.spec_from_file_location("triton_c_demo", EXAMPLES / "demo.py")
    assert spec is not None and spec.loader is not None
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    rows = demo.main(size=1 << 12, repeat=1)  # each checks its result against NumPy
    assert [r.name for r in rows] == [
        f"{name}.tc" for name in ("vector_add", "matmul", "softmax", "row_sum", "transpose")
    ]
    assert all(r.blkc_ms > 0 and r.numpy_ms > 0 for r in rows)
