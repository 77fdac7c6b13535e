"""`triton.language.standard` under `blkc.as_triton`: the `tl` functions (Triton defines
`sum`, `max`, `softmax`... in its standard library) and the compile-time helpers that
kernel libraries import from it by their private names (`_log2`, `_is_power_of_two`,
`_get_int_dtype`), as `blkc.constexpr_function`s."""

from __future__ import annotations

from blkc.jitfunction import constexpr_function
from blkc.language import *  # noqa: F403 - the module mirrors blkc.language
from blkc.language import core as _core


@constexpr_function
def _log2(i: int) -> int:
    """floor(log2(i)) for i >= 1 (0 below)."""
    log2, n = 0, i
    while n > 1:
        n >>= 1
        log2 += 1
    return log2


@constexpr_function
def _is_power_of_two(i: int) -> bool:
    return (i & (i - 1)) == 0 and i != 0


@constexpr_function
def _get_int_dtype(bitwidth: int, signed: bool) -> _core.dtype:
    """The integer dtype of `bitwidth` bits (int1 for 1)."""
    if bitwidth == 1:
        return _core.int1
    return _core.dtype(f"{'' if signed else 'u'}int{bitwidth}")
