"""`tl.make_tensor_descriptor`: block loads padded outside the tensor, stores and atomic
adds clipped to it, and Triton's rules for building a descriptor."""

from __future__ import annotations

import re
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.tools.tensor_descriptor import TensorDescriptor


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
        d.gather(tl.arange(0, 8), 0)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("narrow", "Descriptor block shape must have at least 16 bytes in the last dimension"),
        ("stride", "Tensor descriptor last dim must be 1 but got 16"),
        ("aligned", "Tensor descriptor strides must be 16-byte aligned"),
        ("rank", "Expected block_shape to have 2 dimensions but got 1"),
        ("shape", "expected value shape [8, 8], got [8, 4]"),
        ("offsets", "expected 2 offsets, but got 1"),
        ("gather", "descriptor block must have 1 row, but got [8, 8]"),
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


# -- host-side descriptors (`blkc.tools.tensor_descriptor`) as kernel arguments -------------


@blkc.jit
def scaled_tiles(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    i, j = tl.program_id(0) * BM, tl.program_id(1) * BN
    tl.static_assert(src.block_shape == [BM, BN])
    dst.store([i, j], src.load([i, j]) * 2 + 1)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
def test_a_host_descriptor_is_an_argument(target: str) -> None:
    """A descriptor made on the host moves blocks as `tl.make_tensor_descriptor`'s does:
    loads padded and stores clipped at the array's edges, through a view's strides."""
    storage = numpy.arange(100 * 72, dtype=numpy.float32).reshape(100, 72)
    x = storage[:, 8:]  # rows of 64 elements 72 apart
    out = numpy.full((100, 64), -1, numpy.float32)
    src = TensorDescriptor.from_tensor(x, [32, 16])
    assert src.strides == [72, 1] and src.shape == [100, 64]
    dst = TensorDescriptor.from_tensor(out, [32, 16])
    scaled_tiles[(blkc.cdiv(100, 32), 4)](src, dst, BM=32, BN=16, target=target)
    numpy.testing.assert_array_equal(out, x * 2 + 1)


@blkc.jit
def joined(x_desc, y_desc, z_desc, DIM: tl.constexpr, RANK: tl.constexpr):
    z_desc.store([0] * RANK, tl.cat(x_desc.load([0] * RANK), y_desc.load([0] * RANK), dim=DIM))


@pytest.mark.parametrize("shape", [(128,), (16, 32), (8, 16, 4), (2, 4, 8, 16)])
def test_host_descriptors_of_every_rank(shape: tuple[int, ...]) -> None:
    rng = numpy.random.default_rng(len(shape))
    for dim in range(len(shape)):
        x, y = (rng.random(shape, dtype=numpy.float32) for _ in range(2))
        expected = numpy.concatenate([x, y], axis=dim)
        z = numpy.zeros_like(expected)
        descs = [TensorDescriptor.from_tensor(a, list(a.shape)) for a in (x, y, z)]
        joined[(1,)](*descs, DIM=dim, RANK=len(shape))
        numpy.testing.assert_array_equal(z, expected)


def test_a_host_descriptor_is_a_tl_tensor_descriptor() -> None:
    """Triton's tutorial 06 takes a descriptor or a pointer and tells them apart so."""
    x = numpy.arange(128, dtype=numpy.float32).reshape(16, 8)
    out = numpy.zeros((8, 8), numpy.float32)
    doubled_tile[(1,)](TensorDescriptor.from_tensor(x, [8, 8]), out, 16, 8, B=8)
    numpy.testing.assert_array_equal(out, x[8:] * 2)


def test_host_descriptors_specialize_on_their_block() -> None:
    """The block shape is compiled in: another block shape is another kernel, and the same
    one with other sizes reuses it."""
    first = numpy.ones((32, 32), numpy.float32)
    out = numpy.zeros_like(first)
    before = scaled_tiles.builds
    scaled_tiles[(2, 2)](
        *(TensorDescriptor.from_tensor(a, [16, 16]) for a in (first, out)), BM=16, BN=16
    )
    built = scaled_tiles.builds
    other = numpy.ones((48, 48), numpy.float32)
    out2 = numpy.zeros_like(other)
    scaled_tiles[(3, 3)](
        *(TensorDescriptor.from_tensor(a, [16, 16]) for a in (other, out2)), BM=16, BN=16
    )
    assert scaled_tiles.builds == built > before
    numpy.testing.assert_array_equal(out2, other * 2 + 1)
    out3 = numpy.zeros_like(other)
    scaled_tiles[(3, 6)](
        *(TensorDescriptor.from_tensor(a, [16, 8]) for a in (other, out3)), BM=16, BN=8
    )
    assert scaled_tiles.builds == built + 1
    numpy.testing.assert_array_equal(out3, other * 2 + 1)


def test_a_host_descriptor_breaking_tritons_rules_is_refused() -> None:
    x = numpy.zeros((16, 16), numpy.float32)
    with pytest.raises(ValueError, match="strides must be multiples of 16 bytes"):
        TensorDescriptor(x, [16, 7], [7, 1], [4, 4])
    with pytest.raises(ValueError, match=r"block_shape\[1\] must be a power of 2, got 12"):
        TensorDescriptor.from_tensor(x, [4, 12])
    with pytest.raises(ValueError, match="last stride must be 1"):
        TensorDescriptor(x, [16, 16], [1, 16], [4, 4])
    with pytest.raises(TypeError, match=r"shape\[0\] must be an int, got 16.5"):
        TensorDescriptor(x, [16.5, 16], [16, 1], [4, 4])  # was cut to 16
    with pytest.raises(ValueError, match="padding must be 'zero' or 'nan'"):
        TensorDescriptor.from_tensor(x, [4, 4], padding="edge")
    changed = TensorDescriptor.from_tensor(x, [16, 16])
    changed.block_shape = [16, 3]  # changed after it was made: checked at launch too
    with pytest.raises(ValueError, match=r"kernel 'scaled_tiles', argument 'src': block_shape"):
        scaled_tiles[(1, 1)](changed, TensorDescriptor.from_tensor(x, [16, 16]), BM=16, BN=16)
    tf32 = TensorDescriptor.from_tensor(x, [16, 16], round_f32_to_tf32=True)
    with pytest.raises(ValueError, match="round_f32_to_tf32"):
        scaled_tiles[(1, 1)](tf32, TensorDescriptor.from_tensor(x, [16, 16]), BM=16, BN=16)


def test_triton_names_the_host_descriptors_module() -> None:
    from blkc import as_triton

    assert as_triton.MODULES["triton.tools.tensor_descriptor"] == "blkc.tools.tensor_descriptor"


@blkc.jit
def combined(Z, V, N, KIND: tl.constexpr, B: tl.constexpr):
    desc = tl.make_tensor_descriptor(Z, [N], [1], [B])
    v = tl.load(V + tl.arange(0, B))
    if KIND == "min":
        desc.atomic_min([tl.program_id(0) * 2], v)
    elif KIND == "max":
        desc.atomic_max([tl.program_id(0) * 2], v)
    elif KIND == "and":
        desc.atomic_and([tl.program_id(0) * 2], v)
    elif KIND == "or":
        desc.atomic_or([tl.program_id(0) * 2], v)
    else:
        desc.atomic_xor([tl.program_id(0) * 2], v)


@pytest.mark.parametrize(
    ("kind", "ufunc"),
    [
        ("min", numpy.minimum),
        ("max", numpy.maximum),
        ("and", numpy.bitwise_and),
        ("or", numpy.bitwise_or),
        ("xor", numpy.bitwise_xor),
    ],
)
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.uint32, numpy.int64])
def test_descriptor_atomics_combine_inside_the_tensor(kind: str, ufunc: Any, dtype: Any) -> None:
    rng = numpy.random.default_rng(7)
    z = rng.integers(0, 1 << 20, 9).astype(dtype)
    v = rng.integers(0, 1 << 20, 4).astype(dtype)
    expected = z.copy()
    for p in range(5):
        end = min(2 * p + 4, 9)
        expected[2 * p : end] = ufunc(expected[2 * p : end], v[: end - 2 * p])
    combined[(5,)](z, v, 9, KIND=kind, B=4)
    assert z.tolist() == expected.tolist()


def test_descriptor_float_minimum_is_refused_as_in_triton() -> None:
    with pytest.raises(blkc.BlkcError, match=r"desc.atomic_min takes descriptors of .*not float32"):
        combined.warmup(
            numpy.zeros(9, numpy.float32), numpy.zeros(4, numpy.float32), 9, KIND="min", B=4
        )


@blkc.jit
def rows_plus_ten(A, M, N, MB: tl.constexpr, NB: tl.constexpr):
    # Triton's loop-carried descriptors: made again in some iterations, carried by the others.
    m = tl.program_id(0) * MB
    desc = tl.make_tensor_descriptor(A, shape=[M, N], strides=[N, 1], block_shape=[MB, NB])
    for i in range(0, N, NB):
        if i % (3 * NB) == 0:
            desc = tl.make_tensor_descriptor(A, shape=[M, N], strides=[N, 1], block_shape=[MB, NB])
        desc.store([m, i], desc.load([m, i]) + 10)
    n = 0
    while n < N:
        if n > NB:
            desc = tl.make_tensor_descriptor(A, shape=[M, N], strides=[N, 1], block_shape=[MB, NB])
        desc.store([m, n], desc.load([m, n]) * 2)
        n += NB


def test_loops_and_ifs_carry_descriptors() -> None:
    a = numpy.arange(16 * 40, dtype=numpy.float32).reshape(16, 40)
    expected = (a + 10) * 2
    rows_plus_ten[(2,)](a, 16, 40, MB=8, NB=16)
    numpy.testing.assert_array_equal(a, expected)


@blkc.jit
def reshaped_in_loop(A, N):
    desc = tl.make_tensor_descriptor(A, shape=[N], strides=[1], block_shape=[16])
    for i in range(0, N, 16):
        desc.store([i], desc.load([i]))
        desc = tl.make_tensor_descriptor(A, shape=[N], strides=[1], block_shape=[32])


def test_a_descriptor_changing_its_block_in_a_loop_is_refused() -> None:
    with pytest.raises(blkc.BlkcError, match="keeps its block shape") as info:
        reshaped_in_loop.warmup(numpy.zeros(64, numpy.float32), 64)
    assert f"{__file__}:" in str(info.value)


@blkc.jit
def gathered_rows(X, Y, ROWS, M, N, COL, PAD: tl.constexpr, R: tl.constexpr, B: tl.constexpr):
    src = tl.make_tensor_descriptor(X, [M, N], [N, 1], [1, B], padding_option=PAD)
    dst = tl.make_tensor_descriptor(Y, [M, N], [N, 1], [1, B])
    rows = tl.load(ROWS + tl.arange(0, R))
    block = src.gather(rows, COL)
    dst.scatter(block * 2, rows, COL - 2)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_gather_and_scatter_move_rows(padding: str, target: str) -> None:
    """`desc.gather` reads whole block rows at any rows (padded outside the tensor) and
    `desc.scatter` writes them (only inside), as Triton's interpreter does."""
    m, n, col, block = 12, 20, 6, 16  # the gather reads columns 6 to 21: two outside
    x = numpy.arange(m * n, dtype=numpy.float32).reshape(m, n)
    y = numpy.full((m, n), -1, numpy.float32)
    rows = numpy.array([3, 0, 11, 12, -1, 7, 5, 9], numpy.int32)  # two outside the tensor
    gathered_rows[(1,)](x, y, rows, m, n, col, PAD=padding, R=8, B=block, target=target)
    fill = 0.0 if padding == "zero" else numpy.nan
    expected = numpy.full((m, n), -1, numpy.float32)
    for r in rows:
        if not 0 <= r < m:
            continue
        for j in range(block):
            source = x[r, col + j] if col + j < n else fill
            expected[r, col - 2 + j] = source * 2  # columns 4 to 19: all inside
    numpy.testing.assert_array_equal(y, expected)


@blkc.jit
def bad_gather(X, CASE: tl.constexpr):
    d = tl.make_tensor_descriptor(X, [16, 16], [16, 1], [1, 16])
    if CASE == "rows":
        d.gather(tl.arange(0, 4), 0)
    elif CASE == "dtype":
        d.gather(tl.arange(0, 8).to(tl.int64), 0)
    elif CASE == "columns":
        tl.make_tensor_descriptor(X, [16, 16], [16, 1], [1, 4]).gather(tl.arange(0, 8), 0)
    else:
        d.scatter(tl.zeros([8, 8], tl.float32), tl.arange(0, 8), 0)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("rows", "descriptor gather must have at least 8 rows, but got [4]"),
        ("dtype", "x offsets must have dtype int16 or int32, but got int64"),
        ("columns", "descriptor gather of float32 must have at least 8 columns, but got 4"),
        ("value", "expected value shape [8, 16], got [8, 8]"),
    ],
)
def test_gather_and_scatter_keep_tritons_rules(case: str, message: str) -> None:
    with pytest.raises(blkc.BlkcError, match=re.escape(message)) as info:
        bad_gather.warmup(numpy.zeros(256, numpy.float32), CASE=case)
    assert f"{__file__}:" in str(info.value)


def _set_blocks(nargs: dict[str, Any]) -> None:
    # Triton's persistent-matmul tutorial: descriptors made with a dummy block, which each
    # config's pre_hook sets to its own.
    bm, bn, bk = nargs["BM"], nargs["BN"], nargs["BK"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bn, bk]
    nargs["c_desc"].block_shape = [bm, bn]


@blkc.autotune(
    configs=[
        blkc.Config({"BM": 32, "BN": n, "BK": k}, pre_hook=_set_blocks)
        for n in (32, 64)
        for k in (16, 32)
    ],
    key=["M", "N", "K"],
)
@blkc.jit
def descriptor_matmul(
    a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    pid_m = tl.program_id(0) // tl.cdiv(N, BN)
    pid_n = tl.program_id(0) % tl.cdiv(N, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc)


def test_autotuned_descriptor_blocks_come_from_each_configs_pre_hook() -> None:
    m, n, k = 70, 100, 40
    rng = numpy.random.default_rng(3)
    a = rng.integers(-3, 4, (m, k)).astype(numpy.float32)
    b = rng.integers(-3, 4, (n, k)).astype(numpy.float32)
    c = numpy.zeros((m, n), numpy.float32)
    descs = [TensorDescriptor.from_tensor(x, [1, 1]) for x in (a, b, c)]

    def grid(meta: dict[str, Any]) -> tuple[int]:
        return (blkc.cdiv(m, meta["BM"]) * blkc.cdiv(n, meta["BN"]),)

    descriptor_matmul[grid](*descs, m, n, k)
    numpy.testing.assert_array_equal(c, a @ b.T)
