"""Triton-C kernels launched like `@blkc.jit` kernels, autotuned over list-valued defines.

A define given a list (`-DTM=[64,128]`, `defines={"TM": [64, 128]}`) makes every
combination of values a candidate. On the first launch for a given set of argument
shapes, each candidate runs on a copy-restored snapshot of the arguments (best of a few
runs, after a warm-up that also JIT-compiles it); the fastest is kept for those shapes and
runs once more on the arguments as given, so tuning never leaves partial results behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from blkc import autotuning
from blkc.kernel import Kernel
from blkc.runtime import launch
from blkc.runtime.grid import Launchable, positional_only

TIMED_RUNS = 3
"""Timed runs per candidate; the best counts."""

DefineValue = str | int | float | bool


@dataclass
class Candidate:
    """One compiled combination of the defines' values."""

    defines: dict[str, DefineValue]
    kernel: Kernel

    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.defines.items()) or "(no defines)"


@dataclass
class TritonCKernel(Launchable):
    """A compiled Triton-C kernel: launch it with ``kernel[grid](*args)``.

    `grid` is a tuple, or a function of the meta-parameters: a dict of the defines with
    the values of the candidate being launched (``lambda meta: (cdiv(n, meta["TM"]),)``).
    With several candidates, the first launch for each key (the arrays' shapes and
    dtypes, the scalars' types) times them all and keeps the fastest, printing progress
    to stderr; `chosen` records the choice per key.
    """

    name: str
    candidates: list[Candidate]
    chosen: dict[tuple[Any, ...], Candidate] = field(default_factory=dict)
    _last: Candidate | None = None

    def launch(self, grid: launch.Grid, args: Sequence[object], kwargs: dict[str, Any]) -> None:
        positional_only(self.name, kwargs)
        self.run(grid, args)

    def run(self, grid: launch.Grid, args: Sequence[object]) -> None:
        """Launch on `grid` (tuning first when this key has several candidates)."""
        key = _key(args)
        candidate = self.chosen.get(key)
        if candidate is None:
            candidate = self.candidates[0]
            if len(self.candidates) > 1:
                candidate = self._tune(grid, args)
            self.chosen[key] = candidate
        self._last = candidate
        candidate.kernel.run(grid, args, candidate.defines)

    @property
    def kernel(self) -> Kernel:
        """The candidate launched last (the first before any launch)."""
        return (self._last or self.candidates[0]).kernel

    @property
    def params(self) -> list[Any]:
        return self.kernel.params

    @property
    def asm(self) -> dict[str, str]:
        """Each stage's text (see `blkc.Kernel.asm`) of the candidate launched last."""
        return self.kernel.asm

    def _tune(self, grid: launch.Grid, args: Sequence[object]) -> Candidate:
        arrays = [a for a in (launch.as_array(arg) for arg in args) if a is not None]
        snapshot = [a.copy() for a in arrays]

        def restore() -> None:
            for array, saved in zip(arrays, snapshot, strict=True):
                numpy.copyto(array, saved)

        best, _ = autotuning.choose(
            self.name,
            self.candidates,
            Candidate.label,
            lambda candidate: candidate.kernel.run(grid, args, candidate.defines),
            warmup=1,
            reps=TIMED_RUNS,
            restore=restore,
            skip=(TypeError, ValueError, IndexError, OverflowError),
        )
        return best


def _key(args: Sequence[object]) -> tuple[Any, ...]:
    key: list[Any] = []
    for arg in args:
        array = launch.as_array(arg)
        key.append(type(arg).__name__ if array is None else (array.shape, array.dtype.str))
    return tuple(key)
