"""Block constants: a splat is every element with the same bits (a block of NaN is one, a
block of 0.0 and -0.0 is not), and a block of different values is a located error."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def filled(out_ptr, N: tl.constexpr, VALUE: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(out_ptr + o, tl.full([N], VALUE, tl.float32))


@pytest.mark.parametrize("value", [float("nan"), -0.0, float("-inf")])
def test_a_block_of_one_value_has_its_bits(value: float) -> None:
    out = numpy.ones(8, numpy.float32)
    filled[(1,)](out, 8, value)
    expected = numpy.full(8, value, numpy.float32)
    assert out.tobytes() == expected.tobytes()


MIXED = """
func.func @k(%out: !blk.ptr<f32>) attributes {blk.kernel} {
  %c = blk.constant dense<[0.0, -0.0]> : tensor<2xf32>
  %r = blk.arange 0, 2 : tensor<2xi32>
  %p = blk.addptr %out, %r : !blk.ptr<f32>, tensor<2xi32> -> tensor<2x!blk.ptr<f32>>
  blk.store %p, %c : tensor<2x!blk.ptr<f32>>
  func.return
}
"""


def test_a_block_of_different_values_is_a_located_error() -> None:
    with pytest.raises(blkc.BlkcError, match="block constant of different values") as err:
        blkc.compile(MIXED, filename="mixed.mlir")
    assert "mixed.mlir:3:" in str(err.value)
