"""Float minima and maxima on the GPU: `nan = num` is PTX's `min.f32`/`max.f32` (NaN
loses), `nan = propagate` its `min.NaN.f32`/`max.NaN.f32`; reductions combine warps' partial
results the same way. ptxas assembles both; a GPU, where present, runs them."""

from __future__ import annotations

import re

import numpy as np
import pytest

import blkc
from blkc import targets
from blkc.runtime import cuda_launch, ptx
from blkc.runtime.gpu_kernel import GpuKernel

needs_ptxas = pytest.mark.skipif(not ptx.ptxas_available(), reason="ptxas is not installed")

EXTREMA = """
module {
  func.func @extrema(%a: !blk.ptr<f32>, %b: !blk.ptr<f32>, %o: !blk.ptr<f32>,
                     %r: !blk.ptr<f32>) attributes {blk.kernel} {
    %i = blk.arange 0, 256 : tensor<256xi32>
    %pa = blk.addptr %a, %i : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    %pb = blk.addptr %b, %i : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    %x = blk.load %pa : tensor<256x!blk.ptr<f32>>
    %y = blk.load %pb : tensor<256x!blk.ptr<f32>>
    %hi = blk.maximum %x, %y nan = NAN : tensor<256xf32>
    %lo = blk.minimum %x, %y nan = NAN : tensor<256xf32>
    %d = blk.sub %hi, %lo : tensor<256xf32>
    %po = blk.addptr %o, %i : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    blk.store %po, %d : tensor<256x!blk.ptr<f32>>
    %m = blk.reduce max, %x nan = NAN : tensor<256xf32> -> f32
    blk.store %r, %m : !blk.ptr<f32>
    func.return
  }
}
"""


def gpu_kernel(nan: str, arch: str) -> blkc.Kernel:
    kernel = blkc.compile(EXTREMA.replace("NAN", nan), target="ptx", arch=arch)
    assert isinstance(kernel.program, GpuKernel)
    return kernel


def extrema_instructions(text: str) -> set[str]:
    return set(re.findall(r"\b((?:max|min)(?:\.NaN)?\.f32)\b", text))


@pytest.mark.parametrize("arch", targets.ARCHES)
@pytest.mark.parametrize(
    ("nan", "instructions"),
    [
        ("num", {"max.f32", "min.f32"}),
        ("propagate", {"max.NaN.f32", "min.NaN.f32"}),
    ],
)
def test_nan_chooses_the_ptx_instruction(nan: str, instructions: set[str], arch: str) -> None:
    assert extrema_instructions(gpu_kernel(nan, arch).asm["ptx"]) == instructions


@needs_ptxas
@pytest.mark.parametrize("arch", targets.ARCHES)
@pytest.mark.parametrize("nan", ["num", "propagate"])
def test_extrema_assemble(nan: str, arch: str) -> None:
    assert gpu_kernel(nan, arch).spills == 0


X = np.where(np.arange(256) % 3 == 0, np.nan, np.arange(256, dtype=np.float32))
Y = np.where(np.arange(256) % 5 == 0, np.nan, -np.arange(256, dtype=np.float32))


def expected(nan: str) -> tuple[np.ndarray, float]:
    if nan == "num":
        return np.fmax(X, Y) - np.fmin(X, Y), float(np.nanmax(X))
    return np.maximum(X, Y) - np.minimum(X, Y), float(np.max(X))


@pytest.mark.parametrize("nan", ["num", "propagate"])
def test_extrema_on_cpu_simt(nan: str) -> None:
    out, r = np.zeros(256, np.float32), np.zeros(1, np.float32)
    blkc.compile(EXTREMA.replace("NAN", nan), target="cpu-simt")[(1,)](X, Y, out, r)
    values, high = expected(nan)
    np.testing.assert_array_equal(out, values.astype(np.float32))
    np.testing.assert_array_equal(r, [high])


@pytest.mark.skipif(
    not cuda_launch.available(), reason="needs cuda-python, a CUDA driver and a GPU"
)
@pytest.mark.parametrize("nan", ["num", "propagate"])
def test_extrema_on_the_device(nan: str) -> None:
    out, r = np.zeros(256, np.float32), np.zeros(1, np.float32)
    gpu_kernel(nan, "sm_90")[(1,)](X, Y, out, r)
    values, high = expected(nan)
    np.testing.assert_array_equal(out, values.astype(np.float32))
    np.testing.assert_array_equal(r, [high])
