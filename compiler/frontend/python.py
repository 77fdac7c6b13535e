"""The Python frontend: a `@blkc.jit` function's AST to loose blk IR.

The kernel's source is parsed (not traced) and walked statement by statement. Names hold
either kernel values (`tl.tensor`, an SSA value of the IR being built) or compile-time
Python values (constexprs, literals, dtypes, tuples, functions); operations on compile-time
values are evaluated in Python, operations involving a kernel value build IR. Every op
carries the position of the expression it came from, so promotion and broadcast errors
from the passes point at the kernel's own source line.

Control flow: `if` on a compile-time condition keeps one branch; on a kernel scalar it
becomes `scf.if`, whose results are the variables both branches leave. `for` over
`range`/`tl.range` becomes `scf.for` carrying the variables the body assigns (and
`tl.static_range` unrolls); `while` becomes `scf.while`. Calls to other `@blkc.jit`
functions are inlined; `return` may end a helper, or a kernel early from an `if`.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import difflib
import inspect
import numbers
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, BlockArgument, SSAValue

from blkc import dtypes
from blkc.diagnostics import BlkcError, SourceLocation, error_at
from blkc.dialects.types import PtrType, dtype_of, element_type, shape_of
from blkc.frontend.builder import IRBuilder
from blkc.frontend.captures import readable, refusal
from blkc.frontend.source import ParsedFunction as _Function
from blkc.frontend.source import adopt_source as adopt_source
from blkc.frontend.source import function_source as function_source
from blkc.frontend.source import parse_function
from blkc.frontend.source import replace_source as replace_source
from blkc.language import core as tl
from blkc.language import tensor_descriptors
from blkc.language.block_pointers import BlockPointer, advance

if TYPE_CHECKING:
    from blkc.jitfunction import JITFunction

Carried = (BlockPointer, tensor_descriptors.TensorDescriptor)
"""What a loop or an `if` carries as its kernel scalars (`named_scalars`): block pointers
and tensor descriptors."""

_BINARY = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.BitAnd: "and",
    ast.BitOr: "or",
    ast.BitXor: "xor",
    ast.LShift: "shl",
    ast.RShift: "shr",
}
_PYTHON_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
    ast.BitAnd: lambda a, b: a & b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitXor: lambda a, b: a ^ b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
    ast.MatMult: lambda a, b: a @ b,
}
_COMPARE = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
_PYTHON_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_REFLECTED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}

_RETURN = "$return"
"""The environment slot holding a function's return value once a `return` ran."""

_MAX_INLINE_DEPTH = 32

_PYTHON_FUNCTIONS = {
    builtins.len, builtins.isinstance, builtins.int, builtins.float, builtins.bool,
    builtins.tuple, builtins.list, builtins.str, builtins.zip, builtins.enumerate,
    builtins.reversed, builtins.getattr, builtins.hasattr, builtins.all, builtins.any,
    builtins.divmod, builtins.round, builtins.sorted, builtins.type, builtins.repr,
}  # fmt: skip
"""Python functions a kernel may call on compile-time values."""


def assigned_names(statements: Sequence[ast.stmt]) -> list[str]:
    """The names `statements` assign (in first-assignment order), looking into nested
    blocks."""
    found: dict[str, None] = {}

    def targets(node: ast.expr) -> None:
        if isinstance(node, ast.Name):
            found.setdefault(node.id)
        elif isinstance(node, ast.Tuple | ast.List):
            for element in node.elts:
                targets(element)
        elif isinstance(node, ast.Starred):
            targets(node.value)

    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    targets(target)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For):
                targets(node.target)
            elif isinstance(node, ast.NamedExpr):
                targets(node.target)
    return list(found)


def _contains_return(statements: Sequence[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Return) for s in statements for n in ast.walk(s))


class _TensorMethod:
    """``x.sum`` before it is called: a `tl` function with `x` as its first argument."""

    def __init__(self, function: Callable[..., Any], receiver: tl.tensor | BlockPointer):
        self.function = function
        self.receiver = receiver


_METHODS = {
    "abs", "advance", "argmax", "argmin", "associative_scan", "atomic_add", "atomic_and",
    "atomic_cas", "atomic_max", "atomic_min", "atomic_or", "atomic_xchg", "atomic_xor",
    "broadcast_to", "cast", "cdiv", "ceil", "cos", "cumprod", "cumsum", "erf", "exp", "exp2",
    "expand_dims", "flip", "floor", "gather", "histogram", "item", "log", "log2",
    "logical_and", "logical_or", "max", "min", "permute", "ravel", "reduce", "reduce_or",
    "reshape", "rsqrt", "sigmoid", "sin", "softmax", "sort", "split", "sqrt", "sqrt_rn",
    "store", "sum", "trans", "view", "xor_sum",
}  # fmt: skip
"""Triton's tensor methods: ``x.f(...)`` is ``tl.f(x, ...)`` (`item` and the logical ones are
in `blkc.language.core` only, as in Triton's `core`)."""


@dataclass
class CodeGenerator:
    """Builds one function's body; inlined calls get a generator of their own."""

    ir: IRBuilder
    function: _Function
    env: dict[str, Any] = field(default_factory=dict)
    depth: int = 0
    _node: ast.AST | None = None
    _unused_call: ast.Call | None = None
    """The call of the statement being compiled whose result nothing uses."""

    # -- positions and errors ----------------------------------------------------------

    def _position(self, node: ast.AST) -> tuple[int, int]:
        line = getattr(node, "lineno", 1) + self.function.line_offset
        col = getattr(node, "col_offset", 0) + 1 + self.function.col_offset
        return line, col

    @contextmanager
    def _at(self, node: ast.AST) -> Iterator[None]:
        if not hasattr(node, "lineno"):
            yield
            return
        line, col = self._position(node)
        saved = self._node
        self._node = node
        with self.ir.located(line, col, self.function.filename):
            yield
        self._node = saved

    def error(self, message: str) -> BlkcError:
        """A located error at the expression being compiled."""
        return self.ir.error(message)

    # -- values ------------------------------------------------------------------------

    def wrap(self, handle: SSAValue) -> tl.tensor:
        return tl.tensor(handle)

    @staticmethod
    def unwrap_constexpr(value: Any) -> Any:
        return value.value if isinstance(value, tl.constexpr) else value

    def is_constant(self, value: Any) -> bool:
        return not isinstance(self.unwrap_constexpr(value), tl.tensor)

    def truth(self, value: Any) -> bool:
        """A compile-time condition's truth; an error where the value has none."""
        try:
            return bool(self.unwrap_constexpr(value))
        except Exception as err:  # noqa: BLE001 - any Python error is the user's
            raise self.error(f"this condition has no truth value: {err}") from None

    def is_none(self, value: Any) -> bool:
        return self.unwrap_constexpr(value) is None

    def constant(self, value: Any, what: str) -> Any:
        """`value` as a compile-time Python value; an error when it is a kernel value."""
        value = self.unwrap_constexpr(value)
        if isinstance(value, tl.tensor):
            raise self.error(
                f"{what} must be a compile-time constant (a literal or a tl.constexpr "
                f"parameter), not a kernel value ({value.handle.type})"
            )
        return value

    def value(self, value: Any, what: str) -> SSAValue:
        """`value` as an SSA value: kernel values as they are, numbers as weak literals."""
        value = self.unwrap_constexpr(value)
        if isinstance(value, tl.tensor):
            return value.handle
        if isinstance(value, bool | int | float):
            return self.ir.literal(value)
        if hasattr(value, "dtype") and hasattr(value, "item") and not hasattr(value, "shape"):
            return self.ir.literal(value.item())
        shown = "None" if value is None else f"{type(value).__name__} {value!r}"
        raise self.error(f"{what} must be a kernel value or a number, got {shown}")

    def tensor_of(self, value: Any, what: str) -> tl.tensor:
        return self.wrap(self.value(value, what))

    @staticmethod
    def shape_of(value: SSAValue) -> tuple[int, ...]:
        return shape_of(value.type)

    def dtype_of(self, value: SSAValue) -> dtypes.DType:
        d = dtype_of(value.type)
        if d is None:
            raise self.error(f"expected a number or a block of numbers, got {value.type}")
        return d

    # -- statements --------------------------------------------------------------------

    def run(self, statements: Sequence[ast.stmt]) -> bool:
        """Compile `statements`; True when a `return` ended them."""
        for index, statement in enumerate(statements):
            if isinstance(statement, ast.If) and _contains_return([statement]):
                rest = list(statements[index + 1 :])
                return self._if_returning(statement, rest)
            with self._at(statement):
                if self._statement(statement):
                    return True
        return False

    def _statement(self, node: ast.stmt) -> bool:
        match node:
            case ast.Expr(value=ast.Constant(value=str())):
                pass  # a docstring
            case ast.Expr(value=ast.Call() as call):
                self._unused_call = call
                self.expr(call)
            case ast.Expr(value=value):
                self.expr(value)
            case ast.Assign(targets=[ast.Name() as target], value=value):
                self._assign(target, self._assigned_number(self.expr(value)))
            case ast.Assign(targets=targets, value=value):
                result = self.expr(value)
                for target in targets:
                    self._assign(target, result)
            case ast.AnnAssign(target=target, value=value):
                if value is not None:
                    self._assign(target, self.expr(value))
            case ast.AugAssign(target=ast.Name(id=name) as target, op=op, value=value):
                with self._at(target):
                    current = self._lookup(name)
                self.env[name] = self._binary(op, current, self.expr(value))
            case ast.If():
                self._if(node)
            case ast.For():
                self._for(node)
            case ast.While():
                self._while(node)
            case ast.Return(value=value):
                self.env[_RETURN] = None if value is None else self.expr(value)
                return True
            case ast.Pass():
                pass
            case ast.Assert(test=test, msg=msg):
                self._assert(test, msg)
            case _:
                raise self.error(_unsupported(node))
        return False

    def _assign(self, target: ast.expr, value: Any) -> None:
        with self._at(target):
            if isinstance(target, ast.Name):
                self.env[target.id] = value
                return
            if isinstance(target, ast.Tuple | ast.List):
                items = self.unwrap_constexpr(value)
                if not isinstance(items, tuple | list):
                    raise self.error(
                        f"cannot unpack {_describe(items)} into {len(target.elts)} names"
                    )
                if len(items) != len(target.elts):
                    raise self.error(
                        f"cannot unpack {len(items)} values into {len(target.elts)} names"
                    )
                for element, item in zip(target.elts, items, strict=True):
                    self._assign(element, item)
                return
            raise self.error(
                "only names and tuples of names can be assigned in a kernel; store to memory "
                "with tl.store"
            )

    def _assigned_number(self, value: Any) -> Any:
        """Under triton-compat, a number assigned to a name is a kernel scalar of the dtype
        its policy gives it (``t = 255`` an int32), as Triton 3.9 makes it; annotated
        ``t: tl.constexpr = 255`` it stays a constant. Other policies keep the number."""
        number = self.unwrap_constexpr(value)
        if self.ir.policy != "triton-compat" or not isinstance(number, bool | int | float):
            return value
        return self.wrap(self.ir.typed(self.ir.literal(number)))

    def _assert(self, test: ast.expr, msg: ast.expr | None) -> None:
        condition = self.expr(test)
        message = "" if msg is None else str(self.constant(self.expr(msg), "the message"))
        if self.is_constant(condition):
            if not self.unwrap_constexpr(condition):
                raise self.error(f"assertion failed at compile time: {message}".rstrip(": "))
            return
        source = ast.unparse(test)
        self.ir.assert_(self.value(condition, "the condition"), message or f"assert {source}")

    # -- if ----------------------------------------------------------------------------

    def _if(self, node: ast.If) -> None:
        cond = self.expr(node.test)
        if self.is_constant(cond):
            self.run(node.body if self.truth(cond) else node.orelse)
            return
        self._dynamic_if(cond, node.body, node.orelse, node)

    def _if_returning(self, node: ast.If, rest: list[ast.stmt]) -> bool:
        """An `if` that returns in a branch: the statements after it continue each branch
        that does not return, so both branches end the function."""
        with self._at(node):
            cond = self.expr(node.test)
            if self.is_constant(cond):
                taken = node.body if self.truth(cond) else node.orelse
                return self.run([*taken, *rest])
            # Both branches end the function: only what it returns leaves them (a name
            # may change its type after an early return, as in Triton).
            self._dynamic_if(cond, [*node.body, *rest], [*node.orelse, *rest], node, ends=True)
        return True

    def _dynamic_if(
        self,
        cond: Any,
        then: list[ast.stmt],
        otherwise: list[ast.stmt],
        node: ast.AST,
        ends: bool = False,
    ) -> None:
        before = dict(self.env)
        candidates = [] if ends else assigned_names([*then, *otherwise])
        pointers: dict[str, BlockPointer | tensor_descriptors.TensorDescriptor] = {}
        arity: list[int | None] = []

        def branch(statements: list[ast.stmt]) -> Callable[[], dict[str, SSAValue]]:
            def build() -> dict[str, SSAValue]:
                self.env = dict(before)
                self.run(statements)
                returned = self.unwrap_constexpr(self.env.get(_RETURN))
                names = [*candidates, _RETURN]
                if isinstance(returned, tuple):  # a helper's tuple: element by element
                    arity.append(len(returned))
                    del self.env[_RETURN]
                    names = [*candidates, *(f"{_RETURN}.{i}" for i in range(len(returned)))]
                    for i, item in enumerate(returned):
                        self.env[f"{_RETURN}.{i}"] = item
                else:
                    arity.append(None)
                return self._carried_values(names, pointers)

            return build

        condition = self.value(cond, "the condition")
        with self._at(node):
            results = self.ir.branch(condition, branch(then), branch(otherwise))
            if arity[0] != arity[-1]:
                shown = ["a value" if n is None else f"a tuple of {n}" for n in arity]
                raise self.error(
                    f"one branch of the 'if' returns {shown[0]}, the other {shown[-1]}: "
                    "return the same number of values from every return"
                )
        self.env = before
        if arity[0] is not None:
            parts = [results.pop(f"{_RETURN}.{i}", None) for i in range(arity[0])]
            if all(part is not None for part in parts):
                self.env[_RETURN] = tuple(self.wrap(part) for part in parts)
        for name, pointer in pointers.items():
            keys = [f"{name}.{part}" for part, _ in pointer.named_scalars()]
            if all(k in results for k in keys):
                self.env[name] = pointer.with_scalars([self.wrap(results.pop(k)) for k in keys])
        for name, value in results.items():
            self.env[name] = self.wrap(value)

    def _carried_values(
        self,
        names: Sequence[str],
        pointers: dict[str, BlockPointer | tensor_descriptors.TensorDescriptor],
    ) -> dict[str, SSAValue]:
        """The names of `names` holding kernel values or numbers, as SSA values; a block
        pointer gives its kernel scalars (``p.offsets[0]``) and its layout to `pointers`,
        the same in both branches of an `if`."""
        found: dict[str, SSAValue] = {}
        for name in names:
            if name not in self.env:
                continue
            value = self.unwrap_constexpr(self.env[name])
            if isinstance(value, Carried):
                if name in pointers and not pointers[name].same_layout(value):
                    raise self.error(
                        f"'{name}' is {_describe(pointers[name])} after one branch of the 'if' "
                        f"but {_describe(value)} after the other; give both the same layout"
                    )
                pointers[name] = value
                found.update({f"{name}.{p}": v.handle for p, v in value.named_scalars()})
            elif isinstance(value, tl.tensor):
                found[name] = value.handle
            elif isinstance(value, bool | int | float):
                found[name] = self.ir.literal(value)
        return found

    # -- loops -------------------------------------------------------------------------

    def _loop_carried(self, body: Sequence[ast.stmt], exclude: Sequence[str] = ()) -> list[str]:
        returns = [n for s in body for n in ast.walk(s) if isinstance(n, ast.Return)]
        if returns:
            with self._at(returns[0]):
                raise self.error("'return' inside a loop is not supported; return after the loop")
        names = []
        for name in assigned_names(body):
            if name in exclude or name not in self.env:
                continue
            value = self.unwrap_constexpr(self.env[name])
            if isinstance(value, (tl.tensor, bool, int, float, *Carried)):
                names.append(name)
            elif value is not None:
                raise self.error(
                    f"'{name}' holds {_describe(value)} and is reassigned in the loop; only "
                    "kernel values and numbers can change from one iteration to the next"
                )
        return names

    def _for(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error("'for ... else' is not supported")
        iterator = node.iter
        if not isinstance(iterator, ast.Call):
            raise self.error(_for_message(ast.unparse(iterator)))
        function = self.expr(iterator.func)
        args = [self.expr(a) for a in iterator.args]
        kwargs = {k.arg: self.expr(k.value) for k in iterator.keywords if k.arg}
        if function is builtins.range:
            if not 1 <= len(args) <= 3 or kwargs:
                raise self.error("range() takes 1 to 3 positional arguments")
            bounds: tuple[Any, ...] = tuple((args + [None, None])[:3])
        elif function is tl.static_range or function is tl.range:
            try:
                bounds = function(*args, **kwargs).args
            except TypeError as err:
                raise self.error(f"{function.__name__}: {err}") from None
        else:
            raise self.error(_for_message(ast.unparse(iterator)))
        start, stop, step = _range_bounds(bounds)
        if not isinstance(node.target, ast.Name):
            raise self.error("a loop variable must be a single name")
        name = node.target.id
        if function is tl.static_range:
            values = [self.constant(v, "a static_range bound") for v in (start, stop, step)]
            for v in values:
                self._integer_bound(v, "static_range")
            for i in builtins.range(*values):
                self.env[name] = i
                self.run(node.body)
            return
        carried = self._loop_carried(node.body, exclude=[name])
        before = dict(self.env)

        def body(index: SSAValue, values: list[SSAValue]) -> list[SSAValue]:
            self.env = dict(before)
            self.env[name] = self.wrap(index)
            self._bind_carried(carried, before, values)
            self.run(node.body)
            return self._next_values(carried, before)

        for v in (start, stop, step):
            self._integer_bound(v, function.__name__)
        lower, upper, stride = (self.value(v, "a loop bound") for v in (start, stop, step))
        slots = self._slots(carried, before)
        inits, slot_names = [v for _, v in slots], [n for n, _ in slots]
        results = self.ir.for_loop(lower, upper, stride, inits, body, slot_names)
        self.env = before
        self._bind_carried(carried, before, results)

    def _integer_bound(self, bound: Any, loop: str) -> None:
        """An error unless `bound` of a `loop` (range, tl.range, tl.static_range) is an
        integer: a Python int, or a kernel value of an integer dtype."""
        value = self.unwrap_constexpr(bound)
        if isinstance(value, tl.tensor):
            if value.dtype.is_int():
                return
            shown = f"a {value.dtype} value"
        elif isinstance(value, numbers.Integral):
            return
        else:
            shown = "None" if value is None else f"{type(value).__name__} {value!r}"
        raise self.error(f"{loop}'s bounds and step must be integers, got {shown}")

    def _slots(self, carried: Sequence[str], env: dict[str, Any]) -> list[tuple[str, SSAValue]]:
        """The SSA values carried for the variables `carried` hold in `env`, with their
        names: a block pointer is carried as its kernel scalars (``p.offsets[0]``)."""
        slots = []
        for n in carried:
            value = self.unwrap_constexpr(env[n])
            if isinstance(value, Carried):
                slots += [(f"{n}.{part}", v.handle) for part, v in value.named_scalars()]
            else:
                slots.append((n, self.value(value, f"'{n}'")))
        return slots

    def _bind_carried(
        self, carried: Sequence[str], templates: dict[str, Any], values: Sequence[SSAValue]
    ) -> None:
        """Bind `carried` to `values` (as `_slots` lists them), rebuilding the block
        pointers `templates` holds."""
        remaining = iter(values)
        for n in carried:
            template = self.unwrap_constexpr(templates[n])
            if isinstance(template, Carried):
                scalars = [self.wrap(next(remaining)) for _ in template.scalars()]
                self.env[n] = template.with_scalars(scalars)
            else:
                self.env[n] = self.wrap(next(remaining))

    def _next_values(self, carried: Sequence[str], before: dict[str, Any]) -> list[SSAValue]:
        for n in carried:
            old, new = (self.unwrap_constexpr(e[n]) for e in (before, self.env))
            if isinstance(old, Carried) != isinstance(new, Carried) or (
                isinstance(old, Carried) and not old.same_layout(new)
            ):
                raise self.error(
                    f"'{n}' is {_describe(old)} before the loop but {_describe(new)} after an "
                    "iteration; a block pointer or descriptor carried through a loop keeps its "
                    "block shape and order (move it with tl.advance)"
                )
        return [v for _, v in self._slots(carried, self.env)]

    def _while(self, node: ast.While) -> None:
        if node.orelse:
            raise self.error("'while ... else' is not supported")
        carried = self._loop_carried(node.body)
        before = dict(self.env)

        def bind(values: list[SSAValue]) -> None:
            self.env = dict(before)
            self._bind_carried(carried, before, values)

        def cond(values: list[SSAValue]) -> SSAValue:
            bind(values)
            with self._at(node.test):
                test = self.expr(node.test)
                if isinstance(test, tl.condition):  # `while tl.condition(c, hints):`
                    test = test.condition
                if self.is_constant(test) and not carried:
                    raise self.error(
                        "this loop's condition is a compile-time constant and the loop "
                        "changes no variable: it would never end or never start"
                    )
                return self.value(test, "the condition")

        def body(values: list[SSAValue]) -> list[SSAValue]:
            bind(values)
            self.run(node.body)
            return self._next_values(carried, before)

        slots = self._slots(carried, before)
        inits, slot_names = [v for _, v in slots], [n for n, _ in slots]
        results = self.ir.while_loop(inits, cond, body, slot_names)
        self.env = before
        self._bind_carried(carried, before, results)

    # -- expressions -------------------------------------------------------------------

    def expr(self, node: ast.expr) -> Any:
        with self._at(node):
            return self._expr(node)

    def _expr(self, node: ast.expr) -> Any:
        match node:
            case ast.Constant(value=value):
                return value
            case ast.Name(id=name):
                return self._lookup(name)
            case ast.Attribute(value=base, attr=attr):
                return self._attribute(self.expr(base), attr)
            case ast.BinOp(left=left, op=op, right=right):
                return self._binary(op, self.expr(left), self.expr(right))
            case ast.UnaryOp(op=op, operand=operand):
                return self._unary(op, self.expr(operand))
            case ast.BoolOp(op=op, values=values):
                return self._bool_op(op, values)
            case ast.Compare(left=left, ops=ops, comparators=comparators):
                return self._compare(left, ops, comparators)
            case ast.Call():
                return self._call(node)
            case ast.Subscript(value=base, slice=index):
                return self._subscript(self.expr(base), index)
            case ast.Tuple(elts=elements) | ast.List(elts=elements):
                return tuple(self.expr(e) for e in elements)
            case (
                ast.ListComp(elt=elt, generators=generators)
                | ast.GeneratorExp(elt=elt, generators=generators)
            ):
                return self._comprehension(elt, generators)
            case ast.IfExp(test=test, body=body, orelse=orelse):
                return self._if_expression(test, body, orelse)
            case ast.JoinedStr():
                return self._format(node)
            case _:
                raise self.error(_unsupported(node))

    def _lookup(self, name: str) -> Any:
        if name in self.env:
            return self.env[name]
        if name in self.function.closure:
            try:
                return self._outside(name, self.function.closure[name].cell_contents, "closure")
            except ValueError:
                raise self.error(
                    f"variable '{name}' of an enclosing function is not assigned yet"
                ) from None
        if name in self.function.globals:
            return self._outside(name, self.function.globals[name], "global")
        if hasattr(builtins, name):
            return getattr(builtins, name)
        known = [*self.env, *self.function.closure, *self.function.globals]
        close = difflib.get_close_matches(name, [n for n in known if not n.startswith("$")], n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise self.error(f"name '{name}' is not defined{hint}")

    def _outside(self, name: str, value: Any, scope: str) -> Any:
        """`value`, read by name from outside the kernel, if a kernel may read it."""
        if not readable(value):
            raise self.error(refusal(name, value, scope))
        return value

    def _format(self, node: ast.JoinedStr) -> str:
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(str(part.value))
            elif isinstance(part, ast.FormattedValue):
                value = self.constant(self.expr(part.value), "a value in an f-string")
                spec = "" if part.format_spec is None else self._format(part.format_spec)  # type: ignore[arg-type]
                parts.append(format(value, spec))
        return "".join(parts)

    def _comprehension(self, elt: ast.expr, generators: list[ast.comprehension]) -> tuple:
        """A list comprehension (or generator expression) over values known when the kernel
        compiles (a tuple, `range` or `tl.static_range` of constants), unrolled into a
        tuple, as Triton builds `tl.tuple([v + 1 for v in values])`; its names do not
        leak."""
        names = {n.id for g in generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        saved = {n: self.env[n] for n in names if n in self.env}
        items: list[Any] = []

        def walk(level: int) -> None:
            if level == len(generators):
                items.append(self.expr(elt))
                return
            generator = generators[level]
            with self._at(generator.iter):
                iterable = self.constant(self.expr(generator.iter), "a comprehension's iterable")
                if isinstance(iterable, tl.static_range):
                    bounds = [self.constant(v, "a static_range bound") for v in iterable.args]
                    try:
                        iterable = builtins.range(*_range_bounds(bounds))
                    except (TypeError, ValueError) as err:
                        raise self.error(f"static_range: {err}") from None
                if not isinstance(iterable, tuple | list | builtins.range):
                    raise self.error(
                        "a comprehension in a kernel runs while the kernel compiles: iterate "
                        f"over a tuple or a range of constants, not {_describe(iterable)}"
                    )
            for item in iterable:
                self._assign(generator.target, item)
                if all(self._comprehension_test(test) for test in generator.ifs):
                    walk(level + 1)

        try:
            walk(0)
        finally:
            for name in names:
                self.env.pop(name, None)
            self.env.update(saved)
        return tuple(items)

    def _comprehension_test(self, test: ast.expr) -> bool:
        value = self.expr(test)
        if not self.is_constant(value):
            with self._at(test):
                raise self.error(
                    "a comprehension's condition must be known when the kernel compiles"
                )
        return self.truth(value)

    def _attribute(self, base: Any, attr: str) -> Any:
        base = self.unwrap_constexpr(base)
        if (
            isinstance(base, bool | int | float)
            and (attr == "to" or attr in _METHODS)
            and not hasattr(base, attr)
        ):
            # A number's tensor method (`stride.to(tl.int64)` where a stride of 1 was
            # compiled in): the number as a scalar, as Triton's interpreter reads it.
            base = self.tensor_of(base, f"the number before .{attr}")
        if isinstance(base, tensor_descriptors.TensorDescriptor):
            if attr in tensor_descriptors.METHODS:
                return _TensorMethod(tensor_descriptors.METHODS[attr], base)
            return tensor_descriptors.attribute(self, base, attr)
        if isinstance(base, BlockPointer):
            if attr == "advance":
                return _TensorMethod(advance, base)
            raise self.error(
                f"a block pointer has no attribute '{attr}'; move it with .advance(offsets) "
                "and read it with tl.load"
            )
        if isinstance(base, tl.tensor):
            if attr in ("dtype", "type", "shape", "numel"):
                value = getattr(base, attr)
                return tuple(value) if attr == "shape" else value
            if attr == "T":
                return tl.trans(base, _semantic=self)
            if attr == "to":
                return _TensorMethod(tl.cast, base)
            if attr in _METHODS:
                import blkc.language

                function = getattr(blkc.language, attr, None) or getattr(tl, attr, None)
                if function is None:
                    raise self.error(f"x.{attr}() is Triton's tl.{attr}, which blkc lacks")
                return _TensorMethod(function, base)
            close = difflib.get_close_matches(attr, [*_METHODS, "dtype", "shape", "T", "to"], n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise self.error(f"a kernel value has no attribute '{attr}'{hint}")
        if attr == "dtype" and isinstance(base, bool | int | float):
            # A Python number in a kernel has the dtype it takes on its own (Triton's
            # `value = 1; value.dtype` is int32).
            return tl.from_blkc(self.ir.dtype_of_literal(base))
        if isinstance(base, ModuleType | type) or not isinstance(base, tl.tensor):
            try:
                value = getattr(base, attr)
            except AttributeError:
                known = [n for n in dir(base) if not n.startswith("_")]
                close = difflib.get_close_matches(attr, known, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise self.error(f"{_describe(base)} has no attribute '{attr}'{hint}") from None
            if isinstance(base, ModuleType) and not readable(value, through_module=True):
                raise self.error(refusal(f"{base.__name__}.{attr}", value, "global"))
            return value
        raise AssertionError(attr)

    def operator(self, op: ast.operator, left: Any, right: Any) -> Any:
        """`left op right` as the kernel's binary operator computes it (for built-ins
        written in its terms: `tl.add`, `tl.swizzle2d`)."""
        return self._binary(op, left, right)

    def _binary(self, op: ast.operator, left: Any, right: Any) -> Any:
        a, b = self.unwrap_constexpr(left), self.unwrap_constexpr(right)
        if isinstance(a, BlockPointer) or isinstance(b, BlockPointer):
            raise self.error(
                f"operator '{_symbol(op)}' is not defined on block pointers; move a block "
                "pointer with tl.advance(pointer, offsets)"
            )
        if self.is_constant(a) and self.is_constant(b):
            try:
                return _PYTHON_BINARY[type(op)](a, b)
            except Exception as err:  # noqa: BLE001 - any Python error is the user's
                raise self.error(f"{type(err).__name__}: {err}") from None
        name = _BINARY.get(type(op))
        if name is None:
            raise self.error(f"operator '{_symbol(op)}' is not supported on kernel values")
        lhs, rhs = self.value(a, "the left operand"), self.value(b, "the right operand")
        lptr, rptr = _is_pointer(lhs), _is_pointer(rhs)
        if lptr or rptr:
            return self.wrap(self._pointer_arithmetic(name, lhs, rhs, lptr, rptr, op))
        return self.wrap(self.ir.binary(name, lhs, rhs))

    def _pointer_arithmetic(
        self, name: str, lhs: SSAValue, rhs: SSAValue, lptr: bool, rptr: bool, op: ast.operator
    ) -> SSAValue:
        if name == "add" and not (lptr and rptr):
            return self.ir.addptr(lhs, rhs) if lptr else self.ir.addptr(rhs, lhs)
        if name == "sub" and lptr and not rptr:
            return self.ir.addptr(lhs, self.ir.unary("neg", self.ir.signed_offset(rhs)))
        triton = (
            "cannot add pointers together"
            if name == "add"
            else f"invalid operands of type {lhs.type} and {rhs.type}"
        )
        raise self.error(
            f"operator '{_symbol(op)}' is not defined on pointers; pointers take + and - of "
            f"integer offsets ({triton})"
        )

    def _unary(self, op: ast.unaryop, operand: Any) -> Any:
        x = self.unwrap_constexpr(operand)
        if self.is_constant(x):
            try:
                match op:
                    case ast.USub():
                        return -x
                    case ast.UAdd():
                        return +x
                    case ast.Not():
                        return not x
                    case ast.Invert():
                        return ~x
            except TypeError as err:
                raise self.error(str(err)) from None
        value = self.value(x, "the operand")
        match op:
            case ast.USub():
                if _is_pointer(value):
                    raise self.error(
                        f"a pointer cannot be negated (wrong type argument to unary minus "
                        f"({value.type}))"
                    )
                return self.wrap(self.ir.unary("neg", value))
            case ast.UAdd():
                return x
            case ast.Not():
                return self.wrap(self.ir.unary("not", self.ir.to_bool(value)))
            case _:
                if not self.ir.is_weak(value) and self.dtype_of(value).is_float:
                    raise self.error(
                        f"wrong type argument to unary invert ({self.dtype_of(value).name}): "
                        "~ needs integers or bools"
                    )
                return self.wrap(self.ir.unary("not", value))

    def _bool_op(self, op: ast.boolop, nodes: Sequence[ast.expr]) -> Any:
        is_and = isinstance(op, ast.And)
        result: Any = self.expr(nodes[0])
        for node in nodes[1:]:
            if self.is_constant(result):
                value = self.unwrap_constexpr(result)
                if bool(value) != is_and:  # short-circuits, as in Python
                    return value
                result = self.expr(node)
                continue
            other = self.expr(node)
            lhs = self.ir.to_bool(self.value(result, "the operand"))
            rhs = self.ir.to_bool(self.value(other, "the operand"))
            result = self.wrap(self.ir.binary("and" if is_and else "or", lhs, rhs))
        return result

    def _compare(
        self, left: ast.expr, ops: Sequence[ast.cmpop], comparators: Sequence[ast.expr]
    ) -> Any:
        result: Any = None
        lhs = self.expr(left)
        for op, node in zip(ops, comparators, strict=True):
            rhs = self.expr(node)
            one = self._compare_one(op, lhs, rhs)
            if result is None:
                result = one
            elif self.is_constant(result) and self.is_constant(one):
                result = result and one
            else:
                result = self.wrap(
                    self.ir.binary("and", self.value(result, "a"), self.value(one, "b"))
                )
            lhs = rhs
        return result

    def _compare_one(self, op: ast.cmpop, left: Any, right: Any) -> Any:
        a, b = self.unwrap_constexpr(left), self.unwrap_constexpr(right)
        if isinstance(a, tuple | list) and isinstance(b, tuple | list):
            # Kernels do not tell lists from tuples (`x.shape == [tl.constexpr(8), 4]`).
            a = tuple(map(self.unwrap_constexpr, a))
            b = tuple(map(self.unwrap_constexpr, b))
        if self.is_constant(a) and self.is_constant(b):
            try:
                return _PYTHON_COMPARE[type(op)](a, b)
            except TypeError as err:
                raise self.error(str(err)) from None
        if isinstance(op, ast.Is | ast.IsNot):
            return self._identity(op, a, b)
        predicate = _COMPARE.get(type(op))
        if predicate is None:
            word = {ast.In: "in", ast.NotIn: "not in"}[type(op)]
            raise self.error(f"'{word}' cannot compare kernel values; use ==, !=, <, <=, > or >=")
        lhs, rhs = self.value(a, "the left side"), self.value(b, "the right side")
        if _is_pointer(lhs) != _is_pointer(rhs):
            raise self.error(_pointer_and_number("compare", lhs, rhs))
        return self.wrap(self.ir.compare(predicate, lhs, rhs))

    def _identity(self, op: ast.Is | ast.IsNot, a: Any, b: Any) -> bool:
        """`is` / `is not` with a kernel value on one side, decided at compile time: a
        kernel value is never None (a None argument is a compile-time constant); anything
        else would compare objects of the compiler, not values of the kernel."""
        word = "is" if isinstance(op, ast.Is) else "is not"
        if a is None or b is None:
            return isinstance(op, ast.IsNot)
        raise self.error(
            f"'{word}' compares compile-time values, or a kernel value with None; use == or "
            "!= to compare kernel values"
        )

    def _if_expression(self, test: ast.expr, body: ast.expr, orelse: ast.expr) -> Any:
        cond = self.expr(test)
        if self.is_constant(cond):
            return self.expr(body if self.truth(cond) else orelse)
        condition = self.value(cond, "the condition")
        if self.shape_of(condition):
            return self.wrap(
                self.ir.where(
                    condition, self.value(self.expr(body), "a"), self.value(self.expr(orelse), "b")
                )
            )
        void: dict[str, bool] = {}

        def side(node: ast.expr, which: str) -> Callable[[], list[SSAValue]]:
            def build() -> list[SSAValue]:
                value = self.expr(node)
                void[which] = value is None  # a call of a function without a result
                return [] if value is None else [self.value(value, "the value")]

            return build

        results = self.ir.if_else(
            condition, side(body, "then"), side(orelse, "else"), ["the conditional expression"]
        )
        if void["then"] != void["else"]:
            raise self.error(
                "one side of the conditional expression gives no value (a call of a "
                "function without a result) and the other gives one"
            )
        return None if void["then"] else self.wrap(results[0])

    def _subscript(self, base: Any, index: ast.expr) -> Any:
        base = self.unwrap_constexpr(base)
        if not isinstance(base, tl.tensor):
            key = self.constant(self.expr(index), "an index")
            try:
                return base[key]
            except Exception as err:  # noqa: BLE001 - any Python error is the user's
                raise self.error(f"{type(err).__name__}: {err}") from None
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        value = base.handle
        position = indexed = 0
        for item in items:
            if isinstance(item, ast.Slice):
                bounds = (item.lower, item.upper, item.step)
                if all(b is None or self.is_none(self.expr(b)) for b in bounds):  # x[None:]
                    position += 1
                    indexed += 1
                    if indexed > len(base.shape):
                        raise self.error(
                            f"too many indices for tensor of rank {len(base.shape)}: the "
                            f"index has {indexed} ':' for a block of rank {len(base.shape)}"
                        )
                    continue
            elif self.is_none(self.expr(item)):
                value = self.ir.expand_dims(value, position)
                position += 1
                continue
            raise self.error(
                "unsupported tensor index: a kernel value can only be indexed with ':' and "
                "None (x[:, None]); load single elements through pointers instead"
            )
        return self.wrap(value)  # dimensions the index leaves out stay, as x[None] keeps x's

    # -- calls -------------------------------------------------------------------------

    def _call(self, node: ast.Call) -> Any:
        function = self.expr(node.func)
        if node is self._unused_call:
            self._check_result_used(node, function)
        args: list[Any] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.extend(self.constant(self.expr(arg.value), "a *argument"))
            else:
                args.append(self.expr(arg))
        kwargs = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.error("**kwargs is not supported in kernel calls")
            kwargs[keyword.arg] = self.expr(keyword.value)
        return self.call(function, args, kwargs)

    def _check_result_used(self, node: ast.Call, function: Any) -> None:
        """Refuse a call whose result is dropped where its function demands that it be
        used (`blkc.must_use_result`, as `tl.advance` does)."""
        for wrapped in ("function", "__func__"):  # a method of a value or an object
            function = getattr(function, wrapped, function)
        demand = getattr(function, "_must_use_result", False)
        if demand:
            words = f" {demand}" if isinstance(demand, str) else ""
            message = f"The result of {ast.unparse(node.func)} is not being used.{words}"
            with self._at(node):
                raise self.error(message)

    def call(self, function: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        from blkc.jitfunction import JITFunction

        if isinstance(function, _TensorMethod):
            return self.call(function.function, [function.receiver, *args], kwargs)
        if getattr(function, "__blkc_builtin__", False):
            try:
                inspect.signature(function.__wrapped__).bind(*args, **kwargs, _semantic=self)
            except TypeError as err:
                raise self.error(f"tl.{function.__name__}: {err}") from None
            try:
                return function(*args, **kwargs, _semantic=self)
            except TypeError as err:
                # An operand of a type the builtin does not take, found where it is used.
                raise self.error(f"tl.{function.__name__}: {err}") from None
        if isinstance(function, JITFunction):
            return self.inline(function, args, kwargs)
        if function in (builtins.min, builtins.max) and not all(map(self.is_constant, args)):
            name = "minimum" if function is builtins.min else "maximum"
            result = args[0]
            for other in args[1:]:
                result = self.call(getattr(tl, name), [result, other], {})
            return result
        if function is builtins.abs and not self.is_constant(args[0]):
            return self.call(tl.abs, args, {})
        if function is builtins.isinstance and len(args) == 2 and not kwargs:
            # A kernel value's class is known when it compiles: isinstance(x, tl.tensor).
            kind = self.constant(args[1], "isinstance's class")
            try:
                return isinstance(self.unwrap_constexpr(args[0]), kind)
            except TypeError as err:
                raise self.error(f"isinstance(): {err}") from None
        if (
            function in (builtins.hasattr, builtins.getattr)
            and 2 <= len(args) <= 2 + (function is builtins.getattr)
            and not kwargs
            and not self.is_constant(args[0])
        ):
            # A kernel value's attributes are known when it compiles: hasattr(x, "dtype").
            name = self.constant(args[1], f"{function.__name__}'s attribute name")
            if not isinstance(name, str):
                raise self.error(f"{function.__name__}(): attribute name must be a string")
            try:
                found = self._attribute(args[0], name)
            except BlkcError:
                if function is builtins.hasattr:
                    return False
                if len(args) == 3:
                    return args[2]
                raise
            return True if function is builtins.hasattr else found
        if function is builtins.print:
            prefix = " ".join(str(a) for a in args if isinstance(a, str))
            values = [a for a in args if not isinstance(a, str)]
            return self.call(tl.device_print, [prefix, *values], {})
        if (
            function in _PYTHON_FUNCTIONS
            or function in (builtins.min, builtins.max, builtins.abs)
            or _is_dtype_method(function)
        ):
            plain = [self.constant(a, f"an argument of {function.__name__}()") for a in args]
            try:
                return function(*plain, **{k: self.unwrap_constexpr(v) for k, v in kwargs.items()})
            except Exception as err:  # noqa: BLE001 - any Python error is the user's
                raise self.error(f"{function.__name__}(): {err}") from None
        if isinstance(function, type) and issubclass(function, tl.constexpr):
            return function(*args)
        if function is tl.static_range:  # a comprehension's iterable
            return tl.static_range(*args, **kwargs)
        if function is tl.condition:  # a `while` loop's test (`_while`)
            try:
                return tl.condition(*args, **kwargs)
            except TypeError as err:
                raise self.error(f"tl.condition(): {err}") from None
        if isinstance(function, type) and issubclass(function, builtins.tuple):
            # `tl.tuple(values)`: a tuple of kernel values, known when the kernel compiles
            if len(args) != 1 or kwargs:
                raise self.error(f"{function.__name__}() takes one iterable")
            return function(self.constant(args[0], f"{function.__name__}()'s argument"))
        if function is tl.pointer_type and len(args) == 1 and not kwargs:
            # A dtype, known when the kernel compiles: x_ptr.to(tl.pointer_type(tl.int8)).
            element = self.constant(args[0], "pointer_type's element type")
            if not isinstance(element, tl.dtype):
                raise self.error(f"pointer_type(): {element!r} is not a dtype")
            return tl.pointer_type(element)
        if isinstance(function, tl.dtype):
            raise self.error("a dtype is not callable; convert a value with x.to(dtype)")
        if isinstance(function, tl.constexpr) and getattr(
            function.value, "__blkc_constexpr_function__", False
        ):
            function = function.value  # `@tl.constexpr` on a function
        name = getattr(function, "__name__", repr(function))
        if getattr(function, "__blkc_constexpr_function__", False):
            # Run now, on constants (`blkc.constexpr_function`, `blkc.cdiv`): the result
            # is a constant of the kernel.
            plain = [self.constant(a, f"an argument of {name}()") for a in args]
            named = {k: self.constant(v, f"argument '{k}' of {name}()") for k, v in kwargs.items()}
            try:
                return function(*plain, **named)
            except Exception as err:  # noqa: BLE001 - any Python error is the user's
                raise self.error(f"{name}(): {type(err).__name__}: {err}") from None
        raise self.error(
            f"cannot call '{name}' in a kernel: kernels call tl functions and other "
            "@blkc.jit functions (decorate it with @blkc.jit to inline it, or with "
            "@blkc.constexpr_function to run it on constants while the kernel compiles)"
        )

    def inline(self, callee: JITFunction, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Compile a call to another `@blkc.jit` function in place; return its result."""
        if self.depth >= _MAX_INLINE_DEPTH:
            raise self.error(
                f"calls nest deeper than {_MAX_INLINE_DEPTH} levels (is '{callee.__name__}' "
                "recursive? kernels cannot recurse)"
            )
        try:
            bound = callee.signature.bind(*args, **kwargs)
        except TypeError as err:
            raise self.error(f"{callee.__name__}(): {err}") from None
        bound.apply_defaults()
        generator = CodeGenerator(
            self.ir, parse_function(callee.fn), dict(bound.arguments), self.depth + 1
        )
        # A helper's `tl.constexpr` annotations bind nothing (as in Triton, whose tutorial
        # attention passes blocks to them): a use that needs a constant says so itself.
        try:
            generator.run(generator.function.tree.body)
        except BlkcError as err:
            raise _called_from(err, callee.__name__, self.ir.source_location) from None
        return generator.env.get(_RETURN)


def _called_from(err: BlkcError, name: str, where: SourceLocation | None) -> BlkcError:
    """`err`, raised inside an inlined call of `name`, with a note at the call: the chain
    of notes leads from a helper's line (a `tl.random` function's, say) to the kernel's."""
    first, *rest = err.diagnostics
    noted = dataclasses.replace(first, notes=[*first.notes, (where, f"in the call of '{name}'")])
    return type(err)([noted, *rest])


def _is_dtype_method(function: Any) -> bool:
    """Whether `function` is a method of a dtype (``x.dtype.is_int``), which a kernel calls
    on compile-time arguments."""
    return inspect.ismethod(function) and isinstance(function.__self__, tl.dtype)


def _is_pointer(value: SSAValue) -> bool:
    return isinstance(element_type(value.type), PtrType)


def _pointer_and_number(what: str, *values: SSAValue) -> str:
    """Why a pointer and a number cannot meet in `what`, naming the kernel parameter that
    holds the pointer when one does (an array passed where a number was meant)."""
    types = " and ".join(str(element_type(v.type)) for v in values)
    message = f"invalid operands of type {types}: cannot {what} a pointer and a number"
    for value in values:
        if _is_pointer(value) and isinstance(value, BlockArgument) and value.name_hint:
            message += (
                f"; parameter '{value.name_hint}' is a pointer because the launch passed an "
                "array for it: pass a number, or read the array with tl.load"
            )
    return message


def _symbol(op: ast.operator) -> str:
    return {ast.Pow: "**", ast.MatMult: "@"}.get(type(op), type(op).__name__)


def _describe(value: Any) -> str:
    if isinstance(value, Carried):
        return f"a {value!r}"
    if isinstance(value, tl.tensor):
        return f"a kernel value ({value.handle.type})"
    if isinstance(value, ModuleType):
        return f"module '{value.__name__}'"
    return f"{type(value).__name__} {value!r}"


def _for_message(iterator: str) -> str:
    return (
        f"cannot loop over '{iterator}': kernels loop over range(...), tl.range(...) or "
        "tl.static_range(...)"
    )


_UNSUPPORTED = {
    ast.Lambda: "lambda expressions are",
    ast.SetComp: "set comprehensions are",
    ast.DictComp: "dict comprehensions are",
    ast.Dict: "dicts are",
    ast.Set: "sets are",
    ast.Await: "'await' is",
    ast.Yield: "'yield' is",
    ast.YieldFrom: "'yield from' is",
    ast.NamedExpr: "assignment expressions (:=) are",
    ast.Starred: "starred expressions are",
    ast.With: "'with' statements are",
    ast.Try: "'try' statements are",
    ast.Raise: "'raise' is",
    ast.Import: "imports are",
    ast.ImportFrom: "imports are",
    ast.Global: "'global' is",
    ast.Nonlocal: "'nonlocal' is",
    ast.ClassDef: "class definitions are",
    ast.FunctionDef: "nested functions are",
    ast.Delete: "'del' is",
    ast.Break: "'break' is",
    ast.Continue: "'continue' is",
    ast.Match: "'match' statements are",
    ast.AugAssign: "augmented assignment to anything but a name is",
}
_INSTEAD = {
    ast.Raise: "use tl.static_assert or tl.device_assert",
    ast.FunctionDef: "define a @blkc.jit function at module level and call it",
    ast.Break: "loop with a condition in 'while' instead",
    ast.Continue: "guard the rest of the body with 'if' instead",
    ast.Lambda: "define a @blkc.jit function and call it",
}


def _range_bounds(bounds: Sequence[Any]) -> tuple[Any, Any, Any]:
    """A range's (start, stop, step) as `range` and `tl.static_range` take them: one bound
    is the stop, and the step is 1 unless given."""
    start, stop, step = bounds
    if stop is None:
        start, stop = 0, start
    return start, stop, 1 if step is None else step


def _unsupported(node: ast.AST) -> str:
    what = _UNSUPPORTED.get(type(node), f"'{type(node).__name__}' is")
    instead = _INSTEAD.get(type(node))
    return f"{what} not supported in kernels" + (f"; {instead}" if instead else "")


def build_module(
    fn: JITFunction,
    params: Sequence[tuple[str, Attribute]],
    constants: dict[str, Any],
    policy: str,
    divisibility: Sequence[int | None] = (),
    tuples: dict[str, Any] | None = None,
) -> ModuleOp:
    """The loose blk IR of kernel `fn` with runtime parameters `params` (name, type) and
    the compile-time values `constants` of the others; `divisibility` as
    `IRBuilder.begin_kernel` takes it (ints specialised as multiples of 16); `tuples`: the
    tuple arguments whose elements are the parameters and constants ``name.0`` ...
    (`jitfunction._TupleArg`), given to the kernel as tuples again."""
    parsed = parse_function(fn.fn)
    ir = IRBuilder(policy, parsed.filename)
    tree = parsed.tree
    with ir.located(tree.lineno + parsed.line_offset, tree.col_offset + 1 + parsed.col_offset):
        handles = ir.begin_kernel(fn.__name__, params, divisibility=divisibility)
    env: dict[str, Any] = dict(constants)
    env.update({name: tl.tensor(h) for (name, _), h in zip(params, handles, strict=True)})
    generator = CodeGenerator(ir, parsed, env)
    with ir.located(tree.lineno + parsed.line_offset, tree.col_offset + 1 + parsed.col_offset):
        for name, shape in (tuples or {}).items():
            generator.env[name] = shape.rebuild(generator.env, generator)
    generator.run(tree.body)
    if generator.env.get(_RETURN) is not None:
        raise error_at(
            SourceLocation(parsed.filename, tree.lineno + parsed.line_offset, 1),
            f"kernel '{fn.__name__}' returns a value; kernels write their results through "
            "pointers (only helper functions return values)",
        )
    ir.end_kernel()
    return ir.module
