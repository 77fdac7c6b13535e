"""A warm start: a new process whose kernel is in the disk cache launches it without
importing the compiler (xDSL, the frontend's code generator, the LLVM emitter)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

KERNELS = """
import blkc
import blkc.language as tl


@blkc.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)
"""

SCRIPT = """
import sys, numpy
from warm_kernels import add
x = numpy.arange(3000, dtype=numpy.float32)
out = numpy.zeros_like(x)
add[(3,)](x, x, out, 3000, BLOCK=1024)
assert (out == 2 * x).all()
print(sorted({m for m in sys.modules if m.startswith(("xdsl", "blkc.dialects",
      "blkc.passes", "blkc.frontend.python", "blkc.runtime.llvm_emitter"))}))
"""


def test_a_cache_hit_launches_without_the_compiler(tmp_path: Path) -> None:
    (tmp_path / "warm_kernels.py").write_text(KERNELS)
    env = {**os.environ, "BLKC_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}

    def run() -> str:
        result = subprocess.run(
            [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    assert run() != "[]"  # the first process compiles
    assert run() == "[]"  # the second finds it on disk and needs none of that
