"""The dtype table: names, kinds, widths and conversions to xDSL and NumPy."""

import ml_dtypes
import numpy
import pytest
from xdsl.dialects import builtin

from blkc import dtypes


def test_every_dtype_has_unique_names() -> None:
    names = [d.name for d in dtypes.ALL]
    mlir = [d.mlir for d in dtypes.ALL]
    assert len(set(names)) == len(names) == 17
    assert len(set(mlir)) == len(mlir)


@pytest.mark.parametrize("d", dtypes.ALL, ids=lambda d: d.name)
def test_round_trips_through_every_spelling(d: dtypes.DType) -> None:
    assert dtypes.dtype(d.name) is d
    assert dtypes.dtype(d.mlir) is d
    assert dtypes.from_xdsl(d.xdsl) is d
    assert dtypes.from_numpy(d.numpy) is d
    assert str(d.xdsl) == d.mlir
    assert d.numpy.itemsize * 8 == max(d.width, 8)


@pytest.mark.parametrize(
    ("name", "kind", "width", "signed"),
    [
        ("bool", dtypes.Kind.BOOL, 1, False),
        ("int8", dtypes.Kind.INT, 8, True),
        ("uint64", dtypes.Kind.INT, 64, False),
        ("bfloat16", dtypes.Kind.FLOAT, 16, True),
        ("float8_e4m3fn", dtypes.Kind.FLOAT, 8, True),
        ("complex128", dtypes.Kind.COMPLEX, 128, True),
    ],
)
def test_kind_width_signedness(name: str, kind: dtypes.Kind, width: int, signed: bool) -> None:
    d = dtypes.dtype(name)
    assert (d.kind, d.width, d.signed) == (kind, width, signed)


def test_blk_integers_are_signed_without_prefix() -> None:
    assert dtypes.from_xdsl(builtin.i32) is dtypes.int32
    assert dtypes.from_xdsl(builtin.IntegerType(8, builtin.Signedness.UNSIGNED)) is dtypes.uint8
    with pytest.raises(dtypes.UnknownDTypeError, match="write i32"):
        dtypes.from_xdsl(builtin.IntegerType(32, builtin.Signedness.SIGNED))


def test_numpy_and_ml_dtypes_conversions() -> None:
    assert dtypes.from_numpy(numpy.dtype("uint16")) is dtypes.uint16
    assert dtypes.from_numpy(ml_dtypes.bfloat16) is dtypes.bfloat16
    assert dtypes.from_numpy(ml_dtypes.float8_e5m2) is dtypes.float8_e5m2
    assert dtypes.float8_e4m3fn.numpy == numpy.dtype(ml_dtypes.float8_e4m3fn)
    assert dtypes.dtype(numpy.float32) is dtypes.float32


def test_unknown_names_and_types_are_refused_clearly() -> None:
    with pytest.raises(dtypes.UnknownDTypeError, match="unknown dtype 'int128'"):
        dtypes.dtype("int128")
    with pytest.raises(dtypes.UnknownDTypeError, match="no blkc equivalent"):
        dtypes.from_numpy(numpy.dtype("datetime64[s]"))
    with pytest.raises(dtypes.UnknownDTypeError, match="not a blk element type"):
        dtypes.from_xdsl(builtin.IndexType())


def test_integer_ranges() -> None:
    assert dtypes.int8.int_range == (-128, 127)
    assert dtypes.uint32.int_range == (0, 2**32 - 1)
    assert dtypes.bool_.int_range == (0, 1)
    with pytest.raises(TypeError):
        _ = dtypes.float32.int_range


def test_float_precision_matches_numpy_finfo() -> None:
    for d in dtypes.ALL:
        if d.is_float:
            info = ml_dtypes.finfo(d.numpy)
            assert d.significand_bits == info.nmant + 1, d.name
            assert d.max_exponent == info.maxexp - 1, d.name
