"""The device a launch runs on, as Triton's `triton.runtime.driver.active` describes it.

Programs written for Triton ask the active driver for the torch device to allocate on, the
current device and the compilation target (`get_current_target().warp_size` sizes their
blocks). blkc runs on the host CPU, so `active` answers with the CPU: the torch device
`cpu`, device 0, and a target whose backend is `cpu`, whose arch is LLVM's name for the
host CPU and whose warp size is 1.

    from blkc.runtime import driver
    x = torch.ones(1024, device=driver.active.get_active_torch_device())

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


class CpuDriver:
    """The driver of the host CPU: one device, numbered 0."""

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
        """`torch.device("cpu")`: where torch tensors passed to a launch must live."""
        import torch

        return torch.device("cpu")

    def get_current_target(self) -> Target:
        return host_target()

    def get_empty_cache_for_benchmark(self) -> numpy.ndarray:
        """A buffer as large as the host's last-level cache (at most `FLUSH_BYTES_MAX`)."""
        return numpy.empty(flush_bytes(), numpy.uint8)

    def clear_cache(self, cache: numpy.ndarray) -> None:
        """Write every byte of `cache`, evicting what earlier work left in the caches."""
        cache.fill(0)


@cache
def host_target() -> Target:
    """The target of the `cpu` backend: LLVM's name for the host CPU, one lane per warp."""
    import llvmlite.binding as llvm

    from blkc.runtime.jit import initialize

    initialize()
    return Target(backend="cpu", arch=llvm.get_host_cpu_name(), warp_size=1)


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
