"""`tl.pointer_type(dtype)` called in a kernel: a pointer dtype known when the kernel
compiles, as `x_ptr.to(tl.pointer_type(tl.int8))` uses it."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def view_as(x_ptr, out_ptr, ELEMENT: tl.constexpr):
    i = tl.arange(0, 4)
    tl.store(out_ptr + i, tl.load(x_ptr.to(tl.pointer_type(ELEMENT)) + i))


def test_a_pointer_cast_to_a_constructed_pointer_type_views_the_memory() -> None:
    x = numpy.array([0.0, 1.0, -2.5, 3.0], numpy.float32)
    out = numpy.zeros(4, numpy.uint32)
    view_as[(1,)](x, out, ELEMENT=tl.uint32)
    numpy.testing.assert_array_equal(out, x.view(numpy.uint32))


@blkc.jit
def address_to_pointer(addresses_ptr, out_ptr):
    pointer = tl.load(addresses_ptr).to(tl.pointer_type(tl.float16))
    tl.store(out_ptr, tl.load(pointer))


def test_a_number_cast_to_a_constructed_pointer_type_is_a_located_error() -> None:
    addresses = numpy.zeros(1, numpy.int64)
    with pytest.raises(blkc.BlkcError, match="cannot cast i64 to pointer<fp16>: a pointer") as e:
        address_to_pointer[(1,)](addresses, numpy.zeros(1, numpy.float16))
    assert "test_pointer_type.py:28" in str(e.value)


@blkc.jit
def pointer_to_number(out_ptr):
    tl.store(out_ptr, tl.pointer_type(3) is None)


def test_a_pointer_type_of_something_else_is_a_located_error() -> None:
    with pytest.raises(blkc.BlkcError, match=r"pointer_type\(\): 3 is not a dtype") as e:
        pointer_to_number[(1,)](numpy.zeros(1, numpy.int32))
    assert "test_pointer_type.py:41" in str(e.value)
