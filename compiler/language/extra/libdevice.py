"""`blkc.language.extra.libdevice` (``tl.extra.libdevice``): the elementwise math
functions Triton kernels import from `triton.language.extra.libdevice`, under the same
names and signatures.

Each computes in the dtype of its float operands: float32 and float64 as themselves,
float16 and bfloat16 in float32, rounded once. A typed integer operand is refused (as
Triton refuses it), but where Triton takes an int32 (`pow`'s exponent, `ldexp`'s and
`scalbn`'s); Python numbers take the other operand's dtype. The C functions are
`blk.math` and `blk.math2`; docs/math.md lists their accuracy on each target, and the
functions left out.

    from blkc.language.extra import libdevice

    @blkc.jit
    def gelu(x_ptr, y_ptr, BLOCK: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, BLOCK))
        inner = 0.7978845608 * (x + 0.044715 * x * x * x)
        tl.store(y_ptr + tl.arange(0, BLOCK), 0.5 * x * (1 + libdevice.tanh(inner)))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from blkc import dtypes
from blkc.language import core
from blkc.language import math as _math
from blkc.language.core import builtin, tensor

if TYPE_CHECKING:
    from xdsl.ir import SSAValue

    from blkc.frontend.python import CodeGenerator

# The functions `tl` and `tl.math` have under the same names.
abs, ceil, floor, exp, exp2, log, log2 = (  # noqa: A001
    core.abs, core.ceil, core.floor, core.exp, core.exp2, core.log, core.log2,
)  # fmt: skip
sin, cos, sqrt, sqrt_rn, rsqrt, erf, fma = (
    core.sin, core.cos, core.sqrt, core.sqrt_rn, core.rsqrt, core.erf, core.fma,
)  # fmt: skip
div_rn = _math.div_rn

_FLOATS = "float32 or float64 (float16 and bfloat16 compute in float32)"


def _float(s: CodeGenerator, x: Any, fn: str, what: str) -> SSAValue:
    """`x` as an operand of the float function `fn`: typed integers are refused."""
    v = s.value(x, what)
    if not s.ir.is_weak(v):
        d = s.dtype_of(v)
        if not d.is_float:
            raise s.error(
                f"libdevice.{fn} takes {_FLOATS}, got {d.name} for {what}: cast it to a float "
                "first (Triton has no integer version either)"
            )
    return v


def _exponent(s: CodeGenerator, n: Any, fn: str) -> SSAValue:
    """An integral exponent (`ldexp`, `scalbn`): an integer, converted by the promotion."""
    v = s.value(n, "n")
    if s.ir.is_weak(v):
        if not isinstance(s.ir.literal_value(v), int):
            raise s.error(f"libdevice.{fn}'s exponent must be an integer, got {v.type}")
        return v
    d = s.dtype_of(v)
    if not d.is_int:
        raise s.error(f"libdevice.{fn}'s exponent must be an integer (int32), got {d.name}")
    return v


def _typed(s: CodeGenerator, values: list[SSAValue]) -> list[SSAValue]:
    """Python numbers alone take the policy's dtype for them (float32 for floats)."""
    if all(s.ir.is_weak(v) for v in values):
        return [s.ir.typed(v) for v in values]
    return values


def _call(s: CodeGenerator, name: str, values: list[SSAValue]) -> SSAValue:
    return s.ir.math_function(name, _typed(s, values))


def _unary(name: str, doc: str, function: str | None = None) -> Callable[..., tensor]:
    """The libdevice function `name`, C's `function` (by default the same name)."""

    def unary(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        return s.wrap(_call(s, function or name, [_float(s, arg0, name, "arg0")]))

    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = doc
    return builtin(unary)


def _binary(name: str, doc: str, function: str | None = None) -> Callable[..., tensor]:
    def binary(arg0: Any, arg1: Any, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        a, b = _float(s, arg0, name, "arg0"), _float(s, arg1, name, "arg1")
        return s.wrap(_call(s, function or name, [a, b]))

    binary.__name__ = binary.__qualname__ = name
    binary.__doc__ = doc
    return builtin(binary)


# -- C's functions of one float ----------------------------------------------------------

tan = _unary("tan", "Elementwise tangent.")
sinh = _unary("sinh", "Elementwise hyperbolic sine.")
cosh = _unary("cosh", "Elementwise hyperbolic cosine.")
asin = _unary("asin", "Elementwise arcsine.")
acos = _unary("acos", "Elementwise arccosine.")
atan = _unary("atan", "Elementwise arctangent.")
asinh = _unary("asinh", "Elementwise inverse hyperbolic sine.")
acosh = _unary("acosh", "Elementwise inverse hyperbolic cosine.")
atanh = _unary("atanh", "Elementwise inverse hyperbolic tangent.")
exp10 = _unary("exp10", "Elementwise 10**x.")
expm1 = _unary("expm1", "Elementwise e**x - 1, accurate near 0.")
log10 = _unary("log10", "Elementwise base-10 logarithm.")
log1p = _unary("log1p", "Elementwise log(1 + x), accurate near 0.")
cbrt = _unary("cbrt", "Elementwise cube root.")
erfc = _unary("erfc", "Elementwise complementary error function, 1 - erf(x).")
lgamma = _unary("lgamma", "Elementwise log|gamma(x)|.")
tgamma = _unary("tgamma", "Elementwise gamma function.")
rint = _unary("rint", "Elementwise rounding to the nearest integer, halves to even.")
nearbyint = _unary("nearbyint", "Elementwise rounding to nearest, halves to even.", "rint")
round = _unary("round", "Elementwise rounding to nearest, halves away from zero.")  # noqa: A001
trunc = _unary("trunc", "Elementwise rounding toward zero.")
logb = _unary("logb", "Elementwise exponent of x, as a float: floor(log2|x|).")

# fast_* are the accurate functions: the CPU has no faster approximations to offer.
fast_tanf = _unary("fast_tanf", "Elementwise tangent.", "tan")
fast_exp10f = _unary("fast_exp10f", "Elementwise 10**x.", "exp10")
fast_log10f = _unary("fast_log10f", "Elementwise base-10 logarithm.", "log10")
fast_sinf, fast_cosf, fast_expf, fast_logf, fast_log2f = sin, cos, exp, log, log2
rsqrt_rn = rsqrt

# Special functions (the C library's Bessel functions; blkc's own code for the others,
# `blkc.runtime.special_math`).
j0 = _unary("j0", "Elementwise Bessel function of the first kind of order 0.")
j1 = _unary("j1", "Elementwise Bessel function of the first kind of order 1.")
y0 = _unary("y0", "Elementwise Bessel function of the second kind of order 0.")
y1 = _unary("y1", "Elementwise Bessel function of the second kind of order 1.")
cyl_bessel_i0 = _unary("cyl_bessel_i0", "Elementwise modified Bessel function I0.")
cyl_bessel_i1 = _unary("cyl_bessel_i1", "Elementwise modified Bessel function I1.")
erfinv = _unary("erfinv", "Elementwise inverse error function: erf(erfinv(x)) = x.")
erfcinv = _unary("erfcinv", "Elementwise inverse complementary error function (0 to 2).")
erfcx = _unary("erfcx", "Elementwise scaled complementary error function e**(x*x) erfc(x).")
normcdfinv = _unary(
    "normcdfinv", "Elementwise inverse of the standard normal distribution function."
)
sinpi = _unary("sinpi", "Elementwise sin(pi x), exact at integers and halves.")
cospi = _unary("cospi", "Elementwise cos(pi x), exact at integers and halves.")


def _of_order(name: str, kind: str) -> Callable[..., tensor]:
    def of_order(arg0: Any, arg1: Any, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        x = _float(s, arg1, name, "arg1")
        if s.ir.is_weak(x):
            x = s.ir.typed(x)
        order = _exponent(s, arg0, name)
        return s.wrap(_call(s, name, [s.ir.cast(order, s.dtype_of(x)), x]))

    of_order.__name__ = of_order.__qualname__ = name
    of_order.__doc__ = f"Elementwise Bessel function of the {kind} kind of integer order arg0."
    return builtin(of_order)


jn = _of_order("jn", "first")
yn = _of_order("yn", "second")


@builtin
def tanh(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise hyperbolic tangent."""
    s = _semantic
    return s.wrap(s.ir.unary("tanh", _typed(s, [_float(s, arg0, "tanh", "arg0")])[0]))


fast_tanhf = tanh


# -- C's functions of two floats ---------------------------------------------------------

atan2 = _binary("atan2", "Elementwise arctangent of arg0 / arg1, in the quadrant of (arg1, arg0).")
hypot = _binary("hypot", "Elementwise sqrt(arg0**2 + arg1**2), without overflow.")
fmod = _binary("fmod", "Elementwise remainder of arg0 / arg1 truncated (sign of arg0).")
remainder = _binary("remainder", "Elementwise arg0 - n * arg1, n the nearest integer (even).")
copysign = _binary("copysign", "Elementwise magnitude of arg0 with the sign of arg1.")
nextafter = _binary("nextafter", "Elementwise next float after arg0 toward arg1.")
fdim = _binary("fdim", "Elementwise arg0 - arg1 where positive, else +0.")


@builtin
def pow(arg0: Any, arg1: Any, *, _semantic: CodeGenerator) -> tensor:  # noqa: A001
    """Elementwise arg0 ** arg1; arg1 may be an integer (as Triton's int32 exponent). A
    float32 (or narrower) base to an integer block's power is computed in float64 and
    rounded once: in float32 an odd exponent beyond 2**24 would turn even (and lose the
    sign of a negative base's power)."""
    s = _semantic
    base = _float(s, arg0, "pow", "arg0")
    exponent = s.value(arg1, "arg1")
    if s.ir.is_weak(exponent):
        return s.wrap(_call(s, "pow", [base, exponent]))
    if not s.dtype_of(exponent).is_int:
        return s.wrap(_call(s, "pow", [base, _float(s, arg1, "pow", "arg1")]))
    base = s.ir.typed(base)
    dtype = s.dtype_of(base)
    wide = [s.ir.cast(base, dtypes.float64), s.ir.cast(exponent, dtypes.float64)]
    return s.wrap(s.ir.cast(_call(s, "pow", wide), dtype))


fast_powf = pow


def _ldexp(name: str) -> Callable[..., tensor]:
    def ldexp(arg0: Any, arg1: Any, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        x = _float(s, arg0, name, "arg0")
        if s.ir.is_weak(x):
            x = s.ir.typed(x)
        return s.wrap(_call(s, "ldexp", [x, _exponent(s, arg1, name)]))

    ldexp.__name__ = ldexp.__qualname__ = name
    ldexp.__doc__ = "Elementwise arg0 * 2**arg1 for an integer arg1, rounded once."
    return builtin(ldexp)


ldexp = _ldexp("ldexp")
scalbn = _ldexp("scalbn")


# -- composed of other functions and operators -------------------------------------------


def _reciprocal(s: CodeGenerator, v: SSAValue) -> SSAValue:
    return s.ir.binary("truediv", s.ir.literal(1.0), v)


@builtin
def rcbrt(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise 1 / cbrt(x)."""
    s = _semantic
    return s.wrap(_reciprocal(s, _call(s, "cbrt", [_float(s, arg0, "rcbrt", "arg0")])))


@builtin
def rcp_rn(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise 1 / x, correctly rounded."""
    s = _semantic
    return s.wrap(_reciprocal(s, _typed(s, [_float(s, arg0, "rcp_rn", "arg0")])[0]))


@builtin
def rhypot(arg0: Any, arg1: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise 1 / hypot(arg0, arg1)."""
    s = _semantic
    a, b = _float(s, arg0, "rhypot", "arg0"), _float(s, arg1, "rhypot", "arg1")
    return s.wrap(_reciprocal(s, _call(s, "hypot", [a, b])))


def _norm(s: CodeGenerator, name: str, args: tuple[Any, ...]) -> SSAValue:
    values = [_float(s, a, name, f"arg{i}") for i, a in enumerate(args)]
    total = values[0]
    for v in values[1:]:
        total = _call(s, "hypot", [total, v])
    return total


@builtin
def norm3d(arg0: Any, arg1: Any, arg2: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise length of the vector (arg0, arg1, arg2), without overflow."""
    return _semantic.wrap(_norm(_semantic, "norm3d", (arg0, arg1, arg2)))


@builtin
def rnorm3d(arg0: Any, arg1: Any, arg2: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise 1 / norm3d."""
    s = _semantic
    return s.wrap(_reciprocal(s, _norm(s, "rnorm3d", (arg0, arg1, arg2))))


@builtin
def norm4d(arg0: Any, arg1: Any, arg2: Any, arg3: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise length of the vector (arg0, arg1, arg2, arg3), without overflow."""
    return _semantic.wrap(_norm(_semantic, "norm4d", (arg0, arg1, arg2, arg3)))


@builtin
def rnorm4d(arg0: Any, arg1: Any, arg2: Any, arg3: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise 1 / norm4d."""
    s = _semantic
    return s.wrap(_reciprocal(s, _norm(s, "rnorm4d", (arg0, arg1, arg2, arg3))))


@builtin
def normcdf(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise standard normal distribution function, erfc(-x / sqrt(2)) / 2."""
    s = _semantic
    x = _float(s, arg0, "normcdf", "arg0")
    scaled = s.ir.binary("mul", x, s.ir.literal(-0.7071067811865476))
    return s.wrap(s.ir.binary("mul", _call(s, "erfc", [scaled]), s.ir.literal(0.5)))


@builtin
def saturatef(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise x clamped to [0, 1]; NaN gives 0."""
    s = _semantic
    x = _typed(s, [_float(s, arg0, "saturatef", "arg0")])[0]
    low = s.ir.extremum("maximum", x, s.ir.literal(0.0), "num")
    return s.wrap(s.ir.extremum("minimum", low, s.ir.literal(1.0), "num"))


def _arith(name: str, op: str, doc: str) -> Callable[..., tensor]:
    def arith(arg0: Any, arg1: Any, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        a, b = _float(s, arg0, name, "arg0"), _float(s, arg1, name, "arg1")
        return s.wrap(s.ir.binary(op, *_typed(s, [a, b])))

    arith.__name__ = arith.__qualname__ = name
    arith.__doc__ = doc
    return builtin(arith)


add_rn = _arith("add_rn", "add", "Elementwise arg0 + arg1, rounded to nearest.")
sub_rn = _arith("sub_rn", "sub", "Elementwise arg0 - arg1, rounded to nearest.")
mul_rn = _arith("mul_rn", "mul", "Elementwise arg0 * arg1, rounded to nearest.")
fast_dividef = _arith("fast_dividef", "truediv", "Elementwise arg0 / arg1.")
fma_rn = fma


# -- classification ----------------------------------------------------------------------


def _classify(name: str, doc: str, test: Callable[[CodeGenerator, SSAValue], SSAValue]) -> Any:
    def classify(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        return s.wrap(test(s, _typed(s, [_float(s, arg0, name, "arg0")])[0]))

    classify.__name__ = classify.__qualname__ = name
    classify.__doc__ = doc
    return builtin(classify)


def _is_nan(s: CodeGenerator, x: SSAValue) -> SSAValue:
    return s.ir.compare("ne", x, x)


def _is_inf(s: CodeGenerator, x: SSAValue) -> SSAValue:
    return s.ir.compare("eq", s.ir.unary("abs", x), s.ir.literal(float("inf")))


def _is_finite(s: CodeGenerator, x: SSAValue) -> SSAValue:
    return s.ir.compare("lt", s.ir.unary("abs", x), s.ir.literal(float("inf")))


def _sign_bit(s: CodeGenerator, x: SSAValue) -> SSAValue:
    bits = s.ir.bitcast(x, dtypes.dtype(f"int{s.dtype_of(x).width}"))
    return s.ir.cast(s.ir.compare("lt", bits, s.ir.literal(0)), dtypes.int32)


isnan = _classify("isnan", "Elementwise whether x is NaN (bool).", _is_nan)
isinf = _classify("isinf", "Elementwise whether x is infinite (bool).", _is_inf)
finitef = _classify("finitef", "Elementwise whether x is finite (bool).", _is_finite)
isfinited = _classify("isfinited", "Elementwise whether x is finite (bool).", _is_finite)
signbit = _classify(
    "signbit", "Elementwise 1 where x's sign bit is set, else 0 (int32).", _sign_bit
)


# -- conversions -------------------------------------------------------------------------

_ROUNDINGS: dict[str, str | None] = {"rn": "rint", "rz": None, "rd": "floor", "ru": "ceil"}


def _to_int(name: str, source: dtypes.DType, target: dtypes.DType, mode: str) -> Any:
    def convert(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        x = _typed(s, [_float(s, arg0, name, "arg0")])[0]
        if s.dtype_of(x).width > source.width:
            wide = name.replace("float2", "double2", 1)
            raise s.error(
                f"libdevice.{name} converts {source.name}, got {s.dtype_of(x).name} (which "
                f"it would round to {source.name} first): use libdevice.{wide}"
            )
        x = s.ir.cast(x, source)
        rounding = _ROUNDINGS[mode]
        if rounding == "rint":
            x = s.ir.math_function("rint", [x])
        elif rounding is not None:
            x = s.ir.unary(rounding, x)
        return s.wrap(s.ir.cast(x, target))

    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"{source.name} to {target.name}, rounded {mode} (saturating; NaN gives 0)."
    return builtin(convert)


_INTS = {"int": dtypes.int32, "uint": dtypes.uint32, "ll": dtypes.int64, "ull": dtypes.uint64}
_FLOAT_NAMES = {"float": dtypes.float32, "double": dtypes.float64}

for _source_name, _source in _FLOAT_NAMES.items():
    for _target_name, _target in _INTS.items():
        for _mode in _ROUNDINGS:
            _name = f"{_source_name}2{_target_name}_{_mode}"
            globals()[_name] = _to_int(_name, _source, _target, _mode)


def _convert(name: str, target: dtypes.DType, integer: bool) -> Any:
    def convert(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        v = s.value(arg0, "arg0")
        if not s.ir.is_weak(v) and s.dtype_of(v).is_float == integer:
            kind = "an integer" if integer else "a float"
            raise s.error(f"libdevice.{name} converts {kind}, got {s.dtype_of(v).name}")
        return s.wrap(s.ir.cast(v, target))

    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"Conversion to {target.name}, rounded to nearest even."
    return builtin(convert)


double2float_rn = _convert("double2float_rn", dtypes.float32, integer=False)
for _source_name in _INTS:
    for _target_name, _target in _FLOAT_NAMES.items():
        _name = f"{_source_name}2{_target_name}_rn"
        globals()[_name] = _convert(_name, _target, integer=True)

llrint = _to_int("llrint", dtypes.float64, dtypes.int64, "rn")


@builtin
def llround(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise round (halves away from zero) to int64, saturating; NaN gives 0."""
    s = _semantic
    x = s.ir.cast(_typed(s, [_float(s, arg0, "llround", "arg0")])[0], dtypes.float64)
    return s.wrap(s.ir.cast(s.ir.math_function("round", [x]), dtypes.int64))


@builtin
def ilogb(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise exponent of x as an int32: floor(log2|x|); zero and NaN give the
    smallest int32, infinities the largest."""
    s = _semantic
    x = _typed(s, [_float(s, arg0, "ilogb", "arg0")])[0]
    exponent = s.ir.cast(_call(s, "logb", [x]), dtypes.int32)
    smallest = s.ir.constant(-(2**31), dtypes.int32)
    return s.wrap(s.ir.where(_is_nan(s, x), smallest, exponent))


# -- bits ---------------------------------------------------------------------------------


def _reinterpret(name: str, source: dtypes.DType, target: dtypes.DType) -> Any:
    def reinterpret(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        v = s.value(arg0, "arg0")
        if s.ir.is_weak(v) or s.dtype_of(v) != source:
            raise s.error(f"libdevice.{name} reinterprets a {source.name}, got {v.type}")
        return s.wrap(s.ir.bitcast(v, target))

    reinterpret.__name__ = reinterpret.__qualname__ = name
    reinterpret.__doc__ = f"The bits of a {source.name} as a {target.name}."
    return builtin(reinterpret)


int_as_float = _reinterpret("int_as_float", dtypes.int32, dtypes.float32)
float_as_int = _reinterpret("float_as_int", dtypes.float32, dtypes.int32)
uint_as_float = _reinterpret("uint_as_float", dtypes.uint32, dtypes.float32)
float_as_uint = _reinterpret("float_as_uint", dtypes.float32, dtypes.uint32)
longlong_as_double = _reinterpret("longlong_as_double", dtypes.int64, dtypes.float64)
double_as_longlong = _reinterpret("double_as_longlong", dtypes.float64, dtypes.int64)


def _double_bits(s: CodeGenerator, arg0: Any, name: str) -> SSAValue:
    v = s.value(arg0, "arg0")
    if s.ir.is_weak(v) or s.dtype_of(v) != dtypes.float64:
        raise s.error(f"libdevice.{name} takes a float64, got {v.type}")
    return s.ir.bitcast(v, dtypes.uint64)


@builtin
def double2hiint(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
    """The high 32 bits of a float64, as an int32."""
    s = _semantic
    high = s.ir.binary("shr", _double_bits(s, arg0, "double2hiint"), s.ir.literal(32))
    return s.wrap(s.ir.bitcast(s.ir.cast(high, dtypes.uint32), dtypes.int32))


@builtin
def double2loint(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
    """The low 32 bits of a float64, as an int32."""
    s = _semantic
    low = s.ir.cast(_double_bits(s, arg0, "double2loint"), dtypes.uint32)
    return s.wrap(s.ir.bitcast(low, dtypes.int32))


@builtin
def hiloint2double(arg0: Any, arg1: Any, *, _semantic: CodeGenerator) -> tensor:
    """The float64 whose high 32 bits are the int32 arg0 and low ones the int32 arg1."""
    s = _semantic
    halves = []
    for what, x in (("arg0", arg0), ("arg1", arg1)):
        v = s.ir.cast(s.value(x, what), dtypes.int32)
        halves.append(s.ir.cast(s.ir.bitcast(v, dtypes.uint32), dtypes.uint64))
    high = s.ir.binary("shl", halves[0], s.ir.literal(32))
    return s.wrap(s.ir.bitcast(s.ir.binary("or", high, halves[1]), dtypes.float64))


# -- integers -----------------------------------------------------------------------------


def _int(s: CodeGenerator, x: Any, fn: str, what: str) -> SSAValue:
    """`x` as an operand of the integer function `fn` (a Python int is an int32)."""
    v = s.value(x, what)
    if s.ir.is_weak(v):
        if not isinstance(s.ir.literal_value(v), int):
            raise s.error(f"libdevice.{fn} takes integers, got {v.type} for {what}")
        return s.ir.typed(v, dtypes.int32)
    d = s.dtype_of(v)
    if not d.is_int or d.width not in (32, 64):
        raise s.error(f"libdevice.{fn} takes 32- or 64-bit integers, got {d.name} for {what}")
    return v


class _Bits:
    """Bit arithmetic on the unsigned view of 32- or 64-bit integers."""

    def __init__(self, s: CodeGenerator, width: int):
        self.s, self.width = s, width
        self.dtype = dtypes.uint32 if width == 32 else dtypes.uint64

    def k(self, value: int) -> SSAValue:
        """The constant `value`, its low `width` bits repeated from a 64-bit pattern."""
        return self.s.ir.constant(value & ((1 << self.width) - 1), self.dtype)

    def op(self, name: str, a: SSAValue, b: SSAValue | int) -> SSAValue:
        return self.s.ir.binary(name, a, self.k(b) if isinstance(b, int) else b)

    def popcount(self, v: SSAValue) -> SSAValue:
        """The number of set bits (SWAR: pairs, nibbles, bytes, then a multiply sums them)."""
        v = self.op("sub", v, self.op("and", self.op("shr", v, 1), 0x5555555555555555))
        v = self.op(
            "add", self.op("and", v, 0x3333333333333333),
            self.op("and", self.op("shr", v, 2), 0x3333333333333333),
        )  # fmt: skip
        v = self.op("and", self.op("add", v, self.op("shr", v, 4)), 0x0F0F0F0F0F0F0F0F)
        return self.op("shr", self.op("mul", v, 0x0101010101010101), self.width - 8)

    def smear_right(self, v: SSAValue) -> SSAValue:
        """Every bit below the highest set one set too."""
        shift = 1
        while shift < self.width:
            v = self.op("or", v, self.op("shr", v, shift))
            shift *= 2
        return v


def _unsigned(s: CodeGenerator, v: SSAValue) -> _Bits:
    return _Bits(s, s.dtype_of(v).width)


def _bit_count(name: str, doc: str, count: Callable[[_Bits, SSAValue], SSAValue]) -> Any:
    def bit_count(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        v = _int(s, arg0, name, "arg0")
        bits = _unsigned(s, v)
        return s.wrap(s.ir.cast(count(bits, s.ir.bitcast(v, bits.dtype)), dtypes.int32))

    bit_count.__name__ = bit_count.__qualname__ = name
    bit_count.__doc__ = doc
    return builtin(bit_count)


def _leading_zeros(bits: _Bits, v: SSAValue) -> SSAValue:
    return bits.op("sub", bits.k(bits.width), bits.popcount(bits.smear_right(v)))


def _first_set(bits: _Bits, v: SSAValue) -> SSAValue:
    below = bits.popcount(bits.op("xor", v, bits.op("sub", v, 1)))  # the lowest set bit and below
    zero = bits.s.ir.compare("eq", v, bits.k(0))
    return bits.s.ir.where(zero, bits.k(0), below)


popc = _bit_count("popc", "The number of set bits of an int32 or int64 (int32).", _Bits.popcount)
clz = _bit_count("clz", "The number of leading zero bits (int32; the width for 0).", _leading_zeros)
ffs = _bit_count("ffs", "The position of the lowest set bit, from 1 (int32; 0 for 0).", _first_set)


@builtin
def brev(arg0: Any, *, _semantic: CodeGenerator) -> tensor:
    """The bits of an int32 or int64 in reverse order."""
    s = _semantic
    v = _int(s, arg0, "brev", "arg0")
    bits = _unsigned(s, v)
    u = s.ir.bitcast(v, bits.dtype)
    masks = [0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF,
             0x0000FFFF0000FFFF, 0x00000000FFFFFFFF]  # fmt: skip
    shift = 1
    for mask in masks:
        if shift >= bits.width:
            break
        low = bits.op("shl", bits.op("and", u, mask), shift)
        u = bits.op("or", bits.op("and", bits.op("shr", u, shift), mask), low)
        shift *= 2
    return s.wrap(s.ir.bitcast(u, s.dtype_of(v)))


def _pair(s: CodeGenerator, arg0: Any, arg1: Any, fn: str) -> tuple[SSAValue, SSAValue]:
    """Two integer operands converted to their common dtype (as `+` would)."""
    a, b = _int(s, arg0, fn, "arg0"), _int(s, arg1, fn, "arg1")
    common = s.dtype_of(s.ir.binary("add", a, b))
    return s.ir.cast(a, common), s.ir.cast(b, common)


@builtin
def mulhi(arg0: Any, arg1: Any, *, _semantic: CodeGenerator) -> tensor:
    """The high half of the product of two 32- or 64-bit integers, signed or unsigned by
    their dtype (unlike `tl.umulhi`, which multiplies the bits as unsigned)."""
    s, ir = _semantic, _semantic.ir
    a, b = _pair(s, arg0, arg1, "mulhi")
    d = s.dtype_of(a)
    high = ir.umulhi(a, b)
    if not d.signed:
        return s.wrap(high)
    zero = ir.constant(0, d)
    # The unsigned product of the bits exceeds the signed one by 2**N times the other
    # operand for each negative operand.
    high = ir.binary("sub", high, ir.where(ir.compare("lt", a, zero), b, zero))
    return s.wrap(ir.binary("sub", high, ir.where(ir.compare("lt", b, zero), a, zero)))


@builtin
def mul24(arg0: Any, arg1: Any, *, _semantic: CodeGenerator) -> tensor:
    """The low 32 bits of the product of the low 24 bits of two int32s (sign-extended) or
    uint32s."""
    s, ir = _semantic, _semantic.ir
    a, b = _pair(s, arg0, arg1, "mul24")
    d = s.dtype_of(a)
    eight = ir.constant(8, d)
    a, b = (ir.binary("shr", ir.binary("shl", v, eight), eight) for v in (a, b))
    return s.wrap(ir.binary("mul", a, b))


def _halving(name: str, rounding_up: bool) -> Any:
    def halving(arg0: Any, arg1: Any, *, _semantic: CodeGenerator) -> tensor:
        s, ir = _semantic, _semantic.ir
        a, b = _pair(s, arg0, arg1, name)
        one = ir.constant(1, s.dtype_of(a))
        half_difference = ir.binary("shr", ir.binary("xor", a, b), one)
        if rounding_up:  # (a | b) - ((a ^ b) >> 1)
            return s.wrap(ir.binary("sub", ir.binary("or", a, b), half_difference))
        return s.wrap(ir.binary("add", ir.binary("and", a, b), half_difference))

    halving.__name__ = halving.__qualname__ = name
    halving.__doc__ = f"(arg0 + arg1{' + 1' if rounding_up else ''}) >> 1 without overflow."
    return builtin(halving)


hadd = _halving("hadd", rounding_up=False)
rhadd = _halving("rhadd", rounding_up=True)


@builtin
def sad(arg0: Any, arg1: Any, arg2: Any, *, _semantic: CodeGenerator) -> tensor:
    """|arg0 - arg1| + arg2 (wrapping), in arg0's and arg1's dtype."""
    s, ir = _semantic, _semantic.ir
    a, b = _pair(s, arg0, arg1, "sad")
    z = ir.cast(_int(s, arg2, "sad", "arg2"), s.dtype_of(a))
    difference = ir.where(ir.compare("lt", a, b), ir.binary("sub", b, a), ir.binary("sub", a, b))
    return s.wrap(ir.binary("add", difference, z))


@builtin
def byte_perm(arg0: Any, arg1: Any, arg2: Any, *, _semantic: CodeGenerator) -> tensor:
    """Byte i of the int32 result is byte (arg2 >> 4i) & 7 of the 8 bytes arg1:arg0."""
    s, ir = _semantic, _semantic.ir
    halves = [
        ir.cast(ir.bitcast(ir.cast(_int(s, x, "byte_perm", w), dtypes.int32), dtypes.uint32),
                dtypes.uint64)
        for x, w in ((arg0, "arg0"), (arg1, "arg1"))
    ]  # fmt: skip
    wide = _Bits(s, 64)
    source = wide.op("or", wide.op("shl", halves[1], 32), halves[0])
    selector = ir.cast(ir.bitcast(ir.cast(_int(s, arg2, "byte_perm", "arg2"), dtypes.int32),
                                  dtypes.uint32), dtypes.uint64)  # fmt: skip
    result = wide.k(0)
    for i in range(4):
        index = wide.op("and", wide.op("shr", selector, 4 * i), 7)
        byte = wide.op("and", wide.op("shr", source, wide.op("mul", index, 8)), 0xFF)
        result = wide.op("or", result, wide.op("shl", byte, 8 * i))
    return s.wrap(ir.bitcast(ir.cast(result, dtypes.uint32), dtypes.int32))


# -- left out ------------------------------------------------------------------------------


def _left_out(name: str, why: str) -> Any:
    def missing(*args: Any, _semantic: CodeGenerator) -> tensor:
        raise _semantic.error(f"libdevice.{name} is not supported: {why}")

    missing.__name__ = missing.__qualname__ = name
    missing.__doc__ = f"Not supported: {why}."
    return builtin(missing)


_DIRECTED = "blkc rounds to nearest even only (docs/math.md); use the _rn version"
for _base in ("add", "sub", "mul", "div", "fma", "rcp", "sqrt"):
    for _mode in ("rz", "rd", "ru"):
        _name = f"{_base}_{_mode}"
        globals()[_name] = _left_out(_name, _DIRECTED)
for _name in (
    "double2float_rz", "double2float_rd", "double2float_ru",
    *(f"{i}2{f}_{m}" for i in _INTS for f in _FLOAT_NAMES for m in ("rz", "rd", "ru")),
):  # fmt: skip
    globals()[_name] = _left_out(_name, _DIRECTED)
for _name in ("rcp64h",):
    globals()[_name] = _left_out(_name, "left out (docs/math.md)")
