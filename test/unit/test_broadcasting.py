"""NumPy's broadcasting rule, as blkc applies it to block shapes."""

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

from blkc.broadcasting import BroadcastError, broadcast_shapes


@pytest.mark.parametrize(
    ("shapes", "expected"),
    [
        (((3, 4), (5, 3, 4)), (5, 3, 4)),
        (((5, 1, 4, 1), (3, 1, 6)), (5, 3, 4, 6)),
        (((), (2, 3, 4)), (2, 3, 4)),
        (((16, 1), (1, 32), (32,)), (16, 32)),
        ((), ()),
    ],
)
def test_broadcast_shapes(shapes: tuple[tuple[int, ...], ...], expected: tuple[int, ...]) -> None:
    assert broadcast_shapes(*shapes) == expected


def test_error_names_shapes_and_dimension() -> None:
    with pytest.raises(BroadcastError) as info:
        broadcast_shapes((4, 16), (8,))
    assert str(info.value) == (
        "shape (4, 16) and shape (8,) cannot broadcast: dimension 1 has sizes 16 and 8 "
        "(sizes must be equal, or one of them 1)"
    )
    assert info.value.dim == 1
    assert isinstance(info.value, ValueError)


def test_error_uses_given_names() -> None:
    with pytest.raises(BroadcastError, match="'x' and 'y' cannot broadcast: dimension 0"):
        broadcast_shapes((3,), (4,), names=["'x'", "'y'"])


shape = st.lists(st.sampled_from([1, 2, 3]), max_size=4).map(tuple)


@given(st.lists(shape, min_size=1, max_size=3))
def test_agrees_with_numpy(shapes: list[tuple[int, ...]]) -> None:
    try:
        expected = numpy.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(BroadcastError):
            broadcast_shapes(*shapes)
    else:
        assert broadcast_shapes(*shapes) == expected
