"""The Triton-C syntax tree the parser builds and the code generator walks, and C's
arithmetic on constants (shared by `#if`, block dimensions and literal folding)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from blkc import dtypes
from blkc.dtypes import DType
from blkc.triton_c.lexer import Token, error

# -- types -------------------------------------------------------------------------------

TYPEDEF_NAMES: dict[str, DType] = {
    "int8": dtypes.int8,
    "int16": dtypes.int16,
    "int32": dtypes.int32,
    "int64": dtypes.int64,
    "uint8": dtypes.uint8,
    "uint16": dtypes.uint16,
    "uint32": dtypes.uint32,
    "uint64": dtypes.uint64,
    "bf16": dtypes.bfloat16,
    "fp16": dtypes.float16,
    "fp32": dtypes.float32,
    "fp64": dtypes.float64,
    "half": dtypes.float16,
    "float": dtypes.float32,
    "double": dtypes.float64,
    "bool": dtypes.bool_,
}
"""Type names that stand alone (Triton-C's typedefs and the float and bool types)."""

INTEGER_WORDS = ("char", "short", "int", "long", "signed", "unsigned")
"""The words that combine into C's integer types (`unsigned long int`)."""

QUALIFIERS = ("const", "volatile", "restrict", "__restrict", "__restrict__")


@dataclass(frozen=True)
class CType:
    """A C type: a dtype (None for void) or a pointer to one."""

    dtype: DType | None
    pointer: bool = False

    def __str__(self) -> str:
        base = "void" if self.dtype is None else C_NAMES.get(self.dtype, self.dtype.name)
        return base + ("*" if self.pointer else "")


C_NAMES: dict[DType, str] = {
    dtypes.bool_: "bool",
    dtypes.int8: "char",
    dtypes.int16: "short",
    dtypes.int32: "int",
    dtypes.int64: "long",
    dtypes.uint8: "unsigned char",
    dtypes.uint16: "unsigned short",
    dtypes.uint32: "unsigned int",
    dtypes.uint64: "unsigned long",
    dtypes.float16: "half",
    dtypes.bfloat16: "bf16",
    dtypes.float32: "float",
    dtypes.float64: "double",
}
"""How messages spell each dtype: as C does."""


def integer_type(words: list[str], where: Token) -> DType:
    """The dtype of C integer words (`unsigned`, `long long`, `short int`, ...)."""
    unsigned = "unsigned" in words
    if unsigned and "signed" in words:
        raise error(where, "a type cannot be both signed and unsigned")
    width = 32
    if "char" in words:
        width = 8
    elif "short" in words:
        width = 16
    elif "long" in words:
        width = 64
    return dtypes.dtype(f"{'u' if unsigned else ''}int{width}")


# -- expressions -------------------------------------------------------------------------


@dataclass
class Expr:
    token: Token
    """Where the expression is reported: its operator, or its only token."""


@dataclass
class Number(Expr):
    value: int | float


@dataclass
class Name(Expr):
    id: str


@dataclass
class Unary(Expr):
    op: str
    """'-', '+', '!', '~' or '^' (transpose)."""
    operand: Expr


@dataclass
class Binary(Expr):
    op: str
    lhs: Expr
    rhs: Expr


@dataclass
class Range(Expr):
    """``start ... end``."""

    start: Expr
    end: Expr


@dataclass
class Ternary(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass
class Call(Expr):
    name: str
    args: list[Expr]


@dataclass
class Cast(Expr):
    type: CType
    operand: Expr


@dataclass
class Deref(Expr):
    """``*p``, or ``*?(mask)p`` when `mask` is given."""

    pointer: Expr
    mask: Expr | None = None


@dataclass
class Subscript(Expr):
    """``x[items]``: each item is ':', 'newaxis', a reduction ('+', 'max', 'min'), or an
    index expression (which Triton-C refuses)."""

    base: Expr
    items: list[str | Expr]


@dataclass
class Assign(Expr):
    """``target op value`` with op '=' or a compound ('+=', ...)."""

    op: str
    target: Expr
    value: Expr


@dataclass
class Step(Expr):
    """``++x``, ``x++``, ``--x``, ``x--`` (op '++' or '--')."""

    op: str
    target: Expr


# -- statements --------------------------------------------------------------------------


@dataclass
class Stmt:
    token: Token


@dataclass
class Declarator:
    """``T name[D0, D1] = init`` (a scalar when `shape` is empty)."""

    token: Token
    type: CType
    name: str
    shape: tuple[int, ...]
    init: Expr | None


@dataclass
class Decl(Stmt):
    declarators: list[Declarator]


@dataclass
class ExprStmt(Stmt):
    expr: Expr


@dataclass
class Compound(Stmt):
    body: list[Stmt]


@dataclass
class If(Stmt):
    cond: Expr
    then: Stmt
    other: Stmt | None


@dataclass
class For(Stmt):
    init: Stmt | None
    cond: Expr | None
    step: Expr | None
    body: Stmt


@dataclass
class While(Stmt):
    cond: Expr
    body: Stmt


@dataclass
class Return(Stmt):
    pass


@dataclass
class Param:
    token: Token
    type: CType
    name: str
    attributes: dict[str, int | None] = field(default_factory=dict)
    """Hints such as `__noalias` (None) or `__aligned` (16): accepted, not needed."""


@dataclass
class Function:
    token: Token
    name: str
    params: list[Param]
    body: Compound
    is_global: bool


# -- C arithmetic on constants -----------------------------------------------------------

Constant = int | float


def fold_unary(op: str, value: Constant, where: Token) -> Constant:
    """C's unary `op` on a constant."""
    match op:
        case "-":
            return -value
        case "+":
            return value
        case "!":
            return int(not value)
        case "~" if isinstance(value, int):
            return ~value
    raise error(where, f"'{op}' does not apply to the constant {value!r}")


def fold_binary(op: str, lhs: Constant, rhs: Constant, where: Token) -> Constant:
    """C's binary `op` on constants: integer `/` and `%` truncate toward zero."""
    integers = isinstance(lhs, int) and isinstance(rhs, int)
    match op:
        case "+":
            return lhs + rhs
        case "-":
            return lhs - rhs
        case "*":
            return lhs * rhs
        case "/" | "%":
            if rhs == 0:
                if integers:
                    raise error(where, "division by zero in a constant expression")
                return _float_division_by_zero(op, lhs)
            if not integers:
                return lhs / rhs if op == "/" else math.fmod(lhs, rhs)
            quotient = abs(lhs) // abs(rhs) * (1 if (lhs < 0) == (rhs < 0) else -1)
            return quotient if op == "/" else lhs - quotient * rhs
        case "<" | ">" | "<=" | ">=" | "==" | "!=":
            return int(
                {"<": lhs < rhs, ">": lhs > rhs, "<=": lhs <= rhs, ">=": lhs >= rhs,
                 "==": lhs == rhs, "!=": lhs != rhs}[op]
            )
        case "&&":
            return int(bool(lhs) and bool(rhs))
        case "||":
            return int(bool(lhs) or bool(rhs))
    if not integers:
        raise error(where, f"'{op}' needs integer operands, got {lhs!r} and {rhs!r}")
    assert isinstance(lhs, int) and isinstance(rhs, int)
    match op:
        case "&":
            return lhs & rhs
        case "|":
            return lhs | rhs
        case "^":
            return lhs ^ rhs
        case "<<" | ">>":
            if rhs < 0:
                raise error(where, f"shift by a negative amount ({rhs}) in a constant expression")
            return lhs << rhs if op == "<<" else lhs >> rhs
    raise error(where, f"'{op}' is not an operator on constants")


def _float_division_by_zero(op: str, lhs: float | int) -> float:
    if op == "%" or lhs == 0 or math.isnan(lhs):
        return math.nan
    return math.inf if lhs > 0 else -math.inf


def fold(
    expr: Expr, names: Mapping[str, Constant] | None = None, casts: bool = True
) -> Constant | None:
    """The value of a constant expression (literals, the constants `names`, operators and,
    if `casts`, casts on them), else None."""
    match expr:
        case Number(value=value):
            return value
        case Name(id=name) if names is not None and name in names:
            return names[name]
        case Unary(op=op, operand=operand) if op != "^":
            value = fold(operand, names, casts)
            return None if value is None else fold_unary(op, value, expr.token)
        case Binary(op=op, lhs=lhs, rhs=rhs) if op != "@":
            left, right = fold(lhs, names, casts), fold(rhs, names, casts)
            if left is None or right is None:
                return None
            return fold_binary(op, left, right, expr.token)
        case Ternary(cond=cond, then=then, other=other):
            test = fold(cond, names, casts)
            if test is None:
                return None
            return fold(then if test else other, names, casts)
        case Cast(type=CType(dtype=dtype, pointer=False), operand=operand) if (
            casts and dtype is not None
        ):
            value = fold(operand, names, casts)
            if value is None:
                return None
            if dtype.is_float:
                return float(value)
            if dtype.is_bool:
                return int(bool(value))
            wrapped = int(value) % (1 << dtype.width)  # C's conversion to a narrower int
            negative = dtype.signed and wrapped >> (dtype.width - 1)
            return wrapped - (1 << dtype.width) if negative else wrapped
    return None
