"""`dot`'s register tile is sized from the target's vector registers
(`convert-blk-to-loops{vector-bits=N vector-registers=R}`, which the `cpu` target fills in
from `blkc.runtime.cpu_target`), and every tile, with its shorter last rows, computes what
NumPy does."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.diagnostics import BlkcError
from blkc.passes.convert_blk_to_loops import dot_register_tile
from blkc.pipeline import build_passes
from blkc.runtime import cpu_target


@pytest.mark.parametrize(
    ("m", "n", "lanes", "registers", "tile"),
    [
        (64, 64, 8, 16, (6, 16)),  # AVX2: 12 accumulators, 2 vectors of B, 2 spare
        (64, 128, 16, 32, (4, 32)),  # AVX-512 scalars: 8 accumulators (128 elements)
        (32, 32, 16, 32, (4, 32)),
        (64, 48, 16, 32, (2, 48)),  # 3 vectors where 2 and 4 do not divide
        (64, 64, 4, 16, (6, 8)),  # SSE
        (16, 8, 16, 32, (16, 8)),  # narrower than a vector
        (64, 64, 8, 32, (4, 32)),  # many registers, at most 128 accumulators
        (2, 64, 8, 16, (2, 32)),  # few rows: wider, as the registers allow
    ],
)
def test_the_tile_follows_the_registers(
    m: int, n: int, lanes: int, registers: int, tile: tuple[int, int]
) -> None:
    assert dot_register_tile(m, n, lanes, registers) == tile


@pytest.mark.parametrize(
    ("m", "n", "lanes", "registers", "tile"),
    [
        (128, 128, 16, 32, (4, 64)),  # AVX-512: 16 vector accumulators, 4 vectors of B
        (64, 32, 16, 32, (8, 32)),  # two vectors wide: 8 rows of 16 accumulators
        (64, 64, 8, 16, (6, 16)),  # AVX2: the registers bound it first, as for scalars
        (128, 64, 8, 32, (4, 32)),  # AVX-512 at 256 bits
    ],
)
def test_a_vector_tile_holds_up_to_sixteen_accumulators(
    m: int, n: int, lanes: int, registers: int, tile: tuple[int, int]
) -> None:
    """A `blk.dot_tile` is vector code from the start: its accumulators are bounded by the
    registers and by `_TILE_VECTORS`, not by the scalar tiles' 128 elements."""
    assert dot_register_tile(m, n, lanes, registers, vector_tile=True) == tile


@pytest.mark.parametrize("lanes", [2, 4, 8, 16])
@pytest.mark.parametrize("registers", [8, 16, 32])
def test_every_tile_fits_its_registers(lanes: int, registers: int) -> None:
    for m in (1, 2, 3, 5, 16, 24, 64, 128):
        for n in (1, 2, 4, 8, 12, 16, 24, 48, 64, 256):
            rows, cols = dot_register_tile(m, n, lanes, registers)
            vectors = math.ceil(cols / lanes)
            assert 1 <= rows <= m and n % cols == 0
            assert rows * vectors + vectors + 2 <= registers, (m, n, rows, cols)
            assert rows * cols <= 128 or rows == 1
            if n % lanes == 0:
                rows, cols = dot_register_tile(m, n, lanes, registers, vector_tile=True)
                vectors = cols // lanes
                assert 1 <= rows <= m and n % cols == 0
                assert rows * vectors + vectors + 2 <= registers, (m, n, rows, cols)
                assert rows * vectors <= 16, (m, n, rows, cols)


def test_the_pass_refuses_registers_it_cannot_use() -> None:
    with pytest.raises(BlkcError, match="vector-bits must be a power of two >= 32, got 48"):
        build_passes("convert-blk-to-loops{vector-bits=48}")
    with pytest.raises(BlkcError, match="vector-registers must be at least 4, got 2"):
        build_passes("convert-blk-to-loops{vector-registers=2}")


@blkc.jit
def block_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    acc = tl.full((M, N), 1, c_ptr.dtype.element_ty)
    acc = tl.dot(a, b, acc, out_dtype=c_ptr.dtype.element_ty)
    tl.store(c_ptr + m[:, None] * N + n[None, :], acc)


@pytest.mark.parametrize(("bits", "registers"), [(128, 16), (256, 16), (512, 32), (128, 8)])
def test_each_register_file_computes_numpy_results(
    bits: int, registers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The description changes only how the loops are tiled; the code is the host's.
    target = dataclasses.replace(cpu_target.host(), vector_bits=bits, vector_registers=registers)
    monkeypatch.setattr(cpu_target, "host", lambda: target)
    rng = numpy.random.default_rng(bits + registers)
    for (m, n, k), dtype, out in [
        ((64, 64, 16), numpy.float32, numpy.float32),  # 6-row tiles and a 4-row tail
        ((32, 128, 8), numpy.float32, numpy.float32),
        ((16, 16, 32), numpy.float64, numpy.float64),
        ((32, 64, 16), numpy.int8, numpy.int32),
        ((16, 8, 16), numpy.float16, numpy.float32),
    ]:
        if dtype == numpy.int8:
            a = rng.integers(-128, 128, (m, k)).astype(dtype)
            b = rng.integers(-128, 128, (k, n)).astype(dtype)
        else:
            a = rng.standard_normal((m, k)).astype(dtype)
            b = rng.standard_normal((k, n)).astype(dtype)
        c = numpy.zeros((m, n), out)
        block_dot[(1,)](a, b, c, M=m, N=n, K=k)
        expected = a.astype(out) @ b.astype(out) + 1
        if dtype == numpy.int8:
            numpy.testing.assert_array_equal(c, expected)
        else:
            numpy.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


def test_the_host_description_follows_its_features() -> None:
    assert cpu_target.describe_features("x86_64-unknown-linux-gnu", "+avx,+avx2,+avx512f") == (
        512,
        32,
    )
    assert cpu_target.describe_features("x86_64-unknown-linux-gnu", "+avx,+avx2,-avx512f") == (
        256,
        16,
    )
    assert cpu_target.describe_features("x86_64-pc-linux-gnu", "+sse4.2,-avx") == (128, 16)
    assert cpu_target.describe_features("aarch64-unknown-linux-gnu", "+neon") == (128, 32)


def test_switching_a_feature_off_switches_off_what_needs_it() -> None:
    closed = cpu_target._closed("+sse4.2,+avx,+avx2,+fma,+avx512f,+avx512bw,+avx512bf16,-avx")
    on = cpu_target._feature_map(closed)
    assert not any(on[name] for name in ("avx", "avx2", "fma", "avx512f", "avx512bw"))
    assert on["sse4.2"]


def test_bad_feature_switches_are_refused() -> None:
    with pytest.raises(ValueError, match=r"BLKC_CPU_FEATURES: 'avx512f' is not a feature switch"):
        cpu_target.parse_switches("avx512f")
    assert cpu_target.parse_switches(" -avx512f, +fma ") == "-avx512f,+fma"


@blkc.jit
def tile_rows(x_ptr, y_ptr, row0, stride, R: tl.constexpr, C: tl.constexpr):
    # row0 * stride may wrap around 32 bits: the offset is the wrapped sum, as in Triton.
    r, c = tl.arange(0, R), tl.arange(0, C)
    tile = tl.load(x_ptr + (row0 * stride + r[:, None] * stride + c[None, :]))
    tl.store(y_ptr + r[:, None] * C + c[None, :], tile)


@pytest.mark.parametrize("columns", [8, 32, 64])
def test_tile_loads_read_the_offsets_their_arithmetic_computes(columns: int) -> None:
    # Checked nests address proven accesses by their offset polynomial in 64 bits (see
    # `CpuKernelEmitter.address`): equal to the 32-bit arithmetic wherever it is taken.
    x = numpy.arange(40 * 100, dtype=numpy.float32).reshape(40, 100)
    y = numpy.zeros((8, columns), numpy.float32)
    tile_rows[(1,)](x, y, 3, 100, R=8, C=columns)
    numpy.testing.assert_array_equal(y, x[3:11, :columns])
    # 2**32 / 64 * 64 wraps to 0: rows from 0 again, through the checked copy.
    tile_rows[(1,)](x, y, 2**26, 64, R=8, C=columns)
    numpy.testing.assert_array_equal(y, x.reshape(-1)[: 8 * 64].reshape(8, 64)[:, :columns])


def test_the_host_description_is_kept_under_the_cpus_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process whose kernels are cached reads the host's description from the cache, not
    from LLVM; another CPU (its /proc/cpuinfo) or other switches ask LLVM again."""
    cpuinfo = tmp_path / "cpuinfo"
    first = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\ncpu MHz\t\t: {}\n"
    flags = "flags\t\t: fpu sse2 avx avx2\n"
    cpuinfo.write_text(first.format(2000) + flags + "\nprocessor\t: 1\n")
    monkeypatch.setattr(cpu_target, "CPUINFO", cpuinfo)
    monkeypatch.setenv("BLKC_CACHE_DIR", str(tmp_path / "cache"))
    asked: list[str] = []
    real = cpu_target._llvm_description

    def counted(switches: str) -> tuple[str, str, str]:
        asked.append(switches)
        return real(switches)

    monkeypatch.setattr(cpu_target, "_llvm_description", counted)
    described = cpu_target._host_description("")
    assert cpu_target._host_description("") == described == real("")
    cpuinfo.write_text(first.format(3100) + flags)  # the clock is not the CPU's identity
    assert cpu_target._host_description("") == described
    assert asked == [""]
    assert cpu_target._host_description("-avx512f") == real("-avx512f")
    cpuinfo.write_text(first.format(2000) + "flags\t\t: fpu sse2 avx\n")
    cpu_target._host_description("")
    assert asked == ["", "-avx512f", ""]
    assert len(list((tmp_path / "cache").glob("host-*.json"))) == 3


def _loops_around(op: object) -> set[object]:
    from xdsl.dialects import scf

    loops, parent = set(), op.parent_op()  # type: ignore[attr-defined]
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            loops.add(parent)
        parent = parent.parent_op()
    return loops


def test_a_is_computed_a_band_of_tile_rows_at_a_time() -> None:
    """A, loaded for the dot alone, is copied inside the dot's tile loops, each band of
    rows just before its tiles (`LoopLowering._band_by_band`); B is copied before them."""
    from xdsl.dialects import func

    from blkc.dialects import blk
    from blkc.pipeline import parse
    from blkc.runtime import access_ranges

    a = numpy.zeros((64, 16), numpy.float32)
    b = numpy.zeros((16, 64), numpy.float32)
    # Not `block_dot`, whose variants another test compiles for other register files.
    band_dot = blkc.jit(block_dot.fn)
    compiled = band_dot.warmup(a, b, numpy.zeros((64, 64), numpy.float32), M=64, N=64, K=16)
    module = parse(compiled.asm["loops"])
    tiles: set[object] = set()
    for op in module.walk():
        if isinstance(op, blk.DotTileOp):
            tiles |= _loops_around(op)
    args = list(next(op for op in module.walk() if isinstance(op, func.FuncOp)).args)
    loads: dict[int, list[object]] = {0: [], 1: []}
    for op in module.walk():
        if isinstance(op, blk.LoadOp):
            loads[args.index(access_ranges.base_pointer(op.ptr, args))].append(op)
    # (and the rows of a shorter last tile, where the tile's rows do not divide 64, after)
    assert any(_loops_around(load) & tiles for load in loads[0])
    assert loads[1] and not any(_loops_around(load) & tiles for load in loads[1])


@blkc.jit
def dots_of_computed_a(
    a_ptr, b_ptr, c_ptr, MODE: tl.constexpr, S: tl.constexpr, STEPS: tl.constexpr
):  # fmt: skip
    r = tl.arange(0, S)
    b = tl.load(b_ptr + r[:, None] * S + r[None, :])
    acc = tl.load(c_ptr + r[:, None] * S + r[None, :])
    for step in range(STEPS):
        if MODE == 0:  # A computed from a masked load: rows past 5 + step are `other`
            mask = (r[:, None] < 5 + step) & (r[None, :] < S)
            a = tl.load(a_ptr + r[:, None] * S + r[None, :], mask=mask, other=2.0) * 0.5
        else:  # A read from the accumulator the dot adds into
            a = tl.trans(acc)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * S + r[None, :], acc)


@pytest.mark.parametrize("mode", [0, 1])
def test_a_computed_band_by_band_is_what_it_was_before_the_dot(mode: int) -> None:
    s, steps = 32, 3
    rng = numpy.random.default_rng(mode)
    a = rng.integers(-3, 4, (s, s)).astype(numpy.float32)
    b = rng.integers(-3, 4, (s, s)).astype(numpy.float32) / 8
    c = rng.integers(-3, 4, (s, s)).astype(numpy.float32)
    expected = c.astype(numpy.float64)
    for step in range(steps):
        if mode == 0:
            x = numpy.where(numpy.arange(s)[:, None] < 5 + step, a, 2.0) * 0.5
        else:
            x = expected.T.copy()
        expected = x @ b + expected
    dots_of_computed_a[(1,)](a, b, c, MODE=mode, S=s, STEPS=steps)
    numpy.testing.assert_allclose(c, expected, rtol=1e-6)
