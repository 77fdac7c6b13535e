"""Non-temporal (streaming) stores: a nest that writes whole cache lines gets a copy whose
stores bypass the cache, taken when the run is 16-byte aligned and the launch stores more
than `launch.stream_threshold()` bytes. It must compute exactly what the plain copies do,
keep out-of-bounds accesses skipped and reported, and never assume an alignment it did not
check."""

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime import jit, launch

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

needs_x86 = pytest.mark.skipif(
    not jit.streaming_stores_supported(), reason="non-temporal stores need x86 with SSE2"
)

# A block of 8 f32 writes 32 bytes: too few for streaming.
TINY_COPY = """
module {
  func.func @tiny_copy(%src: !blk.ptr<f32>, %dst: !blk.ptr<f32>) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %block = blk.literal 8 : !blk.weak<int>
    %start = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %range = blk.arange 0, 8 : tensor<8xi32>
    %offs = blk.add %start, %range : i32, tensor<8xi32> -> tensor<8xi32>
    %p = blk.addptr %src, %offs : !blk.ptr<f32>, tensor<8xi32> -> tensor<8x!blk.ptr<f32>>
    %x = blk.load %p : tensor<8x!blk.ptr<f32>>
    %q = blk.addptr %dst, %offs : !blk.ptr<f32>, tensor<8xi32> -> tensor<8x!blk.ptr<f32>>
    blk.store %q, %x : tensor<8x!blk.ptr<f32>>
    func.return
  }
}
"""


def example(name: str, check_bounds: bool = True) -> blkc.Kernel:
    path = EXAMPLES / f"{name}.mlir"
    return blkc.compile(path.read_text(), filename=str(path), check_bounds=check_bounds)


def aligned(count: int, skip_bytes: int = 0) -> numpy.ndarray:
    """`count` float32 starting `skip_bytes` past a 64-byte boundary."""
    raw = numpy.zeros(count * 4 + 128, numpy.uint8)
    start = (-raw.ctypes.data) % 64 + skip_bytes
    return raw[start : start + count * 4].view(numpy.float32)


def vector_add(
    monkeypatch: pytest.MonkeyPatch, stream: str, n: int, skip: int = 0, check: bool = True
) -> numpy.ndarray:
    monkeypatch.setenv("BLKC_STREAM_BYTES", stream)
    rng = numpy.random.default_rng(n)
    x, y, out = aligned(n, skip), aligned(n, skip), aligned(n, skip)
    x[...], y[...] = rng.standard_normal(n), rng.standard_normal(n)
    example("vector_add", check)[((n + 1023) // 1024,)](x, y, out, n)
    numpy.testing.assert_array_equal(out, x + y)
    return out


@needs_x86
def test_a_large_store_nest_streams_with_aligned_vector_stores_and_a_fence() -> None:
    kernel = example("vector_add")
    llvm_ir, asm = kernel.asm["llvm"], kernel.asm["asm"]
    assert "!nontemporal" in llvm_ir
    assert "llvm.x86.sse.sfence" in llvm_ir
    assert "movntps" in asm
    assert "movntss" not in asm  # never one scalar non-temporal store per element


@needs_x86
def test_runs_on_any_16_byte_boundary_stream() -> None:
    """NumPy puts a large array 16 bytes past a page: its runs must stream too, so the
    streaming copy asks for 16-byte alignment, not a cache line's, and its wide vector
    stores become 16-byte non-temporal ones."""
    llvm_ir = example("vector_add").asm["llvm"]
    masks = re.findall(r"@llvm\.ptrmask\.p0\.i64\(ptr %[.\w]+, i64 (-?\d+)\)", llvm_ir)
    assert masks and set(masks) == {str(-jit.NONTEMPORAL_ALIGNMENT)}
    test = rf"= and i64 %[.\w]+, {jit.NONTEMPORAL_ALIGNMENT - 1}$"
    assert re.search(test, llvm_ir, re.MULTILINE)
    assert re.search(r"movntps\s+%xmm", example("vector_add").asm["asm"])


@needs_x86
@pytest.mark.parametrize("check", ["1", "0"])
@pytest.mark.parametrize("cols", [1024, 1000, 768, 300, 2500])
def test_a_store_through_a_moved_pointer_streams(
    monkeypatch: pytest.MonkeyPatch, cols: int, check: str
) -> None:
    """Triton's tutorial layer norm moves its pointers a row on (`Y += row * stride`) and
    stores `Y + cols` in a loop over column blocks: the sum of the two offsets is one run,
    which streams (and computes exactly what plain stores do, in full blocks and in the
    masked last one)."""
    sys.path.insert(0, str(EXAMPLES))
    import layernorm

    monkeypatch.setenv("BLKC_CHECK_BOUNDS", check)
    rows = 24
    rng = numpy.random.default_rng(cols)
    x = rng.standard_normal((rows, cols)).astype(numpy.float32)
    w, b = rng.standard_normal(cols).astype(numpy.float32), numpy.ones(cols, numpy.float32)
    results = []
    for stream in ("0", "-1"):
        monkeypatch.setenv("BLKC_STREAM_BYTES", stream)
        y = aligned(rows * cols, 16).reshape(rows, cols)
        mean, rstd = numpy.empty(rows, numpy.float32), numpy.empty(rows, numpy.float32)
        layernorm.layer_norm(x, w, b, 1e-5, y, mean, rstd)
        results.append(y.copy())
    numpy.testing.assert_array_equal(results[0], results[1])
    expected, _, _ = layernorm.layer_norm_reference(x, w, b, 1e-5)
    numpy.testing.assert_allclose(results[0], expected, rtol=1e-4, atol=1e-4)
    kernel = layernorm._layer_norm_fwd_fused.warmup(
        x, y, w, b, mean, rstd, cols, cols, 1e-5, BLOCK_SIZE=1024, grid=(1,)
    )
    assert "!nontemporal" in kernel.asm["llvm"]
    assert "movntps" in kernel.asm["asm"]


@blkc.jit
def plain_copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + o, tl.load(x_ptr + o))


@needs_x86
def test_an_unmasked_store_streams_without_bounds_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """No mask and no bounds checks: the streaming copy is the nest's only fast one."""
    monkeypatch.setenv("BLKC_CHECK_BOUNDS", "0")
    monkeypatch.setenv("BLKC_STREAM_BYTES", "0")
    x = numpy.arange(4096, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    plain_copy[(4,)](x, out, BLOCK=1024)
    numpy.testing.assert_array_equal(out, x)
    compiled = plain_copy.warmup(x, out, BLOCK=1024, grid=(4,))
    assert "!nontemporal" in compiled.asm["llvm"]


@needs_x86
def test_a_tiny_store_nest_keeps_plain_stores() -> None:
    kernel = blkc.compile(TINY_COPY, filename="tiny.mlir")
    assert "!nontemporal" not in kernel.asm["llvm"]
    assert "sfence" not in kernel.asm["llvm"]


@pytest.mark.parametrize("check", [True, False])
@pytest.mark.parametrize("n", [1024, 5000, 1 << 16])
def test_streamed_and_plain_stores_give_identical_results(
    monkeypatch: pytest.MonkeyPatch, n: int, check: bool
) -> None:
    streamed = vector_add(monkeypatch, "0", n, check=check)
    plain = vector_add(monkeypatch, "-1", n, check=check)
    numpy.testing.assert_array_equal(streamed, plain)


@pytest.mark.parametrize("skip", [4, 16, 32])
def test_arrays_off_a_cache_line_give_correct_results(
    monkeypatch: pytest.MonkeyPatch, skip: int
) -> None:
    vector_add(monkeypatch, "0", 4096 + 17, skip)


@pytest.mark.parametrize("rows", [3, 64])
def test_streamed_softmax_rows_match_plain_ones_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch, rows: int
) -> None:
    stride = 1028  # rows 4 * 1028 * 4 bytes apart: every fourth row starts on a line
    x = numpy.random.default_rng(rows).standard_normal((rows, stride)).astype(numpy.float32)
    outputs = []
    for stream in ("0", "-1"):
        monkeypatch.setenv("BLKC_STREAM_BYTES", stream)
        y = aligned(rows * stride).reshape(rows, stride)
        example("softmax")[(rows,)](x, y, stride, 1024)
        outputs.append(y.copy())
    numpy.testing.assert_array_equal(outputs[0], outputs[1])
    numpy.testing.assert_allclose(outputs[0][:, :1024].sum(axis=1), 1, rtol=1e-5)


def test_stores_outside_the_array_are_still_skipped_and_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BLKC_STREAM_BYTES", "0")
    n = 2048
    x, y = aligned(n), aligned(n)
    x[...], y[...] = 1, 2
    out = aligned(1500)
    with pytest.raises(IndexError, match="outside the arrays"):
        example("vector_add")[(2,)](x, y, out, n)
    numpy.testing.assert_array_equal(out, 3)


def test_the_threshold_comes_from_the_environment_or_the_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BLKC_STREAM_BYTES", "123")
    assert launch.stream_threshold() == 123
    monkeypatch.setenv("BLKC_STREAM_BYTES", "-1")
    assert launch.stream_threshold() == 2**63 - 1
    monkeypatch.delenv("BLKC_STREAM_BYTES")
    default = launch.stream_threshold()
    assert default > 0
    monkeypatch.setenv("BLKC_STREAM_BYTES", " ")  # set but empty: as if unset
    assert launch.stream_threshold() == default


def test_a_malformed_threshold_is_named_at_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 4096
    x, y, out = (numpy.ones(n, numpy.float32) for _ in range(3))
    add = example("vector_add")
    add[(4,)](x, y, out, n)
    monkeypatch.setenv("BLKC_STREAM_BYTES", "16MB")
    with pytest.raises(ValueError, match=r"BLKC_STREAM_BYTES must be an integer .* got '16MB'"):
        add[(4,)](x, y, out, n)


def test_only_16_byte_aligned_marked_vector_stores_become_non_temporal() -> None:
    llvm_ir = "\n".join(
        [
            "define void @f(ptr %p, <16 x float> %v, <2 x float> %w, float %s) {",
            "  store <16 x float> %v, ptr %p, align 64, !alias.scope !2",
            "  store <16 x float> %v, ptr %p, align 16, !alias.scope !2",
            "  store <2 x float> %w, ptr %p, align 8, !alias.scope !2",
            "  store <16 x float> %v, ptr %p, align 8, !alias.scope !2",
            "  store <16 x float> %v, ptr %p, align 4, !alias.scope !2",
            "  store float %s, ptr %p, align 4, !alias.scope !2",
            "  store <16 x float> %v, ptr %p, align 64",
            "  ret void",
            "}",
            '!0 = !{!"blkc.streaming"}',
            '!1 = !{!"blkc.nontemporal", !0}',
            "!2 = !{!1}",
        ]
    )
    marked = jit.mark_nontemporal(llvm_ir).splitlines()
    assert all("!nontemporal !3" in line for line in marked[1:4])
    assert all("nontemporal" not in line for line in marked[4:8])
    assert marked[-1] == "!3 = !{i32 1}"


@blkc.jit
def tripled(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + o, 3 * tl.load(x_ptr + o, mask=o < n), mask=o < n)


def triple(kernel: Any, n: int, block: int = 1024) -> None:
    """Launch `tripled`; each test takes a `block` of its own, and so a kernel of its own
    (the memory cache keeps them across tests)."""
    x, out = aligned(n), aligned(n)
    x[...] = numpy.arange(n)
    kernel[(-(-n // block),)](x, out, n, BLOCK=block)
    numpy.testing.assert_array_equal(out, 3 * x)


def compiled_code(kernel: Any) -> Any:
    """The code launches of `kernel`'s one variant run (`backends.cpu._Binary`)."""
    (variant,) = kernel._variants.values()
    return variant.program.compiled()[True]


@needs_x86
def test_launches_below_the_threshold_run_the_lean_code_until_one_above(
    monkeypatch: pytest.MonkeyPatch, count_calls: Callable[[Any, str], list[int]]
) -> None:
    """A kernel whose nests have streaming copies is compiled without them for launches
    whose arrays span less than the threshold; the first launch over it compiles them
    (leaving its stub, which took the small launches, to Python), and that code serves
    every launch after it."""
    from blkc.backends.cpu import CpuProgram
    from blkc.jitfunction import JITFunction

    monkeypatch.setenv("BLKC_CACHE", "0")
    monkeypatch.setenv("BLKC_STREAM_BYTES", str(1 << 16))
    compiles = count_calls(CpuProgram, "_load_or_compile")
    python_launches = count_calls(JITFunction, "_run")
    kernel = blkc.jit(tripled.fn)
    small, large = 2048, 1 << 15  # 16 KiB and 256 KiB of arrays
    for _ in range(3):
        triple(kernel, small)
    code = compiled_code(kernel)
    assert code.lean and "!nontemporal" not in code.compiled.llvm_ir
    assert compiles[0] == 1 and python_launches[0] == 2  # the third took the stub
    for _ in range(3):
        triple(kernel, large)
    code = compiled_code(kernel)
    assert not code.lean and "!nontemporal" in code.compiled.llvm_ir
    assert compiles[0] == 2 and python_launches[0] == 3  # the stub left the first to Python
    for _ in range(2):
        triple(kernel, small)
    assert compiled_code(kernel) is code and compiles[0] == 2 and python_launches[0] == 3


@needs_x86
def test_warmup_compiles_the_lean_code_and_asm_shows_the_streaming_copies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BLKC_CACHE", "0")
    monkeypatch.setenv("BLKC_STREAM_BYTES", str(1 << 16))
    kernel = blkc.jit(tripled.fn)
    x = aligned(4096)
    compiled = kernel.warmup(x, x, 4096, BLOCK=512, grid=(8,))  # the other tests' BLOCK: 1024
    assert compiled_code(kernel).lean
    assert "!nontemporal" in compiled.asm["llvm"] and "movntps" in compiled.asm["asm"]
    assert not compiled_code(kernel).lean  # asm compiled the whole kernel, launches take it


LEAN_THEN_WARM = """
import sys
sys.path.insert(0, {tests!r})
import numpy
import blkc
from blkc.runtime import jit
from test_streaming_stores import compiled_code, triple, tripled

compiles = []
compile_isolated = jit.compile_isolated
jit.compile_isolated = lambda *a: compiles.append(a) or compile_isolated(*a)
kernel = blkc.jit(tripled.fn)
triple(kernel, int(sys.argv[1]))
print(len(compiles), compiled_code(kernel).lean)
"""


@needs_x86
def test_a_warm_process_loads_the_whole_kernel_where_the_disk_cache_holds_it(
    tmp_path: Path,
) -> None:
    """A small launch in a new process takes the kernel with its streaming copies from the
    disk cache, where an earlier large launch stored it, rather than compile the lean code."""
    import os
    import subprocess

    script = tmp_path / "lean_then_warm.py"
    script.write_text(LEAN_THEN_WARM.format(tests=str(Path(__file__).parent)))
    env = {**os.environ, "BLKC_CACHE_DIR": str(tmp_path / "cache"), "BLKC_STREAM_BYTES": "65536"}
    env.pop("BLKC_CACHE", None)

    def run(n: int) -> str:
        done = subprocess.run(
            [sys.executable, str(script), str(n)], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert run(2048) == ["1", "True"]  # cold: the lean code
    assert run(2048) == ["0", "True"]  # warm: the lean code, from the disk
    assert run(1 << 15) == ["1", "False"]  # a large launch compiles the whole kernel
    assert run(2048) == ["0", "False"]  # which the disk now serves small launches too


@needs_x86
@pytest.mark.parametrize(("stream", "lean"), [("0", False), ("-1", True)])
def test_the_threshold_setting_picks_the_form_compiled_first(
    monkeypatch: pytest.MonkeyPatch,
    count_calls: Callable[[Any, str], list[int]],
    stream: str,
    lean: bool,
) -> None:
    """Streaming always (0) compiles the whole kernel at once; never (-1), the lean one
    for good."""
    from blkc.backends.cpu import CpuProgram

    monkeypatch.setenv("BLKC_CACHE", "0")
    monkeypatch.setenv("BLKC_STREAM_BYTES", stream)
    compiles = count_calls(CpuProgram, "_load_or_compile")
    kernel = blkc.jit(tripled.fn)
    for n in (2048, 1 << 15):
        triple(kernel, n, block=256 if lean else 128)
    assert compiles[0] == 1 and compiled_code(kernel).lean is lean


@needs_x86
def test_the_variant_for_overlapping_arrays_has_a_lean_form_too(
    monkeypatch: pytest.MonkeyPatch, count_calls: Callable[[Any, str], list[int]]
) -> None:
    from blkc.backends.cpu import CpuProgram

    monkeypatch.setenv("BLKC_CACHE", "0")
    monkeypatch.setenv("BLKC_STREAM_BYTES", str(1 << 16))
    compiles = count_calls(CpuProgram, "_load_or_compile")
    kernel = blkc.jit(tripled.fn)
    for n in (2048, 1 << 15, 2048):  # in place: x is out
        x = aligned(n)
        x[...] = numpy.arange(n)
        kernel[(-(-n // 2048),)](x, x, n, BLOCK=2048)
        numpy.testing.assert_array_equal(x, 3 * numpy.arange(n, dtype=numpy.float32))
    (variant,) = kernel._variants.values()
    code = variant.program.compiled()[False]
    assert not code.lean and "!nontemporal" in code.compiled.llvm_ir and compiles[0] == 2
