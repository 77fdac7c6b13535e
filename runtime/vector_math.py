"""Math functions as plain LLVM IR arithmetic, so that LLVM's vectorizers can vectorize
them (a call to the C library's `expf` stays scalar). float32 `exp`, `exp2`, `log`,
`log2`, `tanh`, `erf`, `sin` and `cos` are here; float64 calls the C library.

`exp_f32` computes e**x for float32 with Cody-Waite range reduction, x = n ln2 + r with
|r| <= ln2/2, a degree-7 polynomial for e**r, and a scaling by 2**n rounded once (so that
results in the subnormal range and up to the overflow threshold stay exact): one
`llvm.ldexp` with AVX-512 (`vscalefps`), else two multiplications by powers of two;
`exp2_f32` shares it with r = (x - n) ln2. `log_f32` and `log2_f32` share the reduction
to a mantissa in [sqrt(1/2), sqrt(2)). `erf_f32` is x + x P(x**2) below 0.93 and
1 - e**Q(|x|) above (Q fitted to log(erfc)). `sin_f32`/`cos_f32` reduce |x| by
multiples of pi/2 in three FMA steps (Cody-Waite) below 2**16 (the steps are exact
enough up to 71476, NumPy's own vectorized bound) and, from there to float32's largest,
by a table of (2**e 2/pi) mod 4 in double, one entry an exponent (Payne and Hanek's
idea: only the bits of 2/pi near x's own matter); then they pick a degree-7 sine or
degree-8 cosine polynomial by quadrant.

Infinities, NaN, overflow to infinity and underflow to zero are handled by selects.
Measured against NumPy in float64 (erf: Python's `math.erf`) rounded to float32, on the
ranges test/e2e/test_math.py uses, in ulp within the normal range (identical infinities,
zeros and NaN): exp, exp2, log, log2, tanh and erf 1; sin and cos 2 (also over 2**20
random float32 bit patterns). NumPy's own float32 exp and log are up to 3 and 4 ulp from
the same reference.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import llvmlite.ir as ir

F32 = ir.FloatType()
I32 = ir.IntType(32)

_LOG2E = 1.44269504088896341
_LN2_HI = 0.693359375
_LN2_LO = -2.12194440e-4
_LN2 = 0.6931471805599453
_LOG2E_HI = 1.4426950216293335  # float32(log2(e))
_LOG2E_LO = 1.9259629911266175e-08  # log2(e) - _LOG2E_HI
# e**r - 1 - r = r**2 * P(r) on [-ln2/2, ln2/2] (Cephes' expf coefficients).
_EXP_POLY = (
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
)
_OVERFLOW = 88.72283935546875  # above: e**x rounds to infinity (from here, in fact)
_UNDERFLOW = -103.97282409667969  # below: e**x rounds to 0


def _intrinsic(module: ir.Module, name: str, args: list[ir.Type], result: ir.Type) -> ir.Function:
    existing = module.globals.get(name)
    if isinstance(existing, ir.Function):
        return existing
    return ir.Function(module, ir.FunctionType(result, args), name=name)


_Body = Callable[..., ir.Value]
"""Builds the value of an f32 function of its arguments (`x`, or `x` and `y`) with the
builder `b` in `module`: ``body(module, b, x)``."""


def _defined_once(
    name: str, arity: int = 1
) -> Callable[[_Body], Callable[[ir.Module], ir.Function]]:
    """Turn a `_Body` into ``define(module)``: the function `name` of `arity` f32
    arguments giving an f32, defined in `module` once (internal, always inlined)."""

    def decorate(body: _Body) -> Callable[[ir.Module], ir.Function]:
        @functools.wraps(body)
        def define(module: ir.Module) -> ir.Function:
            existing = module.globals.get(name)
            if isinstance(existing, ir.Function):
                return existing
            fn = ir.Function(module, ir.FunctionType(F32, [F32] * arity), name=name)
            fn.linkage = "internal"
            fn.attributes.add("alwaysinline")
            b = ir.IRBuilder(fn.append_basic_block("entry"))
            b.ret(body(module, b, *fn.args))
            return fn

        return define

    return decorate


def _c(value: float) -> ir.Constant:
    return ir.Constant(F32, value)


def _polynomial(b: ir.IRBuilder, x: ir.Value, coefficients: tuple[float, ...]) -> ir.Value:
    """Horner's rule with FMAs, highest coefficient first."""
    fma = _intrinsic(b.module, "llvm.fma.f32", [F32, F32, F32], F32)
    p: ir.Value = _c(coefficients[0])
    for coefficient in coefficients[1:]:
        p = b.call(fma, [p, x, _c(coefficient)])
    return p


def _clamp(b: ir.IRBuilder, x: ir.Value, low: float, high: float) -> ir.Value:
    """`x` clamped to [low, high] (NaN becomes `low`: callers select NaN back)."""
    module = b.module
    bigger = b.call(_intrinsic(module, "llvm.maxnum.f32", [F32, F32], F32), [x, _c(low)])
    return b.call(_intrinsic(module, "llvm.minnum.f32", [F32, F32], F32), [bigger, _c(high)])


def scales_in_one_step(module: ir.Module) -> bool:
    """Whether `module`'s code scales by 2**n with one `llvm.ldexp`: CPU code for x86 with
    AVX-512 (the host's features, with `BLKC_CPU_FEATURES` applied, which the CPU targets
    compile for and key their cache by), where it is one `vscalefps` and two conversions
    instead of nine instructions; elsewhere LLVM calls the C library's `ldexpf` for each
    element, and NVPTX code never asks the host."""
    if module.triple.startswith("nvptx"):
        return False
    from blkc.runtime.cpu_target import host

    return "+avx512f" in host().features.split(",")


def _scaled_exp(b: ir.IRBuilder, n: ir.Value, r: ir.Value) -> ir.Value:
    """e**r * 2**n for |r| <= ln2/2 and an integral float n, in one `llvm.ldexp` where
    that is fast (`scales_in_one_step`), else in two steps so that subnormal results round
    once and 2**n never overflows on its own: either way the exact product, rounded once."""
    fma = _intrinsic(b.module, "llvm.fma.f32", [F32, F32, F32], F32)
    r2 = b.fmul(r, r)
    e_r = b.fadd(b.call(fma, [_polynomial(b, r, _EXP_POLY), r2, r]), _c(1.0))
    k = b.fptosi(n, I32)
    if scales_in_one_step(b.module):
        ldexp = _intrinsic(b.module, "llvm.ldexp.f32.i32", [F32, I32], F32)
        return b.call(ldexp, [e_r, k])
    half = b.ashr(k, ir.Constant(I32, 1))

    def power_of_two(e: ir.Value) -> ir.Value:
        bits = b.shl(b.add(e, ir.Constant(I32, 127)), ir.Constant(I32, 23))
        return b.bitcast(bits, F32)

    return b.fmul(b.fmul(e_r, power_of_two(half)), power_of_two(b.sub(k, half)))


@_defined_once("blkc.exp.f32")
def exp_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.exp.f32`, defined in `module` once. The scaling itself gives
    infinity above `_OVERFLOW` (n = 128 with r > 0, or n = 129) and 0 below `_UNDERFLOW`
    (n = -150 with r < 0, or n = -151), rounding once; only NaN needs a select."""
    rint = _intrinsic(module, "llvm.rint.f32", [F32], F32)
    fma = _intrinsic(module, "llvm.fma.f32", [F32, F32, F32], F32)
    clamped = _clamp(b, x, _UNDERFLOW - 1, _OVERFLOW + 1)
    n = b.call(rint, [b.fmul(clamped, _c(_LOG2E))])
    r = b.call(fma, [n, _c(-_LN2_HI), clamped])
    r = b.call(fma, [n, _c(-_LN2_LO), r])
    result = _scaled_exp(b, n, r)
    return b.select(b.fcmp_unordered("uno", x, x), x, result)


@_defined_once("blkc.exp2.f32")
def exp2_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.exp2.f32`: 2**x = 2**n e**((x - n) ln2), n = rint(x); x - n is
    exact, and clamping x to [-151, 129] makes the scaling give 0 and infinity."""
    clamped = _clamp(b, x, -151.0, 129.0)
    n = b.call(_intrinsic(module, "llvm.rint.f32", [F32], F32), [clamped])
    r = b.fmul(b.fsub(clamped, n), _c(_LN2))
    result = _scaled_exp(b, n, r)
    return b.select(b.fcmp_unordered("uno", x, x), x, result)


# log(1 + x) - x + x**2 / 2 = x**3 * Q(x) on [sqrt(1/2) - 1, sqrt(2) - 1] (Cephes' logf).
_LOG_POLY = (
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
)


def _log_parts(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(e, t, y) with log(x) = e ln2 + t + y: x = m * 2**e with m in [sqrt(1/2), sqrt(2)),
    t = m - 1 (exact), y = log(m) - t from the polynomial. Subnormals are scaled first."""
    fma = _intrinsic(b.module, "llvm.fma.f32", [F32, F32, F32], F32)
    tiny = b.fcmp_ordered("<", x, _c(1.1754943508222875e-38))
    scaled = b.select(tiny, b.fmul(x, _c(2.0**23)), x)
    bits = b.bitcast(scaled, I32)
    exponent = b.sub(b.lshr(bits, ir.Constant(I32, 23)), ir.Constant(I32, 126))
    exponent = b.select(tiny, b.sub(exponent, ir.Constant(I32, 23)), exponent)
    mantissa_bits = b.or_(b.and_(bits, ir.Constant(I32, 0x007FFFFF)), ir.Constant(I32, 0x3F000000))
    m = b.bitcast(mantissa_bits, F32)  # in [0.5, 1)
    small = b.fcmp_ordered("<", m, _c(0.707106781186547524))
    e = b.sitofp(b.select(small, b.sub(exponent, ir.Constant(I32, 1)), exponent), F32)
    t = b.select(small, b.fsub(b.fadd(m, m), _c(1.0)), b.fsub(m, _c(1.0)))
    z = b.fmul(t, t)
    y = b.fmul(b.fmul(_polynomial(b, t, _LOG_POLY), t), z)
    return e, t, b.call(fma, [z, _c(-0.5), y])


def _log_specials(b: ir.IRBuilder, x: ir.Value, result: ir.Value) -> ir.Value:
    """log(inf) = inf, log(0) = -inf, log(x < 0) = NaN, NaN stays NaN."""
    result = b.select(b.fcmp_ordered("==", x, _c(float("inf"))), x, result)
    result = b.select(b.fcmp_ordered("==", x, _c(0.0)), _c(float("-inf")), result)
    return b.select(b.fcmp_unordered("ult", x, _c(0.0)), _c(float("nan")), result)


@_defined_once("blkc.log.f32")
def log_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.log.f32`: e ln2 + log(m), ln2 in two parts."""
    fma = _intrinsic(module, "llvm.fma.f32", [F32, F32, F32], F32)
    e, t, y = _log_parts(b, x)
    result = b.fadd(t, b.call(fma, [e, _c(_LN2_LO), y]))
    result = b.call(fma, [e, _c(_LN2_HI), result])
    return _log_specials(b, x, result)


@_defined_once("blkc.log2.f32")
def log2_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.log2.f32`: e + (t + y) log2(e), the product in two parts so
    that results near 0 (x near 1) keep their precision."""
    fma = _intrinsic(module, "llvm.fma.f32", [F32, F32, F32], F32)
    e, t, y = _log_parts(b, x)
    low = b.call(fma, [t, _c(_LOG2E_LO), b.fmul(y, _c(_LOG2E))])
    result = b.fadd(e, b.call(fma, [t, _c(_LOG2E_HI), low]))
    return _log_specials(b, x, result)


# tanh(x) = x + x**3 * R(x**2) for |x| < 0.625 (Cephes' tanhf).
_TANH_POLY = (
    -5.70498872745e-3,
    2.06390887954e-2,
    -5.37397155531e-2,
    1.33314422036e-1,
    -3.33332819422e-1,
)


@_defined_once("blkc.tanh.f32")
def tanh_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.tanh.f32`: a polynomial near 0, 1 - 2 / (e**(2|x|) + 1) beyond,
    with the sign of x; NaN stays NaN."""
    fma = _intrinsic(module, "llvm.fma.f32", [F32, F32, F32], F32)
    magnitude = b.call(_intrinsic(module, "llvm.fabs.f32", [F32], F32), [x])
    s = b.fmul(x, x)
    near = b.call(fma, [b.fmul(_polynomial(b, s, _TANH_POLY), s), x, x])
    e = b.call(exp_f32(module), [b.fmul(_c(2.0), _clamp(b, magnitude, 0.0, 20.0))])
    far = b.fsub(_c(1.0), b.fdiv(_c(2.0), b.fadd(e, _c(1.0))))
    chosen = b.select(b.fcmp_ordered("<", magnitude, _c(0.625)), near, far)
    result = _copysign(b, chosen, x)  # tanh is odd: the sign of x, -0.0 included
    return b.select(b.fcmp_unordered("uno", x, x), x, result)


def _copysign(b: ir.IRBuilder, magnitude: ir.Value, sign: ir.Value) -> ir.Value:
    return b.call(_intrinsic(b.module, "llvm.copysign.f32", [F32, F32], F32), [magnitude, sign])


# Fitted here (least squares on Chebyshev nodes against mpmath): erf(x) = x + x P(x**2)
# for |x| < 0.9296875, erfc(x) = e**Q(x) from there to 4, where float32 erf rounds to 1.
_ERF_NEAR = (
    -0.0006012357189320028,
    0.00499907648190856,
    -0.026772189885377884,
    0.1128203347325325,
    -0.3761252462863922,
    0.12837916612625122,
)
_ERF_FAR = (
    1.6138327509906958e-06,
    -4.5586148189613596e-05,
    0.0005927325109951198,
    -0.004740053787827492,
    0.026364261284470558,
    -0.10997749119997025,
    -0.6319378018379211,
    -1.1301662921905518,
    0.00030314482864923775,
)
_ERF_SWITCH = 0.9296875


@_defined_once("blkc.erf.f32")
def erf_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.erf.f32`: odd, x + x P(x**2) near 0 and 1 - e**Q(|x|) beyond
    0.93 (the cancellation in 1 - e**Q stays below half an ulp there)."""
    fma = _intrinsic(module, "llvm.fma.f32", [F32, F32, F32], F32)
    magnitude = b.call(_intrinsic(module, "llvm.fabs.f32", [F32], F32), [x])
    near = b.call(fma, [x, _polynomial(b, b.fmul(x, x), _ERF_NEAR), x])
    t = _clamp(b, magnitude, _ERF_SWITCH, 4.0)
    far = _copysign(b, b.fsub(_c(1.0), b.call(exp_f32(module), [_polynomial(b, t, _ERF_FAR)])), x)
    # Unordered: NaN takes the near branch, which keeps it.
    return b.select(b.fcmp_unordered("ult", magnitude, _c(_ERF_SWITCH)), near, far)


# sin(r) = r + r**3 S(r**2) and cos(r) = 1 - r**2 / 2 + r**4 C(r**2) on [-pi/4, pi/4],
# fitted like erf's polynomials.
_SIN_POLY = (-0.0001952021411852911, 0.008332204073667526, -0.16666655242443085)
_COS_POLY = (2.4438233594992198e-05, -0.0013887365348637104, 0.04166664555668831)
_TWO_OVER_PI = 0.6366197723675814
# pi/2 in three float32 parts (72 bits), subtracted by FMAs: k * part is exact in each
# (below `_TRIG_LARGE`; beyond, `_reduce_large`).
_PI_OVER_2 = (1.5707963705062866, -4.371138828673793e-08, -1.7151245100058819e-15)


_TRIG_LARGE = 65536.0
"""From here on (below the three-part reduction's bound, 71476) sin and cos reduce with
`_reduction_table`."""
_TRIG_EXPONENTS = range(143, 255)
"""The biased float32 exponents of finite |x| >= `_TRIG_LARGE`."""


def _two_over_pi(bits: int) -> int:
    """floor(2/pi * 2**bits), from Machin's formula in integers (20 guard bits)."""
    one = 1 << (bits + 20)

    def arctan_inverse(n: int) -> int:  # atan(1/n) * one
        total, term, k = 0, one // n, 0
        while term:
            total += term // (2 * k + 1) * (-1) ** k
            term //= n * n
            k += 1
        return total

    pi = 16 * arctan_inverse(5) - 4 * arctan_inverse(239)
    return (2 * one << bits) // pi


@functools.cache
def _reduction_table() -> tuple[tuple[float, ...], ...]:
    """For each biased exponent of `_TRIG_EXPONENTS`, (2**e * 2/pi) mod 4 for the e with
    x = m * 2**e (m the 24-bit integer significand) in three doubles: 2+24 bits, 26 bits,
    53 bits. m times either of the first two is exact."""
    precision = 320
    fraction = _two_over_pi(precision)
    high, middle, low = [], [], []
    for biased in _TRIG_EXPONENTS:
        e = biased - 150
        fixed = (fraction << e if e >= 0 else fraction >> -e) % (4 << precision)
        high.append((fixed >> (precision - 24)) / 2.0**24)
        middle.append(((fixed >> (precision - 50)) & (2**26 - 1)) / 2.0**50)
        low.append(((fixed >> (precision - 103)) & (2**53 - 1)) / 2.0**103)
    return tuple(high), tuple(middle), tuple(low)


def _table(module: ir.Module, name: str, values: tuple[float, ...]) -> ir.GlobalVariable:
    existing = module.globals.get(name)
    if isinstance(existing, ir.GlobalVariable):
        return existing
    array = ir.ArrayType(F64, len(values))
    table = ir.GlobalVariable(module, array, name=name)
    table.initializer = ir.Constant(array, [ir.Constant(F64, v) for v in values])
    table.global_constant = True
    table.linkage = "internal"
    return table


def _reduce_large(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(k, r) with |x| = k pi/2 + r (k mod 4 as a float32 in [0, 4), |r| <= pi/4 as a
    float32) for finite |x| >= `_TRIG_LARGE` (`_reduce_large_f64`, rounded)."""
    k, r = _reduce_large_f64(b, x)
    return b.fptrunc(k, F32), b.fptrunc(r, F32)


def _reduce_large_f64(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(k, r) with |x| = k pi/2 + r (k mod 4 as a float64 in [0, 4), |r| <= pi/4 as a
    float64) for the finite float32 |x| >= `_TRIG_LARGE`: x * 2/pi mod 4 is m times the
    table's entry, whose parts' products with m are exact, so that the fraction is exact to
    about 2**-75 absolutely (garbage elsewhere: callers select)."""
    bits = b.bitcast(x, I32)
    biased = b.and_(b.lshr(bits, ir.Constant(I32, 23)), ir.Constant(I32, 255))
    index = b.sub(biased, ir.Constant(I32, _TRIG_EXPONENTS.start))
    below = b.icmp_signed("<", index, ir.Constant(I32, 0))
    index = b.select(below, ir.Constant(I32, 0), index)
    last = ir.Constant(I32, len(_TRIG_EXPONENTS) - 1)
    index = b.select(b.icmp_signed(">", index, last), last, index)
    significand = b.or_(b.and_(bits, ir.Constant(I32, 2**23 - 1)), ir.Constant(I32, 2**23))
    m = b.sitofp(significand, F64)
    parts = []
    for name, values in zip(("high", "middle", "low"), _reduction_table(), strict=True):
        table = _table(b.module, f"blkc.two_over_pi.{name}", values)
        entry = b.gep(table, [ir.Constant(I32, 0), index], inbounds=True)
        parts.append(b.fmul(m, b.load(entry)))
    high, middle, low = parts

    def mod4(v: ir.Value) -> ir.Value:
        quarter = _call(b, "llvm.floor", b.fmul(v, ir.Constant(F64, 0.25)))
        return b.fsub(v, b.fmul(quarter, ir.Constant(F64, 4.0)))

    high = mod4(high)
    k = _call(b, "llvm.rint", b.fadd(high, middle))
    fraction = b.fadd(b.fadd(b.fsub(high, k), middle), low)
    return mod4(k), b.fmul(fraction, ir.Constant(F64, math.pi / 2))


def _sin_or_cos(module: ir.Module, b: ir.IRBuilder, x: ir.Argument, cosine: bool) -> ir.Value:
    fma = _intrinsic(module, "llvm.fma.f32", [F32, F32, F32], F32)
    floor = _intrinsic(module, "llvm.floor.f32", [F32], F32)
    magnitude = b.call(_intrinsic(module, "llvm.fabs.f32", [F32], F32), [x])
    k = b.call(
        _intrinsic(module, "llvm.rint.f32", [F32], F32), [b.fmul(magnitude, _c(_TWO_OVER_PI))]
    )
    r = magnitude
    for part in _PI_OVER_2:
        r = b.call(fma, [k, _c(-part), r])
    # The quadrant, k mod 4, exact for every finite k (|x| beyond 2**31 included).
    quadrant_f = b.fsub(k, b.fmul(b.call(floor, [b.fmul(k, _c(0.25))]), _c(4.0)))
    large = b.fcmp_ordered(">=", magnitude, _c(_TRIG_LARGE))
    large_quadrant, large_r = _reduce_large(b, x)
    quadrant_f = b.select(large, large_quadrant, quadrant_f)
    r = b.select(large, large_r, r)
    quadrant = b.fptosi(quadrant_f, I32)
    if cosine:
        quadrant = b.add(quadrant, ir.Constant(I32, 1))  # cos(x) = sin(x + pi/2)
    z = b.fmul(r, r)
    sine = b.call(fma, [b.fmul(_polynomial(b, z, _SIN_POLY), z), r, r])
    cos_near = b.call(fma, [z, _c(-0.5), _c(1.0)])
    cos_r = b.call(fma, [b.fmul(z, z), _polynomial(b, z, _COS_POLY), cos_near])
    odd = b.trunc(quadrant, ir.IntType(1))
    value = b.select(odd, cos_r, sine)
    flip = b.shl(b.and_(quadrant, ir.Constant(I32, 2)), ir.Constant(I32, 30))
    if not cosine:  # sin is odd: the sign of x too, -0.0 included
        flip = b.xor(flip, b.and_(b.bitcast(x, I32), ir.Constant(I32, -(2**31))))
    result = b.bitcast(b.xor(b.bitcast(value, I32), flip), F32)
    finite = b.fcmp_ordered("<", magnitude, _c(float("inf")))
    return b.select(finite, result, _c(float("nan")))


@_defined_once("blkc.sin.f32")
def sin_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.sin.f32` (see the module docstring for its range)."""
    return _sin_or_cos(module, b, x, cosine=False)


@_defined_once("blkc.cos.f32")
def cos_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.cos.f32` (see the module docstring for its range)."""
    return _sin_or_cos(module, b, x, cosine=True)


# ------------------------------------------------------------------------------------
# The C functions of `blk.math` and `blk.math2` (`NAMED`)
# ------------------------------------------------------------------------------------

F64 = ir.DoubleType()
I64 = ir.IntType(64)


def _call(b: ir.IRBuilder, name: str, *args: ir.Value) -> ir.Value:
    """The LLVM intrinsic `name` (``llvm.fabs``) of `args`, all of one type."""
    t = args[0].type
    suffix = "f32" if t == F32 else "f64"
    fn = _intrinsic(b.module, f"{name}.{suffix}", [t] * len(args), t)
    return b.call(fn, list(args))


def _fabs(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _call(b, "llvm.fabs", x)


def _fma(b: ir.IRBuilder, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    return _call(b, "llvm.fma", x, y, z)


def _is_nan(b: ir.IRBuilder, x: ir.Value, y: ir.Value | None = None) -> ir.Value:
    return b.fcmp_unordered("uno", x, x if y is None else y)


def _when(b: ir.IRBuilder, cmp: str, x: ir.Value, value: float) -> ir.Value:
    """``x <cmp> value``, ordered (false for NaN)."""
    return b.fcmp_ordered(cmp, x, ir.Constant(x.type, value))


def _sign_set(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Whether the sign bit of the float32 `x` is set (-0.0 and -NaN included)."""
    return b.icmp_signed("<", b.bitcast(x, I32), ir.Constant(I32, 0))


def _exp_reduce(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(n, r) with x = n ln2 + r, n integral, |r| <= ln2/2 (ln2 in two parts)."""
    n = _call(b, "llvm.rint", b.fmul(x, _c(_LOG2E)))
    r = _fma(b, n, _c(-_LN2_HI), x)
    return n, _fma(b, n, _c(-_LN2_LO), r)


def _power_of_two(b: ir.IRBuilder, n: ir.Value) -> ir.Value:
    """2**n for an integral float n in the normal range."""
    bits = b.shl(b.add(b.fptosi(n, I32), ir.Constant(I32, 127)), ir.Constant(I32, 23))
    return b.bitcast(bits, F32)


# e**r - 1 - r = r**2 P(r) on [-ln2/2, ln2/2]: Taylor's coefficients to r**8 / 8!.
_EXPM1_POLY = tuple(1 / math.factorial(k) for k in range(8, 1, -1))


@_defined_once("blkc.expm1.f32")
def expm1_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """e**x - 1 = 2**n (e**r - 1) + (2**n - 1): e**r - 1 from a polynomial, so that no
    cancellation occurs near 0; beyond n = 24 the -1 no longer counts (e**x - 1 there)."""
    clamped = _clamp(b, x, -30.0, 89.0)
    n, r = _exp_reduce(b, clamped)
    em1 = _fma(b, b.fmul(r, r), _polynomial(b, r, _EXPM1_POLY), r)
    scale = _power_of_two(b, _clamp(b, n, -60.0, 24.0))
    near = b.fadd(b.fmul(scale, em1), b.fsub(scale, _c(1.0)))
    far = b.fsub(_scaled_exp(b, n, r), _c(1.0))
    result = b.select(_when(b, ">", n, 24.0), far, near)
    result = b.select(_when(b, "==", x, 0.0), x, result)  # ±0 keep their sign
    return b.select(_is_nan(b, x), x, result)


def _log1p(module: ir.Module, b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log(1 + x) as log(u) + (x - (u - 1)) / u for u = 1 + x rounded: the second term is
    the rounding error of u, relative to it. Specials: as `_log_specials` of u."""
    u = b.fadd(x, _c(1.0))
    correction = b.fdiv(b.fsub(x, b.fsub(u, _c(1.0))), u)
    e, t, y = _log_parts(b, u)
    low = b.fadd(_fma(b, e, _c(_LN2_LO), y), correction)
    result = _fma(b, e, _c(_LN2_HI), b.fadd(t, low))
    result = _log_specials(b, u, result)
    return b.select(_when(b, "==", x, 0.0), x, result)  # ±0 keep their sign


@_defined_once("blkc.log1p.f32")
def log1p_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.log1p.f32` (`_log1p`)."""
    return _log1p(module, b, x)


_LOG10_2_HI = 0.301025390625  # 11 significant bits: n times it is exact
_LOG10_2_LO = 4.605039066518657e-06
_LOG10E_HI = 0.4342944920063019  # float32(log10(e))
_LOG10E_LO = -1.010305006321488e-08
_LN10 = 2.302585092994046
_LOG2_10 = 3.321928094887362


@_defined_once("blkc.log10.f32")
def log10_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """log10(x) = e log10(2) + (t + y) log10(e) from `_log_parts`, the constants in two
    parts."""
    e, t, y = _log_parts(b, x)
    low = _fma(b, t, _c(_LOG10E_LO), b.fmul(y, _c(_LOG10E_HI)))
    low = _fma(b, e, _c(_LOG10_2_LO), low)
    result = b.fadd(b.fmul(e, _c(_LOG10_2_HI)), _fma(b, t, _c(_LOG10E_HI), low))
    return _log_specials(b, x, result)


@_defined_once("blkc.exp10.f32")
def exp10_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """10**x = 2**n e**r with n = rint(x log2(10)) and r = (x - n log10(2)) ln10, the
    reduction in two parts."""
    clamped = _clamp(b, x, -50.0, 40.0)
    n = _call(b, "llvm.rint", b.fmul(clamped, _c(_LOG2_10)))
    d = _fma(b, n, _c(-_LOG10_2_HI), clamped)
    d = _fma(b, n, _c(-_LOG10_2_LO), d)
    result = _scaled_exp(b, n, b.fmul(d, _c(_LN10)))
    return b.select(_is_nan(b, x), x, result)


# sinh(x) = x + x**3 P(x**2) for |x| < 1: Taylor's coefficients to x**13 / 13!.
_SINH_POLY = tuple(1 / math.factorial(k) for k in range(13, 2, -2))


def _half_exp(b: ir.IRBuilder, magnitude: ir.Value) -> ir.Value:
    """e**magnitude / 2 for magnitude >= 0, infinite only where that is."""
    n, r = _exp_reduce(b, _clamp(b, magnitude, 0.0, 90.0))
    return _scaled_exp(b, b.fsub(n, _c(1.0)), r)


@_defined_once("blkc.cosh.f32")
def cosh_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """cosh(x) = e**|x| / 2 + 1 / (2 e**|x|)."""
    h = _half_exp(b, _fabs(b, x))
    result = b.fadd(h, b.fdiv(_c(0.25), h))
    return b.select(_is_nan(b, x), x, result)


@_defined_once("blkc.sinh.f32")
def sinh_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """sinh(x): a polynomial below 1, e**|x| / 2 - 1 / (2 e**|x|) with x's sign above."""
    magnitude = _fabs(b, x)
    h = _half_exp(b, magnitude)
    far = _copysign(b, b.fsub(h, b.fdiv(_c(0.25), h)), x)
    z = b.fmul(x, x)
    near = _fma(b, b.fmul(_polynomial(b, z, _SINH_POLY), z), x, x)
    # Unordered: NaN takes the near branch, which keeps it.
    return b.select(b.fcmp_unordered("ult", magnitude, _c(1.0)), near, far)


# atan(t) = t + t z P(z), z = t**2, for |t| <= tan(pi/8) (Cephes' atanf).
_ATAN_POLY = (8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1)
_PI_HI, _PI_LO = 3.1415927410125732, -8.742278012618954e-08
_PI_2_HI, _PI_2_LO = 1.5707963705062866, -4.371139006309477e-08
_PI_4_HI, _PI_4_LO = 0.7853981852531433, -2.1855695031547384e-08


def _atan_of_magnitude(b: ir.IRBuilder, a: ir.Value) -> ir.Value:
    """atan(a) for a >= 0 (infinity included): beyond tan(3pi/8) pi/2 - atan(1/a), beyond
    tan(pi/8) pi/4 + atan((a - 1) / (a + 1)), then the polynomial."""
    big = _when(b, ">", a, 2.414213562373095)
    middle = _when(b, ">", a, 0.41421356237309503)
    t = b.select(
        big,
        b.fdiv(_c(-1.0), a),
        b.select(middle, b.fdiv(b.fsub(a, _c(1.0)), b.fadd(a, _c(1.0))), a),
    )
    high = b.select(big, _c(_PI_2_HI), b.select(middle, _c(_PI_4_HI), _c(0.0)))
    low = b.select(big, _c(_PI_2_LO), b.select(middle, _c(_PI_4_LO), _c(0.0)))
    z = b.fmul(t, t)
    p = _fma(b, b.fmul(_polynomial(b, z, _ATAN_POLY), z), t, t)
    return b.fadd(high, b.fadd(p, low))


@_defined_once("blkc.atan.f32")
def atan_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """atan(x) = sign(x) atan(|x|) (NaN stays)."""
    return _copysign(b, _atan_of_magnitude(b, _fabs(b, x)), x)


def _minus_from(b: ir.IRBuilder, high: float, low: float, a: ir.Value) -> ir.Value:
    """(high + low) - a, for a constant in two parts."""
    return b.fadd(b.fsub(_c(high), a), _c(low))


@_defined_once("blkc.atan2.f32", arity=2)
def atan2_f32(module: ir.Module, b: ir.IRBuilder, y: ir.Argument, x: ir.Argument) -> ir.Value:
    """atan2(y, x): atan of the smaller magnitude over the larger (two zeros: 0, two
    infinities: 1), then pi/2 - that where |y| is the larger, pi - that where x's sign is
    set, with y's sign."""
    ay, ax = _fabs(b, y), _fabs(b, x)
    swap = b.fcmp_ordered(">", ay, ax)
    q = b.fdiv(b.select(swap, ax, ay), b.select(swap, ay, ax))
    both_zero = b.and_(_when(b, "==", ay, 0.0), _when(b, "==", ax, 0.0))
    inf = float("inf")
    both_inf = b.and_(_when(b, "==", ay, inf), _when(b, "==", ax, inf))
    q = b.select(both_zero, _c(0.0), b.select(both_inf, _c(1.0), q))
    a = _atan_of_magnitude(b, q)
    a = b.select(swap, _minus_from(b, _PI_2_HI, _PI_2_LO, a), a)
    a = b.select(_sign_set(b, x), _minus_from(b, _PI_HI, _PI_LO, a), a)
    return b.select(_is_nan(b, x, y), b.fadd(x, y), _copysign(b, a, y))


# asin(s) = s + s z P(z), z = s**2, for |s| <= 1/2 (Cephes' asinf).
_ASIN_POLY = (4.2163199048e-2, 2.4181311049e-2, 4.5470025998e-2, 7.4953002686e-2, 1.6666752422e-1)


def _asin_parts(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(big, p): big where |x| > 1/2, and p = asin(s) for s = sqrt((1 - |x|) / 2) there
    (asin(|x|) = pi/2 - 2 p), else p = asin(x). Beyond 1, NaN."""
    a = _fabs(b, x)
    big = _when(b, ">", a, 0.5)
    z = b.select(big, b.fmul(_c(0.5), b.fsub(_c(1.0), a)), b.fmul(x, x))
    s = b.select(big, _call(b, "llvm.sqrt", z), x)
    return big, _fma(b, b.fmul(_polynomial(b, z, _ASIN_POLY), z), s, s)


@_defined_once("blkc.asin.f32")
def asin_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.asin.f32` (`_asin_parts`)."""
    big, p = _asin_parts(b, x)
    far = _copysign(b, _minus_from(b, _PI_2_HI, _PI_2_LO, b.fadd(p, p)), x)
    return b.select(big, far, p)


@_defined_once("blkc.acos.f32")
def acos_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """acos(x) = pi/2 - asin(x) near 0; 2 asin(s) above 1/2 and pi - 2 asin(s) below -1/2
    (`_asin_parts`)."""
    big, p = _asin_parts(b, x)
    twice = b.fadd(p, p)
    far = b.select(_sign_set(b, x), _minus_from(b, _PI_HI, _PI_LO, twice), twice)
    return b.select(big, far, _minus_from(b, _PI_2_HI, _PI_2_LO, p))


_LARGE = 4096.0
"""Where asinh and acosh become log(2|x|): x**2 + 1 is x**2 in float32 there."""


@_defined_once("blkc.asinh.f32")
def asinh_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """asinh(x) = sign(x) log1p(|x| + x**2 / (1 + sqrt(1 + x**2))), log|x| + ln2 beyond
    `_LARGE`."""
    a = _fabs(b, x)
    z = b.fmul(a, a)
    root = _call(b, "llvm.sqrt", b.fadd(z, _c(1.0)))
    near = _log1p(module, b, b.fadd(a, b.fdiv(z, b.fadd(root, _c(1.0)))))
    far = b.fadd(b.call(log_f32(module), [a]), _c(_LN2))
    return _copysign(b, b.select(_when(b, ">", a, _LARGE), far, near), x)


@_defined_once("blkc.acosh.f32")
def acosh_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """acosh(x) = log1p(t + sqrt(2t + t**2)), t = x - 1; log(x) + ln2 beyond `_LARGE`;
    NaN below 1."""
    t = b.fsub(x, _c(1.0))
    near = _log1p(module, b, b.fadd(t, _call(b, "llvm.sqrt", _fma(b, t, t, b.fadd(t, t)))))
    far = b.fadd(b.call(log_f32(module), [x]), _c(_LN2))
    result = b.select(_when(b, ">", x, _LARGE), far, near)
    return b.select(_when(b, "<", x, 1.0), _c(float("nan")), result)


@_defined_once("blkc.atanh.f32")
def atanh_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """atanh(x) = sign(x) log1p(2|x| / (1 - |x|)) / 2 (1: infinity, beyond: NaN)."""
    a = _fabs(b, x)
    ratio = b.fdiv(b.fadd(a, a), b.fsub(_c(1.0), a))
    return _copysign(b, b.fmul(_log1p(module, b, ratio), _c(0.5)), x)


# sin(r) = r + r z S(z) and cos(r) = 1 + z C(z), z = r**2, |r| <= pi/4, in float64:
# Taylor's coefficients to r**17 and r**18.
_SIN_SERIES = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(8, 0, -1))
_COS_SERIES = tuple((-1) ** k / math.factorial(2 * k) for k in range(9, 0, -1))
_PI_2_DOUBLE = (1.5707963267948966, 6.123233995736766e-17)  # pi/2 in two float64 parts


@_defined_once("blkc.tan.f32")
def tan_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """tan(x) in float64: |x| less the nearest multiple k of pi/2 (pi/2 in two parts below
    `_TRIG_LARGE`; from there on sin's and cos's table, `_reduce_large_f64`), then
    sin(r) / cos(r), or -cos(r) / sin(r) for odd k, rounded once to float32; odd in x."""
    xd = b.fpext(_fabs(b, x), F64)
    k = _call(b, "llvm.rint", b.fmul(xd, _double(b, 2 / math.pi)))
    r = _fma(b, k, _double(b, -_PI_2_DOUBLE[0]), xd)
    r = _fma(b, k, _double(b, -_PI_2_DOUBLE[1]), r)
    large = b.fcmp_ordered(">=", xd, _double(b, _TRIG_LARGE))
    large_k, large_r = _reduce_large_f64(b, x)
    k = b.select(large, large_k, k)
    r = b.select(large, large_r, r)
    z = b.fmul(r, r)
    sine = _fma(b, b.fmul(_series(b, z, _SIN_SERIES), z), r, r)
    cosine = _fma(b, _series(b, z, _COS_SERIES), z, _double(b, 1.0))
    half = b.fmul(k, _double(b, 0.5))
    odd = b.fcmp_ordered("!=", _call(b, "llvm.floor", half), half)
    value = b.select(odd, b.fdiv(b.fneg(cosine), sine), b.fdiv(sine, cosine))
    sign = b.and_(b.bitcast(x, I32), ir.Constant(I32, -(2**31)))
    result = b.bitcast(b.xor(b.bitcast(b.fptrunc(value, F32), I32), sign), F32)
    result = b.select(_when(b, "==", x, 0.0), x, result)  # ±0 keep their sign
    return b.select(_when(b, "<", _fabs(b, x), float("inf")), result, _c(float("nan")))


def _series(b: ir.IRBuilder, z: ir.Value, coefficients: tuple[float, ...]) -> ir.Value:
    """Horner's rule in float64, highest coefficient first."""
    p = _double(b, coefficients[0])
    for coefficient in coefficients[1:]:
        p = _fma(b, p, z, _double(b, coefficient))
    return p


def _double(b: ir.IRBuilder, value: float) -> ir.Constant:
    return ir.Constant(F64, value)


@_defined_once("blkc.cbrt.f32")
def cbrt_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The cube root in float64: a third of the exponent's bits as the first guess, four
    Newton steps (each squares the relative error), rounded once to float32."""
    a = b.fpext(_fabs(b, x), F64)
    third = b.udiv(b.bitcast(a, I64), ir.Constant(I64, 3))
    y = b.bitcast(b.add(third, ir.Constant(I64, 0x2A9F7893782DA1CE)), F64)
    for _ in range(4):  # y = (2y + a / y**2) / 3
        y = b.fmul(b.fadd(b.fadd(y, y), b.fdiv(a, b.fmul(y, y))), _double(b, 1 / 3))
    result = _copysign(b, b.fptrunc(y, F32), x)
    finite = b.fcmp_ordered("<", _fabs(b, x), _c(float("inf")))
    keep = b.or_(b.not_(finite), _when(b, "==", x, 0.0))  # ±0, ±inf and NaN are their own
    return b.select(keep, x, result)


@_defined_once("blkc.hypot.f32", arity=2)
def hypot_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument, y: ir.Argument) -> ir.Value:
    """sqrt(x**2 + y**2) in float64 (no overflow, one rounding to float32 but for the
    square root's); an infinity wins over NaN, as in C."""
    xd, yd = b.fpext(x, F64), b.fpext(y, F64)
    root = _call(b, "llvm.sqrt", _fma(b, xd, xd, b.fmul(yd, yd)))
    result = b.fptrunc(root, F32)
    inf = float("inf")
    infinite = b.or_(_when(b, "==", _fabs(b, x), inf), _when(b, "==", _fabs(b, y), inf))
    return b.select(infinite, _c(inf), result)


# log(m) = 2 atanh(s) = 2 (s + s**3/3 + ...), s = (m - 1) / (m + 1), |s| <= 0.172 for m in
# [sqrt(1/2), sqrt(2)): the odd terms to s**17 (float64).
_ATANH_SERIES = tuple(1 / k for k in range(17, 1, -2))
# e**u for |u| <= ln2/2: Taylor's coefficients to u**13 / 13! (float64).
_EXP_SERIES = tuple(1 / math.factorial(k) for k in range(13, -1, -1))


def _log2_double(b: ir.IRBuilder, a: ir.Value) -> ir.Value:
    """log2(a) in float64 for a normal positive float64 a (within 1e-15 relative)."""
    bits = b.bitcast(a, I64)
    exponent = b.sub(b.lshr(bits, ir.Constant(I64, 52)), ir.Constant(I64, 1023))
    m = b.bitcast(
        b.or_(b.and_(bits, ir.Constant(I64, (1 << 52) - 1)), ir.Constant(I64, 1023 << 52)), F64
    )
    big = b.fcmp_ordered(">", m, _double(b, math.sqrt(2)))
    m = b.select(big, b.fmul(m, _double(b, 0.5)), m)
    exponent = b.sitofp(b.select(big, b.add(exponent, ir.Constant(I64, 1)), exponent), F64)
    s = b.fdiv(b.fsub(m, _double(b, 1.0)), b.fadd(m, _double(b, 1.0)))
    z = b.fmul(s, s)
    series = _series(b, z, _ATANH_SERIES)
    log_m = b.fmul(_fma(b, b.fmul(series, z), s, s), _double(b, 2.0))  # 2 (s + s z S(z))
    return _fma(b, log_m, _double(b, _LOG2E), exponent)


def _exp2_double(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """2**z in float64 for z in [-200, 200]: 2**n e**((z - n) ln2)."""
    n = _call(b, "llvm.rint", z)
    u = b.fmul(b.fsub(z, n), _double(b, _LN2))
    p = _series(b, u, _EXP_SERIES)
    power = b.shl(b.add(b.fptosi(n, I64), ir.Constant(I64, 1023)), ir.Constant(I64, 52))
    return b.fmul(p, b.bitcast(power, F64))


@_defined_once("blkc.pow.f32", arity=2)
def pow_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument, y: ir.Argument) -> ir.Value:
    """x**y = 2**(y log2|x|) in float64, rounded once, with C's special cases: x**0 = 1 and
    1**y = 1 (NaN included), (-1)**±inf = 1, a negative finite x to a non-integral power
    is NaN, and x's sign where y is an odd integer."""
    a = b.fpext(_fabs(b, x), F64)
    log2 = _log2_double(b, a)
    log2 = b.select(b.fcmp_ordered("==", a, _double(b, 0.0)), _double(b, -math.inf), log2)
    log2 = b.select(b.fcmp_ordered("==", a, _double(b, math.inf)), _double(b, math.inf), log2)
    product = b.fmul(b.fpext(y, F64), log2)
    clamped = _call(
        b, "llvm.minnum", _call(b, "llvm.maxnum", product, _double(b, -200.0)), _double(b, 200.0)
    )
    result = b.fptrunc(_exp2_double(b, clamped), F32)
    integral = b.fcmp_ordered("==", _call(b, "llvm.floor", y), y)
    half = b.fmul(y, _c(0.5))
    odd = b.and_(integral, b.fcmp_ordered("!=", _call(b, "llvm.floor", half), half))
    result = b.select(b.and_(odd, _sign_set(b, x)), b.fneg(result), result)
    finite_negative = b.and_(_when(b, "<", x, 0.0), _when(b, ">", x, float("-inf")))
    result = b.select(b.and_(finite_negative, b.not_(integral)), _c(float("nan")), result)
    result = b.select(_is_nan(b, x, y), _c(float("nan")), result)
    minus_one = b.and_(_when(b, "==", x, -1.0), _when(b, "==", _fabs(b, y), float("inf")))
    one = b.or_(minus_one, b.or_(_when(b, "==", x, 1.0), _when(b, "==", y, 0.0)))
    return b.select(one, _c(1.0), result)


@_defined_once("blkc.logb.f32")
def logb_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The unbiased exponent of x from its bits (subnormals scaled first); 0: -inf,
    infinities: inf, NaN stays."""
    a = _fabs(b, x)
    tiny = _when(b, "<", a, 1.1754943508222875e-38)
    bits = b.bitcast(b.select(tiny, b.fmul(a, _c(2.0**23)), a), I32)
    exponent = b.sub(b.lshr(bits, ir.Constant(I32, 23)), ir.Constant(I32, 127))
    exponent = b.select(tiny, b.sub(exponent, ir.Constant(I32, 23)), exponent)
    result = b.sitofp(exponent, F32)
    result = b.select(_when(b, "==", a, 0.0), _c(float("-inf")), result)
    return b.select(b.fcmp_unordered("uge", a, _c(float("inf"))), a, result)


@_defined_once("blkc.fdim.f32", arity=2)
def fdim_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument, y: ir.Argument) -> ir.Value:
    """x - y where x > y, else +0; NaN stays."""
    result = b.select(b.fcmp_ordered(">", x, y), b.fsub(x, y), _c(0.0))
    return b.select(_is_nan(b, x, y), b.fadd(x, y), result)


@_defined_once("blkc.nextafter.f32", arity=2)
def nextafter_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument, y: ir.Argument) -> ir.Value:
    """The float after x toward y, one step of x's bits (away from zero where y is
    beyond x); from zero the smallest subnormal of y's sign; y where they are equal."""
    bits = b.bitcast(x, I32)
    away = b.icmp_signed(
        "==", b.zext(b.fcmp_ordered(">", y, x), I32), b.zext(_when(b, ">", x, 0.0), I32)
    )
    stepped = b.select(away, b.add(bits, ir.Constant(I32, 1)), b.sub(bits, ir.Constant(I32, 1)))
    result = b.bitcast(stepped, F32)
    smallest = _copysign(b, _c(1e-45), y)
    result = b.select(_when(b, "==", x, 0.0), smallest, result)
    result = b.select(b.fcmp_ordered("==", x, y), y, result)
    return b.select(_is_nan(b, x, y), b.fadd(x, y), result)


NAMED: dict[str, Callable[[ir.Module], ir.Function]] = {
    "expm1": expm1_f32,
    "log1p": log1p_f32,
    "log10": log10_f32,
    "exp10": exp10_f32,
    "sinh": sinh_f32,
    "cosh": cosh_f32,
    "tan": tan_f32,
    "atan": atan_f32,
    "atan2": atan2_f32,
    "asin": asin_f32,
    "acos": acos_f32,
    "asinh": asinh_f32,
    "acosh": acosh_f32,
    "atanh": atanh_f32,
    "cbrt": cbrt_f32,
    "hypot": hypot_f32,
    "pow": pow_f32,
    "logb": logb_f32,
    "fdim": fdim_f32,
    "nextafter": nextafter_f32,
}
"""The functions of `blk.math` and `blk.math2` that have float32 code here, by name (the
others: LLVM intrinsics or the C library, `blkc.runtime.llvm_emitter`)."""
