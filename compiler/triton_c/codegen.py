"""Loose blk IR from a Triton-C kernel, through the shared `IRBuilder`.

Variables live in a scoped symbol table of (current SSA value, declared type and shape);
assignment converts to the declared type and broadcasts to the declared shape, as C
converts on assignment, so a variable keeps one IR type for its whole life. A variable
assigned inside a loop or a branch is carried through the `scf` op (found syntactically
before the body is built). Constant subexpressions fold with C's arithmetic into one weak
literal, whose dtype the promotion policy decides where it meets typed values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, SSAValue

from blkc import dtypes
from blkc.broadcasting import BroadcastError, broadcast_shapes
from blkc.diagnostics import BlkcError, Diagnostic
from blkc.dialects import blk
from blkc.dialects.types import PtrType, WeakType, dtype_of, element_type, shape_of
from blkc.frontend.builder import IRBuilder
from blkc.triton_c.lexer import Token, error
from blkc.triton_c.syntax import (
    Assign,
    Binary,
    Call,
    Cast,
    Compound,
    CType,
    Decl,
    Deref,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Name,
    Range,
    Return,
    Step,
    Stmt,
    Subscript,
    Ternary,
    Unary,
    While,
    fold,
    fold_binary,
)

CONSTANTS: dict[str, float] = {
    "INFINITY": math.inf,
    "F32_INFINITY": math.inf,
    "NAN": math.nan,
}
"""The constants of C's math.h (and Triton-C's `F32_INFINITY`), as weak float literals."""

ARITHMETIC = {"+": "add", "-": "sub", "*": "mul", "&": "and", "|": "or", "^": "xor",
              "<<": "shl", ">>": "shr"}
COMPARISONS = {"<": "lt", ">": "gt", "<=": "le", ">=": "ge", "==": "eq", "!=": "ne"}
REDUCTIONS = {"+": "sum", "max": "max", "min": "min"}
C_NAN = "num"
"""``min``, ``max`` and ``x[max]``, ``x[min]`` skip NaN as C's ``fmin``/``fmax`` do, under
every policy (the IR says ``nan = num``)."""
MATH_FUNCTIONS = ("exp", "log", "sqrt", "exp2", "log2", "sin", "cos", "tanh", "rsqrt",
                  "floor", "ceil", "erf")
"""Float functions, also under C's float names (`expf`, `sqrtf`, ...)."""
ATOMICS = ("add", "max", "min", "and", "or", "xor", "xchg")
HALF_TYPES = (dtypes.float16, dtypes.bfloat16)


@dataclass
class Variable:
    name: str
    type: CType
    shape: tuple[int, ...]
    value: SSAValue


def generate(function: Function, policy: str, filename: str) -> ModuleOp:
    """A module holding `function` as a `blk.kernel` in loose blk IR."""
    return _Generator(policy, filename).kernel(function)


class _Generator:
    def __init__(self, policy: str, filename: str):
        self.b = IRBuilder(policy, filename)
        self.scopes: list[dict[str, Variable]] = []

    # -- locations and errors ------------------------------------------------------------

    def at(self, token: Token) -> None:
        self.b.at(token.loc.line, token.loc.col)

    # -- kernels and variables -----------------------------------------------------------

    def kernel(self, function: Function) -> ModuleOp:
        self.at(function.token)
        types = [(p.name, _xdsl_type(p.type)) for p in function.params]
        args = self.b.begin_kernel(function.name, types, divisibility=_divisibility(function))
        self.scopes.append({})
        for param, arg in zip(function.params, args, strict=True):
            self.declare(param.token, Variable(param.name, param.type, (), arg))
        body = function.body.body
        for index, stmt in enumerate(body):
            if isinstance(stmt, Return) and index == len(body) - 1:
                break  # a final `return;` ends the kernel as its closing brace does
            self.statement(stmt)
        self.b.end_kernel()
        return self.b.module

    def declare(self, token: Token, variable: Variable) -> None:
        scope = self.scopes[-1]
        if variable.name in scope:
            raise error(token, f"redefinition of '{variable.name}'")
        scope[variable.name] = variable

    def lookup(self, token: Token, name: str) -> Variable:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name == "newaxis":
            raise error(token, "'newaxis' is only meaningful in brackets, as in x[:, newaxis]")
        raise error(token, f"use of undeclared identifier '{name}'")

    def visible(self, names: Iterable[str]) -> list[Variable]:
        found: list[Variable] = []
        for name in names:
            for scope in reversed(self.scopes):
                if name in scope:
                    found.append(scope[name])
                    break
        return found

    def convert(self, token: Token, value: SSAValue, variable: Variable, verb: str) -> SSAValue:
        """`value` converted to `variable`'s declared type and broadcast to its shape."""
        target = _describe(variable.type, variable.shape)
        is_pointer = isinstance(element_type(value.type), PtrType)
        if variable.type.pointer != is_pointer:
            raise error(token, f"cannot {verb} '{variable.name}' ({target}) with "
                        f"{'a pointer' if is_pointer else 'a value'} ({self.describe(value)})")
        if is_pointer:
            pointee = element_type(value.type).pointee  # type: ignore[attr-defined]
            if variable.type.dtype is None or pointee != variable.type.dtype.xdsl:
                raise error(token, f"cannot {verb} '{variable.name}' ({target}) with an "
                            f"incompatible pointer ({self.describe(value)}); cast it first")
        else:
            assert variable.type.dtype is not None
            self.at(token)
            value = _cast(self.b, value, variable.type.dtype)
        shape = shape_of(value.type)
        try:
            fits = broadcast_shapes(shape, variable.shape) == variable.shape
        except BroadcastError:
            fits = False
        if not fits:
            raise error(token, f"cannot {verb} '{variable.name}' ({target}) with a block of "
                        f"shape {_dims(shape)}")
        self.at(token)
        return self.b.broadcast_to(value, variable.shape)

    def describe(self, value: SSAValue) -> str:
        """A value's type as C spells it: `float[16, 16]`, `int*`, `literal`."""
        elem = element_type(value.type)
        if isinstance(elem, WeakType):
            return f"{elem.kind} literal"
        if isinstance(elem, PtrType):
            ctype = CType(dtypes.from_xdsl(elem.pointee), pointer=True)
        else:
            ctype = CType(dtypes.from_xdsl(elem))
        return _describe(ctype, shape_of(value.type))

    # -- statements ----------------------------------------------------------------------

    def statement(self, stmt: Stmt) -> None:
        match stmt:
            case Compound(body=body):
                self.scopes.append({})
                for inner in body:
                    if isinstance(inner, Return):
                        raise error(inner.token, _RETURN)
                    self.statement(inner)
                self.scopes.pop()
            case Decl():
                self.declaration(stmt)
            case ExprStmt(expr=expr):
                self.effect(expr)
            case If():
                self.if_statement(stmt)
            case While():
                self.while_statement(stmt)
            case For():
                self.for_statement(stmt)
            case Return():
                raise error(stmt.token, _RETURN)

    def nested(self, stmt: Stmt) -> None:
        """A statement in a scope of its own (a loop body or a branch)."""
        self.scopes.append({})
        self.statement(stmt)
        self.scopes.pop()

    def declaration(self, decl: Decl) -> None:
        for d in decl.declarators:
            value = self.expr(d.init) if d.init is not None else None
            if value is None:
                self.at(d.token)
                value = self.b.literal(0)  # blkc zero-initializes variables
            variable = Variable(d.name, d.type, d.shape, value)
            variable.value = self.convert(d.token, value, variable, "initialize")
            self.declare(d.token, variable)

    def effect(self, expr: Expr) -> None:
        """An expression statement: an assignment, a store, a step, or a call."""
        match expr:
            case Assign(op=op, target=target, value=rhs):
                if isinstance(target, Deref):
                    self.store(expr, target, op, rhs)
                    return
                if not isinstance(target, Name):
                    raise error(expr.token, "cannot assign to this expression: assign to a "
                                "variable, or store through a pointer with '*p = value'")
                variable = self.lookup(target.token, target.id)
                value = self.compound_value(expr, variable.value, op, rhs)
                variable.value = self.convert(expr.token, value, variable, "assign to")
            case Step(op=op, target=target):
                if not isinstance(target, Name):
                    raise error(expr.token, f"'{op}' applies to a variable")
                variable = self.lookup(target.token, target.id)
                self.at(expr.token)
                value = self.binary(expr.token, op[0], variable.value, self.b.literal(1))
                variable.value = self.convert(expr.token, value, variable, "assign to")
            case _:
                self.expr(expr)

    def compound_value(self, assign: Assign, current: SSAValue, op: str, rhs: Expr) -> SSAValue:
        if op == "=":
            return self.expr(rhs)
        if op == "+=" and isinstance(rhs, Binary) and rhs.op == "@":
            return self.accumulating_dot(assign, rhs, current)
        value = self.expr(rhs)
        self.at(assign.token)
        return self.binary(assign.token, op[:-1], current, value)

    def accumulating_dot(self, assign: Assign, product: Binary, acc: SSAValue) -> SSAValue:
        """``acc += a @ b``: one dot accumulating into `acc` when that computes what the
        sum would (a float32 accumulator and float operands no wider), else the sum."""
        lhs, rhs = self.expr(product.lhs), self.expr(product.rhs)
        operands = {dtype_of(lhs.type), dtype_of(rhs.type)}
        if dtype_of(acc.type) == dtypes.float32 and operands <= {*HALF_TYPES, dtypes.float32}:
            self.at(product.token)
            return self.b.dot(lhs, rhs, acc)
        value = self.finish_binary(product, lhs, rhs)
        self.at(assign.token)
        return self.binary(assign.token, "+", acc, value)

    def store(self, assign: Assign, target: Deref, op: str, rhs: Expr) -> None:
        pointer = self.expr(target.pointer)
        mask = self.expr(target.mask) if target.mask is not None else None
        value = self.expr(rhs)
        self.at(assign.token)
        if op != "=":
            value = self.binary(assign.token, op[:-1], self.b.load(pointer, mask), value)
        pointee = element_type(pointer.type)
        if not isinstance(pointee, PtrType):
            raise error(target.token, f"cannot store through {self.describe(pointer)}: it is "
                        "not a pointer")
        value = _cast(self.b, value, dtypes.from_xdsl(pointee.pointee))  # C converts on store
        self.b.store(pointer, value, mask)

    # -- control flow --------------------------------------------------------------------

    def carried(self, *stmts: Stmt | Expr | None) -> list[Variable]:
        return self.visible(assigned_names(stmts))

    def if_statement(self, stmt: If) -> None:
        cond = self.expr(stmt.cond)
        variables = self.carried(stmt.then, stmt.other)
        before = [v.value for v in variables]

        def branch(body: Stmt | None) -> Callable[[], list[SSAValue]]:
            def build() -> list[SSAValue]:
                for variable, value in zip(variables, before, strict=True):
                    variable.value = value
                if body is not None:
                    self.nested(body)
                return [v.value for v in variables]

            return build

        self.at(stmt.token)
        results = self.b.if_else(
            cond, branch(stmt.then), branch(stmt.other), [v.name for v in variables]
        )
        _rebind(variables, results)

    def while_statement(self, stmt: While) -> None:
        self.loop(stmt.token, stmt.cond, stmt.body, None)

    def loop(self, token: Token, cond: Expr | None, body: Stmt, step: Expr | None) -> None:
        """``while (cond) { body; step; }`` as an scf.while carrying what they assign."""
        variables = self.carried(body, step)

        def test(values: list[SSAValue]) -> SSAValue:
            _rebind(variables, values)
            if cond is None:
                self.at(token)
                return self.b.literal(True)
            return self.expr(cond)

        def iteration(values: list[SSAValue]) -> list[SSAValue]:
            _rebind(variables, values)
            self.nested(body)
            if step is not None:
                self.effect(step)
            return [v.value for v in variables]

        self.at(token)
        inits = [v.value for v in variables]
        results = self.b.while_loop(inits, test, iteration, [v.name for v in variables])
        _rebind(variables, results)

    def for_statement(self, stmt: For) -> None:
        self.scopes.append({})
        counted = _counted_loop(stmt)
        if counted is None:
            if stmt.init is not None:
                self.statement(stmt.init)
            self.loop(stmt.token, stmt.cond, stmt.body, stmt.step)
        else:
            self.counted_loop(stmt, *counted)
        self.scopes.pop()

    def counted_loop(self, stmt: For, decl: Decl, upper: Expr, inclusive: bool,
                     step: int) -> None:
        """``for (int i = a; i < b; i += c)`` with a constant c > 0, a body that does not
        assign i, and a bound it does not change: an scf.for."""
        d = decl.declarators[0]
        assert d.init is not None and d.type.dtype is not None
        index_type = d.type.dtype
        lower = self.expr(d.init)
        self.at(d.token)
        lower = _cast(self.b, lower, index_type)
        end = self.expr(upper)
        self.at(stmt.token)
        if inclusive:
            end = self.binary(stmt.token, "+", end, self.b.literal(1))
        if self.b.is_weak(end):
            end = _cast(self.b, end, index_type)
        variables = self.carried(stmt.body)

        def iteration(index: SSAValue, values: list[SSAValue]) -> list[SSAValue]:
            _rebind(variables, values)
            self.scopes.append({})
            self.at(d.token)
            counter = Variable(d.name, d.type, (), self.b.cast(index, index_type))
            self.declare(d.token, counter)
            self.nested(stmt.body)
            self.scopes.pop()
            return [v.value for v in variables]

        self.at(stmt.token)
        inits = [v.value for v in variables]
        step_value = self.b.constant(step, index_type)
        results = self.b.for_loop(lower, end, step_value, inits, iteration,
                                  [v.name for v in variables])
        _rebind(variables, results)

    # -- expressions ---------------------------------------------------------------------

    def expr(self, expr: Expr) -> SSAValue:
        """The value of `expr`; an error the builder raises at its position gets the
        notes of the macros it came from."""
        self.at(expr.token)
        # Casts of constants stay casts: `(half)0.1` is a half, not a weak literal.
        constant = fold(expr, CONSTANTS, casts=False)
        if constant is not None:
            return self.b.literal(constant)
        try:
            return self.value(expr)
        except BlkcError as err:
            raise _with_expansions(err, expr.token) from None

    def value(self, expr: Expr) -> SSAValue:
        match expr:
            case Name(id=name):
                return self.lookup(expr.token, name).value
            case Unary(op=op, operand=operand):
                return self.unary(expr.token, op, self.expr(operand))
            case Binary():
                return self.finish_binary(expr, self.expr(expr.lhs), self.expr(expr.rhs))
            case Range(start=start, end=end):
                bounds = [fold(e, CONSTANTS) for e in (start, end)]
                for bound, e in zip(bounds, (start, end), strict=True):
                    if not isinstance(bound, int):
                        raise error(e.token, "the bounds of a range 'start ... end' must be "
                                    "integer constants (literals or macros)")
                self.at(expr.token)
                return self.b.arange(*bounds)  # type: ignore[arg-type]
            case Ternary():
                return self.ternary(expr)
            case Call():
                return self.call(expr)
            case Cast(type=ctype, operand=operand):
                value = self.expr(operand)
                self.at(expr.token)
                if ctype.pointer:
                    raise error(expr.token, "pointer casts are not supported")
                assert ctype.dtype is not None
                return _cast(self.b, value, ctype.dtype)
            case Deref(pointer=pointer, mask=mask):
                ptr = self.expr(pointer)
                mask_value = self.expr(mask) if mask is not None else None
                self.at(expr.token)
                return self.b.load(ptr, mask_value)  # masked-off lanes load zero
            case Subscript():
                return self.subscript(expr)
            case Assign() | Step():
                raise error(expr.token, f"'{expr.op}' inside an expression is not supported: "
                            "write the assignment as a statement of its own")
        raise AssertionError(expr)

    def unary(self, token: Token, op: str, value: SSAValue) -> SSAValue:
        self.at(token)
        match op:
            case "-":
                return self.b.unary("neg", value)
            case "+":
                return value
            case "!":
                return self.b.unary("not", self.b.to_bool(value))
            case "~":
                if not _integral(value):
                    raise error(token, f"'~' needs an integer operand, got {self.describe(value)}")
                return self.b.unary("not", value)
        shape = shape_of(value.type)
        if len(shape) != 2:
            raise error(token, f"'^' transposes a 2-D block, got {self.describe(value)}")
        return self.b.permute(value, [1, 0])

    def finish_binary(self, expr: Binary, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        self.at(expr.token)
        return self.binary(expr.token, expr.op, lhs, rhs)

    def binary(self, token: Token, op: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        b = self.b
        left, right = b.literal_value(lhs), b.literal_value(rhs)
        if left is not None and right is not None:
            return b.literal(fold_binary(op, left, right, token))
        pointers = [isinstance(element_type(v.type), PtrType) for v in (lhs, rhs)]
        if any(pointers):
            return self.pointer_arithmetic(token, op, lhs, rhs, pointers[0])
        if op in COMPARISONS:
            return b.compare(COMPARISONS[op], lhs, rhs)
        if op in ("&&", "||"):
            return b.binary("and" if op == "&&" else "or", b.to_bool(lhs), b.to_bool(rhs))
        if op == "@":
            return self.dot(lhs, rhs)
        if op in ("/", "%"):
            return self.divide(op, lhs, rhs)
        return b.binary(ARITHMETIC[op], lhs, rhs)

    def pointer_arithmetic(
        self, token: Token, op: str, lhs: SSAValue, rhs: SSAValue, left_is_pointer: bool
    ) -> SSAValue:
        pointer, offset = (lhs, rhs) if left_is_pointer else (rhs, lhs)
        if op == "+" or (op == "-" and left_is_pointer):
            if isinstance(element_type(offset.type), PtrType):
                raise error(token, f"cannot {'add' if op == '+' else 'subtract'} two pointers")
            if op == "-":
                offset = self.unary(token, "-", offset)
            return self.b.addptr(pointer, offset)
        raise error(token, f"'{op}' does not apply to pointers ({self.describe(lhs)} and "
                    f"{self.describe(rhs)}); pointers take '+' and '-' with an integer offset")

    def divide(self, op: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """C's `/` and `%`: integer operands truncate toward zero; `/` on floats divides
        exactly; `%` on floats is fmod (C has it as a function only)."""
        if op == "/" and not (_integral(lhs) and _integral(rhs)):
            return self.b.binary("truediv", lhs, rhs)
        cls = blk.FloorDivOp if op == "/" else blk.ModOp
        trunc = {"rounding": blk.RoundingAttr(blk.Rounding("trunc"))}
        return self.b.elementwise(cls, [lhs, rhs], trunc)

    def dot(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """``a @ b``; half-precision operands accumulate in float, as in Triton-C."""
        half = dtype_of(lhs.type) in HALF_TYPES and dtype_of(rhs.type) in HALF_TYPES
        return self.b.dot(lhs, rhs, out_dtype=dtypes.float32 if half else None)

    def ternary(self, expr: Ternary) -> SSAValue:
        """``c ? a : b`` elementwise; ``mask ? *p : other`` is a masked load with a fill
        value (and so is ``mask ? other : *p`` with the mask negated)."""
        b = self.b
        then_load, other_load = isinstance(expr.then, Deref), isinstance(expr.other, Deref)
        if then_load != other_load:
            load, fill = (expr.then, expr.other) if then_load else (expr.other, expr.then)
            assert isinstance(load, Deref)
            cond = self.expr(expr.cond)
            self.at(expr.token)
            mask = b.to_bool(cond) if then_load else b.unary("not", b.to_bool(cond))
            pointer = self.expr(load.pointer)
            if load.mask is not None:
                inner = self.expr(load.mask)
                self.at(expr.token)
                mask = b.binary("and", mask, b.to_bool(inner))
            other = self.expr(fill)
            self.at(load.token)
            return b.load(pointer, mask, other)
        cond, then, other = (self.expr(e) for e in (expr.cond, expr.then, expr.other))
        self.at(expr.token)
        return b.where(cond, then, other)

    def subscript(self, expr: Subscript) -> SSAValue:
        """``x[:, newaxis]`` adds axes; ``x[:, +]`` (also ``max``, ``min``) reduces one."""
        base = self.expr(expr.base)
        self.at(expr.token)
        for item in expr.items:
            if not isinstance(item, str):
                if isinstance(element_type(base.type), PtrType):
                    raise error(item.token, "Triton-C does not index pointers: dereference "
                                "an offset pointer instead, as in *(p + i)")
                raise error(item.token, "slicing a block to sub-blocks or scalars is not "
                            "supported in Triton-C: brackets take ':', 'newaxis' and the "
                            "reductions '+', 'max', 'min'")
        shape = shape_of(base.type)
        items: list[str] = expr.items  # type: ignore[assignment]
        axes = [i for i, item in enumerate(items) if item in REDUCTIONS]
        if not shape:
            raise error(expr.token, f"brackets apply to blocks, got {self.describe(base)}")
        if axes:
            if len(axes) > 1 or "newaxis" in items:
                raise error(expr.token, "a subscript reduces one axis, and cannot add axes "
                            "at the same time")
            if len(items) > len(shape):
                raise error(expr.token, f"{len(items)} subscripts for a block of rank "
                            f"{len(shape)} ({self.describe(base)})")
            kind = REDUCTIONS[items[axes[0]]]
            return self.b.reduce(kind, base, axes[0], None if kind == "sum" else C_NAN)
        kept = items.count(":")
        if kept > len(shape):
            raise error(expr.token, f"{kept} ':' for a block of rank {len(shape)} "
                        f"({self.describe(base)})")
        for axis, item in enumerate(items):
            if item == "newaxis":
                base = self.b.expand_dims(base, axis)
        return base

    # -- built-in functions ----------------------------------------------------------------

    def call(self, expr: Call) -> SSAValue:
        name, token = expr.name, expr.token
        math_name = name[:-1] if name.endswith("f") and name[:-1] in MATH_FUNCTIONS else name
        if name in ("get_program_id", "get_num_programs"):
            (arg,) = self.arguments(expr, 1)
            axis = fold(arg, CONSTANTS)
            if not isinstance(axis, int):
                raise error(arg.token, f"the axis of {name} must be an integer constant")
            self.at(token)
            grid = self.b.program_id if name == "get_program_id" else self.b.num_programs
            return grid(axis)
        if math_name in MATH_FUNCTIONS:
            (arg,) = self.arguments(expr, 1)
            value = self.expr(arg)
            self.at(token)
            return self.b.unary(math_name, value)
        if name in ("min", "max"):
            lhs, rhs = (self.expr(a) for a in self.arguments(expr, 2))
            self.at(token)
            return self.b.extremum("minimum" if name == "min" else "maximum", lhs, rhs, C_NAN)
        if name == "select":
            cond, a, b = (self.expr(a) for a in self.arguments(expr, 3))
            self.at(token)
            return self.b.where(cond, a, b)
        if name == "atomic_cas":
            pointer, cmp, value = (self.expr(a) for a in self.arguments(expr, 3))
            self.at(token)
            return self.b.atomic_cas(pointer, cmp, value)
        if name.startswith("atomic_") and name[7:] in ATOMICS:
            args = [self.expr(a) for a in self.arguments(expr, 2, 3)]
            self.at(token)
            return self.b.atomic_rmw(name[7:], *args)
        functions = ", ".join(sorted(("get_program_id", "get_num_programs", "min", "max",
                                      "select", "atomic_cas", *(f"atomic_{k}" for k in ATOMICS),
                                      *MATH_FUNCTIONS)))
        raise error(token, f"unknown function '{name}': Triton-C kernels call only the "
                    f"built-in functions ({functions})")

    def arguments(self, expr: Call, count: int, most: int | None = None) -> list[Expr]:
        most = count if most is None else most
        if not count <= len(expr.args) <= most:
            wanted = str(count) if most == count else f"{count} or {most}"
            raise error(expr.token, f"'{expr.name}' takes {wanted} argument"
                        f"{'' if wanted == '1' else 's'}, got {len(expr.args)}")
        return expr.args


_RETURN = "'return' is only supported as the last statement of a kernel"


def _cast(b: IRBuilder, value: SSAValue, dtype: dtypes.DType) -> SSAValue:
    """`value` converted to `dtype`; a weak literal becomes a constant, replacing it."""
    converted = b.cast(value, dtype)
    owner = value.owner
    if converted is not value and isinstance(owner, blk.LiteralOp) and not value.uses:
        owner.detach()
        owner.erase()
    return converted


def _xdsl_type(ctype: CType) -> Attribute:
    assert ctype.dtype is not None
    return PtrType(ctype.dtype.xdsl) if ctype.pointer else ctype.dtype.xdsl


def _dims(shape: Sequence[int]) -> str:
    return f"[{', '.join(str(d) for d in shape)}]"


def _describe(ctype: CType, shape: Sequence[int]) -> str:
    return f"{ctype}{_dims(shape) if shape else ''}"


def _integral(value: SSAValue) -> bool:
    elem = element_type(value.type)
    if isinstance(elem, WeakType):
        return elem.kind in ("int", "bool")
    dtype = dtype_of(value.type)
    return dtype is not None and (dtype.is_int or dtype.is_bool)


def _rebind(variables: Sequence[Variable], values: Sequence[SSAValue]) -> None:
    for variable, value in zip(variables, values, strict=True):
        variable.value = value


def _with_expansions(err: BlkcError, token: Token) -> BlkcError:
    """`err` with the macro notes of `token`, when it is located at `token` without notes."""
    first = err.diagnostics[0]
    if not token.expansions or first.notes or first.location != token.loc:
        return err
    notes = [(where, f"expanded from macro '{name}'") for name, where in token.expansions]
    located = Diagnostic(first.severity, first.message, first.location, notes)
    return BlkcError([located, *err.diagnostics[1:]])


# -- which variables a statement assigns -------------------------------------------------


def assigned_names(nodes: Iterable[Stmt | Expr | None]) -> list[str]:
    """The variables that `nodes` assign but do not declare (in order of first
    assignment): those a loop or a branch must carry out."""
    found: dict[str, None] = {}
    _Assignments(found).visit_all(nodes, [set()])
    return list(found)


class _Assignments:
    def __init__(self, found: dict[str, None]):
        self.found = found

    def visit_all(self, nodes: Iterable[Stmt | Expr | None], scopes: list[set[str]]) -> None:
        for node in nodes:
            self.visit(node, scopes)

    def visit(self, node: Stmt | Expr | None, scopes: list[set[str]]) -> None:
        match node:
            case Compound(body=body):
                self.visit_all(body, [*scopes, set()])
            case Decl(declarators=declarators):
                for d in declarators:
                    scopes[-1].add(d.name)
            case ExprStmt(expr=expr):
                self.visit(expr, scopes)
            case Assign(target=Name(id=name)) | Step(target=Name(id=name)):
                if not any(name in scope for scope in scopes):
                    self.found.setdefault(name)
            case If(then=then, other=other):
                self.visit(then, [*scopes, set()])
                self.visit(other, [*scopes, set()])
            case While(body=body):
                self.visit(body, [*scopes, set()])
            case For(init=init, step=step, body=body):
                inner = [*scopes, set()]
                self.visit_all((init, step), inner)
                self.visit(body, [*inner, set()])


def _counted_loop(stmt: For) -> tuple[Decl, Expr, bool, int] | None:
    """(declaration, bound, inclusive, step) when `stmt` counts up over a variable it
    declares: ``for (int i = a; i < b; i += c)`` (or ``<=``, ``i++``, ``++i``,
    ``i = i + c``) with c a positive constant and a body that assigns neither i nor what
    b reads."""
    init, cond, step = stmt.init, stmt.cond, stmt.step
    if not isinstance(init, Decl) or len(init.declarators) != 1:
        return None
    d = init.declarators[0]
    if d.shape or d.type.pointer or d.init is None or d.type.dtype is None:
        return None
    if not (d.type.dtype.is_int and d.type.dtype.signed):
        return None
    if not (isinstance(cond, Binary) and cond.op in ("<", "<=") and _is_name(cond.lhs, d.name)):
        return None
    increment: int | float | None = None
    match step:
        case Step(op="++", target=target) if _is_name(target, d.name):
            increment = 1
        case Assign(op="+=", target=target, value=value) if _is_name(target, d.name):
            increment = fold(value, CONSTANTS)
        case Assign(op="=", target=target, value=Binary(op="+", lhs=lhs, rhs=value)) if (
            _is_name(target, d.name) and _is_name(lhs, d.name)
        ):
            increment = fold(value, CONSTANTS)
    if not isinstance(increment, int) or increment <= 0:
        return None
    changed = set(assigned_names([stmt.body]))
    if d.name in changed or changed & _names_read(cond.rhs):
        return None
    return init, cond.rhs, cond.op == "<=", increment


def _is_name(expr: Expr, name: str) -> bool:
    return isinstance(expr, Name) and expr.id == name


def _names_read(expr: Expr | None) -> set[str]:
    match expr:
        case Name(id=name):
            return {name}
        case None:
            return set()
        case Unary(operand=a) | Cast(operand=a) | Step(target=a):
            return _names_read(a)
        case Binary(lhs=a, rhs=b) | Range(start=a, end=b) | Assign(target=a, value=b):
            return _names_read(a) | _names_read(b)
        case Ternary(cond=a, then=b, other=c):
            return _names_read(a) | _names_read(b) | _names_read(c)
        case Call(args=args):
            return set().union(*(_names_read(a) for a in args))
        case Deref(pointer=a, mask=b):
            return _names_read(a) | _names_read(b)
        case Subscript(base=a, items=items):
            return _names_read(a).union(*(_names_read(i) for i in items if isinstance(i, Expr)))
    return set()


def _divisibility(function: Function) -> list[int | None]:
    """Each parameter's `__multipleof(N)` (ints) or `__aligned(N)` (pointers, in bytes) as
    the largest power of two dividing N, for the GPU lowering; None without a hint."""
    found: list[int | None] = []
    for param in function.params:
        amount = param.attributes.get("__multipleof") or param.attributes.get("__aligned")
        found.append(amount & -amount if amount else None)
    return found
