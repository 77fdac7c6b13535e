"""`dot`'s vector register tiles (`blk.dot_tile`): bfloat16 and 8-bit integers through the
instructions that add products in pairs (`vdpbf16ps`, `pmaddwd`), where the CPU has them
(which CPUs do, the loop IR that uses them, and results against NumPy for every tile
shape, inner dimension, odd ones too, and vector width the host can run), and float tiles
of fused multiply-adds, equal bit for bit to the scalar tile."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy
import pytest

import blkc
from blkc.backends.cpu import lowering_for
from blkc.diagnostics import BlkcError
from blkc.pipeline import build_passes
from blkc.runtime import cpu_target

X86 = "x86_64-unknown-linux-gnu"


@pytest.mark.parametrize(
    ("triple", "features", "bits", "expected"),
    [
        (X86, "+avx2,+avx512f,+avx512bw,+avx512bf16", 512, ("bfloat16", "int8", "uint8")),
        (X86, "+avx2,+avx512f,+avx512bw,-avx512bf16", 512, ("int8", "uint8")),
        (X86, "+avx2,+avx512f,-avx512bw", 512, ()),  # 512-bit pmaddwd needs avx512bw
        (X86, "+avx2,+avx512bf16,-avx512vl", 256, ("int8", "uint8")),
        (X86, "+avx2,+avx512bf16,+avx512vl", 256, ("bfloat16", "int8", "uint8")),
        (X86, "+avx,-avx2", 256, ()),  # no 256-bit integer multiply-add without avx2
        (X86, "+sse4.2", 128, ("int8", "uint8")),
        ("aarch64-unknown-linux-gnu", "+neon,+bf16", 128, ()),
    ],
)
def test_the_pair_instructions_follow_the_features(
    triple: str, features: str, bits: int, expected: tuple[str, ...]
) -> None:
    assert cpu_target.pair_dot_types(triple, features, bits) == expected


def test_the_cpu_target_tells_the_lowering_its_pair_types() -> None:
    target = dataclasses.replace(cpu_target.host(), pair_dot_types=("bfloat16", "int8"))
    assert "pair-dot-types=bfloat16,int8" in lowering_for(target)
    plain = dataclasses.replace(target, pair_dot_types=())
    assert "pair-dot-types" not in lowering_for(plain)


def test_the_pass_refuses_an_unknown_pair_type() -> None:
    with pytest.raises(BlkcError, match="pair-dot-types: 'float16' is not one of"):
        build_passes("convert-blk-to-loops{pair-dot-types=float16}")


DOT = """
func.func @dot(%a: !blk.ptr<{t}>, %b: !blk.ptr<{t}>, %c: !blk.ptr<{acc}>)
    attributes {{blk.kernel}} {{
  %ia = blk.arange 0, {ma} : tensor<{ma}xi32>
  %ib = blk.arange 0, {mb} : tensor<{mb}xi32>
  %ic = blk.arange 0, {mc} : tensor<{mc}xi32>
  %ap = blk.addptr %a, %ia : !blk.ptr<{t}>, tensor<{ma}xi32> -> tensor<{ma}x!blk.ptr<{t}>>
  %bp = blk.addptr %b, %ib : !blk.ptr<{t}>, tensor<{mb}xi32> -> tensor<{mb}x!blk.ptr<{t}>>
  %cp = blk.addptr %c, %ic : !blk.ptr<{acc}>, tensor<{mc}xi32> -> tensor<{mc}x!blk.ptr<{acc}>>
  %a1 = blk.load %ap : tensor<{ma}x!blk.ptr<{t}>>
  %b1 = blk.load %bp : tensor<{mb}x!blk.ptr<{t}>>
  %c1 = blk.load %cp : tensor<{mc}x!blk.ptr<{acc}>>
  %a2 = blk.reshape %a1 : tensor<{ma}x{t}> -> tensor<{sa}x{t}>
  %b2 = blk.reshape %b1 : tensor<{mb}x{t}> -> tensor<{sb}x{t}>
  %c2 = blk.reshape %c1 : tensor<{mc}x{acc}> -> tensor<{sc}x{acc}>
  %d = blk.dot %a2, %b2 acc %c2 acc_dtype = {acc}
      : tensor<{sa}x{t}>, tensor<{sb}x{t}>, tensor<{sc}x{acc}> -> tensor<{sc}x{acc}>
  %d1 = blk.reshape %d : tensor<{sc}x{acc}> -> tensor<{mc}x{acc}>
  blk.store %cp, %d1 : tensor<{mc}x!blk.ptr<{acc}>>
  func.return
}}
"""
TYPES = {"bfloat16": ("bf16", "f32"), "int8": ("i8", "i32"), "uint8": ("ui8", "i32")}


def _dot_kernel(dtype: str, batch: int | None, m: int, n: int, k: int) -> blkc.Kernel:
    t, acc = TYPES[dtype]
    lead = [] if batch is None else [batch]

    def shape(*dims: int) -> str:
        return "x".join(str(d) for d in (*lead, *dims))

    def count(*dims: int) -> int:
        return int(numpy.prod([*lead, *dims]))

    text = DOT.format(
        t=t,
        acc=acc,
        ma=count(m, k),
        mb=count(k, n),
        mc=count(m, n),
        sa=shape(m, k),
        sb=shape(k, n),
        sc=shape(m, n),
    )
    return blkc.compile(text, policy="numpy")


def _operands(
    dtype: str, lead: tuple[int, ...], m: int, n: int, k: int, seed: int
) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    rng = numpy.random.default_rng(seed)
    if dtype == "bfloat16":
        a = rng.standard_normal((*lead, m, k)).astype(ml_dtypes.bfloat16)
        b = rng.standard_normal((*lead, k, n)).astype(ml_dtypes.bfloat16)
        c = rng.standard_normal((*lead, m, n)).astype(numpy.float32)
        return a, b, c
    low, high = (-128, 128) if dtype == "int8" else (0, 256)
    a = rng.integers(low, high, (*lead, m, k)).astype(dtype)
    b = rng.integers(low, high, (*lead, k, n)).astype(dtype)
    c = rng.integers(-(2**20), 2**20, (*lead, m, n)).astype(numpy.int32)
    return a, b, c


def _check(
    dtype: str, a: numpy.ndarray, b: numpy.ndarray, c0: numpy.ndarray, c: numpy.ndarray
) -> None:
    if dtype == "bfloat16":
        exact = a.astype(numpy.float64) @ b.astype(numpy.float64) + c0
        # float32 sums of exact products: a few ulps of the sum of magnitudes
        scale = numpy.abs(a.astype(numpy.float64)) @ numpy.abs(b.astype(numpy.float64))
        assert numpy.all(numpy.abs(c - exact) <= 1e-6 * (scale + numpy.abs(c0)) + 1e-30)
    else:
        exact = a.astype(numpy.int64) @ b.astype(numpy.int64) + c0
        numpy.testing.assert_array_equal(c, exact.astype(numpy.int32))


def _host_pairs(bits: int) -> tuple[str, ...]:
    host = cpu_target.host()
    return cpu_target.pair_dot_types(host.triple, host.features, bits)


@pytest.mark.parametrize(
    ("dtype", "bits"),
    [
        ("bfloat16", 512),
        ("bfloat16", 256),
        ("int8", 512),
        ("int8", 256),
        ("int8", 128),
        ("uint8", 512),  # widened with zeros where int8 is with its sign: no other change
    ],
)
def test_pair_dots_compute_numpy_results(
    dtype: str, bits: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    if bits > cpu_target.host().vector_bits or dtype not in _host_pairs(bits):
        pytest.skip(f"this CPU has no {bits}-bit pair instruction for {dtype}")
    registers = 32 if bits == 512 else 16
    target = dataclasses.replace(
        cpu_target.host(), vector_bits=bits, vector_registers=registers, pair_dot_types=(dtype,)
    )
    monkeypatch.setattr(cpu_target, "host", lambda: target)
    lanes = bits // 32
    for i, (batch, m, n, k) in enumerate(
        [
            (None, 16, 4 * lanes, 16),  # whole tiles, an even inner dimension
            (None, 7, 2 * lanes, 5),  # a shorter last tile of rows, an odd inner dimension
            (None, 3, lanes, 1),  # one element of the inner dimension: only the last pair
            (2, 6, 2 * lanes, 9),  # a batch of products
        ]
    ):
        kernel = _dot_kernel(dtype, batch, m, n, k)
        assert "blk.dot_tile" in kernel.asm["loops"]
        lead = () if batch is None else (batch,)
        a, b, c0 = _operands(dtype, lead, m, n, k, seed=i)
        c = c0.copy()
        kernel[(1,)](a, b, c)
        _check(dtype, a, b, c0, c)


def test_columns_that_fill_no_vector_take_the_scalar_loop() -> None:
    if "int8" not in cpu_target.host().pair_dot_types:
        pytest.skip("this CPU has no pair instruction for int8")
    kernel = _dot_kernel("int8", None, 8, 4, 8)  # 4 columns: less than one vector
    assert "blk.dot_tile" not in kernel.asm["loops"]
    a, b, c0 = _operands("int8", (), 8, 4, 8, seed=7)
    c = c0.copy()
    kernel[(1,)](a, b, c)
    _check("int8", a, b, c0, c)


def test_int8_extremes_are_exact() -> None:
    # -128 * -128 twice is 2^15: the widest pair sum, which must not wrap in 16 bits.
    kernel = _dot_kernel("int8", None, 4, 64, 64)
    for value in (-128, 127):
        a = numpy.full((4, 64), -128, numpy.int8)
        b = numpy.full((64, 64), value, numpy.int8)
        c = numpy.zeros((4, 64), numpy.int32)
        kernel[(1,)](a, b, c)
        assert numpy.all(c == -128 * value * 64)


def test_bfloat16_dots_see_nan_and_infinity() -> None:
    kernel = _dot_kernel("bfloat16", None, 4, 32, 4)
    a = numpy.ones((4, 4), ml_dtypes.bfloat16)
    b = numpy.ones((4, 32), ml_dtypes.bfloat16)
    a[1, 2] = numpy.nan
    a[2, 3] = numpy.inf
    b[1, 5] = -numpy.inf  # row 2 meets +inf * 1 only; column 5 meets -inf in every row
    c = numpy.zeros((4, 32), numpy.float32)
    kernel[(1,)](a, b, c)
    assert numpy.isnan(c[1]).all()
    assert (c[2, :5] == numpy.inf).all() and (c[[0, 3], 5] == -numpy.inf).all()
    assert numpy.isnan(c[2, 5])  # inf + -inf
    assert c[0, 0] == 4.0


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_vector_tiles_add_as_the_scalar_loop_does(
    dtype: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # blk.dot_tile without pairs: one fused multiply-add a step, in order, as the scalar
    # tile (which a dot whose rows are not whole vectors takes) does: equal bit for bit.
    from blkc.dialects import blk

    text = DOT_FLOAT.format(t={"float32": "f32", "float16": "f16"}[dtype])
    rng = numpy.random.default_rng(11)
    a = rng.standard_normal((16, 64)).astype(dtype)
    b = rng.standard_normal((64, 64)).astype(dtype)
    c0 = rng.standard_normal((16, 64)).astype(numpy.float32)
    vector = blkc.compile(text)
    assert "blk.dot_tile" in vector.asm["loops"]
    monkeypatch.setattr(blk, "FMA_DOTS", {})
    import blkc.passes.convert_blk_to_loops as lowering

    monkeypatch.setattr(lowering, "_WIDENED_DOTS", {})
    scalar = blkc.compile(text + "\n// the scalar tile\n")
    assert "blk.dot_tile" not in scalar.asm["loops"]
    out = [c0.copy(), c0.copy()]
    vector[(1,)](a, b, out[0])
    scalar[(1,)](a, b, out[1])
    numpy.testing.assert_array_equal(out[0], out[1])


DOT_FLOAT = """
func.func @dot(%a: !blk.ptr<{t}>, %b: !blk.ptr<{t}>, %c: !blk.ptr<f32>)
    attributes {{blk.kernel}} {{
  %ia = blk.arange 0, 1024 : tensor<1024xi32>
  %ib = blk.arange 0, 4096 : tensor<4096xi32>
  %ap = blk.addptr %a, %ia : !blk.ptr<{t}>, tensor<1024xi32> -> tensor<1024x!blk.ptr<{t}>>
  %bp = blk.addptr %b, %ib : !blk.ptr<{t}>, tensor<4096xi32> -> tensor<4096x!blk.ptr<{t}>>
  %cp = blk.addptr %c, %ia : !blk.ptr<f32>, tensor<1024xi32> -> tensor<1024x!blk.ptr<f32>>
  %a1 = blk.load %ap : tensor<1024x!blk.ptr<{t}>>
  %b1 = blk.load %bp : tensor<4096x!blk.ptr<{t}>>
  %c1 = blk.load %cp : tensor<1024x!blk.ptr<f32>>
  %a2 = blk.reshape %a1 : tensor<1024x{t}> -> tensor<16x64x{t}>
  %b2 = blk.reshape %b1 : tensor<4096x{t}> -> tensor<64x64x{t}>
  %c2 = blk.reshape %c1 : tensor<1024xf32> -> tensor<16x64xf32>
  %d = blk.dot %a2, %b2 acc %c2 acc_dtype = f32
      : tensor<16x64x{t}>, tensor<64x64x{t}>, tensor<16x64xf32> -> tensor<16x64xf32>
  %d1 = blk.reshape %d : tensor<16x64xf32> -> tensor<1024xf32>
  blk.store %cp, %d1 : tensor<1024x!blk.ptr<f32>>
  func.return
}}
"""
