"""What a launch costs: `kernel[grid](*args)` for one program of a 1K vector add (four
arguments), with NumPy arrays (with a tuple grid, with a grid function, and as the same
kernel compiled from blk IR by `blkc.compile`) and with torch CPU tensors, beside
`numpy.add` and `torch.add` of the same 1K arrays, in one process; and a new process's
first launch of a kernel the disk cache holds (a warm start).

    python bench/launch.py [--launches N] [--repeats R]

Each figure is the median, over R repeats, of the mean time of N back-to-back calls (the
first launches, which compile or build a launch stub, are left out). The table prints
microseconds and each launch's ratio to the library call beside it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy

import blkc
import blkc.language as tl


@blkc.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + tl.load(y_ptr + offsets, mask=mask), mask=mask)


VECTOR_ADD_IR = (Path(__file__).resolve().parents[1] / "examples" / "vector_add.mlir").read_text()
"""The same kernel as blk IR (`examples/vector_add.mlir`), compiled by `blkc.compile`."""


def per_call_us(call: Callable[[], object], launches: int, repeats: int) -> float:
    for _ in range(3):
        call()
    means = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        for _ in range(launches):
            call()
        means.append((time.perf_counter_ns() - start) / launches / 1000)
    return statistics.median(means)


WARM = """
import sys, time
start = time.perf_counter()
import numpy, blkc, blkc.language as tl
imported = time.perf_counter()
sys.path.insert(0, {here!r})
from launch_kernel import add
x = numpy.ones(1024, numpy.float32)
out = numpy.empty_like(x)
before = time.perf_counter()
add[(1,)](x, x, out, 1024, BLOCK=1024)
done = time.perf_counter()
assert (out == 2).all()
print(f"{{(imported - start) * 1e3:.1f}} {{(done - before) * 1e3:.1f}}")
"""

KERNEL = """
import blkc
import blkc.language as tl


@blkc.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + tl.load(y_ptr + offsets, mask=mask), mask=mask)
"""


def warm_start() -> tuple[float, float]:
    """`import blkc` + `blkc.language`, and the first launch, in ms, in a new process
    whose kernel is in the disk cache (a first process put it there)."""
    with tempfile.TemporaryDirectory() as here:
        Path(here, "launch_kernel.py").write_text(KERNEL)
        env = {**os.environ, "BLKC_CACHE_DIR": str(Path(here, "cache"))}
        # Bytecode cached as an installed blkc has it, even where PYTHONDONTWRITEBYTECODE
        # is set (as `bench/startup.py` does): the first process writes it.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(here, "bytecode"))
        script = WARM.format(here=here)
        runs = []
        for _ in range(4):
            result = subprocess.run(
                [sys.executable, "-c", script], capture_output=True, text=True, env=env
            )
            if result.returncode:
                raise SystemExit(result.stderr)
            runs.append(tuple(float(v) for v in result.stdout.split()))
        warm = runs[1:]  # the first process compiled
        return statistics.median(r[0] for r in warm), statistics.median(r[1] for r in warm)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    x, y = numpy.random.rand(2, 1024).astype(numpy.float32)
    out = numpy.empty_like(x)
    compiled = blkc.compile(VECTOR_ADD_IR)
    rows = [
        ("blkc launch, NumPy arrays", lambda: add[(1,)](x, y, out, 1024, BLOCK=1024)),
        ("blkc launch, grid function", lambda: add[lambda m: (1,)](x, y, out, 1024, BLOCK=1024)),
        ("blkc.compile kernel launch", lambda: compiled[(1,)](x, y, out, 1024)),
        ("numpy.add", lambda: numpy.add(x, y, out=out)),
    ]
    try:
        import torch

        tx, ty, tout = torch.from_numpy(x), torch.from_numpy(y), torch.empty(1024)
        rows += [
            ("blkc launch, torch tensors", lambda: add[(1,)](tx, ty, tout, 1024, BLOCK=1024)),
            ("torch.add", lambda: torch.add(tx, ty, out=tout)),
        ]
    except ImportError:
        pass
    times = {name: per_call_us(call, args.launches, args.repeats) for name, call in rows}
    print(f"{'call':30} {'us':>8} {'x library':>10}")
    for name, us in times.items():
        library = None
        if name.startswith("blkc"):
            library = "torch.add" if "torch" in name else "numpy.add"
        ratio = f"{us / times[library]:.1f}" if library else ""
        print(f"{name:30} {us:8.2f} {ratio:>10}")
    imported, first = warm_start()
    print(f"warm start: import blkc + blkc.language {imported:.0f} ms, first launch {first:.1f} ms")


if __name__ == "__main__":
    main()
