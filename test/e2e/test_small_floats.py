"""bfloat16 and fp8 in compiled kernels: storage, conversions and per-op rounding, bit for
bit as ml_dtypes computes them."""

import ml_dtypes
import numpy
import pytest

import blkc

FORMATS = {
    "bf16": ml_dtypes.bfloat16,
    "f8E4M3FN": ml_dtypes.float8_e4m3fn,
    "f8E5M2": ml_dtypes.float8_e5m2,
}

KERNEL = """
module {{
  func.func @k(%a: !blk.ptr<f32>, %o: !blk.ptr<{t}>, %w: !blk.ptr<f32>) attributes {{blk.kernel}} {{
    %pid = blk.program_id 0 : i32
    %c = blk.constant 4096 : i32
    %s = blk.mul %pid, %c : i32
    %r = blk.arange 0, 4096 : tensor<4096xi32>
    %offs = blk.add %s, %r : i32, tensor<4096xi32> -> tensor<4096xi32>
    %pa = blk.addptr %a, %offs : !blk.ptr<f32>, tensor<4096xi32> -> tensor<4096x!blk.ptr<f32>>
    %x = blk.load %pa : tensor<4096x!blk.ptr<f32>>
    %y = blk.cast %x : tensor<4096xf32> -> tensor<4096x{t}>
    %po = blk.addptr %o, %offs : !blk.ptr<{t}>, tensor<4096xi32> -> tensor<4096x!blk.ptr<{t}>>
    blk.store %po, %y : tensor<4096x!blk.ptr<{t}>>
    %z = blk.mul %y, %y : tensor<4096x{t}>
    %back = blk.cast %z : tensor<4096x{t}> -> tensor<4096xf32>
    %pw = blk.addptr %w, %offs : !blk.ptr<f32>, tensor<4096xi32> -> tensor<4096x!blk.ptr<f32>>
    blk.store %pw, %back : tensor<4096x!blk.ptr<f32>>
    func.return
  }}
}}
"""


def inputs() -> numpy.ndarray:
    every_half = numpy.arange(65536, dtype=numpy.uint16).view(numpy.float16).astype(numpy.float32)
    rng = numpy.random.default_rng(3)
    wide = rng.standard_normal(4096 * 8) * numpy.exp2(rng.integers(-140, 130, 4096 * 8))
    with numpy.errstate(over="ignore"):
        values = numpy.concatenate([every_half, wide.astype(numpy.float32)])
    return values[: len(values) // 4096 * 4096]


@pytest.mark.parametrize("name", FORMATS)
def test_conversion_and_per_op_rounding_match_ml_dtypes(name: str) -> None:
    dtype = FORMATS[name]
    kernel = blkc.compile(KERNEL.format(t=name))
    x = inputs()
    stored = numpy.zeros(len(x), dtype)
    squared = numpy.zeros(len(x), numpy.float32)
    kernel[(len(x) // 4096,)](x, stored, squared)
    with numpy.errstate(invalid="ignore", over="ignore"):
        expected = x.astype(dtype)
        wide = expected.astype(numpy.float32)
        expected_square = (wide * wide).astype(dtype).astype(numpy.float32)
    storage = numpy.uint16 if name == "bf16" else numpy.uint8
    numpy.testing.assert_array_equal(stored.view(storage), expected.view(storage))
    same = (squared == expected_square) | (numpy.isnan(squared) & numpy.isnan(expected_square))
    assert same.all(), x[~same][:5]
