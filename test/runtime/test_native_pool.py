"""The native thread pool (`blkc.runtime.native_pool`): every program of every job runs
exactly once, whichever thread takes it and however many threads launch at once; launches
through stubs and through Python use it for grids too large to run inline."""

from __future__ import annotations

import ctypes
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import launch, native_pool
from blkc.runtime.jit import compile_ir

pytestmark = pytest.mark.skipif(
    not native_pool.available() or launch.cores() < 2, reason="needs the native pool"
)

# A packed launcher that counts each program it runs: counts[program] += 1, atomically.
COUNTER = """
define void @count(ptr %argv, ptr %bounds, i64 %start, i64 %end, i32 %gx, i32 %gy, i32 %gz) {
entry:
  %counts = load ptr, ptr %argv
  br label %loop
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %body ]
  %more = icmp slt i64 %i, %end
  br i1 %more, label %body, label %done
body:
  %slot = getelementptr i32, ptr %counts, i64 %i
  %old = atomicrmw add ptr %slot, i32 1 seq_cst
  %next = add i64 %i, 1
  br label %loop
done:
  ret void
}
"""


@pytest.fixture(scope="module")
def counter() -> int:
    module = compile_ir(COUNTER, 2)
    counter.module = module  # type: ignore[attr-defined]  # keep the code alive
    return module.address("count")


def test_every_program_of_every_job_runs_once(counter: int) -> None:
    pool = native_pool.pool(launch.cores() - 1)
    counts = numpy.zeros(1000, numpy.int32)
    argv = native_pool.pack_arguments([ctypes.c_void_p(counts.ctypes.data)])
    for _ in range(20):  # back to back: workers still spinning, or asleep
        for total in (1, 2, 7, 64, 1000):
            for chunks in {1, 2, min(total, 5), total}:
                for seats in range(launch.cores()):
                    pool.run(
                        counter, ctypes.addressof(argv), None, total, chunks, total, 1, 1, seats
                    )
                    assert (counts[:total] == 1).all() and (counts[total:] == 0).all()
                    counts[:] = 0


def test_launches_from_several_threads_take_turns(counter: int) -> None:
    pool = native_pool.pool(launch.cores() - 1)
    per_thread = [numpy.zeros(512, numpy.int32) for _ in range(4)]

    def launch_many(counts: numpy.ndarray) -> None:
        argv = native_pool.pack_arguments([ctypes.c_void_p(counts.ctypes.data)])
        for _ in range(200):
            pool.run(counter, ctypes.addressof(argv), None, 512, 16, 512, 1, 1, 1)

    threads = [threading.Thread(target=launch_many, args=(c,)) for c in per_thread]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for counts in per_thread:
        assert (counts == 200).all()


def test_arguments_travel_in_eight_byte_slots() -> None:
    values = [
        ctypes.c_void_p(0x1234),
        ctypes.c_int32(-5),
        ctypes.c_float(1.5),
        ctypes.c_double(-2.25),
        ctypes.c_bool(True),
        ctypes.c_void_p(None),
    ]
    packed = native_pool.pack_arguments(values).raw
    assert len(packed) == 48
    assert struct.unpack_from("<Qq", packed, 0) == (0x1234, -5)
    assert struct.unpack_from("<f", packed, 16) == (1.5,)
    assert struct.unpack_from("<dqQ", packed, 24) == (-2.25, 1, 0)


@blkc.jit
def scale_rows(x_ptr, y_ptr, n_cols, factor, CHECK: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols)
    if CHECK:
        tl.device_assert(x >= 0, "negative input")
    tl.store(y_ptr + row * n_cols + cols, x * factor, mask=cols < n_cols)


def test_large_grids_compute_numpy_results_through_python_and_stubs() -> None:
    x = numpy.arange(256 * 1000, dtype=numpy.float32).reshape(256, 1000)  # 1 MB: the pool
    for factor in (2.0, 3.0, 0.5, -1.0):  # the stub takes the launches after the second
        y = numpy.zeros_like(x)
        scale_rows[(256,)](x, y, 1000, factor, CHECK=False, BLOCK=1024)
        numpy.testing.assert_array_equal(y, x * numpy.float32(factor))


@blkc.jit
def program_ids(out_ptr, BLOCK: tl.constexpr):
    x, y, z = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    nx, ny = tl.num_programs(0), tl.num_programs(1)
    first = ((z * ny + y) * nx + x) * BLOCK
    tl.store(out_ptr + first + tl.arange(0, BLOCK), x + 100 * y + 10000 * z)


@pytest.mark.parametrize("grid", [(37, 29, 11), (5, 1, 300), (1, 301, 7), (1000, 1, 1)])
def test_chunks_of_three_axis_grids_count_every_program_id(grid: tuple[int, ...]) -> None:
    # The pool's chunks start mid-row; each chunk's launcher divides once and then counts.
    gx, gy, gz = grid
    out = numpy.full((gz, gy, gx, 16), -1, numpy.int32)  # over `INLINE_BYTES`: the pool
    for _ in range(3):  # through Python, then through the stub
        out[...] = -1
        program_ids[grid](out, BLOCK=16)
        z, y, x = numpy.indices((gz, gy, gx))
        expected = numpy.broadcast_to((x + 100 * y + 10000 * z)[..., None], out.shape)
        numpy.testing.assert_array_equal(out, expected)


def test_one_thread_runs_large_grids_through_the_stub(monkeypatch: pytest.MonkeyPatch) -> None:
    # With one thread allowed, the stub runs the grid on the calling thread (it used to
    # leave it to the Python path, which costs 100 us and more a launch).
    x = numpy.arange(256 * 1000, dtype=numpy.float32).reshape(256, 1000)
    y = numpy.zeros_like(x)
    blkc.set_num_threads(1)
    try:
        for _ in range(2):  # the second launch builds the stub
            scale_rows[(256,)](x, y, 1000, 2.0, CHECK=False, BLOCK=1024)
        through_python: list[object] = []
        jit_type = type(scale_rows)
        original = jit_type._run_noted
        monkeypatch.setattr(
            jit_type,
            "_run_noted",
            lambda self, *a: through_python.append(a) or original(self, *a),
        )
        scale_rows[(256,)](x, y, 1000, 3.0, CHECK=False, BLOCK=1024)
        assert through_python == []
        numpy.testing.assert_array_equal(y, x * numpy.float32(3.0))
    finally:
        blkc.set_num_threads(None)


def test_kernels_that_assert_raise_from_large_grids() -> None:
    # They stay off the native pool (its workers have no launch to record failures for).
    x = numpy.ones((256, 1000), numpy.float32)
    y = numpy.zeros_like(x)
    for _ in range(3):
        scale_rows[(256,)](x, y, 1000, 2.0, CHECK=True, BLOCK=1024)
    x[200, 7] = -1  # a program the pool's thread may run
    for _ in range(3):
        with pytest.raises(AssertionError, match="negative input"):
            scale_rows[(256,)](x, y, 1000, 2.0, CHECK=True, BLOCK=1024)
    x[200, 7] = 1
    scale_rows[(256,)](x, y, 1000, 2.0, CHECK=True, BLOCK=1024)  # nothing left over


def test_threads_launching_large_grids_at_once_get_their_own_results() -> None:
    inputs = [numpy.full((256, 1000), i, numpy.float32) for i in range(4)]
    outputs = [numpy.zeros_like(x) for x in inputs]
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for factor in range(1, 20):
                scale_rows[(256,)](
                    inputs[i], outputs[i], 1000, float(factor), CHECK=False, BLOCK=1024
                )
                assert (outputs[i] == i * factor).all()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[0]


def _launch_in_child() -> bool:
    x = numpy.arange(256 * 1000, dtype=numpy.float32).reshape(256, 1000)
    y = numpy.zeros_like(x)
    scale_rows[(256,)](x, y, 1000, 2.0, CHECK=False, BLOCK=1024)
    return bool((y == 2 * x).all())


def test_a_forked_child_launches_large_grids(in_forked_child: Callable[..., Any]) -> None:
    x = numpy.ones((256, 1000), numpy.float32)
    for _ in range(3):  # the pool and a stub exist before the fork
        scale_rows[(256,)](x, numpy.zeros_like(x), 1000, 2.0, CHECK=False, BLOCK=1024)
    assert in_forked_child(_launch_in_child) is True


def test_workers_spin_for_milliseconds_after_a_job_then_sleep(counter: int) -> None:
    """A worker woken by a job spins for a few milliseconds (`IDLE_SPIN`), so that the
    launches of a loop find it awake, then sleeps instead of burning its core."""
    pool = native_pool.pool(launch.cores() - 1)
    spans = []
    for _ in range(5):  # a busy host may deschedule this thread past a worker's spin
        counts = numpy.zeros(64, numpy.int32)
        argv = native_pool.pack_arguments([ctypes.c_void_p(counts.ctypes.data)])
        pool.run(counter, ctypes.addressof(argv), None, 64, 64, 64, 1, 1, pool.workers)
        assert (counts == 1).all()
        # A woken worker counts as sleeping until it runs, which a busy host delays.
        woken = time.monotonic()
        while pool.sleeping() and time.monotonic() < woken + 1.0:
            pass
        if pool.sleeping():
            continue  # it woke and slept again while this thread was descheduled
        awake = time.monotonic()
        while not pool.sleeping() and time.monotonic() < awake + 1.0:
            pass
        spans.append(time.monotonic() - awake)  # longer, never shorter, where descheduled
        if spans[-1] >= 0.0005:
            break
    # Half a millisecond: a tenth of the spin on Zen 4, a fiftieth of a faster pause's.
    assert spans and max(spans) >= 0.0005, f"workers went to sleep after {spans} s"
    deadline = time.monotonic() + 10.0
    while pool.sleeping() < pool.workers and time.monotonic() < deadline:
        time.sleep(0.001)
    assert pool.sleeping() == pool.workers, "a worker kept spinning for 10 seconds"
