"""Low-memory dropout, as in Triton's tutorial 04: the mask is not stored but drawn again
from a seed, `tl.rand(seed, offsets)` being a pure function of the two.

    python examples/dropout.py
"""

from __future__ import annotations

import numpy
from _timing import Row, measure, print_rows

import blkc as triton
import blkc.language as tl


@triton.jit
def seeded_dropout_kernel(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def seeded_dropout(x: numpy.ndarray, output: numpy.ndarray, p: float, seed: int) -> None:
    n_elements = x.size
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731 - Triton's idiom
    seeded_dropout_kernel[grid](x, output, n_elements, p, seed, BLOCK_SIZE=1024)


def check(x: numpy.ndarray, output: numpy.ndarray, p: float, seed: int) -> None:
    """What dropout promises: each element kept (scaled by 1 / (1 - p)) or zeroed, about a
    fraction `p` zeroed, the same mask again for the same seed and another for another."""
    kept = output != 0
    numpy.testing.assert_array_equal(output[kept], x[kept] / (1 - numpy.float32(p)))
    dropped = 1 - kept.mean()
    assert abs(dropped - p) < 0.05, f"{dropped:.3f} of the elements dropped, not about {p}"
    again = numpy.empty_like(output)
    seeded_dropout(x, again, p, seed)
    numpy.testing.assert_array_equal(again, output)
    seeded_dropout(x, again, p, seed + 1)
    assert not numpy.array_equal(again != 0, kept), "another seed gave the same mask"


def main(n: int = 1 << 22, p: float = 0.5, repeat: int = 5, seed: int = 0) -> list[Row]:
    """Drop a fraction `p` of `n` float32 values (any `n`: the tail is masked), against
    NumPy drawing its mask from its own generator."""
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(n, dtype=numpy.float32) + 2  # no zeros: a kept value is nonzero
    output = numpy.empty_like(x)
    row = measure(
        "seeded dropout",
        f"{n} f32",
        lambda: seeded_dropout(x, output, p, 123),
        lambda: check(x, output, p, 123),
        lambda: numpy.where(rng.random(n, dtype=numpy.float32) > p, x / (1 - p), 0),
        repeat,
    )
    return [row]


if __name__ == "__main__":
    print_rows(main())
