"""Choosing among compiled candidates by timing them: the one tuner behind
`blkc.autotune` (configs of a `@blkc.jit` kernel) and Triton-C's list-valued defines.

Each candidate runs `warmup` times (the first run compiles it), then `reps` timed runs;
the best time counts and the fastest candidate wins. A `restore` function, when given,
runs before every run (and once at the end), so tuning leaves the arguments as they were.
Progress goes to stderr, one line per candidate with its time;
``BLKC_QUIET_AUTOTUNE=1`` silences it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def progress(message: str, transient: bool = False) -> None:
    """Show a tuning step on stderr; a `transient` one only on a terminal, where the next
    message replaces it."""
    if os.environ.get("BLKC_QUIET_AUTOTUNE") == "1":
        return
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K" + message + ("" if transient else "\n"))
    elif not transient:
        sys.stderr.write(message + "\n")
    sys.stderr.flush()


def best_time(
    run: Callable[[], None], warmup: int, reps: int, restore: Callable[[], None] | None = None
) -> float:
    """The best of `reps` timed calls of `run`, after `warmup` untimed ones."""
    for _ in range(warmup):
        if restore is not None:
            restore()
        run()
    best = float("inf")
    for _ in range(reps):
        if restore is not None:
            restore()
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def choose(
    name: str,
    candidates: Sequence[T],
    label: Callable[[T], str],
    run: Callable[[T], None],
    *,
    warmup: int = 1,
    reps: int = 3,
    restore: Callable[[], None] | None = None,
    skip: tuple[type[Exception], ...] = (),
) -> tuple[T, dict[str, float]]:
    """The fastest of `candidates` for kernel `name` (each run by `run`), and every
    candidate's time in seconds by label. A candidate whose run raises one of `skip` is
    left out (the last such error is raised when none is left)."""
    times: dict[str, float] = {}
    best: tuple[float, T] | None = None
    failure: Exception | None = None
    total = len(candidates)
    for index, candidate in enumerate(candidates, 1):
        step = f"blkc: autotuning {name} [{index}/{total}] {label(candidate)}"
        progress(step, transient=True)
        try:
            seconds = best_time(lambda c=candidate: run(c), warmup, reps, restore)
        except skip as err:
            failure = err
            progress(f"{step}: skipped ({err})")
            continue
        progress(f"{step}: {seconds * 1e3:.3f} ms")
        times[label(candidate)] = seconds
        if best is None or seconds < best[0]:
            best = (seconds, candidate)
    if restore is not None:
        restore()
    if best is None:
        assert failure is not None
        raise failure
    progress(f"blkc: autotuned {name}: chose {label(best[1])} ({best[0] * 1e3:.3f} ms)")
    return best[1], times


__all__ = ["best_time", "choose", "progress"]
