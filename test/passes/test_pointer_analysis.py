"""`pointer_analysis`: which pointer blocks hold one address per element, which are the
same expression, which argument they derive from."""

from __future__ import annotations

import pytest
from xdsl.dialects import func

import blkc
from blkc.passes.axis_info import AxisInfoAnalysis
from blkc.passes.pointer_analysis import Overlap, PointerAnalysis


def analysed(body: str, params: str = "%X: !blk.ptr<f32>") -> tuple[PointerAnalysis, dict]:
    """The analysis of a kernel with `body`, and its values by name (`%p` is `p`)."""
    text = f"func.func @k({params}) attributes {{blk.kernel}} {{\n{body}\n  func.return\n}}"
    module = blkc.run_pipeline(blkc.parse(text), "to-strict{warn=false}")
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    values = {
        r.name_hint: r for op in function.walk() for r in op.results if r.name_hint is not None
    }
    analysis = PointerAnalysis(
        function.body.blocks[0], lambda v: False, lambda: AxisInfoAnalysis(function)
    )
    return analysis, values


ROWS = """
  %r = blk.arange 0, 16 : tensor<16xi32>
  %c = blk.arange 0, 64 : tensor<64xi32>
  %rr = blk.expand_dims %r axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cc = blk.expand_dims %c axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %stride = blk.constant STRIDE : i32
  %ro = blk.mul %rr, %stride : tensor<16x1xi32>, i32 -> tensor<16x1xi32>
  %o = blk.add %ro, %cc : tensor<16x1xi32>, tensor<1x64xi32> -> tensor<16x64xi32>
  %p = blk.addptr %X, %o : !blk.ptr<f32>, tensor<16x64xi32> -> tensor<16x64x!blk.ptr<f32>>"""


@pytest.mark.parametrize(
    ("stride", "injective"), [(64, True), (100, True), (63, False), (0, False)]
)
def test_rows_of_a_matrix_are_injective_when_the_stride_covers_a_row(
    stride: int, injective: bool
) -> None:
    analysis, v = analysed(ROWS.replace("STRIDE", str(stride)))
    assert analysis.injective(v["p"]) is injective


ONE_D = """
  %o = blk.arange 0, 64 : tensor<64xi32>
  %k = blk.constant FACTOR : TYPE
  %w = blk.cast %o : tensor<64xi32> -> tensor<64xTYPE>
  %s = blk.mul %w, %k : tensor<64xTYPE>, TYPE -> tensor<64xTYPE>
  %p = blk.addptr %X, %s : !blk.ptr<f32>, tensor<64xTYPE> -> tensor<64x!blk.ptr<f32>>"""


@pytest.mark.parametrize(
    ("factor", "type_", "injective"),
    [
        (3, "i32", True),
        (-1, "i64", True),
        (2**25, "i32", True),
        (2**26, "i64", False),  # 63 * 2**26 could reach 2**31: a wrap not ruled out
        (3, "i16", False),  # narrow offsets are not analysed
        (1, "i16", True),  # x * 1 is x, whose runs the axis analysis knows
    ],
)
def test_scaled_offsets(factor: int, type_: str, injective: bool) -> None:
    analysis, v = analysed(ONE_D.replace("FACTOR", str(factor)).replace("TYPE", type_))
    assert analysis.injective(v["p"]) is injective


def test_contiguity_hints_prove_distinct_addresses() -> None:
    # `tl.max_contiguous` on an offset the affine form cannot follow (i64: no wrap).
    body = """
  %r = blk.arange 0, 64 : tensor<64xi32>
  %o = blk.cast %r : tensor<64xi32> -> tensor<64xi64>
  %n = blk.constant 1000 : i64
  %m = blk.mod %o, %n rounding = floor {blk.contiguity = 64 : i32} : tensor<64xi64>, i64
    -> tensor<64xi64>
  %p = blk.addptr %X, %m : !blk.ptr<f32>, tensor<64xi64> -> tensor<64x!blk.ptr<f32>>"""
    analysis, v = analysed(body)
    assert analysis.affine(v["p"]) is None
    assert analysis.injective(v["p"])


def test_overlap_of_reads_and_writes() -> None:
    body = """
  %o = blk.arange 0, 64 : tensor<64xi32>
  %last = blk.constant 63 : i32
  %rev = blk.sub %last, %o : i32, tensor<64xi32> -> tensor<64xi32>
  %a = blk.addptr %X, %o : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
  %b = blk.addptr %X, %o : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
  %r = blk.addptr %X, %rev : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
  %y = blk.addptr %Y, %o : !blk.ptr<f32>, tensor<64xi32> -> tensor<64x!blk.ptr<f32>>
  %e = blk.expand_dims %y axis = 0 : tensor<64x!blk.ptr<f32>> -> tensor<1x64x!blk.ptr<f32>>"""
    analysis, v = analysed(body, "%X: !blk.ptr<f32>, %Y: !blk.ptr<f32>")
    assert analysis.overlap(v["a"], v["b"]) is Overlap.ELEMENTWISE  # built twice
    assert analysis.overlap(v["r"], v["b"]) is Overlap.UNKNOWN
    assert analysis.overlap(v["r"], v["e"]) is Overlap.DISTINCT_ARGUMENTS  # through a view
    assert analysis.base_argument(v["e"]) is analysis.entry.args[1]
