"""The `cpu-simt` target: the GPU lowering run on the CPU.

`convert-blk-to-simt{num-warps=N}` makes one program a CTA of `N * 32` threads (as the
`ptx` target does); `convert-simt-to-thread-loops` then runs each CTA's threads as loops
split at barriers, and the rest is the `cpu` target's. It proves the GPU lowering against
the reference interpreter on machines without a GPU.
"""

from __future__ import annotations

from blkc.backends import TargetOptions
from blkc.backends.cpu import CpuBackend


def simt_lowering(num_warps: int) -> str:
    """The passes from strict blk IR to SIMT loop IR (what the GPU code generator takes)."""
    return (
        f"carry-pointer-offsets,convert-blk-to-simt{{num-warps={num_warps}}},"
        "lower-int-semantics,emulate-small-floats"
    )


class CpuSimtBackend(CpuBackend):
    """The SIMT lowering, its threads as loops, on the host CPU."""

    name = "cpu-simt"

    def key_parts(self, options: TargetOptions) -> tuple[object, ...]:
        return (options.target, options.num_warps)

    def lowering(self, options: TargetOptions) -> str:
        return simt_lowering(options.num_warps) + ",convert-simt-to-thread-loops"


__all__ = ["CpuSimtBackend", "simt_lowering"]
