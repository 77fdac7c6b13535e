"""Layer normalization, forward, as in Triton's tutorial 05: one program per row, three
passes over it in BLOCK_SIZE chunks (mean, variance, then normalize and apply the weight
and bias), storing each row's mean and reciprocal standard deviation for the backward
pass.

    python examples/layernorm.py
"""

from __future__ import annotations

import numpy
from _timing import Row, measure, print_rows

import blkc as triton
import blkc.language as tl


@triton.jit
def _layer_norm_fwd_fused(
    X,  # pointer to the input
    Y,  # pointer to the output
    W,  # pointer to the weights
    B,  # pointer to the biases
    Mean,  # pointer to the mean
    Rstd,  # pointer to the 1/std
    stride,  # how much to increase the pointer when moving by 1 row
    N,  # number of columns in X
    eps,  # epsilon to avoid division by zero
    BLOCK_SIZE: tl.constexpr,
):
    # Map the program id to the row of X and Y it should compute.
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    # Compute mean
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    # Compute variance
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    # Write mean / rstd
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    # Normalize and apply linear transformation
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        # Write output
        tl.store(Y + cols, y, mask=mask)


def layer_norm(
    x: numpy.ndarray, weight: numpy.ndarray, bias: numpy.ndarray, eps: float,
    y: numpy.ndarray, mean: numpy.ndarray, rstd: numpy.ndarray,
) -> None:
    M, N = x.shape
    # Less than 64KB per feature: enqueue fused kernel
    MAX_FUSED_SIZE = 65536 // x.itemsize
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    if N > BLOCK_SIZE:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    _layer_norm_fwd_fused[(M,)](
        x, y, weight, bias, mean, rstd, x.strides[0] // x.itemsize, N, eps,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=8,
    )


def layer_norm_reference(
    x: numpy.ndarray, weight: numpy.ndarray, bias: numpy.ndarray, eps: float
) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    mean = x.mean(axis=1)
    rstd = 1 / numpy.sqrt(x.var(axis=1) + eps)
    return (x - mean[:, None]) * rstd[:, None] * weight + bias, mean, rstd


def main(rows: int = 4096, cols: int = 1000, repeat: int = 5, seed: int = 0) -> list[Row]:
    """Layer norm of each row of a random float32 `rows` x `cols` matrix."""
    rng = numpy.random.default_rng(seed)
    x = (rng.standard_normal((rows, cols)) * 2 + 0.5).astype(numpy.float32)
    weight = rng.random(cols, dtype=numpy.float32)
    bias = rng.random(cols, dtype=numpy.float32)
    eps = 1e-5
    y = numpy.empty_like(x)
    mean = numpy.empty(rows, numpy.float32)
    rstd = numpy.empty(rows, numpy.float32)

    def check() -> None:
        y_ref, mean_ref, rstd_ref = layer_norm_reference(x, weight, bias, eps)
        numpy.testing.assert_allclose(mean, mean_ref, rtol=1e-5, atol=1e-6)
        numpy.testing.assert_allclose(rstd, rstd_ref, rtol=1e-5)
        numpy.testing.assert_allclose(y, y_ref, rtol=1e-4, atol=1e-5)

    row = measure(
        "layer norm forward",
        f"{rows}x{cols} f32",
        lambda: layer_norm(x, weight, bias, eps, y, mean, rstd),
        check,
        lambda: layer_norm_reference(x, weight, bias, eps),
        repeat,
    )
    return [row]


if __name__ == "__main__":
    print_rows(main())
