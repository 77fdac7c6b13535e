"""Ctrl-C stops a kernel stuck in a loop: the launch raises KeyboardInterrupt in the
caller, and blkc stays usable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

PROGRAM = textwrap.dedent(
    """
    import signal, sys
    import numpy, blkc, blkc.language as tl

    # Python's Ctrl-C handler, as a process started from a terminal has it: one started
    # by a shell's background job inherits SIGINT ignored, and Python then keeps it so.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    @blkc.jit
    def forever(X, N: tl.constexpr):
        o = tl.arange(0, N)
        x = tl.load(X + o)
        i = 0
        while i < 10:  # never changes
            i = i * 1
        tl.store(X + o, x + i)

    @blkc.jit
    def add_one(X, N: tl.constexpr):
        o = tl.arange(0, N)
        tl.store(X + o, tl.load(X + o) + 1)

    a = numpy.zeros(16, numpy.float32)
    forever.warmup(a, 16, target=sys.argv[1])
    print("launching", flush=True)
    try:
        forever[(4,)](a, 16, target=sys.argv[1])
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    add_one[(1,)](a, 16, target=sys.argv[1])
    print("usable", a[0], flush=True)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
def test_ctrl_c_stops_an_endless_loop(tmp_path: Path, target: str) -> None:
    script = tmp_path / "endless.py"
    script.write_text(PROGRAM)
    child = subprocess.Popen(
        [sys.executable, script, target],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "BLKC_CACHE": "0"},
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "launching"
        time.sleep(0.5)  # inside the loop by now
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert child.returncode == 0, err
    assert out.split() == ["interrupted", "usable", "1.0"]
