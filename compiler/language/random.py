"""`tl.random`: counter-based pseudo-random numbers for `@blkc.jit` kernels.

Every number is a pure function of a seed and an offset: Philox 4x32 (Salmon et al.,
"Parallel random numbers: as easy as 1, 2, 3", SC 2011) maps the counter
``(offset_lo, offset_hi, 0, 0)`` under the key ``(seed_lo, seed_hi)`` to four 32-bit words,
so any program can draw the numbers of any offsets without a shared state, and the same
seed and offsets give the same numbers as Triton's `tl.randint`, `tl.rand` and `tl.randn`.

    @blkc.jit
    def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        keep = tl.rand(seed, offsets) > p
        tl.store(out_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=mask)

The functions are `@blkc.jit` helpers written in the kernel language, inlined where a
kernel calls them.
"""

from __future__ import annotations

from blkc.jitfunction import jit
from blkc.language import core as tl

N_ROUNDS_DEFAULT = tl.constexpr(10)
"""Philox's rounds: ten are what the generator's statistical tests were passed with."""

# The Weyl constants added to the key each round, and the round multipliers, of Philox 4x32
# and of Philox 4x64 (for 64-bit counters).
KEY_A_32 = tl.constexpr(0x9E3779B9)
KEY_B_32 = tl.constexpr(0xBB67AE85)
ROUND_A_32 = tl.constexpr(0xD2511F53)
ROUND_B_32 = tl.constexpr(0xCD9E8D57)
KEY_A_64 = tl.constexpr(0x9E3779B97F4A7C15)
KEY_B_64 = tl.constexpr(0xBB67AE8584CAA73B)
ROUND_A_64 = tl.constexpr(0xD2E7470EE14C6C93)
ROUND_B_64 = tl.constexpr(0xCA5A826395121157)

UNIFORM_SCALE_32 = tl.constexpr(4.6566127342e-10)
"""The largest float32 under 2**-31 whose product with 2**31 - 1 rounds below 1."""
UNIFORM_SCALE_64 = tl.constexpr(1.0842020432385337e-19)
"""The same for 2**63 - 1."""

TWO_PI = tl.constexpr(6.283185307179586)
SMALLEST_UNIFORM = tl.constexpr(1.0e-7)
"""Where Box-Muller clamps its first uniform, so that log(u) stays finite."""


@jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """`n_rounds` rounds of Philox on the counter (c0, c1, c2, c3) under the key (k0, k1),
    all uint32 (Philox 4x32) or all uint64 (Philox 4x64)."""
    if c0.dtype == tl.uint32:
        key_a = KEY_A_32
        key_b = KEY_B_32
        round_a = ROUND_A_32
        round_b = ROUND_B_32
    else:
        tl.static_assert(
            c0.dtype == tl.uint64,
            f"philox_impl's counters must be uint32 or uint64, not {c0.dtype}",
        )
        key_a = KEY_A_64
        key_b = KEY_B_64
        round_a = ROUND_A_64
        round_b = ROUND_B_64
    for _ in tl.static_range(n_rounds):
        a, b = c0, c2
        c0 = tl.umulhi(round_b, b) ^ c1 ^ k0
        c2 = tl.umulhi(round_a, a) ^ c3 ^ k1
        c1 = b * round_b
        c3 = a * round_a
        k0 = k0 + key_a
        k1 = k1 + key_b
    return c0, c1, c2, c3


@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Philox on the counter (c0, c1, c2, c3), 32- or 64-bit integers (their bits taken
    as unsigned), under the key an integer `seed` gives: its low and high 32 bits for
    32-bit counters, the whole seed for 64-bit ones."""
    seed = tl.to_tensor(seed)
    tl.static_assert(
        seed.dtype.is_int(), f"the seed of random numbers must be an integer, not {seed.dtype}"
    )
    seed = seed.to(tl.uint64)
    c0 = tl.to_tensor(c0)
    c1 = tl.to_tensor(c1)
    c2 = tl.to_tensor(c2)
    c3 = tl.to_tensor(c3)
    tl.static_assert(c0.dtype.is_int(), f"Philox's counters must be integers, not {c0.dtype}")
    if c0.dtype.primitive_bitwidth == 32:
        unsigned = tl.uint32
        seed_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
        seed_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    else:
        tl.static_assert(
            c0.dtype.primitive_bitwidth == 64,
            f"Philox's counters must be 32- or 64-bit integers, not {c0.dtype}",
        )
        unsigned = tl.uint64
        seed_hi = tl.full((), 0, dtype=tl.uint64)
        seed_lo = seed
    c0 = c0.to(unsigned, bitcast=True)
    c1 = c1.to(unsigned, bitcast=True)
    c2 = c2.to(unsigned, bitcast=True)
    c3 = c3.to(unsigned, bitcast=True)
    return philox_impl(c0, c1, c2, c3, seed_lo, seed_hi, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A block of random uint32, one for each of `offset` (an integer block), from the
    integer `seed`. `randint4x` gives four such blocks for the price of one."""
    first, _, _, _ = randint4x(seed, offset, n_rounds)
    return first


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 for the offsets `offset` and the integer `seed`: the
    four words of Philox at the counter ``(offset_lo, offset_hi, 0, 0)``."""
    offset = tl.to_tensor(offset)
    tl.static_assert(
        offset.dtype.is_int(), f"the offsets of random numbers must be integers, not {offset.dtype}"
    )
    offset_lo = offset.to(tl.uint32)
    zero = offset_lo * 0
    if offset.dtype.primitive_bitwidth > 32:
        offset_hi = (offset >> 32).to(tl.uint32)
    else:
        offset_hi = zero
    return philox(seed, offset_lo, offset_hi, zero, zero, n_rounds)


@jit
def uint_to_uniform_float(x):
    """Random 32- or 64-bit integers `x` to float32 in [0, 1): the bits as a signed
    integer, folded onto its non-negative half (``~x`` for negative ones) and scaled so that
    the largest gives the float32 below 1."""
    if x.dtype == tl.uint32 or x.dtype == tl.int32:
        x = x.to(tl.int32, bitcast=True)
        scale = UNIFORM_SCALE_32
    else:
        tl.static_assert(
            x.dtype == tl.uint64 or x.dtype == tl.int64,
            f"uint_to_uniform_float takes 32- or 64-bit integers, not {x.dtype}",
        )
        x = x.to(tl.int64, bitcast=True)
        scale = UNIFORM_SCALE_64
    x = tl.where(x < 0, ~x, x)
    return x.to(tl.float32) * scale


@jit
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A block of random float32 in [0, 1), uniform, one for each of `offset`."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@jit
def rand4x(seed, offsets, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random float32 in [0, 1), uniform, for the offsets `offsets`."""
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    u1 = uint_to_uniform_float(i1)
    u2 = uint_to_uniform_float(i2)
    u3 = uint_to_uniform_float(i3)
    u4 = uint_to_uniform_float(i4)
    return u1, u2, u3, u4


@jit
def pair_uniform_to_normal(u1, u2):
    """Two uniform blocks in [0, 1) to two independent standard normal blocks (the
    Box-Muller transform)."""
    u1 = tl.maximum(SMALLEST_UNIFORM, u1)
    angle = TWO_PI * u2
    radius = tl.sqrt(-2.0 * tl.log(u1))
    return radius * tl.cos(angle), radius * tl.sin(angle)


@jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A block of random float32, standard normal, one for each of `offset`."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    normal, _ = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return normal


@jit
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random float32, standard normal, for the offsets `offset`."""
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4


__all__ = [
    "N_ROUNDS_DEFAULT", "pair_uniform_to_normal", "philox", "philox_impl", "rand", "rand4x",
    "randint", "randint4x", "randn", "randn4x", "uint_to_uniform_float",
]  # fmt: skip
