"""Accuracy of the vectorizable float32 math functions against NumPy in float64 (Python's
`math.erf` for erf) rounded to float32, and that they vectorize (no scalar C library call
is left). NumPy's own float32 functions are up to 4 ulp from that reference, so they are
not the reference here."""

import math
import re

import numpy
import pytest

import blkc

KERNEL = """
module {{
  func.func @k(%a: !blk.ptr<f32>, %o: !blk.ptr<f32>) attributes {{blk.kernel}} {{
    %pid = blk.program_id 0 : i32
    %c = blk.constant 4096 : i32
    %s = blk.mul %pid, %c : i32
    %r = blk.arange 0, 4096 : tensor<4096xi32>
    %offs = blk.add %s, %r : i32, tensor<4096xi32> -> tensor<4096xi32>
    %pa = blk.addptr %a, %offs : !blk.ptr<f32>, tensor<4096xi32> -> tensor<4096x!blk.ptr<f32>>
    %x = blk.load %pa : tensor<4096x!blk.ptr<f32>>
    %y = blk.{fn} %x : tensor<4096xf32>
    %po = blk.addptr %o, %offs : !blk.ptr<f32>, tensor<4096xi32> -> tensor<4096x!blk.ptr<f32>>
    blk.store %po, %y : tensor<4096x!blk.ptr<f32>>
    func.return
  }}
}}
"""

EDGES = [numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1.0, -1.0, 1e-45, 88.72283935546875]


def inputs(fn: str) -> numpy.ndarray:
    rng = numpy.random.default_rng(7)
    n = 4096 * 64
    if fn == "exp":
        x = rng.uniform(-110, 95, n)
    elif fn == "exp2":
        x = numpy.concatenate([rng.uniform(-155, 130, n // 2), rng.uniform(-2, 2, n // 2)])
    elif fn in ("log", "log2"):
        x = numpy.concatenate(
            [numpy.exp2(rng.uniform(-149, 128, n // 2)), rng.uniform(0.5, 2, n // 2)]
        )
    elif fn in ("sin", "cos"):
        bits = rng.integers(0, 2**32, n // 4, dtype=numpy.uint32)  # every magnitude
        near = numpy.concatenate([rng.uniform(-71476, 71476, n // 2), rng.uniform(-10, 10, n // 4)])
        x = numpy.concatenate([near.astype(numpy.float32), bits.view(numpy.float32)])
        x[numpy.isnan(x)] = numpy.nan  # quiet, so that NumPy's casts do not warn
    elif fn == "erf":
        x = numpy.concatenate([rng.uniform(-5, 5, n // 2), rng.uniform(-1, 1, n // 2)])
    else:
        x = numpy.concatenate([rng.uniform(-1, 1, n // 2), rng.uniform(-12, 12, n // 2)])
    x = x.astype(numpy.float32)
    x[: len(EDGES)] = EDGES
    return x


def reference(fn: str, x: numpy.ndarray) -> numpy.ndarray:
    wide = x.astype(numpy.float64)
    with numpy.errstate(all="ignore"):
        if fn == "erf":
            return numpy.vectorize(math.erf)(wide).astype(numpy.float32)
        return getattr(numpy, fn)(wide).astype(numpy.float32)


@pytest.mark.parametrize(
    ("fn", "max_ulp"),
    [
        ("exp", 1),
        ("exp2", 1),
        ("log", 1),
        ("log2", 1),
        ("tanh", 1),
        ("erf", 1),
        ("sin", 2),
        ("cos", 2),
    ],
)
def test_float32_function_accuracy(fn: str, max_ulp: int) -> None:
    kernel = blkc.compile(KERNEL.format(fn=fn))
    x = inputs(fn)
    out = numpy.empty_like(x)
    kernel[(len(x) // 4096,)](x, out)
    expected = reference(fn, x)
    normal = numpy.isfinite(expected) & (numpy.abs(expected) >= numpy.finfo(numpy.float32).tiny)
    ulp = numpy.abs(out.view(numpy.int32).astype(numpy.int64) - expected.view(numpy.int32))
    assert ulp[normal].max() <= max_ulp
    special = ~normal
    same = (out[special] == expected[special]) | (
        numpy.isnan(out[special]) & numpy.isnan(expected[special])
    )
    # Zeros, infinities and NaN exactly (signs of zero included); results in the
    # subnormal range within the same number of ulp (there, an ulp is the smallest step).
    tiny = numpy.isfinite(expected[special]) & (expected[special] != 0)
    step = float(numpy.finfo(numpy.float32).smallest_subnormal)
    with numpy.errstate(invalid="ignore"):  # inf - inf where both are infinite
        difference = numpy.abs(out[special].astype(numpy.float64) - expected[special])
    close = difference <= max_ulp * step * 1.0001
    assert (same | (tiny & close)).all()
    assert (
        numpy.signbit(out[special][expected[special] == 0]).tolist()
        == numpy.signbit(expected[special][expected[special] == 0]).tolist()
    )
    llvm = blkc.compile(KERNEL.format(fn=fn), check_bounds=False).asm["llvm"]
    assert not re.search(rf"@(llvm\.)?{fn}(f|\.f32)\b", llvm)  # no libm call left
    assert "x float>" in llvm  # vectorized
