"""Bounds checks hoisted out of loop nests (loop versioning, `blkc.runtime.access_ranges`):
the copy a range check picks must behave exactly like the per-element checked loop, which
skips the accesses outside the arrays and reports them as IndexError."""

import re

import numpy
import pytest
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ModuleOp

import blkc
import blkc.language as tl
from blkc.backends.cpu import lower_variants
from blkc.dialects import blk
from blkc.dialects.types import PtrType
from blkc.runtime import access_ranges
from blkc.targets import CPU_LOWERING

SHIFTED_COPY = """
module {
  func.func @shifted_copy(%src: !blk.ptr<f32>, %dst: !blk.ptr<f32>, %n: i32,
                          %shift: i32) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %block = blk.literal 256 : !blk.weak<int>
    %start = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %range = blk.arange 0, 256 : tensor<256xi32>
    %offs = blk.add %start, %range : i32, tensor<256xi32> -> tensor<256xi32>
    %mask = blk.cmp lt, %offs, %n : tensor<256xi32>, i32 -> tensor<256xi1>
    %from = blk.add %offs, %shift : tensor<256xi32>, i32 -> tensor<256xi32>
    %p = blk.addptr %src, %from : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    %x = blk.load %p mask %mask : tensor<256x!blk.ptr<f32>>
    %q = blk.addptr %dst, %offs : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    blk.store %q, %x mask %mask : tensor<256x!blk.ptr<f32>>
    func.return
  }
}
"""

# The i32 offset `offs + a` wraps for large `a`; sign-extended and moved back by `b` (i64)
# it lands outside the array although offs + a + b, computed without wrapping, is inside.
WRAPPED_OFFSET = """
module {
  func.func @wrapped(%src: !blk.ptr<f32>, %dst: !blk.ptr<f32>, %a: i32,
                     %b: i64) attributes {blk.kernel} {
    %range = blk.arange 0, 64 : tensor<64xi32>
    %shifted = blk.add %range, %a : tensor<64xi32>, i32 -> tensor<64xi32>
    %wide = blk.cast %shifted : tensor<64xi32> -> tensor<64xi64>
    %from = blk.add %wide, %b : tensor<64xi64>, i64 -> tensor<64xi64>
    %p = blk.addptr %src, %from : !blk.ptr<f32>, tensor<64xi64> -> tensor<64x!blk.ptr<f32>>
    %x = blk.load %p : tensor<64x!blk.ptr<f32>>
    %q = blk.addptr %dst, %range : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
    blk.store %q, %x : tensor<64x!blk.ptr<f32>>
    func.return
  }
}
"""

# A gather: the offsets of `src` are data, checked per element in every copy of the nest.
GATHER = """
module {
  func.func @gather(%src: !blk.ptr<f32>, %index: !blk.ptr<i32>,
                    %dst: !blk.ptr<f32>) attributes {blk.kernel} {
    %range = blk.arange 0, 128 : tensor<128xi32>
    %ip = blk.addptr %index, %range : !blk.ptr<i32>, tensor<128xi32> -> tensor<128x!blk.ptr<i32>>
    %i = blk.load %ip : tensor<128x!blk.ptr<i32>>
    %p = blk.addptr %src, %i : !blk.ptr<f32>, tensor<128xi32> -> tensor<128x!blk.ptr<f32>>
    %x = blk.load %p : tensor<128x!blk.ptr<f32>>
    %q = blk.addptr %dst, %range : !blk.ptr<f32>, tensor<128xi32> -> tensor<128x!blk.ptr<f32>>
    blk.store %q, %x : tensor<128x!blk.ptr<f32>>
    func.return
  }
}
"""


# Rows wrap around (`% m`, Triton's tutorial matmul) and the pointer block advances in a
# K loop: `carry-pointer-offsets` makes its offset an i64 carried by the loop.
WRAPPED_ROW_SUMS = """
module {
  func.func @wrapped_row_sums(%a: !blk.ptr<f32>, %out: !blk.ptr<f32>, %m: i32, %k: i32,
                              %stride: i32) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %block = blk.literal 16 : !blk.weak<int>
    %start = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %r = blk.arange 0, 16 : tensor<16xi32>
    %x = blk.add %start, %r : i32, tensor<16xi32> -> tensor<16xi32>
    %rows = blk.mod %x, %m : tensor<16xi32>, i32 -> tensor<16xi32>
    %rows2 = blk.expand_dims %rows axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
    %row_offs = blk.mul %rows2, %stride : tensor<16x1xi32>, i32 -> tensor<16x1xi32>
    %cols = blk.expand_dims %r axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
    %offs = blk.add %row_offs, %cols : tensor<16x1xi32>, tensor<1x16xi32> -> tensor<16x16xi32>
    %p0 = blk.addptr %a, %offs : !blk.ptr<f32>, tensor<16x16xi32> -> tensor<16x16x!blk.ptr<f32>>
    %zero = blk.constant dense<0.0> : tensor<16x16xf32>
    %lb = arith.constant 0 : i32
    %step = arith.constant 16 : i32
    %acc, %p = scf.for %i = %lb to %k step %step iter_args(%s = %zero, %q = %p0)
        -> (tensor<16x16xf32>, tensor<16x16x!blk.ptr<f32>>) : i32 {
      %v = blk.load %q : tensor<16x16x!blk.ptr<f32>>
      %s2 = blk.add %s, %v : tensor<16x16xf32>
      %q2 = blk.addptr %q, %step : tensor<16x16x!blk.ptr<f32>>, i32 -> tensor<16x16x!blk.ptr<f32>>
      scf.yield %s2, %q2 : tensor<16x16xf32>, tensor<16x16x!blk.ptr<f32>>
    }
    %x2 = blk.expand_dims %x axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
    %out_rows = blk.mul %x2, %block : tensor<16x1xi32>, !blk.weak<int> -> tensor<16x1xi32>
    %out_offs = blk.add %out_rows, %cols : tensor<16x1xi32>, tensor<1x16xi32> -> tensor<16x16xi32>
    %in_m = blk.cmp lt, %x2, %m : tensor<16x1xi32>, i32 -> tensor<16x1xi1>
    %po = blk.addptr %out, %out_offs : !blk.ptr<f32>, tensor<16x16xi32>
        -> tensor<16x16x!blk.ptr<f32>>
    %mask = blk.broadcast %in_m : tensor<16x1xi1> -> tensor<16x16xi1>
    blk.store %po, %acc mask %mask : tensor<16x16x!blk.ptr<f32>>
    func.return
  }
}
"""

# Offsets scaled by an i64 stride: their extremes can overflow i64.
I64_STRIDE = """
module {
  func.func @strided(%src: !blk.ptr<f32>, %dst: !blk.ptr<f32>, %s: i64) attributes {blk.kernel} {
    %r = blk.arange 0, 64 : tensor<64xi32>
    %wide = blk.cast %r : tensor<64xi32> -> tensor<64xi64>
    %offs = blk.mul %wide, %s : tensor<64xi64>, i64 -> tensor<64xi64>
    %p = blk.addptr %src, %offs : !blk.ptr<f32>, tensor<64xi64> -> tensor<64x!blk.ptr<f32>>
    %x = blk.load %p : tensor<64x!blk.ptr<f32>>
    %q = blk.addptr %dst, %r : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
    blk.store %q, %x : tensor<64x!blk.ptr<f32>>
    func.return
  }
}
"""


def shifted_copy(check_bounds: bool) -> blkc.Kernel:
    return blkc.compile(SHIFTED_COPY, check_bounds=check_bounds, filename="copy.mlir")


@pytest.mark.parametrize("n", [1, 255, 256, 1000, 1024])
def test_checked_and_unchecked_copies_agree_inside_the_arrays(n: int) -> None:
    src = numpy.random.default_rng(n).standard_normal(n).astype(numpy.float32)
    outputs = []
    for check_bounds in (True, False):
        dst = numpy.full(n + 3, -1.0, numpy.float32)
        shifted_copy(check_bounds)[((n + 255) // 256,)](src, dst, n, 0)
        outputs.append(dst)
    numpy.testing.assert_array_equal(outputs[0], outputs[1])
    numpy.testing.assert_array_equal(outputs[0][:n], src)
    assert (outputs[0][n:] == -1.0).all()


@pytest.mark.parametrize("shift", [5, -3])
def test_a_block_partly_outside_is_reported_and_its_inside_part_computed(shift: int) -> None:
    n = 1000
    src = numpy.arange(n, dtype=numpy.float32)
    dst = numpy.full(n, -1.0, numpy.float32)
    # Each access named once, although the versioned nest has three copies of it.
    locations = r"at one of copy\.mlir:13:5, copy\.mlir:15:5 \(the access was skipped"
    with pytest.raises(IndexError, match=locations):
        shifted_copy(True)[(4,)](src, dst, n, shift)
    inside = numpy.arange(n) + shift
    valid = (inside >= 0) & (inside < n)
    numpy.testing.assert_array_equal(dst[valid], src[inside[valid]])
    assert (dst[~valid] == 0.0).all()  # a skipped load reads as zero


def test_a_wrapped_offset_is_not_trusted() -> None:
    kernel = blkc.compile(WRAPPED_OFFSET, check_bounds=True)
    src = numpy.arange(64, dtype=numpy.float32)
    dst = numpy.full(64, -1.0, numpy.float32)
    a = 2**31 - 10
    with pytest.raises(IndexError):
        kernel[(1,)](src, dst, a, -a)  # lanes 10 and up wrap to 2**32 below the array
    numpy.testing.assert_array_equal(dst[:10], src[:10])
    assert (dst[10:] == 0.0).all()
    kernel[(1,)](src, dst, 5, -5)  # no wrapping: every lane inside
    numpy.testing.assert_array_equal(dst, src)


def test_full_blocks_run_a_copy_without_masks_or_checks() -> None:
    llvm = shifted_copy(True).asm["llvm"]  # optimized
    assert re.search(r"= load <\d+ x float>", llvm), "no plain vector load"
    assert "llvm.masked.load" in llvm  # the copies for partial blocks remain


def test_data_dependent_offsets_stay_checked_per_element() -> None:
    kernel = blkc.compile(GATHER, filename="gather.mlir")
    src = numpy.arange(100, dtype=numpy.float32)
    index = numpy.arange(128, dtype=numpy.int32)[::-1].copy()  # 127..100 are outside
    dst = numpy.full(128, -1.0, numpy.float32)
    named_once = r"at one of gather\.mlir:9:5, gather\.mlir:7:5, gather\.mlir:11:5 \("
    with pytest.raises(IndexError, match=named_once):
        kernel[(1,)](src, index, dst)
    numpy.testing.assert_array_equal(dst[28:], src[index[28:]])
    assert (dst[:28] == 0.0).all()
    index %= 100
    kernel[(1,)](src, index, dst)
    numpy.testing.assert_array_equal(dst, src[index])


def loop_ir(text: str) -> ModuleOp:
    """The loop IR launches of arrays that do not overlap run."""
    module = blkc.run_pipeline(blkc.parse(text), "to-strict")
    lowered = lower_variants(module, CPU_LOWERING)
    return lowered[True]


def analyse_nest_of(module: ModuleOp, access: type) -> access_ranges.NestRanges:
    """The analysis of the outermost loop over a block that holds an `access`."""
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    params = [a for a in function.body.blocks[0].args if isinstance(a.type, PtrType)]
    nest = next(
        op
        for op in module.walk()
        if isinstance(op, scf.ForOp)
        and access_ranges.loop_range(op.body.blocks[0].args[0]) is not None
        and any(isinstance(inner, access) for inner in op.walk())
    )
    return access_ranges.analyse(nest, params, lambda ptr: 4)


def test_wrapped_rows_read_as_their_index_in_the_k_loop() -> None:
    nest = analyse_nest_of(loop_ir(WRAPPED_ROW_SUMS), blk.LoadOp)
    # The load's offset adds the i64 that the K loop carries.
    assert [type(op) for op in nest.proven] == [blk.LoadOp]
    (select,) = nest.chosen
    assert isinstance(select, arith.SelectOp)
    # x % m is read as x where 0 <= x and x - m <= -1 over the nest (x computed exactly).
    exact = (-(2**31), 2**31 - 1)
    assert {(c.low, c.high) for c in nest.choices} == {(0, None), (None, -1), exact}


def test_i64_offsets_are_checked_before_the_nest() -> None:
    nest = analyse_nest_of(loop_ir(I64_STRIDE), blk.LoadOp)
    assert {type(op) for op in nest.proven} == {blk.LoadOp, blk.StoreOp}
    assert not nest.chosen


@pytest.mark.parametrize("check_bounds", [True, False])
@pytest.mark.parametrize("m", [16, 40])
def test_wrapped_rows_give_numpy_results(check_bounds: bool, m: int) -> None:
    kernel = blkc.compile(WRAPPED_ROW_SUMS, check_bounds=check_bounds)
    k = 64
    a = numpy.random.default_rng(m).standard_normal((m, k)).astype(numpy.float32)
    out = numpy.full((m, 16), numpy.nan, numpy.float32)
    kernel[((m + 15) // 16,)](a, out, m, k, k)
    # Rows past m wrap around to the first ones (and are not stored).
    numpy.testing.assert_allclose(out, a.reshape(m, 4, 16).sum(axis=1), rtol=1e-5)


def test_wrapped_rows_outside_the_array_are_reported() -> None:
    kernel = blkc.compile(WRAPPED_ROW_SUMS)
    m, k = 40, 64
    a = numpy.ones((m, k), numpy.float32)
    out = numpy.zeros((m, 16), numpy.float32)
    with pytest.raises(IndexError):
        kernel[(3,)](a, out, m, k, k + 16)  # the last rows reach past the array
    assert (out[:16] == 4.0).all()  # rows 0-15 lie inside: the first program is exact


def test_an_overflowing_range_check_takes_the_checked_copy() -> None:
    kernel = blkc.compile(I64_STRIDE)
    src = numpy.arange(64, dtype=numpy.float32)
    dst = numpy.full(64, -1.0, numpy.float32)
    kernel[(1,)](src, dst, 1)
    numpy.testing.assert_array_equal(dst, src)
    # s * 63 == 1 modulo 2**64: wrapped, the extremes 0 and s * 63 would look inside the
    # array, but lanes 1 to 62 lie far outside it (lane 63 reads element 1).
    s = pow(63, -1, 2**64) - 2**64
    with pytest.raises(IndexError):
        kernel[(1,)](src, dst, s)
    assert (dst[0], dst[63]) == (src[0], src[1])
    assert (dst[1:63] == 0.0).all()  # skipped loads read as zero


# The variance pass of Triton's layer norm: the mask of the load recurs in a `where`.
CENTERED_SQUARES = """
module {
  func.func @centered_squares(%x: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32,
                              %mean: f32) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %block = blk.literal 256 : !blk.weak<int>
    %start = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %range = blk.arange 0, 256 : tensor<256xi32>
    %offs = blk.add %start, %range : i32, tensor<256xi32> -> tensor<256xi32>
    %mask = blk.cmp lt, %offs, %n : tensor<256xi32>, i32 -> tensor<256xi1>
    %p = blk.addptr %x, %offs : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    %v = blk.load %p mask %mask : tensor<256x!blk.ptr<f32>>
    %mask2 = blk.cmp lt, %offs, %n : tensor<256xi32>, i32 -> tensor<256xi1>
    %d = blk.sub %v, %mean : tensor<256xf32>, f32 -> tensor<256xf32>
    %zero = blk.constant 0.0 : f32
    %w = blk.where %mask2, %d, %zero : tensor<256xi1>, tensor<256xf32>, f32 -> tensor<256xf32>
    %sq = blk.mul %w, %w : tensor<256xf32>
    %q = blk.addptr %out, %range : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    %o = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %q2 = blk.addptr %q, %o : tensor<256x!blk.ptr<f32>>, i32 -> tensor<256x!blk.ptr<f32>>
    blk.store %q2, %sq : tensor<256x!blk.ptr<f32>>
    func.return
  }
}
"""


def test_a_where_on_the_mask_of_an_unmasked_load_reads_its_true_operand() -> None:
    # The second `cmp` is the first one again (`cse`): where the range check proves the
    # load unmasked, the `where` on the same mask is its true operand.
    nest = analyse_nest_of(loop_ir(CENTERED_SQUARES), blk.LoadOp)
    selects = [op for op in nest.unmasked if isinstance(op, arith.SelectOp)]
    assert len(selects) == 1 and blk.LoadOp in {type(op) for op in nest.unmasked}
    kernel = blkc.compile(CENTERED_SQUARES, filename="centered.mlir")
    x = numpy.linspace(-2, 2, 700, dtype=numpy.float32)
    out = numpy.full(768, numpy.nan, numpy.float32)
    kernel[(3,)](x, out, 700, 0.25)  # two full blocks, then 188 of 256
    numpy.testing.assert_allclose(out[:700], (x - numpy.float32(0.25)) ** 2, rtol=1e-6)
    assert (out[700:] == 0.0).all()


@blkc.jit
def _gather_i64(x_ptr, i_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    index = tl.load(i_ptr + o, mask=o < n, other=0).to(tl.int64)
    value = tl.load(x_ptr + index, mask=o < n)
    tl.store(out_ptr + o, value, mask=o < n)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
def test_an_empty_array_holds_no_element(target: str) -> None:
    """An access checked against its array's first and end address (here an i64 offset
    loaded from memory) is outside an empty array: its bound, the array's bytes less an
    element's, wrapped around to one that every address met."""
    base = numpy.arange(64, dtype=numpy.float32)
    index = numpy.array([0, 1, 2, 3], numpy.int32)
    out = numpy.zeros(4, numpy.float32)
    _gather_i64[(1,)](base[8:12], index, out, 4, BLOCK=4, target=target)
    numpy.testing.assert_array_equal(out, base[8:12])
    for empty in (base[8:8], numpy.empty(0, numpy.float32)):
        with pytest.raises(IndexError, match="outside the arrays"):
            _gather_i64[(1,)](empty, index, out, 4, BLOCK=4, target=target)
        _gather_i64[(1,)](empty, index, out, 0, BLOCK=4, target=target)  # nothing read
