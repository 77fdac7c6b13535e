"""Row softmax and a vector add over dask arrays of many chunks, on a
`distributed.LocalCluster` of two worker processes, with `blkc.dask.map_blocks`: checked
against NumPy and timed against the same computations in `dask.array`'s own operations.

    pip install 'blkc[dask]'      # dask[array] and distributed
    python examples/dask_softmax.py [--rows 8192] [--cols 1000] [--chunk-rows 1024]

With bokeh installed, the cluster's dashboard (its link is printed) shows each task on
the task stream while the script runs: pass --wait to keep it open at the end.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy
from distributed import Client, LocalCluster, wait

import blkc
import blkc.dask
import blkc.language as tl


@blkc.jit
def softmax_rows(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    """One program per row of a C-contiguous block: the row padded to BLOCK with -inf."""
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    mask = offsets < cols
    x = tl.load(x_ptr + row * cols + offsets, mask=mask, other=-float("inf"))
    numerator = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * cols + offsets, numerator / tl.sum(numerator, axis=0), mask=mask)


@blkc.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def blkc_softmax(x: da.Array) -> da.Array:
    """Each block's rows are whole (one chunk along the columns): one kernel per block."""
    return blkc.dask.map_blocks(
        softmax_rows, x.rechunk({1: -1}), out_dtype=x.dtype,
        grid=lambda out: (out.shape[0],), args=lambda out: (out.shape[1],),
        BLOCK=blkc.next_power_of_2(x.shape[1]),
    )  # fmt: skip


def dask_softmax(x: da.Array) -> da.Array:
    e = da.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def blkc_add(x: da.Array, y: da.Array) -> da.Array:
    return blkc.dask.map_blocks(
        add, x, y, out_dtype=x.dtype, grid=lambda out: (blkc.cdiv(out.size, 4096),),
        args=lambda out: (out.size,), BLOCK=4096,
    )  # fmt: skip


def dask_add(x: da.Array, y: da.Array) -> da.Array:
    return x + y


def best_seconds(make: Callable[[int], da.Array], runs: int) -> float:
    """The fastest of the runs of the graphs `make(i)` builds (each on other inputs, so
    that no run finds another's results), computed on the workers and kept there (no
    transfer to this process); run 0 is a warm-up, in which each worker compiles its
    kernels or loads them from the disk cache."""
    times = []
    for i in range(runs):
        start = time.perf_counter()
        result = make(i).persist()
        wait(result)
        times.append(time.perf_counter() - start)
        del result
    return min(times[1:])


def reference_softmax(x: numpy.ndarray) -> numpy.ndarray:
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def run(client: Client, rows: int, cols: int, chunk_rows: int, runs: int = 6) -> None:
    """Check both computations against NumPy, then time each method on inputs of its own
    (fresh ones for every run), generated on the workers before any timing."""
    rng = da.random.default_rng(0)
    xs = client.persist(
        [rng.standard_normal((rows, cols), chunks=(chunk_rows, cols), dtype=numpy.float32)
         for _ in range(2 * runs)]
    )  # fmt: skip
    # a and b side by side, so that each block of a is on the worker that has b's.
    pairs = client.persist(
        [rng.standard_normal((2, rows * cols), chunks=(2, chunk_rows * cols), dtype=numpy.float32)
         for _ in range(2 * runs)]
    )  # fmt: skip
    wait([*xs, *pairs])
    x, (a, b) = xs[0], pairs[0]
    numpy.testing.assert_allclose(
        blkc_softmax(x).compute(), reference_softmax(x.compute()), rtol=1e-5, atol=1e-7
    )
    numpy.testing.assert_array_equal(blkc_add(a, b).compute(), a.compute() + b.compute())
    print(f"{rows} x {cols} float32 in {x.npartitions} chunks; 2 worker processes, 1 thread each")
    print("results equal NumPy's; best of", runs - 1, "runs after a warm-up:")
    print(f"{'':>14} {'blkc.dask':>10} {'dask.array':>11} {'speedup':>8}")
    for label, ours, theirs in [
        ("row softmax", lambda i: blkc_softmax(xs[2 * i]), lambda i: dask_softmax(xs[2 * i + 1])),
        ("vector add", lambda i: blkc_add(*pairs[2 * i]), lambda i: dask_add(*pairs[2 * i + 1])),
    ]:
        ours_s, theirs_s = best_seconds(ours, runs), best_seconds(theirs, runs)
        print(f"{label:>14} {ours_s * 1e3:8.1f} ms {theirs_s * 1e3:8.1f} ms "
              f"{theirs_s / ours_s:7.2f}x")  # fmt: skip
    builds = client.run(_builds)
    print("kernels each worker compiled:", sorted(builds.values()))


def _builds() -> int:
    import blkc.kernel

    return blkc.kernel.builds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=8192)
    parser.add_argument("--cols", type=int, default=1000)
    parser.add_argument("--chunk-rows", type=int, default=1024)
    parser.add_argument("--wait", action="store_true", help="keep the dashboard open")
    options = parser.parse_args(argv)
    dashboard: Any = ":0" if importlib.util.find_spec("bokeh") else None
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=dashboard
    ) as cluster, Client(cluster) as client:  # fmt: skip
        if dashboard:
            print("dashboard (task stream):", client.dashboard_link)
        run(client, options.rows, options.cols, options.chunk_rows)
        if options.wait and dashboard:
            input("press Enter to stop the cluster ")


if __name__ == "__main__":
    main()
