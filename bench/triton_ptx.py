"""Triton's PTX for the kernels of `ptx_compare.py`, printed as JSON (name -> PTX).

Run with a Python that has `triton==3.9.0` (never a blkc dependency), e.g.
``/tmp/tritonenv/bin/python bench/triton_ptx.py [CC] [NUM_WARPS] [--divisible-ints]``
(`--divisible-ints`: every i32 argument specialized as divisible by 16). Triton compiles
to PTX without a GPU through
`triton.compile(ASTSource(...), target=GPUTarget("cuda", cc, 32))`. Each kernel is
written as Triton's tutorials write it, with the structure and block sizes of the blkc
example it is compared with (one row per program for softmax and layer-norm; 32x32x32
float32 tiles for matmul, computed in IEEE float32 as blkc does, not TF32).
"""

from __future__ import annotations

import json
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def vector_add(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax(x_ptr, y_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)
    num = tl.exp(shifted)
    y = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * row_stride + cols, y, mask=mask)


@triton.jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, row_stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    centered = x - mean
    masked = tl.where(mask, centered, 0.0)
    var = tl.sum(masked * masked, axis=0) / n_cols
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * row_stride + cols, centered * rstd * w + b, mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK + tl.arange(0, BLOCK)
    cols = pid_n * BLOCK + tl.arange(0, BLOCK)
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k0 in range(0, K, BLOCK):
        ka = k0 + r
        a = tl.load(
            a_ptr + rows[:, None] * K + ka[None, :],
            mask=(rows[:, None] < M) & (ka[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + ka[:, None] * N + cols[None, :],
            mask=(ka[:, None] < K) & (cols[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(
        c_ptr + rows[:, None] * N + cols[None, :],
        acc,
        mask=(rows[:, None] < M) & (cols[None, :] < N),
    )


KERNELS = {
    "vector_add": (vector_add, ["*fp32"] * 3 + ["i32"], {"BLOCK_SIZE": 1024}),
    "softmax": (softmax, ["*fp32"] * 2 + ["i32"] * 2, {"BLOCK_SIZE": 1024}),
    "layernorm": (layernorm, ["*fp32"] * 4 + ["i32", "i32", "fp32"], {"BLOCK_SIZE": 1024}),
    "matmul": (matmul, ["*fp32"] * 3 + ["i32"] * 3, {"BLOCK": 32}),
}


def compile_ptx(name: str, capability: int, num_warps: int, divisible_ints: bool) -> str:
    fn, types, constants = KERNELS[name]
    names = list(fn.arg_names)
    signature = {n: t for n, t in zip(names, types, strict=False)}
    signature.update({n: "constexpr" for n in constants})
    # Pointers 16-byte aligned, as Triton's launcher specializes them for real arrays
    # (blkc's GPU launch checks the same); integers divisible by 16 only when asked (what
    # the launcher specializes such a value into).
    aligned = [
        i for i, t in enumerate(types) if t.startswith("*") or (divisible_ints and t == "i32")
    ]
    attrs = {(i,): [["tt.divisibility", 16]] for i in aligned}
    source = ASTSource(fn, signature, constexprs=constants, attrs=attrs)
    compiled = triton.compile(
        source, target=GPUTarget("cuda", capability, 32), options={"num_warps": num_warps}
    )
    return compiled.asm["ptx"]


def main() -> None:
    capability = int(sys.argv[1]) if len(sys.argv) > 1 else 90
    num_warps = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    divisible_ints = "--divisible-ints" in sys.argv[3:]
    print(
        json.dumps(
            {name: compile_ptx(name, capability, num_warps, divisible_ints) for name in KERNELS}
        )
    )


if __name__ == "__main__":
    main()
