"""The device a launch runs on, as Triton's `triton.runtime.driver.active` describes it.

Programs written for Triton ask the active driver for the torch device to allocate on, the
current device and the compilation target (`get_current_target().warp_size` sizes their
blocks). blkc runs on the host CPU, so `active` answers with the CPU: the torch device
`cpu`, device 0, and a target whose backend is `cpu`, whose arch is LLVM's name for the
host CPU and whose warp size is 1.

    from blkc.runtime import driver
    x = torch.ones(1024, device=driver.active.get_active_torch_device())

`active.utils.get_device_properties(device)` describes the CPU in the terms Triton's
programs size persistent grids with (see `device_properties`).

It also owns what `blkc.testing.do_bench` writes between timed runs to evict the data of
the previous run from the caches (`get_empty_cache_for_benchmark`, `clear_cache`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy

FLUSH_BYTES_DEFAULT = 32 << 20
"""The eviction buffer's size where the host does not report its caches."""

FLUSH_BYTES_MAX = 64 << 20
"""The largest eviction buffer: virtual machines may report the whole host's cache (this
one reports 480 MiB), and writing more than this between runs costs more than it tells."""


@dataclass(frozen=True)
class Target:
    """What code is compiled for: Triton's `GPUTarget` fields, for the host CPU."""

    backend: str
    arch: str
    warp_size: int


class CpuUtils:
    """`driver.active.utils`: what Triton's programs ask of the device."""

    def get_device_properties(self, device: int | None = 0) -> dict[str, int]:
        """The CPU's properties (`device_properties`); `device` is 0, or None (the index of
        `torch.device("cpu")`)."""
        if device not in (0, None):
            raise ValueError(f"blkc runs on one device, the CPU (device 0); got device {device}")
        return dict(device_properties())


class CpuDriver:
    """The driver of the host CPU: one device, numbered 0."""

    utils = CpuUtils()

    def is_active(self) -> bool:
        return True

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device: int) -> None:
        """Select `device`; the CPU is the only one, so only 0 is accepted."""
        if device != 0:
            raise ValueError(f"blkc runs on one device, the CPU (device 0); got device {device}")

    def get_current_stream(self, device: int | None = None) -> int:
        """Launches run to completion on the calling thread: there is one stream, 0."""
        return 0

    def get_active_torch_device(self) -> Any:
        """`torch.device("cpu")`: where torch tensors passed to a launch must live. Programs
        written for Triton then reach the device's torch module as `getattr(torch,
        device.type)`: `torch.cpu` gets the `set_stream` torch gives GPU modules, which on the
        CPU selects nothing (CPU work runs in order, on one stream)."""
        import torch

        if not hasattr(torch.cpu, "set_stream"):
            torch.cpu.set_stream = _set_stream
        return torch.device("cpu")

    def get_current_target(self) -> Target:
        return host_target()

    def get_empty_cache_for_benchmark(self) -> numpy.ndarray:
        """A buffer as large as the host's last-level cache (at most `FLUSH_BYTES_MAX`)."""
        return numpy.empty(flush_bytes(), numpy.uint8)

    def clear_cache(self, cache: numpy.ndarray) -> None:
        """Write every byte of `cache`, evicting what earlier work left in the caches."""
        cache.fill(0)


def _set_stream(stream: Any) -> None:
    """`torch.cpu.set_stream`: the CPU has one stream, always current."""


@cache
def host_target() -> Target:
    """The target of the `cpu` backend: LLVM's name for the host CPU, one lane per warp."""
    import llvmlite.binding as llvm

    from blkc.runtime.jit import initialize

    initialize()
    return Target(backend="cpu", arch=llvm.get_host_cpu_name(), warp_size=1)


@cache
def device_properties() -> dict[str, int]:
    """The host CPU as Triton's device properties: each core is a multiprocessor running one
    program at a time on one lane (`warpSize` 1); `max_shared_mem` is a core's own cache
    (its L2), which holds what a GPU keeps in shared memory; `max_num_regs` is a core's
    vector registers counted in 32-bit lanes (`register_lanes`). A compiled kernel's
    `n_regs` splits these among the warps Triton counts, so Triton's occupancy estimate
    (`max_num_regs // (n_regs * warpSize * num_warps)`) gives one program per core."""
    from blkc.runtime.launch import cores

    return {
        "multiprocessor_count": cores(),
        "max_shared_mem": core_cache_bytes(),
        "max_num_regs": register_lanes(),
        "warpSize": host_target().warp_size,
        "max_threads_per_sm": 1,
    }


@cache
def register_lanes() -> int:
    """A core's vector registers in 32-bit lanes (`blkc.runtime.cpu_target`): 32 × 16 with
    AVX-512, 16 × 8 with AVX, else 16 × 4 (SSE) or 32 × 4 (NEON)."""
    from blkc.runtime.cpu_target import host

    target = host()
    return target.vector_registers * target.lanes(32)


@cache
def core_cache_bytes() -> int:
    """The size of the largest cache Linux reports for CPU 0 that CPU 0 does not share
    (its L2, usually); 1 MiB where it reports none."""
    folder = Path("/sys/devices/system/cpu/cpu0/cache")
    sizes = [
        _cache_bytes(index / "size")
        for index in folder.glob("index*")
        if _read(index / "shared_cpu_list") in ("0", "")
    ]
    return max((size for size in sizes if size), default=1 << 20)


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


@cache
def flush_bytes() -> int:
    """The size of the largest cache Linux reports for CPU 0, capped at `FLUSH_BYTES_MAX`."""
    sizes = [
        _cache_bytes(path)
        for path in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*/size")
    ]
    largest = max((size for size in sizes if size), default=FLUSH_BYTES_DEFAULT)
    return min(largest, FLUSH_BYTES_MAX)


def _cache_bytes(path: Path) -> int:
    """Bytes in a sysfs cache size such as `2048K` or `32M`; 0 where it cannot be read."""
    try:
        text = path.read_text().strip()
    except OSError:
        return 0
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text.rstrip("KMG")
    return int(digits) * scale if digits.isdigit() else 0


active = CpuDriver()
"""The active driver (Triton's `triton.runtime.driver.active`)."""
