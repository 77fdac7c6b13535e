"""blkc against NumPy (and PyTorch CPU where installed), in one process.

    python bench/run.py [--quick] [--json PATH] [--cases NAME ...] [--softmax-shapes RxC ...]

Each case runs with warm-up and best-of-N, its blkc, NumPy and torch calls in three
interleaved rounds (so that a noisy neighbour slows all of them alike); the table prints
times and ratios (> 1 means blkc is faster). Arrays are 64-byte aligned so that NumPy is
not penalized by the allocator. The machine's copy bandwidth, measured in the same run,
is the ceiling for the memory-bound cases; `GB/s` is the bytes a case must move divided by
blkc's time. `--cases` runs some of the cases (`CASES`); `softmax_sizes` runs Triton's
tutorial softmax (`examples/softmax.py`, a `@blkc.jit` kernel launched through its launch
stub) at each of `--softmax-shapes`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import blkc  # noqa: E402
import blkc.kernel  # noqa: E402
import blkc.language as tl  # noqa: E402

try:
    import torch
except ImportError:
    torch = None  # type: ignore[assignment]


def aligned(shape: tuple[int, ...], dtype: object, fill: str = "random") -> numpy.ndarray:
    dtype = numpy.dtype(dtype)
    count = int(numpy.prod(shape))
    raw = numpy.empty(count * dtype.itemsize + 64, numpy.uint8)
    offset = (-raw.ctypes.data) % 64
    array = raw[offset : offset + count * dtype.itemsize].view(dtype).reshape(shape)
    rng = numpy.random.default_rng(0)
    if fill == "random":
        if dtype.kind == "f":
            array[...] = rng.standard_normal(shape).astype(dtype)
        else:
            array[...] = rng.integers(0, 100, shape).astype(dtype)
    else:
        array[...] = 0
    return array


SETTLE = 0.05
"""Seconds between two libraries' blocks of calls in `best_ms_each`: longer than any of
their threads spin after a call."""


def best_ms_each(
    fns: dict[str, Callable[[], object]], repeat: int, rounds: int = 3
) -> dict[str, float]:
    """Best-of-`repeat` milliseconds of each function, after two warm-up calls, in
    `rounds` rounds that each call every function `repeat / rounds` times in a row: slow
    changes of a shared machine's load reach every function alike, and a function's calls
    follow each other as an application's would. Each block starts `SETTLE` seconds after
    the one before: a call right after another library's would share the cores with that
    library's threads, which spin a while after a call (torch's OpenMP workers 10-20 ms,
    blkc's pool 5 ms)."""
    best = dict.fromkeys(fns, float("inf"))
    block = max(2, -(-repeat // rounds))
    for _ in range(rounds):
        for name, fn in fns.items():
            time.sleep(SETTLE)
            fn()
            fn()
            for _ in range(block):
                start = time.perf_counter()
                fn()
                best[name] = min(best[name], time.perf_counter() - start)
    return {name: seconds * 1000 for name, seconds in best.items()}


def compared(
    blkc_run: Callable[[], object],
    numpy_run: Callable[[], object],
    torch_run: Callable[[], object] | None,
    repeat: int,
) -> tuple[float, float, float | None]:
    """Best-of-`repeat` milliseconds of blkc, NumPy and (where installed) torch, interleaved."""
    fns = {"blkc": blkc_run, "numpy": numpy_run}
    if torch_run is not None:
        fns["torch"] = torch_run
    ms = best_ms_each(fns, repeat)
    return ms["blkc"], ms["numpy"], ms.get("torch")


def best_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


@dataclass
class Result:
    case: str
    shape: str
    dtype: str
    blkc_ms: float
    numpy_ms: float
    torch_ms: float | None = None
    numba_ms: float | None = None
    gbytes: float | None = None
    """Bytes the case must move, in GB (memory-bound cases)."""


def kernel(name: str) -> blkc.Kernel:
    path = ROOT / "examples" / f"{name}.mlir"
    return blkc.compile(path.read_text(), filename=str(path))


def case_vector_add(n: int, repeat: int) -> Result:
    x, y, out = (
        aligned((n,), numpy.float32),
        aligned((n,), numpy.float32),
        aligned((n,), numpy.float32),
    )
    k = kernel("vector_add")[((n + 1023) // 1024,)]
    expected = aligned((n,), numpy.float32)
    torch_run = None
    if torch is not None:
        tx, ty, to = (torch.from_numpy(a) for a in (x, y, expected))
        torch_run = lambda: torch.add(tx, ty, out=to)  # noqa: E731
    blkc_ms, numpy_ms, torch_ms = compared(
        lambda: k(x, y, out, n), lambda: numpy.add(x, y, out=expected), torch_run, repeat
    )
    numpy.testing.assert_array_equal(out, x + y)
    return Result("vector add", f"{n}", "float32", blkc_ms, numpy_ms, torch_ms, gbytes=12 * n / 1e9)


def case_mixed_chain(n: int, repeat: int) -> Result:
    a, b = aligned((n,), numpy.int32), aligned((n,), numpy.float16)
    c, out = aligned((n,), numpy.uint8), aligned((n,), numpy.float32)
    k = kernel("mixed_chain")[((n + 2047) // 2048,)]
    tmp = aligned((n,), numpy.float32)

    def reference() -> None:
        numpy.add(a, b, out=tmp, dtype=numpy.float32)
        numpy.multiply(tmp, c, out=tmp, dtype=numpy.float32)

    torch_run = None
    if torch is not None:
        ta, tb, tc = (torch.from_numpy(v) for v in (a, b, c))
        torch_run = lambda: (ta + tb.float()) * tc  # noqa: E731
    blkc_ms, numpy_ms, torch_ms = compared(lambda: k(a, b, c, out, n), reference, torch_run, repeat)
    numpy.testing.assert_allclose(out, tmp, rtol=1e-6)
    return Result(
        "mixed chain i32+f16, *u8",
        f"{n}",
        "mixed",
        blkc_ms,
        numpy_ms,
        torch_ms,
        gbytes=11 * n / 1e9,
    )


def case_softmax(rows: int, cols: int, repeat: int) -> Result:
    x, y = aligned((rows, cols), numpy.float32), aligned((rows, cols), numpy.float32)
    k = kernel("softmax")[(rows,)]

    def reference() -> numpy.ndarray:
        e = numpy.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    torch_run = None
    if torch is not None:
        tx = torch.from_numpy(x)
        torch_run = lambda: torch.softmax(tx, dim=1)  # noqa: E731
    blkc_ms, numpy_ms, torch_ms = compared(
        lambda: k(x, y, cols, cols), reference, torch_run, repeat
    )
    numpy.testing.assert_allclose(y, reference(), rtol=1e-5, atol=1e-7)
    return Result(
        "row softmax",
        f"{rows}x{cols}",
        "float32",
        blkc_ms,
        numpy_ms,
        torch_ms,
        gbytes=8 * rows * cols / 1e9,
    )


def case_layernorm(rows: int, cols: int, repeat: int) -> Result:
    x, y = aligned((rows, cols), numpy.float32), aligned((rows, cols), numpy.float32)
    w, b = aligned((cols,), numpy.float32), aligned((cols,), numpy.float32)
    eps = 1e-5
    k = kernel("layernorm")[(rows,)]

    def reference() -> numpy.ndarray:
        mean = x.mean(axis=1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
        return (x - mean) / numpy.sqrt(var + eps) * w + b

    torch_run = None
    if torch is not None:
        tx, tw, tb = (torch.from_numpy(v) for v in (x, w, b))
        torch_run = lambda: torch.nn.functional.layer_norm(tx, (cols,), tw, tb, eps)  # noqa: E731
    blkc_ms, numpy_ms, torch_ms = compared(
        lambda: k(x, y, w, b, cols, cols, eps), reference, torch_run, repeat
    )
    numpy.testing.assert_allclose(y, reference(), rtol=1e-4, atol=1e-4)
    return Result(
        "layer-norm forward",
        f"{rows}x{cols}",
        "float32",
        blkc_ms,
        numpy_ms,
        torch_ms,
        gbytes=8 * rows * cols / 1e9,
    )


def case_matmul(size: int, repeat: int) -> Result:
    a, b = aligned((size, size), numpy.float32), aligned((size, size), numpy.float32)
    c = aligned((size, size), numpy.float32)
    k = kernel("matmul")[((size + 31) // 32, (size + 31) // 32)]
    blkc_ms = best_ms(lambda: k(a, b, c, size, size, size), max(1, repeat // 2))
    numpy.testing.assert_allclose(c, a @ b, rtol=1e-3, atol=1e-3)
    numpy_ms = _single_thread(lambda: best_ms(lambda: a @ b, repeat))
    torch_ms = None
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        torch_ms = best_ms(lambda: ta @ tb, repeat)
    return Result("matmul (NumPy: 1 thread)", f"{size}^3", "float32", blkc_ms, numpy_ms, torch_ms)


def _single_thread(fn: Callable[[], float]) -> float:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return fn()
    with threadpool_limits(limits=1):
        return fn()


@blkc.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """examples/sum.mlir as a `@blkc.jit` kernel."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def case_sum(n: int, repeat: int, jit: bool = False) -> Result:
    """examples/sum.mlir compiled from its IR, or (`jit`) the same kernel as `@blkc.jit`;
    both launch through their launch stubs after the first two launches."""
    x = aligned((n,), numpy.float32)
    out = numpy.zeros(1, numpy.float32)
    grid = ((n + 4095) // 4096,)
    k = kernel("sum")[grid]

    def run() -> None:
        out[0] = 0
        if jit:
            sum_kernel[grid](x, out, n, BLOCK=4096)
        else:
            k(x, out, n)

    torch_run = None
    if torch is not None:
        tx = torch.from_numpy(x)
        torch_run = tx.sum
    blkc_ms, numpy_ms, torch_ms = compared(run, x.sum, torch_run, repeat)
    numpy.testing.assert_allclose(out[0], x.sum(dtype=numpy.float64), rtol=1e-3)
    name = "sum reduction (jit)" if jit else "sum reduction"
    return Result(name, f"{n}", "float32", blkc_ms, numpy_ms, torch_ms, gbytes=4 * n / 1e9)


def case_softmax_jit(rows: int, cols: int, repeat: int) -> Result:
    """Triton's tutorial softmax (`examples/softmax.py`), more repeats for small shapes."""
    sys.path.insert(0, str(ROOT / "examples"))
    import softmax as tutorial

    x, y = aligned((rows, cols), numpy.float32), aligned((rows, cols), numpy.float32)
    torch_run = None
    if torch is not None:
        tx = torch.from_numpy(x)
        torch_run = lambda: torch.softmax(tx, dim=1)  # noqa: E731
    repeat = max(repeat, min(500, (1 << 25) // (8 * rows * cols)))
    blkc_ms, numpy_ms, torch_ms = compared(
        lambda: tutorial.softmax(x, y), lambda: tutorial.softmax_reference(x), torch_run, repeat
    )
    numpy.testing.assert_allclose(y, tutorial.softmax_reference(x), rtol=1e-5, atol=1e-7)
    return Result(
        "softmax (tutorial, jit)",
        f"{rows}x{cols}",
        "float32",
        blkc_ms,
        numpy_ms,
        torch_ms,
        gbytes=8 * rows * cols / 1e9,
    )


def digits(value: float) -> int:
    """Decimals to print `value` with: 2, or 4 below 0.1 (times of microseconds)."""
    return 4 if abs(value) < 0.1 else 2


def shape(text: str) -> tuple[int, int]:
    """`ROWSxCOLS` as two ints."""
    try:
        rows, cols = (int(part) for part in text.lower().split("x"))
    except ValueError:
        message = f"expected ROWSxCOLS such as 64x512, got {text!r}"
        raise argparse.ArgumentTypeError(message) from None
    if rows < 1 or cols < 1:
        raise argparse.ArgumentTypeError(f"rows and columns must be positive, got {text!r}")
    return rows, cols


CASES = (
    "vector_add",
    "mixed_chain",
    "softmax",
    "layernorm",
    "matmul",
    "sum",
    "sum_jit",
    "softmax_sizes",
)
"""The cases `--cases` names, in the order they run (all but `softmax_sizes` by default)."""


def copy_bandwidth(n: int, repeat: int) -> float:
    """GB/s of numpy.copyto over n float32 (bytes read plus written)."""
    src, dst = aligned((n,), numpy.float32), aligned((n,), numpy.float32)
    ms = best_ms(lambda: numpy.copyto(dst, src), repeat)
    return 8 * n / 1e9 / (ms / 1000)


def compile_times() -> dict[str, float]:
    """Milliseconds from IR text to a callable, cold (no cache) and from the disk cache."""
    times = {}
    saved = os.environ.get("BLKC_CACHE")
    for name in ("vector_add", "softmax"):
        for label, setting in (("cold", "0"), ("disk cache", "1")):
            os.environ["BLKC_CACHE"] = setting
            blkc.kernel._cache.clear()
            if setting == "1":
                kernel(name).prepare()  # make sure the entry exists
                blkc.kernel._cache.clear()
            start = time.perf_counter()
            kernel(name).prepare()
            times[f"{name} {label}"] = (time.perf_counter() - start) * 1000
    if saved is None:
        os.environ.pop("BLKC_CACHE", None)
    else:
        os.environ["BLKC_CACHE"] = saved
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--json", type=Path, help="write the results as JSON")
    parser.add_argument(
        "--unchecked",
        action="store_true",
        help="compile without bounds checks (BLKC_CHECK_BOUNDS=0): faster, trusts the kernels",
    )
    parser.add_argument(
        "--cases",
        nargs="+",
        choices=CASES,
        default=CASES[:-1],
        help="the cases to run (default: all but softmax_sizes)",
    )
    parser.add_argument(
        "--softmax-shapes",
        nargs="+",
        type=shape,
        default=[(64, 512), (256, 1024), (1024, 1024), (8192, 1024)],
        metavar="RxC",
        help="shapes of softmax_sizes (default: 64x512 256x1024 1024x1024 8192x1024)",
    )
    parser.add_argument(
        "--no-compile-times", action="store_true", help="skip measuring compile times"
    )
    args = parser.parse_args()
    if args.unchecked:
        os.environ["BLKC_CHECK_BOUNDS"] = "0"
    repeat = 3 if args.quick else 10
    big = 1 << 20 if args.quick else 16 << 20
    rows = 256 if args.quick else 4096
    size = 256 if args.quick else 1024
    compile_ms = {} if args.no_compile_times else compile_times()
    bandwidth = copy_bandwidth(big, repeat)
    runs: dict[str, Callable[[], list[Result]]] = {
        "vector_add": lambda: [case_vector_add(big, repeat)],
        "mixed_chain": lambda: [case_mixed_chain(big, repeat)],
        "softmax": lambda: [case_softmax(rows, 1024, repeat)],
        "layernorm": lambda: [case_layernorm(rows, 1024, repeat)],
        "matmul": lambda: [case_matmul(size, repeat)],
        "sum": lambda: [case_sum(big, repeat)],
        "sum_jit": lambda: [case_sum(big, repeat, jit=True)],
        "softmax_sizes": lambda: [case_softmax_jit(r, c, repeat) for r, c in args.softmax_shapes],
    }
    results = [result for name in CASES if name in args.cases for result in runs[name]()]
    torch_version = torch.__version__ if torch else "absent"
    checks = "off" if args.unchecked else "on"
    print(
        f"machine: {os.cpu_count()} cores, numpy {numpy.__version__}, torch {torch_version}, "
        f"bounds checks {checks}"
    )
    print(f"copy bandwidth (numpy.copyto): {bandwidth:.1f} GB/s")
    if compile_ms:
        compiled = ", ".join(f"{k} {v:.0f} ms" for k, v in compile_ms.items())
        print(f"compile time (IR text to callable): {compiled}")
    columns = ("blkc ms", "numpy ms", "x numpy", "torch ms", "x torch", "GB/s", "% copy")
    header = f"{'case':28} {'shape':>10} " + " ".join(f"{c:>9}" for c in columns)
    print(header)
    print("-" * len(header))
    for r in results:
        cells = [r.blkc_ms, r.numpy_ms, r.numpy_ms / r.blkc_ms]
        cells += [r.torch_ms, r.torch_ms / r.blkc_ms] if r.torch_ms else [None, None]
        if r.gbytes:
            rate = r.gbytes / (r.blkc_ms / 1000)
            cells += [rate, 100 * rate / bandwidth]
        else:
            cells += [None, None]
        text = " ".join(f"{'-':>9}" if c is None else f"{c:9.{digits(c)}f}" for c in cells)
        print(f"{r.case:28} {r.shape:>10} {text}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n")


if __name__ == "__main__":
    main()
