"""The main job: compile the example kernels, show what the passes do, run them on NumPy
data, check the results and time them.

    python examples/demo.py
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy

import blkc

HERE = Path(__file__).resolve().parent
rng = numpy.random.default_rng(0)


def load(name: str) -> blkc.Kernel:
    path = HERE / f"{name}.mlir"
    return blkc.compile(path.read_text(), filename=str(path))


def timed(label: str, run, check) -> None:  # type: ignore[no-untyped-def]
    run()
    start = time.perf_counter()
    run()
    ms = (time.perf_counter() - start) * 1000
    check()
    print(f"  {label:44} {ms:8.3f} ms   matches NumPy")


def show_passes() -> None:
    kernel = load("mixed_chain")
    wanted = ("%sum", "%prod", "implicit")

    def pick(text: str) -> str:
        return "\n".join(line for line in text.splitlines() if any(w in line for w in wanted))

    print("== mixed_chain.mlir, loose (as written): operands of different dtypes ==")
    print(pick(kernel.asm["loose"]))
    print("== after to-strict{policy=triton}: the implicit casts are explicit ==")
    print(pick(kernel.asm["strict"]))
    print()


def main() -> None:
    show_passes()
    print("== example kernels on all cores ==")
    n = 1 << 22
    x, y = rng.random(n, dtype=numpy.float32), rng.random(n, dtype=numpy.float32)
    out = numpy.empty_like(x)
    add = load("vector_add")[((n + 1023) // 1024,)]
    timed(
        f"vector_add  n={n}",
        lambda: add(x, y, out, n),
        lambda: numpy.testing.assert_array_equal(out, x + y),
    )

    a = rng.integers(-100, 100, n).astype(numpy.int32)
    b = rng.random(n).astype(numpy.float16)
    c = rng.integers(0, 255, n).astype(numpy.uint8)
    chain = load("mixed_chain")[((n + 2047) // 2048,)]
    timed(
        "mixed_chain (i32 + f16) * u8",
        lambda: chain(a, b, c, out, n),
        lambda: numpy.testing.assert_allclose(out, (a + b.astype(numpy.float32)) * c, rtol=1e-6),
    )

    rows = rng.standard_normal((4096, 1000)).astype(numpy.float32)
    probs = numpy.empty_like(rows)
    softmax = load("softmax")[(4096,)]

    def softmax_ref() -> numpy.ndarray:
        e = numpy.exp(rows - rows.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    timed(
        "softmax 4096x1000",
        lambda: softmax(rows, probs, 1000, 1000),
        lambda: numpy.testing.assert_allclose(probs, softmax_ref(), rtol=1e-5, atol=1e-7),
    )

    w, bias = (
        rng.standard_normal(1000).astype(numpy.float32),
        rng.standard_normal(1000).astype(numpy.float32),
    )
    normed = numpy.empty_like(rows)
    layernorm = load("layernorm")[(4096,)]

    def layernorm_ref() -> numpy.ndarray:
        mean = rows.mean(axis=1, keepdims=True)
        var = rows.var(axis=1, keepdims=True)
        return (rows - mean) / numpy.sqrt(var + 1e-5) * w + bias

    timed(
        "layernorm 4096x1000",
        lambda: layernorm(rows, normed, w, bias, 1000, 1000, 1e-5),
        lambda: numpy.testing.assert_allclose(normed, layernorm_ref(), rtol=1e-4, atol=1e-4),
    )

    m, k_, n_ = 300, 200, 250
    lhs = rng.standard_normal((m, k_)).astype(numpy.float32)
    rhs = rng.standard_normal((k_, n_)).astype(numpy.float32)
    prod = numpy.empty((m, n_), numpy.float32)
    matmul = load("matmul")[((m + 31) // 32, (n_ + 31) // 32)]
    timed(
        f"matmul {m}x{k_} @ {k_}x{n_}",
        lambda: matmul(lhs, rhs, prod, m, n_, k_),
        lambda: numpy.testing.assert_allclose(prod, lhs @ rhs, rtol=1e-4, atol=1e-4),
    )

    total = numpy.zeros(1, numpy.float32)
    sum_kernel = load("sum")[((n + 4095) // 4096,)]

    def run_sum() -> None:
        total[0] = 0
        sum_kernel(x, total, n)

    timed(
        f"sum n={n}",
        run_sum,
        lambda: numpy.testing.assert_allclose(total[0], x.sum(dtype=numpy.float64), rtol=1e-4),
    )


if __name__ == "__main__":
    main()
