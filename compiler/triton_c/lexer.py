"""Triton-C tokens: C's, plus `...` (ranges), `@` (matrix product) and `*?` (masked
dereference, lexed as `*` then `?`).

Each token knows where the user wrote it (`loc`) and, when it came out of a macro, the
chain of macros it was expanded from, so errors point at the use site and name the macro.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import StrEnum

from blkc.diagnostics import BlkcError, SourceLocation, error_at


class Kind(StrEnum):
    IDENT = "identifier"
    INT = "integer literal"
    FLOAT = "float literal"
    PUNCT = "punctuator"
    EOF = "end of file"


@dataclass(frozen=True, slots=True)
class Token:
    """One token. `loc` is the use site (for a token from a macro, where the outermost
    macro was used); `expansions` lists (macro, where the token is spelled in its
    definition), innermost first; `hideset` holds the macros that must not expand it
    again (C's rescanning rule)."""

    kind: Kind
    text: str
    loc: SourceLocation
    bol: bool = False
    """First token of a logical line (directives start there)."""
    expansions: tuple[tuple[str, SourceLocation], ...] = ()
    hideset: frozenset[str] = field(default_factory=frozenset)

    def expanded_from(self, macro: str, use: Token) -> Token:
        """This token of `macro`'s body, as it appears where `use` invoked the macro."""
        return replace(
            self,
            loc=use.loc,
            bol=False,
            expansions=((macro, self.loc), *use.expansions),
            hideset=self.hideset | use.hideset | {macro},
        )

    def is_(self, *texts: str) -> bool:
        """Whether this is a punctuator or identifier spelled as one of `texts`."""
        return self.kind in (Kind.PUNCT, Kind.IDENT) and self.text in texts


def error(token: Token, message: str) -> BlkcError:
    """A located error at `token`, with a note per macro it was expanded from."""
    notes = [(where, f"expanded from macro '{name}'") for name, where in token.expansions]
    return error_at(token.loc, message, notes)


# Longest first, so that `...` wins over `.` and `<<=` over `<<`.
PUNCTUATORS = sorted(
    """... <<= >>= -> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^= ## #
    ( ) [ ] { } , ; : ? + - * / % & | ^ ~ ! < > = @ .""".split(),
    key=len,
    reverse=True,
)


def tokenize(text: str, filename: str) -> list[Token]:
    """The tokens of `text` (ending with an EOF token); comments and line continuations
    are removed."""
    return _Lexer(text, filename).run()


class _Lexer:
    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        self.pos = 0
        self.line = 1
        self.col = 1

    def _loc(self) -> SourceLocation:
        return SourceLocation(self.filename, self.line, self.col)

    def _advance(self, count: int = 1) -> None:
        for _ in range(count):
            if self.text[self.pos] == "\n":
                self.line += 1
                self.col = 1
            else:
                self.col += 1
            self.pos += 1

    def _peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.text[index] if index < len(self.text) else ""

    def run(self) -> list[Token]:
        tokens: list[Token] = []
        bol = True
        while True:
            bol = self._skip_space() or bol
            if self.pos >= len(self.text):
                tokens.append(Token(Kind.EOF, "", self._loc(), bol=True))
                return tokens
            tokens.append(self._token(bol))
            bol = False

    def _skip_space(self) -> bool:
        """Skip blanks and comments; return whether a (logical) newline was crossed."""
        newline = False
        while self.pos < len(self.text):
            c = self._peek()
            if c == "\\" and self._peek(1) == "\n":
                self._advance(2)  # a continuation line stays on the logical line
            elif c == "\n":
                newline = True
                self._advance()
            elif c in " \t\r\f\v":
                self._advance()
            elif c == "/" and self._peek(1) == "/":
                while self.pos < len(self.text) and self._peek() != "\n":
                    self._advance()
            elif c == "/" and self._peek(1) == "*":
                start = self._loc()
                end = self.text.find("*/", self.pos + 2)
                if end < 0:
                    raise error_at(start, "unterminated /* comment")
                self._advance(end + 2 - self.pos)  # as in C, one space: the line goes on
            else:
                break
        return newline

    def _token(self, bol: bool) -> Token:
        loc = self._loc()
        c = self._peek()
        if c.isalpha() or c == "_":
            end = self.pos
            while end < len(self.text) and (self.text[end].isalnum() or self.text[end] == "_"):
                end += 1
            return self._take(Kind.IDENT, end, loc, bol)
        if c.isdigit() or (c == "." and self._peek(1).isdigit()):
            return self._number(loc, bol)
        for punct in PUNCTUATORS:
            if self.text.startswith(punct, self.pos):
                return self._take(Kind.PUNCT, self.pos + len(punct), loc, bol)
        what = "string literals" if c in "\"'" else f"the character {c!r}"
        raise error_at(loc, f"Triton-C has no {what}")

    def _take(self, kind: Kind, end: int, loc: SourceLocation, bol: bool) -> Token:
        text = self.text[self.pos : end]
        self._advance(end - self.pos)
        return Token(kind, text, loc, bol=bol)

    def _number(self, loc: SourceLocation, bol: bool) -> Token:
        text, end = self.text, self.pos
        is_float = False
        if text.startswith(("0x", "0X"), end):
            end += 2
            while end < len(text) and text[end] in "0123456789abcdefABCDEF":
                end += 1
        else:
            while end < len(text) and text[end].isdigit():
                end += 1
            # `0...16` is a range: a '.' starting `...` does not make a float.
            if end < len(text) and text[end] == "." and not text.startswith("...", end):
                is_float = True
                end += 1
                while end < len(text) and text[end].isdigit():
                    end += 1
            if end < len(text) and text[end] in "eE":
                exp = end + 1
                if exp < len(text) and text[exp] in "+-":
                    exp += 1
                if exp < len(text) and text[exp].isdigit():
                    is_float = True
                    end = exp
                    while end < len(text) and text[end].isdigit():
                        end += 1
        # Suffixes (u, l, ll, f) are read with the number; `number_value` checks them.
        while end < len(text) and (text[end].isalnum() or text[end] == "_"):
            end += 1
        return self._take(Kind.FLOAT if is_float else Kind.INT, end, loc, bol)


_FLOAT = re.compile(r"(\d*\.?\d*(?:e[+-]?\d+)?)(.*)")
_INTEGER = re.compile(r"(0x[0-9a-f]+|\d+)(.*)")


def number_value(token: Token) -> int | float:
    """The value of an integer or float literal token (C syntax: hex and octal integers,
    suffixes `u`, `l`, `ll` on integers and `f`, `l` on floats)."""
    text = token.text.lower()
    if token.kind is Kind.FLOAT:
        body, suffix = _FLOAT.fullmatch(text).groups()  # type: ignore[union-attr]
        if suffix in ("", "f", "l"):
            return float(body)
    else:
        match = _INTEGER.fullmatch(text)
        body, suffix = match.groups() if match else ("", text)
        if match and suffix in ("", "u", "l", "ul", "lu", "ll", "ull", "llu"):
            if body.startswith("0x"):
                return int(body, 16)
            if len(body) > 1 and body.startswith("0"):
                if not set(body) <= set("01234567"):
                    raise error(token, f"invalid digit in the octal literal '{token.text}'")
                return int(body, 8)
            return int(body)
    raise error(token, f"invalid suffix '{token.text[len(body):]}' on a number")
