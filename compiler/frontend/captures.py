"""What a `@blkc.jit` kernel may read from outside its parameters, and how its compiled
code keeps depending on it.

A kernel reads names from its module (globals), from enclosing functions (closures) and
through modules (`cfg.BLOCK`). Compiled code bakes in what it read, so only values that
are part of the kernel's identity may be read:

- `tl.constexpr` values (``SCALE = tl.constexpr(2.0)``): compiled in, and part of the key;
- other `@blkc.jit` functions (their source is part of the key), modules, dtypes, and
  blkc's and Python's own builtins;
- through a module, also plain numbers and strings (`math.pi`, `config.EPS`), keyed by
  their value.

Anything else (``SCALE = 2.0``, an array, a plain function) is a located compile error
that says how to pass it: a variable's later value would otherwise be silently ignored.

`Captures` lists every such name a kernel (with the functions it calls) can reach, with
the value each had when the kernel was compiled. Launches check the list (a dictionary
look-up and an identity test per name); when a value changed, the kernel's variants are
dropped and the next compile keys on the new values, in memory and on disk.
"""

from __future__ import annotations

import ast
import builtins
import enum
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from types import BuiltinFunctionType, CellType, CodeType, FunctionType, ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from blkc.jitfunction import JITFunction

MISSING = object()
"""What a look-up gives for a name that is not (or no longer) defined."""


def _is_blkc(value: Any) -> bool:
    """Whether `value` (a module, or an object defined in one) belongs to blkc."""
    if isinstance(value, ModuleType):
        module = value.__name__
    else:
        module = getattr(value, "__module__", None) or ""
    return module == "blkc" or module.startswith("blkc.")


_SCALARS = (bool, int, float, str, type(None))


def readable(value: Any, through_module: bool = False) -> bool:
    """Whether a kernel may read `value` from a global or a closure, or, when
    `through_module`, as a module's attribute (`math.pi`, `cfg.EPS`: plain numbers and
    strings are read there too, keyed by their value)."""
    from blkc.jitfunction import JITFunction
    from blkc.language import core as tl

    if through_module and (isinstance(value, _SCALARS) or callable(value)):
        return True  # a call of a function that is not a kernel's gets its own error
    if isinstance(value, tl.constexpr | tl.dtype | ModuleType | JITFunction):
        return True
    if getattr(value, "__blkc_builtin__", False) or _is_constexpr_function(value):
        return True
    if isinstance(value, type | FunctionType | BuiltinFunctionType | enum.Enum):
        if _is_blkc(value if not isinstance(value, enum.Enum) else type(value)):
            return True
        name = getattr(value, "__name__", None)
        return name is not None and getattr(builtins, name, None) is value
    return False


def refusal(name: str, value: Any, scope: str) -> str:
    """Why a kernel may not read `value` (named `name` in `scope`: 'global' or
    'closure'), and what to write instead."""
    shown = repr(value)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    kind = "global variable" if scope == "global" else "closure variable"
    if isinstance(value, bool | int | float | str) or value is None:
        fix = (
            f"declare it `{name} = tl.constexpr({shown})` (its value is compiled in, and a new "
            "value recompiles the kernel) or pass it to the kernel as an argument"
        )
    elif callable(value):
        fix = (
            "decorate it with @blkc.jit to call it from a kernel, or with "
            "@blkc.constexpr_function to run it on constants while the kernel compiles"
        )
    else:
        fix = "pass it to the kernel as an argument"
    return (
        f"Cannot access {kind} '{name}' ({type(value).__name__} {shown}) from within "
        f"@jit'ed function: a kernel may read only tl.constexpr values, @blkc.jit "
        f"functions, modules and dtypes from outside; {fix}"
    )


class _Cell:
    """A closure cell, looked up like a namespace."""

    __slots__ = ("cell",)

    def __init__(self, cell: CellType):
        self.cell = cell

    def get(self, _name: str, default: Any) -> Any:
        try:
            return self.cell.cell_contents
        except ValueError:  # not yet assigned
            return default


def closure_cells(fn: Callable[..., Any]) -> dict[str, CellType]:
    """The closure cells of `fn` by the names its code uses for them."""
    code = getattr(fn, "__code__", None)
    cells = getattr(fn, "__closure__", None) or ()
    return dict(zip(code.co_freevars, cells, strict=True)) if code is not None else {}


def _is_constexpr_function(value: Any) -> bool:
    """Whether `value` is a user's `blkc.constexpr_function` (blkc's own, `cdiv`, are
    blkc's builtins)."""
    from blkc.jitfunction import ConstexprFunction

    return isinstance(value, ConstexprFunction)


def _fingerprint(value: Any, by_value: bool = False) -> Any:
    """What of `value` the compiled code depends on, as a stable, printable key part;
    `by_value`: a name a `constexpr_function` reads, whatever its type (its result may
    depend on any of it), keyed by its type and repr."""
    from blkc.jitfunction import JITFunction
    from blkc.language import core as tl

    if value is MISSING:
        return ("missing",)
    if _is_constexpr_function(value):
        return ("constexpr_function", value.fn.__module__, value.fn.__qualname__)
    if isinstance(value, tl.constexpr) and _is_constexpr_function(value.value):
        return _fingerprint(value.value)  # `@tl.constexpr` on a function
    if isinstance(value, tl.constexpr):
        return ("constexpr", key_of(value.value))
    if isinstance(value, tl.dtype):
        return ("dtype", value.name)
    if isinstance(value, ModuleType):
        return ("module", value.__name__)
    if isinstance(value, JITFunction):
        return ("jit", value.fn.__module__, value.fn.__qualname__)
    if isinstance(value, _SCALARS):
        return ("value", key_of(value))
    if readable(value):
        return ("builtin", getattr(value, "__module__", ""), getattr(value, "__qualname__", ""))
    if by_value:
        return ("value", key_of(value))
    return ("refused", type(value).__name__)


def key_of(value: Any) -> Any:
    """A compile-time value as a hashable, printable key part (lists as tuples, dtypes by
    name, anything else by its type and repr)."""
    from blkc.language import core as tl

    if isinstance(value, list | tuple):
        return tuple(key_of(v) for v in value)
    if isinstance(value, tl.dtype):
        return ("dtype", value.name)
    return (type(value).__name__, repr(value))


@dataclass
class Captures:
    """The names a kernel can read from outside, with the values they had."""

    entries: list[tuple[Callable[[str, Any], Any], str, Any, bool]]
    """(look-up, name, value, exact): `look-up(name, MISSING)` gives the current value,
    which must be `value` itself where `exact`, else of its type (a value the frontend
    refuses to read, which no compiled code depends on)."""
    digest: str
    """A hash of the sources of every function reached and of the captured values."""
    replaced: int
    """`_sources_replaced` at the walk."""

    def fresh_terms(self, namespace: dict[str, Any], prefix: str) -> list[str]:
        """`fresh()` as Python expressions to join with `and`, for a guard compiled with
        `namespace` (which this fills, its names starting with `prefix`)."""
        namespace[f"{prefix}replaced"], namespace[f"{prefix}missing"] = _sources_replaced, MISSING
        terms = [f"{prefix}replaced[0] == {self.replaced}"]
        for i, (lookup, name, value, exact) in enumerate(self.entries):
            namespace[f"{prefix}lookup{i}"] = lookup
            namespace[f"{prefix}value{i}"] = value if exact else type(value)
            current = f"{prefix}lookup{i}({name!r}, {prefix}missing)"
            terms.append(
                f"{current} is {prefix}value{i}"
                if exact
                else f"type({current}) is {prefix}value{i}"
            )
        return terms

    def fresh(self) -> bool:
        """Whether every captured name still holds the value it had (and no source was
        replaced since)."""
        if self.replaced != _sources_replaced[0]:
            return False
        for lookup, name, value, exact in self.entries:
            current = lookup(name, MISSING)
            if current is not value if exact else type(current) is not type(value):
                return False
        return True


_TREE_DIGESTS: dict[Callable[..., Any], bytes] = {}
_sources_replaced = [0]
"""How many times a function's source was replaced: every kernel may have inlined it."""


def source_replaced(fn: Callable[..., Any]) -> None:
    """Note that `fn`'s source changed: kernels compiled before recompile."""
    _TREE_DIGESTS.pop(fn, None)
    _sources_replaced[0] += 1


def _tree_digest(fn: Callable[..., Any]) -> bytes:
    from blkc.frontend.source import parse_function

    if fn not in _TREE_DIGESTS:
        parsed = parse_function(fn)
        text = ast.dump(parsed.tree, include_attributes=True)
        where = f"{parsed.filename}:{parsed.line_offset}:{parsed.col_offset}"
        _TREE_DIGESTS[fn] = hashlib.sha256(f"{text}\0{where}".encode()).digest()
    return _TREE_DIGESTS[fn]


def _code_digest(code: CodeType) -> bytes:
    """A digest of compiled code (a function whose source cannot be read): its bytecode,
    names and constants, nested code included."""
    digest = hashlib.sha256(code.co_code)
    digest.update(repr((code.co_names, code.co_varnames)).encode())
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            digest.update(_code_digest(constant))
        else:
            digest.update(repr(constant).encode())
    return digest.digest()


def capture(kernel: JITFunction) -> Captures:
    """Walk `kernel` and every @blkc.jit function it can reach through names and module
    attributes; record each name read from outside a function and its current value."""
    from blkc.frontend.source import parse_function
    from blkc.jitfunction import JITFunction
    from blkc.language import core as tl

    replaced = _sources_replaced[0]
    digest = hashlib.sha256()
    entries: list[tuple[Callable[[str, Any], Any], str, Any, bool]] = []
    recorded: dict[tuple[int, str], int] = {}
    visited: set[int] = set()
    pending: list[Any] = [kernel]  # JITFunctions and ConstexprFunctions
    by_value = False  # whether the function walked is a constexpr_function

    def record(
        namespace: Any, lookup: Callable[[str, Any], Any], name: str, module: bool = False
    ) -> Any:
        value = lookup(name, MISSING)
        # A value the frontend refuses to read was read by no compiled variant (a local of
        # the same name shadows it, or a branch left out): only its type is checked, so
        # that a loop counter `i` beside a kernel's own `i` recompiles nothing.
        exact = by_value or value is MISSING or readable(value, through_module=module)
        at = recorded.get((id(namespace), name))
        if at is None:
            recorded[(id(namespace), name)] = len(entries)
            entries.append((lookup, name, value, exact))
            digest.update(repr((name, _fingerprint(value, by_value))).encode())
        elif exact and not entries[at][3]:  # a constexpr_function reads it after all
            entries[at] = (lookup, name, value, True)
            digest.update(repr((name, _fingerprint(value, by_value))).encode())
        walked = value
        if isinstance(value, tl.constexpr) and _is_constexpr_function(value.value):
            walked = value.value  # `@tl.constexpr` on a function: walked as one
        if (isinstance(walked, JITFunction) or _is_constexpr_function(walked)) and id(
            walked
        ) not in visited:
            pending.append(walked)
        return value

    while pending:
        function = pending.pop()
        if id(function) in visited:
            continue
        visited.add(id(function))
        by_value = not isinstance(function, JITFunction)
        if by_value:
            try:
                digest.update(_tree_digest(function.fn))
            except Exception:  # noqa: BLE001 - no source to read (a lambda): its code
                code = getattr(function.fn, "__code__", None)
                digest.update(_code_digest(code) if code is not None else b"?")
                continue
        else:
            digest.update(_tree_digest(function.fn))
        parsed = parse_function(function.fn)
        cells = {name: _Cell(cell) for name, cell in closure_cells(function.fn).items()}
        resolved: dict[ast.AST, Any] = {}
        for node in ast.walk(parsed.tree):
            if isinstance(node, ast.Name):
                if node.id in cells:
                    cell = cells[node.id]
                    resolved[node] = record(cell, cell.get, node.id)
                elif node.id in parsed.globals:
                    resolved[node] = record(parsed.globals, parsed.globals.get, node.id)
        # Attribute chains through user modules (`cfg.SCALE`, `helpers.kernel`): ast.walk
        # visits an outer Attribute before its inner ones, so resolve innermost first.
        chains = [n for n in ast.walk(parsed.tree) if isinstance(n, ast.Attribute)]
        for node in reversed(chains):
            base = resolved.get(node.value, MISSING)
            if isinstance(base, ModuleType) and not _is_blkc(base) and base is not builtins:
                namespace = vars(base)
                resolved[node] = record(base, namespace.get, node.attr, module=True)
    return Captures(entries, digest.hexdigest(), replaced)


__all__ = ["MISSING", "Captures", "capture", "closure_cells", "key_of", "readable", "refusal"]
