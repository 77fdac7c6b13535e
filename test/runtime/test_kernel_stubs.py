"""Launch stubs of kernels compiled from blk IR (`blkc.compile`): after two launches
through Python with arguments of the same kinds, `kernel[grid](...)` runs through a stub,
which takes exactly what the Python path takes and leaves everything else to it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy
import pytest

import blkc
from blkc.kernel import Kernel
from blkc.runtime import fast_launch

pytestmark = pytest.mark.skipif(not fast_launch.available(), reason="no launch stubs here")

AXPY = """
func.func @axpy(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>, %out_ptr: !blk.ptr<f32>,
                %a: f32, %n: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %c32 = blk.literal 32 : !blk.weak<int>
  %start = blk.mul %pid, %c32 : i32, !blk.weak<int> -> i32
  %range = blk.arange 0, 32 : tensor<32xi32>
  %offs = blk.add %start, %range : i32, tensor<32xi32> -> tensor<32xi32>
  %mask = blk.cmp lt, %offs, %n : tensor<32xi32>, i32 -> tensor<32xi1>
  %xp = blk.addptr %x_ptr, %offs : !blk.ptr<f32>, tensor<32xi32> -> tensor<32x!blk.ptr<f32>>
  %yp = blk.addptr %y_ptr, %offs : !blk.ptr<f32>, tensor<32xi32> -> tensor<32x!blk.ptr<f32>>
  %op = blk.addptr %out_ptr, %offs : !blk.ptr<f32>, tensor<32xi32> -> tensor<32x!blk.ptr<f32>>
  %x = blk.load %xp mask %mask : tensor<32x!blk.ptr<f32>>
  %y = blk.load %yp mask %mask : tensor<32x!blk.ptr<f32>>
  %ax = blk.mul %a, %x : f32, tensor<32xf32> -> tensor<32xf32>
  %r = blk.add %ax, %y : tensor<32xf32>
  blk.store %op, %r mask %mask : tensor<32x!blk.ptr<f32>>
  func.return
}
"""


@pytest.fixture
def kernel(request: pytest.FixtureRequest) -> Kernel:
    """A kernel of its own (compiled kernels are cached by their IR: by their name here)."""
    return blkc.compile(AXPY.replace("@axpy", f"@{request.node.name[5:45]}"))


@pytest.fixture
def python_launches(count_calls: Callable[[Any, str], list[int]]) -> list[int]:
    """How many launches went through Python (`Kernel.launch`)."""
    return count_calls(Kernel, "launch")


def test_launches_after_the_second_run_through_the_stub(
    kernel: Kernel, python_launches: list[int]
) -> None:
    rng = numpy.random.default_rng(0)
    for n in (100, 100, 96, 64, 1, 7):
        x, y = rng.random(100, dtype=numpy.float32), rng.random(100, dtype=numpy.float32)
        out = numpy.zeros(100, numpy.float32)
        kernel[(blkc.cdiv(n, 32),)](x, y, out, 2.5, n)
        numpy.testing.assert_allclose(out[:n], 2.5 * x[:n] + y[:n], rtol=1e-6)
        assert not out[n:].any()
    assert python_launches[0] == 2


def test_what_the_stub_does_not_take_goes_through_python(
    kernel: Kernel, python_launches: list[int]
) -> None:
    x, y, out = (numpy.ones(64, numpy.float32) for _ in range(3))
    for _ in range(3):
        kernel[(2,)](x, y, out, 1.0, 64)
    assert python_launches[0] == 2
    with pytest.raises(TypeError, match="points to float32, but the array holds float64"):
        kernel[(2,)](x, y, numpy.ones(64), 1.0, 64)
    with pytest.raises(OverflowError, match="out of range"):
        kernel[(2,)](x, y, out, 1.0, 2**40)
    frozen = numpy.ones(64, numpy.float32)
    frozen.setflags(write=False)
    with pytest.raises(TypeError, match="read-only"):
        kernel[(2,)](x, y, frozen, 1.0, 64)
    kernel[(2,)](frozen, y, out, 1.0, 64)  # read, not written: the stub takes it
    kernel[(2,)](x, y, out, 2, 64)  # an int for the float: Python converts it
    assert out.tolist() == [3.0] * 64
    assert python_launches[0] == 6


def test_an_access_outside_the_arrays_is_reported_through_the_stub(
    kernel: Kernel, python_launches: list[int]
) -> None:
    x, y, out = (numpy.ones(64, numpy.float32) for _ in range(3))
    for _ in range(3):
        kernel[(2,)](x, y, out, 1.0, 64)
    with pytest.raises(IndexError, match="outside"):
        kernel[(2,)](x, y, numpy.zeros(40, numpy.float32), 1.0, 64)
    assert python_launches[0] == 2  # the stub ran it, and reported as Python does


def test_torch_tensors_and_a_second_kind_of_arguments(
    kernel: Kernel, python_launches: list[int]
) -> None:
    torch = pytest.importorskip("torch")
    x, y = torch.arange(64, dtype=torch.float32), torch.ones(64)
    for scale in (1.0, 2.0, 3.0, 4.0):
        out = torch.zeros(64)
        kernel[(2,)](x, y, out, scale, 64)
        assert out.tolist() == (scale * x + 1).tolist()
    assert python_launches[0] == 2
    # Arrays now: two more launches through Python build the stub for them instead.
    xs, ys = x.numpy(), y.numpy()
    for scale in (1.0, 2.0, 3.0):
        out_array = numpy.zeros(64, numpy.float32)
        kernel[(2,)](xs, ys, out_array, scale, 64)
        assert out_array.tolist() == (scale * xs + 1).tolist()
    assert python_launches[0] == 4


def test_a_stub_is_rebuilt_once_the_other_variant_is_compiled(
    kernel: Kernel, python_launches: list[int]
) -> None:
    """A stub built while only the variant for overlapping arrays existed (the first
    launches wrote in place) is built again once a launch compiled the one for arrays that
    do not overlap: launches of either kind run through a stub after that."""
    x, y = numpy.arange(64, dtype=numpy.float32), numpy.ones(64, numpy.float32)
    for _ in range(3):  # y += 2 * x, in place: the variant for overlapping arrays
        kernel[(2,)](x, y, y, 2.0, 64)
    assert python_launches[0] == 2
    for _ in range(5):  # separate arrays: the first compiles their variant, a new stub
        out = numpy.zeros(64, numpy.float32)
        kernel[(2,)](x, y, out, 1.0, 64)
        assert out.tolist() == (x + y).tolist()
    kernel[(2,)](x, y, y, 2.0, 64)
    assert y.tolist() == (1 + 8 * x).tolist()
    assert python_launches[0] == 3  # the first on separate arrays compiled theirs
