"""Each `tl` feature of the Python frontend: compiled, run, and compared with NumPy."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy
import pytest

import blkc
import blkc.language as tl

rng = numpy.random.default_rng(0)


def floats(*shape: int) -> numpy.ndarray:
    return rng.standard_normal(shape).astype(numpy.float32)


# -- arithmetic and comparisons -----------------------------------------------------------


@blkc.jit
def binary_ops(x_ptr, y_ptr, out_ptr, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    if OP == "+":
        r = x + y
    elif OP == "-":
        r = x - y
    elif OP == "*":
        r = x * y
    elif OP == "/":
        r = x / y
    elif OP == "//":
        r = x // y
    elif OP == "%":
        r = x % y
    elif OP == "&":
        r = x & y
    elif OP == "|":
        r = x | y
    elif OP == "^":
        r = x ^ y
    elif OP == "<<":
        r = x << y
    elif OP == ">>":
        r = x >> y
    elif OP == "max":
        r = tl.maximum(x, y)
    else:
        r = tl.minimum(x, y)
    tl.store(out_ptr + offs, r)


INT_REFERENCE = {
    "+": numpy.add,
    "-": numpy.subtract,
    "*": numpy.multiply,
    "//": lambda a, b: numpy.trunc(a / b).astype(a.dtype),  # Triton truncates on tensors
    "%": numpy.fmod,
    "&": numpy.bitwise_and,
    "|": numpy.bitwise_or,
    "^": numpy.bitwise_xor,
    "<<": numpy.left_shift,
    ">>": numpy.right_shift,
    "max": numpy.maximum,
    "min": numpy.minimum,
}


@pytest.mark.parametrize("op", list(INT_REFERENCE))
def test_integer_operators_have_tritons_meaning(op: str) -> None:
    x = rng.integers(-1000, 1000, 64).astype(numpy.int32)
    y = rng.integers(1, 20, 64).astype(numpy.int32) * rng.choice([-1, 1], 64).astype(numpy.int32)
    if op in ("<<", ">>"):
        y = numpy.abs(y) % 8
    out = numpy.zeros(64, numpy.int32)
    binary_ops[(1,)](x, y, out, OP=op, BLOCK=64)
    numpy.testing.assert_array_equal(out, INT_REFERENCE[op](x, y))


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "max", "min"])
def test_float_operators(op: str) -> None:
    x, y = floats(128), floats(128) + 3
    out = numpy.zeros(128, numpy.float32)
    binary_ops[(1,)](x, y, out, OP=op, BLOCK=128)
    reference = {"+": x + y, "-": x - y, "*": x * y, "/": x / y}
    reference |= {"max": numpy.maximum(x, y), "min": numpy.minimum(x, y)}
    numpy.testing.assert_allclose(out, reference[op], rtol=1e-6)


@blkc.jit
def int_true_division(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    q = tl.load(x_ptr + offs) / tl.load(y_ptr + offs)
    tl.static_assert(q.dtype == tl.float32, "int / int gives float32 under triton")
    tl.store(out_ptr + offs, q)


def test_int_true_division_gives_float() -> None:
    x = numpy.arange(-8, 8, dtype=numpy.int32)
    y = numpy.full(16, 3, numpy.int32)
    out = numpy.zeros(16, numpy.float32)
    int_true_division[(1,)](x, y, out, BLOCK=16)
    numpy.testing.assert_allclose(out, x / 3, rtol=1e-6)


@blkc.jit
def comparisons(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    inside = (x > -1) & (x <= 1) | (x == 5)
    tl.store(out_ptr + offs, tl.where(inside, 1, 0) + tl.where(not_zero(x), 10, 0))


@blkc.jit
def not_zero(x):
    return x != 0


def test_comparisons_and_where() -> None:
    x = numpy.array([-2, -1, 0, 1, 2, 5, 7, 0], numpy.int32)
    out = numpy.zeros(8, numpy.int32)
    comparisons[(1,)](x, out, BLOCK=8)
    expected = numpy.where(((x > -1) & (x <= 1)) | (x == 5), 1, 0) + numpy.where(x != 0, 10, 0)
    numpy.testing.assert_array_equal(out, expected)


@blkc.jit
def unary_ops(x_ptr, out_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if FN == "neg":
        r = -x
    elif FN == "sigmoid":
        r = tl.sigmoid(x)
    elif FN == "abs":
        r = tl.abs(x)
    elif FN == "fma":
        r = tl.fma(x, x, 1.0)
    elif FN == "clamp":
        r = tl.clamp(x, -0.5, 0.5)
    elif FN == "method":
        r = x.exp()
    else:
        r = getattr(tl, FN)(x)
    tl.store(out_ptr + offs, r)


UNARY_REFERENCE = {
    "exp": numpy.exp,
    "exp2": numpy.exp2,
    "log": lambda x: numpy.log(numpy.abs(x) + 0.5),
    "log2": lambda x: numpy.log2(numpy.abs(x) + 0.5),
    "sqrt": lambda x: numpy.sqrt(numpy.abs(x)),
    "rsqrt": lambda x: 1 / numpy.sqrt(numpy.abs(x) + 0.5),
    "sin": numpy.sin,
    "cos": numpy.cos,
    "floor": numpy.floor,
    "ceil": numpy.ceil,
    "neg": numpy.negative,
    "abs": numpy.abs,
    "sigmoid": lambda x: 1 / (1 + numpy.exp(-x)),
    "fma": lambda x: x * x + 1,
    "clamp": lambda x: numpy.clip(x, -0.5, 0.5),
    "method": numpy.exp,
}
_NEEDS_POSITIVE = {"log": 0.5, "log2": 0.5, "sqrt": 0.0, "rsqrt": 0.5}


@pytest.mark.parametrize("fn", list(UNARY_REFERENCE))
def test_math_functions(fn: str) -> None:
    x = floats(256) * 3
    if fn in _NEEDS_POSITIVE:
        x = numpy.abs(x) + numpy.float32(_NEEDS_POSITIVE[fn])
    expected = UNARY_REFERENCE[fn](
        x - numpy.float32(_NEEDS_POSITIVE.get(fn, 0)) if fn in ("log", "log2", "rsqrt") else x
    )
    out = numpy.zeros(256, numpy.float32)
    unary_ops[(1,)](x, out, FN=fn, BLOCK=256)
    numpy.testing.assert_allclose(out, expected, rtol=2e-6, atol=1e-6)


# -- blocks: shapes, reductions, scans, dot --------------------------------------------------


@blkc.jit
def row_reductions(
    x_ptr,
    out_ptr,
    idx_ptr,
    KIND: tl.constexpr,
    AXIS: tl.constexpr,
    M: tl.constexpr,
    N: tl.constexpr,
):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    if KIND == "sum":
        r = tl.sum(x, axis=AXIS)
    elif KIND == "max":
        r, i = tl.max(x, axis=AXIS, return_indices=True)
        tl.store(idx_ptr + tl.arange(0, r.shape[0]), i)
    elif KIND == "min":
        r = x.min(axis=AXIS)
    elif KIND == "argmin":
        r = tl.argmin(x, axis=AXIS)
    else:
        r = tl.cumsum(x, axis=AXIS)
    if len(r.shape) == 1:
        tl.store(out_ptr + tl.arange(0, r.shape[0]), r)
    else:
        tl.store(out_ptr + rows[:, None] * N + cols[None, :], r)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("kind", ["sum", "max", "min", "argmin", "cumsum"])
def test_reductions_and_scans(kind: str, axis: int) -> None:
    x = floats(8, 16)
    shape = x.shape if kind == "cumsum" else (x.shape[1 - axis],)
    out = numpy.zeros(shape, numpy.int32 if kind == "argmin" else numpy.float32)
    idx = numpy.zeros(x.shape[1 - axis], numpy.int32)
    row_reductions[(1,)](x, out, idx, KIND=kind, AXIS=axis, M=8, N=16)
    reference = {
        "sum": x.sum(axis), "max": x.max(axis), "min": x.min(axis),
        "argmin": x.argmin(axis), "cumsum": numpy.cumsum(x, axis),
    }  # fmt: skip
    numpy.testing.assert_allclose(out, reference[kind], rtol=1e-5, atol=1e-5)
    if kind == "max":
        numpy.testing.assert_array_equal(idx, x.argmax(axis))


@blkc.jit
def whole_block_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    total = tl.sum(x)  # all axes
    keep = tl.sum(tl.reshape(x, (4, BLOCK // 4)), axis=1, keep_dims=True)
    tl.static_assert(keep.shape == (4, 1))
    tl.store(out_ptr, total + tl.sum(keep) * 0)
    tl.store(out_ptr + 1 + tl.arange(0, 4), tl.reshape(keep, [4]))


def test_sum_of_all_axes_and_keep_dims() -> None:
    x = floats(64)
    out = numpy.zeros(5, numpy.float32)
    whole_block_sum[(1,)](x, out, BLOCK=64)
    numpy.testing.assert_allclose(out[0], x.sum(), rtol=1e-5)
    numpy.testing.assert_allclose(out[1:], x.reshape(4, 16).sum(1), rtol=1e-5)


@blkc.jit
def accumulated_in(x_ptr, out_ptr, DTYPE: tl.constexpr, KIND: tl.constexpr, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    if KIND == "sum":
        r = tl.sum(x, 0, dtype=DTYPE)
        tl.static_assert(r.dtype == DTYPE)
        tl.store(out_ptr, r)
    elif KIND == "cumsum":
        r = tl.cumsum(x, 0, dtype=DTYPE)
        tl.static_assert(r.dtype == DTYPE)
        tl.store(out_ptr + o, r)
    elif KIND == "rcumsum":
        tl.store(out_ptr + o, tl.cumsum(x, 0, reverse=True, dtype=DTYPE))
    else:
        tl.store(out_ptr + o, tl.cumprod(x, 0, dtype=DTYPE))


@pytest.mark.parametrize(
    ("source", "dtype", "kind"),
    [
        (numpy.int8, numpy.int8, "sum"),
        (numpy.int32, numpy.int8, "sum"),
        (numpy.uint8, numpy.uint16, "sum"),
        (numpy.int8, numpy.int8, "cumsum"),
        (numpy.int8, numpy.int16, "rcumsum"),
        (numpy.int32, numpy.int64, "cumsum"),
        (numpy.int16, numpy.int16, "cumprod"),
    ],
)
def test_a_sum_or_scan_given_a_dtype_accumulates_in_it(
    source: type, dtype: type, kind: str
) -> None:
    """`dtype=` converts the input and accumulates in that dtype, as Triton's `sum`,
    `cumsum` and `cumprod` do (an int8 sum wraps in int8, where the default accumulates in
    int32); numpy's `dtype=` means the same."""
    rng = numpy.random.default_rng(0)
    x = rng.integers(-100 if numpy.dtype(source).kind == "i" else 0, 120, 32).astype(source)
    if source == numpy.int32:
        x = x * 50_000_000  # int32 overflows where int64 does not
    out = numpy.zeros(1 if kind == "sum" else 32, dtype)
    accumulated_in[(1,)](x, out, tl.dtype(numpy.dtype(dtype).name), kind, 32)
    wide = x.astype(dtype)
    with numpy.errstate(over="ignore"):
        expected = {
            "sum": lambda: numpy.array([wide.sum(dtype=dtype)]),
            "cumsum": lambda: numpy.cumsum(wide, dtype=dtype),
            "rcumsum": lambda: numpy.cumsum(wide[::-1], dtype=dtype)[::-1],
            "cumprod": lambda: numpy.cumprod(wide, dtype=dtype),
        }[kind]()
    numpy.testing.assert_array_equal(out, expected)


@blkc.jit
def shapes(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    t = tl.trans(x)
    tl.static_assert(t.shape == (N, M))
    u = x.T + tl.broadcast_to(tl.expand_dims(tl.arange(0, M), 0), (N, M)).to(tl.float32)
    v = tl.view(u, (N * M,))
    tl.store(out_ptr + tl.arange(0, N * M), v)


def test_transpose_broadcast_reshape() -> None:
    x = floats(4, 8)
    out = numpy.zeros(32, numpy.float32)
    shapes[(1,)](x, out, M=4, N=8)
    expected = x.T + numpy.arange(4, dtype=numpy.float32)[None, :]
    numpy.testing.assert_allclose(out, expected.reshape(-1), rtol=1e-6)


@blkc.jit
def transposes(x_ptr, out_ptr, FORM: tl.constexpr):
    i = tl.arange(0, 4)
    x = tl.load(x_ptr + i[:, None, None] * 16 + i[None, :, None] * 4 + i[None, None, :])
    if FORM == "trans":
        y = tl.trans(x)
    elif FORM == "method":
        y = x.trans()
    elif FORM == "reversed":
        y = tl.trans(x, 2, 1, 0)
    else:
        y = tl.permute(x, (1, 0, 2))
    tl.store(out_ptr + i[:, None, None] * 16 + i[None, :, None] * 4 + i[None, None, :], y)


@pytest.mark.parametrize(
    ("form", "axes"),
    [("trans", (0, 2, 1)), ("method", (0, 2, 1)), ("reversed", (2, 1, 0)), ("permute", (1, 0, 2))],
)
def test_trans_without_dimensions_swaps_the_last_two(form: str, axes: tuple[int, ...]) -> None:
    """As Triton's: a batched transpose (it reversed every dimension, which on a cube
    stored other values in the same shape)."""
    x = numpy.arange(64, dtype=numpy.int32).reshape(4, 4, 4)
    out = numpy.zeros_like(x)
    transposes[(1,)](x, out, FORM=form)
    numpy.testing.assert_array_equal(out, x.transpose(axes))


@blkc.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    c = tl.dot(a, b)
    c = tl.dot(a, b, c)  # accumulate once more: 2 * a @ b
    tl.store(c_ptr + m[:, None] * N + n[None, :], c)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float16])
def test_dot_accumulates_in_float32(dtype: type) -> None:
    a, b = floats(16, 32).astype(dtype), floats(32, 8).astype(dtype)
    c = numpy.zeros((16, 8), numpy.float32)
    dot_kernel[(1,)](a, b, c, M=16, N=8, K=32)
    expected = 2 * (a.astype(numpy.float32) @ b.astype(numpy.float32))
    numpy.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)


@blkc.jit
def fills(out_ptr, value, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.full([BLOCK], 3, tl.int16)
    b = tl.zeros([BLOCK], dtype=tl.float32)
    c = tl.zeros_like(b) + value
    tl.store(out_ptr + offs, a.to(tl.float32) + b + c)


def test_full_zeros_zeros_like() -> None:
    out = numpy.zeros(16, numpy.float32)
    fills[(1,)](out, 2.5, BLOCK=16)
    numpy.testing.assert_array_equal(out, numpy.full(16, 5.5, numpy.float32))


@blkc.jit
def casts(x_ptr, bits_ptr, half_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(bits_ptr + offs, x.to(tl.int32, bitcast=True))
    tl.store(half_ptr + offs, tl.cast(x, tl.float16))


def test_casts_and_bitcasts() -> None:
    x = floats(32)
    bits = numpy.zeros(32, numpy.int32)
    half = numpy.zeros(32, numpy.float16)
    casts[(1,)](x, bits, half, BLOCK=32)
    numpy.testing.assert_array_equal(bits, x.view(numpy.int32))
    numpy.testing.assert_array_equal(half, x.astype(numpy.float16))


@blkc.jit
def rounded(x_ptr, out_ptr, DTYPE: tl.constexpr, ROUNDING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x.to(DTYPE, fp_downcast_rounding=ROUNDING))


def _toward_zero(x: numpy.ndarray, dtype: numpy.dtype) -> numpy.ndarray:
    """Each float32 of `x` as the value of `dtype` of largest magnitude not above its own,
    of its sign (past the range the largest finite one; infinities stay where `dtype` has
    them): found among every value of `dtype`."""
    bits = numpy.arange(1 << (8 * dtype.itemsize), dtype=f"uint{8 * dtype.itemsize}")
    every = bits.view(dtype).astype(numpy.float64)
    every = numpy.unique(every[numpy.isfinite(every) & (every >= 0)])
    index = numpy.searchsorted(every, numpy.abs(x.astype(numpy.float64)), side="right") - 1
    out = numpy.copysign(every[index], x)
    if numpy.isinf(numpy.float32(numpy.inf).astype(dtype)):
        out[numpy.isinf(x)] = x[numpy.isinf(x)]
    out[numpy.isnan(x)] = numpy.nan
    return out.astype(dtype)


def _edge_floats(rng: numpy.random.Generator, n: int) -> numpy.ndarray:
    x = rng.standard_normal(n) * numpy.exp2(rng.integers(-30, 30, n))
    edges = [0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, 65504.0, 65519.0, 65520.0, 1e6]
    edges += [-65520.0, 6e-8, 2.9e-8, -6.1e-5, 1 + 2**-11, -(1 + 2**-10 + 2**-12)]
    return numpy.concatenate([edges, x[len(edges) :]]).astype(numpy.float32)


def test_fp_downcast_rounding_toward_zero() -> None:
    """``fp_downcast_rounding="rtz"`` rounds toward zero (it was ignored: to nearest),
    checked against oracles that share nothing with the conversion: every float16 and fp8
    value searched (float8_e4m3fn, which has no infinities, saturates to 448), and float32
    / bfloat16 as the wider value with its lower bits cleared."""

    rng = numpy.random.default_rng(7)
    x = _edge_floats(rng, 4096)
    half = numpy.zeros_like(x, numpy.float16)
    rounded[(1,)](x, half, tl.float16, "rtz", BLOCK=4096)
    numpy.testing.assert_array_equal(half, _toward_zero(x, numpy.dtype(numpy.float16)))
    nearest = numpy.zeros_like(half)
    rounded[(1,)](x, nearest, tl.float16, "rtne", BLOCK=4096)
    with numpy.errstate(over="ignore"):
        numpy.testing.assert_array_equal(nearest, x.astype(numpy.float16))
    assert (half != nearest).sum() > 1000  # the two modes differ where they should

    for name, fp8 in (("float8e5", ml_dtypes.float8_e5m2), ("float8e4nv", ml_dtypes.float8_e4m3fn)):
        small = numpy.zeros_like(x, fp8)
        rounded[(1,)](x, small, getattr(tl, name), "rtz", BLOCK=4096)
        expected = _toward_zero(x, numpy.dtype(fp8)).astype(numpy.float32)
        numpy.testing.assert_array_equal(small.astype(numpy.float32), expected)

    finite = x[numpy.isfinite(x)][:2048]
    bf = numpy.zeros(2048, ml_dtypes.bfloat16)
    rounded[(1,)](finite, bf, tl.bfloat16, "rtz", BLOCK=2048)
    cleared = (finite.view(numpy.uint32) & numpy.uint32(0xFFFF0000)).view(numpy.float32)
    numpy.testing.assert_array_equal(bf.astype(numpy.float32), cleared)

    wide = rng.standard_normal(2048) * numpy.exp2(rng.integers(-100, 100, 2048))
    single = numpy.zeros(2048, numpy.float32)
    rounded[(1,)](wide, single, tl.float32, "rtz", BLOCK=2048)
    mask = numpy.uint64(~((1 << 29) - 1) & (2**64 - 1))
    expected = (wide.view(numpy.uint64) & mask).view(numpy.float64).astype(numpy.float32)
    numpy.testing.assert_array_equal(single, expected)


@pytest.mark.parametrize(
    ("source", "dtype", "rounding", "message"),
    [
        (numpy.float32, tl.float16, "rtn", "'rtn' is not a rounding mode"),
        (numpy.float16, tl.float32, "rtz", "float16 to float32"),
        (numpy.float32, tl.int32, "rtne", "float32 to int32"),
    ],
)
def test_fp_downcast_rounding_where_triton_refuses_it(
    source: type, dtype: object, rounding: str, message: str
) -> None:
    x = numpy.zeros(16, source)
    with pytest.raises(blkc.BlkcError, match=message):
        rounded[(1,)](x, numpy.zeros(16, numpy.float64), dtype, rounding, BLOCK=16)


@blkc.jit
def histogram(x_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + x, 1, mask=mask)
    tl.atomic_max(bins_ptr + 8 + 0 * x, x, mask=mask)  # a block of pointers to one element


def test_atomics_from_many_programs() -> None:
    x = rng.integers(0, 8, 10_000).astype(numpy.int32)
    bins = numpy.zeros(9, numpy.int32)
    histogram[(blkc.cdiv(10_000, 256),)](x, bins, 10_000, BLOCK=256)
    numpy.testing.assert_array_equal(bins[:8], numpy.bincount(x, minlength=8))
    assert bins[8] == x.max()


@blkc.jit
def bf16_atomic_add(out_ptr, old_ptr, src_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(src_ptr + offs, mask=mask, other=0)
    old = tl.atomic_add(out_ptr + (offs % 4), v, mask=mask)
    tl.store(old_ptr + offs, old, mask=mask)


@blkc.jit
def bf16_atomic_total(src_ptr, total_ptr, BLOCK: tl.constexpr):
    # The only atomic, at the top level, on one address: a thread combines its programs'.
    v = tl.load(src_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    tl.atomic_add(total_ptr, tl.sum(v.to(tl.float32), axis=0).to(tl.bfloat16))


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
def test_a_bfloat16_atomic_add_adds_floats(target: str) -> None:
    """bfloat16 is kept as 16-bit integers: its atomic add is a float add (in float32,
    rounded once), not an add of the bit patterns, also where a thread's programs combine
    their atomics into one."""
    bf16 = ml_dtypes.bfloat16
    src = numpy.array([0.25, 1.5, -0.5, 2.0] * 8, bf16)
    out = numpy.array([1.0, -2.0, 0.5, 100.0], bf16)
    old = numpy.zeros(32, bf16)
    total = numpy.zeros(1, bf16)
    bf16_atomic_add[(8,)](out, old, src, 32, BLOCK=4, target=target)
    numpy.testing.assert_array_equal(out.astype(numpy.float32), [3.0, 10.0, -3.5, 116.0])
    bf16_atomic_total[(8,)](src, total, BLOCK=4, target=target)
    assert total[0] == 26.0
    # Each old value is what the element held before one of the eight adds to it.
    for lane in range(4):
        seen = numpy.sort(old[lane::4].astype(numpy.float32))
        start = [1.0, -2.0, 0.5, 100.0][lane]
        step = float(src[lane])
        expected = numpy.sort([start + i * step for i in range(8)])
        numpy.testing.assert_array_equal(seen, expected)


@blkc.jit
def bf16_atomic_extrema(out_ptr, old_ptr, src_ptr, KIND: tl.constexpr):
    o = tl.arange(0, 4)
    v = tl.load(src_ptr + o)
    if KIND == "max":
        old = tl.atomic_max(out_ptr + o, v)
    elif KIND == "min":
        old = tl.atomic_min(out_ptr + o, v)
    else:
        old = tl.atomic_xchg(out_ptr + o, v)
    tl.store(old_ptr + o, old)


@pytest.mark.parametrize("kind", ["max", "min", "xchg"])
def test_bfloat16_atomic_extrema_compare_floats(kind: str) -> None:
    """Under blkc's own policies (Triton refuses them): a bfloat16 atomic max or min
    compares the floats, not their bit patterns as integers (-1 > -2); an exchange swaps
    the bits."""
    bf16 = ml_dtypes.bfloat16
    start = numpy.array([-1.0, -2.0, 3.0, -0.5], numpy.float32)
    src = numpy.array([-2.0, -1.0, -4.0, 2.0], numpy.float32)
    out, old = start.astype(bf16), numpy.zeros(4, bf16)
    bf16_atomic_extrema[(1,)](out, old, src.astype(bf16), KIND=kind)
    expected = {"max": numpy.maximum, "min": numpy.minimum}.get(kind, lambda a, b: b)(start, src)
    numpy.testing.assert_array_equal(out.astype(numpy.float32), expected)
    numpy.testing.assert_array_equal(old.astype(numpy.float32), start)


@blkc.jit
def fused_softmax(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=offs < n, other=-float("inf"))
    tl.store(y_ptr + tl.program_id(0) * n + offs, tl.softmax(x), mask=offs < n)


def test_softmax_builtin() -> None:
    x = floats(3, 100)
    y = numpy.zeros_like(x)
    fused_softmax[(3,)](x, y, 100, BLOCK=128)
    e = numpy.exp(x - x.max(1, keepdims=True))
    numpy.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)


@blkc.jit
def hints_and_grid(out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    offs = tl.multiple_of(pid * BLOCK, BLOCK) + tl.max_contiguous(tl.arange(0, BLOCK), BLOCK)
    tl.debug_barrier()
    tl.store(out_ptr + offs, offs + tl.cdiv(7, 2) + tl.cdiv(pid, 2) * 0)


def test_hints_pass_through_and_2d_grid() -> None:
    out = numpy.zeros(6 * 8, numpy.int32)
    hints_and_grid[(2, 3)](out, BLOCK=8)
    numpy.testing.assert_array_equal(out, numpy.arange(48) + 4)


@blkc.jit
def mixed(i_ptr, h_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    r = tl.load(i_ptr + offs) + tl.load(h_ptr + offs)
    tl.static_print("mixed result dtype:", r.dtype)
    tl.store(out_ptr + offs, r)


@pytest.mark.parametrize(("policy", "dtype"), [("triton", "fp16"), ("numpy", "fp64")])
def test_policy_chooses_promotion(
    policy: str, dtype: str, capsys: pytest.CaptureFixture[str]
) -> None:
    i = numpy.arange(16, dtype=numpy.int32) * 1000
    h = numpy.full(16, 0.5, numpy.float16)
    out = numpy.zeros(16, numpy.float64)
    mixed[(1,)](i, h, out, BLOCK=16, policy=policy)
    assert f"mixed result dtype: {dtype}" in capsys.readouterr().out
    expected = (i + h) if policy == "numpy" else (i.astype(numpy.float16) + h)
    numpy.testing.assert_array_equal(out, expected.astype(numpy.float64))


@blkc.jit
def device_printing(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("x = ", x)


def test_device_print(capfd: pytest.CaptureFixture[str]) -> None:
    device_printing[(1,)](numpy.array([1, 2, 3, 4], numpy.int32), BLOCK=4)
    printed = capfd.readouterr().out.splitlines()
    assert printed == [f"pid (0, 0, 0) idx ({i}) x =: {i + 1}" for i in range(4)]


@blkc.jit
def device_assertion(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_assert(x >= 0, "negative input")


def test_device_assert_raises_after_the_launch() -> None:
    device_assertion[(1,)](numpy.arange(4, dtype=numpy.int32), BLOCK=4)
    with pytest.raises(AssertionError, match="negative input"):
        device_assertion[(1,)](numpy.array([1, -1, 2, 3], numpy.int32), BLOCK=4)


@blkc.jit
def small_floats(x_ptr, e4_ptr, e5_ptr, bf_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(e4_ptr + offs, x.to(tl.float8e4nv))
    tl.store(e5_ptr + offs, x.to(tl.float8e5))
    tl.store(bf_ptr + offs, x.to(tl.bfloat16) * 2)


def test_small_float_dtypes() -> None:

    x = floats(32) * 4
    e4 = numpy.zeros(32, ml_dtypes.float8_e4m3fn)
    e5 = numpy.zeros(32, ml_dtypes.float8_e5m2)
    bf = numpy.zeros(32, ml_dtypes.bfloat16)
    small_floats[(1,)](x, e4, e5, bf, BLOCK=32)
    numpy.testing.assert_array_equal(e4, x.astype(ml_dtypes.float8_e4m3fn))
    numpy.testing.assert_array_equal(e5, x.astype(ml_dtypes.float8_e5m2))
    numpy.testing.assert_array_equal(bf, x.astype(ml_dtypes.bfloat16) * 2)


@blkc.jit
def expanded_shapes(x_ptr, AXES: tl.constexpr, SHAPE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    y = tl.expand_dims(x, AXES)
    tl.static_assert(y.shape == SHAPE, "expand_dims's shape")
    tl.store(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :], tl.reshape(y, [4, 8]))


@pytest.mark.parametrize(
    ("axes", "shape"),
    [
        (-1, (4, 8, 1)),  # axes of the result: -1 is its last
        (-3, (1, 4, 8)),
        ((0, -1), (1, 4, 8, 1)),
        ((-2, 0), (1, 4, 1, 8)),
        ((1, 2), (4, 1, 1, 8)),
    ],
)
def test_expand_dims_takes_negative_axes_of_the_result(axes: object, shape: tuple) -> None:
    x = floats(32)
    expanded_shapes[(1,)](x.copy(), AXES=axes, SHAPE=shape)


@blkc.jit
def small_float_sums(x_ptr, out_ptr, N: tl.constexpr, ROWS: tl.constexpr):
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + cols)
    tl.store(out_ptr, tl.sum(x, axis=0).to(tl.float32))
    tl.store(out_ptr + 1, tl.sum(x * x).to(tl.float32))
    tl.store(out_ptr + 2 + cols, tl.cumsum(x, axis=0).to(tl.float32))
    rows = tl.arange(0, ROWS)[:, None]
    grid = tl.load(x_ptr + rows * (N // ROWS) + tl.arange(0, N // ROWS)[None, :])
    tl.store(out_ptr + 2 + N + rows, tl.sum(grid, axis=1, keep_dims=True).to(tl.float32))


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float8_e5m2"])
def test_sums_of_narrow_floats_do_not_stall(target: str, dtype: str) -> None:
    """A float16, bfloat16 or fp8 sum (or cumsum) accumulates in float32 and rounds once:
    rounded after each element, a running sum of ones stalled at 256 in bfloat16 (16 in
    float8_e5m2, 2048 in float16), where Triton's tree of partial sums gives about n."""
    n, rows = 4096, 4
    np_dtype = numpy.float16 if dtype == "float16" else getattr(ml_dtypes, dtype)
    x = numpy.ones(n, np_dtype)
    out = numpy.zeros(2 + n + rows, numpy.float32)
    small_float_sums[(1,)](x, out, n, rows, target=target)

    def rounded(values: numpy.ndarray) -> numpy.ndarray:
        return values.astype(numpy.float32).astype(np_dtype).astype(numpy.float32)

    assert out[:2].tolist() == [4096.0, 4096.0]
    numpy.testing.assert_array_equal(out[2 : 2 + n], rounded(numpy.arange(1, n + 1)))
    assert out[2 + n :].tolist() == [n / rows] * rows
    # random values: within one rounding of the exact sum
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal(n).astype(np_dtype)
    small_float_sums[(1,)](x, out, n, rows, target=target)
    exact = x.astype(numpy.float64)
    assert out[0] == rounded(numpy.array([exact.sum()]))[0]
    squares = rounded(exact**2).astype(numpy.float64).sum()  # each square rounded first
    assert out[1] == rounded(numpy.array([squares]))[0]


@blkc.jit
def block_sum(x_ptr, out_ptr, N: tl.constexpr):
    tl.store(out_ptr, tl.sum(tl.load(x_ptr + tl.arange(0, N)), axis=0))


def test_a_short_float16_sum_rounds_once() -> None:
    """2048 and 63 ones in float16: added in order, each 2048 + 1 rounds back to 2048;
    accumulated in float32, 2111 rounds once, to 2112 (as a tree of partial sums and
    Triton's interpreter give)."""
    x = numpy.ones(64, numpy.float16)
    x[0] = 2048
    out = numpy.zeros(1, numpy.float16)
    block_sum[(1,)](x, out, 64)
    assert out[0] == 2112


@blkc.jit
def shaped(x_ptr, CASE: tl.constexpr):
    if CASE == "full":
        a = tl.full((6,), 1.0, tl.float32)  # full
    elif CASE == "zeros":
        a = tl.zeros((4, 12), tl.float32)  # zeros
    elif CASE == "broadcast":
        a = tl.broadcast_to(tl.load(x_ptr), (3,))  # broadcast
    elif CASE == "reshape":
        a = tl.reshape(tl.arange(0, 16), (2, 8))
    elif CASE == "large":
        a = tl.zeros((2048, 1024), tl.float32)  # large
    elif CASE == "long":
        a = tl.arange(0, 1 << 21).to(tl.float32)  # long
    else:
        a = tl.full((1 << 20,), 1.0, tl.float32)
    tl.store(x_ptr + tl.arange(0, 2), tl.sum(tl.ravel(a)).to(tl.float32))


@pytest.mark.parametrize(
    ("case", "text"),
    [
        ("full", "block dimension 0 is 6, not a power of two, in shape [6]"),
        ("zeros", "block dimension 1 is 12, not a power of two, in shape [4, 12]"),
        ("broadcast", "block dimension 0 is 3, not a power of two"),
        ("large", "a block of shape [2048, 1024] has 2097152 elements, more than 1048576"),
        ("long", "a block of shape [2097152] has 2097152 elements, more than 1048576"),
    ],
)
def test_blocks_have_tritons_shapes(
    case: str, text: str, marker_line: Callable[[str], int]
) -> None:
    """Each dimension a power of two, at most 2**20 elements: what Triton compiles."""
    with pytest.raises(blkc.BlkcError) as info:
        shaped.warmup(numpy.zeros(8, numpy.float32), CASE=case, grid=(1,))
    message = str(info.value)
    assert f"{__file__}:{marker_line(case)}:" in message and text in message, message


@pytest.mark.parametrize("case", ["reshape", "largest"])
def test_blocks_of_powers_of_two_up_to_the_limit_compile(case: str) -> None:
    x = numpy.zeros(8, numpy.float32)
    shaped[(1,)](x, CASE=case)
    assert x[0] == (120 if case == "reshape" else 1 << 20)
