"""`tl.make_tensor_descriptor`: block loads padded outside the tensor, stores and atomic
adds clipped to it, and Triton's rules for building a descriptor."""

from __future__ import annotations

import re

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def shifted_copy(X, Y, M, N, PAD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN], padding_option=PAD)
    dst = tl.make_tensor_descriptor(Y, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    i, j = tl.program_id(0) * BM, tl.program_id(1) * BN
    block = src.load([i + 1, j - 2])  # reaches past the tensor's edges
    dst.store([i, j], block * 2)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_loads_pad_and_stores_clip(padding: str, target: str) -> None:
    m, n, bm, bn = 10, 12, 4, 8
    x = numpy.arange(m * n, dtype=numpy.float32).reshape(m, n)
    y = numpy.full((m, n), -1, numpy.float32)
    grid = (blkc.cdiv(m, bm), blkc.cdiv(n, bn))
    shifted_copy[grid](x, y, m, n, PAD=padding, BM=bm, BN=bn, target=target)
    fill = 0.0 if padding == "zero" else numpy.nan
    expected = numpy.full((m, n), fill, numpy.float32)
    for r in range(m):
        for c in range(n):
            rr, cc = r + 1, c - 2
            if 0 <= rr < m and 0 <= cc < n:
                expected[r, c] = x[rr, cc]
    numpy.testing.assert_array_equal(y, expected * 2)


@blkc.jit
def add_block(Z, V, N, B: tl.constexpr):
    desc = tl.make_tensor_descriptor(Z, [N], [1], [B])
    v = tl.load(V + tl.arange(0, B))
    desc.atomic_add([tl.program_id(0) * 2], v)
    tl.static_assert(desc.block_shape == [B])
    tl.static_assert(desc.dtype == tl.int32)


def test_atomic_add_clips_and_accumulates() -> None:
    z = numpy.zeros(9, numpy.int32)
    add_block[(5,)](z, numpy.ones(4, numpy.int32), 9, B=4)
    expected = numpy.zeros(9, numpy.int32)
    for p in range(5):
        expected[2 * p : min(2 * p + 4, 9)] += 1
    assert z.tolist() == expected.tolist()


@blkc.jit
def bad_descriptor(X, CASE: tl.constexpr):
    if CASE == "narrow":
        tl.make_tensor_descriptor(X, [16, 16], [16, 1], [8, 2])
    elif CASE == "stride":
        tl.make_tensor_descriptor(X, [16, 16], [1, 16], [8, 8])
    elif CASE == "aligned":
        tl.make_tensor_descriptor(X, [16, 16], [3, 1], [8, 8])
    elif CASE == "rank":
        tl.make_tensor_descriptor(X, [16, 16], [16, 1], [8])
    elif CASE == "shape":
        d = tl.make_tensor_descriptor(X, [16, 16], [16, 1], [8, 8])
        d.store([0, 0], tl.zeros([8, 4], tl.float32))
    elif CASE == "offsets":
        d = tl.make_tensor_descriptor(X, [16, 16], [16, 1], [8, 8])
        d.load([0])
    else:
        d = tl.make_tensor_descriptor(X, [16, 16], [16, 1], [8, 8])
        d.gather([0])


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("narrow", "Descriptor block shape must have at least 16 bytes in the last dimension"),
        ("stride", "Tensor descriptor last dim must be 1 but got 16"),
        ("aligned", "Tensor descriptor strides must be 16-byte aligned"),
        ("rank", "Expected block_shape to have 2 dimensions but got 1"),
        ("shape", "expected value shape [8, 8], got [8, 4]"),
        ("offsets", "expected 2 offsets, but got 1"),
        ("gather", "a tensor descriptor has no attribute 'gather'"),
    ],
)
def test_descriptor_errors_are_located(case: str, message: str) -> None:
    with pytest.raises(blkc.BlkcError, match=re.escape(message)) as info:
        bad_descriptor.warmup(numpy.zeros(256, numpy.float32), CASE=case)
    assert f"{__file__}:" in str(info.value)


@blkc.jit
def _maybe_make_tensor_desc(desc_or_ptr, shape, strides, block_shape):
    # Triton's tutorial 06 (fused attention) takes a descriptor or a pointer so.
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


@blkc.jit
def doubled_tile(X, OUT, M, N, B: tl.constexpr):
    made = _maybe_make_tensor_desc(X, [M, N], [N, 1], [B, B])
    kept = _maybe_make_tensor_desc(made, [M, N], [N, 1], [B, B])
    o = tl.arange(0, B)
    tl.store(OUT + o[:, None] * B + o[None, :], kept.load([B, 0]) * 2)


def test_tl_tensor_descriptor_is_the_descriptors_class() -> None:
    x = numpy.arange(128, dtype=numpy.float32).reshape(16, 8)
    out = numpy.zeros((8, 8), numpy.float32)
    doubled_tile[(1,)](x, out, 16, 8, B=8)
    numpy.testing.assert_array_equal(out, x[8:] * 2)
