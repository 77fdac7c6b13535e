"""`kernel.warmup(...)` as Triton's compiled kernels are used: `metadata`, `n_regs`,
`_init_handles()`, launches with every argument, and the CPU's device properties that
size a persistent grid from them."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.backends.cpu import stack_bytes
from blkc.runtime import driver


@blkc.jit
def persistent_softmax(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        shifted = tl.exp(x - tl.max(x, axis=0))
        tl.store(
            out_ptr + row * n_cols + cols, shifted / tl.sum(shifted, axis=0), mask=cols < n_cols
        )


@blkc.jit
def scaled_copy(out_ptr, in_ptr, n, scale, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(
        out_ptr + offsets, tl.load(in_ptr + offsets, mask=offsets < n) * scale, mask=offsets < n
    )


def softmax_rows(x: numpy.ndarray) -> numpy.ndarray:
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_an_occupancy_estimate_gives_a_program_per_core() -> None:
    x = numpy.random.default_rng(0).standard_normal((37, 100)).astype(numpy.float32)
    y = numpy.zeros_like(x)
    kernel = persistent_softmax.warmup(y, x, 37, 100, BLOCK=128, num_warps=8, num_stages=4)
    kernel._init_handles()
    properties = driver.active.utils.get_device_properties(0)
    occupancy = properties["max_num_regs"] // (
        kernel.n_regs * properties["warpSize"] * kernel.metadata.num_warps
    )
    occupancy = min(occupancy, properties["max_shared_mem"] // kernel.metadata.shared)
    assert occupancy == 1
    programs = properties["multiprocessor_count"] * occupancy
    kernel[(programs, 1, 1)](y, x, 37, 100, 128)  # every argument, the constexpr too
    numpy.testing.assert_allclose(y, softmax_rows(x), rtol=1e-5, atol=1e-7)


def test_metadata_reports_the_stack_buffers_of_materialized_blocks() -> None:
    x = numpy.zeros((2, 100), numpy.float32)
    kernel = persistent_softmax.warmup(x, x, 2, 100, BLOCK=128, num_warps=2)
    metadata = kernel.metadata
    assert metadata.shared == 128 * 4  # the exponentials (each user reads the row again)
    assert (metadata.name, metadata.num_warps, metadata.num_stages) == (
        "persistent_softmax",
        2,
        2,
    )
    assert metadata.target == driver.active.get_current_target()
    assert kernel.n_regs == driver.register_lanes() // 2
    assert kernel.n_spills == 0


def test_a_fused_kernel_uses_no_stack_buffer() -> None:
    x = numpy.zeros(64, numpy.float32)
    assert scaled_copy.warmup(x, x, 64, 2.0, BLOCK=64).metadata.shared == 0


def test_stack_bytes_counts_each_array_by_its_element_size() -> None:
    text = "%a = alloca [16 x half], align 64\n%b = alloca [3 x double]\n%c = alloca i32"
    assert stack_bytes(text) == 16 * 2 + 3 * 8


def test_a_warmed_up_kernel_takes_its_runtime_arguments_or_all() -> None:
    x = numpy.arange(100, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    kernel = scaled_copy.warmup(out, x, 100, 3.0, BLOCK=32)
    kernel[(4,)](out, x, 100, 3.0)
    numpy.testing.assert_array_equal(out, x * 3)
    out[:] = 0
    kernel[(4,)](out, x, 100, 0.5, 32)
    numpy.testing.assert_array_equal(out, x * 0.5)


def test_a_compiled_in_argument_that_differs_is_refused() -> None:
    x = numpy.zeros(64, numpy.float32)
    kernel = scaled_copy.warmup(x, x, 64, 2.0, BLOCK=32)
    with pytest.raises(ValueError, match=r"argument 'BLOCK': .*compiled for 32, got 64"):
        kernel[(2,)](x, x, 64, 2.0, 64)


def test_device_properties_describe_the_host_cpu() -> None:
    properties = driver.active.utils.get_device_properties(None)  # torch.device("cpu").index
    assert properties["multiprocessor_count"] >= 1
    assert properties["warpSize"] == driver.active.get_current_target().warp_size == 1
    assert properties["max_shared_mem"] >= 64 << 10
    assert properties["max_num_regs"] in (64, 128, 512)
    with pytest.raises(ValueError, match="one device, the CPU"):
        driver.active.utils.get_device_properties(1)


def test_amd_options_in_a_config_are_accepted_and_ignored() -> None:
    x = numpy.arange(64, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    scaled_copy[(2,)](out, x, 64, 2.0, BLOCK=32, matrix_instr_nonkdim=16, waves_per_eu=2, kpack=2)
    numpy.testing.assert_array_equal(out, x * 2)


def test_the_torch_cpu_module_takes_a_stream() -> None:
    torch = pytest.importorskip("torch")
    device = driver.active.get_active_torch_device()
    module = getattr(torch, device.type)
    module.set_stream(module.Stream())  # what benchmarks written for GPUs do first
    x = torch.arange(64, dtype=torch.float32)
    out = torch.zeros_like(x)
    scaled_copy[(2,)](out, x, 64, 2.0, BLOCK=32)
    assert torch.equal(out, x * 2)
