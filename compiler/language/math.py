"""`tl.math`: the elementwise math functions, as Triton's `triton.language.math` offers
them."""

from blkc.language.core import (
    abs,
    ceil,
    cos,
    erf,
    exp,
    exp2,
    fdiv,
    floor,
    fma,
    log,
    log2,
    rsqrt,
    sin,
    sqrt,
    sqrt_rn,
)

__all__ = [
    "abs", "ceil", "cos", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log", "log2",
    "rsqrt", "sin", "sqrt", "sqrt_rn",
]  # fmt: skip
