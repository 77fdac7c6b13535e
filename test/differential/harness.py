"""Running one kernel both ways, compiled and interpreted, and comparing what it wrote.

The compiled side is `blkc.compile` (the module's policy, triton by default); the
interpreted side is `blkc.runtime.interpreter.run` on the module made strict with
``to-strict{warn=false}``. Each side gets its own copies of the arguments; afterwards
every array argument (inputs included: a kernel must not write where it should not) is
compared. Compiled code that would call a function this process lacks fails with the
function's name instead of crashing the test session.

How values compare:

- bool and integer arrays: bit for bit (`assert_same`);
- float arrays without a bound: bit for bit (so ``-0.0`` and ``0.0`` differ unless
  ``signed_zeros=False``), except that any NaN equals any NaN: NaN payloads and signs
  are not specified by docs/semantics.md;
- float arrays with a bound (an array broadcasting to the values, or one number):
  ``|compiled - interpreted| <= bound`` elementwise, the same NaNs, the same infinities.
  Elements whose bound is ``inf`` are not compared at all. Each test states where its
  bounds come from;
- float arrays against an envelope (`assert_between`): between a low and a high array,
  with flags saying where NaN may or must be. The random kernels build envelopes from
  interpreter runs with `blk.exp` nudged down and up (`exp_nudged`) by the most the
  compiled `exp` may differ from the interpreter's (`EXP_ULPS`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, TypeAlias

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import ModuleOp

import blkc
from blkc.dtypes import DType
from blkc.runtime import interpreter, numerics

Array: TypeAlias = np.ndarray[Any, Any]
Argument: TypeAlias = Array | bool | int | float
Bound: TypeAlias = Array | float

SHOWN = 8
"""How many differing elements a failure message lists."""


@lru_cache(maxsize=8)
def strict_module(text: str, filename: str) -> ModuleOp:
    """`text` parsed and made strict, as the interpreter takes it (cached: a kernel with
    `blk.exp` is interpreted three times, and the interpreter leaves modules alone)."""
    return blkc.run_pipeline(blkc.parse(text, filename), "to-strict{warn=false}")


def _copies(args: Sequence[Argument]) -> list[Argument]:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _arrays(args: Sequence[Argument]) -> list[Array]:
    return [a for a in args if isinstance(a, np.ndarray)]


def run_interpreted(
    text: str, grid: tuple[int, ...], args: Sequence[Argument], filename: str = "kernel.mlir"
) -> list[Array]:
    """Interpret the kernel of `text` over `grid` on copies of `args`; return the array
    arguments afterwards, in order."""
    copies = _copies(args)
    interpreter.run(strict_module(text, filename), None, grid, copies)
    return _arrays(copies)


def run_compiled(
    text: str,
    grid: tuple[int, ...],
    args: Sequence[Argument],
    filename: str = "kernel.mlir",
    *,
    check_calls: bool = True,
    target: str = "cpu",
) -> list[Array]:
    """Compile (for `target`, one of `TARGETS`) and launch the kernel of `text` over `grid`
    on copies of `args`; return the array arguments afterwards, in order.

    Code that calls a function this process lacks would crash it (MCJIT resolves the
    symbol to address 0): with `check_calls`, such a kernel fails here, with the
    symbol's name, instead (at the price of emitting its assembly, a quarter of the
    compile time).
    """
    kernel = compile_for(text, filename, target)
    if check_calls:
        missing = missing_symbols(kernel.asm["asm"])
        assert not missing, f"the compiled code calls {', '.join(missing)}, which is missing"
    copies = _copies(args)
    kernel[grid](*copies)
    return _arrays(copies)


TARGETS = ("cpu", "cpu-simt")
"""The targets that run on this machine: each must agree with the interpreter."""


def compile_for(text: str, filename: str, target: str) -> blkc.Kernel:
    kernel = blkc.compile(text, target=target, filename=filename)
    assert isinstance(kernel, blkc.Kernel)
    return kernel


_CALLED_SYMBOL = re.compile(r"^\s*movabsq\s+\$([A-Za-z_][\w.$]*),", re.MULTILINE)


def missing_symbols(assembly: str) -> list[str]:
    """The external functions that `assembly` (x86-64, MCJIT's large code model: calls go
    through ``movabsq $symbol, %reg``) uses and that do not resolve in this process."""
    import llvmlite.binding as llvm

    defined = set(re.findall(r"^([A-Za-z_][\w.$]*):", assembly, re.MULTILINE))
    used = sorted(set(_CALLED_SYMBOL.findall(assembly)) - defined)
    return [name for name in used if not llvm.address_of_symbol(name)]


def run_both(
    text: str,
    grid: tuple[int, ...],
    args: Sequence[Argument],
    filename: str = "kernel.mlir",
    *,
    check_calls: bool = True,
    target: str = "cpu",
) -> tuple[list[Array], list[Array]]:
    """`run_interpreted` and `run_compiled`: each side on fresh copies of `args`."""
    interpreted = run_interpreted(text, grid, args, filename)
    compiled = run_compiled(text, grid, args, filename, check_calls=check_calls, target=target)
    return interpreted, compiled


def unit_roundoff(dtype: np.dtype[Any]) -> float:
    """Half the distance from 1 to the next float of `dtype` (f32: 2**-24)."""
    return float(ml_dtypes.finfo(dtype).eps) / 2


def _bits(values: Array) -> Array:
    return values.view(f"u{values.dtype.itemsize}")


def _describe(index: int, interpreted: Array, compiled: Array) -> str:
    i, c = interpreted.reshape(-1)[index], compiled.reshape(-1)[index]
    where = tuple(int(k) for k in np.unravel_index(index, interpreted.shape))
    text = f"  at {where}: interpreted {i!r}, compiled {c!r}"
    if interpreted.dtype.kind not in "biu":
        text += f" (bits {_bits(np.asarray(i)).item():#x} vs {_bits(np.asarray(c)).item():#x})"
    return text


def _mismatches(
    interpreted: Array, compiled: Array, bound: Bound | None, signed_zeros: bool
) -> Array:
    """A flat bool array: True where the two arrays disagree."""
    i, c = interpreted.reshape(-1), compiled.reshape(-1)
    if i.dtype.kind in "biu":
        return i != c
    wide_i, wide_c = i.astype(np.float64), c.astype(np.float64)
    nan_i, nan_c = np.isnan(wide_i), np.isnan(wide_c)
    if bound is None:
        differ = _bits(i) != _bits(c) if signed_zeros else wide_i != wide_c
        return (nan_i != nan_c) | (~nan_i & ~nan_c & differ)
    limit = np.broadcast_to(np.asarray(bound, np.float64), interpreted.shape).reshape(-1)
    with np.errstate(invalid="ignore"):
        far = ~(np.abs(wide_c - wide_i) <= limit)  # inf - inf is NaN: far
    finite_i = np.isfinite(wide_i)
    bad = (nan_i != nan_c) | (~nan_i & ~finite_i & (wide_i != wide_c)) | (finite_i & far)
    return bad & ~np.isposinf(limit)


def _fail(name: str, bad: Array, interpreted: Array, compiled: Array, how: str) -> None:
    indices = np.flatnonzero(bad)
    if indices.size:
        lines = [_describe(int(k), interpreted, compiled) for k in indices[:SHOWN]]
        raise AssertionError(
            f"{name}: {indices.size} of {interpreted.size} elements differ ({how}):\n"
            + "\n".join(lines)
        )


def assert_same(
    name: str,
    interpreted: Array,
    compiled: Array,
    bound: Bound | None = None,
    *,
    signed_zeros: bool = True,
) -> None:
    """Fail, listing the first differing elements, unless `compiled` matches `interpreted`
    as the module docstring says (`bound`: the float tolerance, None for bit equality;
    `signed_zeros`: False to let ``-0.0`` equal ``0.0``)."""
    assert interpreted.dtype == compiled.dtype, f"{name}: dtypes differ"
    assert interpreted.shape == compiled.shape, f"{name}: shapes differ"
    if bound is not None and interpreted.dtype.kind in "biu":
        raise TypeError(f"{name}: integers and bools compare exactly; got a bound")
    bad = _mismatches(interpreted, compiled, bound, signed_zeros)
    how = "bit for bit" if bound is None else "within the bound"
    _fail(name, bad, interpreted, compiled, how if signed_zeros else how + ", -0.0 == 0.0")


def assert_between(
    name: str,
    interpreted: Array,
    compiled: Array,
    low: Array,
    high: Array,
    may_be_nan: Array,
    must_be_nan: Array,
) -> None:
    """Fail unless each compiled float lies in ``[low, high]`` (NaN where `may_be_nan`,
    and only NaN where `must_be_nan`); elements with ``low == -inf`` and ``high == inf``
    and `may_be_nan` are not checked at all. `interpreted` only serves the message."""
    assert interpreted.dtype == compiled.dtype, f"{name}: dtypes differ"
    c = compiled.astype(np.float64)
    nan = np.isnan(c)
    inside = (low <= c) & (c <= high) & ~must_be_nan
    bad = ~np.where(nan, may_be_nan, inside)
    _fail(name, bad.reshape(-1), interpreted, compiled, "outside the interpreter's envelope")


@contextmanager
def exp_nudged(direction: int) -> Iterator[None]:
    """While active, the interpreter's `blk.exp` results move `direction` (1 or -1) times
    `EXP_ULPS` places in the last digit (down: toward zero), except where they are exact
    on both sides (exp of 0, of infinities, of NaN)."""
    original = numerics.math_function

    def nudged(name: str, d: DType, x: Array) -> Array:
        result = original(name, d, x)
        if name != "exp":
            return result
        source = np.asarray(numerics.to_compute(x, d), np.float64)
        return _step(
            np.asarray(result), direction * EXP_ULPS[d.name], np.isfinite(source) & (source != 0)
        )

    numerics.math_function = nudged
    try:
        yield
    finally:
        numerics.math_function = original


EXP_ULPS = {
    "float16": 1,
    "bfloat16": 1,
    "float32": 4,
    "float64": 2,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
}
"""How far apart (in units in the last place) the compiled `blk.exp` may be from the
interpreter's, correctly rounded one. float32: 3 ulp from NumPy's float32 exp (the
compiled polynomial's documented bound), NumPy's within 1 ulp of correct rounding; float64:
the C library's and NumPy's, each within 1 ulp; float16, bfloat16 and fp8: computed in
float32, so off by at most one place after the final rounding. Measured on 2**18 values:
1 ulp for float32 and float64, none for float16 and bfloat16."""


def _step(values: Array, places: int, where: Array) -> Array:
    """Non-negative floats (exp results) moved `places` representable values up or down
    (down stops at zero, up at infinity) where `where`; NaN stays."""
    bits = values.view(f"u{values.dtype.itemsize}").astype(np.int64)
    infinity = int(np.array(np.inf, values.dtype).view(f"u{values.dtype.itemsize}"))
    moved = np.clip(bits + places, 0, infinity)
    keep = ~where | np.isnan(values.astype(np.float64))
    out = np.where(keep, bits, moved).astype(f"u{values.dtype.itemsize}")
    return out.view(values.dtype).reshape(values.shape)


# --------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------


def edge_values(dtype: np.dtype[Any]) -> Array:
    """The values of `dtype` where implementations tend to disagree: zeros, -1, the
    extremes, NaN, infinities, subnormals, rounding ties, shift amounts near the width."""
    if dtype == np.bool_:
        return np.array([False, True])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        width = 8 * dtype.itemsize
        small = [0, 1, 2, 3, 7, width - 1, width, width + 1]
        if dtype.kind == "i":
            small += [-1, -2, -7, -width, info.min, info.min + 1]
        return np.array([*small, info.max, info.max - 1, info.max // 2 + 1], dtype=dtype)
    info = ml_dtypes.finfo(dtype)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.5, 7.0, -7.0, np.nan, np.inf, -np.inf]
    extremes = [float(info.max), -float(info.max), float(info.smallest_normal)]
    subnormal = float(info.smallest_subnormal)
    return np.array([*special, *extremes, subnormal, -subnormal], dtype=dtype)


def random_values(
    rng: np.random.Generator, dtype: np.dtype[Any], shape: tuple[int, ...], edges: float = 0.2
) -> Array:
    """Random values of `dtype`: a mixture of small numbers (which make divisions, shifts
    and roundings interesting), numbers spread over the whole range, and, with
    probability `edges` each, one of `edge_values`."""
    size = int(np.prod(shape))
    if dtype == np.bool_:
        return rng.random(size).reshape(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        small = rng.integers(max(int(info.min), -20), 21, size)
        wide = rng.integers(int(info.min), int(info.max), size, dtype=dtype, endpoint=True)
        values = np.where(rng.random(size) < 0.5, small, wide).astype(dtype)
    else:
        small = np.round(rng.normal(0.0, 4.0, size) * 4) / 4  # quarters: exact, with ties
        scale = 10.0 ** rng.integers(-3, 5, size)
        spread = rng.normal(0.0, 1.0, size) * scale
        values = np.where(rng.random(size) < 0.5, small, spread).astype(dtype)
    pick = rng.random(size) < edges
    values[pick] = rng.choice(edge_values(dtype), int(pick.sum()))
    return values.reshape(shape)
