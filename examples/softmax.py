"""Fused row softmax, as in Triton's tutorial 02: each program loads whole rows (padded to
a power of two and masked with -inf), subtracts the row's maximum, exponentiates and
normalizes, reading and writing each element once. Programs step over the rows with
`tl.range`, the tutorial's persistent form.

    python examples/softmax.py
"""

from __future__ import annotations

import numpy
from _timing import Row, measure, print_rows

import blkc as triton
import blkc.language as tl


@triton.jit
def softmax_kernel(
    output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
    BLOCK_SIZE: tl.constexpr,
):
    # starting row of the program
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step):
        # The stride represents how much we need to increase the pointer to advance 1 row
        row_start_ptr = input_ptr + row_idx * input_row_stride
        # The block size is the next power of two greater than n_cols, so we can fit each
        # row in a single block
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        # Load the row into SRAM, using a mask since BLOCK_SIZE may be > than n_cols
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        # Subtract maximum for numerical stability
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        # Write back output to DRAM
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def softmax(x: numpy.ndarray, y: numpy.ndarray, num_programs: int = 64) -> None:
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_programs = min(num_programs, n_rows)
    softmax_kernel[(num_programs, 1, 1)](
        y, x, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize, n_rows, n_cols,
        BLOCK_SIZE=BLOCK_SIZE,
    )


def softmax_reference(x: numpy.ndarray) -> numpy.ndarray:
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main(rows: int = 4096, cols: int = 1000, repeat: int = 5, seed: int = 0) -> list[Row]:
    """Softmax of each row of a random float32 `rows` x `cols` matrix."""
    x = numpy.random.default_rng(seed).standard_normal((rows, cols)).astype(numpy.float32) * 4
    y = numpy.empty_like(x)
    row = measure(
        "softmax (fused rows)",
        f"{rows}x{cols} f32",
        lambda: softmax(x, y),
        lambda: numpy.testing.assert_allclose(y, softmax_reference(x), rtol=1e-5, atol=1e-7),
        lambda: softmax_reference(x),
        repeat,
    )
    return [row]


if __name__ == "__main__":
    print_rows(main())
