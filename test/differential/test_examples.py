"""Every example kernel, compiled and interpreted on the same inputs, writes the same values.

Integers compare bit for bit, and so do floats computed by correctly rounded IEEE
operations alone (`vector_add`, `mixed_chain`). Where the two sides may round
differently, each case states its bound, per element, in units of the float32 unit
roundoff ``u = 2**-24``:

- a float sum (`blk.reduce sum`, `blk.dot`, and the atomic adds of `sum`) is
  reassociated by the compiled code (vectorized, or in any order across programs) while
  the interpreter sums as NumPy does; either order is within ``(n - 1) u sum(|x|)`` of the
  exact sum, so the two are within ``2 n u sum(|x|)`` of each other;
- `blk.exp` on float32 is within 3 ulp (``6 u`` relative) of NumPy's in the compiled
  code, and the interpreter's is correctly rounded (``u``);
- division, square root and subtraction of the same values round the same on both sides:
  they only pass the errors above on (scaled by the operation's condition number).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from .harness import Argument, Bound, assert_same, random_values, run_both, unit_roundoff

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
F32 = np.dtype(np.float32)
U = unit_roundoff(F32)


@dataclass
class Case:
    """One launch of an example: its grid, its arguments, and the bounds of the float
    arrays that are not compared bit for bit (by argument position)."""

    grid: tuple[int, ...]
    args: list[Argument]
    bounds: dict[int, Bound] = field(default_factory=dict)


CaseMaker = Callable[[np.random.Generator], Case]


def vector_add(rng: np.random.Generator) -> Case:
    n = int(rng.integers(1, 5000))
    x, y = random_values(rng, F32, (n,)), random_values(rng, F32, (n,))
    return Case(((n + 1023) // 1024,), [x, y, np.full(n, -1.0, np.float32), n])


def mixed_chain(rng: np.random.Generator) -> Case:
    n = int(rng.integers(1, 6000))
    a = random_values(rng, np.dtype(np.int32), (n,))  # beyond 2**24: rounds, once
    b = random_values(rng, np.dtype(np.float16), (n,))
    c = random_values(rng, np.dtype(np.uint8), (n,))
    return Case(((n + 2047) // 2048,), [a, b, c, np.full(n, -1.0, np.float32), n])


def _rows(rng: np.random.Generator) -> tuple[int, int, int]:
    """Rows, columns (at most the kernels' 1024) and a row stride of at least the columns."""
    rows, cols = int(rng.integers(1, 9)), int(rng.integers(1, 1025))
    return rows, cols, cols + int(rng.integers(0, 3))


def softmax(rng: np.random.Generator) -> Case:
    rows, cols, stride = _rows(rng)
    x = (rng.standard_normal((rows, stride)) * 10).astype(np.float32)
    y = np.full((rows, stride), -1.0, np.float32)
    # Each e = exp(x - max) is within 6u of the other side's (3 ulp against u), the sum of
    # the positive e's within 2 cols u relatively, the division adds u on each side.
    rtol = (2 * cols + 8) * U
    expected = np.exp(x[:, :cols].astype(np.float64) - x[:, :cols].max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    bound = np.zeros((rows, stride))
    bound[:, :cols] = rtol * expected
    return Case((rows,), [x, y, stride, cols], {1: bound})


def layernorm(rng: np.random.Generator) -> Case:
    rows, cols, stride = _rows(rng)
    x = (rng.standard_normal((rows, stride)) * 3 + rng.normal(0, 3)).astype(np.float32)
    w, b = (
        rng.standard_normal(1024).astype(np.float32),
        rng.standard_normal(1024).astype(np.float32),
    )
    y = np.full((rows, stride), -1.0, np.float32)
    eps = 1e-5
    # First-order error analysis, per side: the mean is off by at most u sum|x| (the
    # reassociated sum, divided by cols) plus u |mean|; x - mean carries that error; the
    # variance, a sum of cols positive squares, and so rstd, are off by (cols + 4) u
    # relatively; the scale and shift add 2u |y| + u |b|. Twice that bounds the gap.
    wide = x[:, :cols].astype(np.float64)
    mean = wide.mean(axis=1, keepdims=True)
    centered = wide - mean
    rstd = 1 / np.sqrt((centered**2).mean(axis=1, keepdims=True) + eps)
    exact = centered * rstd * w[:cols] + b[:cols]
    mean_error = U * (np.abs(wide).sum(axis=1, keepdims=True) + np.abs(mean))
    bound = np.zeros((rows, stride))
    bound[:, :cols] = 2 * (
        rstd * np.abs(w[:cols]) * (mean_error + (cols + 8) * U * np.abs(centered))
        + 2 * U * np.abs(exact)
        + U * np.abs(b[:cols])
    )
    return Case((rows,), [x, y, w, b, stride, cols, eps], {1: bound})


def matmul(rng: np.random.Generator) -> Case:
    m, n, k = (int(rng.integers(1, 80)) for _ in range(3))
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    # Each side's dot is within k u (|a| @ |b|) of the exact product.
    bound = 2 * (k + 1) * U * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    return Case(((m + 31) // 32, (n + 31) // 32), [a, b, c, m, n, k], {2: bound})


def sum_(rng: np.random.Generator) -> Case:
    n = int(rng.integers(1, 20000))
    x = (rng.standard_normal(n) * 10).astype(np.float32)
    out = np.zeros(1, np.float32)
    # Partial sums per program, reassociated, then atomic adds in any order.
    bound = 2 * n * U * float(np.abs(x).astype(np.float64).sum())
    return Case(((n + 4095) // 4096,), [x, out, n], {1: bound})


CASES: dict[str, CaseMaker] = {
    "vector_add.mlir": vector_add,
    "mixed_chain.mlir": mixed_chain,
    "softmax.mlir": softmax,
    "layernorm.mlir": layernorm,
    "matmul.mlir": matmul,
    "sum.mlir": sum_,
}
SEEDS = range(3)


def test_every_example_has_a_case() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.mlir")) == sorted(CASES)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("example", sorted(CASES))
def test_compiled_example_matches_the_interpreter(example: str, seed: int, target: str) -> None:
    path = EXAMPLES / example
    case = CASES[example](np.random.default_rng(seed))
    interpreted, compiled = run_both(
        path.read_text(), case.grid, case.args, str(path), target=target
    )
    array_positions = [i for i, a in enumerate(case.args) if isinstance(a, np.ndarray)]
    for position, i, c in zip(array_positions, interpreted, compiled, strict=True):
        assert_same(f"{example} argument {position}", i, c, case.bounds.get(position))
