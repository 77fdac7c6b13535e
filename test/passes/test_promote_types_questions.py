"""`promote-types` asks the policy each op's question: ordering or equality for ``blk.cmp``,
subtraction (bools refused by most libraries), reductions, scans and ``dot``."""

from __future__ import annotations

import pytest

import blkc
from blkc.diagnostics import BlkcError


def promote(policy: str, signature: str, body: str) -> str:
    """`body` (ops of a function of `signature`) after ``promote-types{policy=...}``."""
    text = f"func.func @f({signature}) {{\n{body}\n  func.return\n}}\n"
    module = blkc.run_pipeline(blkc.parse(text, "f.mlir"), f"promote-types{{policy={policy}}}")
    return str(module)


BOOLS = "%a: tensor<4xi1>, %b: tensor<4xi1>"


def test_equality_takes_any_dtype_but_ordering_needs_numbers() -> None:
    equal = "%r = blk.cmp eq, %a, %b : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>"
    assert "blk.cmp eq" in promote("array_api", BOOLS, equal)
    less = "%r = blk.cmp lt, %a, %b : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>"
    with pytest.raises(BlkcError, match=r"order operations need numeric dtypes .*'numeric'"):
        promote("array_api", BOOLS, less)


@pytest.mark.parametrize(
    "op",
    [
        "%r = blk.sub %a, %b : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>",
        "%r = blk.neg %a : tensor<4xi1>",
    ],
)
def test_bools_are_added_but_not_subtracted(op: str) -> None:
    add = "%r = blk.add %a, %b : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>"
    assert "blk.add" in promote("numpy", BOOLS, add)
    assert "blk." in promote("triton", BOOLS, op)  # Triton subtracts bools as 1-bit integers
    with pytest.raises(BlkcError, match=r"NumPy does not subtract or negate bools .*bool-subtract"):
        promote("numpy", BOOLS, op)


def test_max_reductions_widen_where_the_policy_does() -> None:
    body = "%m = blk.reduce max, %x : tensor<8xui8> -> ui8"
    assert "blk.reduce max, %x acc_dtype = i32 : tensor<8xui8> -> i32" in promote(
        "triton", "%x: tensor<8xui8>", body
    )
    assert "blk.reduce max, %x : tensor<8xui8> -> ui8" in promote(
        "numpy", "%x: tensor<8xui8>", body
    )


def test_scans_ask_their_own_question() -> None:
    body = "%c = blk.scan sum, %x axis = 0 : tensor<8xi8>"
    jax = promote("jax", "%x: tensor<8xi8>", body)  # jnp.cumsum keeps int8; sums widen
    assert "blk.scan sum, %x axis = 0 acc_dtype = i8 : tensor<8xi8>" in jax
    numpy = promote("numpy", "%x: tensor<8xi8>", body)
    assert "acc_dtype = i64 : tensor<8xi8> -> tensor<8xi64>" in numpy


def test_dot_operands_and_accumulator_come_from_the_policy() -> None:
    halves = "%a: tensor<4x4xf16>, %b: tensor<4x4xf16>"
    body = "%d = blk.dot %a, %b : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>"
    assert "acc_dtype = f32 : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>" in promote(
        "triton", halves, body
    )
    assert "acc_dtype = f16" in promote("numpy", halves, body)
    mixed = "%a: tensor<4x4xf16>, %b: tensor<4x4xf32>"
    body = "%d = blk.dot %a, %b : tensor<4x4xf16>, tensor<4x4xf32> -> tensor<4x4xf32>"
    assert "blk.cast %a implicit : tensor<4x4xf16> -> tensor<4x4xf32>" in promote(
        "numpy", mixed, body
    )
    with pytest.raises(BlkcError, match=r"tl.dot needs operands of one dtype; .*'dot-dtypes'"):
        promote("triton", mixed, body)
