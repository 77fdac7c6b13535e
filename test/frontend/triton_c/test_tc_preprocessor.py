"""The lexer and the preprocessor on their own: tokens, locations, expansions."""

from __future__ import annotations

from blkc.diagnostics import SourceLocation
from blkc.triton_c.lexer import Kind, number_value, tokenize
from blkc.triton_c.parser import parse_constant
from blkc.triton_c.preprocessor import preprocess


def texts(source: str, **defines: str) -> list[str]:
    return [t.text for t in preprocess(source, "p.tc", defines, parse_constant)[:-1]]


def test_ranges_lex_without_spaces() -> None:
    tokens = tokenize("0...16 1.5 .5f 2e3 0x1F 010 7u 8l", "p.tc")
    assert [(t.kind, t.text) for t in tokens[:3]] == [
        (Kind.INT, "0"), (Kind.PUNCT, "..."), (Kind.INT, "16")
    ]
    assert [number_value(t) for t in tokens[3:-1]] == [1.5, 0.5, 2000.0, 31, 8, 7, 8]


def test_locations_and_comments() -> None:
    tokens = tokenize("a /* x\n y */ b // c\n\tc \\\n d", "p.tc")
    assert [(t.text, t.loc.line, t.loc.col, t.bol) for t in tokens[:-1]] == [
        ("a", 1, 1, True), ("b", 2, 7, False), ("c", 3, 2, True), ("d", 4, 2, False)
    ]


def test_object_and_function_macros_rescan() -> None:
    source = "#define A B + 1\n#define B 2\n#define F(x, y) (x * y)\nA F(A, (3, 4)) F\n"
    assert texts(source) == ["2", "+", "1", "(", "2", "+", "1", "*", "(", "3", ",", "4",
                             ")", ")", "F"]


def test_self_reference_does_not_recurse() -> None:
    assert texts("#define X X + 1\nX\n") == ["X", "+", "1"]


def test_expansion_locations() -> None:
    tokens = preprocess("#define TWO 1 + 1\nint a = TWO;\n", "p.tc", {"N": "4"},
                        parse_constant)
    one = tokens[3]
    assert one.loc == SourceLocation("p.tc", 2, 9)
    assert one.expansions == (("TWO", SourceLocation("p.tc", 1, 13)),)


def test_conditionals() -> None:
    source = """
#if N > 2
big
#elif N == 2
two
#else
small
#endif
#ifdef M
m
#endif
#ifndef M
no_m
#endif
#if 0
#error never
#endif
"""
    assert texts(source, N="3") == ["big", "no_m"]
    assert texts(source, N="2", M="") == ["two", "m"]
    assert texts(source, N="1") == ["small", "no_m"]


def test_undef_and_pragma() -> None:
    assert texts("#define A 1\n#undef A\n#pragma unroll\nA\n") == ["A"]
