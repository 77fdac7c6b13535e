"""Grids, and the one ``obj[grid](*args)`` launch syntax everything launchable shares.

Light on purpose (NumPy only): `@blkc.jit` functions use it before anything compiles.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy

Grid = tuple[int, ...] | Callable[[dict[str, Any]], tuple[int, ...]]


class Launchable:
    """``obj[grid](*args, **kwargs)`` for everything that launches: compiled kernels,
    `@blkc.jit` functions, autotuners and Triton-C kernels. `grid` is a tuple (or list) of
    1 to 3 ints, an int, or a function of the launch's meta-parameters returning one."""

    def launch(self, grid: Grid, args: Sequence[object], kwargs: dict[str, Any]) -> None:
        """Run over `grid` with the positional and keyword arguments of the call."""
        raise NotImplementedError

    def __getitem__(self, grid: Grid) -> Callable[..., None]:
        @user_entry
        def run(*args: object, **kwargs: Any) -> None:
            self.launch(grid, args, kwargs)

        return run


def positional_only(name: str, kwargs: dict[str, Any]) -> None:
    """A TypeError when a kernel that takes its arguments by position got some by name."""
    if kwargs:
        raise TypeError(
            f"kernel '{name}' takes its arguments by position (got {', '.join(kwargs)} by name)"
        )


F = TypeVar("F", bound=Callable[..., Any])


def user_entry(function: F) -> F:
    """Mark `function` as where the user's code enters blkc: a located `BlkcError` raised
    below it shows the user's frames and the message, not the compiler's frames (which
    ``BLKC_TRACEBACK=1`` brings back, for bug reports)."""

    @functools.wraps(function)
    def entry(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except Exception as err:
            diagnostics = sys.modules.get("blkc.diagnostics")
            if (
                diagnostics is None
                or not isinstance(err, diagnostics.BlkcError)
                or os.environ.get("BLKC_TRACEBACK") == "1"
            ):
                raise
            raise err.with_traceback(None) from None

    return entry  # type: ignore[return-value]


def check_grid(grid: object, function: bool = True) -> None:
    """A TypeError unless `grid` can be a grid (or, where `function`, a function returning
    one); its values are checked at launch."""
    if (
        function
        and callable(grid)
        or isinstance(grid, int | numpy.integer)
        and not isinstance(grid, bool)
    ):
        return
    if isinstance(grid, tuple | list) and all(
        isinstance(g, int | numpy.integer) and not isinstance(g, bool) for g in grid
    ):
        return
    what = "a grid function must return" if not function else "a grid is"
    raise TypeError(
        f"{what} a tuple of 1 to 3 ints (or a function of the meta-parameters returning "
        f"one), not {grid!r}"
    )


def check_num_cpu_threads(value: object) -> int:
    """`value` when it can be a launch's `num_cpu_threads` (a positive int: how many CPU
    threads the launch may use), else a TypeError or ValueError saying why."""
    if not isinstance(value, int | numpy.integer) or isinstance(value, bool):
        raise TypeError(f"num_cpu_threads must be a positive int, not {value!r}")
    if value < 1:
        raise ValueError(f"num_cpu_threads must be a positive int, got {value}")
    return int(value)


__all__ = [
    "Grid",
    "Launchable",
    "check_grid",
    "positional_only",
    "user_entry",
    "check_num_cpu_threads",
]
