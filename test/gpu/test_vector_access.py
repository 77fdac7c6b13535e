"""Vector loads and stores: what the axis analysis proves of a chunk, the PTX it gives
(`ld.global.v4` / `st.global.v4`, assembled by ptxas for sm_80 and sm_90), and the same
lowering run on the CPU (`cpu-simt`, vector accesses as scalar loops) against the
interpreter."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from differential.harness import assert_same, run_both
from xdsl.dialects import func

import blkc
from blkc import targets
from blkc.dialects import blk
from blkc.passes.axis_info import UNBOUNDED, AxisInfo, AxisInfoAnalysis
from blkc.runtime import ptx
from blkc.runtime.gpu_kernel import GpuKernel

needs_ptxas = pytest.mark.skipif(not ptx.ptxas_available(), reason="ptxas is not installed")

TAIL = """
module {
  func.func @tail(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>, %n: i32 HINT,
                  %fill: f32) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %block = blk.literal 512 : !blk.weak<int>
    %start = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %range = blk.arange 0, 512 : tensor<512xi32>
    %offs = blk.add %start, %range : i32, tensor<512xi32> -> tensor<512xi32>
    %mask = blk.cmp lt, %offs, %n : tensor<512xi32>, i32 -> tensor<512xi1>
    %xp = blk.addptr %x_ptr, %offs : !blk.ptr<f32>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
    %x = blk.load %xp mask %mask other %fill
        : tensor<512x!blk.ptr<f32>>, tensor<512xi1>, f32 -> tensor<512xf32>
    %two = blk.literal 2.0 : !blk.weak<float>
    %y = blk.mul %x, %two : tensor<512xf32>, !blk.weak<float> -> tensor<512xf32>
    %yp = blk.addptr %y_ptr, %offs : !blk.ptr<f32>, tensor<512xi32> -> tensor<512x!blk.ptr<f32>>
    blk.store %yp, %y : tensor<512x!blk.ptr<f32>>
    func.return
  }
}
"""
HINTED_TAIL = TAIL.replace("HINT", "{blk.divisibility = 16 : i32}")
PLAIN_TAIL = TAIL.replace("HINT", "")
# `other` differing inside a chunk: chosen element by element after the vector load.
VARYING_OTHER = HINTED_TAIL.replace(
    "%x = blk.load %xp mask %mask other %fill",
    "%fills = blk.cast %offs : tensor<512xi32> -> tensor<512xf32>\n"
    "    %x = blk.load %xp mask %mask other %fills",
).replace(
    "tensor<512xi1>, f32 -> tensor<512xf32>", "tensor<512xi1>, tensor<512xf32> -> tensor<512xf32>"
)

# Rows of a matrix with a hinted stride: the row mask is the same along a row, so every
# chunk of 4 is one masked vector access.
ROWS = """
module {
  func.func @rows(%src: !blk.ptr<f32>, %dst: !blk.ptr<f32>, %m: i32,
                  %stride: i32 {blk.divisibility = 16 : i32}) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %block = blk.literal 16 : !blk.weak<int>
    %row0 = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %r = blk.arange 0, 16 : tensor<16xi32>
    %rows = blk.add %row0, %r : i32, tensor<16xi32> -> tensor<16xi32>
    %rows2 = blk.expand_dims %rows axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
    %c = blk.arange 0, 32 : tensor<32xi32>
    %cols = blk.expand_dims %c axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
    %row_off = blk.mul %rows2, %stride : tensor<16x1xi32>, i32 -> tensor<16x1xi32>
    %off = blk.add %row_off, %cols : tensor<16x1xi32>, tensor<1x32xi32> -> tensor<16x32xi32>
    %in_m = blk.cmp lt, %rows2, %m : tensor<16x1xi32>, i32 -> tensor<16x1xi1>
    %mask = blk.broadcast %in_m : tensor<16x1xi1> -> tensor<16x32xi1>
    %sp = blk.addptr %src, %off : !blk.ptr<f32>, tensor<16x32xi32> -> tensor<16x32x!blk.ptr<f32>>
    %minus = blk.literal -1.0 : !blk.weak<float>
    %x = blk.load %sp mask %mask other %minus
        : tensor<16x32x!blk.ptr<f32>>, tensor<16x32xi1>, !blk.weak<float> -> tensor<16x32xf32>
    %s = blk.reduce max, %x axis = 1 : tensor<16x32xf32> -> tensor<16xf32>
    %s2 = blk.expand_dims %s axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
    %y = blk.sub %x, %s2 : tensor<16x32xf32>, tensor<16x1xf32> -> tensor<16x32xf32>
    %dp = blk.addptr %dst, %off : !blk.ptr<f32>, tensor<16x32xi32> -> tensor<16x32x!blk.ptr<f32>>
    blk.store %dp, %y mask %mask : tensor<16x32x!blk.ptr<f32>>
    func.return
  }
}
"""


NAMES = ("source", "destination")


def copy_kernel(dtype: str, shape: tuple[int, ...]) -> str:
    """A scaled copy of one block of `shape` per program, unmasked: contiguous and
    aligned, so vectorized wherever the element size allows."""
    size = int(np.prod(shape))
    t = f"tensor<{'x'.join(map(str, shape))}x{dtype}>"
    pt = f"tensor<{'x'.join(map(str, shape))}x!blk.ptr<{dtype}>>"
    it = f"tensor<{'x'.join(map(str, shape))}xi32>"
    return f"""
module {{
  func.func @copy(%src: !blk.ptr<{dtype}>, %dst: !blk.ptr<{dtype}>) attributes {{blk.kernel}} {{
    %pid = blk.program_id 0 : i32
    %block = blk.literal {size} : !blk.weak<int>
    %start = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %range = blk.arange 0, {size} : tensor<{size}xi32>
    %flat = blk.add %start, %range : i32, tensor<{size}xi32> -> tensor<{size}xi32>
    %offs = blk.reshape %flat : tensor<{size}xi32> -> {it}
    %sp = blk.addptr %src, %offs : !blk.ptr<{dtype}>, {it} -> {pt}
    %x = blk.load %sp : {pt}
    %y = blk.add %x, %x : {t}
    %dp = blk.addptr %dst, %offs : !blk.ptr<{dtype}>, {it} -> {pt}
    blk.store %dp, %y : {pt}
    func.return
  }}
}}
"""


def strict_function(text: str) -> func.FuncOp:
    module = blkc.run_pipeline(blkc.parse(text), "to-strict{warn=false}")
    (function,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    return function


def info_of(function: func.FuncOp, name: str) -> AxisInfo:
    analysis = AxisInfoAnalysis(function)
    for op in function.walk():
        for result in op.results:
            if result.name_hint == name:
                return analysis[result]
    raise KeyError(name)


def gpu_kernel(text: str, arch: str) -> blkc.Kernel:
    kernel = blkc.compile(text, target="ptx", arch=arch)
    assert isinstance(kernel.program, GpuKernel)
    return kernel


# -- the analysis -----------------------------------------------------------------------


def test_pid_times_block_plus_arange_is_one_aligned_run() -> None:
    function = strict_function(PLAIN_TAIL)
    assert info_of(function, "offs") == AxisInfo(512, 1, 512)
    # 16-byte aligned arguments plus multiples of 512 floats.
    assert info_of(function, "xp") == AxisInfo(512, 1, 16)
    # n is unknown: the mask may change at any element.
    assert info_of(function, "mask").constancy == 1


def test_a_divisibility_hint_makes_the_tail_mask_uniform_over_16() -> None:
    function = strict_function(HINTED_TAIL)
    assert info_of(function, "mask").constancy == 16


def test_an_unknown_row_start_may_wrap_so_addresses_are_not_a_run() -> None:
    # row * stride + cols: the i32 sum may wrap inside a chunk, and the code generator
    # sign-extends each offset, so the addresses are not known to be consecutive.
    function = strict_function(ROWS.replace(" {blk.divisibility = 16 : i32}", ""))
    assert info_of(function, "off").contiguity == 32
    assert info_of(function, "sp").contiguity == 1
    hinted = strict_function(ROWS)
    assert info_of(hinted, "sp") == AxisInfo(16, 1, 16)  # runs start at multiples of 16
    assert info_of(hinted, "in_m").constancy == 1  # its last dimension has one element
    assert info_of(hinted, "mask").constancy == 32
    assert info_of(hinted, "rows2") == AxisInfo(1, 1, 1)


def test_a_stride_of_one_keeps_the_run() -> None:
    # Triton's launcher specializes a stride of 1 into the constant: offs * 1 is offs.
    text = """
    func.func @strided(%x_ptr: !blk.ptr<f32>) attributes {blk.kernel} {
      %k = blk.arange 0, 64 : tensor<64xi32>
      %one = blk.constant 1 : i32
      %offs = blk.mul %k, %one : tensor<64xi32>, i32 -> tensor<64xi32>
      %two = blk.constant 2 : i32
      %even = blk.mul %k, %two : tensor<64xi32>, i32 -> tensor<64xi32>
      %xp = blk.addptr %x_ptr, %offs : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
      %x = blk.load %xp : tensor<64x!blk.ptr<f32>>
      %ep = blk.addptr %x_ptr, %even : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
      blk.store %ep, %x : tensor<64x!blk.ptr<f32>>
      func.return
    }
    """
    function = strict_function(text)
    assert info_of(function, "offs") == AxisInfo(64, 1, 1 << 30)
    assert info_of(function, "xp") == AxisInfo(64, 1, 16)
    assert info_of(function, "even").contiguity == 1


def test_op_hints_raise_what_is_known() -> None:
    function = strict_function(PLAIN_TAIL)
    analysis = AxisInfoAnalysis(function)
    (n,) = [a for a in function.args if a.name_hint == "n"]
    assert analysis[n] == AxisInfo(1, UNBOUNDED, 1)
    cmp = next(op for op in function.walk() if isinstance(op, blk.CmpOp))
    cmp.attributes["blk.constancy"] = blkc_int(64)
    assert AxisInfoAnalysis(function)[cmp.results[0]].constancy == 64


def blkc_int(value: int) -> object:
    from xdsl.dialects.builtin import IntegerAttr, i32

    return IntegerAttr(value, i32)


# -- PTX --------------------------------------------------------------------------------


@pytest.mark.parametrize("arch", targets.ARCHES)
def test_hinted_tail_moves_chunks_as_vectors(arch: str) -> None:
    text = gpu_kernel(HINTED_TAIL, arch).asm["ptx"]
    assert text.count("ld.global.v4.b32") == 1 and text.count("st.global.v4.b32") == 1
    assert "ld.global.b32" not in text


def test_varying_other_is_chosen_per_element() -> None:
    text = gpu_kernel(VARYING_OTHER, "sm_90").asm["ptx"]
    assert text.count("ld.global.v4.b32") == 1 and text.count("selp.f32") == 4


@pytest.mark.parametrize("arch", targets.ARCHES)
def test_unknown_tail_loads_each_element_from_the_chunks_address(arch: str) -> None:
    text = gpu_kernel(PLAIN_TAIL, arch).asm["ptx"]
    assert "ld.global.v4" not in text
    # The store is unmasked: one vector store.
    assert text.count("st.global.v4.b32") == 1
    # One address per array, each element at an immediate offset from it.
    assert text.count("mul.wide.s32") == 1
    for offset in (4, 8, 12):
        assert f"+{offset}]" in text


@pytest.mark.parametrize("arch", targets.ARCHES)
def test_row_masked_tiles_are_vector_accesses(arch: str) -> None:
    text = gpu_kernel(ROWS, arch).asm["ptx"]
    assert "ld.global.v4.b32" in text and "st.global.v4.b32" in text
    assert "ld.global.b32" not in text and "st.global.b32" not in text


@pytest.mark.parametrize(
    ("dtype", "load", "store"),
    [
        ("f16", "ld.global.v2.b32", "st.global.v2.b32"),  # 4 x f16 as two f16x2 registers
        # The chunk is read into registers before the store's barrier (the two arrays may
        # overlap on the GPU), as bf16: one vector load.
        ("bf16", "ld.global.v4.b16", "st.global.v4.b16"),
        ("i8", "ld.global.b32", "st.global.b32"),  # 4 x i8: one 32-bit access
        ("f32", "ld.global.v4.b32", "st.global.v4.b32"),
    ],
)
def test_small_elements_are_vector_accesses(dtype: str, load: str, store: str) -> None:
    text = gpu_kernel(copy_kernel(dtype, (1024,)), "sm_90").asm["ptx"]
    accesses = {line.split()[0] for line in text.splitlines() if ".global." in line}
    assert accesses == {load, store}


def test_two_element_chunks_are_v2_accesses() -> None:
    text = gpu_kernel(copy_kernel("f32", (64, 2)), "sm_90").asm["ptx"]
    assert "ld.global.v2.b32" in text and "st.global.v2.b32" in text


@needs_ptxas
@pytest.mark.parametrize("arch", targets.ARCHES)
@pytest.mark.parametrize(
    "text",
    [HINTED_TAIL, PLAIN_TAIL, ROWS, copy_kernel("i8", (512,)), copy_kernel("f64", (256,))],
    ids=["hinted-tail", "plain-tail", "rows", "i8", "f64"],
)
def test_vector_accesses_assemble_without_spills(text: str, arch: str) -> None:
    kernel = gpu_kernel(text, arch)
    assert kernel.spills == 0


# -- the same lowering on the CPU against the interpreter ---------------------------------


@pytest.mark.parametrize("text", [HINTED_TAIL, VARYING_OTHER], ids=["other", "varying-other"])
@pytest.mark.parametrize("n", [16, 512, 1024 + 48])
def test_hinted_tail_on_cpu_simt(text: str, n: int) -> None:
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n + 7).astype(np.float32)
    y = np.zeros(1536, np.float32)
    grid = (-(-n // 512),)
    interpreted, compiled = run_both(text, grid, [x, y, n, 5.0], target="cpu-simt")
    for name, i, c in zip(NAMES, interpreted, compiled, strict=False):
        assert_same(name, i, c)


@pytest.mark.parametrize("m", [1, 13, 32])
def test_row_masked_tiles_on_cpu_simt(m: int) -> None:
    rng = np.random.default_rng(m)
    stride = 48
    src = rng.standard_normal(32 * stride).astype(np.float32)
    dst = np.full(32 * stride, 7.0, np.float32)
    interpreted, compiled = run_both(ROWS, (2,), [src, dst, m, stride], target="cpu-simt")
    for name, i, c in zip(NAMES, interpreted, compiled, strict=False):
        assert_same(name, i, c)


@pytest.mark.parametrize(
    ("dtype", "numpy_dtype", "shape"),
    [
        ("f32", np.float32, (1024,)),
        ("f16", np.float16, (8, 32)),
        ("bf16", ml_dtypes.bfloat16, (256,)),
        ("i8", np.int8, (512,)),
        ("f32", np.float32, (64, 2)),
    ],
)
def test_vector_copies_on_cpu_simt(dtype: str, numpy_dtype: type, shape: tuple[int, ...]) -> None:
    size = int(np.prod(shape))
    src = np.random.default_rng(size).standard_normal(2 * size).astype(numpy_dtype)
    dst = np.zeros(2 * size, numpy_dtype)
    interpreted, compiled = run_both(copy_kernel(dtype, shape), (2,), [src, dst], target="cpu-simt")
    for name, i, c in zip(NAMES, interpreted, compiled, strict=False):
        assert_same(name, i, c)
