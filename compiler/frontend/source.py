"""The source of `@blkc.jit` functions: read, parsed and located (`parse_function`), or
replaced (`JITFunction._unsafe_update_src`) or sent with a pickled kernel (`adopt_source`).

Light on purpose (the standard library only): a launch computes its kernel's cache key
from the parsed source before anything compiles, and a kernel found in the disk cache then
launches without the compiler's modules.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CellType
from typing import Any

from blkc.frontend.captures import closure_cells


def _register_source(filename: str, text: str, line_offset: int = 0) -> None:
    from blkc.diagnostics import register_source

    register_source(filename, text, line_offset)


def _error(filename: str | None, line: int, col: int, message: str) -> Exception:
    from blkc.diagnostics import SourceLocation, error_at

    where = None if filename is None else SourceLocation(filename, line, col)
    return error_at(where, message)


@dataclass
class ParsedFunction:
    """A parsed `@blkc.jit` function: its AST and where its lines are in its file."""

    tree: ast.FunctionDef
    filename: str
    line_offset: int
    col_offset: int
    globals: dict[str, Any]
    closure: dict[str, CellType] = field(default_factory=dict)
    """The cells of the variables it reads from enclosing functions."""


_PARSED: dict[Callable[..., Any], ParsedFunction] = {}
_AST_LOCK = threading.Lock()
"""Held around `ast.parse`: in CPython 3.11 the converter that builds the Python AST objects
keeps its recursion depth in state that all threads share, so two threads parsing
at once (Dask's threaded scheduler compiling one kernel per worker) can fail with
"AST constructor recursion depth mismatch"."""
_REPLACED: dict[Callable[..., Any], tuple[list[str], int, str]] = {}
"""Functions whose source was replaced (`JITFunction._unsafe_update_src`) or came with them
(`adopt_source`): the lines, the line number of the first, and the file name under which
diagnostics show them."""


def replace_source(fn: Callable[..., Any], source: str) -> None:
    """Compile `fn` from `source` (a function definition) from now on."""
    filename = f"<{fn.__qualname__}: updated source {len(_REPLACED) + 1}>"
    _register_source(filename, source)  # for the source lines of diagnostics
    _REPLACED[fn] = (source.splitlines(keepends=True), 1, filename)
    _PARSED.pop(fn, None)


def adopt_source(fn: Callable[..., Any], lines: list[str], first: int, filename: str) -> None:
    """Compile `fn` from `lines`, its definition as it stood at line `first` of `filename`:
    a kernel that arrived by pickle, whose file this process may not have (or have as it
    was). Diagnostics name that file and line."""
    _register_source(filename, "".join(lines), first - 1)
    _REPLACED[fn] = (list(lines), first, filename)
    _PARSED.pop(fn, None)


def function_source(fn: Callable[..., Any]) -> tuple[list[str], int, str]:
    """`fn`'s source lines, the line number of the first, and the file they are in."""
    if fn in _REPLACED:
        lines, first, filename = _REPLACED[fn]
        return lines, first, filename
    return _read_definition(fn) or _inspect_source(fn)


def _read_definition(fn: Callable[..., Any]) -> tuple[list[str], int, str] | None:
    """`fn`'s definition read from its file by its code object, as `inspect` reads it but
    without its tokenizer (which costs a first launch milliseconds): from its first line
    (its first decorator's) through the last line of code it compiled to, then any lines
    indented deeper than its first (a trailing `pass`, say), and trailing comments indented
    as its body. None where this does not apply: `inspect` reads it then."""
    code = getattr(fn, "__code__", None)
    if code is None or hasattr(fn, "__wrapped__"):
        return None
    filename = inspect.getsourcefile(fn)
    if filename is None:
        return None
    lines = linecache.getlines(filename, fn.__globals__)  # type: ignore[attr-defined]
    first = code.co_firstlineno
    opening = lines[first - 1] if 0 < first <= len(lines) else ""
    if not (opening.lstrip().startswith("@") or _is_def(opening)):
        return None  # a lambda, say
    header = next((i for i, line in enumerate(lines[first - 1 :], first) if _is_def(line)), None)
    if header is None:
        return None
    positions = [(line, end) for line, end, _, _ in code.co_positions() if line and end]
    last = min(max([header, *(end for _, end in positions)]), len(lines))
    indent = _indent(opening)
    end = last
    while end < len(lines) and (_is_filler(lines[end]) or _indent(lines[end]) > indent):
        end += 1
    body = [line for line, _ in positions if line > header]
    body_indent = _indent(lines[min(body) - 1]) if body else None
    while end > last and _is_filler(lines[end - 1]) and not _in_body(lines[end - 1], body_indent):
        end -= 1
    return lines[first - 1 : end], first, filename


def _is_def(line: str) -> bool:
    return line.lstrip().startswith(("def ", "async def "))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _is_filler(line: str) -> bool:
    """A blank or comment-only line (which does not end a block)."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _in_body(filler: str, body_indent: int | None) -> bool:
    """Whether a blank or comment line at a definition's end belongs to it: a comment
    indented at least as its body is (as `inspect` has it)."""
    return body_indent is not None and bool(filler.strip()) and _indent(filler) >= body_indent


def _inspect_source(fn: Callable[..., Any]) -> tuple[list[str], int, str]:
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or "<unknown>"
    except (OSError, TypeError) as err:
        message = f"cannot read the source of kernel '{fn.__name__}': {err}"
        raise _error(None, 0, 0, message) from None
    return lines, first, filename


def _parse(lines: list[str]) -> ast.Module | SyntaxError:
    try:
        text = textwrap.dedent("".join(lines))
        with _AST_LOCK:
            return ast.parse(text)
    except SyntaxError as err:
        return err


def parse_function(fn: Callable[..., Any]) -> ParsedFunction:
    """`fn`'s AST, positioned in its source file (cached)."""
    if fn in _PARSED:
        return _PARSED[fn]
    lines, first, filename = function_source(fn)
    module = _parse(lines)
    if isinstance(module, SyntaxError) and fn not in _REPLACED:
        # Read by its code object's lines, a definition may end inside a string that goes
        # on at the left margin: inspect's tokenizer knows where it ends.
        lines, first, filename = _inspect_source(fn)
        module = _parse(lines)
    if isinstance(module, SyntaxError):
        line = first + (module.lineno or 1) - 1
        raise _error(filename, line, module.offset or 1, f"invalid Python: {module.msg}")
    indent = _indent(lines[0]) if lines else 0
    found = [n for n in module.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    if not found:
        raise _error(filename, first, 1, "the source defines no function")
    tree = found[0]
    if isinstance(tree, ast.AsyncFunctionDef):
        raise _error(filename, first, 1, "a kernel cannot be async")
    parsed = ParsedFunction(
        tree,
        filename,
        first - 1,
        indent,
        fn.__globals__,
        closure_cells(fn),  # type: ignore[attr-defined]
    )
    _PARSED[fn] = parsed
    return parsed
