"""The kinds of a kernel's parameters (pointer, integer or float), inferred from their use.

`blkc FILE.py` needs a type for every runtime parameter of a kernel. Where `--signature`
gives none, this abstract interpretation of the kernel's AST (and of the `@blkc.jit`
helpers it calls) decides the parameter's kind from how the body uses it:

- the pointer of `tl.load`, `tl.store`, `tl.atomic_*` or `tl.make_block_ptr`, directly or
  through pointer arithmetic (``X += row * stride``, then ``tl.load(X + cols)``): a pointer;
- a `range`/`tl.range` bound, compared with an integer value (``cols < N``), an offset
  added to a pointer, an operand of ``//``, ``%``, ``<<`` or ``>>`` beside an integer, an
  argument of `tl.cdiv`, an entry of `tl.make_block_ptr`'s shape, strides or offsets or of
  `tl.advance`'s offsets: an integer;
- meeting a float value in arithmetic (``var + eps``): a float, where no use above says
  otherwise;
- ``tl.static_assert(x.dtype.is_int())`` (or ``is_floating()``), as `tl.random`'s
  functions check their seed: an integer (a float).

Each value of the body is abstracted as a `Value`: its kind where it is known, else the
undecided parameters whose kinds decide it (`follows`) and those of them that may be its
pointer (`bases`: ``X + row * stride`` follows X and stride, but only X can be the
pointer, since a pointer cannot be multiplied). A use that needs a kind settles the
parameters its value follows. The body is interpreted again with what was settled (a load
from a settled pointer gives a float, so ``x_hat * w + b`` says more the second time)
until a round learns nothing new.
"""

from __future__ import annotations

import ast
import builtins
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import reduce
from types import ModuleType
from typing import Any, TypeAlias

from blkc import dtypes
from blkc.frontend.python import parse_function
from blkc.jitfunction import JITFunction
from blkc.language import core as tl


class Kind(Enum):
    """What a parameter is, as far as choosing its type goes."""

    POINTER = "pointer"
    INT = "int"
    FLOAT = "float"


@dataclass(frozen=True)
class Value:
    """A runtime value of the body: its `kind` where known, else the undecided parameters
    it follows."""

    kind: Kind | None = None
    follows: frozenset[str] = frozenset()
    """Undecided parameters whose kinds decide this value's kind."""
    bases: frozenset[str] = frozenset()
    """Those of `follows` that may be the pointer the rest is an offset of."""
    untracked: bool = False
    """Whether part of the value comes from something the analysis does not follow."""
    element: Kind | None = None
    """Pointers: the kind of the values they point to."""


@dataclass(frozen=True)
class Constant:
    """A compile-time value: a literal, a constexpr, a global (module, function, dtype)."""

    value: Any


@dataclass(frozen=True)
class Builtin:
    """A `tl` function, or a method of a value (``x.to``, ``x.sum``), by name."""

    name: str
    receiver: Value | None = None


@dataclass(frozen=True)
class DtypeTest:
    """``x.dtype.is_int()`` or ``x.dtype.is_floating()``: asserted, `receiver` is of `kind`."""

    receiver: Value
    kind: Kind


_Abstract: TypeAlias = Value | Constant | Builtin | DtypeTest
_UNTRACKED = Value(untracked=True)


def typed(dtype: dtypes.DType, pointer: bool = False) -> Value:
    """A parameter of type `dtype`, or of a pointer to `dtype`."""
    kind = Kind.FLOAT if dtype.is_float else Kind.INT
    return Value(Kind.POINTER, element=kind) if pointer else Value(kind)


def _undecided(name: str) -> Value:
    return Value(None, frozenset({name}), frozenset({name}))


_SETTLED = {
    Kind.POINTER: Value(Kind.POINTER, element=Kind.FLOAT),
    Kind.INT: Value(Kind.INT),
    Kind.FLOAT: Value(Kind.FLOAT),
}
"""A parameter once its kind is settled: pointers point to floats (`*fp32`) by default."""


def infer_kinds(
    fn: JITFunction, constants: Mapping[str, Any], given: Mapping[str, Value]
) -> dict[str, Kind | None]:
    """The kind of each runtime parameter of `fn` that has neither a compile-time value
    (`constants`, constexprs included) nor a type (`given`, as `typed` makes them); None
    where no use decides it."""
    undecided = [
        name for name in fn.arg_names
        if name not in constants and name not in given and name not in fn.constexprs
    ]  # fmt: skip
    settled: dict[str, Kind] = {}
    while True:
        env: dict[str, _Abstract] = {name: _UNTRACKED for name in fn.constexprs}
        env.update({name: Constant(_python(v)) for name, v in constants.items()})
        env.update(given)
        env.update({n: _SETTLED[settled[n]] if n in settled else _undecided(n) for n in undecided})
        evidence = _Evidence()
        _Interpreter(parse_function(fn.fn), env, evidence).run()
        learnt = {n: k for n in undecided if n not in settled and (k := evidence.strong(n))}
        if not learnt:
            return {n: settled.get(n) or evidence.weak(n) for n in undecided}
        settled.update(learnt)


@dataclass
class _Evidence:
    """The kinds each use needs of the parameters, gathered over one round."""

    found: dict[str, set[Kind]] = field(default_factory=dict)

    def add(self, names: Iterable[str], kind: Kind) -> None:
        for name in names:
            self.found.setdefault(name, set()).add(kind)

    def strong(self, name: str) -> Kind | None:
        """A pointer or integer use (a pointer wins: the compile reports any conflict)."""
        kinds = self.found.get(name, set())
        return next((k for k in (Kind.POINTER, Kind.INT) if k in kinds), None)

    def weak(self, name: str) -> Kind | None:
        return Kind.FLOAT if Kind.FLOAT in self.found.get(name, set()) else None


# -- what the `tl` functions do with kinds, by name ----------------------------------------

_POINTER_ARGUMENT = {
    name: (0, "pointer")
    for name in (
        "load", "store", "atomic_add", "atomic_and", "atomic_cas", "atomic_max",
        "atomic_min", "atomic_or", "atomic_xchg", "atomic_xor",
    )
} | {"make_block_ptr": (0, "base")}  # fmt: skip
"""Functions taking a pointer: its position and keyword."""

_RESULT_KINDS = {
    **dict.fromkeys(("program_id", "num_programs", "arange", "cdiv", "argmax", "argmin"), Kind.INT),
    **dict.fromkeys(
        ("exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "erf",
         "sigmoid", "softmax", "floor", "ceil", "fdiv"),
        Kind.FLOAT,
    ),
}  # fmt: skip
"""Functions whose result has one kind; those giving floats take floats."""

_INT_ARGUMENTS = frozenset({"cdiv"})

_INT_ENTRIES = {
    "make_block_ptr": ((1, "shape"), (2, "strides"), (3, "offsets")),
    "advance": ((1, "offsets"),),
}
"""Functions taking tuples of integers (a block pointer's shape, strides and offsets):
their positions and keywords."""

_LIKE_FIRST_ARGUMENT = frozenset(
    {
        "sum", "max", "min", "cumsum", "cumprod", "xor_sum", "abs", "broadcast_to",
        "reshape", "view", "trans", "permute", "expand_dims", "ravel", "multiple_of",
        "max_contiguous", "max_constancy", "zeros_like", "to_tensor",
    }
)  # fmt: skip
"""Functions whose result is a value of their first argument's kind."""

_DTYPE_TESTS = {"dtype.is_int": Kind.INT, "dtype.is_floating": Kind.FLOAT}
"""A dtype's predicates that `tl.static_assert` turns into a kind."""

_PROMOTING = {"maximum": 0, "minimum": 0, "clamp": 0, "fma": 0, "dot": 0, "where": 1}
"""Functions whose result promotes their arguments from this position on."""

_DTYPE_ARGUMENT = {"zeros": (1, "dtype"), "full": (2, "dtype"), "cast": (1, "dtype"),
                   "to": (1, "dtype")}  # fmt: skip
"""Functions whose result has the kind of a dtype argument: its position and keyword."""

_RANGES = (builtins.range, tl.range, tl.static_range)

_PURE_BUILTINS = (abs, bool, float, int, len, max, min, round)
"""Python functions folded on constant arguments (``-float("inf")``)."""

_FOLDED: dict[type[ast.AST], Callable[..., Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
    ast.Not: operator.not_, ast.Eq: operator.eq, ast.NotEq: operator.ne,
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}  # fmt: skip
"""Python's operators, for constexpr arithmetic (``if BLOCK > 16:`` picks one branch)."""

_ADDITIVE = (ast.Add, ast.Sub)
_INTEGER_ONLY = (ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift)
_MAX_INLINE_DEPTH = 8


def _python(value: Any) -> Any:
    return value.value if isinstance(value, tl.constexpr) else value


def _value(item: _Abstract) -> Value:
    """`item` as a runtime operand: Python numbers are literals of their kind."""
    if isinstance(item, Value):
        return item
    if isinstance(item, Constant) and isinstance(item.value, bool | int):
        return Value(Kind.INT)
    if isinstance(item, Constant) and isinstance(item.value, float):
        return Value(Kind.FLOAT)
    return _UNTRACKED


def _fold(function: Callable[..., Any], *operands: _Abstract) -> _Abstract | None:
    """`function` of the operands when all are constants, else None."""
    if not all(isinstance(o, Constant) for o in operands):
        return None
    try:
        return Constant(function(*(o.value for o in operands)))  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001 - the compile reports the user's error
        return _UNTRACKED


def _truth(item: _Abstract) -> bool | None:
    """Whether a constant test holds; None for a runtime one."""
    try:
        return bool(item.value) if isinstance(item, Constant) else None
    except Exception:  # noqa: BLE001 - an array or other ambiguous global: not constant
        return None


def _merge(a: _Abstract, b: _Abstract) -> _Abstract:
    """What a variable holds after two paths that left it `a` and `b`."""
    if a == b:
        return a
    a, b = _value(a), _value(b)
    same = a.kind is b.kind
    return Value(
        a.kind if same else None,
        a.follows | b.follows,
        a.bases | b.bases,
        a.untracked or b.untracked or (not same and None not in (a.kind, b.kind)),
        a.element if a.element is b.element else None,
    )


def _merge_envs(a: dict[str, _Abstract], b: dict[str, _Abstract]) -> dict[str, _Abstract]:
    return {**a, **b, **{name: _merge(a[name], b[name]) for name in a.keys() & b.keys()}}


def _argument(
    args: Sequence[_Abstract], kwargs: Mapping[str, _Abstract], position: tuple[int, str]
) -> _Abstract | None:
    index, keyword = position
    return kwargs.get(keyword, args[index] if index < len(args) else None)


def _dtype_kind(item: _Abstract | None) -> Value:
    if not isinstance(item, Constant) or not isinstance(item.value, tl.dtype):
        return _UNTRACKED
    dtype = item.value
    if dtype.is_ptr():
        return Value(Kind.POINTER)
    return Value(Kind.FLOAT if dtype.is_floating() else Kind.INT)


@dataclass
class _Interpreter:
    """Interprets one function's body over `Value`s, recording what its uses need."""

    function: Any  # blkc.frontend.python._Function: the tree, its file and its globals
    env: dict[str, _Abstract]
    evidence: _Evidence
    depth: int = 0
    returned: list[_Abstract] = field(default_factory=list)

    def run(self) -> None:
        self._block(self.function.tree.body)

    # -- what uses need ----------------------------------------------------------------

    def _need_pointer(self, item: _Abstract | None) -> None:
        """`item` is a pointer: its one possible base is, and the rest are offsets."""
        if not isinstance(item, Value) or item.kind is not None:
            return
        self.evidence.add(item.follows - item.bases, Kind.INT)
        if len(item.bases) == 1 and not item.untracked:
            self.evidence.add(item.bases, Kind.POINTER)

    def _need_int(self, item: _Abstract | None) -> None:
        if isinstance(item, Value) and item.kind is None:
            self.evidence.add(item.follows, Kind.INT)

    def _meet_float(self, item: Value) -> None:
        if item.kind is None:
            self.evidence.add(item.follows, Kind.FLOAT)

    # -- statements ----------------------------------------------------------------------

    def _block(self, statements: Sequence[ast.stmt]) -> None:
        for statement in statements:
            if isinstance(statement, ast.Return):
                self.returned.append(
                    self.expr(statement.value) if statement.value else Constant(None)
                )
                return
            self._statement(statement)

    def _statement(self, node: ast.stmt) -> None:
        match node:
            case ast.Assign(targets=targets, value=value):
                for target in targets:
                    self._assign(target, value)
            case ast.AnnAssign(target=target, value=value) if value is not None:
                self._assign(target, value)
            case ast.AugAssign(target=ast.Name(id=name), op=op, value=value):
                self.env[name] = self._binary(op, self._lookup(name), self.expr(value))
            case ast.AugAssign(value=value) | ast.Expr(value=value):
                self.expr(value)
            case ast.Assert(test=test):
                self.expr(test)
            case ast.If(test=test, body=body, orelse=orelse):
                self._branches(self.expr(test), body, orelse)
            case ast.For():
                self._for(node)
            case ast.While(test=test, body=body, orelse=orelse):
                self.expr(test)
                self._loop(body, test)
                self._block(orelse)

    def _assign(self, target: ast.expr, node: ast.expr) -> None:
        if isinstance(target, ast.Tuple | ast.List) and isinstance(node, ast.Tuple | ast.List):
            if len(target.elts) == len(node.elts):
                for t, v in zip(target.elts, node.elts, strict=True):
                    self._assign(t, v)
                return
        self._bind(target, self.expr(node))

    def _bind(self, target: ast.expr, item: _Abstract) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = item
        elif isinstance(target, ast.Tuple | ast.List):
            values = item.value if isinstance(item, Constant) else None
            for index, element in enumerate(target.elts):
                known = isinstance(values, tuple) and len(values) == len(target.elts)
                self._bind(element, Constant(values[index]) if known else _UNTRACKED)  # type: ignore[index]

    def _branches(self, test: _Abstract, body: list[ast.stmt], orelse: list[ast.stmt]) -> None:
        """Both branches, merged; only the one a constant test picks."""
        truth = _truth(test)
        if truth is not None:
            self._block(body if truth else orelse)
            return
        before = dict(self.env)
        self._block(body)
        after_body, self.env = self.env, before
        self._block(orelse)
        self.env = _merge_envs(after_body, self.env)

    def _for(self, node: ast.For) -> None:
        index: _Abstract = _UNTRACKED
        iterator = node.iter
        if isinstance(iterator, ast.Call) and self._is_range(self.expr(iterator.func)):
            for arg in iterator.args:
                self._need_int(self.expr(arg))
            index = Value(Kind.INT)
        else:
            self.expr(iterator)
        self._bind(node.target, index)
        self._loop(node.body)
        self._block(node.orelse)

    @staticmethod
    def _is_range(function: _Abstract) -> bool:
        return isinstance(function, Constant) and function.value in _RANGES

    def _loop(self, body: list[ast.stmt], test: ast.expr | None = None) -> None:
        """The body twice, so that values it carries round reach their uses."""
        before = dict(self.env)
        for _ in range(2):
            self._block(body)
            if test is not None:
                self.expr(test)
            self.env = _merge_envs(before, self.env)

    # -- expressions ---------------------------------------------------------------------

    def expr(self, node: ast.expr) -> _Abstract:
        match node:
            case ast.Constant(value=value):
                return Constant(value)
            case ast.Name(id=name):
                return self._lookup(name)
            case ast.Attribute(value=base, attr=attr):
                return self._attribute(self.expr(base), attr)
            case ast.BinOp(left=left, op=op, right=right):
                return self._binary(op, self.expr(left), self.expr(right))
            case ast.UnaryOp(op=op, operand=operand):
                return self._unary(op, self.expr(operand))
            case ast.Compare(left=left, ops=ops, comparators=comparators):
                return self._compare(self.expr(left), ops, [self.expr(c) for c in comparators])
            case ast.BoolOp(op=op, values=values):
                return self._bool_op(op, [self.expr(v) for v in values])
            case ast.IfExp(test=test, body=body, orelse=orelse):
                truth = _truth(self.expr(test))
                if truth is not None:
                    return self.expr(body if truth else orelse)
                return _merge(self.expr(body), self.expr(orelse))
            case ast.Call():
                return self._call(node)
            case ast.Subscript(value=base, slice=index):
                block = self.expr(base)
                return _fold(operator.getitem, block, self.expr(index)) or block
            case ast.Tuple(elts=elements) | ast.List(elts=elements):
                items = [self.expr(e) for e in elements]
                return _fold(lambda *values: values, *items) or _UNTRACKED
        return _UNTRACKED

    @staticmethod
    def _bool_op(op: ast.boolop, items: list[_Abstract]) -> _Abstract:
        """Python's `and`/`or` on constants; on runtime values, their merge."""
        truths = [_truth(item) for item in items]
        if None in truths:
            return reduce(_merge, items)
        wanted = isinstance(op, ast.Or)
        return next((i for i, t in zip(items, truths, strict=True) if t is wanted), items[-1])

    def _lookup(self, name: str) -> _Abstract:
        if name in self.env:
            return self.env[name]
        if name in self.function.globals:
            return Constant(_python(self.function.globals[name]))
        return Constant(getattr(builtins, name)) if hasattr(builtins, name) else _UNTRACKED

    def _attribute(self, base: _Abstract, attr: str) -> _Abstract:
        if isinstance(base, Value):
            return Builtin(attr, base)
        if isinstance(base, Builtin) and base.name == "dtype" and base.receiver is not None:
            return Builtin(f"dtype.{attr}", base.receiver)  # x.dtype.is_int
        if not isinstance(base, Constant):
            return _UNTRACKED
        found = getattr(base.value, attr, None)
        language = isinstance(base.value, ModuleType) and base.value.__name__.startswith(
            "blkc.language"
        )
        if language and (found is None or getattr(found, "__blkc_builtin__", False)):
            return Builtin(attr)  # by name: also `tl` functions blkc lacks (make_block_ptr)
        return _UNTRACKED if found is None else Constant(found)

    def _binary(self, op: ast.operator, left: _Abstract, right: _Abstract) -> _Abstract:
        folded = _fold(_FOLDED[type(op)], left, right) if type(op) in _FOLDED else None
        if folded is not None:
            return folded
        a, b = _value(left), _value(right)
        kinds = (a.kind, b.kind)
        if isinstance(op, _INTEGER_ONLY) and Kind.INT in kinds:
            self._need_int(a)
            self._need_int(b)
        if Kind.POINTER in kinds:
            if not isinstance(op, _ADDITIVE):
                return _UNTRACKED
            pointer, offset = (a, b) if a.kind is Kind.POINTER else (b, a)
            self._need_int(offset)
            return pointer
        result = self._promote(a, b)
        if isinstance(op, ast.Div):
            return Value(Kind.FLOAT)
        return result if isinstance(op, _ADDITIVE) else replace(result, bases=frozenset())

    def _promote(self, a: Value, b: Value) -> Value:
        """The value of an operation on `a` and `b` that gives the wider kind."""
        if a.kind is b.kind and a.kind is not None:
            return a
        if Kind.FLOAT in (a.kind, b.kind):
            self._meet_float(a)
            self._meet_float(b)
            return Value(Kind.FLOAT)
        if Kind.POINTER in (a.kind, b.kind):
            return a if a.kind is Kind.POINTER else b
        return Value(None, a.follows | b.follows, a.bases | b.bases, a.untracked or b.untracked)

    def _unary(self, op: ast.unaryop, operand: _Abstract) -> _Abstract:
        folded = _fold(_FOLDED[type(op)], operand)
        if folded is not None:
            return folded
        value = _value(operand)
        return Value(Kind.INT) if isinstance(op, ast.Not) else replace(value, bases=frozenset())

    def _compare(
        self, left: _Abstract, ops: Sequence[ast.cmpop], rights: Sequence[_Abstract]
    ) -> _Abstract:
        results = []
        for op, right in zip(ops, rights, strict=True):
            folded = _fold(_FOLDED[type(op)], left, right) if type(op) in _FOLDED else None
            results.append(folded or Value(Kind.INT))
            for x, y in ((left, right), (right, left)):
                if isinstance(y, Value) and y.kind is Kind.INT:
                    self._need_int(x)
                elif isinstance(y, Value) and y.kind is Kind.FLOAT and isinstance(x, Value):
                    self._meet_float(x)
            left = right
        return reduce(_merge, results)

    # -- calls -----------------------------------------------------------------------------

    def _call(self, node: ast.Call) -> _Abstract:
        function = self.expr(node.func)
        if isinstance(function, Builtin) and function.receiver is None:
            self._need_int_entries(function.name, node)
        elif isinstance(function, Constant) and getattr(function.value, "__blkc_builtin__", False):
            self._need_int_entries(function.value.__name__, node)
        args = [_UNTRACKED if isinstance(a, ast.Starred) else self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg is not None}
        if isinstance(function, Builtin):
            receiver = [] if function.receiver is None else [function.receiver]
            return self._builtin(function.name, [*receiver, *args], kwargs)
        if not isinstance(function, Constant):
            return _UNTRACKED
        callee = function.value
        if isinstance(callee, JITFunction):
            return self._inline(callee, args, kwargs)
        if getattr(callee, "__blkc_builtin__", False):
            return self._builtin(callee.__name__, args, kwargs)
        folded = _fold(callee, *args) if callee in _PURE_BUILTINS and not kwargs else None
        if folded is None and callee in (builtins.min, builtins.max):
            return self._promote_all(args)
        return folded or _UNTRACKED

    def _need_int_entries(self, name: str, node: ast.Call) -> None:
        """The entries of the integer tuples `name` takes (`_INT_ENTRIES`) are integers."""
        keywords = {k.arg: k.value for k in node.keywords}
        for index, keyword in _INT_ENTRIES.get(name, ()):
            entries = keywords.get(keyword, node.args[index] if index < len(node.args) else None)
            if isinstance(entries, ast.Tuple | ast.List):
                for entry in entries.elts:
                    self._need_int(self.expr(entry))

    def _builtin(self, name: str, args: list[_Abstract], kwargs: dict[str, _Abstract]) -> _Abstract:
        if name in _DTYPE_TESTS and isinstance(args[0], Value):
            return DtypeTest(args[0], _DTYPE_TESTS[name])
        if name == "static_assert" and args and isinstance(args[0], DtypeTest):
            if args[0].kind is Kind.INT:
                self._need_int(args[0].receiver)
            else:
                self._meet_float(args[0].receiver)
        if name in _POINTER_ARGUMENT:
            pointer = _argument(args, kwargs, _POINTER_ARGUMENT[name])
            self._need_pointer(pointer)
            if isinstance(pointer, Value) and pointer.kind is Kind.POINTER and pointer.element:
                return Value(pointer.element)
            return _UNTRACKED
        if name in _INT_ARGUMENTS:
            for arg in [*args, *kwargs.values()]:
                self._need_int(arg)
        if name in _RESULT_KINDS:
            if _RESULT_KINDS[name] is Kind.FLOAT:
                for arg in args:
                    self._meet_float(_value(arg))
            return Value(_RESULT_KINDS[name])
        if name in _LIKE_FIRST_ARGUMENT and args:
            return _value(args[0])
        if name in _PROMOTING:
            return self._promote_all(args[_PROMOTING[name] :])
        if name in _DTYPE_ARGUMENT:
            return _dtype_kind(_argument(args, kwargs, _DTYPE_ARGUMENT[name]))
        return _UNTRACKED

    def _promote_all(self, args: Sequence[_Abstract]) -> _Abstract:
        return reduce(self._promote, [_value(a) for a in args]) if args else _UNTRACKED

    def _inline(
        self, callee: JITFunction, args: list[_Abstract], kwargs: dict[str, _Abstract]
    ) -> _Abstract:
        """Follow the arguments into a `@blkc.jit` helper; its returned value."""
        if self.depth >= _MAX_INLINE_DEPTH:
            return _UNTRACKED
        try:
            bound = callee.signature.bind(*args, **kwargs)
        except TypeError:
            return _UNTRACKED
        bound.apply_defaults()
        env = {
            name: value if isinstance(value, Value | Constant | Builtin) else Constant(value)
            for name, value in bound.arguments.items()
        }
        helper = _Interpreter(parse_function(callee.fn), env, self.evidence, self.depth + 1)
        helper.run()
        return reduce(_merge, helper.returned) if helper.returned else Constant(None)
