"""What starting costs, each figure the median over fresh processes, against issue 12's
targets: `import blkc` + `blkc.language`; the first launch of a vector add the disk cache
holds (a warm start) and the second, which builds its launch stub; the first launch of one
large enough for the native pool, which it starts (the pool's code from the disk cache
too; the figure includes the add itself); and cold compiles from source to a callable
(`warmup`, native code included) of a vector add and a row softmax, with an empty disk
cache, after a first kernel has compiled in that process (so the compiler's modules are
imported: that first compile is shown too).

    python bench/startup.py [--runs N] [--no-bytecode-cache]

The processes cache Python bytecode in a temporary folder (a first process writes it), as
an installed blkc has its .pyc files, even where PYTHONDONTWRITEBYTECODE is set;
`--no-bytecode-cache` runs them with the environment as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from blkc.runtime.cpu_target import model_name

KERNELS = """
import blkc
import blkc.language as tl


@blkc.jit
def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n), mask=o < n)


@blkc.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)


@blkc.jit
def softmax(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)
"""

WARM = """
import json, time
start = time.perf_counter()
import numpy
numpy_done = time.perf_counter()
import blkc, blkc.language
imported = time.perf_counter()
from startup_kernels import add
n = {elements}
x = numpy.ones(n, numpy.float32)
out = numpy.empty_like(x)
before = time.perf_counter()
add[(blkc.cdiv(n, 1024),)](x, x, out, n, BLOCK=1024)
first = time.perf_counter()
add[(blkc.cdiv(n, 1024),)](x, x, out, n, BLOCK=1024)
second = time.perf_counter()
assert (out == 2).all()
ms = lambda a, b: (b - a) * 1e3
print(json.dumps({{"numpy": ms(start, numpy_done), "import": ms(start, imported),
                  "first": ms(before, first), "second": ms(first, second)}}))
"""

SMALL, LARGE = 1000, 1 << 20
"""Elements of the warm starts' vector adds: one on the calling thread, one large enough
for the native pool (12 MiB of arrays), which it starts."""

COLD = """
import json, time
import numpy, blkc, blkc.language
from startup_kernels import add, copy, softmax
x = numpy.ones(1000, numpy.float32)
y, out = numpy.ones_like(x), numpy.empty_like(x)
rows = numpy.random.rand(64, 1000).astype(numpy.float32)
start = time.perf_counter()
copy.warmup(x, out, 1000, BLOCK=1024)  # imports the compiler
compiled = time.perf_counter()
if {softmax!r}:
    softmax.warmup(numpy.empty_like(rows), rows, 1000, 1000, BLOCK=1024)
else:
    add.warmup(x, y, out, 1000, BLOCK=1024)
done = time.perf_counter()
print(json.dumps({{"first": (compiled - start) * 1e3, "cold": (done - compiled) * 1e3}}))
"""

TARGETS = {"import": 100.0, "first": 20.0, "add": 100.0, "softmax": 100.0}


def run(script: str, env: dict[str, str]) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    if result.returncode:
        raise SystemExit(result.stderr)
    return json.loads(result.stdout.splitlines()[-1])


def measure(runs: int, bytecode_cache: bool) -> dict[str, list[float]]:
    """Each figure of every run (the first process of each kind, which compiles or writes
    bytecode, left out)."""
    figures: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as here:
        Path(here, "startup_kernels.py").write_text(KERNELS)
        path = os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])
        env = {**os.environ, "PYTHONPATH": path, "BLKC_CACHE_DIR": str(Path(here, "warm"))}
        if bytecode_cache:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(here, "bytecode"))
        for index in range(runs + 1):
            warm = run(WARM.format(elements=SMALL), env)
            warm["pool"] = run(WARM.format(elements=LARGE), env)["first"]
            for kernel in ("add", "softmax"):
                cold_env = {**env, "BLKC_CACHE_DIR": str(Path(here, f"cold-{kernel}-{index}"))}
                cold = run(COLD.format(softmax=kernel == "softmax"), cold_env)
                warm[kernel] = cold["cold"]
                warm["first compile"] = cold["first"]
            if index:
                for name, value in warm.items():
                    figures.setdefault(name, []).append(value)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-bytecode-cache", action="store_true")
    args = parser.parse_args()
    figures = measure(args.runs, not args.no_bytecode_cache)
    median = {name: statistics.median(values) for name, values in figures.items()}
    bytecode = "without" if args.no_bytecode_cache else "with"
    print(f"median of {args.runs} processes, {bytecode} cached bytecode; {model_name()}")
    rows = [
        ("import", "import blkc + blkc.language"),
        ("numpy", "  of which import numpy"),
        ("first", "first launch, warm disk cache (vector add)"),
        ("second", "second launch (builds the launch stub)"),
        ("pool", "first launch, warm, 1M elements (native pool)"),
        ("add", "cold compile, vector add"),
        ("softmax", "cold compile, row softmax"),
        ("first compile", "first compile in a process (compiler imports)"),
    ]
    print(f"{'':48} {'ms':>8} {'target':>8}")
    for name, label in rows:
        target = TARGETS.get(name)
        mark = "" if target is None else f"{target:8.0f} {'ok' if median[name] <= target else ''}"
        print(f"{label:48} {median[name]:8.1f} {mark}")


if __name__ == "__main__":
    main()
