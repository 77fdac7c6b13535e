"""A recursive-descent parser from preprocessed Triton-C tokens to the syntax tree.

Precedence is C's, with Triton-C's two block operators between multiplication and the
unary operators: ``...`` binds tighter than ``@``, which binds tighter than ``*``, so
``pid * TM + 0 ... TM`` is ``(pid * TM) + (0 ... TM)``.
"""

from __future__ import annotations

from blkc.diagnostics import error_at
from blkc.triton_c.lexer import Kind, Token, error, number_value
from blkc.triton_c.syntax import (
    INTEGER_WORDS,
    QUALIFIERS,
    TYPEDEF_NAMES,
    Assign,
    Binary,
    Call,
    Cast,
    Compound,
    CType,
    Decl,
    Declarator,
    Deref,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Name,
    Number,
    Param,
    Range,
    Return,
    Step,
    Stmt,
    Subscript,
    Ternary,
    Unary,
    While,
    fold,
    integer_type,
)

BINARY_LEVELS: list[tuple[str, ...]] = [
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", ">", "<=", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
    ("@",),
]
"""C's binary operators from the loosest to the tightest, then Triton-C's `@`."""

ASSIGNMENTS = ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=")
REDUCTIONS = ("+", "max", "min")
PARAM_HINTS = ("__noalias", "__readonly", "__writeonly", "__aligned", "__multipleof")
HINTS_WITH_VALUE = ("__aligned", "__multipleof")
UNSUPPORTED_TYPES = {
    "struct": "structs are not supported in Triton-C",
    "union": "unions are not supported in Triton-C",
    "enum": "enums are not supported in Triton-C; use #define",
    "typedef": "typedef is not supported in Triton-C; use #define",
}
UNSUPPORTED_STATEMENTS = {
    "do": "do-while loops are not supported; use while",
    "switch": "switch is not supported; use if/else",
    "goto": "goto is not supported",
    "break": "break is not supported: blkc's loops run to their condition",
    "continue": "continue is not supported: blkc's loops run to their condition",
}


def parse_unit(tokens: list[Token]) -> list[Function]:
    """The functions of a preprocessed Triton-C file."""
    return Parser(tokens).unit()


def parse_constant(tokens: list[Token]) -> int | float:
    """The value of a constant expression (an `#if` condition)."""
    parser = Parser(tokens)
    expr = parser.expression()
    parser.expect_end()
    value = fold(expr)
    if value is None:
        raise error(expr.token, "expected a constant expression")
    return value


class Parser:
    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.pos = 0

    # -- token helpers ---------------------------------------------------------------------

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def next(self) -> Token:
        token = self.tok
        if token.kind is not Kind.EOF:
            self.pos += 1
        return token

    def accept(self, *texts: str) -> Token | None:
        return self.next() if self.tok.is_(*texts) else None

    def expect(self, text: str, context: str = "") -> Token:
        if not self.tok.is_(text):
            message = f"expected '{text}'{context}, got {_describe(self.tok)}"
            previous = self.tokens[self.pos - 1] if self.pos else None
            if previous is None or previous.expansions or previous.loc.line == self.tok.loc.line:
                raise error(self.tok, message)
            # As C compilers do, point just past the token that should have been followed.
            end = previous.loc._replace(col=previous.loc.col + len(previous.text))
            raise error_at(end, message)
        return self.next()

    def expect_end(self) -> None:
        if self.tok.kind is not Kind.EOF:
            raise error(self.tok, f"unexpected {_describe(self.tok)}")

    def name(self, what: str) -> Token:
        if self.tok.kind is not Kind.IDENT:
            raise error(self.tok, f"expected {what}, got {_describe(self.tok)}")
        return self.next()

    # -- functions -------------------------------------------------------------------------

    def unit(self) -> list[Function]:
        functions: list[Function] = []
        while self.tok.kind is not Kind.EOF:
            functions.append(self.function())
        return functions

    def function(self) -> Function:
        start = self.tok
        is_global = self.accept("__global__") is not None
        if not self.is_type_start():
            raise error(self.tok, f"expected a kernel ('__global__ void name(...)'), got "
                        f"{_describe(self.tok)}")
        returns = CType(self.type_spec().dtype, self.pointer_stars())
        name = self.name("the kernel's name")
        if not self.tok.is_("("):
            raise error(name, "global variables are not supported: only kernels may appear "
                        "at file scope")
        if returns != CType(None):
            raise error(start, f"a Triton-C kernel returns void, not {returns}")
        self.next()
        params: list[Param] = []
        if self.tok.is_("void") and self.peek().is_(")"):
            self.next()
        while not self.tok.is_(")"):
            if params:
                self.expect(",", " between parameters")
            params.append(self.param())
        self.next()
        if not self.tok.is_("{"):
            raise error(self.tok, "expected the kernel's body '{', got "
                        f"{_describe(self.tok)} (declarations without a body are not "
                        "supported)")
        return Function(start, name.text, params, self.compound(), is_global)

    def param(self) -> Param:
        base = self.type_spec()
        if base.dtype is None:
            raise error(self.tok, "a parameter cannot be void")
        pointer = self.pointer_stars()
        token = self.name("a parameter name")
        param = Param(token, CType(base.dtype, pointer), token.text)
        while hint := self.accept(*PARAM_HINTS):
            value = None
            if hint.text in HINTS_WITH_VALUE:
                self.expect("(", f" after {hint.text}")
                value = self.constant_int(self.ternary(), "the value of " + hint.text)
                self.expect(")")
            param.attributes[hint.text] = value
        return param

    def pointer_stars(self) -> bool:
        pointer = False
        while star := self.accept("*"):
            if pointer:
                raise error(star, "pointers to pointers are not supported in Triton-C")
            pointer = True
            while self.accept(*QUALIFIERS):
                pass
        return pointer

    # -- types -----------------------------------------------------------------------------

    def is_type_start(self, token: Token | None = None) -> bool:
        token = token or self.tok
        return token.kind is Kind.IDENT and (
            token.text in TYPEDEF_NAMES
            or token.text in INTEGER_WORDS
            or token.text in QUALIFIERS
            or token.text in UNSUPPORTED_TYPES
            or token.text == "void"
        )

    def type_spec(self) -> CType:
        """A base type with its qualifiers (the pointer star belongs to the declarator)."""
        start = self.tok
        words: list[str] = []
        named: CType | None = None
        while self.tok.kind is Kind.IDENT:
            text = self.tok.text
            if text in UNSUPPORTED_TYPES:
                raise error(self.tok, UNSUPPORTED_TYPES[text])
            if text in QUALIFIERS:
                self.next()
            elif text in INTEGER_WORDS and named is None:
                words.append(self.next().text)
            elif (text in TYPEDEF_NAMES or text == "void") and named is None and not words:
                self.next()
                named = CType(TYPEDEF_NAMES.get(text))
            else:
                break
        if named is not None:
            return named
        if not words:
            raise error(start, f"expected a type, got {_describe(start)}")
        return CType(integer_type(words, start))

    # -- statements ------------------------------------------------------------------------

    def compound(self) -> Compound:
        start = self.expect("{")
        body: list[Stmt] = []
        while not self.tok.is_("}"):
            if self.tok.kind is Kind.EOF:
                raise error(start, "this '{' is never closed")
            body.append(self.statement())
        self.next()
        return Compound(start, body)

    def statement(self) -> Stmt:
        token = self.tok
        if token.is_("{"):
            return self.compound()
        if token.is_(";"):
            self.next()
            return Compound(token, [])
        if token.kind is Kind.IDENT and token.text in UNSUPPORTED_STATEMENTS:
            raise error(token, UNSUPPORTED_STATEMENTS[token.text])
        if token.is_("if"):
            self.next()
            self.expect("(", " after 'if'")
            cond = self.expression()
            self.expect(")", " after the condition")
            then = self.statement()
            other = self.statement() if self.accept("else") else None
            return If(token, cond, then, other)
        if token.is_("while"):
            self.next()
            self.expect("(", " after 'while'")
            cond = self.expression()
            self.expect(")", " after the condition")
            return While(token, cond, self.statement())
        if token.is_("for"):
            return self.for_statement()
        if token.is_("return"):
            self.next()
            if not self.tok.is_(";"):
                raise error(self.tok, "a kernel returns void: 'return' takes no value")
            self.next()
            return Return(token)
        if self.is_type_start():
            return self.declaration()
        expr = self.expression()
        self.expect(";", " after the expression")
        return ExprStmt(token, expr)

    def for_statement(self) -> For:
        token = self.next()
        self.expect("(", " after 'for'")
        init: Stmt | None = None
        if self.is_type_start():
            init = self.declaration()
        elif not self.accept(";"):
            init = ExprStmt(self.tok, self.expression())
            self.expect(";", " after the loop's initialization")
        cond = None if self.tok.is_(";") else self.expression()
        self.expect(";", " after the loop's condition")
        step = None if self.tok.is_(")") else self.expression()
        self.expect(")", " after the loop's step")
        return For(token, init, cond, step, self.statement())

    def declaration(self) -> Decl:
        start = self.tok
        base = self.type_spec()
        declarators: list[Declarator] = []
        while True:
            pointer = self.pointer_stars()
            if base.dtype is None and not pointer:
                raise error(start, "a variable cannot be void")
            name = self.name("a variable name")
            shape = self.block_shape(name) if self.tok.is_("[") else ()
            init = self.expression() if self.accept("=") else None
            declarators.append(Declarator(name, CType(base.dtype, pointer), name.text, shape, init))
            if not self.accept(","):
                break
        self.expect(";", " after the declaration")
        return Decl(start, declarators)

    def block_shape(self, name: Token) -> tuple[int, ...]:
        self.next()
        shape = [self.constant_int(self.ternary(), "a block dimension")]
        while self.accept(","):
            shape.append(self.constant_int(self.ternary(), "a block dimension"))
        self.expect("]", " after the block's dimensions")
        if self.tok.is_("["):
            dims = ", ".join(str(d) for d in shape)
            raise error(self.tok, f"nested arrays are not supported: declare a block with "
                        f"one pair of brackets, as in '{name.text}[{dims}, ...]'")
        for dim in shape:
            if dim <= 0:
                raise error(name, f"block dimensions must be positive, got {dim}")
        return tuple(shape)

    def constant_int(self, expr: Expr, what: str) -> int:
        value = fold(expr)
        if not isinstance(value, int):
            raise error(expr.token, f"{what} must be an integer constant (a literal or a "
                        "macro)")
        return value

    # -- expressions -----------------------------------------------------------------------

    def expression(self) -> Expr:
        target = self.ternary()
        if self.tok.is_(*ASSIGNMENTS):
            op = self.next()
            return Assign(op, op.text, target, self.expression())
        return target

    def ternary(self) -> Expr:
        cond = self.binary(0)
        if question := self.accept("?"):
            then = self.expression()
            self.expect(":", " in the conditional expression")
            return Ternary(question, cond, then, self.ternary())
        return cond

    def binary(self, level: int) -> Expr:
        if level == len(BINARY_LEVELS):
            return self.range()
        lhs = self.binary(level + 1)
        while self.tok.kind is Kind.PUNCT and self.tok.text in BINARY_LEVELS[level]:
            op = self.next()
            lhs = Binary(op, op.text, lhs, self.binary(level + 1))
        return lhs

    def range(self) -> Expr:
        start = self.unary()
        if dots := self.accept("..."):
            return Range(dots, start, self.unary())
        return start

    def unary(self) -> Expr:
        token = self.tok
        if token.is_("-", "+", "!", "~", "^"):
            self.next()
            return Unary(token, token.text, self.unary())
        if token.is_("++", "--"):
            self.next()
            return Step(token, token.text, self.unary())
        if token.is_("*"):
            self.next()
            mask = None
            if self.accept("?"):
                self.expect("(", " after '*?' (a masked dereference is '*?(mask)pointer')")
                mask = self.expression()
                self.expect(")", " after the mask")
            return Deref(token, self.unary(), mask)
        if token.is_("&"):
            raise error(token, "taking an address ('&') is not supported in Triton-C")
        if token.is_("(") and self.is_type_start(self.peek()):
            self.next()
            base = self.type_spec()
            pointer = self.pointer_stars()
            self.expect(")", " after the type of the cast")
            return Cast(token, CType(base.dtype, pointer), self.unary())
        return self.postfix()

    def postfix(self) -> Expr:
        expr = self.primary()
        while True:
            token = self.tok
            if token.is_("["):
                self.next()
                items = [self.subscript_item()]
                while self.accept(","):
                    items.append(self.subscript_item())
                self.expect("]", " after the subscripts")
                expr = Subscript(token, expr, items)
            elif token.is_("("):
                if not isinstance(expr, Name):
                    raise error(token, "only built-in functions can be called")
                self.next()
                args: list[Expr] = []
                while not self.tok.is_(")"):
                    if args:
                        self.expect(",", " between arguments")
                    args.append(self.expression())
                self.next()
                expr = Call(expr.token, expr.id, args)
            elif token.is_("++", "--"):
                self.next()
                expr = Step(token, token.text, expr)
            elif token.is_(".", "->"):
                raise error(token, "member access is not supported: Triton-C has no structs")
            else:
                return expr

    def subscript_item(self) -> str | Expr:
        token = self.tok
        closes = self.peek().is_(",", "]")
        if token.is_(":"):
            if not closes:
                raise error(token, _NO_SLICING)
            self.next()
            return ":"
        if token.is_("newaxis", *REDUCTIONS) and closes:
            self.next()
            return token.text
        index = self.expression()
        if self.tok.is_(":"):
            raise error(self.tok, _NO_SLICING)
        return index

    def primary(self) -> Expr:
        token = self.tok
        if token.kind in (Kind.INT, Kind.FLOAT):
            self.next()
            return Number(token, number_value(token))
        if token.kind is Kind.IDENT:
            if token.text in UNSUPPORTED_TYPES:
                raise error(token, UNSUPPORTED_TYPES[token.text])
            self.next()
            return Name(token, token.text)
        if token.is_("("):
            self.next()
            expr = self.expression()
            self.expect(")", " to close the parenthesis")
            return expr
        raise error(token, f"expected an expression, got {_describe(token)}")


_NO_SLICING = (
    "slicing a block to sub-blocks is not supported in Triton-C: brackets take ':', "
    "'newaxis' and the reductions '+', 'max', 'min'"
)


def _describe(token: Token) -> str:
    return "the end of the file" if token.kind is Kind.EOF else f"'{token.text}'"

