"""Kernels compile in a child process (`runtime.jit.compile_isolated`): an LLVM assertion
that fails there ends the child, and the launching process raises `CodeGeneratorCrash`
and goes on compiling and running kernels; what LLVM reports as errors arrives as the
same exceptions."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import jit
from blkc.runtime.elf_loader import load_module


@blkc.jit
def bump(x_ptr, n, STEP: tl.constexpr):
    o = tl.arange(0, 128)
    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) + STEP, mask=o < n)


def aborting(llvm_ir: str, opt: int, check: bool = True) -> tuple[str, bytes]:
    os.write(2, b"Assertion `VF.isVector()' failed.\n")  # as LLVM writes it: to fd 2
    os.abort()


pytestmark = pytest.mark.skipif(not jit.isolated(), reason="compiles in this process here")


def stop_idle_workers() -> None:
    """End the idle workers, so that the next compilations fork new ones (with a patch)."""
    with jit._Worker.available:
        idle, jit._Worker.idle = jit._Worker.idle, []
    for worker in idle:
        worker._stop(signal.SIGTERM)


def test_a_crash_of_llvm_leaves_the_process_running(monkeypatch: pytest.MonkeyPatch) -> None:
    x = numpy.zeros(100, numpy.float32)
    monkeypatch.setattr(jit, "_optimized_object", aborting)
    stop_idle_workers()  # forked before the patch: start one with it
    with pytest.raises(jit.CodeGeneratorCrash) as info:
        bump[(1,)](x, 100, STEP=3.0)
    message = str(info.value)
    assert "kernel 'bump'" in message and "SIGABRT" in message
    assert "Assertion `VF.isVector()' failed." in message
    monkeypatch.undo()
    assert jit._Worker.started == []  # the next compilation starts a worker without it
    bump[(1,)](x, 100, STEP=3.0)  # not cached by the crash: compiled again, here fine
    bump[(1,)](x, 100, STEP=4.0)
    numpy.testing.assert_array_equal(x, 7.0)


def test_llvm_errors_arrive_as_themselves() -> None:
    missing = (
        "declare void @blkc_no_such_function()\n"
        "define void @f() {\n  call void @blkc_no_such_function()\n  ret void\n}\n"
    )
    with pytest.raises(jit.UnresolvedSymbolError, match="blkc_no_such_function"):
        load_module(*jit.compile_isolated(missing, 3, "f"))
    with pytest.raises(RuntimeError, match="expected"):
        jit.compile_isolated("define void @f( {", 3, "f")


def test_the_isolated_code_is_the_code_compiled_here() -> None:
    text = "define i32 @twice(i32 %x) {\n  %y = add i32 %x, %x\n  ret i32 %y\n}\n"
    optimized, code = jit.compile_isolated(text, 3, "twice")
    assert optimized == jit.compile_ir(text, 3).llvm_ir
    assert code[:4] == b"\x7fELF"


def test_the_setting_compiles_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(jit.ISOLATE_SETTING, "0")
    assert not jit.isolated()
    monkeypatch.setattr(jit, "compile_isolated", aborting)
    x = numpy.zeros(100, numpy.float32)
    bump[(1,)](x, 100, STEP=5.0)
    numpy.testing.assert_array_equal(x, 5.0)


def test_a_worker_killed_between_compilations_is_replaced() -> None:
    text = "define i32 @one() {\n  ret i32 1\n}\n"
    stop_idle_workers()
    jit.compile_isolated(text, 3, "one")
    (worker,) = jit._Worker.idle
    os.kill(worker.pid, signal.SIGKILL)
    stat = f"/proc/{worker.pid}/stat"
    while open(stat).read().split(") ")[1][0] != "Z":  # until it has ended
        time.sleep(0.001)
    optimized, _ = jit.compile_isolated(text, 3, "one")
    assert "ret i32 1" in optimized
    assert [w.pid for w in jit._Worker.started] != [worker.pid] and worker not in jit._Worker.idle


def test_an_idle_worker_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """So that memory it shares with this process (arrays freed here since it forked) is
    not kept: it ends `WORKER_IDLE` seconds after its last compilation."""
    monkeypatch.setattr(jit, "WORKER_IDLE", 0.05)
    text = "define i32 @two() {\n  ret i32 2\n}\n"
    jit.compile_isolated(text, 3, "two")
    worker = jit._Worker.idle[-1]
    deadline = time.monotonic() + 10
    while worker in jit._Worker.started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert jit._Worker.started == [] and jit._Worker.idle == []
    while os.path.exists(f"/proc/{worker.pid}") and time.monotonic() < deadline:
        time.sleep(0.01)  # it leaves the pool first, then the timer's thread reaps it
    assert not os.path.exists(f"/proc/{worker.pid}")  # ended and reaped (no zombie)
    assert "ret i32 2" in jit.compile_isolated(text, 3, "two")[0]  # a new one serves


def slow_pid(llvm_ir: str, opt: int, check: bool = True) -> tuple[str, bytes]:
    """A worker's compilation that takes 0.3 s and says which process made it."""
    time.sleep(0.3)
    return str(os.getpid()), b""


def compile_two_at_once(in_threads: Callable[..., list[Any]]) -> tuple[set[str], float]:
    start = time.monotonic()
    results = in_threads(2, lambda _: jit.compile_isolated("", 3, "k")[0])
    return set(results), time.monotonic() - start


@pytest.mark.skipif(jit._Worker.limit() < 2, reason="one core: one worker")
def test_compilations_at_once_run_in_workers_of_their_own(
    monkeypatch: pytest.MonkeyPatch, in_threads: Callable[..., list[Any]]
) -> None:
    monkeypatch.setattr(jit, "_optimized_object", slow_pid)
    stop_idle_workers()
    pids, seconds = compile_two_at_once(in_threads)
    assert len(pids) == 2 and seconds < 0.55  # side by side, not one after the other
    assert len(jit._Worker.idle) == 2
    stop_idle_workers()


def test_no_more_workers_than_cores(
    monkeypatch: pytest.MonkeyPatch, in_threads: Callable[..., list[Any]]
) -> None:
    monkeypatch.setattr(jit, "_optimized_object", slow_pid)
    monkeypatch.setattr(jit._Worker, "limit", staticmethod(lambda: 1))
    stop_idle_workers()
    pids, seconds = compile_two_at_once(in_threads)
    assert len(pids) == 1 and seconds >= 0.6  # the second waited for the one worker
    stop_idle_workers()


def test_compile_in_parallel_drops_a_failing_job() -> None:
    done: list[int] = []

    def failing() -> None:
        raise RuntimeError("met again at the launch")

    jit.compile_in_parallel([failing, lambda: done.append(1), lambda: done.append(2)])
    assert sorted(done) == ([1, 2] if jit._Worker.limit() > 1 else [])


def test_a_worker_retiring_while_another_starts_leaves_it_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Workers retire on a timer thread while compilations fork new ones: a retiring
    worker's pipes, once closed, may give their numbers to a new worker's, which must not
    close them as its inheritance (it would end at once: exit status 0)."""
    monkeypatch.setattr(jit, "WORKER_IDLE", 0.001)
    text = "define i32 @three() {\n  ret i32 3\n}\n"
    for _ in range(100):
        assert "ret i32 3" in jit.compile_isolated(text, 3, "three")[0]
        time.sleep(0.0015)


def _compile_in_child() -> tuple[bool, bool, list[int]]:
    text = "define i32 @five() {\n  ret i32 5\n}\n"
    fresh = jit._Worker.started == [] and jit._Worker.idle == []
    optimized, _ = jit.compile_isolated(text, 3, "five")
    return fresh, "ret i32 5" in optimized, [w.pid for w in jit._Worker.started]


def test_a_forked_process_starts_a_pool_of_its_own(in_forked_child: Callable[..., Any]) -> None:
    """A process forked while this one has workers does not share them (their pipes carry
    this process's requests): its pool starts empty, and its compilations fork workers of
    their own; this process's workers go on serving it."""
    text = "define i32 @four() {\n  ret i32 4\n}\n"
    jit.compile_isolated(text, 3, "four")
    ours = [w.pid for w in jit._Worker.started]
    assert ours
    fresh, compiled, theirs = in_forked_child(_compile_in_child)
    assert fresh and compiled and theirs and not set(theirs) & set(ours)
    assert "ret i32 4" in jit.compile_isolated(text, 3, "four")[0]
