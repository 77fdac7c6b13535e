"""Float conversions on the GPU use the target's instructions: `cvt.rn.bf16.f32` on sm_80+,
the fp8 `cvt`s on sm_89+ (software on sm_80), float16's own everywhere; ptxas assembles
every variant."""

from __future__ import annotations

import re

import pytest

import blkc
from blkc import targets
from blkc.runtime import ptx
from blkc.runtime.gpu_kernel import GpuKernel

needs_ptxas = pytest.mark.skipif(not ptx.ptxas_available(), reason="ptxas is not installed")

ROUND_TRIP = """
module {
  func.func @round_trip(%src: !blk.ptr<SRC>, %narrow: !blk.ptr<T>, %back: !blk.ptr<SRC>)
      attributes {blk.kernel} {
    %r = blk.arange 0, 256 : tensor<256xi32>
    %sp = blk.addptr %src, %r : !blk.ptr<SRC>, tensor<256xi32> -> tensor<256x!blk.ptr<SRC>>
    %x = blk.load %sp : tensor<256x!blk.ptr<SRC>>
    %t = blk.cast %x : tensor<256xSRC> -> tensor<256xT>
    %np = blk.addptr %narrow, %r : !blk.ptr<T>, tensor<256xi32> -> tensor<256x!blk.ptr<T>>
    blk.store %np, %t : tensor<256x!blk.ptr<T>>
    %w = blk.cast %t : tensor<256xT> -> tensor<256xSRC>
    %bp = blk.addptr %back, %r : !blk.ptr<SRC>, tensor<256xi32> -> tensor<256x!blk.ptr<SRC>>
    blk.store %bp, %w : tensor<256x!blk.ptr<SRC>>
    func.return
  }
}
"""


def round_trip_ptx(dtype: str, arch: str, source: str = "f32") -> blkc.Kernel:
    text = ROUND_TRIP.replace("SRC", source).replace("T>", f"{dtype}>")
    kernel = blkc.compile(text, target="ptx", arch=arch)
    assert isinstance(kernel.program, GpuKernel)
    return kernel


@pytest.mark.parametrize("arch", targets.ARCHES)
def test_bfloat16_rounds_with_one_cvt(arch: str) -> None:
    text = round_trip_ptx("bf16", arch).asm["ptx"]
    assert "cvt.rn.bf16.f32" in text
    assert "32767" not in text  # no software rounding (adding 0x7FFF)


@pytest.mark.parametrize("arch", targets.ARCHES)
def test_float16_converts_natively(arch: str) -> None:
    # One element at a time, or two packed (cvt.rn.f16x2.f32, where a thread's chunk is
    # read into registers first).
    assert re.search(r"cvt\.rn\.f16(x2)?\.f32", round_trip_ptx("f16", arch).asm["ptx"])
    # float64 to float16 in one rounding, without the CPU's round-to-odd detour.
    text = round_trip_ptx("f16", arch, source="f64").asm["ptx"]
    assert "cvt.rn.f16.f64" in text and "cvt.rn.f32.f64" not in text


@pytest.mark.parametrize("dtype", ["f8E4M3FN", "f8E5M2"])
def test_fp8_uses_the_hopper_cvt(dtype: str) -> None:
    name = "e4m3" if dtype == "f8E4M3FN" else "e5m2"
    text = round_trip_ptx(dtype, "sm_90").asm["ptx"]
    assert f"cvt.rn.satfinite.{name}x2.f32" in text
    # Overflow is put back where satfinite saturates (NaN for e4m3fn, inf for e5m2).
    assert "setp.gt.f32" in text or "setp.ge.f32" in text
    # Widening: e4m3 through the f16x2 cvt, e5m2 as the top byte of a float16.
    assert ("cvt.rn.f16x2.e4m3x2" in text) == (name == "e4m3")
    assert "cvt.f32.f16" in text
    assert "_to_f32" not in text  # no decoding table


@pytest.mark.parametrize("dtype", ["f8E4M3FN", "f8E5M2"])
def test_fp8_keeps_software_rounding_on_sm80(dtype: str) -> None:
    text = round_trip_ptx(dtype, "sm_80").asm["ptx"]
    assert "satfinite" not in text and "e4m3x2" not in text
    # e5m2 widens as a float16 on every arch; e4m3fn looks its value up.
    assert ("e4m3fn_$_to_f32" in text) == (dtype == "f8E4M3FN")


@needs_ptxas
@pytest.mark.parametrize("arch", [*targets.ARCHES, "sm_89"])
@pytest.mark.parametrize("dtype", ["bf16", "f16", "f8E4M3FN", "f8E5M2"])
def test_conversions_assemble(dtype: str, arch: str) -> None:
    assert round_trip_ptx(dtype, arch).spills == 0
