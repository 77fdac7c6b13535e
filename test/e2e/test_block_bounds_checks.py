"""Bounds checks hoisted out of loop nests (loop versioning, `blkc.runtime.access_ranges`):
the copy a range check picks must behave exactly like the per-element checked loop, which
skips the accesses outside the arrays and reports them as IndexError."""

import re

import numpy
import pytest

import blkc

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
