"""A loop of a kernel's own code around short block loops compiles and computes what the
same steps compute in NumPy: LLVM, once it had unrolled the block loops whole, tried to
vectorize such a loop across its iterations, and an assertion of its cost model aborted
the process (a random kernel of the control-flow fuzzer). The kernel runs in a child
process, so that such an abort fails this test instead of ending the test run."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy
import pytest

PROGRAM = textwrap.dedent(
    """
    import json, sys
    import numpy, blkc, blkc.language as tl

    @blkc.jit
    def kernel(X, Y, OUT, OUTF, n, m):
        r = tl.arange(0, 16)
        xi = tl.load(X + r)
        yi = tl.load(Y + r)
        xf = xi.to(tl.float32) * 0.25
        s0 = tl.load(X + 5)
        w1 = 0
        while w1 < (n & 3):
            xf = tl.where(xf > xf - 1.0, xf, xf - 1.0) - xf
            yi = tl.maximum(tl.where(-4 > w1, -4, w1), n) - (m + n) + tl.zeros([16], tl.int32)
            yi = tl.where(m > tl.minimum(tl.minimum(yi, xi), 6), m, tl.minimum(yi, xi))
            s0 = s0 + tl.sum(xi & 3, axis=0)
            w1 += 1
        for i3 in range(0, 3, 1):
            yi = ((xi + 9) - s0) + ((n % ((i3 & 7) + 1)) % ((tl.where(xi > i3, xi, i3) & 7) + 1))
            s0 = s0 + tl.sum(xi & 3, axis=0)
        xf = tl.maximum(tl.maximum(0.5, -1.0 - xf), (xf * -1.0) - yi.to(tl.float32))
        tl.store(OUT + r, xi + yi * 3 + s0)
        tl.store(OUTF + r, xf)

    x, y = (numpy.array(v, numpy.int32) for v in json.loads(sys.argv[1]))
    out, outf = numpy.zeros(16, numpy.int32), numpy.zeros(16, numpy.float32)
    kernel[(1,)](x, y, out, outf, 2, 3)
    print(json.dumps([out.tolist(), outf.tolist()]))
    """
)


def expected(x: numpy.ndarray, y: numpy.ndarray, n: int, m: int) -> tuple[list, list]:
    """The kernel's steps in NumPy (int32 wraps as the kernel's arithmetic does)."""
    i32 = numpy.int32
    xf = x.astype(numpy.float32) * numpy.float32(0.25)
    yi, s0 = y.copy(), x[5]
    for w1 in range(n & 3):
        xf = numpy.where(xf > xf - 1, xf, xf - 1) - xf
        yi = numpy.full(16, max(max(-4, w1), n) - (m + n), i32)
        low = numpy.minimum(yi, x)
        yi = numpy.where(m > numpy.minimum(low, 6), i32(m), low).astype(i32)
        s0 = i32(s0 + (x & 3).sum(dtype=i32))
    for i3 in range(3):
        divisor = (numpy.where(x > i3, x, i3) & 7) + 1
        yi = ((x + 9) - s0 + (n % ((i3 & 7) + 1)) % divisor).astype(i32)
        s0 = i32(s0 + (x & 3).sum(dtype=i32))
    xf = numpy.maximum(numpy.maximum(0.5, -1.0 - xf), xf * -1.0 - yi.astype(numpy.float32))
    return (x + yi * 3 + s0).tolist(), xf.astype(numpy.float32).tolist()


def test_a_user_loop_around_short_block_loops_compiles(tmp_path: Path) -> None:
    rng = numpy.random.default_rng(561)
    x = rng.integers(-10, 10, 16).astype(numpy.int32)
    y = rng.integers(-10, 10, 16).astype(numpy.int32)
    script = tmp_path / "kernel.py"
    script.write_text(PROGRAM)
    result = subprocess.run(
        [sys.executable, script, json.dumps([x.tolist(), y.tolist()])],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out, outf = json.loads(result.stdout.splitlines()[-1])
    want_out, want_outf = expected(x, y, 2, 3)
    assert out == want_out
    numpy.testing.assert_array_equal(numpy.float32(outf), numpy.float32(want_outf))


COMBINE_PROGRAM = textwrap.dedent(
    """
    import json, sys
    import numpy, blkc, blkc.language as tl

    @blkc.jit
    def smaller(a, b):
        return tl.minimum(a, b)

    @blkc.jit
    def kernel(X, OUT):
        x = tl.load(X + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
        t = tl.interleave(x, x + 3).to(tl.float32)
        tl.store(OUT + tl.arange(0, 16), tl.reduce(t, 1, smaller))

    x = numpy.array(json.loads(sys.argv[1]), numpy.int8)
    out = numpy.zeros(16, numpy.float32)
    kernel[(1,)](x, out, target=sys.argv[2])
    print(json.dumps(out.tolist()))
    """
)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
def test_a_combine_function_reducing_with_minimum_compiles(tmp_path: Path, target: str) -> None:
    """A row reduced with a combine function of `tl.minimum` (LLVM's minnum) after an
    interleave and a conversion: LLVM's loop vectorizer aborted the process on its loop
    (a random kernel of the shape fuzzer); such loops now stay scalar."""
    x = numpy.random.default_rng(0).integers(-6, 7, 256).astype(numpy.int8)
    script = tmp_path / "kernel.py"
    script.write_text(COMBINE_PROGRAM)
    result = subprocess.run(
        [sys.executable, script, json.dumps(x.tolist()), target],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    rows = x.reshape(16, 16)
    want = numpy.minimum(rows, rows + 3).min(axis=1).astype(numpy.float32)
    numpy.testing.assert_array_equal(
        numpy.float32(json.loads(result.stdout.splitlines()[-1])), want
    )
