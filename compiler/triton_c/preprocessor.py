"""The C preprocessor, on tokens: `#define` (object- and function-like), `#undef`,
`#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif`, `#error`, and defines from the host.

Host defines are written as a pseudo-file `<command line>` of `#define` lines, which is
registered as a source: a note about a macro defined by the host quotes its definition,
as clang does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from blkc.diagnostics import register_source
from blkc.triton_c.lexer import Kind, Token, error, tokenize

HOST_FILE = "<command line>"

ConstantEvaluator = Callable[[list[Token]], int | float]
"""Parses and folds the tokens of an `#if` condition (the parser provides it)."""


@dataclass
class Macro:
    name: str
    params: list[str] | None
    """None for an object-like macro."""
    body: list[Token]


@dataclass
class _Conditional:
    """One open `#if`: whether its current branch is active and whether any was taken."""

    token: Token
    active: bool
    taken: bool
    seen_else: bool = False


def preprocess(
    text: str, filename: str, defines: Mapping[str, str], evaluate: ConstantEvaluator
) -> list[Token]:
    """The tokens of `text` after preprocessing with the host's `defines` (name ->
    replacement text); ends with an EOF token."""
    pre = _Preprocessor(evaluate)
    if defines:
        host = "".join(f"#define {name} {value}\n" for name, value in defines.items())
        register_source(HOST_FILE, host)
        pre.run(tokenize(host, HOST_FILE))
    register_source(filename, text)
    return pre.run(tokenize(text, filename))


class _Preprocessor:
    def __init__(self, evaluate: ConstantEvaluator):
        self.macros: dict[str, Macro] = {}
        self.evaluate = evaluate

    def run(self, tokens: list[Token]) -> list[Token]:
        out: list[Token] = []
        pending: list[Token] = []
        stack: list[_Conditional] = []
        i = 0
        while tokens[i].kind is not Kind.EOF:
            token = tokens[i]
            if token.bol and token.is_("#"):
                end = i + 1
                while not tokens[end].bol:
                    end += 1
                # Expand what came before, so that a macro applies from its #define on.
                out += self.expand(pending)
                pending = []
                self._directive(token, tokens[i + 1 : end], stack)
                i = end
                continue
            if all(c.active for c in stack):
                pending.append(token)
            i += 1
        if stack:
            raise error(stack[-1].token, "unterminated conditional: #endif is missing")
        return [*out, *self.expand(pending), tokens[i]]

    # -- directives ----------------------------------------------------------------------

    def _directive(self, hash_token: Token, line: list[Token], stack: list[_Conditional]) -> None:
        if not line:
            return  # the null directive
        name, rest = line[0], line[1:]
        enclosing = all(c.active for c in stack)
        match name.text:
            case "if" | "ifdef" | "ifndef":
                value = enclosing and self._test(name, rest)
                stack.append(_Conditional(name, value, value))
            case "elif" | "else":
                if not stack or stack[-1].seen_else:
                    raise error(name, f"#{name.text} without a matching #if")
                top = stack[-1]
                parents = all(c.active for c in stack[:-1])
                if name.text == "else":
                    top.seen_else = True
                    top.active = parents and not top.taken
                else:
                    top.active = parents and not top.taken and self._test(name, rest)
                top.taken = top.taken or top.active
            case "endif":
                if not stack:
                    raise error(name, "#endif without a matching #if")
                stack.pop()
            case _ if not enclosing:
                return
            case "define":
                self._define(name, rest)
            case "undef":
                if not rest or rest[0].kind is not Kind.IDENT:
                    raise error(name, "#undef needs a macro name")
                self.macros.pop(rest[0].text, None)
            case "error":
                text = " ".join(t.text for t in rest)
                raise error(hash_token, f"#error {text}".rstrip())
            case "pragma":
                return
            case "include":
                raise error(name, "#include is not supported: a Triton-C file stands alone")
            case _:
                raise error(name, f"unknown preprocessor directive '#{name.text}'")

    def _test(self, directive: Token, rest: list[Token]) -> bool:
        if directive.text in ("ifdef", "ifndef"):
            if len(rest) != 1 or rest[0].kind is not Kind.IDENT:
                raise error(directive, f"#{directive.text} needs exactly one macro name")
            return (rest[0].text in self.macros) == (directive.text == "ifdef")
        if not rest:
            raise error(directive, f"#{directive.text} needs a condition")
        tokens = self.expand(self._replace_defined(rest))
        # As in C, identifiers left after expansion are 0.
        tokens = [
            Token(Kind.INT, "0", t.loc, expansions=t.expansions) if t.kind is Kind.IDENT else t
            for t in tokens
        ]
        eof = Token(Kind.EOF, "", rest[-1].loc)
        return bool(self.evaluate([*tokens, eof]))

    def _replace_defined(self, tokens: list[Token]) -> list[Token]:
        out: list[Token] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if not token.is_("defined"):
                out.append(token)
                i += 1
                continue
            parens = i + 1 < len(tokens) and tokens[i + 1].is_("(")
            name_at = i + 2 if parens else i + 1
            if name_at >= len(tokens) or tokens[name_at].kind is not Kind.IDENT:
                raise error(token, "'defined' needs a macro name")
            if parens and (name_at + 1 >= len(tokens) or not tokens[name_at + 1].is_(")")):
                raise error(token, "expected ')' after the macro name of 'defined('")
            value = "1" if tokens[name_at].text in self.macros else "0"
            out.append(Token(Kind.INT, value, token.loc, expansions=token.expansions))
            i = name_at + (2 if parens else 1)
        return out

    def _define(self, directive: Token, rest: list[Token]) -> None:
        if not rest or rest[0].kind is not Kind.IDENT:
            raise error(directive, "#define needs a macro name")
        name = rest[0]
        body = rest[1:]
        params: list[str] | None = None
        # A function-like macro has '(' right after its name, without a space.
        if body and body[0].is_("(") and body[0].loc.col == name.loc.col + len(name.text):
            params, body = self._params(body)
        for token in body:
            if token.is_("#", "##"):
                raise error(token, f"the '{token.text}' operator is not supported in macros")
        self.macros[name.text] = Macro(name.text, params, body)

    @staticmethod
    def _params(tokens: list[Token]) -> tuple[list[str], list[Token]]:
        params: list[str] = []
        if len(tokens) > 1 and tokens[1].is_(")"):
            return params, tokens[2:]
        i = 1
        while i < len(tokens):
            if tokens[i].kind is not Kind.IDENT:
                raise error(tokens[i], "expected a macro parameter name")
            params.append(tokens[i].text)
            if i + 1 >= len(tokens):
                break
            if tokens[i + 1].is_(")"):
                return params, tokens[i + 2 :]
            if not tokens[i + 1].is_(","):
                raise error(tokens[i + 1], "expected ',' or ')' in the macro parameter list")
            i += 2
        raise error(tokens[0], "unterminated macro parameter list")

    # -- expansion -----------------------------------------------------------------------

    def expand(self, tokens: list[Token]) -> list[Token]:
        """`tokens` with every macro expanded, rescanning each expansion."""
        out: list[Token] = []
        stack = list(reversed(tokens))  # the next token is at the end
        while stack:
            token = stack.pop()
            macro = self.macros.get(token.text) if token.kind is Kind.IDENT else None
            if macro is None or macro.name in token.hideset:
                out.append(token)
                continue
            if macro.params is None:
                stack += reversed([t.expanded_from(macro.name, token) for t in macro.body])
                continue
            if not stack or not stack[-1].is_("("):
                out.append(token)  # a function-like macro's name alone is not a call
                continue
            args = self._arguments(token, macro, stack)
            stack += reversed(self._substitute(token, macro, args))
        return out

    def _arguments(self, use: Token, macro: Macro, stack: list[Token]) -> list[list[Token]]:
        stack.pop()  # '('
        args: list[list[Token]] = [[]]
        depth = 0
        while stack:
            token = stack.pop()
            if token.kind is Kind.EOF:
                break
            if token.is_(")") and depth == 0:
                assert macro.params is not None
                if args == [[]] and not macro.params:
                    args = []
                if len(args) != len(macro.params):
                    raise error(
                        use,
                        f"macro '{macro.name}' takes {len(macro.params)} argument"
                        f"{'' if len(macro.params) == 1 else 's'}, got {len(args)}",
                    )
                return args
            if token.is_(",") and depth == 0:
                args.append([])
                continue
            depth += token.is_("(", "[") - token.is_(")", "]")
            args[-1].append(token)
        raise error(use, f"unterminated call of macro '{macro.name}'")

    def _substitute(self, use: Token, macro: Macro, args: list[list[Token]]) -> list[Token]:
        assert macro.params is not None
        expanded = {p: self.expand(a) for p, a in zip(macro.params, args, strict=True)}
        out: list[Token] = []
        for token in macro.body:
            if token.kind is Kind.IDENT and token.text in expanded:
                # Argument tokens keep their own location: the user wrote them at the call.
                hide = use.hideset | {macro.name}
                out += [Token(t.kind, t.text, t.loc, False, t.expansions, t.hideset | hide)
                        for t in expanded[token.text]]
            else:
                out.append(token.expanded_from(macro.name, use))
        return out
