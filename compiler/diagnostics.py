"""Located diagnostics: the one place that turns user errors into `file:line:col` messages.

Every op parsed from text knows its source position (`parse_module` sets a
`FileLineColLoc` on each op without an explicit `loc(...)`), so verifier errors, pass
errors and warnings point at the user's source, MLIR style:

    kernel.mlir:3:8: error: 'arith.addi' op operand 'rhs' at position 1 does not verify: ...
      %c = arith.addi %a, %b : i32
           ^

Passes report errors with `raise error_at(op, "message")` and warnings with
`emit_warning(op, "message")`; `blk-opt` prints them, or checks them against the input's
`expected-*` annotations under `--verify-diagnostics`.
"""

from __future__ import annotations

import bisect
import contextvars
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple, TypeAlias

from xdsl.context import Context
from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    NoTerminator,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, AttributeInvT, Operation, SSAValue, TypeAttribute
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.utils.exceptions import DiagnosticException, MultipleSpansParseError, ParseError
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind


class Severity(StrEnum):
    """How bad a diagnostic is; the value is the word printed after the location."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    REMARK = "remark"


class SourceLocation(NamedTuple):
    """A position in a source file: 1-based line and column (Unicode code points)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NoteTarget: TypeAlias = Operation | SourceLocation | None
"""Where a note points: an op (its location), an explicit location, or nowhere."""


@dataclass
class Diagnostic:
    """One message about the user's input, with optional notes (each maybe located)."""

    severity: Severity
    message: str
    location: SourceLocation | None
    notes: list[tuple[SourceLocation | None, str]] = field(default_factory=list)

    def format(self) -> str:
        """The clang/MLIR rendering: header, source line and caret, then each note."""
        parts = [_format_one(self.location, self.severity, self.message)]
        parts += [_format_one(loc, Severity.NOTE, msg) for loc, msg in self.notes]
        return "".join(parts)

    def __str__(self) -> str:
        return self.format()


# ---------------------------------------------------------------------------------------
# Source registry: the text diagnostics quote.

_SOURCES: dict[str, list[str]] = {}


def register_source(filename: str, text: str, line_offset: int = 0) -> None:
    """Remember `text` as the content of `filename`, starting at line `line_offset + 1`.

    Used for stdin, split-input-file chunks and frontends' sources, whose text cannot be
    read back from disk. Registering at offset 0 replaces what was known of the file;
    registering a chunk at a later offset fills in those lines only.
    """
    lines = text.splitlines()
    if line_offset == 0:
        _SOURCES[filename] = lines
        return
    known = _SOURCES.setdefault(filename, [])
    if len(known) < line_offset + len(lines):
        known.extend([""] * (line_offset + len(lines) - len(known)))
    known[line_offset : line_offset + len(lines)] = lines


def source_line(filename: str, line: int) -> str | None:
    """The text of 1-based `line` of `filename`: from the registry, else from disk."""
    if filename not in _SOURCES:
        try:
            with open(filename, encoding="utf-8", errors="replace") as f:
                _SOURCES[filename] = f.read().splitlines()
        except OSError:
            return None
    lines = _SOURCES[filename]
    return lines[line - 1] if 0 < line <= len(lines) else None


def _format_one(location: SourceLocation | None, severity: Severity, message: str) -> str:
    if location is None:
        return f"{severity}: {message}\n"
    text = f"{location}: {severity}: {message}\n"
    line = source_line(location.file, location.line)
    if line is not None:
        # Keep the line's tabs in the caret line so the caret lines up in any terminal.
        indent = "".join(c if c == "\t" else " " for c in line[: location.col - 1])
        text += f"{line}\n{indent}^\n"
    return text


def format_diagnostics(diagnostics: Sequence[Diagnostic]) -> str:
    """Render several diagnostics, in order, as one text."""
    return "".join(d.format() for d in diagnostics)


# ---------------------------------------------------------------------------------------
# Op locations and errors.


def _location_of(loc: Attribute) -> SourceLocation | None:
    match loc:
        case FileLineColLoc():
            return SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
        case NameLoc():
            return _location_of(loc.location)
        case CallSiteLoc():
            return _location_of(loc.callee)
        case FusedLoc():
            found = (_location_of(sub) for sub in loc.locations.data)  # type: ignore[union-attr]
            return next((f for f in found if f is not None), None)
        case _:
            return None


def op_location(op: Operation) -> SourceLocation | None:
    """The source position of `op`, or of its closest ancestor when its own is unknown.

    Ops created by passes without a location (UnknownLoc) report at their parent op,
    which is where MLIR's diagnostics would point the user too.
    """
    current: Operation | None = op
    while current is not None:
        if (found := _location_of(current.location)) is not None:
            return found
        current = current.parent_op()
    return None


def _note_location(target: NoteTarget) -> SourceLocation | None:
    return op_location(target) if isinstance(target, Operation) else target


class BlkcError(DiagnosticException):
    """A user error: one or more located diagnostics. `str()` is the formatted text."""

    diagnostics: list[Diagnostic]

    def __init__(self, diagnostics: Diagnostic | Sequence[Diagnostic]):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__(self.format())

    def format(self) -> str:
        """The diagnostics, formatted as the compiler prints them."""
        return format_diagnostics(self.diagnostics)

    def __str__(self) -> str:
        return self.format()


def error_at(
    op: Operation | SourceLocation | None,
    message: str,
    notes: Sequence[tuple[NoteTarget, str]] = (),
) -> BlkcError:
    """Build (for the caller to raise) an error located at `op`, with optional notes.

    Example, in a rewrite pattern: `raise error_at(op, "cannot promote i1 and f8E4M3FN",
    notes=[(op.lhs.owner, "lhs defined here")])`.
    """
    return BlkcError(_make(Severity.ERROR, op, message, notes))


def _make(
    severity: Severity,
    target: NoteTarget,
    message: str,
    notes: Sequence[tuple[NoteTarget, str]] = (),
) -> Diagnostic:
    return Diagnostic(
        severity,
        message,
        _note_location(target),
        [(_note_location(where), msg) for where, msg in notes],
    )


def one_line(message: str) -> str:
    """Join a multi-line xDSL message into one line, as MLIR messages are (and as
    `expected-error {{...}}` annotations can match)."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())


# ---------------------------------------------------------------------------------------
# Warnings and remarks: collected by the current engine.


class DiagnosticEngine:
    """Receives the non-fatal diagnostics (warnings, remarks) that passes emit.

    With a `handler`, each diagnostic is handed to it as it comes; without one, they are
    kept in `diagnostics` for the caller (blk-opt prints or checks them per input chunk).
    """

    def __init__(self, handler: Callable[[Diagnostic], None] | None = None):
        self.handler = handler
        self.diagnostics: list[Diagnostic] = []

    def emit(self, diagnostic: Diagnostic) -> None:
        """Report a diagnostic."""
        if self.handler is not None:
            self.handler(diagnostic)
        else:
            self.diagnostics.append(diagnostic)

    def warning(
        self, op: NoteTarget, message: str, notes: Sequence[tuple[NoteTarget, str]] = ()
    ) -> None:
        """Report a warning located at `op`."""
        self.emit(_make(Severity.WARNING, op, message, notes))

    def remark(
        self, op: NoteTarget, message: str, notes: Sequence[tuple[NoteTarget, str]] = ()
    ) -> None:
        """Report a remark located at `op`."""
        self.emit(_make(Severity.REMARK, op, message, notes))


class BlkcWarning(UserWarning):
    """A compiler warning (an implicit cast that can lose information, ...), issued through
    Python's `warnings` at the user's source line: filter or catch it as any warning."""


def _print_to_stderr(diagnostic: Diagnostic) -> None:
    sys.stderr.write(diagnostic.format())


def _to_warnings(diagnostic: Diagnostic) -> None:
    location = diagnostic.location
    text = diagnostic.message
    for _, note in diagnostic.notes:
        text += f" (note: {note})"
    if location is None:
        warnings.warn(text, BlkcWarning, stacklevel=2)
    else:
        warnings.warn_explicit(text, BlkcWarning, location.file, location.line)


_DEFAULT_ENGINE = DiagnosticEngine(handler=_to_warnings)
_CURRENT_ENGINE: contextvars.ContextVar[DiagnosticEngine] = contextvars.ContextVar(
    "blkc_diagnostic_engine", default=_DEFAULT_ENGINE
)


def current_engine() -> DiagnosticEngine:
    """The engine receiving warnings now: the innermost `capture_diagnostics()` or
    `print_diagnostics()`, else one issuing them as Python warnings (`BlkcWarning`)."""
    return _CURRENT_ENGINE.get()


@contextmanager
def print_diagnostics() -> Iterator[DiagnosticEngine]:
    """Print the warnings and remarks emitted inside the block to stderr, formatted as
    errors are (location, source line, caret): what the command-line tools do."""
    engine = DiagnosticEngine(handler=_print_to_stderr)
    token = _CURRENT_ENGINE.set(engine)
    try:
        yield engine
    finally:
        _CURRENT_ENGINE.reset(token)


@contextmanager
def capture_diagnostics() -> Iterator[DiagnosticEngine]:
    """Collect the warnings and remarks emitted inside the block instead of printing them."""
    engine = DiagnosticEngine()
    token = _CURRENT_ENGINE.set(engine)
    try:
        yield engine
    finally:
        _CURRENT_ENGINE.reset(token)


def emit_warning(
    op: NoteTarget, message: str, notes: Sequence[tuple[NoteTarget, str]] = ()
) -> None:
    """Emit a warning located at `op` to the current engine (the call passes make)."""
    current_engine().warning(op, message, notes)


def emit_remark(op: NoteTarget, message: str, notes: Sequence[tuple[NoteTarget, str]] = ()) -> None:
    """Emit a remark located at `op` to the current engine."""
    current_engine().remark(op, message, notes)


# ---------------------------------------------------------------------------------------
# Parsing with locations.


class _LocatedParser(Parser):
    """An xDSL parser that stamps each op with the position of its first token."""

    def __init__(self, ctx: Context, text: str, filename: str, line_offset: int):
        super().__init__(ctx, text, filename)
        self._filename = StringAttr(filename)
        self._line_offset = line_offset
        self._line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        self._first_forward_use: dict[str, Span] = {}

    def location_at(self, position: int) -> FileLineColLoc:
        """The FileLineColLoc of a character position in this parser's input."""
        line = bisect.bisect_right(self._line_starts, position)
        col = position - self._line_starts[line - 1] + 1
        return FileLineColLoc(self._filename, IntAttr(line + self._line_offset), IntAttr(col))

    def _span_from(self, start: int) -> Span:
        return Span(start, max(start, self.pos), self.lexer.input)

    def parse_operation(self) -> Operation:
        start = self.pos
        try:
            op = super().parse_operation()
        except DiagnosticException as exc:
            # An op or attribute builder refused what the text says: a parse error here.
            raise ParseError(self._span_from(start), one_line(str(exc))) from None
        if isinstance(op.location, UnknownLoc):
            op.location = self.location_at(start)
        return op

    def _get_op_by_name(self, name: str) -> type[Operation]:
        try:
            return super()._get_op_by_name(name)
        except ParseError as error:
            # xDSL points after the op name; point at the name, just consumed.
            start = self.lexer.input.content.rfind(name, 0, self.pos)
            if start > 0 and self.lexer.input.content[start - 1] == '"':
                start -= 1
            raise ParseError(Span(start, start + len(name), self.lexer.input), error.msg) from None

    def resolve_operand(
        self, operand: UnresolvedOperand, type: AttributeInvT
    ) -> SSAValue[AttributeInvT]:
        if operand.operand_name not in self.ssa_values:
            self._first_forward_use.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])  # only comments (a split chunk, say): empty, as in MLIR
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as error:
            # xDSL reports undefined values at the end of the input; point at a use.
            undefined = [n for n in self._first_forward_use if n in self.forward_ssa_references]
            if not undefined or not error.msg.startswith("values used but not defined"):
                raise
            span = self._first_forward_use[undefined[0]]
            raise ParseError(span, f"use of undefined value '%{undefined[0]}'") from None

    def parse_optional_attribute(self) -> Attribute | None:
        start = self.pos
        try:
            return super().parse_optional_attribute()
        except DiagnosticException as exc:
            raise ParseError(self._span_from(start), one_line(str(exc))) from None

    def parse_optional_type(self) -> TypeAttribute | None:
        start = self.pos
        try:
            return super().parse_optional_type()
        except DiagnosticException as exc:
            raise ParseError(self._span_from(start), one_line(str(exc))) from None


def _span_location(span: Span, line_offset: int) -> SourceLocation:
    file, line, col = span.get_location()
    return SourceLocation(file, line + line_offset, col)


def parse_error_diagnostic(error: ParseError, line_offset: int = 0) -> Diagnostic:
    """The located diagnostic for an xDSL parse error (input lines shifted by offset)."""
    notes: list[tuple[SourceLocation | None, str]] = []
    if isinstance(error, MultipleSpansParseError):
        notes = [
            (_span_location(span, line_offset), msg or error.ref_text or "see here")
            for span, msg in error.refs
        ]
    return Diagnostic(
        Severity.ERROR, one_line(error.msg), _span_location(error.span, line_offset), notes
    )


def parse_module(
    ctx: Context,
    text: str,
    filename: str,
    line_offset: int = 0,
    *,
    allow_implicit_module: bool = True,
) -> ModuleOp:
    """Parse MLIR text into a module whose every op carries its source location.

    `line_offset` is the number of lines before `text` in `filename` (split-input-file
    chunks), so locations are true file positions. The text is registered as the source
    of those lines. Parse errors raise a located `BlkcError`. The module is not verified.
    """
    register_source(filename, text, line_offset)
    parser = _LocatedParser(ctx, text, filename, line_offset)
    try:
        module = parser.parse_module(allow_implicit_module)
    except ParseError as error:
        raise BlkcError(parse_error_diagnostic(error, line_offset)) from None
    if isinstance(module.location, UnknownLoc):
        module.location = parser.location_at(0)
    return module


# ---------------------------------------------------------------------------------------
# Verification with locations.


def _verify_op(op: Operation) -> None:
    op.verify(verify_nested_ops=False)
    # Block.verify's one check that is not about ops: an empty block needs a terminator.
    if op.has_trait(NoTerminator):
        return
    for region in op.regions:
        if len(region.blocks) == 1 and region.block.first_op is None:
            raise DiagnosticException(
                "empty block in single-block region that expects at least a terminator"
            )


def verify_module(module: Operation) -> None:
    """Verify every op, in pre-order, raising a `BlkcError` located at the first one that
    fails, with the verifier's message only (never a dump of the module)."""
    for op in module.walk():
        try:
            _verify_op(op)
        except DiagnosticException as exc:
            if isinstance(exc, BlkcError):
                raise
            raise error_at(op, f"'{op.name}' op {one_line(str(exc))}") from None


def failing_op(exc: BaseException) -> Operation | None:
    """The op a rewrite pattern was working on when it raised `exc`, if any.

    xDSL's pattern walker re-raises a pattern's exception with a dump of the module
    attached and without saying which op; the innermost `match_and_rewrite` frame of the
    traceback still holds it.
    """
    found: Operation | None = None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "match_and_rewrite":
            candidate = frame.f_locals.get("op")
            if isinstance(candidate, Operation):
                found = candidate
        tb = tb.tb_next
    return found


def error_from_exception(exc: DiagnosticException, fallback: Operation) -> BlkcError:
    """Turn an xDSL diagnostic exception raised in a pass into a located `BlkcError`:
    at the op its pattern was rewriting, else at `fallback`."""
    if isinstance(exc, BlkcError):
        return exc
    op = failing_op(exc) or fallback
    return error_at(op, one_line(str(exc)))
