"""MLIR-compatible `--verify-diagnostics`: check produced diagnostics against annotations.

An annotation in the input says which diagnostic must be produced, and where:

    // expected-error {{substring}}        on this line
    // expected-warning @+1 {{substring}}  on the next line (@-N: N lines above)
    // expected-note @below {{substring}}  on the next line without an annotation
    // expected-remark @above {{substring}} on the previous line without an annotation
    // expected-error @unknown {{substring}} with no location
    // expected-error-re {{op {{[0-9]+}} fails}}  literal text with {{regex}} parts

Each produced diagnostic (and each note of an error) must match an unmatched
expectation of the same severity on its line whose text it contains; each expectation
must be matched. Several annotations may share a line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from blkc.diagnostics import BlkcError, Diagnostic, Severity, SourceLocation

_DESIGNATOR = re.compile(
    r"expected-(?P<kind>error|warning|note|remark)(?P<re>-re)?"
    r"[ \t]*(?:@(?P<where>[+-][0-9]+|above|below|unknown))?[ \t]*\{\{"
)


@dataclass
class Expectation:
    """One `expected-<severity>` annotation."""

    severity: Severity
    message: str
    line: int | None
    """The line the diagnostic must be on (None for @unknown)."""
    annotation: SourceLocation
    """Where the annotation itself is, for reporting it when unmatched."""
    is_regex: bool = False
    matched: bool = False

    def matches(self, message: str) -> bool:
        """Whether `message` satisfies this expectation's text."""
        if not self.is_regex:
            return self.message in message
        parts = re.split(r"\{\{(.*?)\}\}", self.message)
        # re.split alternates literal text and {{regex}} contents.
        pattern = "".join(
            re.escape(part) if i % 2 == 0 else f"(?:{part})" for i, part in enumerate(parts)
        )
        return re.search(pattern, message) is not None


def parse_expectations(text: str, filename: str, line_offset: int = 0) -> list[Expectation]:
    """Read the `expected-*` annotations of `text`, whose line 1 is `line_offset + 1`."""
    lines = text.splitlines()
    annotated = [_DESIGNATOR.search(line) is not None for line in lines]
    expectations: list[Expectation] = []
    for index, line in enumerate(lines):
        found = list(_DESIGNATOR.finditer(line))
        for n, match in enumerate(found):
            # The message runs to the last `}}` before the next annotation on the line,
            # so it may itself contain `}}` or `{{regex}}` parts.
            limit = found[n + 1].start() if n + 1 < len(found) else len(line)
            end = line.rfind("}}", match.end(), limit)
            annotation = SourceLocation(filename, index + 1 + line_offset, match.start() + 1)
            if end < 0:
                raise BlkcError(
                    Diagnostic(
                        Severity.ERROR, "expected '}}' after the expected message", annotation
                    )
                )
            target = _target_line(match.group("where"), index, annotated)
            expectations.append(
                Expectation(
                    Severity(match.group("kind")),
                    line[match.end() : end],
                    None if target is None else target + 1 + line_offset,
                    annotation,
                    is_regex=match.group("re") is not None,
                )
            )
    return expectations


def _target_line(where: str | None, index: int, annotated: list[bool]) -> int | None:
    """The 0-based line an annotation on line `index` refers to."""
    match where:
        case None:
            return index
        case "unknown":
            return None
        case "above" | "below":
            step = -1 if where == "above" else 1
            target = index + step
            while 0 <= target < len(annotated) and annotated[target]:
                target += step
            return target
        case _:
            return index + int(where)


def _flatten(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """Each diagnostic, then its notes as note diagnostics (unlocated ones at the parent)."""
    flat: list[Diagnostic] = []
    for diagnostic in diagnostics:
        flat.append(Diagnostic(diagnostic.severity, diagnostic.message, diagnostic.location))
        flat += [
            Diagnostic(Severity.NOTE, msg, loc if loc is not None else diagnostic.location)
            for loc, msg in diagnostic.notes
        ]
    return flat


def _find_expectation(
    diagnostic: Diagnostic, expectations: Sequence[Expectation], filename: str
) -> Expectation | None:
    location = diagnostic.location
    if location is not None and location.file != filename:
        return None  # a diagnostic in another file cannot be annotated in this one
    line = None if location is None else location.line
    return next(
        (
            e
            for e in expectations
            if not e.matched
            and e.severity == diagnostic.severity
            and e.line == line
            and e.matches(diagnostic.message)
        ),
        None,
    )


def check_diagnostics(
    produced: Sequence[Diagnostic], expectations: Sequence[Expectation], filename: str
) -> list[Diagnostic]:
    """Match produced diagnostics against expectations; return the mismatches as errors
    (unexpected diagnostics first, then expectations that were not produced)."""
    problems: list[Diagnostic] = []
    for diagnostic in _flatten(produced):
        match = _find_expectation(diagnostic, expectations, filename)
        if match is not None:
            match.matched = True
        else:
            problems.append(
                Diagnostic(
                    Severity.ERROR,
                    f"unexpected {diagnostic.severity}: {diagnostic.message}",
                    diagnostic.location,
                )
            )
    problems += [
        Diagnostic(
            Severity.ERROR,
            f'expected {e.severity} "{e.message}" was not produced',
            e.annotation,
        )
        for e in expectations
        if not e.matched
    ]
    return problems
