"""Blocks as large as Triton allows (2**20 elements) that a kernel keeps in buffers: more
than `llvm_emitter.STACK_BUFFER_BYTES` of them go on the heap, where on a thread's stack
they overflowed it and killed the process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from blkc.runtime import llvm_emitter

PROGRAM = textwrap.dedent(
    """
    import numpy, blkc, blkc.language as tl

    @blkc.jit
    def two_cumsums(X, Y, n, BLOCK: tl.constexpr):
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < n, other=0.0)
        a = tl.cumsum(x, 0)
        b = tl.cumsum(x * 2, 0, reverse=True)
        tl.store(Y + cols, a + b, mask=cols < n)

    B = 2**20
    n = B - 5
    x = numpy.ones(n, numpy.float32)
    y = numpy.zeros_like(x)
    two_cumsums[(3,)](x, y, n, BLOCK=B)
    i = numpy.arange(n)
    assert (y == (i + 1) + 2 * (n - i)).all(), y[:4]
    kernel = two_cumsums.warmup(x, y, n, BLOCK=B, grid=(3,))
    print("aligned_alloc" in kernel.asm["llvm"], "ok")
    """
)


def test_blocks_past_the_stack_budget_run_from_the_heap(tmp_path: Path) -> None:
    assert 2 * 4 * 2**20 > llvm_emitter.STACK_BUFFER_BYTES
    script = tmp_path / "large.py"
    script.write_text(PROGRAM)
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["True", "ok"]
