"""Arguments of the wrong kind get messages in the user's terms: which parameter got what,
what the kernel does with it, and where."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n  # compare-with-n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def test_an_array_where_a_number_is_compared_names_the_parameter() -> None:
    x = numpy.ones(100, numpy.float32)
    with pytest.raises(blkc.BlkcError) as caught:
        add[(1,)](x, x, x, x, BLOCK=128)
    message = str(caught.value)
    line = next(
        i
        for i, text in enumerate(open(__file__).read().splitlines(), 1)
        if "compare-with-n" in text
    )
    assert f"{__file__}:{line}:" in message
    assert "invalid operands of type i32 and !blk.ptr<f32>" in message
    assert "parameter 'n' is a pointer because the launch passed an array for it" in message
    assert "promote-types" not in message and "is not strict" not in message


def test_comparing_two_pointers_is_fine() -> None:
    @blkc.jit
    def same(a_ptr, b_ptr, out_ptr):
        tl.store(out_ptr, (a_ptr == b_ptr).to(tl.int32))

    a = numpy.zeros(1, numpy.float32)
    out = numpy.zeros(1, numpy.int32)
    same[(1,)](a, a, out)
    assert out[0] == 1
    same[(1,)](a, numpy.zeros(1, numpy.float32), out)
    assert out[0] == 0
