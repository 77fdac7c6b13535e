"""`@blkc.jit` kernels on the other targets: cpu-simt (the GPU lowering run on the CPU) and
ptx."""

from __future__ import annotations

import shutil

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def row_softmax(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    row = tl.program_id(0) * n
    x = tl.load(x_ptr + row + offs, mask=offs < n, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row + offs, e / tl.sum(e, axis=0), mask=offs < n)


def reference(x: numpy.ndarray) -> numpy.ndarray:
    e = numpy.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


@pytest.mark.parametrize("num_warps", [1, 4])
def test_cpu_simt_matches_numpy(num_warps: int) -> None:
    x = numpy.random.default_rng(0).standard_normal((9, 300)).astype(numpy.float32)
    y = numpy.zeros_like(x)
    row_softmax[(9,)](x, y, 300, BLOCK=512, target="cpu-simt", num_warps=num_warps)
    numpy.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-7)


def test_target_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BLKC_TARGET", "cpu-simt")
    x = numpy.random.default_rng(1).standard_normal((2, 64)).astype(numpy.float32)
    simt = row_softmax.warmup(x, x, 64, BLOCK=64)
    cpu = row_softmax.warmup(x, x, 64, BLOCK=64, target="cpu")
    assert simt.asm["loops"] != cpu.asm["loops"]  # thread loops, not one loop per block
    y = numpy.zeros_like(x)
    row_softmax[(2,)](x, y, 64, BLOCK=64)
    numpy.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-7)


@blkc.jit(target="ptx")
def ptx_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(
        out_ptr + offs,
        tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
        mask=mask,
    )


def test_ptx_target_from_the_decorator() -> None:
    x = numpy.zeros(8, numpy.float32)
    kernel = ptx_add.warmup(x, x, x, 1000, BLOCK=1024, arch="sm_80")
    ptx = kernel.asm["ptx"]
    assert ".target sm_80" in ptx and ".entry ptx_add" in ptx
    if shutil.which("ptxas"):
        assert kernel.spills == 0


@blkc.jit
def hinted_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.multiple_of(tl.program_id(0) * BLOCK, BLOCK)
    offs = start + tl.max_contiguous(tl.arange(0, BLOCK), BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_divisibility_and_hints_reach_the_ir() -> None:
    x = numpy.zeros(8, numpy.float32)
    loose = hinted_copy.warmup(x, x, 4096, BLOCK=256).asm["loose"]
    assert "%n: i32 {blk.divisibility = 16 : i32}" in loose  # 4096 % 16 == 0
    assert "{blk.divisibility = 256 : i32}" in loose and "{blk.contiguity = 256 : i32}" in loose
    assert "blk.divisibility = 16" not in hinted_copy.warmup(x, x, 4095, BLOCK=256).asm["loose"]


def test_known_divisibility_gives_vector_accesses_on_the_gpu() -> None:
    x = numpy.zeros(8, numpy.float32)
    divisible = hinted_copy.warmup(x, x, 4096, BLOCK=256, target="ptx").asm["ptx"]
    ragged = hinted_copy.warmup(x, x, 4095, BLOCK=256, target="ptx").asm["ptx"]
    assert "ld.global.v4" in divisible and "st.global.v4" in divisible
    assert "ld.global.v4" not in ragged
    out = numpy.zeros(4096, numpy.float32)
    src = numpy.arange(4096, dtype=numpy.float32)
    hinted_copy[(16,)](src, out, 4096, BLOCK=256, target="cpu-simt")  # vector accesses, run
    numpy.testing.assert_array_equal(out, src)
