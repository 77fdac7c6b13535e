"""Kernels run on the GPU through the CUDA driver: only where one is present."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import blkc
from blkc.runtime import cuda_launch

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytestmark = pytest.mark.skipif(
    not cuda_launch.available(), reason="needs cuda-python, a CUDA driver and a GPU"
)


def test_vector_add_on_the_device() -> None:
    kernel = blkc.compile((EXAMPLES / "vector_add.mlir").read_text(), target="ptx")
    n = 5000
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(n, -1.0, np.float32)
    kernel[((n + 1023) // 1024,)](x, y, out, n)
    np.testing.assert_array_equal(out, x + y)


def test_softmax_on_the_device() -> None:
    kernel = blkc.compile((EXAMPLES / "softmax.mlir").read_text(), target="ptx")
    rows, cols = 4, 1000
    x = np.random.default_rng(1).standard_normal((rows, cols)).astype(np.float32)
    y = np.zeros_like(x)
    kernel[(rows,)](x, y, cols, cols)
    expected = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, expected / expected.sum(axis=1, keepdims=True), rtol=1e-5)
