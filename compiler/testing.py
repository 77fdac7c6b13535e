"""Benchmarking and comparing results, with the signatures of Triton's `triton.testing`.

- `do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean")`
  times `fn` in milliseconds on the host: launches are synchronous, so `time.perf_counter`
  around each call is the call's time. Before each timed call it writes a buffer as large
  as the last-level cache (`blkc.runtime.driver`), so every run starts from cold caches as
  Triton's does after clearing the GPU's L2.
- `assert_close(x, y, atol=None, rtol=None, err_msg="")` compares NumPy arrays, torch
  tensors, lists or numbers (atol 1e-2 and rtol 0 unless given; either may be a function of
  the first argument's dtype).
- `Benchmark` and `perf_report` run a function over a grid of x values and lines, print the
  table (`print_data`), write it as CSV (`save_path`) and draw it with matplotlib when that
  is installed (`save_path`, `show_plots`); without matplotlib the plot is skipped with a
  one-line note.

    @blkc.testing.perf_report(blkc.testing.Benchmark(
        x_names=["n"], x_vals=[1 << 10, 1 << 20], line_arg="provider",
        line_vals=["blkc", "numpy"], line_names=["blkc", "NumPy"],
        plot_name="vector-add", args={}, x_log=True, ylabel="ms"))
    def bench(n, provider):
        ...
        return blkc.testing.do_bench(lambda: add(x, y, out))

    bench.run(print_data=True, save_path="results")
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from blkc.runtime import driver

RETURN_MODES = ("min", "max", "mean", "median", "all")


def do_bench(
    fn: Callable[[], object],
    warmup: float = 25,
    rep: float = 100,
    grad_to_none: Sequence[Any] | None = None,
    quantiles: Sequence[float] | None = None,
    return_mode: str = "mean",
) -> float | list[float]:
    """The time of one call of `fn`, in milliseconds: calls for about `warmup` ms untimed,
    then for about `rep` ms timed, each after evicting the caches and (for tensors in
    `grad_to_none`) dropping their gradients. The result is the `quantiles` of the times
    where given (a number for one quantile), else the times' `return_mode` ("mean",
    "median", "min", "max", or "all" for the list)."""
    if return_mode not in RETURN_MODES:
        raise ValueError(
            f"return_mode must be one of {', '.join(RETURN_MODES)}; got {return_mode!r}"
        )
    if quantiles is not None:
        check_quantiles(quantiles)
    fn()
    flush = driver.active.get_empty_cache_for_benchmark()
    # The estimate counts the eviction as Triton's does, so that `rep` bounds the whole loop.
    start = time.perf_counter()
    for _ in range(5):
        driver.active.clear_cache(flush)
        fn()
    estimate_ms = max((time.perf_counter() - start) * 1e3 / 5, 1e-6)
    for _ in range(max(1, int(warmup / estimate_ms))):
        fn()
    times = []
    for _ in range(max(1, int(rep / estimate_ms))):
        for tensor in grad_to_none or ():
            tensor.grad = None
        driver.active.clear_cache(flush)
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return summarize(times, quantiles, return_mode)


def check_quantiles(quantiles: Sequence[float]) -> None:
    for q in quantiles:
        if not 0 <= q <= 1:
            raise ValueError(f"quantiles must lie in [0, 1]; got {q}")


def summarize(
    times: list[float], quantiles: Sequence[float] | None, return_mode: str
) -> float | list[float]:
    """`do_bench`'s result from the measured times."""
    if quantiles is not None:
        values = [quantile(sorted(times), q) for q in quantiles]
        return values[0] if len(values) == 1 else values
    if return_mode == "all":
        return times
    summaries: dict[str, Callable[[list[float]], float]] = {
        "min": min,
        "max": max,
        "mean": statistics.mean,
        "median": statistics.median,
    }
    return summaries[return_mode](times)


def quantile(ordered: list[float], q: float) -> float:
    """The `q` quantile of sorted `ordered`, interpolating linearly between neighbours (as
    NumPy's default method)."""
    point = q * (len(ordered) - 1)
    low, high = math.floor(point), math.ceil(point)
    return ordered[low] + (point - low) * (ordered[high] - ordered[low])


def assert_close(
    x: Any,
    y: Any,
    atol: float | Callable[[Any], float] | None = None,
    rtol: float | Callable[[Any], float] | None = None,
    err_msg: str = "",
) -> None:
    """Raise AssertionError unless `x` and `y` agree within `atol + rtol * |y|` everywhere
    (NaN matches NaN). `atol` defaults to 1e-2 and `rtol` to 0; a callable is given the
    dtype of `x` (a torch dtype for a tensor) and returns the tolerance."""
    dtype = getattr(x, "dtype", None)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol = atol(dtype) if callable(atol) else atol
    rtol = rtol(dtype) if callable(rtol) else rtol
    a, b = as_comparable(x), as_comparable(y)
    if a.size > 1 or b.size > 1:
        numpy.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=err_msg)
    elif not numpy.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
        raise AssertionError(f"{err_msg} {a} is not close to {b} (atol={atol}, rtol={rtol})")


def as_comparable(value: Any) -> numpy.ndarray:
    """`value` as a NumPy array NumPy can compare: torch tensors copied to the host, and
    dtypes NumPy has no arithmetic for (bfloat16, float8) widened to float32."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):
        value = value.detach().cpu()
        if not value.dtype.is_complex and value.dtype.is_floating_point:
            value = value.float() if value.element_size() < 4 else value
        value = value.numpy()
    array = numpy.asarray(value)
    return array if array.dtype.kind in "biufc" else array.astype(numpy.float32)


@dataclass
class Benchmark:
    """One benchmark for `perf_report`: `fn(**{x_name: x}, **{line_arg: line}, **args)`
    for every x value in `x_vals` and line in `line_vals`. An x value is one value given to
    every name of `x_names`, or a tuple with a value per name. The plot (`plot_name`.png)
    draws one curve per line against the first x name, labelled with `line_names`."""

    x_names: list[str]
    x_vals: list[Any]
    line_arg: str
    line_vals: list[Any]
    line_names: list[str]
    plot_name: str
    args: dict[str, Any]
    xlabel: str = ""
    ylabel: str = ""
    x_log: bool = False
    y_log: bool = False
    styles: list[tuple[str, str]] | None = None


@dataclass
class Table:
    """A benchmark's results: `columns` (the x names, then a column per line) and a row per
    x value. `perf_report(...).run(return_df=True)` returns it as a pandas DataFrame where
    pandas is installed, else as this."""

    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)

    def column(self, name: str) -> list[Any]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def to_string(self, precision: int = 6) -> str:
        cells = [self.columns] + [[cell_text(c, precision) for c in row] for row in self.rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.columns))]
        return "\n".join(
            " ".join(text.rjust(width) for text, width in zip(row, widths, strict=True))
            for row in cells
        )

    def to_csv(self, path: str, precision: int = 6) -> None:
        lines = [",".join(self.columns)]
        lines += [",".join(cell_text(c, precision) for c in row) for row in self.rows]
        with open(path, "w") as out:
            out.write("\n".join(lines) + "\n")


def cell_text(value: Any, precision: int) -> str:
    if isinstance(value, float):
        return f"{value:.{precision}f}"
    return "" if value is None else str(value)


@dataclass
class Mark:
    """A function marked by `perf_report`: call it as usual, or `run` its benchmarks."""

    fn: Callable[..., Any]
    benchmarks: Benchmark | list[Benchmark]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def run(
        self,
        show_plots: bool = False,
        print_data: bool = False,
        save_path: str = "",
        return_df: bool = False,
        diff_col: bool = False,
        save_precision: int = 6,
        **kwargs: Any,
    ) -> Any:
        """Run every benchmark, passing `kwargs` on to the function; print each table when
        `print_data`, save it (`<plot_name>.csv`, `.png`, and a `results.html` showing the
        plots) under `save_path`, show the plots when `show_plots`. With `return_df`, return
        the tables (one, for a single benchmark)."""
        single = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if single else list(self.benchmarks)
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        tables = []
        for bench in benchmarks:
            table, spread = self.measure(bench, kwargs)
            if bench.plot_name and (save_path or show_plots):
                plot(bench, table, spread, save_path, show_plots)
            if diff_col and len(table.columns) == 2:
                table.columns.append("Diff")
                for row in table.rows:
                    row.append(row[1] - row[0])
            if print_data:
                print(f"{bench.plot_name}:")
                print(table.to_string(save_precision))
            if save_path:
                table.to_csv(os.path.join(save_path, f"{bench.plot_name}.csv"), save_precision)
            tables.append(table)
        if save_path:
            write_index(save_path, benchmarks)
        if not return_df:
            return None
        frames = [as_dataframe(table) for table in tables]
        return frames[0] if single else frames

    def measure(
        self, bench: Benchmark, kwargs: dict[str, Any]
    ) -> tuple[Table, dict[str, list[tuple[Any, Any]]]]:
        """The table of mean values, and each line's (min, max) per x value where the
        function returned (mean, min, max)."""
        labels = [f"{name} ({bench.ylabel})" for name in bench.line_names]
        table = Table(list(bench.x_names) + labels)
        spread: dict[str, list[tuple[Any, Any]]] = {label: [] for label in labels}
        for x in bench.x_vals:
            values = list(x) if isinstance(x, list | tuple) else [x] * len(bench.x_names)
            if len(values) != len(bench.x_names):
                raise ValueError(
                    f"x value {x!r} has {len(values)} values for the {len(bench.x_names)} "
                    f"x names {bench.x_names}"
                )
            point = dict(zip(bench.x_names, values, strict=True))
            means = []
            for label, line in zip(labels, bench.line_vals, strict=True):
                result = self.fn(**point, **{bench.line_arg: line}, **bench.args, **kwargs)
                mean, low, high = (
                    result if isinstance(result, tuple | list) else (result, None, None)
                )
                means.append(mean)
                spread[label].append((low, high))
            table.rows.append(values + means)
        return table, spread


def perf_report(benchmarks: Benchmark | list[Benchmark]) -> Callable[[Callable[..., Any]], Mark]:
    """Mark a function to be benchmarked by `Mark.run` over `benchmarks`."""
    return lambda fn: Mark(fn, benchmarks)


def plot(
    bench: Benchmark,
    table: Table,
    spread: dict[str, list[tuple[Any, Any]]],
    save_path: str,
    show: bool,
) -> None:
    """Draw `table`'s lines against its first x name, saved as `<plot_name>.png` under
    `save_path` and shown where asked; a note on stderr where matplotlib is missing."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        print(
            f"blkc.testing: matplotlib is not installed, so {bench.plot_name!r} is not plotted",
            file=sys.stderr,
        )
        return
    if show:
        import matplotlib.pyplot as pyplot

        figure = pyplot.figure()
    else:
        figure = Figure()
    axes = figure.subplots()
    xs = table.column(bench.x_names[0])
    for i, label in enumerate(spread):
        color, style = bench.styles[i] if bench.styles else (None, None)
        (line,) = axes.plot(xs, table.column(label), label=label, color=color, linestyle=style)
        lows, highs = zip(*spread[label], strict=True)
        if all(v is not None for v in lows + highs):
            axes.fill_between(xs, lows, highs, alpha=0.15, color=line.get_color())
    axes.legend()
    axes.set_xlabel(bench.xlabel or bench.x_names[0])
    axes.set_ylabel(bench.ylabel)
    axes.set_xscale("log" if bench.x_log else "linear")
    axes.set_yscale("log" if bench.y_log else "linear")
    if save_path:
        figure.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
    if show:
        pyplot.show()
        pyplot.close(figure)


def write_index(save_path: str, benchmarks: list[Benchmark]) -> None:
    """`results.html`, showing every benchmark's plot."""
    images = "".join(f'<img src="{bench.plot_name}.png"/>\n' for bench in benchmarks)
    with open(os.path.join(save_path, "results.html"), "w") as html:
        html.write(f"<html><body>\n{images}</body></html>\n")


def as_dataframe(table: Table) -> Any:
    """`table` as a pandas DataFrame where pandas is installed, else itself."""
    try:
        import pandas
    except ImportError:
        return table
    return pandas.DataFrame(table.rows, columns=table.columns)
