"""Math functions as plain LLVM IR arithmetic, so that LLVM's vectorizers can vectorize
them (a call to the C library's `expf` stays scalar). float32 `exp`, `exp2`, `log`,
`log2`, `tanh`, `erf`, `sin` and `cos` are here; float64 calls the C library.

`exp_f32` computes e**x for float32 with Cody-Waite range reduction, x = n ln2 + r with
|r| <= ln2/2, a degree-7 polynomial for e**r, and a scaling by 2**n in two steps (so
that results in the subnormal range and up to the overflow threshold stay exact);
`exp2_f32` shares it with r = (x - n) ln2. `log_f32` and `log2_f32` share the reduction
to a mantissa in [sqrt(1/2), sqrt(2)). `erf_f32` is x + x P(x**2) below 0.93 and
1 - e**Q(|x|) above (Q fitted to log(erfc)). `sin_f32`/`cos_f32` reduce |x| by
multiples of pi/2 in three FMA steps (Cody-Waite) and pick a degree-7 sine or degree-8
cosine polynomial by quadrant; the reduction is exact enough for |x| < 71476 (NumPy's
own vectorized bound), beyond which the error grows with |x| (NumPy switches to the C
library there).

Infinities, NaN, overflow to infinity and underflow to zero are handled by selects.
Measured against NumPy in float64 (erf: Python's `math.erf`) rounded to float32, on the
ranges test/e2e/test_math.py uses, in ulp within the normal range (identical infinities,
zeros and NaN): exp, exp2, log, log2, tanh and erf 1; sin and cos 2 for |x| < 71476
(1624 at |x| near 1e7). NumPy's own float32 exp and log are up to 3 and 4 ulp from the
same reference.
"""

from __future__ import annotations

import functools
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
_OVERFLOW = 88.72283935546875  # largest float32 whose exp is finite
_UNDERFLOW = -103.97282409667969  # below: e**x rounds to 0


def _intrinsic(module: ir.Module, name: str, args: list[ir.Type], result: ir.Type) -> ir.Function:
    existing = module.globals.get(name)
    if isinstance(existing, ir.Function):
        return existing
    return ir.Function(module, ir.FunctionType(result, args), name=name)


_Body = Callable[[ir.Module, ir.IRBuilder, ir.Argument], ir.Value]
"""Builds the value of an f32 function of `x` with the builder `b` in `module`."""


def _defined_once(name: str) -> Callable[[_Body], Callable[[ir.Module], ir.Function]]:
    """Turn a `_Body` into ``define(module)``: the f32 -> f32 function `name`, defined in
    `module` once (internal, always inlined)."""

    def decorate(body: _Body) -> Callable[[ir.Module], ir.Function]:
        @functools.wraps(body)
        def define(module: ir.Module) -> ir.Function:
            existing = module.globals.get(name)
            if isinstance(existing, ir.Function):
                return existing
            fn = ir.Function(module, ir.FunctionType(F32, [F32]), name=name)
            fn.linkage = "internal"
            fn.attributes.add("alwaysinline")
            b = ir.IRBuilder(fn.append_basic_block("entry"))
            b.ret(body(module, b, fn.args[0]))
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


def _scaled_exp(b: ir.IRBuilder, n: ir.Value, r: ir.Value) -> ir.Value:
    """e**r * 2**n for |r| <= ln2/2 and an integral float n, scaling in two steps so that
    subnormal results round once and 2**n never overflows on its own."""
    fma = _intrinsic(b.module, "llvm.fma.f32", [F32, F32, F32], F32)
    r2 = b.fmul(r, r)
    e_r = b.fadd(b.call(fma, [_polynomial(b, r, _EXP_POLY), r2, r]), _c(1.0))
    k = b.fptosi(n, I32)
    half = b.ashr(k, ir.Constant(I32, 1))

    def power_of_two(e: ir.Value) -> ir.Value:
        bits = b.shl(b.add(e, ir.Constant(I32, 127)), ir.Constant(I32, 23))
        return b.bitcast(bits, F32)

    return b.fmul(b.fmul(e_r, power_of_two(half)), power_of_two(b.sub(k, half)))


@_defined_once("blkc.exp.f32")
def exp_f32(module: ir.Module, b: ir.IRBuilder, x: ir.Argument) -> ir.Value:
    """The function `blkc.exp.f32`, defined in `module` once."""
    rint = _intrinsic(module, "llvm.rint.f32", [F32], F32)
    fma = _intrinsic(module, "llvm.fma.f32", [F32, F32, F32], F32)
    clamped = _clamp(b, x, _UNDERFLOW - 1, _OVERFLOW + 1)
    n = b.call(rint, [b.fmul(clamped, _c(_LOG2E))])
    r = b.call(fma, [n, _c(-_LN2_HI), clamped])
    r = b.call(fma, [n, _c(-_LN2_LO), r])
    result = _scaled_exp(b, n, r)
    result = b.select(b.fcmp_ordered(">", x, _c(_OVERFLOW)), _c(float("inf")), result)
    result = b.select(b.fcmp_ordered("<", x, _c(_UNDERFLOW)), _c(0.0), result)
    result = b.select(b.fcmp_unordered("uno", x, x), x, result)
    return result


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
# pi/2 in three float32 parts (72 bits), subtracted by FMAs: k * part is exact in each.
_PI_OVER_2 = (1.5707963705062866, -4.371138828673793e-08, -1.7151245100058819e-15)


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


NAMED: dict[str, Callable[[ir.Module], ir.Function]] = {}
"""The functions of `blk.math` and `blk.math2` that have float32 code here, by name."""
