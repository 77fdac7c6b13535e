"""Kernels compile in a child process (`runtime.jit.compile_isolated`): an LLVM assertion
that fails there ends the child, and the launching process raises `CodeGeneratorCrash`
and goes on compiling and running kernels; what LLVM reports as errors arrives as the
same exceptions."""

from __future__ import annotations

import os
import signal
import time

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


def test_a_crash_of_llvm_leaves_the_process_running(monkeypatch: pytest.MonkeyPatch) -> None:
    x = numpy.zeros(100, numpy.float32)
    monkeypatch.setattr(jit, "_optimized_object", aborting)
    if jit._Worker.current is not None:  # forked before the patch: start one with it
        jit._Worker.current._stop(signal.SIGTERM)
    with pytest.raises(jit.CodeGeneratorCrash) as info:
        bump[(1,)](x, 100, STEP=3.0)
    message = str(info.value)
    assert "kernel 'bump'" in message and "SIGABRT" in message
    assert "Assertion `VF.isVector()' failed." in message
    monkeypatch.undo()
    assert jit._Worker.current is None  # the next compilation starts a worker without it
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
    jit.compile_isolated(text, 3, "one")
    worker = jit._Worker.current
    assert worker is not None
    os.kill(worker.pid, signal.SIGKILL)
    stat = f"/proc/{worker.pid}/stat"
    while open(stat).read().split(") ")[1][0] != "Z":  # until it has ended
        time.sleep(0.001)
    optimized, _ = jit.compile_isolated(text, 3, "one")
    assert "ret i32 1" in optimized
    assert jit._Worker.current is not None and jit._Worker.current.pid != worker.pid


def test_an_idle_worker_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """So that memory it shares with this process (arrays freed here since it forked) is
    not kept: it ends `WORKER_IDLE` seconds after its last compilation."""
    monkeypatch.setattr(jit, "WORKER_IDLE", 0.05)
    text = "define i32 @two() {\n  ret i32 2\n}\n"
    jit.compile_isolated(text, 3, "two")
    worker = jit._Worker.current
    assert worker is not None
    deadline = time.monotonic() + 10
    while jit._Worker.current is worker and time.monotonic() < deadline:
        time.sleep(0.01)
    assert jit._Worker.current is None
    with pytest.raises(ChildProcessError):
        os.waitpid(worker.pid, os.WNOHANG)  # ended and reaped
    assert "ret i32 2" in jit.compile_isolated(text, 3, "two")[0]  # a new one serves
