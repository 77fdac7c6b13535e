"""`tl.extra.libdevice` and the ops under it (`blk.math`, `blk.math2`): each C function
against NumPy (Python's `math` where NumPy has none) on random and edge inputs, float32
and float64, on the `cpu` target, the interpreter and (for a few) `cpu-simt`; the functions
composed in the frontend; Triton's dtype rules; located refusals.

The bounds: float32 results within `F32_ULP` of NumPy's float64 result rounded to float32
(so within that many ulp, plus a half, of the exact value); float64 results within
`F64_ULP` of NumPy's float64 result, whose own error is up to 1-2 ulp (docs/math.md has
the errors against mpmath). Zeros, infinities and NaN exactly, signs included."""

from __future__ import annotations

import functools
import math
import re

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.language.extra import libdevice
from blkc.runtime import interpreter, ptx, vector_math

BLOCK = 1024

KERNEL = """
module {{
  func.func @k({params}, %o: !blk.ptr<{t}>) attributes {{blk.kernel}} {{
    %pid = blk.program_id 0 : i32
    %c = blk.constant {block} : i32
    %s = blk.mul %pid, %c : i32
    %r = blk.arange 0, {block} : tensor<{block}xi32>
    %offs = blk.add %s, %r : i32, tensor<{block}xi32> -> tensor<{block}xi32>
{loads}
    %y = {op} : tensor<{block}x{t}>
    %po = blk.addptr %o, %offs : !blk.ptr<{t}>, tensor<{block}xi32> -> tensor<{block}x!blk.ptr<{t}>>
    blk.store %po, %y : tensor<{block}x!blk.ptr<{t}>>
    func.return
  }}
}}
"""


def kernel(fn: str, arity: int, t: str) -> str:
    names = ["a", "b"][:arity]
    loads = "\n".join(
        f"    %p{n} = blk.addptr %{n}, %offs : !blk.ptr<{t}>, tensor<{BLOCK}xi32> -> "
        f"tensor<{BLOCK}x!blk.ptr<{t}>>\n"
        f"    %x{n} = blk.load %p{n} : tensor<{BLOCK}x!blk.ptr<{t}>>"
        for n in names
    )
    op = f'blk.math "{fn}" %xa' if arity == 1 else f'blk.math2 "{fn}" %xa, %xb'
    params = ", ".join(f"%{n}: !blk.ptr<{t}>" for n in names)
    return KERNEL.format(params=params, t=t, block=BLOCK, loads=loads, op=op)


def run(text: str, target: str, *xs: numpy.ndarray) -> numpy.ndarray:
    out = numpy.empty_like(xs[0])
    grid = (len(xs[0]) // BLOCK,)
    if target == "interpreter":
        module = blkc.run_pipeline(blkc.parse(text, "kernel.mlir"), "to-strict{warn=false}")
        interpreter.run(module, None, grid, [*xs, out])
    else:
        blkc.compile(text, target=target)[grid](*xs, out)
    return out


# -- the references ----------------------------------------------------------------------


def _gamma(x: float) -> float:
    if x == 0:
        return math.copysign(math.inf, x)
    if math.isnan(x) or x == -math.inf or (x < 0 and x == math.floor(x)):
        return math.nan
    try:
        return math.gamma(x)
    except OverflowError:
        return math.copysign(math.inf, x) if abs(x) < 1 else math.inf


def _lgamma(x: float) -> float:
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return math.inf


def _remainder(x: float, y: float) -> float:
    try:
        return math.remainder(x, y)
    except ValueError:
        return math.nan


def _round(x: numpy.ndarray) -> numpy.ndarray:
    t = numpy.trunc(x)
    return numpy.where(numpy.abs(x - t) >= 0.5, t + numpy.copysign(1.0, x), t)


def _logb(x: numpy.ndarray) -> numpy.ndarray:
    mantissa, exponent = numpy.frexp(x)
    finite = numpy.where(mantissa != 0, exponent - 1.0, -numpy.inf)
    return numpy.where(numpy.isfinite(x), finite, numpy.abs(x))


REFERENCES = {
    "tan": numpy.tan,
    "sinh": numpy.sinh,
    "cosh": numpy.cosh,
    "asin": numpy.arcsin,
    "acos": numpy.arccos,
    "atan": numpy.arctan,
    "asinh": numpy.arcsinh,
    "acosh": numpy.arccosh,
    "atanh": numpy.arctanh,
    "exp10": lambda x: numpy.power(10.0, x),
    "expm1": numpy.expm1,
    "log10": numpy.log10,
    "log1p": numpy.log1p,
    "cbrt": numpy.cbrt,
    "erfc": numpy.vectorize(math.erfc, otypes=[float]),
    "lgamma": numpy.vectorize(_lgamma, otypes=[float]),
    "tgamma": numpy.vectorize(_gamma, otypes=[float]),
    "rint": numpy.rint,
    "round": _round,
    "trunc": numpy.trunc,
    "logb": _logb,
    "atan2": numpy.arctan2,
    "pow": numpy.power,
    "hypot": numpy.hypot,
    "fmod": numpy.fmod,
    "remainder": numpy.vectorize(_remainder, otypes=[float]),
    "copysign": numpy.copysign,
    "ldexp": lambda x, n: numpy.ldexp(x, n.astype(numpy.int32)),
}

# Random inputs: (kind, low, high), kind "lin" uniform, "log" ±2**uniform, "pos" 2**uniform,
# "int" integers; the float64 ranges where they differ.
RANGES: dict[str, list[tuple[str, float, float]]] = {
    "tan": [("lin", -10, 10), ("log", -30, 20), ("log", 16, 127)],
    "sinh": [("lin", -89, 89), ("log", -30, 3)],
    "cosh": [("lin", -89, 89), ("log", -30, 3)],
    "asin": [("lin", -1, 1), ("log", -30, 0)],
    "acos": [("lin", -1, 1), ("log", -30, 0)],
    "atan": [("lin", -10, 10), ("log", -30, 30)],
    "asinh": [("lin", -10, 10), ("log", -30, 60)],
    "acosh": [("lin", 1, 3), ("pos", 0, 60)],
    "atanh": [("lin", -1, 1), ("log", -30, 0)],
    "exp10": [("lin", -46, 39)],
    "expm1": [("lin", -20, 88), ("log", -30, 0)],
    "log10": [("pos", -140, 127), ("lin", 0.5, 2)],
    "log1p": [("lin", -1, 1), ("pos", -30, 100), ("log", -30, -1)],
    "cbrt": [("log", -140, 127)],
    "erfc": [("lin", -4, 11)],
    "lgamma": [("lin", -20, 40), ("pos", -20, 100)],
    "tgamma": [("lin", -30, 35)],
    "rint": [("lin", -100, 100), ("log", -2, 30)],
    "round": [("lin", -100, 100), ("log", -2, 30)],
    "trunc": [("lin", -100, 100), ("log", -2, 30)],
    "logb": [("log", -140, 127)],
    "atan2": [("lin", -10, 10), ("log", -30, 30)],
    "pow": [("pos", -10, 10), ("lin", -4, 4)],
    "hypot": [("log", -140, 127)],
    "fmod": [("lin", -1e4, 1e4), ("log", -20, 60)],
    "remainder": [("lin", -1e4, 1e4), ("log", -20, 60)],
    "copysign": [("log", -140, 127)],
    "ldexp": [("log", -20, 20)],
}
SECOND: dict[str, list[tuple[str, float, float]]] = {
    "atan2": [("lin", -10, 10), ("log", -30, 30)],
    "pow": [("lin", -20, 20), ("int", -9, 9)],
    "hypot": [("log", -140, 127)],
    "fmod": [("lin", -10, 10), ("log", -20, 20)],
    "remainder": [("lin", -10, 10), ("log", -20, 20)],
    "copysign": [("lin", -1, 1)],
    "ldexp": [("int", -200, 200)],
}
F64_RANGES = {
    "sinh": [("lin", -710, 710)],
    "cosh": [("lin", -710, 710)],
    "exp10": [("lin", -324, 308)],
    "expm1": [("lin", -40, 709)],
    "erfc": [("lin", -6, 27)],
    "lgamma": [("pos", 2, 100), ("lin", -20, -10)],  # math.lgamma is poor near 1 and 2
    "tgamma": [("lin", -170, 171)],
}

F32_ULP = {
    "lgamma": 4, "tgamma": 4, "sinh": 2, "cosh": 2, "log10": 2, "erfc": 2, "acosh": 2, "atanh": 2,
    "asin": 2, "atan": 2, "atan2": 2,
}  # fmt: skip
"""Float32 bounds in ulp from NumPy's float64 result rounded to float32 (default 1; exact
functions 0)."""
F64_ULP = {"lgamma": 8, "tgamma": 8, "cbrt": 3, "erfc": 3, "exp10": 2, "tanh": 2}
"""Float64 bounds in ulp from NumPy's own float64 result (default 2; exact functions 0)."""
EXACT = {"rint", "round", "trunc", "logb", "fmod", "remainder", "copysign", "ldexp"}


def draw(rng: numpy.random.Generator, ranges: list[tuple[str, float, float]], n: int) -> list:
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
            parts.append(rng.integers(int(low), int(high) + 1, m).astype(float))
    return numpy.resize(numpy.concatenate(parts), n)


def edges(dtype: type) -> numpy.ndarray:
    info = numpy.finfo(dtype)
    huge = 1e30 if dtype == numpy.float32 else 1e300
    return numpy.array(
        [0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, info.smallest_subnormal,
         -info.smallest_subnormal, info.smallest_normal - info.smallest_subnormal,
         info.smallest_normal, info.max, -info.max, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, huge,
         -huge, 3.0, -3.0, 100.0, -100.0],
        dtype,
    )  # fmt: skip


def operands(fn: str, dtype: type, n: int = 4 * BLOCK) -> list[numpy.ndarray]:
    """Random operands with every edge value (of the first operand against random second
    ones, then every pair of edges), `n` of each."""
    rng = numpy.random.default_rng(5)
    ranges = F64_RANGES.get(fn, RANGES[fn]) if dtype == numpy.float64 else RANGES[fn]
    xs = [draw(rng, ranges, n)]
    e = edges(dtype).astype(float)
    if fn in SECOND:
        xs.append(draw(rng, SECOND[fn], n))
        pairs = numpy.meshgrid(e, e, indexing="ij")
        xs[0][: e.size**2], xs[1][: e.size**2] = pairs[0].ravel(), pairs[1].ravel()
        if fn in ("ldexp", "pow"):  # second edges that are this function's own
            xs[1][: e.size**2] = numpy.nan_to_num(xs[1][: e.size**2]).clip(-300, 300).round()
    else:
        xs[0][: e.size] = e
    return [x.astype(dtype) for x in xs]


def reference(fn: str, xs: list[numpy.ndarray], dtype: type) -> numpy.ndarray:
    with numpy.errstate(all="ignore"):
        return REFERENCES[fn](*(x.astype(numpy.float64) for x in xs)).astype(dtype)


def assert_within(out: numpy.ndarray, expected: numpy.ndarray, ulps: int, what: str) -> None:
    """`out` within `ulps` representable steps of `expected` where that is finite and
    nonzero; the same zero, infinity or NaN (signs included) elsewhere."""
    regular = numpy.isfinite(expected) & (expected != 0)
    int_type = numpy.int32 if out.dtype == numpy.float32 else numpy.int64

    def ordered(x: numpy.ndarray) -> numpy.ndarray:
        bits = x.view(int_type).astype(numpy.int64)
        return numpy.where(bits < 0, -(bits & numpy.iinfo(int_type).max), bits)

    finite = regular & numpy.isfinite(out)
    distance = numpy.abs(ordered(out[finite]) - ordered(expected[finite]))
    assert finite.sum() == regular.sum(), f"{what}: non-finite results for finite references"
    worst = int(distance.max()) if distance.size else 0
    assert worst <= ulps, f"{what}: {worst} ulp (bound {ulps})"
    special = ~regular
    same = (out[special] == expected[special]) & (
        numpy.signbit(out[special]) == numpy.signbit(expected[special])
    ) | (numpy.isnan(out[special]) & numpy.isnan(expected[special]))
    bad = numpy.flatnonzero(special)[~same]
    assert bad.size == 0, f"{what}: {out[bad[:4]]} where {expected[bad[:4]]} was expected"


def bound(fn: str, dtype: type) -> int:
    if fn in EXACT:
        return 0
    if dtype == numpy.float32:
        return F32_ULP.get(fn, 1)
    return F64_ULP.get(fn, 2)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("fn", sorted(REFERENCES))
def test_function_matches_numpy_on_the_cpu(fn: str, dtype: type) -> None:
    xs = operands(fn, dtype)
    t = "f32" if dtype == numpy.float32 else "f64"
    out = run(kernel(fn, len(xs), t), "cpu", *xs)
    assert_within(out, reference(fn, xs, dtype), bound(fn, dtype), f"{fn} {t}")


@pytest.mark.parametrize("fn", sorted(REFERENCES))
def test_interpreter_matches_numpy(fn: str) -> None:
    """The interpreter computes in float64 and rounds once: within the float32 bounds."""
    xs = operands(fn, numpy.float32, BLOCK)
    out = run(kernel(fn, len(xs), "f32"), "interpreter", *xs)
    assert_within(out, reference(fn, xs, numpy.float32), bound(fn, numpy.float32), fn)


@pytest.mark.parametrize("fn", ["tan", "pow", "atan2", "rint", "lgamma", "ldexp", "log1p"])
def test_cpu_simt_matches_numpy(fn: str) -> None:
    xs = operands(fn, numpy.float32, BLOCK)
    out = run(kernel(fn, len(xs), "f32"), "cpu-simt", *xs)
    assert_within(out, reference(fn, xs, numpy.float32), bound(fn, numpy.float32), fn)


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_small_floats_compute_in_float32(t: str) -> None:
    """float16 and bfloat16 widen to float32, compute there and round once."""
    import ml_dtypes

    dtype = numpy.float16 if t == "f16" else ml_dtypes.bfloat16
    x = numpy.linspace(-3, 3, BLOCK).astype(dtype)
    y = numpy.linspace(0.25, 4, BLOCK).astype(dtype)
    for fn, arity in (("atan", 1), ("expm1", 1), ("hypot", 2), ("pow", 2)):
        xs = [numpy.abs(x) if fn == "pow" else x, y][:arity]
        out = run(kernel(fn, arity, t), "cpu", *xs)
        wide = REFERENCES[fn](*(v.astype(numpy.float32).astype(numpy.float64) for v in xs))
        expected = wide.astype(numpy.float32).astype(dtype)
        # Within one step of the small type: a float32 result near a tie of the small
        # type may round to either side of it.
        steps = 2**13 if t == "f16" else 2**16
        gap = numpy.abs(out.astype(numpy.float32).view(numpy.int32).astype(numpy.int64)
                        - expected.astype(numpy.float32).view(numpy.int32))  # fmt: skip
        assert (gap <= steps).all(), fn


def test_unknown_function_is_refused_by_the_verifier() -> None:
    text = kernel("cbrt", 1, "f32").replace('"cbrt"', '"cube_root"')
    with pytest.raises(Exception, match="'cube_root' is not a function of blk.math"):
        blkc.compile(text)


# -- the Python frontend -----------------------------------------------------------------


@blkc.jit
def unary_kernel(x_ptr, out_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    if FN == "tanh":
        r = libdevice.tanh(x)
    elif FN == "rcbrt":
        r = libdevice.rcbrt(x)
    elif FN == "normcdf":
        r = libdevice.normcdf(x)
    elif FN == "saturatef":
        r = libdevice.saturatef(x)
    elif FN == "nearbyint":
        r = libdevice.nearbyint(x)
    elif FN == "fast_expf":
        r = libdevice.fast_expf(x)
    elif FN == "fast_tanf":
        r = libdevice.fast_tanf(x)
    elif FN == "rcp_rn":
        r = libdevice.rcp_rn(x)
    elif FN == "exp10":
        r = libdevice.exp10(x)
    else:
        r = tl.extra.libdevice.rint(x)
    tl.store(out_ptr + o, r)


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        ("tanh", numpy.tanh),
        ("rcbrt", lambda x: 1 / numpy.cbrt(x)),
        ("normcdf", lambda x: 0.5 * numpy.vectorize(math.erfc)(-x / math.sqrt(2))),
        ("saturatef", lambda x: numpy.where(x > 0, numpy.minimum(x, 1), 0.0)),
        ("nearbyint", numpy.rint),
        ("fast_expf", numpy.exp),
        ("fast_tanf", numpy.tan),
        ("rcp_rn", lambda x: 1 / x),
        ("exp10", lambda x: 10.0**x),
        ("rint", numpy.rint),
    ],
)
def test_frontend_functions(fn: str, expected) -> None:  # type: ignore[no-untyped-def]
    x = numpy.concatenate(
        [[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.0, 0.0, numpy.inf, -numpy.inf, numpy.nan],
         numpy.random.default_rng(3).uniform(-6, 6, 117)]
    ).astype(numpy.float32)  # fmt: skip
    out = numpy.empty_like(x)
    unary_kernel[(1,)](x, out, FN=fn, BLOCK=128)
    with numpy.errstate(all="ignore"):
        want = numpy.asarray(expected(x.astype(numpy.float64))).astype(numpy.float32)
    ulps = {"normcdf": 64, "rcbrt": 2, "rcp_rn": 0, "rint": 0, "nearbyint": 0}.get(fn, 1)
    assert_within(out, want, ulps, fn)


def test_rint_of_large_values_as_triton_tests_it() -> None:
    """Triton's test_libdevice_rint: values across int32's and int64's ranges and halves."""
    rng = numpy.random.default_rng(0)
    for dtype in (numpy.float32, numpy.float64):
        x = numpy.concatenate(
            [rng.uniform(-(2**31), 2**31, 500), rng.uniform(-(2**63), 2**63, 500),
             [-2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, numpy.inf, -numpy.inf, numpy.nan]]
        ).astype(dtype)  # fmt: skip
        x = numpy.resize(x, 1024)
        out = numpy.empty_like(x)
        unary_kernel[(1,)](x, out, FN="rint", BLOCK=1024)
        numpy.testing.assert_array_equal(out, numpy.rint(x))


@blkc.jit
def classify_kernel(x_ptr, nan_ptr, inf_ptr, fin_ptr, sign_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    tl.store(nan_ptr + o, libdevice.isnan(x))
    tl.store(inf_ptr + o, libdevice.isinf(x))
    tl.store(fin_ptr + o, libdevice.finitef(x))
    tl.store(sign_ptr + o, libdevice.signbit(x))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.float16])
def test_classification(dtype: type) -> None:
    x = numpy.resize(
        numpy.array([0.0, -0.0, 1.0, -1.0, numpy.inf, -numpy.inf, numpy.nan, -numpy.nan], dtype),
        16,
    )
    outs = [numpy.zeros(16, bool) for _ in range(3)] + [numpy.zeros(16, numpy.int32)]
    classify_kernel[(1,)](x, *outs, BLOCK=16)
    numpy.testing.assert_array_equal(outs[0], numpy.isnan(x))
    numpy.testing.assert_array_equal(outs[1], numpy.isinf(x))
    numpy.testing.assert_array_equal(outs[2], numpy.isfinite(x))
    numpy.testing.assert_array_equal(outs[3], numpy.signbit(x).astype(numpy.int32))


@blkc.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    y = tl.load(y_ptr + o)
    if FN == "pow_int":
        r = libdevice.pow(x, y.to(tl.int32))
    elif FN == "pow_literal":
        r = libdevice.pow(x, 3)
    elif FN == "ldexp":
        r = libdevice.ldexp(x, y.to(tl.int32))
    elif FN == "scalbn":
        r = libdevice.scalbn(x, -3)
    elif FN == "rhypot":
        r = libdevice.rhypot(x, y)
    elif FN == "norm3d":
        r = libdevice.norm3d(x, y, 2.0)
    elif FN == "fdim":
        r = libdevice.fdim(x, y)
    elif FN == "nextafter":
        r = libdevice.nextafter(x, y)
    elif FN == "fast_dividef":
        r = libdevice.fast_dividef(x, y)
    else:
        r = libdevice.atan2(x, 1.0)
    tl.store(out_ptr + o, r)


@pytest.mark.parametrize(
    ("fn", "expected", "ulps"),
    [
        ("pow_int", lambda x, y: x ** numpy.trunc(y), 1),
        ("pow_literal", lambda x, y: x**3, 1),
        ("ldexp", lambda x, y: numpy.ldexp(x, numpy.trunc(y).astype(int)), 0),
        ("scalbn", lambda x, y: numpy.ldexp(x, -3), 0),
        ("rhypot", lambda x, y: 1 / numpy.hypot(x, y), 2),
        ("norm3d", lambda x, y: numpy.sqrt(x * x + y * y + 4), 2),
        ("fdim", lambda x, y: numpy.where(x > y, x - y, 0.0), 0),
        ("fast_dividef", lambda x, y: x / y, 0),
        ("atan2", lambda x, y: numpy.arctan2(x, 1.0), 1),
    ],
)
def test_frontend_binary_functions(fn: str, expected, ulps: int) -> None:  # type: ignore[no-untyped-def]
    rng = numpy.random.default_rng(4)
    x = rng.uniform(-8, 8, 128).astype(numpy.float32)
    y = rng.uniform(-12, 12, 128).astype(numpy.float32)
    out = numpy.empty_like(x)
    binary_kernel[(1,)](x, y, out, FN=fn, BLOCK=128)
    want = numpy.asarray(expected(x.astype(numpy.float64), y.astype(numpy.float64)))
    assert_within(out, want.astype(numpy.float32), ulps, fn)


@blkc.jit
def power_kernel(x_ptr, n_ptr, out_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(out_ptr + o, libdevice.pow(tl.load(x_ptr + o), tl.load(n_ptr + o)))


def test_pow_of_a_large_odd_integer_exponent_keeps_its_parity() -> None:
    """An int32 exponent beyond 2**24 is exact (in float32 an odd one turned even, and
    (-1)**16777217 gave 1)."""
    bases = [-1.0, -0.5, 2.0, 1 + 2**-23, -(1 - 2**-24), -0.0, -3.0, 0.999]
    powers = [16777217, 2**31 - 1, -16777217, -(2**31) + 1, 3, -3, 33554431, 2**25 + 1]
    x = numpy.repeat(numpy.array(bases, numpy.float32), len(powers))
    n = numpy.tile(numpy.array(powers, numpy.int32), len(bases))
    out = numpy.empty_like(x)
    power_kernel[(1,)](x, n, out, BLOCK=64)
    with numpy.errstate(all="ignore"):
        expected = numpy.power(x.astype(numpy.float64), n.astype(numpy.float64))
        expected = expected.astype(numpy.float32)
    assert_within(out, expected, 1, "pow of int32 exponents")


def test_nextafter_steps_once_in_the_dtype() -> None:
    x = numpy.array([1.0, 1.0, 0.0, -0.0, numpy.inf, 3.0, numpy.nan, 2.0] * 16, numpy.float32)
    y = numpy.array([2.0, 0.0, 1.0, -1.0, 0.0, 3.0, 1.0, numpy.nan] * 16, numpy.float32)
    out = numpy.empty_like(x)
    binary_kernel[(1,)](x, y, out, FN="nextafter", BLOCK=128)
    numpy.testing.assert_array_equal(out, numpy.nextafter(x, y))


@blkc.jit
def convert_kernel(x_ptr, out_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    if FN == "float2int_rn":
        r = libdevice.float2int_rn(x)
    elif FN == "float2int_rz":
        r = libdevice.float2int_rz(x)
    elif FN == "float2int_rd":
        r = libdevice.float2int_rd(x)
    elif FN == "float2int_ru":
        r = libdevice.float2int_ru(x)
    elif FN == "ilogb":
        r = libdevice.ilogb(x)
    else:
        r = libdevice.float_as_int(x)
    tl.store(out_ptr + o, r)


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        ("float2int_rn", numpy.rint),
        ("float2int_rz", numpy.trunc),
        ("float2int_rd", numpy.floor),
        ("float2int_ru", numpy.ceil),
    ],
)
def test_conversions_round_as_named(fn: str, expected) -> None:  # type: ignore[no-untyped-def]
    x = numpy.resize(numpy.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.7, 1.7], numpy.float32), 16)
    out = numpy.zeros(16, numpy.int32)
    convert_kernel[(1,)](x, out, FN=fn, BLOCK=16)
    numpy.testing.assert_array_equal(out, expected(x).astype(numpy.int32))


def test_ilogb_and_bits() -> None:
    x = numpy.resize(
        numpy.array([1.0, 0.75, 1e-45, 3e38, 0.0, numpy.inf, numpy.nan, -8.0], numpy.float32), 16
    )
    out = numpy.zeros(16, numpy.int32)
    convert_kernel[(1,)](x, out, FN="ilogb", BLOCK=16)
    expected = [0, -1, -149, 127, -(2**31), 2**31 - 1, -(2**31), 3]
    assert out[:8].tolist() == expected
    convert_kernel[(1,)](x, out, FN="float_as_int", BLOCK=16)
    numpy.testing.assert_array_equal(out, x.view(numpy.int32))


@blkc.jit
def double_bits_kernel(x_ptr, hi_ptr, lo_ptr, back_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    hi = libdevice.double2hiint(x)
    lo = libdevice.double2loint(x)
    tl.store(hi_ptr + o, hi)
    tl.store(lo_ptr + o, lo)
    tl.store(back_ptr + o, libdevice.hiloint2double(hi, lo))


def test_double_halves_round_trip() -> None:
    x = numpy.array([1.0, -2.5, numpy.pi, 1e-310, -0.0, numpy.inf, 7e300, -1e-5], numpy.float64)
    hi, lo, back = numpy.zeros(8, numpy.int32), numpy.zeros(8, numpy.int32), numpy.zeros(8)
    double_bits_kernel[(1,)](x, hi, lo, back, BLOCK=8)
    bits = x.view(numpy.uint64)
    numpy.testing.assert_array_equal(hi, (bits >> 32).astype(numpy.uint32).view(numpy.int32))
    numpy.testing.assert_array_equal(lo, bits.astype(numpy.uint32).view(numpy.int32))
    numpy.testing.assert_array_equal(back.view(numpy.uint64), bits)


# -- refusals ----------------------------------------------------------------------------


def _line_of(marker: str) -> int:
    lines = open(__file__).read().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text and "_line_of" not in text)


@blkc.jit
def int_operand_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    tl.store(out_ptr, libdevice.tan(x))  # tan-of-int


@blkc.jit
def left_out_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    tl.store(out_ptr, libdevice.add_rz(x, x))  # add-rz


@blkc.jit
def float_exponent_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    tl.store(out_ptr, libdevice.ldexp(x, x))  # ldexp-float


@blkc.jit
def narrowing_convert_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    tl.store(out_ptr, libdevice.float2int_ru(x))  # float2int-of-double


@pytest.mark.parametrize(
    ("kernel_fn", "dtype", "marker", "words"),
    [
        (int_operand_kernel, numpy.int32, "tan-of-int", "libdevice.tan takes float32 or float64"),
        (
            narrowing_convert_kernel,
            numpy.float64,
            "float2int-of-double",
            "float2int_ru converts float32, got float64 (which it would round to float32 "
            "first): use libdevice.double2int_ru",
        ),
        (left_out_kernel, numpy.float32, "add-rz", "libdevice.add_rz is not supported"),
        (float_exponent_kernel, numpy.float32, "ldexp-float", "exponent must be an integer"),
    ],
)
def test_refusals_are_located(kernel_fn, dtype: type, marker: str, words: str) -> None:  # type: ignore[no-untyped-def]
    x = numpy.ones(1, dtype)
    with pytest.raises(blkc.BlkcError) as caught:
        kernel_fn[(1,)](x, numpy.ones(1, numpy.float32))
    message = str(caught.value)
    assert f"{__file__}:{_line_of(marker)}:" in message
    assert words in message


VECTORIZED = sorted({*vector_math.NAMED, "rint", "round", "trunc", "copysign"})


@pytest.mark.parametrize("fn", VECTORIZED)
def test_float32_functions_vectorize(fn: str) -> None:
    """Float32 code of `vector_math` and the LLVM intrinsics rint, round, trunc and
    copysign: the loop is vectorized and calls no C function."""
    arity = 2 if fn in SECOND or fn in ("nextafter", "fdim") else 1
    llvm = blkc.compile(kernel(fn, arity, "f32"), check_bounds=False).asm["llvm"]
    assert not re.search(rf"call float @{fn}f\b", llvm), fn
    assert "x float>" in llvm, fn


needs_ptxas = pytest.mark.skipif(
    not ptx.ptxas_available() or ptx.libdevice_path() is None,
    reason="ptxas or CUDA's libdevice is not installed",
)


@needs_ptxas
@pytest.mark.parametrize("t", ["f32", "f64", "f16"])
@pytest.mark.parametrize("fn", sorted(REFERENCES))
def test_ptx_links_libdevice_and_assembles(fn: str, t: str) -> None:
    """On the GPU each function is libdevice's `__nv_<fn>f` or `__nv_<fn>`, linked and
    inlined; ptxas assembles the kernel (no GPU needed)."""
    compiled = blkc.compile(kernel(fn, 2 if fn in SECOND else 1, t), target="ptx")
    assert "__nv_" not in compiled.asm["ptx"]
    assert compiled.spills == 0


# -- integer functions --------------------------------------------------------------------


@blkc.jit
def integer_kernel(x_ptr, y_ptr, z_ptr, out_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x, y, z = tl.load(x_ptr + o), tl.load(y_ptr + o), tl.load(z_ptr + o)
    if FN == "popc":
        r = libdevice.popc(x)
    elif FN == "clz":
        r = libdevice.clz(x)
    elif FN == "ffs":
        r = libdevice.ffs(x)
    elif FN == "brev":
        r = libdevice.brev(x)
    elif FN == "mulhi":
        r = libdevice.mulhi(x, y)
    elif FN == "mul24":
        r = libdevice.mul24(x, y)
    elif FN == "hadd":
        r = libdevice.hadd(x, y)
    elif FN == "rhadd":
        r = libdevice.rhadd(x, y)
    elif FN == "sad":
        r = libdevice.sad(x, y, z)
    else:
        r = libdevice.byte_perm(x, y, z)
    tl.store(out_ptr + o, r.to(out_ptr.dtype.element_ty))


def _bits(v: int, width: int) -> int:
    return v & ((1 << width) - 1)


def _signed(v: int, width: int) -> int:
    v = _bits(v, width)
    return v - (1 << width) if v >> (width - 1) else v


INTEGER_REFERENCES = {
    "popc": lambda x, y, z, w: bin(_bits(x, w)).count("1"),
    "clz": lambda x, y, z, w: w - _bits(x, w).bit_length(),
    "ffs": lambda x, y, z, w: (_bits(x, w) & -_bits(x, w)).bit_length(),
    "brev": lambda x, y, z, w: _signed(int(format(_bits(x, w), f"0{w}b")[::-1], 2), w),
    "mulhi": lambda x, y, z, w: _signed((x * y) >> w, w),
    "mul24": lambda x, y, z, w: _signed(_signed(x, 24) * _signed(y, 24), w),
    "hadd": lambda x, y, z, w: (x + y) >> 1,
    "rhadd": lambda x, y, z, w: (x + y + 1) >> 1,
    "sad": lambda x, y, z, w: _signed(abs(x - y) + z, w),
    "byte_perm": lambda x, y, z, w: _signed(
        sum(
            ((_bits(y, 32) << 32 | _bits(x, 32)) >> (8 * ((z >> (4 * i)) & 7)) & 0xFF) << (8 * i)
            for i in range(4)
        ),
        32,
    ),
}


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.int64], ids=["i32", "i64"])
@pytest.mark.parametrize("fn", sorted(INTEGER_REFERENCES))
def test_integer_functions(fn: str, dtype: type) -> None:
    width = numpy.dtype(dtype).itemsize * 8
    if width == 64 and fn in ("mul24", "byte_perm", "hadd", "rhadd", "sad"):
        pytest.skip("Triton's libdevice has these for 32-bit integers only")
    info = numpy.iinfo(dtype)
    rng = numpy.random.default_rng(width + len(fn))
    edges = numpy.array([0, 1, -1, info.min, info.max, 2, -2, 255, 1 << 20], dtype)
    x = numpy.concatenate([edges, rng.integers(info.min, info.max, 128 - len(edges), dtype)])
    y = numpy.concatenate([edges[::-1], rng.integers(info.min, info.max, 128 - len(edges), dtype)])
    z = rng.integers(0, 2**16, 128).astype(dtype)
    bits_out = fn in ("popc", "clz", "ffs")
    out = numpy.zeros(128, numpy.int32 if bits_out else dtype)
    integer_kernel[(1,)](x, y, z, out, FN=fn, BLOCK=128)
    reference = INTEGER_REFERENCES[fn]
    want = [reference(int(a), int(b), int(c), width) for a, b, c in zip(x, y, z, strict=True)]
    assert out.tolist() == want


def test_unsigned_mulhi_is_the_unsigned_high_half() -> None:
    x = numpy.array([2**32 - 1, 2**31, 3, 0] * 32, numpy.uint32)
    y = numpy.array([2**32 - 1, 2, 2**31 + 5, 7] * 32, numpy.uint32)
    out = numpy.zeros(128, numpy.uint32)
    integer_kernel[(1,)](x, y, y, out, FN="mulhi", BLOCK=128)
    assert out[:4].tolist() == [(int(a) * int(b)) >> 32 for a, b in zip(x[:4], y[:4], strict=True)]


@blkc.jit
def float_popc_kernel(x_ptr, out_ptr):
    tl.store(out_ptr, libdevice.popc(tl.load(x_ptr)))  # popc-of-float


def test_integer_function_of_a_float_is_refused() -> None:
    with pytest.raises(blkc.BlkcError) as caught:
        float_popc_kernel[(1,)](numpy.ones(1, numpy.float32), numpy.zeros(1, numpy.int32))
    assert f"{__file__}:{_line_of('popc-of-float')}:" in str(caught.value)
    assert "libdevice.popc takes 32- or 64-bit integers, got float32" in str(caught.value)


# -- kernels in the style of Triton kernel libraries ---------------------------------------


@blkc.jit
def activations_kernel(x_ptr, gelu_ptr, mish_ptr, softplus_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    # GELU, tanh approximation
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    gelu = 0.5 * x * (1.0 + libdevice.tanh(inner))
    # softplus with a threshold, then Mish = x tanh(softplus(x))
    softplus = tl.where(x > 20.0, x, libdevice.log1p(tl.exp(x)))
    mish = x * libdevice.tanh(softplus)
    tl.store(gelu_ptr + offsets, gelu.to(gelu_ptr.dtype.element_ty), mask=mask)
    tl.store(mish_ptr + offsets, mish.to(mish_ptr.dtype.element_ty), mask=mask)
    tl.store(softplus_ptr + offsets, softplus.to(softplus_ptr.dtype.element_ty), mask=mask)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float16])
def test_activation_kernels(dtype: type) -> None:
    n = 3000
    x = numpy.random.default_rng(8).normal(0, 4, n).astype(dtype)
    outs = [numpy.empty_like(x) for _ in range(3)]
    activations_kernel[(triton_cdiv(n, 512),)](x, *outs, n, BLOCK=512)
    w = x.astype(numpy.float64)
    softplus = numpy.where(w > 20, w, numpy.log1p(numpy.exp(w)))
    expected = [
        0.5 * w * (1 + numpy.tanh(0.7978845608028654 * (w + 0.044715 * w**3))),
        w * numpy.tanh(softplus),
        softplus,
    ]
    tolerance = 1e-6 if dtype == numpy.float32 else 2e-3
    for out, want in zip(outs, expected, strict=True):
        numpy.testing.assert_allclose(out, want, rtol=tolerance, atol=tolerance)


def triton_cdiv(a: int, b: int) -> int:
    return -(-a // b)


@blkc.jit
def rope_kernel(q_ptr, out_ptr, pos_ptr, HALF: tl.constexpr, BASE: tl.constexpr):
    """Rotary embedding of one row: frequencies BASE**(-2i/d) from libdevice.pow."""
    row = tl.program_id(0)
    i = tl.arange(0, HALF)
    position = tl.load(pos_ptr + row).to(tl.float32)
    inv_freq = libdevice.pow(BASE, -(2.0 * i.to(tl.float32)) / (2 * HALF))
    angle = position * inv_freq
    c, s = tl.cos(angle), tl.sin(angle)
    x1 = tl.load(q_ptr + row * 2 * HALF + i)
    x2 = tl.load(q_ptr + row * 2 * HALF + HALF + i)
    tl.store(out_ptr + row * 2 * HALF + i, x1 * c - x2 * s)
    tl.store(out_ptr + row * 2 * HALF + HALF + i, x2 * c + x1 * s)


def test_rotary_embedding_kernel() -> None:
    rows, half = 8, 32
    q = numpy.random.default_rng(9).standard_normal((rows, 2 * half)).astype(numpy.float32)
    positions = numpy.arange(rows, dtype=numpy.int32) * 37
    out = numpy.empty_like(q)
    rope_kernel[(rows,)](q, out, positions, HALF=half, BASE=10000.0)
    inv_freq = 10000.0 ** (-(2.0 * numpy.arange(half)) / (2 * half))
    angle = positions[:, None].astype(numpy.float64) * inv_freq[None, :]
    x1, x2 = q[:, :half].astype(numpy.float64), q[:, half:].astype(numpy.float64)
    expected = numpy.concatenate(
        [
            x1 * numpy.cos(angle) - x2 * numpy.sin(angle),
            x2 * numpy.cos(angle) + x1 * numpy.sin(angle),
        ],
        axis=1,
    )
    numpy.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


# -- special functions (Bessel, inverse and scaled error functions, sinpi, cospi) --------

mpmath = pytest.importorskip("mpmath")


def _erfcinv(q: float) -> float:
    digits = 30 + max(0, int(-math.log10(q))) if 0 < q < 1 else 30
    with mpmath.workdps(digits):  # 1 - q to every digit of q
        if q == 0:
            return math.inf
        if q == 2:
            return -math.inf
        if not 0 < q < 2:
            return math.nan
        return float(mpmath.erfinv(1 - mpmath.mpf(q)))


def _erfcx(x: float) -> float:
    if x > 1e6:  # beyond what mpmath's exp(x*x) reaches: two terms of the series suffice
        return float(
            1 / (mpmath.mpf(x) * mpmath.sqrt(mpmath.pi)) * (1 - 1 / (2 * mpmath.mpf(x) ** 2))
        )
    return float(mpmath.exp(mpmath.mpf(x) ** 2) * mpmath.erfc(x))


def _special_value(fn: str, x: float, n: float = 0.0) -> float:
    """mpmath's value at 100 digits (its own zeros are unsigned: the tests compare
    nonzero values only against it)."""
    if math.isnan(x) or math.isinf(x):
        return math.nan  # the edge values are checked one by one below
    with mpmath.workdps(30):
        value = {
            "sinpi": lambda: mpmath.sinpi(x),
            "cospi": lambda: mpmath.cospi(x),
            "erfinv": lambda: mpmath.erfinv(x) if abs(x) < 1 else math.copysign(math.inf, x),
            "erfcinv": lambda: _erfcinv(x),
            "erfcx": lambda: _erfcx(x),
            "normcdfinv": lambda: -mpmath.sqrt(2) * _erfcinv(2 * x) if 0 < x < 1 else math.nan,
            "cyl_bessel_i0": lambda: mpmath.besseli(0, x),
            "cyl_bessel_i1": lambda: mpmath.besseli(1, x),
            "j0": lambda: mpmath.besselj(0, x),
            "j1": lambda: mpmath.besselj(1, x),
            "y0": lambda: mpmath.bessely(0, x) if x > 0 else math.nan,
            "y1": lambda: mpmath.bessely(1, x) if x > 0 else math.nan,
            "jn": lambda: mpmath.besselj(int(n), x),
            "yn": lambda: mpmath.bessely(int(n), x) if x > 0 else math.nan,
        }[fn]()
        return float(value) if not isinstance(value, float) else value


SPECIAL_RANGES: dict[str, list[tuple[str, float, float]]] = {
    "sinpi": [("lin", -4, 4), ("lin", -1e6, 1e6), ("log", -20, 60)],
    "cospi": [("lin", -4, 4), ("lin", -1e6, 1e6), ("log", -20, 60)],
    "erfinv": [("lin", -1, 1), ("lin", 0.99, 1), ("lin", -1, -0.999999)],
    "erfcinv": [("lin", 0, 2), ("pos", -126, -1), ("lin", 1.999, 2)],
    "erfcx": [("lin", -26, 30), ("pos", 4, 100)],
    "normcdfinv": [("lin", 0, 1), ("pos", -126, -1)],
    "cyl_bessel_i0": [("lin", -30, 30), ("lin", 20, 85)],
    "cyl_bessel_i1": [("lin", -30, 30), ("lin", -85, -20)],
    "j0": [("lin", -40, 40)],
    "j1": [("lin", -40, 40)],
    "y0": [("lin", 0.01, 40)],
    "y1": [("lin", 0.01, 40)],
    "jn": [("lin", -30, 30)],
    "yn": [("lin", 0.5, 30)],
}
SPECIAL_F64_ULP = {"cyl_bessel_i0": 24, "cyl_bessel_i1": 24, "erfcx": 4, "normcdfinv": 4,
                   "erfinv": 4, "erfcinv": 4}  # fmt: skip
"""Bounds in ulp against mpmath (float32: 1, sinpi and cospi in float64: 2). blkc's own
code: the Bessel I series sums up to 40 rounded terms."""
C_BESSEL = {"j0", "j1", "y0", "y1", "jn", "yn"}
"""The C library's, whose float64 errors near the zeros of J and Y are relative to the
function's scale, not to its value: compared with a tolerance of that scale."""


def _special_operands(fn: str, dtype: type, n: int = BLOCK) -> list[numpy.ndarray]:
    rng = numpy.random.default_rng(17)
    x = rng.permutation(draw(rng, SPECIAL_RANGES[fn], n)).astype(dtype)
    if fn in ("jn", "yn"):
        return [numpy.resize(numpy.arange(-3.0, 6.0), n).astype(dtype), x]
    return [x]


@functools.cache
def _special_case(fn: str, dtype: type) -> tuple[list[numpy.ndarray], numpy.ndarray]:
    """The operands and mpmath's results on the first `SPECIAL_CHECKED` of them."""
    xs = _special_operands(fn, dtype)
    n = xs[0] if len(xs) == 2 else [0.0] * len(xs[0])
    checked = zip(n[:SPECIAL_CHECKED], xs[-1][:SPECIAL_CHECKED], strict=True)
    expected = numpy.array([_special_value(fn, float(v), float(k)) for k, v in checked])
    with numpy.errstate(over="ignore"):  # beyond float32: infinity
        return xs, expected.astype(dtype)


SPECIAL_CHECKED = 256
"""How many results of each function, dtype and target are checked against mpmath."""


@pytest.mark.parametrize(
    ("target", "dtype"),
    [
        ("cpu", numpy.float32),
        ("cpu", numpy.float64),
        ("interpreter", numpy.float32),
        ("interpreter", numpy.float64),
        ("cpu-simt", numpy.float32),  # the cpu's code: float32 is enough
    ],
    ids=["cpu-f32", "cpu-f64", "interpreter-f32", "interpreter-f64", "cpu-simt-f32"],
)
@pytest.mark.parametrize("fn", sorted(SPECIAL_RANGES))
def test_special_functions_match_mpmath(fn: str, dtype: type, target: str) -> None:
    xs, expected = _special_case(fn, dtype)
    t = "f32" if dtype == numpy.float32 else "f64"
    out = run(kernel(fn, len(xs), t), target, *xs)[:SPECIAL_CHECKED]
    nonzero = expected != 0  # mpmath has no signed zeros
    what = f"{fn} {t} on {target}"
    if fn in C_BESSEL:
        scale = 1e-6 if dtype == numpy.float32 else 1e-14
        numpy.testing.assert_allclose(out, expected, rtol=scale, atol=scale, err_msg=what)
        return
    ulps = 1 if dtype == numpy.float32 else SPECIAL_F64_ULP.get(fn, 2)
    assert_within(out[nonzero], expected[nonzero], ulps, what)


SPECIAL_EDGES = {
    "sinpi": [(-2.0, -0.0), (1.0, 0.0), (-1.0, -0.0), (0.5, 1.0), (-1.5, 1.0), (math.inf, math.nan),
              (-0.0, -0.0), (2.0**100, 0.0)],
    "cospi": [(0.5, 0.0), (-0.5, 0.0), (1.0, -1.0), (2.5, 0.0), (-math.inf, math.nan),
              (2.0**100, 1.0)],
    "erfinv": [(1.0, math.inf), (-1.0, -math.inf), (1.5, math.nan), (-0.0, -0.0), (0.0, 0.0),
               (math.nan, math.nan)],
    "erfcinv": [(0.0, math.inf), (2.0, -math.inf), (1.0, 0.0), (-0.5, math.nan), (2.5, math.nan)],
    "normcdfinv": [(0.0, -math.inf), (1.0, math.inf), (0.5, -0.0), (1.5, math.nan)],
    "erfcx": [(math.inf, 0.0), (-math.inf, math.inf), (-30.0, math.inf), (0.0, 1.0),
              (math.nan, math.nan)],
    "cyl_bessel_i0": [(0.0, 1.0), (math.inf, math.inf), (-math.inf, math.inf), (800.0, math.inf),
                      (math.nan, math.nan)],
    "cyl_bessel_i1": [(0.0, 0.0), (-0.0, -0.0), (math.inf, math.inf), (-math.inf, -math.inf),
                      (-800.0, -math.inf)],
    "j0": [(0.0, 1.0), (math.inf, 0.0)],
    "y0": [(0.0, -math.inf), (-1.0, math.nan), (math.inf, 0.0)],
}  # fmt: skip


@pytest.mark.parametrize("target", ["cpu", "interpreter"])
@pytest.mark.parametrize("fn", sorted(SPECIAL_EDGES))
def test_special_functions_at_their_edges(fn: str, target: str) -> None:
    """Zeros with their signs, infinities and NaN as C's and CUDA's functions give them."""
    cases = SPECIAL_EDGES[fn]
    for dtype in (numpy.float32, numpy.float64):
        x = numpy.resize(numpy.array([c[0] for c in cases], dtype), BLOCK)
        expected = numpy.resize(numpy.array([c[1] for c in cases], dtype), BLOCK)
        t = "f32" if dtype == numpy.float32 else "f64"
        out = run(kernel(fn, 1, t), target, x)
        assert_within(out, expected, 0, f"{fn} {t} on {target}")


@blkc.jit
def special_kernel(x_ptr, out_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    if FN == "jn":
        y = libdevice.jn(2, x)
    elif FN == "yn":
        y = libdevice.yn(o % 4, x)
    else:
        y = getattr(libdevice, FN)(x)
    tl.store(out_ptr + o, y)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.float16])
@pytest.mark.parametrize("fn", ["j0", "y1", "jn", "yn", "erfinv", "normcdfinv", "sinpi",
                                "cyl_bessel_i1"])  # fmt: skip
def test_libdevice_names_the_special_functions(fn: str, dtype: type) -> None:
    """Triton's signatures: one float, or jn's and yn's int order and a float (a block
    of orders too); float16 computes in float32."""
    x = numpy.linspace(0.05, 0.95, 64).astype(dtype)
    out = numpy.zeros_like(x)
    special_kernel[(1,)](x, out, FN=fn, BLOCK=64)
    order = {"jn": [2] * 64, "yn": list(numpy.arange(64) % 4)}.get(fn, [0] * 64)
    wide = x.astype(numpy.float64) if dtype == numpy.float64 else x.astype(numpy.float32)
    expected = numpy.array(
        [_special_value(fn, float(v), float(k)) for v, k in zip(wide, order, strict=True)]
    )
    numpy.testing.assert_allclose(
        out.astype(numpy.float64), expected, rtol=2e-3 if dtype == numpy.float16 else 1e-6
    )


@needs_ptxas
@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("fn", sorted(SPECIAL_RANGES))
def test_ptx_links_the_special_functions(fn: str, t: str) -> None:
    """On the GPU they are libdevice's own (`__nv_erfinvf`, `__nv_jn` with its int order)."""
    compiled = blkc.compile(kernel(fn, 2 if fn in ("jn", "yn") else 1, t), target="ptx")
    assert "__nv_" not in compiled.asm["ptx"]
