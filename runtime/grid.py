"""Grids, and the one ``obj[grid](*args)`` launch syntax everything launchable shares.

Light on purpose (NumPy only): `@blkc.jit` functions use it before anything compiles.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from types import TracebackType
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


USER_ERRORS = (TypeError, ValueError, IndexError, OverflowError, AssertionError)
"""What a launch raises for the user's mistakes besides a located `BlkcError` (arguments,
grid, an access out of bounds, a failed `tl.device_assert`): shown without blkc's frames."""


def user_entry(function: F) -> F:
    """Mark `function` as where the user's code enters blkc: a user error raised below it
    (a located `BlkcError`, or one of `USER_ERRORS`) shows the user's frames and the
    message, not the compiler's frames (which ``BLKC_TRACEBACK=1`` brings back, for bug
    reports)."""

    @functools.wraps(function)
    def entry(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except Exception as err:
            if for_user(err):
                raise err.with_traceback(None) from None
            raise

    return entry  # type: ignore[return-value]


def for_user(err: Exception) -> bool:
    """Whether `err` is the user's mistake, which an entry point re-raises without the
    frames below it (``raise err.with_traceback(None) from None``), as `user_entry` does;
    ``BLKC_TRACEBACK=1`` keeps them."""
    if not _is_user_error(err) or os.environ.get("BLKC_TRACEBACK") == "1":
        return False
    hide_entry_frames()
    return True


def _is_user_error(err: Exception) -> bool:
    if isinstance(err, AssertionError) and not err.args:
        return False  # a bare `assert` of blkc's own failed: a bug, whose frames matter
    diagnostics = sys.modules.get("blkc.diagnostics")
    return isinstance(err, USER_ERRORS) or (
        diagnostics is not None and isinstance(err, diagnostics.BlkcError)
    )


def hide_entry_frames() -> None:
    """Have `sys.excepthook` (once, wrapping the one in place) leave out the frame of
    `user_entry` that re-raised an error: a script's uncaught error then ends at the user's
    line."""
    previous = sys.excepthook
    if getattr(previous, "hides_blkc_entry", False):
        return

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if os.environ.get("BLKC_TRACEBACK") != "1":
            tb = _without_entry_frames(tb)
        previous(kind, value, tb)

    hook.hides_blkc_entry = True  # type: ignore[attr-defined]
    sys.excepthook = hook


ENTRY_CODES: set[Any] = set()
"""The code of other functions where user code enters blkc (as `user_entry`'s `entry`),
whose frames an uncaught user error's traceback leaves out."""

ENTRY_FILES: set[str] = set()
"""The file names of generated code where user code enters blkc (launch code written
for launch stubs), whose frames an uncaught user error's traceback leaves out too."""


def _without_entry_frames(tb: TracebackType | None) -> TracebackType | None:
    frames: list[TracebackType] = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if not (code.co_name == "entry" and code.co_filename == __file__) and (
            code not in ENTRY_CODES and code.co_filename not in ENTRY_FILES
        ):
            frames.append(tb)
        tb = tb.tb_next
    for outer, inner in zip(frames, frames[1:] + [None], strict=True):
        outer.tb_next = inner
    return frames[0] if frames else None


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


def normalize_grid(grid: Grid, meta: dict[str, Any]) -> tuple[int, int, int]:
    """`grid` (or what the grid function `grid` gives for `meta`) as three sizes; a
    TypeError or ValueError for anything that cannot be a grid."""
    if callable(grid):
        return grid_sizes(grid(meta), function=True)
    return grid_sizes(grid, function=False)


def grid_sizes(grid: Any, function: bool) -> tuple[int, int, int]:
    """`grid` (where `function`, what a grid function returned) as three sizes; a TypeError
    or ValueError for anything that cannot be a grid."""
    if type(grid) is tuple and len(grid) == 1:  # the commonest case, checked quickest
        (g,) = grid
        if type(g) is int and 0 <= g < 2**31:
            return g, 1, 1
    elif type(grid) is tuple and 0 < len(grid) <= 3:  # the common case, checked quickly
        for g in grid:
            if type(g) is not int or not 0 <= g < 2**31:
                break
        else:
            padded = (*grid, 1, 1)
            return padded[0], padded[1], padded[2]
    check_grid(grid, function=not function)
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"a grid has 1 to 3 axes, got {grid}")
    if any(g < 0 for g in grid):
        raise ValueError(f"grid sizes must not be negative, got {grid}")
    if any(g >= 2**31 for g in grid):
        raise ValueError(f"grid sizes must be below 2**31, got {grid}")
    padded = (*grid, 1, 1)[:3]
    return padded[0], padded[1], padded[2]


class GridLauncher:
    """``kernel[grid]`` as a launcher keeps it: the grid, and its sizes where it is no
    function (None there, or where the launch through Python is to say what is wrong with
    it)."""

    __slots__ = ("grid", "sizes")

    def __init__(self, grid: Grid):
        self.grid = grid
        self.sizes: tuple[int, int, int] | None = None
        if not callable(grid):
            try:
                self.sizes = normalize_grid(grid, {})
            except (TypeError, ValueError):
                pass  # the launch through Python says what is wrong with it


class KeptLaunchers:
    """Mixin of a `Launchable` whose ``obj[grid]`` is a `GridLauncher` (`_launcher`): the
    launcher of each tuple grid is kept in `_grids` (64 at the most; grid functions are
    not kept: they may hold arrays)."""

    _grids: dict[Any, Any]
    _fresh_launcher: type[GridLauncher] | None = None
    """Where set, the class of a grid function's launcher, built with no call (its `grid`
    set, its `sizes` None): a Triton wrapper builds one at every launch, and from cold
    caches each Python call costs its own cache lines. Else `_launcher` builds it."""

    def _launcher(self, grid: Grid) -> GridLauncher:
        raise NotImplementedError

    def __getitem__(self, grid: Grid) -> Any:
        if type(grid) is tuple:
            launcher = self._grids.get(grid)
            if launcher is None:
                launcher = self._launcher(grid)
                if len(self._grids) < 64:
                    self._grids[grid] = launcher
            return launcher
        fresh = self._fresh_launcher
        if fresh is not None and callable(grid):
            launcher = _new(fresh)
            launcher.grid, launcher.sizes = grid, None
            return launcher
        return self._launcher(grid)


_new = object.__new__


__all__ = [
    "Grid",
    "Launchable",
    "check_grid",
    "positional_only",
    "user_entry",
    "check_num_cpu_threads",
    "normalize_grid",
    "grid_sizes",
    "GridLauncher",
    "KeptLaunchers",
]
