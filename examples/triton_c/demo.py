"""The Triton-C examples: compile each `.tc` kernel, run it on NumPy data, check the
result against NumPy and time it.

    python examples/triton_c/demo.py        # or main() from examples/demo.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy

import blkc.triton_c

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the timing helpers the Python examples share
from _timing import Row, measure, one_blas_thread, print_rows  # noqa: E402


def load(name: str, **defines: object) -> blkc.triton_c.TritonCKernel:
    """The kernel `name` of examples/triton_c/`name`.tc, compiled for `defines`."""
    return blkc.triton_c.compile(HERE / f"{name}.tc", defines=defines)[name]  # type: ignore[arg-type]


def main(size: int = 1 << 20, repeat: int = 5) -> list[Row]:
    """Run every Triton-C example against NumPy (`size` elements for the 1-D ones); return
    the timings as `_timing.Row`s."""
    rng = numpy.random.default_rng(0)
    x, y = rng.random(size, dtype=numpy.float32), rng.random(size, dtype=numpy.float32)
    z = numpy.empty_like(x)
    add = load("vector_add", TM=1024)[(size + 1023) // 1024,]
    rows = [
        measure(
            "vector_add.tc", f"{size} f32", lambda: add(x, y, z, size),
            lambda: numpy.testing.assert_array_equal(z, x + y), lambda: x + y, repeat,
        )
    ]

    m, k, n = 300, 200, 250
    a = rng.standard_normal((m, k)).astype(numpy.float32)
    b = rng.standard_normal((k, n)).astype(numpy.float32)
    c = numpy.empty((m, n), numpy.float32)
    matmul = load("matmul")[(m + 31) // 32, (n + 31) // 32]
    with one_blas_thread():
        rows.append(
            measure(
                "matmul.tc", f"{m}x{k} @ {k}x{n} f32", lambda: matmul(a, b, c, m, n, k, k, n, n),
                lambda: numpy.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4),
                lambda: a @ b, repeat,
            )
        )

    data = rng.standard_normal((4096, 1000)).astype(numpy.float32)
    probs = numpy.empty_like(data)
    softmax = load("softmax", TN=1024)[4096,]

    def softmax_ref() -> numpy.ndarray:
        e = numpy.exp(data - data.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    rows.append(
        measure(
            "softmax.tc", "4096x1000 f32", lambda: softmax(data, probs, 1000, 1000),
            lambda: numpy.testing.assert_allclose(probs, softmax_ref(), rtol=1e-5, atol=1e-7),
            softmax_ref, repeat,
        )
    )

    sums = numpy.empty(4096, numpy.float32)
    row_sum = load("row_sum")[4096 // 8,]
    rows.append(
        measure(
            "row_sum.tc", "4096x1000 f32", lambda: row_sum(data, sums, 4096, 1000, 1000),
            lambda: numpy.testing.assert_allclose(sums, data.sum(axis=1), rtol=1e-4, atol=1e-3),
            lambda: data.sum(axis=1), repeat,
        )
    )

    tm, tn = 1000, 700
    source = rng.standard_normal((tm, tn)).astype(numpy.float32)
    flipped = numpy.empty((tn, tm), numpy.float32)
    transpose = load("transpose")[(tm + 31) // 32, (tn + 31) // 32]
    rows.append(
        measure(
            "transpose.tc", f"{tm}x{tn} f32", lambda: transpose(source, flipped, tm, tn),
            lambda: numpy.testing.assert_array_equal(flipped, source.T),
            lambda: numpy.ascontiguousarray(source.T), repeat,
        )
    )
    return rows


if __name__ == "__main__":
    print_rows(main())
