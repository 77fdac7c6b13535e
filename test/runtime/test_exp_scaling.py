"""float32 exp's scaling by 2**n: one `llvm.ldexp` (`vscalefps`) where the CPU code has
AVX-512, two multiplications elsewhere; test/e2e/test_math.py checks the results."""

import llvmlite.ir as ir
import numpy
import pytest

import blkc
from blkc.runtime import vector_math
from blkc.runtime.cpu_target import host

AVX512 = "+avx512f" in host().features.split(",")

KERNEL = """
module {
  func.func @k(%x: !blk.ptr<f32>, %y: !blk.ptr<f32>) attributes {blk.kernel} {
    %i = blk.arange 0, 1024 : tensor<1024xi32>
    %px = blk.addptr %x, %i : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    %v = blk.load %px : tensor<1024x!blk.ptr<f32>>
    %e = blk.exp %v : tensor<1024xf32>
    %py = blk.addptr %y, %i : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
    blk.store %py, %e : tensor<1024x!blk.ptr<f32>>
    func.return
  }
}
"""


def test_one_step_only_for_cpu_code_with_avx512() -> None:
    cpu = ir.Module(name="cpu")
    gpu = ir.Module(name="gpu")
    gpu.triple = "nvptx64-nvidia-cuda"
    assert vector_math.scales_in_one_step(cpu) == AVX512
    assert not vector_math.scales_in_one_step(gpu)


@pytest.mark.skipif(not AVX512, reason="the host has no AVX-512")
def test_exp_scales_with_vscalef_and_rounds_subnormals_once() -> None:
    kernel = blkc.compile(KERNEL)
    assert "llvm.ldexp" in kernel.asm["llvm"]
    assert "vscalefps" in kernel.asm["asm"]
    # Results from 2**-126 down to 2**-149 and 0, where a second rounding would show.
    x = numpy.linspace(-87.5, -104.5, 1024, dtype=numpy.float32)
    y = numpy.empty_like(x)
    kernel[(1,)](x, y)
    expected = numpy.exp(x.astype(numpy.float64)).astype(numpy.float32)
    step = float(numpy.finfo(numpy.float32).smallest_subnormal)
    assert (numpy.abs(y.astype(numpy.float64) - expected) <= step).all()
    assert (y[x < -103.97282409667969] == 0).all()
