"""`//` and `%` on negative integers: the policy chooses the rounding.

Under `triton` they truncate toward zero, as in C and in Triton on GPUs (-7 // 2 == -3,
-7 % 2 == -1: the remainder has the sign of the dividend, NumPy's `fmod`). Under `numpy`
they floor, as in Python and NumPy (-7 // 2 == -4, -7 % 2 == 1: the remainder has the
sign of the divisor). The same kernel runs under both and is checked against each.

    python examples/int_division.py
"""

from __future__ import annotations

from functools import partial

import numpy
from _timing import Row, measure, print_rows

import blkc as triton
import blkc.language as tl

POLICIES = ("triton", "numpy")


@triton.jit
def divmod_kernel(a_ptr, b_ptr, quotient_ptr, remainder_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask, other=1)
    tl.store(quotient_ptr + offsets, a // b, mask=mask)
    tl.store(remainder_ptr + offsets, a % b, mask=mask)


def divmod_blocks(
    policy: str, a: numpy.ndarray, b: numpy.ndarray,
    quotient: numpy.ndarray, remainder: numpy.ndarray,
) -> None:
    n_elements = a.size
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731 - Triton's idiom
    divmod_kernel[grid](a, b, quotient, remainder, n_elements, BLOCK_SIZE=1024, policy=policy)


def reference(
    policy: str, a: numpy.ndarray, b: numpy.ndarray
) -> tuple[numpy.ndarray, numpy.ndarray]:
    """The quotient and remainder `policy` gives: NumPy's own (floor) for `numpy`; C's
    (truncation) for `triton`, from `fmod`, whose remainder leaves a multiple of `b`."""
    if policy == "numpy":
        return a // b, a % b
    remainder = numpy.fmod(a, b)
    return (a - remainder) // b, remainder


def check(
    policy: str, a: numpy.ndarray, b: numpy.ndarray,
    quotient: numpy.ndarray, remainder: numpy.ndarray,
) -> None:
    """Raise unless the kernel's results are `reference`'s and satisfy a == q * b + r."""
    want_q, want_r = reference(policy, a, b)
    numpy.testing.assert_array_equal(quotient, want_q, err_msg=f"a // b under {policy}")
    numpy.testing.assert_array_equal(remainder, want_r, err_msg=f"a % b under {policy}")
    numpy.testing.assert_array_equal(
        quotient * b + remainder, a, err_msg=f"a == (a // b) * b + a % b under {policy}"
    )


def describe() -> str:
    """The kernel's `//` and `%` on the four sign combinations of 7 and 2, per policy."""
    a = numpy.array([7, -7, 7, -7], numpy.int32)
    b = numpy.array([2, 2, -2, -2], numpy.int32)
    header = "".join(f"   {p + ' a//b':>12} {p + ' a%b':>11}" for p in POLICIES)
    lines = [f"{'a':>4} {'b':>4}{header}"]
    results = []
    for policy in POLICIES:
        quotient, remainder = numpy.empty_like(a), numpy.empty_like(a)
        divmod_blocks(policy, a, b, quotient, remainder)
        check(policy, a, b, quotient, remainder)
        results.append((quotient, remainder))
    for i in range(a.size):
        lines.append(f"{a[i]:4} {b[i]:4}" + "".join(f"   {q[i]:12} {r[i]:11}" for q, r in results))
    return "\n".join(lines)


def main(n: int = 1 << 22, repeat: int = 5, seed: int = 0) -> list[Row]:
    """`//` and `%` of `n` random int32 pairs of both signs, under each policy."""
    rng = numpy.random.default_rng(seed)
    a = rng.integers(-1_000_000, 1_000_000, n, dtype=numpy.int32)
    signs = rng.choice(numpy.array([-1, 1], numpy.int32), n)
    b = rng.integers(1, 100, n, dtype=numpy.int32) * signs
    rows = []
    for policy in POLICIES:
        quotient, remainder = numpy.empty_like(a), numpy.empty_like(a)
        rows.append(
            measure(
                f"int // and % [{policy}]",
                f"{n} i32",
                partial(divmod_blocks, policy, a, b, quotient, remainder),
                partial(check, policy, a, b, quotient, remainder),
                partial(reference, policy, a, b),
                repeat,
            )
        )
    return rows


if __name__ == "__main__":
    print(describe())
    print()
    print_rows(main())
