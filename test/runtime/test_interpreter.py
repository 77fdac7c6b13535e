"""The reference interpreter runs blk kernels on NumPy data as docs/semantics.md says."""

from __future__ import annotations

import re
from collections.abc import Callable

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from blkc.diagnostics import BlkcError
from blkc.runtime import interpreter

RunKernel = Callable[..., None]
"""The `run_blk` fixture: ``run_blk(text, grid, *args, kernel=None)``."""
StrictModule = Callable[[str], ModuleOp]
"""The `make_strict` fixture: blk IR text to a strict module."""

# --------------------------------------------------------------------------------------
# Kernels over grids
# --------------------------------------------------------------------------------------

VECTOR_ADD = """
module attributes {blk.policy = "triton"} {
  func.func @vector_add(%x_ptr: !blk.ptr<f32>, %y_ptr: !blk.ptr<f32>, %out_ptr: !blk.ptr<f32>,
                        %n: i32) attributes {blk.kernel} {
    %pid = blk.program_id 0 : i32
    %block = blk.literal 256 : !blk.weak<int>
    %start = blk.mul %pid, %block : i32, !blk.weak<int> -> i32
    %range = blk.arange 0, 256 : tensor<256xi32>
    %offsets = blk.add %start, %range : i32, tensor<256xi32> -> tensor<256xi32>
    %mask = blk.cmp lt, %offsets, %n : tensor<256xi32>, i32 -> tensor<256xi1>
    %xp = blk.addptr %x_ptr, %offsets : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    %yp = blk.addptr %y_ptr, %offsets : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    %x = blk.load %xp mask %mask : tensor<256x!blk.ptr<f32>>
    %y = blk.load %yp mask %mask : tensor<256x!blk.ptr<f32>>
    %sum = blk.add %x, %y : tensor<256xf32>
    %op = blk.addptr %out_ptr, %offsets
        : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
    blk.store %op, %sum mask %mask : tensor<256x!blk.ptr<f32>>
    func.return
  }
}
"""


def test_vector_add_masks_the_tail_of_the_last_program(run_blk: RunKernel) -> None:
    n = 4000  # 16 programs of 256; the last one has 160 lanes past the end
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    out = np.full(n, np.nan, np.float32)
    run_blk(VECTOR_ADD, (16,), x, y, out, n)
    np.testing.assert_array_equal(out, x + y)


def test_a_program_the_grid_leaves_out_writes_nothing(run_blk: RunKernel) -> None:
    n = 600
    x, y = np.ones(n, np.float32), np.ones(n, np.float32)
    out = np.zeros(n, np.float32)
    run_blk(VECTOR_ADD, (2,), x, y, out, n)
    np.testing.assert_array_equal(out, np.r_[np.full(512, 2.0), np.zeros(88)].astype(np.float32))


TILE_2D = """
module attributes {blk.policy = "triton"} {
  func.func @scale_add_bias(%x: !blk.ptr<f32>, %bias: !blk.ptr<f32>, %out: !blk.ptr<f32>,
                            %rows: i32, %cols: i32) attributes {blk.kernel} {
    %pc = blk.program_id 0 : i32
    %pr = blk.program_id 1 : i32
    %eight = blk.literal 8 : !blk.weak<int>
    %sixteen = blk.literal 16 : !blk.weak<int>
    %r0 = blk.mul %pr, %eight : i32, !blk.weak<int> -> i32
    %c0 = blk.mul %pc, %sixteen : i32, !blk.weak<int> -> i32
    %ar = blk.arange 0, 8 : tensor<8xi32>
    %ac = blk.arange 0, 16 : tensor<16xi32>
    %ri = blk.add %ar, %r0 : tensor<8xi32>, i32 -> tensor<8xi32>
    %ci = blk.add %ac, %c0 : tensor<16xi32>, i32 -> tensor<16xi32>
    %r2 = blk.expand_dims %ri axis = 1 : tensor<8xi32> -> tensor<8x1xi32>
    %c2 = blk.expand_dims %ci axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
    %rb = blk.broadcast %r2 : tensor<8x1xi32> -> tensor<8x16xi32>
    %cb = blk.broadcast %c2 : tensor<1x16xi32> -> tensor<8x16xi32>
    %lin0 = blk.mul %rb, %cols : tensor<8x16xi32>, i32 -> tensor<8x16xi32>
    %lin = blk.add %lin0, %cb : tensor<8x16xi32>
    %mr = blk.cmp lt, %rb, %rows : tensor<8x16xi32>, i32 -> tensor<8x16xi1>
    %mc = blk.cmp lt, %cb, %cols : tensor<8x16xi32>, i32 -> tensor<8x16xi1>
    %m = blk.and %mr, %mc : tensor<8x16xi1>
    %xp = blk.addptr %x, %lin : !blk.ptr<f32>, tensor<8x16xi32> -> tensor<8x16x!blk.ptr<f32>>
    %xv = blk.load %xp mask %m : tensor<8x16x!blk.ptr<f32>>
    %bm = blk.cmp lt, %ci, %cols : tensor<16xi32>, i32 -> tensor<16xi1>
    %bp = blk.addptr %bias, %ci : !blk.ptr<f32>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
    %bv = blk.load %bp mask %bm : tensor<16x!blk.ptr<f32>>
    %b2 = blk.expand_dims %bv axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
    %two = blk.literal 2.0 : !blk.weak<float>
    %y0 = blk.mul %xv, %two : tensor<8x16xf32>, !blk.weak<float> -> tensor<8x16xf32>
    %y = blk.add %y0, %b2 : tensor<8x16xf32>, tensor<1x16xf32> -> tensor<8x16xf32>
    %op = blk.addptr %out, %lin : !blk.ptr<f32>, tensor<8x16xi32> -> tensor<8x16x!blk.ptr<f32>>
    blk.store %op, %y mask %m : tensor<8x16x!blk.ptr<f32>>
    func.return
  }
}
"""


def test_2d_tiles_over_a_2d_grid_with_broadcast_bias(run_blk: RunKernel) -> None:
    rows, cols = 20, 40  # 3 x 3 tiles of 8 x 16, ragged on both axes
    rng = np.random.default_rng(1)
    x = rng.standard_normal((rows, cols), np.float32)
    bias = rng.standard_normal(cols, np.float32)
    out = np.zeros((rows, cols), np.float32)
    run_blk(TILE_2D, (3, 3), x, bias, out, rows, cols)
    np.testing.assert_array_equal(out, x * np.float32(2) + bias)


SOFTMAX = """
module attributes {blk.policy = "triton"} {
  func.func @softmax(%x: !blk.ptr<f32>, %out: !blk.ptr<f32>, %cols: i32) attributes {blk.kernel} {
    %row = blk.program_id 0 : i32
    %start = blk.mul %row, %cols : i32
    %offs = blk.arange 0, 32 : tensor<32xi32>
    %m = blk.cmp lt, %offs, %cols : tensor<32xi32>, i32 -> tensor<32xi1>
    %idx = blk.add %start, %offs : i32, tensor<32xi32> -> tensor<32xi32>
    %p = blk.addptr %x, %idx : !blk.ptr<f32>, tensor<32xi32> -> tensor<32x!blk.ptr<f32>>
    %ninf = blk.literal -inf : !blk.weak<float>
    %v = blk.load %p mask %m other %ninf
        : tensor<32x!blk.ptr<f32>>, tensor<32xi1>, !blk.weak<float> -> tensor<32xf32>
    %mx = blk.reduce max, %v : tensor<32xf32> -> f32
    %sh = blk.sub %v, %mx : tensor<32xf32>, f32 -> tensor<32xf32>
    %e = blk.exp %sh : tensor<32xf32>
    %s = blk.reduce sum, %e : tensor<32xf32> -> f32
    %r = blk.truediv %e, %s : tensor<32xf32>, f32 -> tensor<32xf32>
    %q = blk.addptr %out, %idx : !blk.ptr<f32>, tensor<32xi32> -> tensor<32x!blk.ptr<f32>>
    blk.store %q, %r mask %m : tensor<32x!blk.ptr<f32>>
    func.return
  }
}
"""


def test_row_softmax_with_max_and_sum_reductions(run_blk: RunKernel) -> None:
    rows, cols = 5, 20
    x = np.random.default_rng(2).standard_normal((rows, cols), np.float32) * 10
    out = np.zeros_like(x)
    run_blk(SOFTMAX, (rows,), x, out, cols)
    shifted = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    expected = shifted / shifted.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-6)


# --------------------------------------------------------------------------------------
# Integer and conversion semantics inside kernels
# --------------------------------------------------------------------------------------

INT_DIVISION = """
func.func @divide(%a: !blk.ptr<i32>, %b: !blk.ptr<i32>, %q_trunc: !blk.ptr<i32>,
                  %r_trunc: !blk.ptr<i32>, %q_floor: !blk.ptr<i32>, %r_floor: !blk.ptr<i32>)
    attributes {blk.kernel} {
  %i = blk.arange 0, 8 : tensor<8xi32>
  %ap = blk.addptr %a, %i : !blk.ptr<i32>, tensor<8xi32> -> tensor<8x!blk.ptr<i32>>
  %bp = blk.addptr %b, %i : !blk.ptr<i32>, tensor<8xi32> -> tensor<8x!blk.ptr<i32>>
  %x = blk.load %ap : tensor<8x!blk.ptr<i32>>
  %y = blk.load %bp : tensor<8x!blk.ptr<i32>>
  %qt = blk.floordiv %x, %y rounding = trunc : tensor<8xi32>
  %rt = blk.mod %x, %y rounding = trunc : tensor<8xi32>
  %qf = blk.floordiv %x, %y rounding = floor : tensor<8xi32>
  %rf = blk.mod %x, %y rounding = floor : tensor<8xi32>
  %p0 = blk.addptr %q_trunc, %i : !blk.ptr<i32>, tensor<8xi32> -> tensor<8x!blk.ptr<i32>>
  %p1 = blk.addptr %r_trunc, %i : !blk.ptr<i32>, tensor<8xi32> -> tensor<8x!blk.ptr<i32>>
  %p2 = blk.addptr %q_floor, %i : !blk.ptr<i32>, tensor<8xi32> -> tensor<8x!blk.ptr<i32>>
  %p3 = blk.addptr %r_floor, %i : !blk.ptr<i32>, tensor<8xi32> -> tensor<8x!blk.ptr<i32>>
  blk.store %p0, %qt : tensor<8x!blk.ptr<i32>>
  blk.store %p1, %rt : tensor<8x!blk.ptr<i32>>
  blk.store %p2, %qf : tensor<8x!blk.ptr<i32>>
  blk.store %p3, %rf : tensor<8x!blk.ptr<i32>>
  func.return
}
"""

INT_MIN = -(2**31)


def test_trunc_and_floor_division_of_negative_numbers_and_by_zero(run_blk: RunKernel) -> None:
    a = np.array([-7, 7, -7, 7, 5, -5, INT_MIN, INT_MIN], np.int32)
    b = np.array([2, -2, -2, 2, 0, 0, -1, 3], np.int32)
    q_trunc, r_trunc, q_floor, r_floor = (np.zeros(8, np.int32) for _ in range(4))
    run_blk(INT_DIVISION, (1,), a, b, q_trunc, r_trunc, q_floor, r_floor)
    assert q_trunc.tolist() == [-3, -3, 3, 3, 0, 0, INT_MIN, -715827882]
    assert r_trunc.tolist() == [-1, 1, -1, 1, 5, -5, 0, -2]
    assert q_floor.tolist() == [-4, -4, 3, 3, 0, 0, INT_MIN, -715827883]
    assert r_floor.tolist() == [1, -1, -1, 1, 5, -5, 0, 1]
    # x == (x // y) * y + x % y holds for both roundings, division by zero included
    for q, r in ((q_trunc, r_trunc), (q_floor, r_floor)):
        np.testing.assert_array_equal(q * b + r, a)


CASTS = """
func.func @casts(%x: !blk.ptr<f32>, %to_i8: !blk.ptr<i8>, %to_u8: !blk.ptr<ui8>,
                 %to_i32: !blk.ptr<i32>, %to_bf16: !blk.ptr<bf16>, %wrapped: !blk.ptr<i8>)
    attributes {blk.kernel} {
  %i = blk.arange 0, 8 : tensor<8xi32>
  %xp = blk.addptr %x, %i : !blk.ptr<f32>, tensor<8xi32> -> tensor<8x!blk.ptr<f32>>
  %v = blk.load %xp : tensor<8x!blk.ptr<f32>>
  %a = blk.cast %v : tensor<8xf32> -> tensor<8xi8>
  %b = blk.cast %v : tensor<8xf32> -> tensor<8xui8>
  %c = blk.cast %v : tensor<8xf32> -> tensor<8xi32>
  %d = blk.cast %v : tensor<8xf32> -> tensor<8xbf16>
  %e = blk.cast %c : tensor<8xi32> -> tensor<8xi8>
  %pa = blk.addptr %to_i8, %i : !blk.ptr<i8>, tensor<8xi32> -> tensor<8x!blk.ptr<i8>>
  %pb = blk.addptr %to_u8, %i : !blk.ptr<ui8>, tensor<8xi32> -> tensor<8x!blk.ptr<ui8>>
  %pc = blk.addptr %to_i32, %i : !blk.ptr<i32>, tensor<8xi32> -> tensor<8x!blk.ptr<i32>>
  %pd = blk.addptr %to_bf16, %i : !blk.ptr<bf16>, tensor<8xi32> -> tensor<8x!blk.ptr<bf16>>
  %pe = blk.addptr %wrapped, %i : !blk.ptr<i8>, tensor<8xi32> -> tensor<8x!blk.ptr<i8>>
  blk.store %pa, %a : tensor<8x!blk.ptr<i8>>
  blk.store %pb, %b : tensor<8x!blk.ptr<ui8>>
  blk.store %pc, %c : tensor<8x!blk.ptr<i32>>
  blk.store %pd, %d : tensor<8x!blk.ptr<bf16>>
  blk.store %pe, %e : tensor<8x!blk.ptr<i8>>
  func.return
}
"""


def test_casts_saturate_take_nan_to_zero_and_round_bf16(run_blk: RunKernel) -> None:
    x = np.array([np.nan, 1e10, -1e10, -2.9, 2.9, 300.0, -129.5, 1.00390625], np.float32)
    outs = [np.zeros(8, t) for t in (np.int8, np.uint8, np.int32, ml_dtypes.bfloat16, np.int8)]
    run_blk(CASTS, (1,), x, *outs)
    to_i8, to_u8, to_i32, to_bf16, wrapped = outs
    assert to_i8.tolist() == [0, 127, -128, -2, 2, 127, -128, 1]
    assert to_u8.tolist() == [0, 255, 0, 0, 2, 255, 0, 1]
    assert to_i32.tolist() == [0, 2**31 - 1, -(2**31), -2, 2, 300, -129, 1]
    assert wrapped.tolist() == [0, -1, 0, -2, 2, 44, 127, 1]  # i32 -> i8 wraps
    # f32 -> bf16 rounds to nearest even exactly as ml_dtypes does (1 + 2**-8 is a tie)
    np.testing.assert_array_equal(
        to_bf16.view(np.uint16), x.astype(ml_dtypes.bfloat16).view(np.uint16)
    )
    assert float(to_bf16[7]) == 1.0


# --------------------------------------------------------------------------------------
# Reductions, scans, dot
# --------------------------------------------------------------------------------------

ARG_REDUCTIONS = """
func.func @arg(%x: !blk.ptr<f32>, %amax: !blk.ptr<i32>, %amin: !blk.ptr<i32>,
               %flat: !blk.ptr<i32>) attributes {blk.kernel} {
  %i = blk.arange 0, 32 : tensor<32xi32>
  %xp = blk.addptr %x, %i : !blk.ptr<f32>, tensor<32xi32> -> tensor<32x!blk.ptr<f32>>
  %v1 = blk.load %xp : tensor<32x!blk.ptr<f32>>
  %v = blk.reshape %v1 : tensor<32xf32> -> tensor<4x8xf32>
  %mx = blk.reduce argmax, %v axis = 1 nan = NAN : tensor<4x8xf32> -> tensor<4xi32>
  %mn = blk.reduce argmin, %v axis = 1 nan = NAN : tensor<4x8xf32> -> tensor<4xi32>
  %all = blk.reduce argmax, %v nan = NAN : tensor<4x8xf32> -> i32
  %r = blk.arange 0, 4 : tensor<4xi32>
  %p0 = blk.addptr %amax, %r : !blk.ptr<i32>, tensor<4xi32> -> tensor<4x!blk.ptr<i32>>
  %p1 = blk.addptr %amin, %r : !blk.ptr<i32>, tensor<4xi32> -> tensor<4x!blk.ptr<i32>>
  blk.store %p0, %mx : tensor<4x!blk.ptr<i32>>
  blk.store %p1, %mn : tensor<4x!blk.ptr<i32>>
  blk.store %flat, %all : !blk.ptr<i32>
  func.return
}
"""

TIES_AND_NAN = np.array(
    [
        [1, 5, 5, 0, 0, 5, 2, 0],  # ties for max (1, 2, 5) and min (3, 4, 7)
        [7, 7, 7, 7, 7, 7, 7, 7],  # all equal: index 0
        [0, 2, np.nan, 9, np.nan, -1, -1, 3],
        [-3, 4, 4, -3, 9, 9, 1, 1],
    ],
    np.float32,
)


@pytest.mark.parametrize(
    ("nan", "expected_max", "expected_min", "expected_flat"),
    [
        # NaN counts as the extreme (NumPy's argmax); the first NaN, row-major, overall
        ("propagate", [1, 0, 2, 4], [3, 0, 2, 0], 18),
        # NaN is skipped (Triton's); the first 9, row 2 column 3, overall
        ("num", [1, 0, 3, 4], [3, 0, 5, 0], 19),
    ],
)
def test_argmax_and_argmin_give_the_first_of_tied_extremes(
    run_blk: RunKernel,
    nan: str,
    expected_max: list[int],
    expected_min: list[int],
    expected_flat: int,
) -> None:
    amax, amin, flat = np.zeros(4, np.int32), np.zeros(4, np.int32), np.zeros(1, np.int32)
    run_blk(ARG_REDUCTIONS.replace("NAN", nan), (1,), TIES_AND_NAN, amax, amin, flat)
    assert amax.tolist() == expected_max
    assert amin.tolist() == expected_min
    assert flat.tolist() == [expected_flat]
    if nan == "propagate":
        assert expected_max == np.argmax(TIES_AND_NAN, axis=1).tolist()
        assert expected_min == np.argmin(TIES_AND_NAN, axis=1).tolist()
    else:
        assert expected_max == np.nanargmax(TIES_AND_NAN, axis=1).tolist()
        assert expected_min == np.nanargmin(TIES_AND_NAN, axis=1).tolist()


DOT = """
func.func @dot(%a: !blk.ptr<f16>, %b: !blk.ptr<f16>, %c: !blk.ptr<f32>, %out: !blk.ptr<f32>)
    attributes {blk.kernel} {
  %i = blk.arange 0, 128 : tensor<128xi32>
  %j = blk.arange 0, 256 : tensor<256xi32>
  %ap = blk.addptr %a, %i : !blk.ptr<f16>, tensor<128xi32> -> tensor<128x!blk.ptr<f16>>
  %bp = blk.addptr %b, %i : !blk.ptr<f16>, tensor<128xi32> -> tensor<128x!blk.ptr<f16>>
  %cp = blk.addptr %c, %j : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  %a1 = blk.load %ap : tensor<128x!blk.ptr<f16>>
  %b1 = blk.load %bp : tensor<128x!blk.ptr<f16>>
  %c1 = blk.load %cp : tensor<256x!blk.ptr<f32>>
  %a2 = blk.reshape %a1 : tensor<128xf16> -> tensor<16x8xf16>
  %b2 = blk.reshape %b1 : tensor<128xf16> -> tensor<8x16xf16>
  %c2 = blk.reshape %c1 : tensor<256xf32> -> tensor<16x16xf32>
  %d = blk.dot %a2, %b2 acc %c2 acc_dtype = f32
      : tensor<16x8xf16>, tensor<8x16xf16>, tensor<16x16xf32> -> tensor<16x16xf32>
  %d1 = blk.reshape %d : tensor<16x16xf32> -> tensor<256xf32>
  %op = blk.addptr %out, %j : !blk.ptr<f32>, tensor<256xi32> -> tensor<256x!blk.ptr<f32>>
  blk.store %op, %d1 : tensor<256x!blk.ptr<f32>>
  func.return
}
"""


def test_dot_accumulates_f16_products_in_f32_and_adds_acc(run_blk: RunKernel) -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((16, 8)).astype(np.float16)
    b = rng.standard_normal((8, 16)).astype(np.float16)
    c = rng.standard_normal((16, 16)).astype(np.float32)
    out = np.zeros((16, 16), np.float32)
    run_blk(DOT, (1,), a, b, c, out)
    expected = a.astype(np.float64) @ b.astype(np.float64) + c
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


INT8_DOT = """
func.func @dot_i8(%a: !blk.ptr<i8>, %b: !blk.ptr<i8>, %out: !blk.ptr<i32>) attributes {blk.kernel} {
  %i = blk.arange 0, 64 : tensor<64xi32>
  %ap = blk.addptr %a, %i : !blk.ptr<i8>, tensor<64xi32> -> tensor<64x!blk.ptr<i8>>
  %bp = blk.addptr %b, %i : !blk.ptr<i8>, tensor<64xi32> -> tensor<64x!blk.ptr<i8>>
  %a1 = blk.load %ap : tensor<64x!blk.ptr<i8>>
  %b1 = blk.load %bp : tensor<64x!blk.ptr<i8>>
  %a2 = blk.reshape %a1 : tensor<64xi8> -> tensor<8x8xi8>
  %b2 = blk.reshape %b1 : tensor<64xi8> -> tensor<8x8xi8>
  %d = blk.dot %a2, %b2 acc_dtype = i32 : tensor<8x8xi8>, tensor<8x8xi8> -> tensor<8x8xi32>
  %d1 = blk.reshape %d : tensor<8x8xi32> -> tensor<64xi32>
  %op = blk.addptr %out, %i : !blk.ptr<i32>, tensor<64xi32> -> tensor<64x!blk.ptr<i32>>
  blk.store %op, %d1 : tensor<64x!blk.ptr<i32>>
  func.return
}
"""


def test_int8_dot_accumulates_in_i32_without_overflow(run_blk: RunKernel) -> None:
    a = np.full((8, 8), -128, np.int8)
    b = np.full((8, 8), 127, np.int8)
    out = np.zeros((8, 8), np.int32)
    run_blk(INT8_DOT, (1,), a, b, out)
    np.testing.assert_array_equal(out, np.full((8, 8), -128 * 127 * 8))


SCAN = """
func.func @scan(%x: !blk.ptr<i32>, %sums: !blk.ptr<i32>, %maxes: !blk.ptr<i32>)
    attributes {blk.kernel} {
  %i = blk.arange 0, 32 : tensor<32xi32>
  %xp = blk.addptr %x, %i : !blk.ptr<i32>, tensor<32xi32> -> tensor<32x!blk.ptr<i32>>
  %v1 = blk.load %xp : tensor<32x!blk.ptr<i32>>
  %v = blk.reshape %v1 : tensor<32xi32> -> tensor<4x8xi32>
  %s = blk.scan sum, %v axis = 1 acc_dtype = i32 : tensor<4x8xi32>
  %m = blk.scan max, %v axis = 0 : tensor<4x8xi32>
  %s1 = blk.reshape %s : tensor<4x8xi32> -> tensor<32xi32>
  %m1 = blk.reshape %m : tensor<4x8xi32> -> tensor<32xi32>
  %sp = blk.addptr %sums, %i : !blk.ptr<i32>, tensor<32xi32> -> tensor<32x!blk.ptr<i32>>
  %mp = blk.addptr %maxes, %i : !blk.ptr<i32>, tensor<32xi32> -> tensor<32x!blk.ptr<i32>>
  blk.store %sp, %s1 : tensor<32x!blk.ptr<i32>>
  blk.store %mp, %m1 : tensor<32x!blk.ptr<i32>>
  func.return
}
"""


def test_inclusive_scans_along_an_axis(run_blk: RunKernel) -> None:
    x = np.random.default_rng(4).integers(-100, 100, (4, 8), dtype=np.int32)
    x[0, :2] = 2**31 - 1  # the running sum wraps
    sums, maxes = np.zeros((4, 8), np.int32), np.zeros((4, 8), np.int32)
    run_blk(SCAN, (1,), x, sums, maxes)
    np.testing.assert_array_equal(sums, np.cumsum(x, axis=1, dtype=np.int32))
    np.testing.assert_array_equal(maxes, np.maximum.accumulate(x, axis=0))
    assert sums[0, 1] == -2


# --------------------------------------------------------------------------------------
# Atomics
# --------------------------------------------------------------------------------------

HISTOGRAM = """
func.func @histogram(%keys: !blk.ptr<i32>, %hist: !blk.ptr<i32>, %old: !blk.ptr<i32>, %n: i32)
    attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %c64 = blk.constant 64 : i32
  %start = blk.mul %pid, %c64 : i32
  %r = blk.arange 0, 64 : tensor<64xi32>
  %s = blk.splat %start : i32 -> tensor<64xi32>
  %offs = blk.add %s, %r : tensor<64xi32>
  %ns = blk.splat %n : i32 -> tensor<64xi32>
  %m = blk.cmp lt, %offs, %ns : tensor<64xi32>
  %kp = blk.addptr %keys, %offs : !blk.ptr<i32>, tensor<64xi32> -> tensor<64x!blk.ptr<i32>>
  %k = blk.load %kp mask %m : tensor<64x!blk.ptr<i32>>
  %hp = blk.addptr %hist, %k : !blk.ptr<i32>, tensor<64xi32> -> tensor<64x!blk.ptr<i32>>
  %one = blk.constant dense<1> : tensor<64xi32>
  %before = blk.atomic_rmw add, %hp, %one mask %m : tensor<64x!blk.ptr<i32>>
  %op = blk.addptr %old, %offs : !blk.ptr<i32>, tensor<64xi32> -> tensor<64x!blk.ptr<i32>>
  blk.store %op, %before mask %m : tensor<64x!blk.ptr<i32>>
  func.return
}
"""


def test_atomic_add_counts_repeated_addresses_across_programs(run_blk: RunKernel) -> None:
    n, bins = 300, 5
    keys = np.random.default_rng(5).integers(0, bins, n, dtype=np.int32)
    hist, old = np.zeros(bins, np.int32), np.full(n, -1, np.int32)
    run_blk(HISTOGRAM, (5,), keys, hist, old, n)
    np.testing.assert_array_equal(hist, np.bincount(keys, minlength=bins))
    # each update saw the one before it: per bin, the old values are 0, 1, ..., count - 1
    # in program and lane order
    for b in range(bins):
        assert old[keys == b].tolist() == list(range(int(hist[b])))


ATOMIC_CAS = """
func.func @claim(%slots: !blk.ptr<i32>, %got: !blk.ptr<i32>) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %zero = blk.constant 0 : i32
  %one = blk.constant 1 : i32
  %me = blk.add %pid, %one : i32
  %old = blk.atomic_cas %slots, %zero, %me : !blk.ptr<i32>
  %gp = blk.addptr %got, %pid : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
  blk.store %gp, %old : !blk.ptr<i32>
  func.return
}
"""


def test_atomic_cas_lets_only_the_first_program_claim_a_slot(run_blk: RunKernel) -> None:
    slots, got = np.zeros(1, np.int32), np.full(4, -1, np.int32)
    run_blk(ATOMIC_CAS, (4,), slots, got)
    assert slots.tolist() == [1]
    assert got.tolist() == [0, 1, 1, 1]


# --------------------------------------------------------------------------------------
# Control flow and arith
# --------------------------------------------------------------------------------------

ROW_SUMS = """
func.func @row_sums(%x: !blk.ptr<f32>, %out: !blk.ptr<f32>, %cols: i32) attributes {blk.kernel} {
  %row = blk.program_id 0 : i32
  %base = blk.mul %row, %cols : i32
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %ncols = arith.index_cast %cols : i32 to index
  %r = blk.arange 0, 16 : tensor<16xi32>
  %zero = blk.constant dense<0.0> : tensor<16xf32>
  %acc = scf.for %k = %c0 to %ncols step %c16 iter_args(%a = %zero) -> (tensor<16xf32>) {
    %k32 = arith.index_cast %k : index to i32
    %start = arith.addi %base, %k32 : i32
    %s = blk.splat %start : i32 -> tensor<16xi32>
    %offs = blk.add %s, %r : tensor<16xi32>
    %kk = blk.splat %k32 : i32 -> tensor<16xi32>
    %col = blk.add %kk, %r : tensor<16xi32>
    %cs = blk.splat %cols : i32 -> tensor<16xi32>
    %m = blk.cmp lt, %col, %cs : tensor<16xi32>
    %p = blk.addptr %x, %offs : !blk.ptr<f32>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
    %v = blk.load %p mask %m : tensor<16x!blk.ptr<f32>>
    %n = blk.add %a, %v : tensor<16xf32>
    scf.yield %n : tensor<16xf32>
  }
  %total = blk.reduce sum, %acc acc_dtype = f32 : tensor<16xf32> -> f32
  %positive = blk.constant 0.0 : f32
  %is_neg = blk.cmp lt, %total, %positive : f32
  %result = scf.if %is_neg -> (f32) {
    %z = blk.neg %total : f32
    scf.yield %z : f32
  } else {
    scf.yield %total : f32
  }
  %op = blk.addptr %out, %row : !blk.ptr<f32>, i32 -> !blk.ptr<f32>
  blk.store %op, %result : !blk.ptr<f32>
  func.return
}
"""


def test_scf_for_with_iter_args_over_index_bounds_and_scf_if(run_blk: RunKernel) -> None:
    rows, cols = 3, 50  # 4 iterations of 16, the last one masked
    x = np.random.default_rng(6).standard_normal((rows, cols)).astype(np.float32)
    out = np.zeros(rows, np.float32)
    run_blk(ROW_SUMS, (rows,), x, out, cols)
    np.testing.assert_allclose(out, np.abs(x.sum(axis=1)), rtol=1e-5)


COLLATZ = """
func.func @collatz(%start: i32, %out: !blk.ptr<i32>) attributes {blk.kernel} {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %three = arith.constant 3 : i32
  %n, %steps = scf.while (%v = %start, %s = %zero) : (i32, i32) -> (i32, i32) {
    %go = arith.cmpi sgt, %v, %one : i32
    scf.condition(%go) %v, %s : i32, i32
  } do {
  ^bb0(%v: i32, %s: i32):
    %r = arith.remsi %v, %two : i32
    %odd = arith.cmpi ne, %r, %zero : i32
    %half = arith.divsi %v, %two : i32
    %t = arith.muli %v, %three : i32
    %t1 = arith.addi %t, %one : i32
    %next = arith.select %odd, %t1, %half : i32
    %s1 = arith.addi %s, %one : i32
    scf.yield %next, %s1 : i32, i32
  }
  blk.store %out, %steps : !blk.ptr<i32>
  func.return
}
"""


def test_scf_while_with_arith_scalars(run_blk: RunKernel) -> None:
    out = np.zeros(1, np.int32)
    run_blk(COLLATZ, (1,), 27, out)
    assert out.tolist() == [111]


def test_print_writes_each_programs_values_to_stdout(
    run_blk: RunKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    text = """
    func.func @show(%x: i32) attributes {blk.kernel} {
      %pid = blk.program_id 0 : i32
      %r = blk.arange 0, 3 : tensor<3xi32>
      blk.print " x = " %x, %pid, %r : i32, i32, tensor<3xi32>
      func.return
    }
    """
    run_blk(text, (2,), 7)
    assert capsys.readouterr().out.splitlines() == [
        f"pid ({p}, 0, 0) idx ({i}) x = (operand {n}) {v}"
        for p in range(2)
        for n, i, v in [(0, "", 7), (1, "", p), (2, 0, 0), (2, 1, 1), (2, 2, 2)]
    ]


# --------------------------------------------------------------------------------------
# Errors: located at the op, never a module dump
# --------------------------------------------------------------------------------------

ASSERTING = """
func.func @check(%x: !blk.ptr<i32>, %limit: i32) attributes {blk.kernel} {
  %i = blk.arange 0, 16 : tensor<16xi32>
  %p = blk.addptr %x, %i : !blk.ptr<i32>, tensor<16xi32> -> tensor<16x!blk.ptr<i32>>
  %v = blk.load %p : tensor<16x!blk.ptr<i32>>
  %l = blk.splat %limit : i32 -> tensor<16xi32>
  %ok = blk.cmp lt, %v, %l : tensor<16xi32>
  blk.assert %ok, "value too large" : tensor<16xi1>
  func.return
}
"""


def _line_of(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_failing_assert_raises_with_its_message_and_location(run_blk: RunKernel) -> None:
    x = np.arange(16, dtype=np.int32)
    run_blk(ASSERTING, (1,), x, 100)  # every lane holds
    line = _line_of(ASSERTING, "blk.assert")
    with pytest.raises(AssertionError) as info:
        run_blk(ASSERTING, (1,), x, 12)
    message = str(info.value)
    assert message.startswith(f"kernel.mlir:{line}:3: error: assertion failed: value too large")
    assert "(program (0, 0, 0), lane (12,))" in message
    assert 'blk.assert %ok, "value too large"' in message  # the source line, with a caret
    assert "builtin.module" not in message


def test_unmasked_out_of_bounds_load_raises_index_error(run_blk: RunKernel) -> None:
    x = np.arange(10, dtype=np.int32)
    line = _line_of(ASSERTING, "blk.load")
    with pytest.raises(IndexError) as info:
        run_blk(ASSERTING, (1,), x, 100)
    assert str(info.value).startswith(
        f"kernel.mlir:{line}:3: error: reads out of bounds: element 10 of '%x' (argument 0), "
        "which has 10 elements (program (0, 0, 0), lane (10,))"
    )


def test_masked_off_lanes_may_point_anywhere(run_blk: RunKernel) -> None:
    n = 100
    x, y, out = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
    run_blk(VECTOR_ADD, (1,), x, y, out, n)  # lanes 100..255 are masked off
    assert out.tolist() == [2.0] * n


def test_out_of_bounds_store_raises_before_writing(run_blk: RunKernel) -> None:
    x, y, out = np.ones(101, np.float32), np.ones(101, np.float32), np.zeros(100, np.float32)
    with pytest.raises(IndexError, match=r"writes out of bounds: element 100 .* lane \(100,\)"):
        run_blk(VECTOR_ADD, (1,), x, y, out, 101)  # `out` is one element short
    assert not out.any()


# --------------------------------------------------------------------------------------
# The API: arguments, grids, kernels, strictness
# --------------------------------------------------------------------------------------


def test_arguments_are_checked_against_the_parameters(make_strict: StrictModule) -> None:
    module = make_strict(VECTOR_ADD)
    f32 = np.zeros(8, np.float32)

    def run(*args: object) -> None:
        interpreter.run(module, None, (1,), list(args))

    with pytest.raises(TypeError, match=r"'%x_ptr' \(argument 0\) is !blk.ptr<f32>: .*float64"):
        run(np.zeros(8), f32, f32, 8)
    with pytest.raises(TypeError, match="not C-contiguous"):
        run(np.zeros((8, 2), np.float32)[:, 0], f32, f32, 8)
    with pytest.raises(TypeError, match="pass a NumPy array"):
        run([0.0] * 8, f32, f32, 8)
    with pytest.raises(TypeError, match="pass an integer"):
        run(f32, f32, f32, 8.0)
    with pytest.raises(TypeError, match="takes 4 arguments, got 3"):
        run(f32, f32, f32)
    with pytest.raises(ValueError, match="grid must be 1 to 3"):
        interpreter.run(module, None, (1, 1, 1, 1), [f32, f32, f32, 8])
    with pytest.raises(
        ValueError, match=re.escape("no kernel 'add' (kernels: vector_add)")
    ):
        interpreter.run(module, "add", (1,), [f32, f32, f32, 8])


def test_scalar_arguments_wrap_to_the_parameter_dtype(run_blk: RunKernel) -> None:
    text = """
    func.func @put(%out: !blk.ptr<ui8>, %v: ui8) attributes {blk.kernel} {
      blk.store %out, %v : !blk.ptr<ui8>
      func.return
    }
    """
    out = np.zeros(1, np.uint8)
    run_blk(text, (1,), out, 257)
    assert out.tolist() == [1]
    run_blk(text, (1,), out, -1)
    assert out.tolist() == [255]


def test_grid_runs_every_program_id_on_three_axes(run_blk: RunKernel) -> None:
    text = """
    func.func @ids(%out: !blk.ptr<i32>) attributes {blk.kernel} {
      %x = blk.program_id 0 : i32
      %y = blk.program_id 1 : i32
      %z = blk.program_id 2 : i32
      %nx = blk.num_programs 0 : i32
      %ny = blk.num_programs 1 : i32
      %yz = blk.mul %z, %ny : i32
      %row = blk.add %yz, %y : i32
      %lin0 = blk.mul %row, %nx : i32
      %lin = blk.add %lin0, %x : i32
      %p = blk.addptr %out, %lin : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
      %ten = blk.constant 10 : i32
      %hundred = blk.constant 100 : i32
      %a = blk.mul %z, %hundred : i32
      %b = blk.mul %y, %ten : i32
      %c = blk.add %a, %b : i32
      %d = blk.add %c, %x : i32
      blk.store %p, %d : !blk.ptr<i32>
      func.return
    }
    """
    out = np.full((2, 3, 4), -1, np.int32)
    run_blk(text, (4, 3, 2), out)
    z, y, x = np.indices((2, 3, 4))
    np.testing.assert_array_equal(out, 100 * z + 10 * y + x)


def test_loose_ir_is_refused_with_a_located_error() -> None:
    import blkc

    module = blkc.parse(VECTOR_ADD, "loose.mlir")
    with pytest.raises(BlkcError, match=r"loose.mlir:\d+:\d+: error: is not strict"):
        interpreter.run(module, None, (1,), [np.zeros(1, np.float32)] * 3 + [1])


def test_blocks_mixing_two_base_pointers_are_refused(run_blk: RunKernel) -> None:
    text = """
    func.func @mix(%a: !blk.ptr<f32>, %b: !blk.ptr<f32>, %out: !blk.ptr<f32>)
        attributes {blk.kernel} {
      %i = blk.arange 0, 4 : tensor<4xi32>
      %two = blk.constant dense<2> : tensor<4xi32>
      %low = blk.cmp lt, %i, %two : tensor<4xi32>
      %pa = blk.addptr %a, %i : !blk.ptr<f32>, tensor<4xi32> -> tensor<4x!blk.ptr<f32>>
      %pb = blk.addptr %b, %i : !blk.ptr<f32>, tensor<4xi32> -> tensor<4x!blk.ptr<f32>>
      %p = blk.where %low, %pa, %pb : tensor<4x!blk.ptr<f32>>
      %v = blk.load %p : tensor<4x!blk.ptr<f32>>
      func.return
    }
    """
    a, b = np.zeros(4, np.float32), np.ones(4, np.float32)
    with pytest.raises(ValueError, match=r"mixes pointers into '%a' \(argument 0\) and '%b'"):
        run_blk(text, (1,), a, b, a)


HELPERS = """
func.func private @ceil_div(%a: i32, %b: i32) -> i32 {
  %q = arith.ceildivsi %a, %b : i32
  func.return %q : i32
}
func.func @misc(%x: !blk.ptr<f32>, %out: !blk.ptr<i32>, %a: i32, %b: i32, %f: f32)
    attributes {blk.kernel} {
  %q = func.call @ceil_div(%a, %b) : (i32, i32) -> i32
  blk.store %out, %q : !blk.ptr<i32>
  %one = blk.constant 1 : i32
  %two = blk.constant 2 : i32
  %three = blk.constant 3 : i32
  %xi = blk.cast %x : !blk.ptr<f32> -> !blk.ptr<i32>
  %x1 = blk.addptr %xi, %one : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
  %loaded_bits = blk.load %x1 : !blk.ptr<i32>
  %o1 = blk.addptr %out, %one : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
  blk.store %o1, %loaded_bits : !blk.ptr<i32>
  %cast_bits = blk.bitcast %f : f32 -> i32
  %o2 = blk.addptr %out, %two : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
  blk.store %o2, %cast_bits : !blk.ptr<i32>
  %minus_one = arith.constant -1 : i32
  %umax = arith.maxui %minus_one, %one : i32
  %o3 = blk.addptr %out, %three : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
  blk.store %o3, %umax : !blk.ptr<i32>
  func.return
}
"""


def test_calls_pointer_casts_bitcasts_and_unsigned_arith(run_blk: RunKernel) -> None:
    x, out = np.array([1.5, 2.0], np.float32), np.zeros(4, np.int32)
    run_blk(HELPERS, (1,), x, out, -7, 2, 1.0)
    one_bits, two_bits = np.array([1.0, 2.0], np.float32).view(np.int32).tolist()
    assert out.tolist() == [-3, two_bits, one_bits, -1]  # ceil(-3.5) == -3; maxui(-1, 1)
    with pytest.raises(ZeroDivisionError, match="'arith.ceildivsi' divides by zero"):
        run_blk(HELPERS, (1,), x, out, -7, 0, 1.0)
