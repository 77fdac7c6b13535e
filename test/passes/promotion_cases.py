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
    library: str
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
            yield Case(library, section, row, column, computation, operands, _cell(cell))


@dataclass(frozen=True)
class Departure:
    """Cells where a policy deliberately gives another answer than its library."""

    why: str
    sections: frozenset[str]
    lhs: frozenset[str] | None
    """Row keys (dtype names, or scalar keys for literal sections); None for every row."""
    rhs: frozenset[str] | None
    blkc: str
    """What blkc gives: a dtype name, ``error``, ``documented`` (Triton's documented
    answer from the table's ``departures_from_documented``), or ``same-as:SECTION`` (what
    the policy must give for the same operands in SECTION)."""
    library: str | None = None
    """Only cells where the library gives this (a dtype name or ``error``)."""

    def covers(self, case: Case) -> bool:
        library_cell = case.expected or "error"
        return (
            case.section in self.sections
            and (self.library is None or library_cell == self.library)
            and (self.lhs is None or case.lhs in self.lhs)
            and (self.rhs is None or case.rhs in self.rhs)
        )


@cache
def departures(policy: str) -> tuple[Departure, ...]:
    data = json.loads((TABLES / "departures.json").read_text()).get(policy, [])
    return (
        tuple(
            Departure(
                why=entry["why"],
                sections=frozenset(entry["sections"]),
                lhs=None if entry.get("lhs", "*") == "*" else frozenset(entry["lhs"]),
                rhs=None if entry.get("rhs", "*") == "*" else frozenset(entry["rhs"]),
                blkc=entry["blkc"],
                library=entry.get("library_cell"),
            )
            for entry in data["departures"]
        )
        if data
        else ()
    )


@cache
def documented_triton() -> dict[tuple[str, str, str], str | None]:
    """Triton's documented answer for the cells where its front end departs from it,
    keyed like `Case` (section, row, column)."""
    found: dict[tuple[str, str, str], str | None] = {}
    for entry in load("triton")["departures_from_documented"]:
        section, lhs, rhs = entry["section"], entry["lhs"], entry["rhs"]
        key = (section, rhs, lhs) if section == "scalar_array" else (section, lhs, rhs)
        found[key] = _cell(entry["documented"])
    return found


def library_of(case: Case) -> str:
    return case.library


def expected(policy: str, case: Case) -> tuple[str | None, Departure | None]:
    """What `policy` must give for `case`: the library's cell unless a departure covers it."""
    for departure in departures(policy):
        if departure.covers(case):
            if departure.blkc.startswith("same-as:"):
                section = departure.blkc.removeprefix("same-as:")
                twin = next(
                    c
                    for c in cases(library_of(case), section)
                    if (c.lhs, c.rhs) == (case.lhs, case.rhs)
                )
                return expected(policy, twin)[0], departure
            if departure.blkc == "documented":
                return documented_triton().get(
                    (case.section, case.lhs, case.rhs), case.expected
                ), departure
            return (None if departure.blkc == "error" else departure.blkc), departure
    return case.expected, None
