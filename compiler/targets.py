"""Compilation targets: `cpu` (default), `cpu-simt` and `ptx`.

    blkc.compile(text, target="cpu-simt")   # or BLKC_TARGET=cpu-simt in the environment

- `cpu`: one program is one loop nest per block (`convert-blk-to-loops`), vectorized by
  LLVM and run on every core.
- `cpu-simt`: the GPU lowering (`convert-blk-to-simt`: one program is one CTA of
  `num_warps * 32` threads) run on the CPU, each CTA's threads as loops split at barriers
  (`convert-simt-to-thread-loops`). It proves the GPU lowering against the reference
  interpreter on machines without a GPU.
- `ptx`: the same GPU lowering, emitted as LLVM IR for `nvptx64-nvidia-cuda` and
  assembled to PTX for `arch` (`sm_80`, `sm_90`); launched through the CUDA driver
  where a GPU is present (`blkc.runtime.cuda_launch`).

Each target is a backend module of `blkc.backends`.
"""

from __future__ import annotations

import os
import re

from blkc.backends import BACKENDS, TargetOptions, cpu, cpu_simt, get

TARGETS = tuple(BACKENDS)
DEFAULT_NUM_WARPS = 4
DEFAULT_ARCH = "sm_90"
ARCHES = ("sm_80", "sm_90")
"""The architectures the tests assemble for (any `sm_NN` LLVM knows is accepted)."""

CPU_LOWERING = cpu.LOWERING
simt_lowering = cpu_simt.simt_lowering


def check_arch(arch: str | None) -> str:
    """`arch` (default sm_90) if it names an NVIDIA architecture, else a ValueError."""
    arch = arch or DEFAULT_ARCH
    if not re.fullmatch(r"sm_\d+a?", arch):
        raise ValueError(f"unknown arch '{arch}' (for example: {', '.join(ARCHES)})")
    return arch


def resolve(target: str | None) -> str:
    """`target`, else `$BLKC_TARGET`, else `cpu`; a ValueError for an unknown name."""
    chosen = target or os.environ.get("BLKC_TARGET") or "cpu"
    if chosen not in TARGETS:
        raise ValueError(f"unknown target '{chosen}' (targets: {', '.join(TARGETS)})")
    return chosen


def lowering(target: str, num_warps: int = DEFAULT_NUM_WARPS) -> str:
    """The passes from strict blk IR to the loop IR `target`'s code generator takes."""
    return get(target).lowering(TargetOptions(target, num_warps))
