"""Turns the reference tables (passes/promotion/tables/*.json) into promotion cases."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blkc.dialects.traits import Computation
from blkc.passes.promotion.base import Operand, Scalar

TABLES = Path(__file__).resolve().parents[2] / "passes" / "promotion" / "tables"

SECTIONS: dict[str, Computation] = {
    "array_array": Computation.ARITH,
    "array_scalar": Computation.ARITH,
    "scalar_array": Computation.ARITH,
    "zero_dim": Computation.ARITH,
    "tensor_scalar": Computation.ARITH,
    "truediv": Computation.TRUEDIV,
    "floordiv": Computation.FLOORDIV,
    "mod": Computation.MOD,
}


@dataclass(frozen=True)
class Case:
    section: str
    lhs: str
    rhs: str
    computation: Computation
    operands: tuple[Operand, ...]
    expected: str | None
    """The dtype name the library gives, or None when it refuses."""

    def __str__(self) -> str:
        return f"{self.section}[{self.lhs}][{self.rhs}]"


@cache
def load(library: str) -> dict:
    return json.loads((TABLES / f"{library}.json").read_text())


def parse_scalar(key: str) -> Scalar:
    if key == "inf":
        return math.inf
    if key in ("True", "False"):
        return key == "True"
    if key.endswith("j"):
        return complex(key)
    try:
        return int(key)
    except ValueError:
        return float(key)


def _cell(cell: object) -> str | None:
    return cell if isinstance(cell, str) else None


def cases(library: str, section: str) -> Iterator[Case]:
    table = load(library)
    computation = SECTIONS[section]
    for row, cells in table.get(section, {}).items():
        for column, cell in cells.items():
            if section in ("array_scalar", "scalar_array"):
                typed, literal = Operand.typed(row), Operand.literal(parse_scalar(column))
                operands = (typed, literal) if section == "array_scalar" else (literal, typed)
            elif section in ("zero_dim", "tensor_scalar"):
                operands = (Operand.typed(row), Operand.typed(column, rank=0))
            else:
                operands = (Operand.typed(row), Operand.typed(column))
            yield Case(section, row, column, computation, operands, _cell(cell))
