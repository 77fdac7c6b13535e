"""Choosing among compiled candidates by timing them: the one tuner behind
`blkc.autotune` (configs of a `@blkc.jit` kernel) and Triton-C's list-valued defines.

Each candidate runs `warmup` times (the first run compiles it), then `reps` timed runs;
the best time counts and the fastest candidate wins. A `restore` function, when given,
runs before every run (and once at the end), so tuning leaves the arguments as they were.
Progress goes to stderr, one line per candidate with its time;
``BLKC_QUIET_AUTOTUNE=1`` silences it.

On the CPU, candidates can be pruned before any is compiled to native code, by the bytes
of the buffers a program keeps its blocks in (its *working set*, known once the kernel is
lowered to loops): `prune_by_working_set` drops those whose working set exceeds the L2
cache of a core (keeping the smallest where none fits), then, of those that fit, keeps the
`KEEP_LARGEST` largest (bigger tiles amortise the copies into those buffers).
``BLKC_AUTOTUNE_PRUNE=0`` turns this off (`pruning_enabled`).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from blkc.runtime.cpu_target import CacheSizes

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


KEEP_LARGEST = 4
"""How many candidates that fit the L2 cache `prune_by_working_set` keeps at most."""

PRUNE_ENV = "BLKC_AUTOTUNE_PRUNE"
"""The environment variable that turns the pruning off (`0`) where no keyword decides."""


def pruning_enabled(setting: bool | None) -> bool:
    """Whether to prune by working set: `setting` where given, else unless
    ``BLKC_AUTOTUNE_PRUNE=0``."""
    if setting is not None:
        return setting
    return os.environ.get(PRUNE_ENV, "1").strip() != "0"


def _kib(size: int) -> str:
    return f"{size / 1024:.0f} KiB" if size >= 1024 else f"{size} bytes"


def prune_by_working_set(
    candidates: Sequence[T], working_sets: Sequence[int], caches: CacheSizes
) -> tuple[list[T], list[tuple[T, str]]]:
    """The `candidates` worth timing, in their order, and each one left out with the
    reason: those whose working set (bytes, one per candidate) exceeds `caches.l2`, unless
    none fits (then the smallest stays); then, where more than `KEEP_LARGEST` fit and their
    working sets differ, all but the `KEEP_LARGEST` largest (ties: the earlier one)."""
    sizes = list(working_sets)
    if len(sizes) != len(candidates):
        raise ValueError(f"{len(candidates)} candidates but {len(sizes)} working sets")
    l2 = caches.l2
    fitting = [i for i, size in enumerate(sizes) if size <= l2]
    if not fitting:
        fitting = [min(range(len(sizes)), key=lambda i: (sizes[i], i))]
    reasons = {
        i: f"working set {_kib(sizes[i])} exceeds the L2 cache ({_kib(l2)} a core)"
        for i in range(len(sizes))
        if i not in fitting
    }
    if len(fitting) > KEEP_LARGEST and len({sizes[i] for i in fitting}) > 1:
        largest = sorted(fitting, key=lambda i: (-sizes[i], i))[:KEEP_LARGEST]
        for i in fitting:
            if i not in largest:
                reasons[i] = (
                    f"working set {_kib(sizes[i])}: smaller than the {KEEP_LARGEST} "
                    f"largest that fit the L2 cache ({_kib(l2)} a core)"
                )
        fitting = sorted(largest)
    dropped = [(candidates[i], reasons[i]) for i in sorted(reasons)]
    return [candidates[i] for i in fitting], dropped


def report_pruned(name: str, dropped: Sequence[tuple[T, str]], label: Callable[[T], str]) -> None:
    """One progress line for each candidate of kernel `name` left out, with its reason."""
    for candidate, reason in dropped:
        progress(f"blkc: autotuning {name}: pruned {label(candidate)}: {reason}")


__all__ = [
    "KEEP_LARGEST",
    "PRUNE_ENV",
    "best_time",
    "choose",
    "progress",
    "prune_by_working_set",
    "pruning_enabled",
    "report_pruned",
]
