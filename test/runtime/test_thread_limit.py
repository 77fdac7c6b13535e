"""Launches from several threads at once: each raises its own failures, and the threads
blkc uses stay within `blkc.set_num_threads`, `BLKC_NUM_THREADS` and the cores."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import launch

InThreads = Callable[[int, Callable[[int], Any]], list[Any]]


@blkc.jit
def checked(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0)
    tl.device_assert(x < 100, "x is too large")


@pytest.mark.parametrize(("size", "block"), [(256, 256), (1 << 17, 8192)], ids=["inline", "pool"])
def test_each_launch_raises_its_own_failed_assertions(
    size: int, block: int, in_threads: InThreads
) -> None:
    """Threads launch the same kernel at once, half of them on arrays that fail its
    assertion: every failing launch raises, and no other does (the failures of one launch
    once went to whichever launch looked next)."""
    good = numpy.zeros(size, numpy.int32)
    bad = numpy.zeros(size, numpy.int32)
    bad[-1] = 500  # one failing element: each one costs a call into Python
    outcomes: dict[int, list[bool]] = {}

    def work(index: int) -> None:
        raised = []
        for _ in range(20):
            try:
                checked[(blkc.cdiv(size, block),)](bad if index % 2 else good, size, BLOCK=block)
                raised.append(False)
            except AssertionError as err:
                assert "x is too large" in str(err)
                raised.append(True)
        outcomes[index] = raised

    in_threads(4, work)
    assert outcomes == {i: [bool(i % 2)] * 20 for i in range(4)}


@blkc.jit
def gather(x_ptr, index_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    index = tl.load(index_ptr + offsets, mask=mask, other=0)
    tl.store(out_ptr + offsets, tl.load(x_ptr + index, mask=mask), mask=mask)


@pytest.mark.parametrize(("size", "block"), [(256, 256), (1 << 16, 4096)], ids=["inline", "pool"])
def test_each_launch_raises_its_own_out_of_bounds_access(
    size: int, block: int, in_threads: InThreads
) -> None:
    """Threads launch the same kernel at once, half of them with an index outside the
    array: every such launch raises IndexError, and no other does (the record of skipped
    accesses was one per kernel, shared by every launch)."""
    x = numpy.arange(size, dtype=numpy.float32)
    good = numpy.arange(size, dtype=numpy.int32)
    bad = good.copy()
    bad[size // 2] = size + 5
    outcomes: dict[int, list[bool]] = {}

    def work(index: int) -> None:
        out = numpy.zeros_like(x)
        raised = []
        for _ in range(20):
            try:
                gather[(blkc.cdiv(size, block),)](
                    x, bad if index % 2 else good, out, size, BLOCK=block
                )
                raised.append(False)
            except IndexError as err:
                assert "outside the arrays" in str(err)
                raised.append(True)
        outcomes[index] = raised

    in_threads(4, work)
    assert outcomes == {i: [bool(i % 2)] * 20 for i in range(4)}


@pytest.fixture
def no_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("BLKC_NUM_THREADS", raising=False)
    monkeypatch.setattr(launch, "cores", lambda: 4)
    yield
    blkc.set_num_threads(None)


class _Recorder:
    """A stand-in launcher that records which threads ran programs."""

    def __init__(self) -> None:
        self.threads: set[int] = set()
        self.lock = threading.Lock()

    def __call__(self, first: int, end: int, *grid: int) -> None:
        with self.lock:
            self.threads.add(threading.get_ident())


def test_the_default_is_every_core(no_limit: None) -> None:
    assert launch.thread_limit() is None
    assert blkc.get_num_threads() == 4


def test_set_num_threads_caps_launches_and_none_resets_it(no_limit: None) -> None:
    blkc.set_num_threads(1)
    assert blkc.get_num_threads() == 1
    recorder = _Recorder()
    launch.run_grid(recorder, [], (64, 1, 1), num_cpu_threads=4)  # capped, not raised
    assert recorder.threads == {threading.get_ident()}
    blkc.set_num_threads(16)
    assert blkc.get_num_threads() == 4  # never above the cores
    blkc.set_num_threads(None)
    assert blkc.get_num_threads() == 4


def test_blkc_num_threads_sets_the_default(no_limit: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BLKC_NUM_THREADS", "2")
    assert blkc.get_num_threads() == 2
    blkc.set_num_threads(3)  # the Python setting wins
    assert blkc.get_num_threads() == 3


@pytest.mark.parametrize("setting", ["0", "two", "-1", "1.5"])
def test_a_bad_blkc_num_threads_is_named(
    no_limit: None, monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    monkeypatch.setenv("BLKC_NUM_THREADS", setting)
    x = numpy.zeros(8, numpy.int32)
    with pytest.raises(
        ValueError, match=f"BLKC_NUM_THREADS must be a positive integer, got '{setting}'"
    ):  # noqa: E501
        checked[(1,)](x, 8, BLOCK=8)


@pytest.mark.parametrize(("value", "error"), [(0, ValueError), (2.0, TypeError), ("2", TypeError)])
def test_set_num_threads_takes_a_positive_int(
    no_limit: None, value: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match="must be a positive int"):
        blkc.set_num_threads(value)  # type: ignore[arg-type]
    assert blkc.get_num_threads() == 4


def test_a_share_caps_the_launches_of_its_thread_only(
    no_limit: None, in_threads: InThreads
) -> None:
    seen: dict[str, int] = {}
    with launch.threads_per_launch(1):
        seen["inside"] = blkc.get_num_threads()
        in_threads(1, lambda _: seen.__setitem__("other thread", blkc.get_num_threads()))
        recorder = _Recorder()
        launch.run_grid(recorder, [], (64, 1, 1))
        assert recorder.threads == {threading.get_ident()}
    assert seen == {"inside": 1, "other thread": 4}
    assert blkc.get_num_threads() == 4


def test_concurrent_launches_never_run_more_chunks_than_the_limit(
    no_limit: None, in_threads: InThreads
) -> None:
    blkc.set_num_threads(2)
    running = peak = 0
    lock = threading.Lock()

    def chunk(first: int, end: int, *grid: int) -> None:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        threading.Event().wait(0.002)
        with lock:
            running -= 1

    in_threads(4, lambda _: launch.run_grid(chunk, [], (16, 1, 1)))
    assert 1 <= peak <= 2
