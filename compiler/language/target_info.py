"""`tl.target_info` (Triton's `triton.language.target_info`): what a kernel may ask about
the target it compiles for, as `constexpr_function`s, so that ``if is_cuda(): ...`` picks
a branch while the kernel compiles.

`current_target()` is the active driver's target (`blkc.runtime.driver`): on the CPU a
target whose `backend` is ``"cpu"``, so `is_cuda()`, `is_hip()` and their kin are False
there, as they are in Triton's interpreter.
"""

from __future__ import annotations

from typing import Any

from blkc.jitfunction import constexpr_function


@constexpr_function
def current_target() -> Any:
    """The active driver's target (`backend`, `arch`, `warp_size`)."""
    from blkc.runtime.driver import active

    return active.get_current_target()


def _backend() -> str:
    return str(getattr(current_target(), "backend", ""))


def _arch() -> Any:
    return getattr(current_target(), "arch", None)


@constexpr_function
def is_cuda() -> bool:
    return _backend() == "cuda"


@constexpr_function
def cuda_capability_geq(major: int, minor: int = 0) -> bool:
    """Whether the target is a CUDA GPU of compute capability (major, minor) or newer."""
    arch = _arch()
    if _backend() != "cuda" or arch is None:
        return False
    digits = "".join(c for c in str(arch) if c.isdigit())  # 90, "sm_90"
    return bool(digits) and int(digits) >= major * 10 + minor


@constexpr_function
def is_hip() -> bool:
    return _backend() == "hip"


@constexpr_function
def is_hip_cdna3() -> bool:
    return is_hip() and _arch() == "gfx942"


@constexpr_function
def is_hip_cdna4() -> bool:
    return is_hip() and _arch() == "gfx950"


@constexpr_function
def is_hip_gfx1250() -> bool:
    return is_hip() and str(_arch()).startswith("gfx1250")


__all__ = [
    "cuda_capability_geq",
    "current_target",
    "is_cuda",
    "is_hip",
    "is_hip_cdna3",
    "is_hip_cdna4",
    "is_hip_gfx1250",
]
