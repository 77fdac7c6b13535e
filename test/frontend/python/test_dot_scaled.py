"""`tl.dot_scaled` against a NumPy reference that decodes the microscaling formats from their
bits (e2m1, e4m3, e5m2, bf16, fp16 elements; e8m0 scales), on both CPU targets; its bad
input, and Triton's fp8 variants blkc lacks, as located errors."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import interpreter

SOURCE = Path(__file__).read_text().splitlines()
TARGETS = ["cpu", "cpu-simt"]
GROUP = 32

# format: (exponent bits, fraction bits, bias) of the fp8 and fp4 formats
MINIFLOATS = {"e2m1": (2, 1, 1), "e4m3": (4, 3, 7), "e5m2": (5, 2, 15)}


def decode_minifloat(bits: numpy.ndarray, fmt: str) -> numpy.ndarray:
    """The float64 values of e2m1 nibbles or fp8 bytes, NaN and inf as OCP's MX spec says."""
    e_bits, m_bits, bias = MINIFLOATS[fmt]
    bits = bits.astype(numpy.int64)
    sign = numpy.where((bits >> (e_bits + m_bits)) & 1, -1.0, 1.0)
    exponent = (bits >> m_bits) & ((1 << e_bits) - 1)
    fraction = (bits & ((1 << m_bits) - 1)) / float(1 << m_bits)
    magnitude = numpy.where(
        exponent == 0,
        fraction * 2.0 ** (1 - bias),
        (1 + fraction) * 2.0 ** (exponent - bias),
    )
    top = (1 << e_bits) - 1
    if fmt == "e4m3":  # no infinities; all-ones is NaN
        magnitude = numpy.where(
            (exponent == top) & (fraction == 1 - 2.0**-m_bits), numpy.nan, magnitude
        )
    if fmt == "e5m2":
        special = numpy.where(fraction == 0, numpy.inf, numpy.nan)
        magnitude = numpy.where(exponent == top, special, magnitude)
    return sign * magnitude


def unpack_e2m1(packed: numpy.ndarray, axis: int) -> numpy.ndarray:
    """Two e2m1 a byte along `axis`, the first in the low bits."""
    axis %= packed.ndim
    pairs = numpy.stack([packed & 0xF, packed >> 4], axis=axis + 1)
    shape = list(packed.shape)
    shape[axis] *= 2
    return decode_minifloat(pairs.reshape(shape), "e2m1")


def decode(data: numpy.ndarray, fmt: str, packed_axis: int) -> numpy.ndarray:
    if fmt == "e2m1":
        return unpack_e2m1(data, packed_axis)
    if fmt in MINIFLOATS:
        return decode_minifloat(data.view(numpy.uint8), fmt)
    wide = numpy.float16 if fmt == "fp16" else ml_dtypes.bfloat16
    return data.view(wide).astype(numpy.float64)


def scale_factors(scale: numpy.ndarray, tiny: float) -> numpy.ndarray:
    """e8m0: 2**(byte - 127), byte 255 NaN, byte 0 `tiny` (Triton's 2**-127, 0 with fp16)."""
    factors = 2.0 ** (scale.astype(numpy.float64) - 127)
    factors = numpy.where(scale == 0, tiny, factors)
    return numpy.where(scale == 0xFF, numpy.nan, factors)


def reference(
    lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, lhs_k_pack=True, rhs_k_pack=True
):
    a = decode(lhs, lhs_format, -1 if lhs_k_pack else -2)
    b = decode(rhs, rhs_format, -2 if rhs_k_pack else -1)
    tiny = 0.0 if "fp16" in (lhs_format, rhs_format) else 2.0**-127
    if lhs_scale is not None:
        a = a * numpy.repeat(scale_factors(lhs_scale, tiny), GROUP, axis=-1)
    if rhs_scale is not None:
        b = b * numpy.repeat(scale_factors(rhs_scale, tiny), GROUP, axis=-1).swapaxes(-1, -2)
    return a @ b


def operand(rng: numpy.random.Generator, fmt: str, shape: tuple[int, ...]) -> numpy.ndarray:
    """Random finite bits of `fmt`, of `shape` elements (bytes for e2m1 and fp8)."""
    if fmt in ("bf16", "fp16"):
        values = rng.uniform(-4, 4, shape).astype(numpy.float32)
        return values.astype(numpy.float16 if fmt == "fp16" else ml_dtypes.bfloat16)
    data = rng.integers(0, 256, shape, dtype=numpy.uint8)
    if fmt == "e4m3":
        data = numpy.where(data & 0x7F == 0x7F, data & 0xF0, data)
    if fmt == "e5m2":
        data = numpy.where(data & 0x7C == 0x7C, data & 0x83, data)
    return data.astype(numpy.uint8)


@blkc.jit
def scaled_matmul(
    a_ptr, a_scale, b_ptr, b_scale, acc_ptr, out_ptr,
    A0: tl.constexpr, A1: tl.constexpr, B0: tl.constexpr, B1: tl.constexpr,
    M: tl.constexpr, N: tl.constexpr, GROUPS: tl.constexpr,
    FA: tl.constexpr, FB: tl.constexpr, PACK_A: tl.constexpr = True, PACK_B: tl.constexpr = True,
):  # fmt: skip
    a = tl.load(a_ptr + tl.arange(0, A0)[:, None] * A1 + tl.arange(0, A1)[None, :])
    b = tl.load(b_ptr + tl.arange(0, B0)[:, None] * B1 + tl.arange(0, B1)[None, :])
    groups = tl.arange(0, GROUPS)[None, :]
    if a_scale is not None:
        a_scale = tl.load(a_scale + tl.arange(0, M)[:, None] * GROUPS + groups)
    if b_scale is not None:
        b_scale = tl.load(b_scale + tl.arange(0, N)[:, None] * GROUPS + groups)
    out = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    acc = None
    if acc_ptr is not None:
        acc = tl.load(acc_ptr + out)
    c = tl.dot_scaled(a, a_scale, FA, b, b_scale, FB, acc=acc, lhs_k_pack=PACK_A, rhs_k_pack=PACK_B)
    tl.store(out_ptr + out, c)


def run(
    lhs,
    lhs_scale,
    lhs_format,
    rhs,
    rhs_scale,
    rhs_format,
    target,
    acc=None,
    pack_a=True,
    pack_b=True,
) -> numpy.ndarray:
    """`scaled_matmul` on one program, compiled for `target` or by the reference interpreter."""
    m = lhs.shape[0] * (1 if pack_a or lhs_format != "e2m1" else 2)
    n = rhs.shape[1] * (1 if pack_b or rhs_format != "e2m1" else 2)
    k = lhs.shape[1] * (2 if pack_a and lhs_format == "e2m1" else 1)
    out = numpy.zeros((m, n), numpy.float32)
    arrays = [lhs, lhs_scale, rhs, rhs_scale, acc, out]
    meta = dict(
        A0=lhs.shape[0], A1=lhs.shape[1], B0=rhs.shape[0], B1=rhs.shape[1], M=m, N=n,
        GROUPS=k // GROUP, FA=lhs_format, FB=rhs_format, PACK_A=pack_a, PACK_B=pack_b,
    )  # fmt: skip
    if target != "interpreter":
        scaled_matmul[(1,)](*arrays, target=target, **meta)
        return out
    loose = scaled_matmul.warmup(*arrays, **meta, grid=(1,)).asm["loose"]
    module = blkc.run_pipeline(blkc.parse(loose, "kernel.mlir"), "to-strict{warn=false}")
    interpreter.run(module, None, (1,), [a for a in arrays if a is not None])
    return out


def shaped(
    fmt: str, rows: int, k: int, k_axis: int, packed_along_k: bool = True
) -> tuple[int, int]:
    """The stored shape of a `rows` x `k` operand (K along `k_axis`)."""
    shape = [rows, k] if k_axis == 1 else [k, rows]
    if fmt == "e2m1":
        shape[k_axis if packed_along_k else 1 - k_axis] //= 2
    return shape[0], shape[1]


def assert_close(found: numpy.ndarray, expected: numpy.ndarray) -> None:
    scale = numpy.nanmax(numpy.abs(expected)) if numpy.isfinite(expected).any() else 1.0
    numpy.testing.assert_allclose(found, expected, rtol=1e-5, atol=1e-6 * scale)


FORMAT_PAIRS = [
    ("e2m1", "e2m1"),
    ("e2m1", "fp16"),
    ("e4m3", "e5m2"),
    ("e5m2", "bf16"),
    ("bf16", "e2m1"),
    ("fp16", "e4m3"),
]


@pytest.mark.parametrize("target", [*TARGETS, "interpreter"])
@pytest.mark.parametrize(("lhs_format", "rhs_format"), FORMAT_PAIRS)
def test_formats_and_scales_match_numpy(target: str, lhs_format: str, rhs_format: str) -> None:
    rng = numpy.random.default_rng(len(lhs_format + rhs_format) * 7)
    m, n, k = 16, 32, 64
    lhs = operand(rng, lhs_format, shaped(lhs_format, m, k, 1))
    rhs = operand(rng, rhs_format, shaped(rhs_format, n, k, 0))
    low = 120 if "fp16" in (lhs_format, rhs_format) else 100
    lhs_scale = rng.integers(low, 135, (m, k // GROUP), dtype=numpy.uint8)
    rhs_scale = rng.integers(low, 135, (n, k // GROUP), dtype=numpy.uint8)
    for scales in [(lhs_scale, rhs_scale), (None, rhs_scale), (lhs_scale, None), (None, None)]:
        found = run(lhs, scales[0], lhs_format, rhs, scales[1], rhs_format, target)
        expected = reference(lhs, scales[0], lhs_format, rhs, scales[1], rhs_format)
        assert numpy.abs(expected).max() > 0
        assert_close(found, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_fp8_operands_may_be_fp8_blocks_and_an_accumulator_adds(target: str) -> None:
    rng = numpy.random.default_rng(3)
    lhs = operand(rng, "e4m3", (32, 64))
    rhs = operand(rng, "e5m2", (64, 16))
    scale = rng.integers(110, 140, (32, 2), dtype=numpy.uint8)
    acc = rng.uniform(-100, 100, (32, 16)).astype(numpy.float32)
    found = run(
        lhs.view(ml_dtypes.float8_e4m3fn), scale, "e4m3", rhs.view(ml_dtypes.float8_e5m2), None,
        "e5m2", target, acc=acc,
    )  # fmt: skip
    assert_close(found, reference(lhs, scale, "e4m3", rhs, None, "e5m2") + acc)


@pytest.mark.parametrize("target", TARGETS)
def test_e2m1_packed_along_m_and_n(target: str) -> None:
    rng = numpy.random.default_rng(4)
    m, n, k = 32, 16, 64
    lhs = operand(rng, "e2m1", shaped("e2m1", m, k, 1, packed_along_k=False))
    rhs = operand(rng, "e2m1", shaped("e2m1", n, k, 0, packed_along_k=False))
    assert lhs.shape == (16, 64) and rhs.shape == (64, 8)
    lhs_scale = rng.integers(120, 135, (m, 2), dtype=numpy.uint8)
    rhs_scale = rng.integers(120, 135, (n, 2), dtype=numpy.uint8)
    found = run(lhs, lhs_scale, "e2m1", rhs, rhs_scale, "e2m1", target, pack_a=False, pack_b=False)
    expected = reference(lhs, lhs_scale, "e2m1", rhs, rhs_scale, "e2m1", False, False)
    assert_close(found, expected)


def test_every_e2m1_value_decodes_exactly() -> None:
    # One row of all 16 nibbles against an identity: the product is the decoded row.
    lhs = numpy.zeros((16, 32), numpy.uint8)
    lhs[0, :8] = [lo | hi << 4 for lo, hi in zip(range(0, 16, 2), range(1, 16, 2), strict=True)]
    rhs = numpy.eye(64, 16, dtype=numpy.float16)
    found = run(lhs, None, "e2m1", rhs, None, "fp16", "cpu")
    values = [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    numpy.testing.assert_array_equal(found[0], values + [-v for v in values])


@pytest.mark.parametrize("target", TARGETS)
def test_scale_255_is_nan_and_scale_0_is_tiny(target: str) -> None:
    lhs = numpy.full((16, 64), 0x38, numpy.uint8)  # e4m3 1.0
    rhs = numpy.full((64, 16), 0x3C00, numpy.uint16).view(numpy.float16)  # 1.0
    scale = numpy.full((16, 2), 127, numpy.uint8)
    scale[1, 0] = 0xFF  # the first group of row 1: NaN
    scale[2] = 0  # row 2: 2**-127, zero where an operand is fp16
    scale[3] = 128
    found = run(lhs, scale, "e4m3", rhs, None, "fp16", target)
    assert numpy.isnan(found[1]).all() and not numpy.isnan(found[[0, 2, 3]]).any()
    assert (found[0] == 64).all() and (found[2] == 0).all() and (found[3] == 128).all()
    as_bf16 = rhs.astype(ml_dtypes.bfloat16)
    found = run(lhs, scale, "e4m3", as_bf16, None, "bf16", target)
    numpy.testing.assert_array_equal(found[2], numpy.float32(64 * 2.0**-127))


@blkc.jit
def batched(a_ptr, scale_ptr, b_ptr, out_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
            K: tl.constexpr):  # fmt: skip
    batch = tl.arange(0, B)[:, None, None]
    rows, cols = tl.arange(0, M)[None, :, None], tl.arange(0, K // 2)[None, None, :]
    a = tl.load(a_ptr + batch * M * (K // 2) + rows * (K // 2) + cols)
    groups = tl.arange(0, K // 32)[None, None, :]
    scale = tl.load(scale_ptr + batch * M * (K // 32) + rows * (K // 32) + groups)
    ks, cols = tl.arange(0, K)[None, :, None], tl.arange(0, N)[None, None, :]
    b = tl.load(b_ptr + batch * K * N + ks * N + cols)
    c = tl.dot_scaled(a, scale, "e2m1", b, None, "bf16")
    tl.store(out_ptr + batch * M * N + rows * N + cols, c)


@pytest.mark.parametrize("target", TARGETS)
def test_batched_3d_operands(target: str) -> None:
    rng = numpy.random.default_rng(5)
    b, m, n, k = 2, 16, 16, 64
    lhs = operand(rng, "e2m1", (b, m, k // 2))
    rhs = operand(rng, "bf16", (b, k, n))
    scale = rng.integers(100, 140, (b, m, k // GROUP), dtype=numpy.uint8)
    out = numpy.zeros((b, m, n), numpy.float32)
    batched[(1,)](lhs, scale, rhs, out, b, m, n, k, target=target)
    assert_close(out, reference(lhs, scale, "e2m1", rhs, None, "bf16"))


# -- errors ----------------------------------------------------------------------------


@blkc.jit
def misuse(a_ptr, out_ptr, CASE: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    scale = tl.full((32, 1), 127, tl.uint8)
    if CASE == "format":
        c = tl.dot_scaled(a, None, "e3m2", a, None, "e4m3")  # format
    elif CASE == "k_pack":
        c = tl.dot_scaled(a, None, "e4m3", a, None, "e4m3", lhs_k_pack=False)  # k_pack
    elif CASE == "scale_shape":
        c = tl.dot_scaled(a, scale.reshape(1, 32), "e4m3", a, None, "e4m3")  # scale_shape
    elif CASE == "dtype":
        c = tl.dot_scaled(a.to(tl.float32), None, "fp16", a, None, "e4m3")  # dtype
    elif CASE == "out_dtype":
        c = tl.dot_scaled(a, None, "e4m3", a, None, "e4m3", out_dtype=tl.float16)  # out_dtype
    elif CASE == "acc":
        acc = tl.zeros((32, 16), tl.float32)
        c = tl.dot_scaled(a, scale, "e4m3", a, None, "e4m3", acc=acc)  # acc
    elif CASE == "k":
        c = tl.dot_scaled(a, None, "e2m1", a, None, "e4m3")  # k
    elif CASE == "packed_dtype":
        c = tl.dot_scaled(a.to(tl.int32), None, "e2m1", a, None, "e4m3")  # packed_dtype
    elif CASE == "scale_dtype":
        c = tl.dot_scaled(a, scale.to(tl.float32), "e4m3", a, None, "e4m3")  # scale_dtype
    else:
        c = a.to(tl.float8e4b15).to(tl.float32)  # lacking
    tl.store(out_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :], c)


@pytest.mark.parametrize(
    ("case", "text"),
    [
        ("format", "lhs_format must be one of 'e2m1', 'e4m3', 'e5m2', 'bf16', 'fp16', got 'e3m2'"),
        ("k_pack", "lhs_k_pack=False needs the e2m1 format, got 'e4m3'"),
        ("scale_shape", "lhs_scale must be a block of shape [M, K // group] (here [32, 32 //"),
        ("dtype", "lhs in fp16 must hold float16 or uint16, got float32"),
        ("out_dtype", "out_dtype must be tl.float32, got blkc.language.float16"),
        ("acc", "acc must be a float32 block of shape [32, 32]"),
        ("k", "operands hold different numbers of K elements: lhs 64, rhs 32"),
        ("packed_dtype", "lhs in e2m1 must be uint8 (two elements a byte), got int32"),
        ("scale_dtype", "lhs_scale must be uint8 (e8m0 exponents), got float32"),
        ("lacking", "blkc has no blkc.language.float8e4b15 (fp8e4b15)"),
    ],
)
def test_misuse_is_a_located_error(case: str, text: str) -> None:
    with pytest.raises(blkc.BlkcError) as info:
        misuse.warmup(
            numpy.zeros((32, 32), numpy.uint8),
            numpy.zeros((32, 32), numpy.float32),
            CASE=case,
            grid=(1,),
        )
    message = str(info.value)
    line = next(i for i, t in enumerate(SOURCE, 1) if t.rstrip().endswith(f"# {case}"))
    assert f"{__file__}:{line}:" in message, message
    assert text in message, message


def test_tritons_other_fp8_variants_exist_by_name() -> None:
    facts = {tl.float8e4b15: (3, 15), tl.float8e4b8: (3, 8), tl.float8e5b16: (2, 16)}
    for d, (fraction, bias) in facts.items():
        assert d.is_fp8() and d.is_floating() and d.primitive_bitwidth == 8
        assert (d.fp_mantissa_width, d.exponent_bias) == (fraction, bias)
        assert tl.dtype(d.name) == d and d.blkc_dtype is None
    assert tl.float8e4b15.is_fp8e4b15() and not tl.float8e4b15.is_fp8e4nv()
    with pytest.raises(TypeError, match=r"blkc has no blkc.language.float8e5b16 \(fp8e5b16\)"):
        blkc.reinterpret(numpy.zeros(4, numpy.uint8), tl.float8e5b16)
