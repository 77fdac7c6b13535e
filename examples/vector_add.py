"""Vector addition, as in Triton's tutorial 01: one block of `BLOCK_SIZE` elements per
program, the tail masked.

    python examples/vector_add.py
"""

from __future__ import annotations

import numpy
from _timing import Row, measure, print_rows

import blkc as triton
import blkc.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x: numpy.ndarray, y: numpy.ndarray, output: numpy.ndarray) -> None:
    n_elements = output.size
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731 - Triton's idiom
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)


def main(n: int = 1 << 22, repeat: int = 5, seed: int = 0) -> list[Row]:
    """Add two random float32 vectors of `n` elements (any `n`: the tail is masked)."""
    rng = numpy.random.default_rng(seed)
    x = rng.random(n, dtype=numpy.float32)
    y = rng.random(n, dtype=numpy.float32)
    output = numpy.empty_like(x)
    row = measure(
        "vector add",
        f"{n} f32",
        lambda: add(x, y, output),
        lambda: numpy.testing.assert_array_equal(output, x + y),
        lambda: numpy.add(x, y, out=output),
        repeat,
    )
    return [row]


if __name__ == "__main__":
    print_rows(main())
