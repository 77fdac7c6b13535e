"""Arithmetic on operands of different dtypes, compiled under two promotion policies.

The same kernel adds int32 to float16, multiplies uint8 by float32, adds int8 to uint8
and scales int32 by a Python float. Under `triton` (Triton's rules: a float operand wins
and keeps its width, unsigned wins at equal width, a Python float is float32) and under
`numpy` (NumPy 2's rules: the smallest dtype holding both, a Python float is weak but
float64 against integers) the results get different dtypes. The host allocates each
output with the dtype `blkc.promotion.result_type` gives for the policy, the kernel
asserts at compile time that its value has that dtype, and each policy's results are
checked against the NumPy computation the policy implies: under `numpy`, NumPy itself.

    python examples/mixed_dtypes.py
"""

from __future__ import annotations

from functools import partial

import numpy
from _timing import Row, measure, print_rows

import blkc as triton
import blkc.language as tl
import blkc.promotion

POLICIES = ("triton", "numpy")

OPERATIONS: dict[str, tuple[str, str | float]] = {
    "int32 + float16": ("int32", "float16"),
    "uint8 * float32": ("uint8", "float32"),
    "int8 + uint8": ("int8", "uint8"),
    "int32 * 0.5": ("int32", 0.5),
}
"""Each output: the operands (dtypes, or a Python float) of the kernel's expression."""


@triton.jit
def mixed_kernel(
    a_ptr, b_ptr, c_ptr, d_ptr, e_ptr,  # int32, float16, uint8, int8, float32
    sum_ptr, prod_ptr, bytes_ptr, scaled_ptr,  # outputs, of the policy's dtypes
    n_elements, BLOCK_SIZE: tl.constexpr,
):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    c = tl.load(c_ptr + offsets, mask=mask)
    d = tl.load(d_ptr + offsets, mask=mask)
    e = tl.load(e_ptr + offsets, mask=mask)
    total = a + b
    product = c * e
    small = d + c
    scaled = a * 0.5
    # The host chose each output's dtype from the policy: the values must have it already.
    tl.static_assert(total.dtype == sum_ptr.dtype.element_ty)
    tl.static_assert(product.dtype == prod_ptr.dtype.element_ty)
    tl.static_assert(small.dtype == bytes_ptr.dtype.element_ty)
    tl.static_assert(scaled.dtype == scaled_ptr.dtype.element_ty)
    tl.store(sum_ptr + offsets, total, mask=mask)
    tl.store(prod_ptr + offsets, product, mask=mask)
    tl.store(bytes_ptr + offsets, small, mask=mask)
    tl.store(scaled_ptr + offsets, scaled, mask=mask)


def result_dtypes(policy: str) -> list[numpy.dtype]:
    """The dtype of each of `OPERATIONS` under `policy`."""
    return [
        numpy.dtype(blkc.promotion.result_type(*operands, policy=policy))
        for operands in OPERATIONS.values()
    ]


def describe() -> str:
    """A table of each operation's result dtype under each policy."""
    lines = [f"{'operation':18}" + "".join(f"{p:>10}" for p in POLICIES)]
    columns = [result_dtypes(p) for p in POLICIES]
    for index, name in enumerate(OPERATIONS):
        lines.append(f"{name:18}" + "".join(f"{str(c[index]):>10}" for c in columns))
    return "\n".join(lines)


def inputs(n: int, seed: int = 0) -> list[numpy.ndarray]:
    """Random int32, float16, uint8, int8 and float32 inputs; the int32 values are small
    enough that float16 holds them exactly."""
    rng = numpy.random.default_rng(seed)
    return [
        rng.integers(-1000, 1000, n, dtype=numpy.int32),
        rng.standard_normal(n).astype(numpy.float16),
        rng.integers(0, 256, n, dtype=numpy.uint8),
        rng.integers(-128, 128, n, dtype=numpy.int8),
        rng.standard_normal(n).astype(numpy.float32),
    ]


def reference(policy: str, a, b, c, d, e) -> list[numpy.ndarray]:  # type: ignore[no-untyped-def]
    """What `policy` computes, in NumPy: NumPy itself for `numpy`; for `triton`, the
    operands converted to Triton's result dtype first (int8 + uint8 wraps in uint8)."""
    if policy == "numpy":
        return [a + b, c * e, d + c, a * 0.5]
    return [
        a.astype(numpy.float16) + b,
        c.astype(numpy.float32) * e,
        d.astype(numpy.uint8) + c,
        a.astype(numpy.float32) * numpy.float32(0.5),
    ]


def launch(policy: str, args: list[numpy.ndarray], outputs: list[numpy.ndarray]) -> None:
    n_elements = args[0].size
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731 - Triton's idiom
    mixed_kernel[grid](*args, *outputs, n_elements, BLOCK_SIZE=1024, policy=policy)


def check(policy: str, args: list[numpy.ndarray], outputs: list[numpy.ndarray]) -> None:
    """Raise unless each output has the dtype and the values of `reference`."""
    for name, got, want in zip(OPERATIONS, outputs, reference(policy, *args), strict=True):
        assert got.dtype == want.dtype, (
            f"{name} under {policy}: the policy gives {got.dtype}, "
            f"the NumPy computation {want.dtype}"
        )
        numpy.testing.assert_array_equal(got, want, err_msg=f"{name} under {policy}")


def main(n: int = 1 << 22, repeat: int = 5, seed: int = 0) -> list[Row]:
    """Run the kernel under each policy on `n` random elements; one row per policy."""
    args = inputs(n, seed)
    rows = []
    for policy in POLICIES:
        outputs = [numpy.empty(n, dtype) for dtype in result_dtypes(policy)]
        rows.append(
            measure(
                f"mixed dtypes [{policy}]",
                f"{n} x 4 ops",
                partial(launch, policy, args, outputs),
                partial(check, policy, args, outputs),
                partial(reference, policy, *args),
                repeat,
            )
        )
    return rows


if __name__ == "__main__":
    print(describe())
    print()
    print_rows(main())
