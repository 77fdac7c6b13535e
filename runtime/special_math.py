"""libdevice's special functions that the C library lacks: `sinpi cospi erfinv erfcinv
erfcx normcdfinv cyl_bessel_i0 cyl_bessel_i1`, in float64 (float32 computes here and
rounds once).

Each is written once, branch-free, over `Arithmetic`: `runtime/llvm_emitter` instantiates
it with an LLVM IR builder (`llvm_emitter.LlvmArithmetic`, scalar code calling the C
library's `erf`, `erfc`, `exp`, `log`, `sin`, `cos`), the interpreter with NumPy
(`NumpyArithmetic`). This module belongs to the interpreter's layer, below the code
generators, which read the same descriptions.

- `sinpi`, `cospi`: x reduced exactly to r in [-1, 1] (x - 2 rint(x / 2)), folded to
  [-1/2, 1/2] exactly, then sin(pi r) with pi in two parts. Integers give zeros of x's
  sign (sinpi), halves +0 (cospi); infinities NaN.
- `erfinv`, `erfcinv`, `normcdfinv`: Giles' single-precision approximation (or, for
  tiny complements, the asymptotic inverse of erfc) refined by Newton's method: on
  erf(y) = x for |x| <= 1/2, on log(erfc(y)) = log(q) (through `erfcx`, so that no
  underflow limits it) for the tails; the complements 1 - |x|, 2 - q are exact.
  `normcdfinv(p)` is -sqrt(2) erfcinv(2p).
- `erfcx`: e**(x*x) erfc(x) with x*x in two parts below 26; above, the asymptotic series
  1/(x sqrt(pi)) sum((-1)**k (2k-1)!! / (2x**2)**k) to k = 10.
- `cyl_bessel_i0`, `cyl_bessel_i1`: the power series below |x| = 25 (40 terms), the
  asymptotic series e**|x| / sqrt(2 pi |x|) sum(...) above (20 terms), e**|x| split in two
  halves so that it overflows only with the result.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

V = Any
"""A value of the arithmetic (an LLVM value, a NumPy array)."""


class Arithmetic(Protocol):
    """float64 arithmetic on values of one kind; comparisons are ordered (false for NaN)."""

    def c(self, value: float) -> V: ...
    def add(self, x: V, y: V) -> V: ...
    def sub(self, x: V, y: V) -> V: ...
    def mul(self, x: V, y: V) -> V: ...
    def div(self, x: V, y: V) -> V: ...
    def fma(self, x: V, y: V, z: V) -> V: ...
    def abs(self, x: V) -> V: ...
    def sqrt(self, x: V) -> V: ...
    def rint(self, x: V) -> V: ...
    def copysign(self, x: V, y: V) -> V: ...
    def call(self, name: str, x: V) -> V:
        """The C library's `name` (erf, erfc, exp, log, sin, cos) of `x`."""

    def less(self, x: V, y: V) -> V: ...
    def equal(self, x: V, y: V) -> V: ...
    def either(self, p: V, q: V) -> V: ...
    def select(self, p: V, x: V, y: V) -> V: ...


_PI_LO = 1.2246467991473532e-16
"""pi - math.pi."""
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _poly(a: Arithmetic, x: V, coefficients: tuple[float, ...]) -> V:
    """Horner's scheme, the highest coefficient first."""
    p = a.c(coefficients[0])
    for k in coefficients[1:]:
        p = a.fma(p, x, a.c(k))
    return p


def _sin_pi(a: Arithmetic, r: V) -> V:
    """sin(pi r) for |r| <= 1/2: pi r = hi + lo to twice the precision."""
    hi = a.mul(a.c(math.pi), r)
    lo = a.fma(a.c(math.pi), r, a.sub(a.c(0.0), hi))
    lo = a.fma(a.c(_PI_LO), r, lo)
    return a.fma(a.call("cos", hi), lo, a.call("sin", hi))


def _cos_pi(a: Arithmetic, r: V) -> V:
    """cos(pi r) for |r| <= 1/4."""
    hi = a.mul(a.c(math.pi), r)
    lo = a.fma(a.c(_PI_LO), r, a.fma(a.c(math.pi), r, a.sub(a.c(0.0), hi)))
    return a.fma(a.sub(a.c(0.0), a.call("sin", hi)), lo, a.call("cos", hi))


def _reduced(a: Arithmetic, x: V) -> V:
    """x - 2 rint(x / 2), exactly: in [-1, 1], NaN for infinities."""
    return a.sub(x, a.mul(a.c(2.0), a.rint(a.mul(x, a.c(0.5)))))


def sinpi(a: Arithmetic, x: V) -> V:
    r = _reduced(a, x)
    folded = a.sub(a.copysign(a.c(1.0), r), r)  # sin(pi (1 - r)) = sin(pi r), exact
    r = a.select(a.less(a.c(0.5), a.abs(r)), folded, r)
    y = _sin_pi(a, r)
    return a.select(a.equal(y, a.c(0.0)), a.copysign(a.c(0.0), x), y)


def cospi(a: Arithmetic, x: V) -> V:
    r = a.abs(_reduced(a, x))
    far = _sin_pi(a, a.sub(a.c(0.5), r))  # cos(pi r) = sin(pi (1/2 - r)), exact for r >= 1/4
    return a.select(a.less(r, a.c(0.25)), _cos_pi(a, r), far)


# Giles, "Approximating the erfinv function": erfinv(x) ~ x p(w), w = -log(1 - x*x).
_GILES_CENTRAL = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)  # fmt: skip
_GILES_TAIL = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)  # fmt: skip


def _giles_central(a: Arithmetic, w: V, x: V) -> V:
    """Giles' erfinv(x) for w = -log(1 - x*x) below 5."""
    return a.mul(_poly(a, a.sub(w, a.c(2.5)), _GILES_CENTRAL), x)


def _erfinv_central(a: Arithmetic, x: V) -> V:
    """erfinv(x) for |x| <= 1/2: Newton's method on erf(y) = x, three steps."""
    w = a.sub(a.c(0.0), a.call("log", a.mul(a.sub(a.c(1.0), x), a.add(a.c(1.0), x))))
    y = _giles_central(a, w, x)
    for _ in range(3):
        slope = a.mul(a.c(_TWO_OVER_SQRT_PI), a.call("exp", a.mul(a.sub(a.c(0.0), y), y)))
        y = a.sub(y, a.div(a.sub(a.call("erf", y), x), slope))
    return y


def _erfcinv_tail(a: Arithmetic, q: V) -> V:
    """erfcinv(q) for 0 < q <= 1/2: Newton's method on g(y) = log(erfcx(y)) - y*y -
    log(q) = 0 (log erfc(y) - log q), whose slope is -2 / (sqrt(pi) erfcx(y)); five
    steps from Giles' approximation, or for w beyond 16 from y = sqrt(t - log(sqrt(pi t)))
    with t = -log q, the inverse of erfc(y) ~ e**(-y*y) / (y sqrt(pi))."""
    log_q = a.call("log", q)
    w = a.sub(a.c(0.0), a.call("log", a.mul(q, a.sub(a.c(2.0), q))))
    giles = a.mul(_poly(a, a.sub(a.sqrt(w), a.c(3.0)), _GILES_TAIL), a.sub(a.c(1.0), q))
    giles = a.select(a.less(w, a.c(5.0)), _giles_central(a, w, a.sub(a.c(1.0), q)), giles)
    t = a.sub(a.c(0.0), log_q)
    asymptotic = a.sqrt(a.sub(t, a.call("log", a.sqrt(a.mul(a.c(math.pi), t)))))
    y = a.select(a.less(w, a.c(16.0)), giles, asymptotic)
    for _ in range(5):
        e = erfcx(a, y)
        square = a.mul(y, y)
        low = a.fma(y, y, a.sub(a.c(0.0), square))
        g = a.sub(a.sub(a.sub(a.call("log", e), log_q), square), low)
        y = a.add(y, a.mul(g, a.mul(e, a.c(1 / _TWO_OVER_SQRT_PI))))
    return y


def erfcinv(a: Arithmetic, q: V) -> V:
    low = a.select(a.less(q, a.c(0.5)), q, a.c(0.5))  # each branch in its own domain
    high = a.select(a.less(a.c(1.5), q), a.sub(a.c(2.0), q), a.c(0.5))
    outer = a.less(a.c(0.5), a.abs(a.sub(a.c(1.0), q)))
    middle = a.select(outer, a.c(0.0), a.sub(a.c(1.0), q))
    y = a.select(
        a.less(q, a.c(0.5)),
        _erfcinv_tail(a, low),
        a.select(
            a.less(a.c(1.5), q),
            a.sub(a.c(0.0), _erfcinv_tail(a, high)),
            _erfinv_central(a, middle),
        ),
    )
    y = a.select(a.equal(q, a.c(0.0)), a.c(math.inf), y)
    y = a.select(a.equal(q, a.c(2.0)), a.c(-math.inf), y)
    outside = a.either(a.less(q, a.c(0.0)), a.less(a.c(2.0), q))
    return a.select(outside, a.c(math.nan), a.select(a.equal(q, q), y, q))


def erfinv(a: Arithmetic, x: V) -> V:
    magnitude = a.abs(x)
    central = a.select(a.less(a.c(0.5), magnitude), a.c(0.0), x)
    complement = a.select(a.less(a.c(0.5), magnitude), a.sub(a.c(1.0), magnitude), a.c(0.5))
    complement = a.select(a.less(complement, a.c(0.0)), a.c(0.5), complement)
    tail = a.copysign(_erfcinv_tail(a, complement), x)
    y = a.select(a.less(a.c(0.5), magnitude), tail, _erfinv_central(a, central))
    y = a.select(a.equal(magnitude, a.c(1.0)), a.copysign(a.c(math.inf), x), y)
    y = a.select(a.less(a.c(1.0), magnitude), a.c(math.nan), y)
    return a.select(a.equal(x, x), y, x)


def normcdfinv(a: Arithmetic, p: V) -> V:
    return a.mul(a.c(-math.sqrt(2.0)), erfcinv(a, a.mul(p, a.c(2.0))))


def erfcx(a: Arithmetic, x: V) -> V:
    square = a.mul(x, x)
    low = a.fma(x, x, a.sub(a.c(0.0), square))
    direct = a.mul(a.mul(a.call("exp", square), a.add(a.c(1.0), low)), a.call("erfc", x))
    inverse = a.div(a.c(1.0), a.select(a.less(x, a.c(26.0)), a.c(26.0), x))
    s = a.mul(a.mul(inverse, inverse), a.c(0.5))
    term, total = a.c(1.0), a.c(1.0)
    for k in range(1, 11):
        term = a.mul(term, a.mul(s, a.c(-(2 * k - 1))))
        total = a.add(total, term)
    asymptotic = a.mul(total, a.mul(inverse, a.c(1 / math.sqrt(math.pi))))
    direct = a.select(a.less(x, a.c(-26.7)), a.c(math.inf), direct)  # 2 e**(x*x) overflows
    return a.select(a.less(x, a.c(26.0)), direct, a.select(a.equal(x, x), asymptotic, x))


_SERIES_END = 25.0
"""Where the Bessel functions' asymptotic series takes over from the power series."""


def _bessel_i(a: Arithmetic, x: V, order: int) -> V:
    """I0 or I1 of |x|."""
    m = a.abs(x)
    small = a.select(a.less(m, a.c(_SERIES_END)), m, a.c(0.0))
    t = a.mul(a.mul(small, small), a.c(0.25))
    term, total = a.c(1.0), a.c(1.0)
    for k in range(1, 41):
        term = a.mul(term, a.mul(t, a.c(1.0 / (k * (k + order)))))
        total = a.add(total, term)
    series = a.mul(total, a.mul(small, a.c(0.5))) if order else total
    large = a.select(a.less(m, a.c(_SERIES_END)), a.c(_SERIES_END), m)
    mu = 4 * order * order
    step = a.div(a.c(1.0), a.mul(large, a.c(8.0)))
    term, total = a.c(1.0), a.c(1.0)
    for k in range(1, 21):
        term = a.mul(term, a.mul(step, a.c(((2 * k - 1) ** 2 - mu) / k)))
        total = a.add(total, term)
    half = a.call("exp", a.mul(large, a.c(0.5)))
    scale = a.div(half, a.sqrt(a.mul(large, a.c(2 * math.pi))))
    asymptotic = a.mul(half, a.mul(scale, total))
    asymptotic = a.select(a.equal(m, a.c(math.inf)), m, asymptotic)
    return a.select(a.less(m, a.c(_SERIES_END)), series, a.select(a.equal(m, m), asymptotic, m))


def cyl_bessel_i0(a: Arithmetic, x: V) -> V:
    return _bessel_i(a, x, 0)


def cyl_bessel_i1(a: Arithmetic, x: V) -> V:
    return a.copysign(_bessel_i(a, x, 1), x)


FUNCTIONS: dict[str, Callable[[Arithmetic, V], V]] = {
    "sinpi": sinpi,
    "cospi": cospi,
    "erfinv": erfinv,
    "erfcinv": erfcinv,
    "erfcx": erfcx,
    "normcdfinv": normcdfinv,
    "cyl_bessel_i0": cyl_bessel_i0,
    "cyl_bessel_i1": cyl_bessel_i1,
}
"""The functions here, by their `blk.math` names."""


# ------------------------------------------------------------------------------------
# NumPy (the interpreter)
# ------------------------------------------------------------------------------------


_VECTORIZED = {
    "erf": np.vectorize(math.erf, otypes=[np.float64]),
    "erfc": np.vectorize(math.erfc, otypes=[np.float64]),
    "exp": np.exp,
    "log": np.log,
    "sin": np.sin,
    "cos": np.cos,
}


class NumpyArithmetic:
    """`Arithmetic` on float64 NumPy arrays."""

    def c(self, value: float) -> V:
        return np.float64(value)

    add, sub, mul, div = np.add, np.subtract, np.multiply, np.divide

    def fma(self, x: V, y: V, z: V) -> V:
        """x*y + z with the product's rounding error added: exact where z is -x*y (the
        error itself, which the functions use), within an ulp or two otherwise."""
        product = np.multiply(x, y)
        return (product + z) + _product_error(np.asarray(x), np.asarray(y), product)

    abs, sqrt, rint, copysign = np.abs, np.sqrt, np.rint, np.copysign

    def call(self, name: str, x: V) -> V:
        return _VECTORIZED[name](x)

    def less(self, x: V, y: V) -> V:
        return np.less(x, y)

    def equal(self, x: V, y: V) -> V:
        return np.equal(x, y)

    def either(self, p: V, q: V) -> V:
        return np.logical_or(p, q)

    def select(self, p: V, x: V, y: V) -> V:
        return np.where(p, x, y)


def _product_error(x: np.ndarray, y: np.ndarray, product: np.ndarray) -> np.ndarray:
    """x*y - round(x*y), exactly (Dekker's product, halves split at 2**27)."""
    split = 134217729.0  # 2**27 + 1

    def halves(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        big = split * v
        hi = big - (big - v)
        return hi, v - hi

    xh, xl = halves(x)
    yh, yl = halves(y)
    return ((xh * yh - product) + xh * yl + xl * yh) + xl * yl


def evaluate(name: str, x: np.ndarray) -> np.ndarray:
    """The function `name` of the float64 array `x` (the interpreter's)."""
    with np.errstate(all="ignore"):
        return np.asarray(FUNCTIONS[name](NumpyArithmetic(), np.asarray(x, np.float64)))
