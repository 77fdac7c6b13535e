"""`num_cpu_threads` (triton-cpu's launch option): how many CPU threads a launch may use,
on `blkc.Config`, at launch, and in `run_grid`."""

from __future__ import annotations

import threading
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import launch


@blkc.jit
def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


class _RecordingThreads:
    """A stand-in launcher that records which thread ran each chunk of programs."""

    def __init__(self) -> None:
        self.threads: set[int] = set()
        self.programs = 0
        self._lock = threading.Lock()

    def __call__(self, first: int, end: int, *grid: int) -> None:
        with self._lock:
            self.threads.add(threading.get_ident())
            self.programs += end - first


@pytest.fixture
def four_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch, "cores", lambda: 4)


def test_one_thread_runs_every_program_on_the_calling_thread(four_cores: None) -> None:
    recorder = _RecordingThreads()
    launch.run_grid(recorder, [], (64, 2, 1), num_cpu_threads=1)
    assert recorder.threads == {threading.get_ident()}
    assert recorder.programs == 128


def test_the_pool_gets_one_helper_fewer_than_the_threads(
    four_cores: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    submitted = []

    class Pool:
        """A ThreadPoolExecutor that never runs what it is given."""

        def submit(self, work: object) -> _Done:
            submitted.append(work)
            return _Done()

    class _Done:
        def cancel(self) -> bool:
            return True

        def result(self) -> None:
            return None

    monkeypatch.setattr(launch, "_pool", lambda: Pool())
    recorder = _RecordingThreads()
    launch.run_grid(recorder, [], (64, 1, 1), num_cpu_threads=2)
    assert len(submitted) == 1
    assert recorder.programs == 64  # the calling thread took every chunk the helper left
    submitted.clear()
    launch.run_grid(recorder, [], (64, 1, 1))
    assert len(submitted) == 3  # by default one thread per core


def test_a_launch_passes_num_cpu_threads_down(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pool() -> None:
        raise AssertionError("a launch on one CPU thread must not use the pool")

    monkeypatch.setattr(launch, "_pool", no_pool)
    monkeypatch.setattr(launch, "cores", lambda: 4)
    x = numpy.arange(1000, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    double[(blkc.cdiv(1000, 64),)](x, out, 1000, BLOCK=64, num_cpu_threads=1)
    numpy.testing.assert_array_equal(out, x * 2)
    kernel = double.warmup(x, out, 1000, BLOCK=64)
    out[:] = 0
    kernel[(blkc.cdiv(1000, 64),)](x, out, 1000, num_cpu_threads=1)  # a blkc.Kernel too
    numpy.testing.assert_array_equal(out, x * 2)


def test_a_config_carries_num_cpu_threads_to_its_launches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = []
    real = launch.run_grid

    def recording(
        function: Any, values: Any, grid: Any, num_cpu_threads: int | None, **options: Any
    ) -> None:
        seen.append(num_cpu_threads)
        real(function, values, grid, num_cpu_threads, **options)

    monkeypatch.setattr(launch, "run_grid", recording)
    tuned = blkc.autotune([blkc.Config({"BLOCK": 64}, num_cpu_threads=1)], key=["n"])(double)
    x = numpy.arange(100, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    tuned[(2,)](x, out, 100)
    tuned[(2,)](x, out, 100, num_cpu_threads=2)  # the launch's own value wins
    assert seen == [1, 2]
    numpy.testing.assert_array_equal(out, x * 2)
    assert str(blkc.Config({"BLOCK": 64}, num_cpu_threads=3)) == "BLOCK: 64, num_cpu_threads: 3"


@pytest.mark.parametrize(
    ("value", "error"), [(0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError)]
)
def test_num_cpu_threads_must_be_a_positive_int(value: object, error: type) -> None:
    with pytest.raises(error, match="num_cpu_threads must be a positive int"):
        blkc.Config({"BLOCK": 64}, num_cpu_threads=value)  # type: ignore[arg-type]
    with pytest.raises(error, match="num_cpu_threads must be a positive int"):
        launch.run_grid(_RecordingThreads(), [], (4, 1, 1), num_cpu_threads=value)  # type: ignore[arg-type]
    x = numpy.zeros(8, numpy.float32)
    with pytest.raises(error, match="num_cpu_threads must be a positive int"):
        double[(1,)](x, x, 8, BLOCK=64, num_cpu_threads=value)


def test_launches_from_several_threads_share_the_cores() -> None:
    """However many Python threads launch at once, at most one chunk of programs per core
    runs at a time."""
    import threading
    import time

    from blkc.runtime import launch

    running, most = [0], [0]
    lock = threading.Lock()

    def chunk(*_: object) -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.002)
        with lock:
            running[0] -= 1

    threads = [
        threading.Thread(target=launch.run_grid, args=(chunk, [], (64, 1, 1))) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert 1 <= most[0] <= launch.cores()


def test_small_launches_stay_on_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A launch whose arrays are small runs every program on the calling thread, however
    many programs: waking the pool would cost more."""

    def no_pool() -> None:
        raise AssertionError("a small launch must not use the pool")

    monkeypatch.setattr(launch, "_pool", no_pool)
    monkeypatch.setattr(launch, "cores", lambda: 4)
    x = numpy.arange(4096, dtype=numpy.float32)  # 32 KiB in all, 64 programs
    out = numpy.zeros_like(x)
    double[(64,)](x, out, 4096, BLOCK=64, num_cpu_threads=4)
    numpy.testing.assert_array_equal(out, x * 2)


class _RecordingChunks(_RecordingThreads):
    """Records the programs of each chunk, too."""

    def __init__(self) -> None:
        super().__init__()
        self.chunks: list[tuple[int, int]] = []

    def __call__(self, first: int, end: int, *grid: int) -> None:
        super().__call__(first, end, *grid)
        with self._lock:
            self.chunks.append((first, end))


@pytest.mark.parametrize(
    ("work_bytes", "chunks"),
    [(None, 4 * launch.CHUNKS_PER_WORKER), (launch.CONTIGUOUS_BYTES, 4 * launch.CHUNKS_PER_WORKER),
     (launch.CONTIGUOUS_BYTES - 1, 4), (1 << 20, 4)],
)  # fmt: skip
def test_small_launches_take_one_run_of_programs_per_thread(
    four_cores: None, work_bytes: int | None, chunks: int
) -> None:
    """Below `CONTIGUOUS_BYTES` each thread runs one run of consecutive programs; larger
    launches (or those whose size is not known) are split finer, for balance."""
    recorder = _RecordingChunks()
    launch.run_grid(recorder, [], (64, 1, 1), work_bytes=work_bytes)
    assert len(recorder.chunks) == chunks == launch.chunk_count(64, 4, work_bytes)
    assert sorted(recorder.chunks) == [
        (64 * i // chunks, 64 * (i + 1) // chunks) for i in range(chunks)
    ]
    assert launch.chunk_count(3, 4, 0) == 3  # never more chunks than programs


class _InterruptedPool:
    """Python's pool, but a Ctrl-C arrives at the second submission: the first task is
    running by then."""

    def __init__(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.executor = ThreadPoolExecutor(max_workers=4)
        self.submissions = 0

    def submit(self, work: Any) -> Any:
        self.submissions += 1
        if self.submissions == 2:
            raise KeyboardInterrupt
        return self.executor.submit(work)


class _UntilCancelled:
    """A launcher that runs until `blkc_cancel` is set (as a kernel's endless loop does),
    or 10 s at most, recording whether it is still running."""

    def __init__(self) -> None:
        self.running = threading.Event()
        self.stopped = threading.Event()

    def __call__(self, first: int, end: int, *grid: int) -> None:
        import time

        self.running.set()
        deadline = time.monotonic() + 10
        while not launch.cancel_requested() and time.monotonic() < deadline:
            time.sleep(0.001)
        self.stopped.set()


@pytest.mark.parametrize("interruptible", [True, False])
def test_a_ctrl_c_between_submissions_waits_for_the_started_task(
    four_cores: None, monkeypatch: pytest.MonkeyPatch, interruptible: bool
) -> None:
    """A Ctrl-C that arrives while a launch is still handing chunks to the pool raises only
    once every task it started has ended: those write into the caller's arrays. An
    interruptible kernel is cancelled; another runs to its end."""
    pool = _InterruptedPool()
    monkeypatch.setattr(launch, "_pool", lambda: pool)
    if interruptible:
        kernel: Any = _UntilCancelled()
    else:
        kernel = _Slow()
    try:
        with pytest.raises(KeyboardInterrupt):
            launch.run_grid(kernel, [], (8, 1, 1), num_cpu_threads=3, interruptible=interruptible)
        assert kernel.running.is_set()
        assert kernel.stopped.is_set(), "the launch returned while its task still ran"
        assert not launch.cancel_requested()
    finally:
        pool.executor.shutdown(wait=True)


class _Slow:
    """A launcher whose first chunk takes 0.2 s (on the pool's thread)."""

    def __init__(self) -> None:
        self.running = threading.Event()
        self.stopped = threading.Event()

    def __call__(self, first: int, end: int, *grid: int) -> None:
        import time

        if not self.running.is_set():
            self.running.set()
            time.sleep(0.2)
            self.stopped.set()
