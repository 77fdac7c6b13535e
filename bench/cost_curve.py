"""The cost curve: blkc against NumPy and torch (and numba where installed) over a range of
sizes, in one process, as `blkc.testing.perf_report` benchmarks.

    python bench/cost_curve.py [--quick] [--case NAME ...] [--out [DIR]] [--warmup MS] [--rep MS]
                               [--rounds N]

Cases and sizes (--quick takes two small sizes of each):

- vector add: float32 vectors of 1K to 64M elements (`examples/vector_add.py`);
- softmax: 64 to 16K rows of --cols (1024) float32 (`examples/softmax.py`);
- layer norm forward: the same shapes (`examples/layernorm.py`);
- matmul: float32 squares of 64 to 2048 (`examples/matmul.py`).

blkc runs the examples' kernels through their Python wrappers, as users launch them; NumPy
and torch (CPU, its default threads) compute the same thing with their own calls, numba
with parallel loops. Every result is first checked against NumPy's. Times come from
`blkc.testing.do_bench`, which evicts the caches before every timed run, so all compete
from cold caches. A size's providers run in turn, --rounds times (5; each round times a
--rounds'th of --rep), and each time is the median of all of a provider's runs: a burst of
other work on the host then slows every provider alike, where one block of runs each would
let it fall on one of them. Each turn starts `SETTLE` seconds after the one before, once
the threads of the one before have stopped spinning. The table gives the times and the
ratios blkc / other (below 1: blkc is faster). With --out (default folder bench/results)
it also writes each case's CSV and plot (time against size, log axes; the plot needs
matplotlib, `pip install blkc[bench]`) and the table as cost_curve.txt.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy

import blkc.testing

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

SETTLE = 0.05
"""Seconds between two providers' turns: a call right after another library's shares the
cores with that library's threads, which spin a while after a call (torch's OpenMP workers
10-20 ms, blkc's pool 5 ms). On a 2-core Zen 5, a 64K-element blkc vector add right after
torch's took 6.6-7.3 us, and 5.1-5.4 us after NumPy's."""

Run = Callable[[], object]
"""One provider's computation of a case, returning its output (an array or a tensor)."""


@dataclass(frozen=True)
class Work:
    """A case at one size: each provider's computation, the expected result, the check's
    tolerances."""

    runs: dict[str, Run]
    expected: numpy.ndarray
    rtol: float
    atol: float


@dataclass(frozen=True)
class Case:
    name: str
    sizes: tuple[int, ...]
    quick: tuple[int, ...]
    xlabel: str
    """The x axis's label; `{cols}` stands for the columns."""
    prepare: Callable[[int, int], Work]
    """The work at a size, given the columns of the row-wise cases."""
    shape: Callable[[int, int], str]
    """The shape at a size, as the table prints it."""


@dataclass(frozen=True)
class Row:
    """One case at one size: the median milliseconds of each provider."""

    case: str
    size: str
    times: dict[str, float]


def size_text(n: int) -> str:
    for shift, suffix in ((20, "M"), (10, "K")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{suffix}"
    return str(n)


def example(name: str) -> ModuleType:
    """examples/`name`.py as a module (its `_timing` import found beside it)."""
    module_name = f"blkc_example_{name}"
    if module_name not in sys.modules:
        if str(EXAMPLES) not in sys.path:
            sys.path.append(str(EXAMPLES))
        spec = importlib.util.spec_from_file_location(module_name, EXAMPLES / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]


def optional(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


torch = optional("torch")
numba = optional("numba")


def random(shape: tuple[int, ...], seed: int = 0) -> numpy.ndarray:
    return numpy.random.default_rng(seed).standard_normal(shape, dtype=numpy.float32)


def vector_add(n: int, cols: int) -> Work:
    x, y, out = random((n,), 1), random((n,), 2), numpy.empty(n, numpy.float32)
    add = example("vector_add").add  # looked up once, as torch's calls are
    runs: dict[str, Run] = {
        "blkc": lambda: (add(x, y, out), out)[1],
        "numpy": lambda: numpy.add(x, y, out=out),
    }
    if torch is not None:
        tx, ty, tout = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(out)
        runs["torch"] = lambda: torch.add(tx, ty, out=tout)
    if numba is not None:
        runs["numba"] = lambda: (numba_kernels()["add"](x, y, out), out)[1]
    return Work(runs, x + y, 0.0, 0.0)


def softmax(rows: int, cols: int) -> Work:
    x, y = random((rows, cols)), numpy.empty((rows, cols), numpy.float32)
    module = example("softmax")
    run, reference = module.softmax, module.softmax_reference
    runs: dict[str, Run] = {
        "blkc": lambda: (run(x, y), y)[1],
        "numpy": lambda: reference(x),
    }
    if torch is not None:
        tx = torch.from_numpy(x)
        runs["torch"] = lambda: torch.softmax(tx, dim=1)
    if numba is not None:
        runs["numba"] = lambda: (numba_kernels()["softmax"](x, y), y)[1]
    return Work(runs, reference(x), 1e-5, 1e-7)


def layer_norm(rows: int, cols: int) -> Work:
    x, w, b = random((rows, cols)), random((cols,), 1), random((cols,), 2)
    y = numpy.empty_like(x)
    mean, rstd = numpy.empty(rows, numpy.float32), numpy.empty(rows, numpy.float32)
    eps = 1e-5
    module = example("layernorm")
    run, reference = module.layer_norm, module.layer_norm_reference
    runs: dict[str, Run] = {
        "blkc": lambda: (run(x, w, b, eps, y, mean, rstd), y)[1],
        "numpy": lambda: reference(x, w, b, eps)[0],
    }
    if torch is not None:
        tx, tw, tb = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b)
        functional = torch.nn.functional
        runs["torch"] = lambda: functional.layer_norm(tx, (cols,), tw, tb, eps)
    if numba is not None:
        runs["numba"] = lambda: (numba_kernels()["layer_norm"](x, w, b, eps, y), y)[1]
    return Work(runs, module.layer_norm_reference(x, w, b, eps)[0], 1e-4, 1e-4)


def matmul(size: int, cols: int) -> Work:
    a, b = random((size, size), 1), random((size, size), 2)
    c = numpy.empty((size, size), numpy.float32)
    run = example("matmul").matmul
    runs: dict[str, Run] = {
        "blkc": lambda: (run(a, b, c), c)[1],
        "numpy": lambda: numpy.matmul(a, b, out=c),
    }
    if torch is not None:
        ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)
        runs["torch"] = lambda: torch.mm(ta, tb, out=tc)
    if numba is not None:
        runs["numba"] = lambda: (numba_kernels()["matmul"](a, b, c), c)[1]
    expected = (a.astype(numpy.float64) @ b.astype(numpy.float64)).astype(numpy.float32)
    return Work(runs, expected, 1e-3, 1e-3)


_numba_kernels: dict[str, Callable[..., None]] = {}


def numba_kernels() -> dict[str, Callable[..., None]]:
    """The cases as numba users write them: parallel loops over elements or rows."""
    if _numba_kernels:
        return _numba_kernels
    jit, prange = numba.njit(parallel=True), numba.prange

    def add(x: numpy.ndarray, y: numpy.ndarray, out: numpy.ndarray) -> None:
        for i in prange(x.size):
            out[i] = x[i] + y[i]

    def softmax(x: numpy.ndarray, y: numpy.ndarray) -> None:
        for r in prange(x.shape[0]):
            e = numpy.exp(x[r] - x[r].max())
            y[r] = e / e.sum()

    def layer_norm(
        x: numpy.ndarray, w: numpy.ndarray, b: numpy.ndarray, eps: float, y: numpy.ndarray
    ) -> None:
        for r in prange(x.shape[0]):
            mean = x[r].mean()
            centered = x[r] - mean
            y[r] = centered / numpy.sqrt((centered * centered).mean() + eps) * w + b

    def matmul(a: numpy.ndarray, b: numpy.ndarray, c: numpy.ndarray) -> None:
        for i in prange(a.shape[0]):
            row = numpy.zeros(b.shape[1], numpy.float32)
            for k in range(a.shape[1]):
                row += a[i, k] * b[k]
            c[i] = row

    for kernel in (add, softmax, layer_norm, matmul):
        _numba_kernels[kernel.__name__] = jit(kernel)
    return _numba_kernels


CASES = (
    Case(
        "vector add",
        tuple(1 << s for s in range(10, 27, 2)),
        (1 << 10, 1 << 16),
        "elements",
        vector_add,
        lambda n, cols: size_text(n),
    ),
    Case(
        "softmax",
        tuple(1 << s for s in range(6, 15, 2)),
        (64, 256),
        "rows of {cols}",
        softmax,
        lambda rows, cols: f"{rows}x{cols}",
    ),
    Case(
        "layer norm",
        tuple(1 << s for s in range(6, 15, 2)),
        (64, 256),
        "rows of {cols}",
        layer_norm,
        lambda rows, cols: f"{rows}x{cols}",
    ),
    Case(
        "matmul",
        tuple(1 << s for s in range(6, 12)),
        (64, 128),
        "M = N = K",
        matmul,
        lambda size, cols: f"{size}^3",
    ),
)


class Curve:
    """One run of the cost curve: the cases' benchmarks and the times they record."""

    def __init__(self, cols: int, warmup: float, rep: float, rounds: int = 1) -> None:
        self.cols, self.warmup, self.rep, self.rounds = cols, warmup, rep, rounds
        self.rows: dict[tuple[str, int], Row] = {}
        self.work: tuple[tuple[str, int], Work] | None = None
        self.times: dict[str, list[float]] = {}
        """The current size's times of each provider, over all rounds."""

    def providers(self) -> list[str]:
        present = {"torch": torch, "numba": numba}
        return ["blkc", "numpy"] + [name for name, module in present.items() if module]

    def benchmark(self, case: Case, sizes: Sequence[int]) -> blkc.testing.Benchmark:
        providers = self.providers()
        return blkc.testing.Benchmark(
            x_names=["size"],
            x_vals=list(sizes),
            line_arg="provider",
            line_vals=providers,
            line_names=providers,
            plot_name="cost-" + case.name.replace(" ", "-"),
            args={"case": case},
            xlabel=case.xlabel.format(cols=self.cols),
            ylabel="ms",
            x_log=True,
            y_log=True,
        )

    def measure(self, size: int, provider: str, case: Case) -> tuple[float, float, float]:
        """`provider`'s median, 20% and 80% times on `case` at `size`. The first provider
        asked for a size times them all (`time_providers`)."""
        if self.work is None or self.work[0] != (case.name, size):
            self.work = None  # frees the previous size's arrays first
            self.work = ((case.name, size), case.prepare(size, self.cols))
            self.times = self.time_providers(self.work[1], f"{case.name} {size}")
        median, low, high = (
            float(q) for q in numpy.quantile(self.times[provider], [0.5, 0.2, 0.8])
        )
        row = self.rows.setdefault(
            (case.name, size), Row(case.name, case.shape(size, self.cols), {})
        )
        row.times[provider] = median
        return median, low, high

    def time_providers(self, work: Work, what: str) -> dict[str, list[float]]:
        """Each provider's times on `work`, after checking its result against NumPy's: the
        providers in turn, `rounds` times, each timing its calls for a `rounds`th of
        `rep`, `SETTLE` seconds after the turn before."""
        times: dict[str, list[float]] = {}
        for provider, run in work.runs.items():
            numpy.testing.assert_allclose(
                numpy.asarray(run()),
                work.expected,
                rtol=work.rtol,
                atol=work.atol,
                err_msg=f"{provider}, {what}",
            )
            times[provider] = []
        for _ in range(self.rounds):
            for provider, run in work.runs.items():
                time.sleep(SETTLE)
                found = blkc.testing.do_bench(
                    run, warmup=self.warmup, rep=self.rep / self.rounds, return_mode="all"
                )
                times[provider].extend(found)  # type: ignore[arg-type]
        return times


def format_table(rows: Sequence[Row], providers: Sequence[str]) -> str:
    """Each row's median times and blkc's time over each other provider's."""
    others = [p for p in providers if p != "blkc"]
    header = f"{'case':12} {'size':>11} " + " ".join(f"{p + ' ms':>10}" for p in providers)
    header += " " + " ".join(f"{'blkc/' + p:>11}" for p in others)
    lines = [header, "-" * len(header)]
    for row in rows:
        cells = " ".join(f"{row.times[p]:10.4f}" for p in providers)
        ratios = " ".join(f"{row.times['blkc'] / row.times[p]:11.2f}" for p in others)
        lines.append(f"{row.case:12} {row.size:>11} {cells} {ratios}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two small sizes per case")
    parser.add_argument(
        "--case", action="append", choices=[c.name for c in CASES], help="only these cases"
    )
    parser.add_argument("--cols", type=int, default=1024, help="columns of softmax, layer norm")
    parser.add_argument("--warmup", type=float, default=25, help="do_bench's warm-up, in ms")
    parser.add_argument("--rep", type=float, default=100, help="do_bench's timed span, in ms")
    parser.add_argument(
        "--out",
        type=Path,
        nargs="?",
        const=ROOT / "bench" / "results",
        help="write CSV, PNG, table",
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="times each size's providers run in turn"
    )
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    curve = Curve(args.cols, args.warmup, args.rep, args.rounds)
    cases = [c for c in CASES if not args.case or c.name in args.case]
    benchmarks = [curve.benchmark(c, c.quick if args.quick else c.sizes) for c in cases]
    blkc.testing.perf_report(benchmarks)(curve.measure).run(save_path=str(args.out or ""))
    rows = list(curve.rows.values())
    table = format_table(rows, curve.providers())
    print(table)
    if args.out:
        (args.out / "cost_curve.txt").write_text(table + "\n")
    return rows


if __name__ == "__main__":
    main()
