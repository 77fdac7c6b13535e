"""The main job (`make demo`): show what the passes do, then compile every example kernel,
run it on random NumPy data, check it against NumPy and time it, and print one table.

The examples: the loose-IR kernels `examples/*.mlir`, the Python kernels `examples/*.py`
(Triton's language, `@blkc.jit`), and the Triton-C kernels of `examples/triton_c/` when
that folder has its demo.

    python examples/demo.py
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import int_division
import layernorm
import matmul
import mixed_dtypes
import numpy
import softmax
import vector_add
from _timing import Row, measure, one_blas_thread, print_rows

import blkc

HERE = Path(__file__).resolve().parent
TRITON_C_DEMO = HERE / "triton_c" / "demo.py"

PYTHON_EXAMPLES: list[Callable[[], list[Row]]] = [
    vector_add.main,
    softmax.main,
    matmul.main,
    layernorm.main,
    mixed_dtypes.main,
    int_division.main,
]
"""Each Python example's `main` at its default sizes: it checks and times its kernels."""


def load(name: str) -> blkc.Kernel:
    path = HERE / f"{name}.mlir"
    return blkc.compile(path.read_text(), filename=str(path))


def pick(text: str, wanted: tuple[str, ...]) -> str:
    return "\n".join(line for line in text.splitlines() if any(w in line for w in wanted))


def arithmetic(text: str) -> str:
    """The lines of `text` after the last load up to the next pointer: the mixed-dtype
    kernel's arithmetic."""
    lines = text.splitlines()
    start = max(i for i, line in enumerate(lines) if "blk.load" in line) + 1
    end = next(i for i in range(start, len(lines)) if "!blk.ptr" in lines[i])
    return "\n".join(lines[start:end])


def show_passes() -> None:
    kernel = load("mixed_chain")
    print("== mixed_chain.mlir, loose (as written): operands of different dtypes ==")
    print(pick(kernel.asm["loose"], ("%sum", "%prod")))
    print("== after to-strict{policy=triton}: the implicit casts are explicit ==")
    print(pick(kernel.asm["strict"], ("%sum", "%prod", "implicit")))

    n = 1024
    args = mixed_dtypes.inputs(n)
    stages = {}
    for policy in mixed_dtypes.POLICIES:
        outputs = [numpy.empty(n, dtype) for dtype in mixed_dtypes.result_dtypes(policy)]
        stages[policy] = mixed_dtypes.mixed_kernel.warmup(
            *args, *outputs, n, BLOCK_SIZE=1024, policy=policy
        ).asm
    print("== examples/mixed_dtypes.py: the result dtype of each operation, per policy ==")
    print(mixed_dtypes.describe())
    print("== its kernel's arithmetic, loose (from the Python source, policy triton) ==")
    print(arithmetic(stages["triton"]["loose"]))
    for policy in mixed_dtypes.POLICIES:
        print(f"== after to-strict{{policy={policy}}} ==")
        print(arithmetic(stages[policy]["strict"]))
    print()


def mlir_examples(n: int = 1 << 22) -> list[Row]:
    """Run the `.mlir` examples; one row each."""
    rng = numpy.random.default_rng(0)
    rows = []
    x, y = rng.random(n, dtype=numpy.float32), rng.random(n, dtype=numpy.float32)
    out = numpy.empty_like(x)
    grid = ((n + 1023) // 1024,)
    rows.append(
        measure(
            "vector_add.mlir",
            f"{n} f32",
            lambda: load("vector_add")[grid](x, y, out, n),
            lambda: numpy.testing.assert_array_equal(out, x + y),
            lambda: numpy.add(x, y, out=out),
        )
    )

    a = rng.integers(-100, 100, n).astype(numpy.int32)
    b = rng.random(n).astype(numpy.float16)
    c = rng.integers(0, 255, n).astype(numpy.uint8)

    def chain_reference() -> numpy.ndarray:
        return (a + b.astype(numpy.float32)) * c

    rows.append(
        measure(
            "mixed_chain.mlir",
            f"{n} (i32 + f16) * u8",
            lambda: load("mixed_chain")[((n + 2047) // 2048,)](a, b, c, out, n),
            lambda: numpy.testing.assert_allclose(out, chain_reference(), rtol=1e-6),
            chain_reference,
        )
    )

    table = rng.standard_normal((4096, 1000)).astype(numpy.float32)
    probs = numpy.empty_like(table)
    rows.append(
        measure(
            "softmax.mlir",
            "4096x1000 f32",
            lambda: load("softmax")[(4096,)](table, probs, 1000, 1000),
            lambda: numpy.testing.assert_allclose(
                probs, softmax.softmax_reference(table), rtol=1e-5, atol=1e-7
            ),
            lambda: softmax.softmax_reference(table),
        )
    )

    w = rng.standard_normal(1000).astype(numpy.float32)
    bias = rng.standard_normal(1000).astype(numpy.float32)
    normed = numpy.empty_like(table)
    rows.append(
        measure(
            "layernorm.mlir",
            "4096x1000 f32",
            lambda: load("layernorm")[(4096,)](table, normed, w, bias, 1000, 1000, 1e-5),
            lambda: numpy.testing.assert_allclose(
                normed,
                layernorm.layer_norm_reference(table, w, bias, 1e-5)[0],
                rtol=1e-4,
                atol=1e-4,
            ),
            lambda: layernorm.layer_norm_reference(table, w, bias, 1e-5),
        )
    )

    m, k, n_ = 300, 200, 250
    lhs = rng.standard_normal((m, k)).astype(numpy.float32)
    rhs = rng.standard_normal((k, n_)).astype(numpy.float32)
    prod = numpy.empty((m, n_), numpy.float32)
    with one_blas_thread():
        rows.append(
            measure(
                "matmul.mlir",
                f"{m}x{k} @ {k}x{n_} f32",
                lambda: load("matmul")[((m + 31) // 32, (n_ + 31) // 32)](lhs, rhs, prod, m, n_, k),
                lambda: numpy.testing.assert_allclose(prod, lhs @ rhs, rtol=1e-4, atol=1e-4),
                lambda: numpy.matmul(lhs, rhs, out=prod),
            )
        )

    total = numpy.zeros(1, numpy.float32)

    def run_sum() -> None:
        total[0] = 0
        load("sum")[((n + 4095) // 4096,)](x, total, n)

    rows.append(
        measure(
            "sum.mlir",
            f"{n} f32",
            run_sum,
            lambda: numpy.testing.assert_allclose(total[0], x.sum(dtype=numpy.float64), rtol=1e-4),
            x.sum,
        )
    )
    return rows


@contextmanager
def cold_compiles() -> Iterator[None]:
    """Turn the disk cache off, so that the table's compile times are cold ones."""
    saved = os.environ.get("BLKC_CACHE")
    os.environ["BLKC_CACHE"] = "0"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["BLKC_CACHE"]
        else:
            os.environ["BLKC_CACHE"] = saved


def report(rows: list[Row]) -> None:
    for row in rows:
        print(f"  {row.name:28} {row.shape:26} matches NumPy")


def triton_c_examples() -> list[Row]:
    """The Triton-C examples, run by examples/triton_c/demo.py's `main()`; its rows join
    the table."""
    spec = importlib.util.spec_from_file_location("triton_c_demo", TRITON_C_DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows: list[Row] = module.main()
    return rows


def main() -> None:
    rows: list[Row] = []
    with cold_compiles():
        print("== examples/*.mlir (loose blk IR) on all cores ==")
        rows += mlir_examples()
        report(rows)
        print("== examples/*.py (@blkc.jit kernels in Triton's language) on all cores ==")
        for example in PYTHON_EXAMPLES:
            example_rows = example()
            report(example_rows)
            rows += example_rows
        print("== examples/triton_c/*.tc (Triton-C kernels) on all cores ==")
        triton_c_rows = triton_c_examples()
        report(triton_c_rows)
        rows += triton_c_rows
    print()
    show_passes()  # after the runs: their kernels are compiled by now, and the times cold
    print("== all examples: best of at least 5 warm runs, x numpy > 1: blkc is faster ==")
    print("   (NumPy's matmul on one BLAS thread; compile ms: first launch minus a warm one)")
    print_rows(rows)


if __name__ == "__main__":
    main()
