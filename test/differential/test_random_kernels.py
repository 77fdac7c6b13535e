"""Random kernels (`kernels.kernels`), compiled and interpreted, write the same values.

Each generated kernel runs once compiled and once interpreted on the same random inputs
(edge values included: 0, -1, the integer extremes, NaN, infinities, subnormals); every
array argument is compared afterwards, as its `kernels.Output` says:

- integers and bools, and floats computed with correctly rounded operations only: bit for
  bit (any NaN equals any NaN), with ``-0.0 == 0.0`` where the sign of a zero is
  unspecified (after a float ``minimum``/``maximum``);
- floats computed from `blk.exp`: between the interpreter's results with its `exp`
  moved `harness.EXP_ULPS` places down and up. The generator keeps such values on paths
  where each output is a monotone function of one `exp` result, so this envelope holds
  every result the compiled `exp` may give;
- float sums: between the sums of the smallest and the largest values the reduced tile
  takes in those runs, widened by ``2 n u sum(|x|)`` for the order of summation (``u``
  the accumulator's unit roundoff; NumPy sums pairwise, the compiled code in vector
  lanes; with a float16, bfloat16 or fp8 accumulator the interpreter even keeps its
  partial sums in float32, the compiled code rounds each: both stay within
  ``(n - 1) u sum(|x|)`` of the exact sum). Sums that could overflow in some order are
  not checked, nor sums of infinities whose result depends on the order;
- float max/min reductions of `exp` results: between the max (min) of the smallest and
  of the largest values.

Hypothesis runs derandomized (the same examples on every run, no example database), with
a budget that keeps this folder under a minute on two cores.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, note, settings

from .harness import (
    TARGETS,
    Array,
    assert_between,
    assert_same,
    exp_nudged,
    run_compiled,
    run_interpreted,
)
from .kernels import GeneratedKernel, Output, kernels

FILENAME = "random.mlir"
Envelope = tuple[Array, Array, Array, Array]
"""Low and high bounds, may-be-NaN and must-be-NaN flags, as `assert_between` takes them."""


def check_kernel(kernel: GeneratedKernel) -> None:
    """Run `kernel` both ways and check every array argument."""
    runs = [run_interpreted(kernel.text, kernel.grid, kernel.args, FILENAME)]
    if kernel.uses_exp:
        for direction in (-1, 1):
            with exp_nudged(direction):
                runs.append(run_interpreted(kernel.text, kernel.grid, kernel.args, FILENAME))
    for target in TARGETS:
        compiled = run_compiled(kernel.text, kernel.grid, kernel.args, FILENAME, target=target)
        _compare(kernel, runs, compiled, target)


def _compare(
    kernel: GeneratedKernel, runs: list[list[Array]], compiled: list[Array], target: str
) -> None:
    positions = [p for p, a in enumerate(kernel.args) if isinstance(a, np.ndarray)]
    index = {p: k for k, p in enumerate(positions)}
    checks = {o.position: o for o in kernel.outputs}
    for position in positions:
        k = index[position]
        name = f"argument {position} ({target})"
        output = checks.get(position, Output(position, "exact"))
        if output.check in ("exact", "zeros-equal"):
            assert_same(name, runs[0][k], compiled[k], signed_zeros=output.check == "exact")
            continue
        if output.check == "envelope":
            low, high, may_be_nan, must_be_nan = _envelope([run[k] for run in runs])
        else:
            assert output.source is not None
            sources = [run[index[output.source]] for run in runs]
            results = [run[k] for run in runs]
            low, high, may_be_nan, must_be_nan = _reduction_envelope(
                output, kernel.tile, sources, results
            )
        assert_between(name, runs[0][k], compiled[k], low, high, may_be_nan, must_be_nan)


def _wide(arrays: list[Array]) -> Array:
    """The arrays as float64, stacked along a new first axis."""
    return np.stack([a.astype(np.float64) for a in arrays])


def _envelope(runs: list[Array]) -> Envelope:
    """Elementwise: the least and greatest non-NaN value of the runs, whether one is NaN,
    whether all are."""
    values = _wide(runs)
    nan = np.isnan(values)
    with np.errstate(all="ignore"):
        low = np.where(nan, np.inf, values).min(axis=0)
        high = np.where(nan, -np.inf, values).max(axis=0)
    return low, high, nan.any(axis=0), nan.all(axis=0)


def _reduction_envelope(
    output: Output, tile: tuple[int, ...], sources: list[Array], results: list[Array]
) -> Envelope:
    """Bounds of a float reduction from the tiles it reduced, as each interpreter run
    stored them (`sources`: one tile per program)."""
    values = _wide(sources)
    values = values.reshape(values.shape[0], -1, *tile)  # (runs, programs, *tile)
    axes = tuple(range(1, 1 + len(tile))) if output.axis is None else (1 + output.axis,)
    x_low, x_high, x_may_nan, x_must_nan = _envelope(list(values))
    if output.check == "sum":
        return _sum_envelope(x_low, x_high, x_may_nan, axes, _wide(results), results[0].dtype)
    # NaN propagates through max and min; other elements lie in their own envelopes.
    may_be_nan = x_may_nan.any(axis=axes).reshape(-1)
    must_be_nan = x_must_nan.any(axis=axes).reshape(-1)
    pick, neutral = (np.max, -np.inf) if output.check == "max" else (np.min, np.inf)
    low = pick(np.where(x_must_nan, neutral, x_low), axis=axes).reshape(-1)
    high = pick(np.where(x_must_nan, neutral, x_high), axis=axes).reshape(-1)
    return low, high, may_be_nan, must_be_nan


def _sum_envelope(
    x_low: Array,
    x_high: Array,
    x_may_nan: Array,
    axes: tuple[int, ...],
    results: Array,
    acc: np.dtype[Any],
) -> Envelope:
    """A float sum lies between the sums of its terms' lows and highs, widened by
    ``2 n u sum(|x|)`` for the order of summation; a sum with infinite or NaN terms is
    the interpreter's when all its runs agree and no order overflows, else unchecked."""
    count = int(np.prod([x_low.shape[a] for a in axes]))
    u = float(ml_dtypes.finfo(acc).eps) / 2
    largest = float(ml_dtypes.finfo(acc).max)
    finite = np.isfinite(x_low) & np.isfinite(x_high) & ~x_may_nan
    with np.errstate(all="ignore"):  # float64 overflow: then unchecked
        magnitude = np.where(finite, np.maximum(np.abs(x_low), np.abs(x_high)), 0.0)
        magnitude = magnitude.sum(axis=axes).reshape(-1)
        slack = 2 * count * u * magnitude
        low = np.where(finite, x_low, 0.0).sum(axis=axes).reshape(-1) - slack
        high = np.where(finite, x_high, 0.0).sum(axis=axes).reshape(-1) + slack
    all_finite = finite.all(axis=axes).reshape(-1)
    first, nan = results[0], np.isnan(results)
    agreed = ((results == first) | (nan & nan[0])).all(axis=0)
    settled = ~all_finite & agreed & (magnitude < largest)
    unchecked = (magnitude >= largest) | (~all_finite & ~settled)
    low = np.where(unchecked, -np.inf, np.where(settled, first, low))
    high = np.where(unchecked, np.inf, np.where(settled, first, high))
    must_be_nan = settled & nan[0]
    return low, high, must_be_nan | unchecked, must_be_nan


@settings(
    max_examples=40,  # about a second each (two targets): the suite's largest single test
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(kernels())
def test_random_kernel_matches_the_interpreter(kernel: GeneratedKernel) -> None:
    note(repr(kernel))
    check_kernel(kernel)
