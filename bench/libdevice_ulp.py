"""The accuracy of `blk.math` / `blk.math2` (`tl.extra.libdevice`'s C functions) and of
`blk.tanh`, in ulp, on the `cpu` target (and the interpreter, and `ptx` with --ptx), for
float32 and float64: the table of docs/math.md.

    PYTHONPATH=/path/to/mpmath python bench/libdevice_ulp.py [--ptx] [--n 4000] [--output FILE]
    PYTHONPATH=/path/to/mpmath python bench/libdevice_ulp.py --speed [--only pow tan]

Each function runs on random inputs over the ranges `CASES` gives (log-uniform where
magnitudes span many binades) and on edge inputs: ±0, ±inf, NaN, the smallest and the
largest subnormal, the smallest normal, the largest finite value, ±1, and huge
arguments. The reference is mpmath at 160 bits, rounded to the dtype, where C's result is
finite and nonzero; elsewhere (poles, overflow, NaN, signed zeros) C's own answer as
NumPy gives it in float64. The error is the distance in ulp (representable steps, so an
ulp is the smallest step in the subnormal range) between the result and the correctly
rounded reference; `special` counts the inputs whose zero, infinity or NaN (signs
included) differs from the reference's.

mpmath is not a dependency of blkc: install it anywhere and put it on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy

import blkc
from blkc import dtypes
from blkc.runtime import interpreter, numerics

try:
    import mpmath
except ImportError:  # pragma: no cover - told to the user
    sys.exit("bench/libdevice_ulp.py needs mpmath on PYTHONPATH (pip install --target DIR mpmath)")

ROOT = Path(__file__).resolve().parents[1]
BLOCK = 1024

UNARY = """
module {{
  func.func @k(%a: !blk.ptr<{t}>, %o: !blk.ptr<{t}>) attributes {{blk.kernel}} {{
    %pid = blk.program_id 0 : i32
    %c = blk.constant {block} : i32
    %s = blk.mul %pid, %c : i32
    %r = blk.arange 0, {block} : tensor<{block}xi32>
    %offs = blk.add %s, %r : i32, tensor<{block}xi32> -> tensor<{block}xi32>
    %pa = blk.addptr %a, %offs : !blk.ptr<{t}>, tensor<{block}xi32> -> tensor<{block}x!blk.ptr<{t}>>
    %x = blk.load %pa : tensor<{block}x!blk.ptr<{t}>>
    %y = {op} %x : tensor<{block}x{t}>
    %po = blk.addptr %o, %offs : !blk.ptr<{t}>, tensor<{block}xi32> -> tensor<{block}x!blk.ptr<{t}>>
    blk.store %po, %y : tensor<{block}x!blk.ptr<{t}>>
    func.return
  }}
}}
"""

BINARY = """
module {{
  func.func @k(%a: !blk.ptr<{t}>, %b: !blk.ptr<{t}>, %o: !blk.ptr<{t}>) attributes {{blk.kernel}} {{
    %pid = blk.program_id 0 : i32
    %c = blk.constant {block} : i32
    %s = blk.mul %pid, %c : i32
    %r = blk.arange 0, {block} : tensor<{block}xi32>
    %offs = blk.add %s, %r : i32, tensor<{block}xi32> -> tensor<{block}xi32>
    %pa = blk.addptr %a, %offs : !blk.ptr<{t}>, tensor<{block}xi32> -> tensor<{block}x!blk.ptr<{t}>>
    %pb = blk.addptr %b, %offs : !blk.ptr<{t}>, tensor<{block}xi32> -> tensor<{block}x!blk.ptr<{t}>>
    %x = blk.load %pa : tensor<{block}x!blk.ptr<{t}>>
    %w = blk.load %pb : tensor<{block}x!blk.ptr<{t}>>
    %y = {op} %x, %w : tensor<{block}x{t}>
    %po = blk.addptr %o, %offs : !blk.ptr<{t}>, tensor<{block}xi32> -> tensor<{block}x!blk.ptr<{t}>>
    blk.store %po, %y : tensor<{block}x!blk.ptr<{t}>>
    func.return
  }}
}}
"""


def kernel_text(fn: str, arity: int, t: str, block: int = BLOCK) -> str:
    """The IR of a kernel applying `fn` to `block`-element slices of its arguments."""
    if fn == "tanh":
        op = "blk.tanh"
    else:
        op = f'blk.math "{fn}"' if arity == 1 else f'blk.math2 "{fn}"'
    return (UNARY if arity == 1 else BINARY).format(op=op, t=t, block=block)


# -- inputs ------------------------------------------------------------------------------

Range = tuple[str, float, float]
"""("lin", low, high): uniform; ("log", low, high): ±2**uniform(low, high); ("int",
low, high): integers."""


def draw(rng: numpy.random.Generator, ranges: list[Range], n: int) -> numpy.ndarray:
    parts = []
    for kind, low, high in ranges:
        m = n // len(ranges)
        if kind == "lin":
            parts.append(rng.uniform(low, high, m))
        elif kind == "log":
            parts.append(rng.choice([-1.0, 1.0], m) * numpy.exp2(rng.uniform(low, high, m)))
        elif kind == "pos":
            parts.append(numpy.exp2(rng.uniform(low, high, m)))
        else:
            parts.append(rng.integers(int(low), int(high) + 1, m).astype(numpy.float64))
    return numpy.concatenate(parts)


def edges(dtype: type) -> numpy.ndarray:
    info = numpy.finfo(dtype)
    huge = 1e30 if dtype == numpy.float32 else 1e300
    values = [
        0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan,
        info.smallest_subnormal, -info.smallest_subnormal,
        info.smallest_normal - info.smallest_subnormal, info.smallest_normal,
        -info.smallest_normal, info.max, -info.max, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0,
        huge, -huge, 1e7, -1e7, 3.0, -3.0, 10.0, 100.0, -100.0,
    ]  # fmt: skip
    return numpy.array(values, dtype)


CASES: dict[str, tuple[int, dict[str, list[Range]], list[Range] | None]] = {
    # name: (arity, {dtype: ranges of the first operand}, ranges of the second operand)
    "tan": (1, {"*": [("lin", -10, 10), ("log", -30, 16)]}, None),
    "sinh": (1, {"f32": [("lin", -90, 90), ("log", -30, 3)], "f64": [("lin", -711, 711)]}, None),
    "cosh": (1, {"f32": [("lin", -90, 90), ("log", -30, 3)], "f64": [("lin", -711, 711)]}, None),
    "tanh": (1, {"*": [("lin", -10, 10), ("log", -30, 3)]}, None),
    "asin": (1, {"*": [("lin", -1, 1), ("log", -30, 0)]}, None),
    "acos": (1, {"*": [("lin", -1, 1), ("log", -30, 0)]}, None),
    "atan": (1, {"*": [("lin", -10, 10), ("log", -30, 30)]}, None),
    "asinh": (1, {"*": [("lin", -10, 10), ("log", -30, 60)]}, None),
    "acosh": (1, {"*": [("lin", 1, 3), ("pos", 0, 60)]}, None),
    "atanh": (1, {"*": [("lin", -1, 1), ("log", -30, 0)]}, None),
    "exp10": (1, {"f32": [("lin", -46, 39)], "f64": [("lin", -324, 309)], "*": []}, None),
    "expm1": (1, {"f32": [("lin", -20, 89), ("log", -30, 0)], "f64": [("lin", -40, 710)]}, None),
    "log10": (1, {"*": [("pos", -140, 127), ("lin", 0.5, 2)]}, None),
    "log1p": (1, {"*": [("lin", -1, 1), ("pos", -30, 100), ("log", -30, -1)]}, None),
    "cbrt": (1, {"*": [("log", -140, 127)]}, None),
    "erfc": (1, {"f32": [("lin", -4, 11)], "f64": [("lin", -6, 27)]}, None),
    "lgamma": (1, {"*": [("lin", -20, 40), ("pos", -20, 100)]}, None),
    "tgamma": (1, {"f32": [("lin", -30, 35)], "f64": [("lin", -170, 171)]}, None),
    "rint": (1, {"*": [("lin", -100, 100), ("log", -2, 30)]}, None),
    "round": (1, {"*": [("lin", -100, 100), ("log", -2, 30)]}, None),
    "trunc": (1, {"*": [("lin", -100, 100), ("log", -2, 30)]}, None),
    "logb": (1, {"*": [("log", -140, 127)]}, None),
    "atan2": (2, {"*": [("lin", -10, 10), ("log", -30, 30)]}, [("lin", -10, 10), ("log", -30, 30)]),
    "pow": (2, {"*": [("pos", -10, 10), ("lin", -4, 4)]}, [("lin", -20, 20), ("int", -9, 9)]),
    "hypot": (2, {"*": [("log", -140, 127)]}, [("log", -140, 127)]),
    "fmod": (
        2,
        {"*": [("lin", -1e4, 1e4), ("log", -20, 60)]},
        [("lin", -10, 10), ("log", -20, 20)],
    ),
    "remainder": (
        2,
        {"*": [("lin", -1e4, 1e4), ("log", -20, 60)]},
        [("lin", -10, 10), ("log", -20, 20)],
    ),
    "copysign": (2, {"*": [("log", -140, 127)]}, [("lin", -1, 1)]),
    "nextafter": (2, {"*": [("log", -140, 127)]}, [("log", -140, 127)]),
    "fdim": (2, {"*": [("lin", -10, 10)]}, [("lin", -10, 10)]),
    "ldexp": (2, {"*": [("log", -20, 20)]}, [("int", -200, 200)]),
}


# -- the reference -----------------------------------------------------------------------


def _mp(fn: str) -> Callable[..., object]:
    mp = mpmath
    table: dict[str, Callable[..., object]] = {
        "tan": mp.tan, "sinh": mp.sinh, "cosh": mp.cosh, "tanh": mp.tanh, "asin": mp.asin,
        "acos": mp.acos, "atan": mp.atan, "asinh": mp.asinh, "acosh": mp.acosh,
        "atanh": mp.atanh, "exp10": lambda x: mp.power(10, x), "expm1": mp.expm1,
        "log10": lambda x: mp.log(x, 10), "log1p": mp.log1p, "cbrt": mp.cbrt, "erfc": mp.erfc,
        "lgamma": lambda x: mp.log(abs(mp.gamma(x))), "tgamma": mp.gamma, "atan2": mp.atan2,
        "pow": mp.power, "hypot": mp.hypot,
    }  # fmt: skip
    return table[fn]


EXACT = {"rint", "round", "trunc", "logb", "fmod", "remainder", "copysign", "nextafter",
         "fdim", "ldexp"}  # fmt: skip
"""Functions whose C result is exact: NumPy's float64 (or the dtype's own) is the
reference."""


def reference(fn: str, xs: list[numpy.ndarray], dtype: type) -> numpy.ndarray:
    """The correctly rounded result of `fn`, as module docstring says."""
    d = dtypes.from_numpy(numpy.dtype(dtype))
    if fn == "tanh":
        c = numpy.tanh(xs[0].astype(numpy.float64)).astype(dtype)
    else:
        c = numerics.named_math(fn, d, *xs).astype(dtype)
    if fn in EXACT:
        return c
    out = c.copy()
    function = _mp(fn)
    with mpmath.workprec(160):
        for i in numpy.flatnonzero(numpy.isfinite(c) & (c != 0)):
            if any(x[i] == 0 for x in xs):  # mpmath has no signed zeros: C's result
                continue
            args = [mpmath.mpf(float(x[i])) for x in xs]
            try:
                value = function(*args)
            except (ValueError, ZeroDivisionError):
                continue
            if isinstance(value, mpmath.mpc):
                continue
            out[i] = _round(value, dtype)
    return out


def _round(value: object, dtype: type) -> float:
    """An mpmath value rounded once to `dtype` (float32 via an exact 60-bit step)."""
    if dtype == numpy.float64:
        return float(value)  # type: ignore[arg-type]
    with mpmath.workprec(24):
        narrow = +value  # type: ignore[operator]
    f = float(narrow)
    if abs(f) < 2.0**-126:  # the subnormal range: a fixed step of 2**-149
        f = float(mpmath.nint(value * mpmath.mpf(2) ** 149)) * 2.0**-149  # type: ignore[operator]
    with numpy.errstate(over="ignore"):
        return float(numpy.float32(f))


# -- measuring ---------------------------------------------------------------------------


def ordered(x: numpy.ndarray) -> numpy.ndarray:
    """Integers in the order of the floats `x` (so differences count representable steps)."""
    width = x.dtype.itemsize * 8
    bits = x.view(numpy.int32 if width == 32 else numpy.int64).astype(numpy.int64)
    return numpy.where(bits < 0, -(bits & ((1 << (width - 1)) - 1)), bits)


def compare(out: numpy.ndarray, ref: numpy.ndarray) -> tuple[float, int]:
    """(the largest ulp error over results whose reference is finite and nonzero, the
    count of inputs whose zero, infinity or NaN differs from the reference's)."""
    regular = numpy.isfinite(ref) & (ref != 0)
    both = regular & numpy.isfinite(out)
    ulp = numpy.abs(ordered(out[both]) - ordered(ref[both])).astype(numpy.float64)
    worst = float(ulp.max()) if ulp.size else 0.0
    if (regular & ~numpy.isfinite(out)).any():
        worst = math.inf
    special = ~regular
    same = (out[special] == ref[special]) & (
        numpy.signbit(out[special]) == numpy.signbit(ref[special])
    ) | (numpy.isnan(out[special]) & numpy.isnan(ref[special]))
    return worst, int((~same).sum())


def run(text: str, target: str, xs: list[numpy.ndarray]) -> numpy.ndarray:
    out = numpy.empty_like(xs[0])
    grid = (len(xs[0]) // BLOCK,)
    if target == "interpreter":
        module = blkc.run_pipeline(blkc.parse(text, "kernel.mlir"), "to-strict{warn=false}")
        interpreter.run(module, None, grid, [*xs, out])
    else:
        blkc.compile(text, target=target)[grid](*xs, out)
    return out


def inputs(fn: str, dtype: type, n: int, seed: int = 1) -> list[numpy.ndarray]:
    """The operands `fn` is measured on: `n` random ones and the edges, a multiple of
    BLOCK in all (the first operand's edges meet random second operands and the reverse)."""
    arity, first, second = CASES[fn]
    rng = numpy.random.default_rng(seed)
    t = "f32" if dtype == numpy.float32 else "f64"
    ranges = first.get(t) or first["*"]
    xs = [draw(rng, ranges, n)]
    if arity == 2:
        assert second is not None
        xs.append(draw(rng, second, n))
    e = edges(dtype).astype(numpy.float64)
    length = -(-(len(xs[0]) + len(e) * (1 + arity) + len(e) ** arity) // BLOCK) * BLOCK
    columns = []
    for k, x in enumerate(xs):
        column = numpy.resize(x, length)
        column[: len(e)] = e if k == 0 else x[: len(e)]
        if arity == 2:
            column[len(e) : 2 * len(e)] = x[: len(e)] if k == 0 else e
            grid = numpy.meshgrid(e, e, indexing="ij")[k].ravel()
            column[2 * len(e) : 2 * len(e) + len(grid)] = grid
        columns.append(column.astype(dtype))
    return columns


LIMITS = {("tan", "cpu", "f32"): 2.0**30}
"""Where a target's float32 code is exact enough only for |x| below a bound (docs/math.md
says so): larger inputs are left out of its measure."""


def measure(fn: str, dtype: type, target: str, n: int) -> tuple[float, int]:
    arity = CASES[fn][0]
    t = "f32" if dtype == numpy.float32 else "f64"
    xs = inputs(fn, dtype, n)
    out = run(kernel_text(fn, arity, t), target, xs)
    ref = reference(fn, xs, dtype)
    limit = LIMITS.get((fn, target, t))
    if limit is not None:
        kept = ~(numpy.abs(xs[0]) >= limit)
        out, ref = out[kept], ref[kept]
    return compare(out, ref)


def speed(fn: str, n: int = 1 << 20, repeats: int = 20) -> tuple[float, float]:
    """Nanoseconds per float32 element of `fn` on one thread: with `vector_math`'s code,
    and with the C library's function instead (a scalar call per element)."""
    import time

    from blkc.runtime import vector_math

    arity = CASES[fn][0]
    xs = [numpy.resize(x, n) for x in inputs(fn, numpy.float32, 8192)]
    out = numpy.empty_like(xs[0])
    timings = []
    own = vector_math.NAMED.pop(fn)
    try:
        for name, table in (("vector", {fn: own}), ("libm", {})):
            vector_math.NAMED.update(table)
            text = kernel_text(fn, arity, "f32").replace("@k(", f"@k_{name}(")
            kernel = blkc.compile(text)
            kernel[(n // BLOCK,)](*xs, out, num_cpu_threads=1)
            start = time.perf_counter()
            for _ in range(repeats):
                kernel[(n // BLOCK,)](*xs, out, num_cpu_threads=1)
            timings.append((time.perf_counter() - start) / repeats / n * 1e9)
            vector_math.NAMED.pop(fn, None)
    finally:
        vector_math.NAMED[fn] = own
    return timings[0], timings[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=4000, help="random inputs per function")
    parser.add_argument("--ptx", action="store_true", help="also measure the ptx target")
    parser.add_argument("--only", nargs="*", help="these functions only")
    parser.add_argument("--output", type=Path, help="write the Markdown table here")
    parser.add_argument(
        "--speed", action="store_true", help="time vector_math's float32 code against libm's"
    )
    args = parser.parse_args()
    if args.speed:
        from blkc.runtime import vector_math

        print("| function | vectorized ns/element | C library ns/element |\n|---|---|---|")
        for fn in args.only or sorted(vector_math.NAMED):
            own, libm = speed(fn)
            print(f"| `{fn}` | {own:.2f} | {libm:.2f} |", flush=True)
        return
    targets = ["cpu", "interpreter"] + (["ptx"] if args.ptx else [])
    header = ["function"] + [f"{t} {d}" for t in targets for d in ("f32", "f64")]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for fn in args.only or CASES:
        cells = [f"`{fn}`"]
        for target in targets:
            for dtype in (numpy.float32, numpy.float64):
                worst, special = measure(fn, dtype, target, args.n)
                cell = "exact" if worst == 0 else f"{worst:g}"
                cells.append(cell + (f" ({special} special)" if special else ""))
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    if args.output:
        args.output.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
