"""`blkc.language`, imported as ``tl``: Triton's kernel language for `@blkc.jit` kernels.

    import blkc
    import blkc.language as tl

    @blkc.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + tl.load(y_ptr + offsets, mask=mask), mask=mask)

A kernel written for Triton runs after ``import triton`` becomes ``import blkc as triton``
and ``import triton.language as tl`` becomes ``import blkc.language as tl``.
"""

import builtins

from blkc.language import extra, math, random, target_info
from blkc.language.block_pointers import advance, make_block_ptr
from blkc.language.core import (
    PropagateNan,
    abs,
    arange,
    argmax,
    argmin,
    associative_scan,
    assume,
    atomic_add,
    atomic_and,
    atomic_cas,
    atomic_load,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_poll,
    atomic_store,
    atomic_xchg,
    atomic_xor,
    bfloat16,
    bitonic_merge,
    broadcast,
    broadcast_to,
    cast,
    cdiv,
    ceil,
    clamp,
    condition,
    const,
    constexpr,
    cos,
    cumprod,
    cumsum,
    debug_barrier,
    device_assert,
    device_print,
    dot,
    dtype,
    erf,
    exp,
    exp2,
    expand_dims,
    expect_zero,
    fdiv,
    float8e4b8,
    float8e4b15,
    float8e4nv,
    float8e5,
    float8e5b16,
    float16,
    float32,
    float64,
    floor,
    fma,
    full,
    int1,
    int8,
    int16,
    int32,
    int64,
    load,
    log,
    log2,
    max,
    max_constancy,
    max_contiguous,
    maximum,
    min,
    minimum,
    multiple_of,
    num_programs,
    permute,
    pi32_t,
    pointer_type,
    program_id,
    range,
    reduce,
    reduce_or,
    reshape,
    rsqrt,
    sigmoid,
    sin,
    softmax,
    sort,
    sqrt,
    sqrt_rn,
    static_assert,
    static_print,
    static_range,
    store,
    sum,
    tensor,
    to_tensor,
    topk,
    trans,
    uint8,
    uint16,
    uint32,
    uint64,
    view,
    where,
    xor_sum,
    zeros,
    zeros_like,
)
from blkc.language.math import div_rn, umulhi
from blkc.language.microscaling import dot_scaled
from blkc.language.random import (
    pair_uniform_to_normal,
    philox,
    philox_impl,
    rand,
    rand4x,
    randint,
    randint4x,
    randn,
    randn4x,
    uint_to_uniform_float,
)
from blkc.language.shapes import (
    add,
    cat,
    flip,
    gather,
    histogram,
    interleave,
    join,
    mul,
    ravel,
    split,
    squeeze,
    sub,
    swizzle2d,
    unsqueeze,
)
from blkc.language.tensor_descriptors import TensorDescriptor as tensor_descriptor  # noqa: N813
from blkc.language.tensor_descriptors import (
    load_tensor_descriptor,
    make_tensor_descriptor,
    store_tensor_descriptor,
)


class tuple(builtins.tuple):  # noqa: A001, N801 - Triton's name
    """`tl.tuple(values)`: a tuple of kernel values (Triton's `tl.tuple`); in kernels it
    indexes, unpacks, compares and concatenates as a Python tuple."""

    __slots__ = ()


TRITON_MAX_TENSOR_NUMEL = 1 << 20
"""Triton's largest block, in elements (Triton refuses larger ones; blkc compiles them, as
far as memory allows): what kernel libraries size their blocks against."""

__all__ = [
    "TRITON_MAX_TENSOR_NUMEL", "tuple",
    "PropagateNan", "abs", "arange", "argmax", "argmin", "assume", "atomic_add",
    "atomic_and", "atomic_cas", "atomic_load", "atomic_max", "atomic_min", "atomic_or",
    "atomic_poll", "atomic_store",
    "atomic_xchg", "atomic_xor", "bfloat16", "broadcast", "broadcast_to", "cast", "cdiv",
    "ceil", "clamp", "condition", "const", "expect_zero",
    "constexpr", "cos", "cumprod", "cumsum", "debug_barrier", "device_assert",
    "device_print", "dot", "dtype", "erf", "exp", "exp2", "expand_dims", "fdiv", "float16",
    "float32", "float64", "float8e4nv", "float8e5", "float8e4b15",
    "float8e4b8", "float8e5b16", "floor", "fma", "full", "int1", "int8",
    "int16", "int32", "int64", "load", "log", "log2", "math", "max", "max_constancy",
    "max_contiguous", "maximum", "min", "minimum", "multiple_of", "num_programs", "permute",
    "pointer_type", "program_id", "range", "reshape", "rsqrt", "sigmoid", "sin", "softmax",
    "sqrt", "sqrt_rn", "static_assert", "static_print", "static_range", "store", "sum",
    "tensor", "trans", "uint8", "uint16", "uint32", "uint64", "view", "where", "xor_sum",
    "zeros", "zeros_like",
    "add", "cat", "flip", "gather", "histogram", "interleave", "join", "mul", "ravel",
    "reduce_or", "split", "squeeze", "sub", "swizzle2d", "unsqueeze",
    "sort", "topk", "bitonic_merge",
    "associative_scan", "reduce", "extra", "target_info",
    "advance", "make_block_ptr",
    "make_tensor_descriptor", "load_tensor_descriptor", "store_tensor_descriptor",
    "tensor_descriptor", "div_rn", "umulhi", "dot_scaled",
    "pi32_t", "to_tensor", "random", "pair_uniform_to_normal", "philox", "philox_impl", "rand",
    "rand4x", "randint", "randint4x", "randn", "randn4x", "uint_to_uniform_float",
]  # fmt: skip
