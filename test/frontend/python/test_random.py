"""`tl.random`: Philox 4x32-10 as Triton computes it, bit for bit, checked against a NumPy
Philox written here, Random123's known answers and values Triton 3.9 gave; the uniform and
normal conversions; their distributions; the dropout of Triton's tutorial 04; and the
located errors of bad seeds and offsets. On the CPU, under cpu-simt (the GPU lowering run
on the CPU) and in the reference interpreter."""

from __future__ import annotations

from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import interpreter

TARGETS = ["cpu", "cpu-simt", "interpreter"]

# -- a NumPy Philox --------------------------------------------------------------------------

ROUND_A, ROUND_B = 0xD2511F53, 0xCD9E8D57
KEY_A, KEY_B = 0x9E3779B9, 0xBB67AE85
MASK32 = (1 << 32) - 1


def philox4x32(counter: list[numpy.ndarray], key: tuple[int, int], rounds: int = 10) -> list:
    """Philox 4x32 on uint32 counter words (arrays) under a key of two 32-bit ints."""
    c0, c1, c2, c3 = (numpy.asarray(c, numpy.uint64) for c in counter)
    k0, k1 = numpy.uint64(key[0]), numpy.uint64(key[1])
    mask = numpy.uint64(MASK32)
    for _ in range(rounds):
        product_a = numpy.uint64(ROUND_A) * c0
        product_b = numpy.uint64(ROUND_B) * c2
        c0, c1, c2, c3 = (
            (product_b >> numpy.uint64(32)) ^ c1 ^ k0,
            product_b & mask,
            (product_a >> numpy.uint64(32)) ^ c3 ^ k1,
            product_a & mask,
        )
        k0, k1 = (k0 + numpy.uint64(KEY_A)) & mask, (k1 + numpy.uint64(KEY_B)) & mask
    return [c.astype(numpy.uint32) for c in (c0, c1, c2, c3)]


def randint4x_ref(seed: int, offsets: numpy.ndarray, rounds: int = 10) -> list:
    """Triton's counter (offset's low and high words, 0, 0) and key (the seed's words, the
    seed sign-extended to 64 bits)."""
    bits = offsets.astype(numpy.int64).view(numpy.uint64)
    low = bits & numpy.uint64(MASK32)
    high = (bits >> numpy.uint64(32)) if offsets.dtype.itemsize == 8 else numpy.zeros_like(low)
    zero = numpy.zeros_like(low)
    seed64 = seed & ((1 << 64) - 1)
    return philox4x32([low, high, zero, zero], (seed64 & MASK32, seed64 >> 32), rounds)


def uniform_ref(words: numpy.ndarray) -> numpy.ndarray:
    """The bits as int32, negative ones complemented, times the float32 scale."""
    signed = words.astype(numpy.uint32).view(numpy.int32)
    folded = numpy.where(signed < 0, ~signed, signed)
    return folded.astype(numpy.float32) * numpy.float32(4.6566127342e-10)


def normal_ref(u1: numpy.ndarray, u2: numpy.ndarray) -> tuple[numpy.ndarray, numpy.ndarray]:
    """Box-Muller in float64, from the float32 uniforms."""
    radius = numpy.sqrt(-2.0 * numpy.log(numpy.maximum(u1, numpy.float32(1e-7)).astype(float)))
    angle = 6.283185307179586 * u2.astype(float)
    return radius * numpy.cos(angle), radius * numpy.sin(angle)


def test_the_numpy_philox_gives_random123s_known_answers() -> None:
    """Philox 4x32-10's known-answer vectors (Random123's kat_vectors)."""
    zero = philox4x32([numpy.array([0])] * 4, (0, 0))
    assert [int(w[0]) for w in zero] == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    ones = philox4x32([numpy.array([MASK32])] * 4, (MASK32, MASK32))
    assert [int(w[0]) for w in ones] == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]


def launch(kernel: blkc.JITFunction, target: str, grid: tuple, *args: Any, **meta: Any) -> None:
    """Run `kernel` compiled for `target`, or by the reference interpreter."""
    if target != "interpreter":
        kernel[grid](*args, target=target, **meta)
        return
    loose = kernel.warmup(*args, grid=grid, **meta).asm["loose"]
    module = blkc.run_pipeline(blkc.parse(loose, "kernel.mlir"), "to-strict{warn=false}")
    interpreter.run(module, None, grid, list(args))


# -- every generator, bit for bit ------------------------------------------------------------


@blkc.jit(do_not_specialize=["seed", "base", "n"])  # one compile per seed width, not per value
def every_generator(out_ptr, seed, base, n, OFFSET: tl.constexpr, BLOCK: tl.constexpr):
    """Eight words per offset: randint4x's four, randint, rand, randn and randn4x's last
    (the floats' bits)."""
    index = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offset = (base + index.to(tl.int64)).to(OFFSET)
    mask = index < n
    row = out_ptr + index * 8
    r0, r1, r2, r3 = tl.randint4x(seed, offset)
    tl.store(row, r0, mask=mask)
    tl.store(row + 1, r1, mask=mask)
    tl.store(row + 2, r2, mask=mask)
    tl.store(row + 3, r3, mask=mask)
    tl.store(row + 4, tl.randint(seed, offset), mask=mask)
    tl.store(row + 5, tl.rand(seed, offset).to(tl.uint32, bitcast=True), mask=mask)
    tl.store(row + 6, tl.randn(seed, offset).to(tl.uint32, bitcast=True), mask=mask)
    _, _, _, last = tl.randn4x(seed, offset)
    tl.store(row + 7, last.to(tl.uint32, bitcast=True), mask=mask)


def generate(target: str, seed: int, base: int, offset: Any, n: int = 100) -> numpy.ndarray:
    out = numpy.zeros((n, 8), numpy.uint32)
    launch(every_generator, target, (2,), out, seed, base, n, OFFSET=offset, BLOCK=64)
    return out


SEEDS = [0, 42, -7, 0xFFFFFFFF, 0x0000000FCAFEB0BA]
"""int32 seeds (a negative one sign-extends), and int64 ones."""
OFFSETS = [
    (tl.int32, 5),
    (tl.uint32, 2**31 + 9),
    (tl.int64, 2**33 - 40),
    (tl.int64, numpy.int64(-60)),
]
"""Offset dtypes and first offsets: the int64 ones cross 2**32 and 0, so that their high
words count (both bases int64 arguments: one compile for the two)."""


CASES = [
    (target, offset, base)
    for offset, base in OFFSETS
    for target in TARGETS
    if target == "cpu"
    or (target == "interpreter" and offset is tl.int64)
    or (target == "cpu-simt" and base in (5, -60))
]
"""Every offset dtype on the CPU; the other targets, which compile slower (or run slower),
take an int32 offset and an int64 one crossing zero (cpu-simt) or the int64 ones."""


@pytest.mark.parametrize(("target", "offset", "base"), CASES)
def test_every_generator_matches_the_numpy_philox(target: str, offset: Any, base: int) -> None:
    # Each seed width (int32, uint32, int64) compiles the kernel again: int32 offsets take
    # every seed, the others one seed of each 32-bit half's kind (a Philox compile is 3 s).
    seeds = SEEDS if offset is tl.int32 else [SEEDS[2], SEEDS[4]]
    for seed in seeds if target != "interpreter" else SEEDS[1:3]:
        out = generate(target, seed, base, offset)
        offsets = (base + numpy.arange(100)).astype(offset.blkc_dtype.numpy)
        words = randint4x_ref(seed, offsets)
        for column, word in enumerate(words):
            numpy.testing.assert_array_equal(out[:, column], word)
        numpy.testing.assert_array_equal(out[:, 4], words[0])
        numpy.testing.assert_array_equal(out[:, 5].view(numpy.float32), uniform_ref(words[0]))
        normal, _ = normal_ref(uniform_ref(words[0]), uniform_ref(words[1]))
        numpy.testing.assert_allclose(out[:, 6].view(numpy.float32), normal, rtol=1e-5, atol=2e-6)
        _, last = normal_ref(uniform_ref(words[2]), uniform_ref(words[3]))
        numpy.testing.assert_allclose(out[:, 7].view(numpy.float32), last, rtol=1e-5, atol=2e-6)


def test_the_numbers_are_tritons() -> None:
    """Values Triton 3.9's interpreter gave for the same seeds and offsets."""
    out = generate("cpu", 42, 0, tl.int32, n=4)
    assert out[:, 0].tolist() == [2632642643, 4242219303, 3547071013, 3133604981]
    assert out[:, 5].view(numpy.float32).tolist() == [
        0.7740801572799683, 0.024562695994973183, 0.3482663035392761, 0.5408014059066772,
    ]  # fmt: skip
    assert generate("cpu", 0, 0, tl.int64, n=1)[0, :4].tolist() == [
        0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8,
    ]  # fmt: skip


@pytest.mark.parametrize("policy", ["numpy", "jax"])
def test_the_numbers_do_not_depend_on_the_policy(policy: str) -> None:
    """The helpers convert explicitly where promotion rules differ (an int times a float)."""
    out = numpy.zeros((16, 8), numpy.uint32)
    every_generator[(1,)](out, 42, 0, 16, OFFSET=tl.int32, BLOCK=16, policy=policy)
    expected = numpy.zeros((16, 8), numpy.uint32)
    every_generator[(1,)](expected, 42, 0, 16, OFFSET=tl.int32, BLOCK=16)
    numpy.testing.assert_array_equal(out, expected)


@blkc.jit
def constant_seed(out_ptr, SEED: tl.constexpr, BLOCK: tl.constexpr):
    offset = tl.arange(0, BLOCK)
    tl.store(out_ptr + offset, tl.randint(SEED, offset))


@pytest.mark.parametrize("seed", [7, 0xFFFFFFFF, 0x0000000FCAFEB0BA, -3])
def test_a_constexpr_seed_gives_the_numbers_of_a_runtime_one(seed: int) -> None:
    out = numpy.zeros(16, numpy.uint32)
    constant_seed[(1,)](out, SEED=seed, BLOCK=16)
    numpy.testing.assert_array_equal(
        out, randint4x_ref(seed, numpy.arange(16, dtype=numpy.int32))[0]
    )


@blkc.jit
def scalar_offsets(out_ptr, seed, base):
    """One number per program, at a scalar offset."""
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, tl.randint(seed, base + pid))
    tl.store(out_ptr + 16 + pid, tl.randint(seed, 3, n_rounds=7))


@pytest.mark.parametrize("target", TARGETS)
def test_scalar_offsets_and_fewer_rounds(target: str) -> None:
    out = numpy.zeros(32, numpy.uint32)
    launch(scalar_offsets, target, (16,), out, 11, 1000)
    numpy.testing.assert_array_equal(out[:16], randint4x_ref(11, 1000 + numpy.arange(16))[0])
    numpy.testing.assert_array_equal(out[16:], randint4x_ref(11, numpy.full(16, 3), rounds=7)[0])


@blkc.jit
def philox_64(out_ptr, seed, BLOCK: tl.constexpr):
    """Philox 4x64 on 64-bit counters, the seed the whole key."""
    i = tl.arange(0, BLOCK)
    c = i.to(tl.int64) + (2**35 - 10)
    a, b, d, e = tl.philox(seed, c, c * 3, c + 7, c ^ 5)
    tl.store(out_ptr + i * 4, a)
    tl.store(out_ptr + i * 4 + 1, b)
    tl.store(out_ptr + i * 4 + 2, d)
    tl.store(out_ptr + i * 4 + 3, e)


def philox4x64(counter: list[int], key: int, rounds: int = 10) -> list[int]:
    """Philox 4x64 on one counter, in Python ints (its 128-bit products need them)."""
    mask = (1 << 64) - 1
    c0, c1, c2, c3 = counter
    k0, k1 = key, 0
    for _ in range(rounds):
        product_a, product_b = 0xD2E7470EE14C6C93 * c0, 0xCA5A826395121157 * c2
        c0, c1, c2, c3 = (
            (product_b >> 64) ^ c1 ^ k0,
            product_b & mask,
            (product_a >> 64) ^ c3 ^ k1,
            product_a & mask,
        )
        k0, k1 = (k0 + 0x9E3779B97F4A7C15) & mask, (k1 + 0xBB67AE8584CAA73B) & mask
    return [c0, c1, c2, c3]


@pytest.mark.parametrize("target", TARGETS)
def test_philox_on_64_bit_counters_is_philox_4x64(target: str) -> None:
    out = numpy.zeros((8, 4), numpy.int64)
    launch(philox_64, target, (1,), out, -9, BLOCK=8)
    for i in range(8):
        c = 2**35 - 10 + i
        expected = philox4x64([c, 3 * c, c + 7, c ^ 5], (-9) & ((1 << 64) - 1))
        assert out[i].view(numpy.uint64).tolist() == expected
    assert out[0, :2].tolist() == [-862409360659716675, -3935581278433756827]  # Triton 3.9's


# -- the uniform and normal conversions -------------------------------------------------------


@blkc.jit
def to_uniform(in_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.random.uint_to_uniform_float(tl.load(in_ptr + i)))


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.int64, numpy.uint32, numpy.uint64])
def test_uniform_floats_of_extreme_integers_stay_below_one(dtype: Any) -> None:
    """The bits read as signed: both ends of the signed range give the same float just
    below 1 (Triton's test_rand_limits)."""
    signed = numpy.dtype(dtype).str.replace("u", "i")
    info = numpy.iinfo(signed)
    extremes = numpy.array([info.min, info.max, 0, -1, 1, 7, info.min + 1, info.max - 1], signed)
    out = numpy.zeros(8, numpy.float32)
    to_uniform[(1,)](extremes.view(dtype), out, N=8)
    scale = 4.6566127342e-10 if info.bits == 32 else 1.0842020432385337e-19
    folded = numpy.where(extremes < 0, ~extremes, extremes)
    numpy.testing.assert_array_equal(out, folded.astype(numpy.float32) * numpy.float32(scale))
    assert 1 - numpy.finfo(numpy.float32).eps <= out[0] == out[1] < 1
    assert out[2] == out[3] == 0
    assert 0 < out[4] < 1e-9 and out.max() < 1


@blkc.jit
def pair_to_normal(u1_ptr, u2_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    n1, n2 = tl.pair_uniform_to_normal(tl.load(u1_ptr + i), tl.load(u2_ptr + i))
    tl.store(out_ptr + i, n1)
    tl.store(out_ptr + N + i, n2)


def test_box_muller_clamps_a_zero_uniform() -> None:
    u1 = numpy.array([0.0, 0.5, 0.25, 1e-9], numpy.float32)
    u2 = numpy.array([0.0, 0.25, 0.5, 0.75], numpy.float32)
    out = numpy.zeros(8, numpy.float32)
    pair_to_normal[(1,)](u1, u2, out, N=4)
    n1, n2 = normal_ref(u1, u2)
    numpy.testing.assert_allclose(out, numpy.concatenate([n1, n2]), rtol=1e-5, atol=1e-6)
    assert numpy.isfinite(out).all()


# -- distributions ----------------------------------------------------------------------------


@blkc.jit
def many(uniform_ptr, normal_ptr, seed, n, BLOCK: tl.constexpr):
    offset = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offset < n
    u = tl.rand4x(seed, offset)
    g = tl.randn4x(seed, offset)
    for k in tl.static_range(4):
        tl.store(uniform_ptr + k * n + offset, u[k], mask=mask)
        tl.store(normal_ptr + k * n + offset, g[k], mask=mask)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
def test_a_million_samples_are_uniform_and_normal(target: str) -> None:
    n = 1 << 18
    uniform, normal = numpy.zeros((4, n), numpy.float32), numpy.zeros((4, n), numpy.float32)
    many[(n // 1024,)](uniform, normal, 1234, n, BLOCK=1024, target=target)
    u, g = uniform.ravel().astype(float), normal.ravel().astype(float)
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 2e-3 and abs(u.var() - 1 / 12) < 1e-3
    assert abs(g.mean()) < 5e-3 and abs(g.var() - 1) < 5e-3
    assert abs(numpy.mean(g**3)) < 1e-2 and abs(numpy.mean(g**4) - 3) < 3e-2
    histogram, _ = numpy.histogram(u, bins=16, range=(0, 1))
    assert numpy.abs(histogram / (len(u) / 16) - 1).max() < 0.02
    streams = numpy.corrcoef(uniform)
    assert numpy.abs(streams - numpy.eye(4)).max() < 5e-3  # the four words are independent


# -- Triton's tutorial 04: low-memory dropout --------------------------------------------------


@blkc.jit
def seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def dropout(x: numpy.ndarray, p: float, seed: int, target: str) -> numpy.ndarray:
    output = numpy.empty_like(x)
    grid = (blkc.cdiv(x.size, 1024),)
    seeded_dropout[grid](x, output, x.size, p, seed, BLOCK_SIZE=1024, target=target)
    return output


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
def test_seeded_dropout_keeps_what_the_seed_says(target: str) -> None:
    x = numpy.random.default_rng(0).standard_normal(5000).astype(numpy.float32)
    first = dropout(x, 0.5, 123, target)
    keep = uniform_ref(randint4x_ref(123, numpy.arange(5000, dtype=numpy.int32))[0]) > 0.5
    expected = numpy.where(keep, x / numpy.float32(0.5), numpy.float32(0))
    numpy.testing.assert_array_equal(first, expected)
    numpy.testing.assert_array_equal(dropout(x, 0.5, 123, target), first)  # same seed, same mask
    assert not numpy.array_equal(dropout(x, 0.5, 124, target) == 0, first == 0)
    assert abs((first == 0).mean() - 0.5) < 0.03


# -- errors -----------------------------------------------------------------------------------


@blkc.jit
def rand_of(out_ptr, seed, BLOCK: tl.constexpr):
    offset = tl.arange(0, BLOCK)
    tl.store(out_ptr + offset, tl.rand(seed, offset))


@blkc.jit
def rand_at_float_offsets(out_ptr, BLOCK: tl.constexpr):
    offset = tl.arange(0, BLOCK)
    tl.store(out_ptr + offset, tl.rand(5, offset * 0.5))


@blkc.jit
def philox_impl_of_int32(out_ptr):
    c = tl.arange(0, 4)
    a, _, _, _ = tl.philox_impl(c, c, c, c, c, c)
    tl.store(out_ptr + c, a)


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        (2.5, "the seed of random numbers must be an integer, not fp32"),
        (numpy.zeros(1, numpy.int32), "the seed of random numbers must be an integer, not pointer"),
    ],
)
def test_a_seed_that_is_no_integer_is_a_located_error(seed: Any, message: str) -> None:
    with pytest.raises(blkc.BlkcError, match=message) as caught:
        rand_of[(1,)](numpy.zeros(4, numpy.float32), seed, BLOCK=4)
    text = str(caught.value)
    assert "test_random.py:" in text and "note: in the call of 'rand'" in text
    assert "tl.store(out_ptr + offset, tl.rand(seed, offset))" in text  # the kernel's line


def test_float_offsets_and_int32_philox_counters_are_located_errors() -> None:
    with pytest.raises(
        blkc.BlkcError, match="offsets of random numbers must be integers, not fp32"
    ):
        rand_at_float_offsets[(1,)](numpy.zeros(4, numpy.float32), BLOCK=4)
    with pytest.raises(
        blkc.BlkcError, match="counters must be uint32 or uint64, not int32"
    ) as caught:
        philox_impl_of_int32[(1,)](numpy.zeros(4, numpy.int32))
    assert "note: in the call of 'philox_impl'" in str(caught.value)


# -- what tl.random needs from the frontend ---------------------------------------------------


@blkc.jit
def conversions(out_ptr, x):
    tl.store(out_ptr, tl.to_tensor(2**31).dtype.is_int_unsigned())
    tl.store(out_ptr + 1, tl.to_tensor(2**31) // 2)  # uint32: no overflow
    tl.store(out_ptr + 2, tl.to_tensor(x).dtype.primitive_bitwidth)
    tl.store(out_ptr + 3, tl.to_tensor(1.5).dtype.is_fp32())
    tl.store(out_ptr + 4, tl.pi32_t.element_ty.is_int32())


def test_to_tensor_gives_a_number_the_dtype_triton_does() -> None:
    out = numpy.zeros(5, numpy.int64)
    conversions[(1,)](out, 2**40)
    assert out.tolist() == [1, 2**30, 64, 1, 1]


@blkc.jit
def view_as_int32(x_ptr, out_ptr):
    i = tl.arange(0, 4)
    tl.store(out_ptr + i, tl.load(x_ptr.to(tl.pi32_t) + i))


@pytest.mark.parametrize("target", TARGETS)
def test_a_pointer_cast_to_pi32_t_views_the_memory_as_int32(target: str) -> None:
    x = numpy.array([0.0, 1.0, -2.5, 3.0], numpy.float32)
    out = numpy.zeros(4, numpy.int32)
    launch(view_as_int32, target, (1,), x, out)
    numpy.testing.assert_array_equal(out, x.view(numpy.int32))


@blkc.jit
def number_to_pointer(x_ptr, out_ptr):
    i = tl.arange(0, 4)
    tl.store(out_ptr + i, tl.load(tl.load(x_ptr + i).to(tl.pi32_t)))


def test_a_number_cast_to_a_pointer_is_a_located_error() -> None:
    with pytest.raises(blkc.BlkcError, match="cannot cast tensor<4xi64> to pointer<int32>") as e:
        number_to_pointer[(1,)](numpy.zeros(4, numpy.int64), numpy.zeros(4, numpy.int32))
    assert "test_random.py:" in str(e.value)
