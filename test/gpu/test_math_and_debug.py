"""Math functions, `blk.print` and `blk.assert` on the GPU: float32 math is the CPU's
polynomials (checked here under `cpu-simt` against NumPy), float64 math links libdevice,
print and assert call CUDA's `vprintf` and `__assertfail`; ptxas assembles all of it."""

from __future__ import annotations

import numpy as np
import pytest

import blkc
from blkc import targets
from blkc.runtime import ptx
from blkc.runtime.gpu_kernel import GpuKernel

needs_ptxas = pytest.mark.skipif(not ptx.ptxas_available(), reason="ptxas is not installed")
needs_libdevice = pytest.mark.skipif(
    ptx.libdevice_path() is None, reason="CUDA's libdevice is not installed"
)

FUNCTIONS = ("sin", "cos", "erf", "tanh", "exp", "exp2", "log", "log2", "sqrt", "rsqrt")

UNARY = """
module {
  func.func @unary(%src: !blk.ptr<DT>, %dst: !blk.ptr<DT>) attributes {blk.kernel} {
    %r = blk.arange 0, 512 : tensor<512xi32>
    %sp = blk.addptr %src, %r : !blk.ptr<DT>, tensor<512xi32> -> tensor<512x!blk.ptr<DT>>
    %x = blk.load %sp : tensor<512x!blk.ptr<DT>>
    %y = blk.FN %x : tensor<512xDT>
    %dp = blk.addptr %dst, %r : !blk.ptr<DT>, tensor<512xi32> -> tensor<512x!blk.ptr<DT>>
    blk.store %dp, %y : tensor<512x!blk.ptr<DT>>
    func.return
  }
}
"""

DEBUG = """
module {
  func.func @debug(%src: !blk.ptr<f32>, %n: i32) attributes {blk.kernel} {
    %r = blk.arange 0, 256 : tensor<256xi32>
    %sp = blk.addptr %src, %r : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    %x = blk.load %sp : tensor<256x!blk.ptr<f32>>
    blk.print "x, r:" %x, %r : tensor<256xf32>, tensor<256xi32>
    blk.print "n =" %n : i32
    %ns = blk.splat %n : i32 -> tensor<256xi32>
    %ok = blk.cmp lt, %r, %ns : tensor<256xi32>
    blk.assert %ok, "index out of range" : tensor<256xi1>
    func.return
  }
}
"""


def unary(fn: str, dtype: str) -> str:
    return UNARY.replace("FN", fn).replace("DT", dtype)


def gpu_kernel(text: str, arch: str) -> blkc.Kernel:
    kernel = blkc.compile(text, target="ptx", arch=arch, filename="kernel.mlir")
    assert isinstance(kernel.program, GpuKernel)
    return kernel


@needs_libdevice
@pytest.mark.parametrize("fn", FUNCTIONS)
def test_float64_math_links_libdevice(fn: str) -> None:
    kernel = gpu_kernel(unary(fn, "f64"), "sm_90")
    text = kernel.asm["ptx"]
    assert "__nv_" not in text  # linked and inlined, not an external call
    assert "st.global.b64" in text


@needs_ptxas
@pytest.mark.parametrize("arch", targets.ARCHES)
@pytest.mark.parametrize("dtype", ["f32", "f16", pytest.param("f64", marks=needs_libdevice)])
@pytest.mark.parametrize("fn", FUNCTIONS)
def test_math_assembles(fn: str, dtype: str, arch: str) -> None:
    kernel = gpu_kernel(unary(fn, dtype), arch)
    assert kernel.spills == 0


# The float32 functions (all but exp, which is ex2.approx corrected, 2 ulp) are the CPU's
# code: run under cpu-simt, within vector_math's bounds of NumPy's float64 results.
ULPS = {"sin": 2, "cos": 2, "erf": 1, "tanh": 1, "exp2": 1, "log": 1, "log2": 1, "sqrt": 0}


@pytest.mark.parametrize("fn", sorted(ULPS))
def test_float32_math_on_cpu_simt(fn: str) -> None:
    import math

    rng = np.random.default_rng(len(fn))
    low, high = (0.01, 100.0) if fn.startswith(("log", "sqrt")) else (-20.0, 20.0)
    x = rng.uniform(low, high, 1024).astype(np.float32)
    y = np.zeros_like(x)
    kernel = blkc.compile(unary(fn, "f32"), target="cpu-simt")
    kernel[(1,)](x, y)
    kernel[(1,)](x[512:], y[512:])
    wide = x.astype(np.float64)
    reference = {
        "erf": np.vectorize(math.erf)(wide),
        "exp2": np.exp2(wide),
    }.get(fn, getattr(np, fn)(wide) if hasattr(np, fn) else None)
    expected = reference.astype(np.float32)
    ulps = np.abs(y.view(np.int32).astype(np.int64) - expected.view(np.int32).astype(np.int64))
    assert ulps.max() <= ULPS[fn]


@needs_ptxas
@pytest.mark.parametrize("arch", targets.ARCHES)
def test_print_and_assert_call_cudas_functions(arch: str) -> None:
    kernel = gpu_kernel(DEBUG, arch)
    text = kernel.asm["ptx"]
    assert ".extern .func  (.param .b32 func_retval0) vprintf" in text
    assert ".extern .func __assertfail" in text
    strings = bytes_of_strings(text)
    # blk.print's format: a line per element, each value after the other
    assert "pid (%lld, %lld, %lld) idx (%3lld)x, r:(operand 0) %f\n" in strings
    assert "pid (%lld, %lld, %lld) idx (%3lld)x, r:(operand 1) %lld\n" in strings
    assert "pid (%lld, %lld, %lld) idx ()n =%lld\n" in strings and "index out of range" in strings
    assert kernel.spills == 0


def bytes_of_strings(text: str) -> str:
    """The text of the PTX's byte-array globals (the format strings)."""
    import re

    found = []
    for values in re.findall(r"\.b8 \S+\[\d+\] = \{([\d, ]+)\}", text):
        found.append(bytes(int(v) for v in values.split(",")).decode(errors="replace"))
    return "\n".join(found)
