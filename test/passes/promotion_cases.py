"""Turns the reference tables (compiler/promotion/tables/*.json) into promotion cases.

Each section of a table asks a policy one question (`SECTIONS`): what an elementwise
operation of some `Computation` gives (`Policy.decide`), what a reduction or scan
accumulates in (`Policy.reduce_dtype`, `Policy.scan_dtype`), what ``dot`` accumulates in
(`Policy.dot_dtype`). A section of operations (``unary``, ``bitwise``) is split into one
section per operation, named ``unary.exp``, ``bitwise.shl``. A cell is keyed by its row
and column (``""`` in one-dimensional sections).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

from blkc import dtypes
from blkc.dialects.traits import Computation
from blkc.dtypes import DType
from blkc.passes.promotion.base import Operand, Policy, Scalar

TABLES = Path(__file__).resolve().parents[2] / "compiler" / "promotion" / "tables"


class Question(Protocol):
    def ask(self, policy: Policy, operands: tuple[Operand, ...]) -> DType:
        """The policy's answer; raises `PromotionError` when it refuses."""
        ...


@dataclass(frozen=True)
class Elementwise:
    """An elementwise operation of `computation` on the operands: its result dtype."""

    computation: Computation

    def ask(self, policy: Policy, operands: tuple[Operand, ...]) -> DType:
        return policy.decide(self.computation, operands).result


@dataclass(frozen=True)
class Reduction:
    """A `kind` reduction (an inclusive scan with `scan`) of a block: its accumulator."""

    kind: str
    scan: bool = False

    def ask(self, policy: Policy, operands: tuple[Operand, ...]) -> DType:
        (operand,) = operands
        assert operand.dtype is not None
        question = policy.scan_dtype if self.scan else policy.reduce_dtype
        return question(self.kind, operand.dtype)


@dataclass(frozen=True)
class Dot:
    """``dot`` of two blocks, plus an accumulator block when a third operand is given: its
    accumulator. An `explicit` accumulator dtype (``acc_dtype`` in blk IR, Triton's
    ``out_dtype``) is taken as given, once the policy accepts the operands."""

    explicit: DType | None = None

    def ask(self, policy: Policy, operands: tuple[Operand, ...]) -> DType:
        lhs, rhs, *acc = (o.dtype for o in operands)
        assert lhs is not None and rhs is not None
        decided = policy.dot_dtype(lhs, rhs, *acc).result
        return self.explicit or decided


Asked = tuple[Question, tuple[Operand, ...]]
Build = Callable[[str, str], Asked]
"""Makes the question and operands of the cell at (row, column) of a section."""


def blocks(question: Question) -> Build:
    """Cells of two blocks (rows and columns are dtypes)."""
    return lambda row, column: (question, (Operand.typed(row), Operand.typed(column)))


def block(question: Question) -> Build:
    """Cells of one block (rows are dtypes)."""
    return lambda row, _: (question, (Operand.typed(row),))


def block_and_zero_dim(row: str, column: str) -> Asked:
    return Elementwise(Computation.ARITH), (Operand.typed(row), Operand.typed(column, rank=0))


def block_and_literal(row: str, column: str) -> Asked:
    literal = Operand.literal(parse_scalar(column))
    return Elementwise(Computation.ARITH), (Operand.typed(row), literal)


def literal_and_block(row: str, column: str) -> Asked:
    literal = Operand.literal(parse_scalar(column))
    return Elementwise(Computation.ARITH), (literal, Operand.typed(row))


def bool_blocks(computation: Computation) -> Build:
    """The one cell of an operation on two bool blocks."""
    operands = (Operand.typed("bool"), Operand.typed("bool"))
    return lambda *_: (Elementwise(computation), operands)


def dot_variant(row: str, column: str) -> Asked:
    """``dot_acc[dtype][variant]``: ``default``, ``acc=X`` (an accumulator block of X) or
    ``out_dtype=X`` (an explicit accumulator dtype)."""
    operands = (Operand.typed(row), Operand.typed(row))
    option, _, value = column.partition("=")
    if option == "acc":
        return Dot(), (*operands, Operand.typed(value))
    if option == "out_dtype":
        return Dot(explicit=dtypes.dtype(value)), operands
    return Dot(), operands


SECTIONS: dict[str, Build] = {
    "array_array": blocks(Elementwise(Computation.ARITH)),
    "array_scalar": block_and_literal,
    "scalar_array": literal_and_block,
    "zero_dim": block_and_zero_dim,
    "tensor_scalar": block_and_zero_dim,
    "truediv": blocks(Elementwise(Computation.TRUEDIV)),
    "floordiv": blocks(Elementwise(Computation.FLOORDIV)),
    "mod": blocks(Elementwise(Computation.MOD)),
    "unary.exp": block(Elementwise(Computation.FLOAT_MATH)),
    "unary.sqrt": block(Elementwise(Computation.FLOAT_MATH)),
    "unary.sin": block(Elementwise(Computation.FLOAT_MATH)),
    "unary.floor": block(Elementwise(Computation.ROUNDING_MATH)),
    "unary.abs": block(Elementwise(Computation.ABS)),
    "unary.neg": block(Elementwise(Computation.SUBTRACT)),
    "unary.invert": block(Elementwise(Computation.BITWISE)),
    "bitwise.and": blocks(Elementwise(Computation.BITWISE)),
    "bitwise.shl": blocks(Elementwise(Computation.SHIFT)),
    "compare": blocks(Elementwise(Computation.ORDER)),  # a < b
    "where": blocks(Elementwise(Computation.SELECT)),
    "sub_bool": bool_blocks(Computation.SUBTRACT),
    "minimum": blocks(Elementwise(Computation.MINMAX)),
    "sum": block(Reduction("sum")),
    "max_reduce": block(Reduction("max")),
    "cumsum": block(Reduction("sum", scan=True)),
    "dot": blocks(Dot()),
    "dot_acc": dot_variant,
    "dot_acc_ttir": dot_variant,
}


@dataclass(frozen=True)
class Case:
    library: str
    section: str
    lhs: str
    rhs: str
    question: Question
    operands: tuple[Operand, ...]
    expected: str | None
    """The dtype name the library gives, or None when it refuses."""

    def __str__(self) -> str:
        keys = "".join(f"[{k}]" for k in (self.lhs, self.rhs) if k)
        return f"{self.section}{keys}"

    def answer(self, policy: Policy) -> DType:
        return self.question.ask(policy, self.operands)


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


def _is_cell(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, dict) and "error" in value)


def _cell(cell: object) -> str | None:
    return cell if isinstance(cell, str) else None


def cells(library: str, section: str) -> Iterator[tuple[str, str, object]]:
    """(row, column, cell) of a section: two-dimensional, one-dimensional or one cell."""
    table: object = load(library)
    for key in section.split("."):
        assert isinstance(table, dict)
        if key not in table:
            return
        table = table[key]
    if _is_cell(table):
        yield "", "", table
        return
    assert isinstance(table, dict)
    for row, value in table.items():
        if _is_cell(value):
            yield row, "", value
        else:
            for column, cell in value.items():
                yield row, column, cell


def cases(library: str, section: str) -> Iterator[Case]:
    build = SECTIONS[section]
    for row, column, cell in cells(library, section):
        question, operands = build(row, column)
        yield Case(library, section, row, column, question, operands, _cell(cell))


@dataclass(frozen=True)
class Departure:
    """Cells where a policy deliberately gives another answer than its library."""

    why: str
    sections: frozenset[str]
    lhs: frozenset[str] | None
    """Row keys (dtype names, or scalar keys for literal sections); None for every row."""
    rhs: frozenset[str] | None
    """Column keys; None for every column. One-dimensional sections have no column, so
    `rhs` does not restrict them."""
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
            and (self.rhs is None or not case.rhs or case.rhs in self.rhs)
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


def expected(policy: str, case: Case) -> tuple[str | None, Departure | None]:
    """What `policy` must give for `case`: the library's cell unless a departure covers it."""
    for departure in departures(policy):
        if departure.covers(case):
            if departure.blkc.startswith("same-as:"):
                section = departure.blkc.removeprefix("same-as:")
                twin = next(
                    c
                    for c in cases(case.library, section)
                    if (c.lhs, c.rhs) == (case.lhs, case.rhs)
                )
                return expected(policy, twin)[0], departure
            if departure.blkc == "documented":
                return documented_triton().get(
                    (case.section, case.lhs, case.rhs), case.expected
                ), departure
            return (None if departure.blkc == "error" else departure.blkc), departure
    return case.expected, None
