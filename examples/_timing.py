"""What the Python examples share: timing a kernel against NumPy, and the row it reports.

Each example's `main()` calls `measure` with a launch, a check and the NumPy computation
the check compares with, and returns the rows; `print_rows` prints them as a table.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import blkc.kernel
from blkc.runtime.cpu_target import model_name


@dataclass(frozen=True)
class Row:
    """One kernel's measurements: times in milliseconds, each the best of several runs."""

    name: str
    shape: str
    blkc_ms: float
    numpy_ms: float
    compile_ms: float
    """The first launch's time beyond a steady launch: building IR, the passes, LLVM."""
    cached: bool
    """Whether the first launch found its kernel already compiled (in memory or on disk),
    so that `compile_ms` is not a cold compile."""

    @property
    def speedup(self) -> float:
        """How many times faster blkc ran than NumPy."""
        return self.numpy_ms / self.blkc_ms


def best_ms(run: Callable[[], object], repeat: int, min_seconds: float = 0.05) -> float:
    """The fastest call of `run` (already warm), in milliseconds: at least `repeat` calls,
    more until `min_seconds` have passed, since one slow call in a few is common on a
    shared machine while short kernels run in microseconds."""
    best = float("inf")
    calls = 0
    deadline = time.perf_counter() + min_seconds
    while calls < repeat or time.perf_counter() < deadline:
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
        calls += 1
    return best * 1e3


def measure(
    name: str,
    shape: str,
    launch: Callable[[], object],
    check: Callable[[], None],
    reference: Callable[[], object],
    repeat: int = 5,
) -> Row:
    """Launch once (compiling), `check` the outputs (it raises on a mismatch), then time
    `launch` against the NumPy `reference`, each warm (see `best_ms`)."""
    builds = blkc.kernel.builds
    start = time.perf_counter()
    launch()
    first_ms = (time.perf_counter() - start) * 1e3
    cached = blkc.kernel.builds == builds
    check()
    blkc_ms = best_ms(launch, repeat)
    reference()
    numpy_ms = best_ms(reference, repeat)
    return Row(name, shape, blkc_ms, numpy_ms, max(first_ms - blkc_ms, 0.0), cached)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """NumPy's BLAS on one thread, when threadpoolctl is installed (as bench/run.py times
    it): on a busy 2-core machine OpenBLAS's threads wait for each other, and a 0.2 ms
    matmul takes 12."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1):
        yield


def format_rows(rows: list[Row]) -> str:
    """The rows as an aligned table with speed-ups (> 1: blkc is faster than NumPy)."""
    header = (
        f"{'kernel':28} {'shape':26} {'blkc ms':>9} {'numpy ms':>9} {'x numpy':>8} "
        f"{'compile ms':>12}"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        compile_ms = f"{r.compile_ms:.0f}" + (" (cached)" if r.cached else "")
        lines.append(
            f"{r.name:28} {r.shape:26} {r.blkc_ms:9.3f} {r.numpy_ms:9.3f} "
            f"{r.speedup:8.2f} {compile_ms:>12}"
        )
    return "\n".join(lines)


def print_rows(rows: list[Row]) -> None:
    print(f"   measured on {machine()}")
    print(format_rows(rows))


def machine() -> str:
    """The CPU the ratios come from: its model, LLVM's name for it, the cores used and its
    widest vector instructions (the ratios depend on them: `tl.dot` most)."""
    import llvmlite.binding as llvm

    from blkc.runtime.jit import initialize

    initialize()
    features = llvm.get_host_cpu_features()
    widest = next(
        (name for flag, name in VECTOR_UNITS if features.get(flag, False)), "no AVX2 or AVX-512"
    )
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model_name()} ({llvm.get_host_cpu_name()}), {cores} cores, {widest}"


VECTOR_UNITS = (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("sve", "SVE"), ("neon", "NEON"))
"""LLVM's feature flag for each vector instruction set, widest first."""
