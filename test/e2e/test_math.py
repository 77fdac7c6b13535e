"""Accuracy of the vectorizable math functions against NumPy."""

import numpy

import blkc

EXP = """
module {
  func.func @k(%a: !blk.ptr<f32>, %o: !blk.ptr<f32>) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %c = blk.constant 4096 : i32
    %s = blk.mul %pid, %c : i32
    %r = blk.arange 0, 4096 : tensor<4096xi32>
    %offs = blk.add %s, %r : i32, tensor<4096xi32> -> tensor<4096xi32>
    %pa = blk.addptr %a, %offs : !blk.ptr<f32>, tensor<4096xi32> -> tensor<4096x!blk.ptr<f32>>
    %x = blk.load %pa : tensor<4096x!blk.ptr<f32>>
    %y = blk.exp %x : tensor<4096xf32>
    %po = blk.addptr %o, %offs : !blk.ptr<f32>, tensor<4096xi32> -> tensor<4096x!blk.ptr<f32>>
    blk.store %po, %y : tensor<4096x!blk.ptr<f32>>
    func.return
  }
}
"""


def test_exp_is_within_3_ulp_of_numpy_and_exact_at_the_edges() -> None:
    kernel = blkc.compile(EXP)
    x = numpy.linspace(-110, 95, 4096 * 256, dtype=numpy.float32)
    x[:6] = [numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 88.72283935546875]
    out = numpy.empty_like(x)
    kernel[(len(x) // 4096,)](x, out)
    with numpy.errstate(over="ignore"):
        expected = numpy.exp(x)
    finite = numpy.isfinite(expected) & (expected >= numpy.finfo(numpy.float32).tiny)
    ulp = numpy.abs(out.view(numpy.int32).astype(numpy.int64) - expected.view(numpy.int32))
    assert ulp[finite].max() <= 3
    assert numpy.isnan(out[0])
    edges = ~finite & ~numpy.isnan(expected) & (expected == 0) | numpy.isinf(expected)
    numpy.testing.assert_array_equal(out[edges], expected[edges])
    assert "<16 x float>" in kernel.asm["llvm"] or "<8 x float>" in kernel.asm["llvm"]
    assert "expf" not in kernel.asm["llvm"]
