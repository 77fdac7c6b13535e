"""Every pair of edge values through every elementwise op, and every edge value through
every cast: compiled and interpreted alike, bit for bit.

Random kernels meet an edge case now and then; these kernels meet all of them, for each
dtype (`harness.edge_values`: 0, -1, the extremes, NaN, infinities, subnormals, ties,
shift amounts around the width), in strict IR (no promotion in the way): integer
division by zero and by -1, shifts by negative or too large amounts, float to integer
conversions of NaN and of out-of-range values, narrowing float conversions.

Left out: `exp`, which is not correctly rounded in the compiled code (the random kernels
check it against an envelope). Float ``minimum`` and ``maximum`` compare ``-0.0`` equal
to ``0.0`` (a spec question: `kernels.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from blkc import dtypes
from blkc.dtypes import DType

from .harness import Array, assert_same, edge_values, run_both
from .kernels import ALL_DTYPES, ptr_text, type_text

PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


@dataclass(frozen=True)
class Result:
    """One value the kernel computes from its inputs ``%in0``, ``%in1``, ... and stores."""

    ir: str
    """The op computing ``%r``."""
    dtype: DType
    signed_zeros: bool = True
    """False where the sign of a zero result is unspecified (float minimum and maximum)."""


def binary_results(d: DType, n: int) -> list[Result]:
    """The binary ops that take two blocks of `d` in strict IR, and the comparisons."""
    t = type_text(d.mlir, (n,))
    ops = ["add", "sub", "mul"]
    if d.is_float:
        ops.append("truediv")
    if not d.is_bool:
        ops += [f"{op} rounding = {r}" for op in ("floordiv", "mod") for r in ("floor", "trunc")]
    if not d.is_float:
        ops += ["and", "or", "xor"]
    if d.is_int:
        ops += ["shl", "shr"]
    results = [_binary(op, t, d) for op in ops]
    for extreme in ("minimum", "maximum"):
        results.append(Result(f"%r = blk.{extreme} %in0, %in1 : {t}", d, not d.is_float))
    results += [Result(f"%r = blk.cmp {p}, %in0, %in1 : {t}", dtypes.bool_) for p in PREDICATES]
    return results


def _binary(op: str, t: str, d: DType) -> Result:
    name, _, clause = op.partition(" ")
    return Result(f"%r = blk.{name} %in0, %in1{' ' + clause if clause else ''} : {t}", d)


def unary_results(d: DType, n: int) -> list[Result]:
    """neg, abs, sqrt or not, and a cast to every dtype."""
    t = type_text(d.mlir, (n,))
    ops = ["not"] if d.is_bool else ["neg", "abs", "sqrt" if d.is_float else "not"]
    results = [Result(f"%r = blk.{op} %in0 : {t}", d) for op in ops]
    for target in ALL_DTYPES:
        results.append(
            Result(f"%r = blk.cast %in0 : {t} -> {type_text(target.mlir, (n,))}", target)
        )
    return results


def kernel(inputs: list[DType], results: list[Result], n: int) -> str:
    """A kernel loading `n` lanes of each input and storing each result into its own
    array (the results' ``%r`` renamed apart)."""
    offsets = type_text("i32", (n,))
    params, lines = [], [f"%i = blk.arange 0, {n} : {offsets}"]

    def pointers(name: str, d: DType) -> str:
        params.append(f"%{name}_ptr: {ptr_text(d)}")
        lines.append(
            f"%{name}_p = blk.addptr %{name}_ptr, %i : {ptr_text(d)}, {offsets} -> "
            f"{ptr_text(d, (n,))}"
        )
        return f"%{name}_p"

    for k, d in enumerate(inputs):
        lines.append(f"%in{k} = blk.load {pointers(f'in{k}', d)} : {ptr_text(d, (n,))}")
    for k, result in enumerate(results):
        lines.append(result.ir.replace("%r ", f"%r{k} ", 1))
        where = pointers(f"out{k}", result.dtype)
        lines.append(f"blk.store {where}, %r{k} : {ptr_text(result.dtype, (n,))}")
    body = "\n".join(f"    {line}" for line in [*lines, "func.return"])
    return f"func.func @edges({', '.join(params)}) attributes {{blk.kernel}} {{\n{body}\n}}\n"


def check(inputs: list[Array], results: list[Result], target: str) -> None:
    """Run the kernel both ways on `inputs`; compare every result."""
    n = inputs[0].size
    text = kernel([dtypes.from_numpy(a.dtype) for a in inputs], results, n)
    outputs = [np.zeros(n, r.dtype.numpy) for r in results]
    # Without the check for missing functions: these kernels are big, and the random
    # kernels, with the check, convert between the same dtypes.
    interpreted, compiled = run_both(
        text, (1,), [*inputs, *outputs], "edges.mlir", check_calls=False, target=target
    )
    for k, result in enumerate(results):
        position = len(inputs) + k
        assert_same(
            f"{result.ir} (argument {position})",
            interpreted[position],
            compiled[position],
            signed_zeros=result.signed_zeros,
        )
    for position, array in enumerate(inputs):
        assert_same(f"input {position}", array, compiled[position])


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
def test_binary_ops_on_every_pair_of_edge_values(d: DType, target: str) -> None:
    edges = edge_values(d.numpy)
    lhs, rhs = (a.reshape(-1) for a in np.meshgrid(edges, edges, indexing="ij"))
    check([lhs, rhs], binary_results(d, lhs.size), target)


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
def test_unary_ops_and_casts_of_every_edge_value(d: DType, target: str) -> None:
    x = edge_values(d.numpy)
    check([x], unary_results(d, x.size), target)
