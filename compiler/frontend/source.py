"""The source of `@blkc.jit` functions: read, parsed and located (`parse_function`), or
replaced (`JITFunction._unsafe_update_src`) or sent with a pickled kernel (`adopt_source`).

Light on purpose (the standard library only): a launch computes its kernel's cache key
from the parsed source before anything compiles, and a kernel found in the disk cache then
launches without the compiler's modules.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
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
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or "<unknown>"
    except (OSError, TypeError) as err:
        message = f"cannot read the source of kernel '{fn.__name__}': {err}"
        raise _error(None, 0, 0, message) from None
    return lines, first, filename


def parse_function(fn: Callable[..., Any]) -> ParsedFunction:
    """`fn`'s AST, positioned in its source file (cached)."""
    if fn in _PARSED:
        return _PARSED[fn]
    lines, first, filename = function_source(fn)
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    try:
        module = ast.parse(dedented)
    except SyntaxError as err:
        line = first + (err.lineno or 1) - 1
        raise _error(filename, line, err.offset or 1, f"invalid Python: {err.msg}") from None
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
