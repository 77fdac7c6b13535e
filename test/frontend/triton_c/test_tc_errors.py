"""Bad Triton-C gets located errors: the file, line and column, the source line with a
caret, and for macro expansions a note per macro."""

from __future__ import annotations

import pytest

import blkc.triton_c as tc
from blkc.diagnostics import BlkcError, SourceLocation


def diagnose(source: str, **defines: object) -> BlkcError:
    with pytest.raises(BlkcError) as caught:
        tc.translate(source, defines=defines, filename="bad.tc")  # type: ignore[arg-type]
    return caught.value


def located(source: str, line: int, col: int, message: str, **defines: object) -> BlkcError:
    """The error `source` gets: at `line`, `col` of bad.tc, with `message` in its text."""
    err = diagnose(source, **defines)
    first = err.diagnostics[0]
    assert first.location == SourceLocation("bad.tc", line, col), str(err)
    assert message in first.message, str(err)
    return err


def kernel_body(body: str) -> str:
    """A kernel whose body starts on line 2."""
    return "__global__ void k(float *X, int N) {\n" + body + "\n}\n"


UNSUPPORTED = [
    ("struct pair { int a; };", 1, 1, "structs are not supported in Triton-C"),
    ("union u { int a; };", 1, 1, "unions are not supported in Triton-C"),
    ("typedef float real;", 1, 1, "typedef is not supported in Triton-C; use #define"),
    ("enum e { A };", 1, 1, "enums are not supported in Triton-C; use #define"),
    ("int counter;", 1, 5, "global variables are not supported"),
    ("__global__ int k(int *X) {}", 1, 1, "a Triton-C kernel returns void, not int"),
    ("__global__ void k(int *X) { int a = 09; }", 1, 37, "invalid digit in the octal literal '09'"),
    ("__global__ void k(int *X) { float a = 1.5q; }", 1, 39, "invalid suffix 'q' on a number"),
    ("__global__ void k(int *X) { float a = 1.5ff; }", 1, 39, "invalid suffix 'ff' on a number"),
    ("__global__ void k(int *X);", 1, 26, "declarations without a body are not supported"),
    ("__global__ void k(int **X) {}", 1, 24, "pointers to pointers are not supported"),
    ("__global__ void a(int *X) {}\nvoid b(int *X) {}", 2, 1,
     "non-kernel functions are not supported"),
    ("__global__ void a(int *X) {}\n__global__ void a(int *X) {}", 2, 1,
     "redefinition of kernel 'a'"),
    ("// nothing", 1, 11, "the file defines no kernel"),
    ("#include <math.h>", 1, 2, "#include is not supported"),
]


@pytest.mark.parametrize(("source", "line", "col", "message"), UNSUPPORTED)
def test_unsupported_c_at_file_scope(source: str, line: int, col: int, message: str) -> None:
    located(source, line, col, message)


BODY_ERRORS = [
    ("  float a[16][16] = 0;", 2, 14, "nested arrays are not supported"),
    ("  float a[16, 16] = 0;\n  float b[16] = a[0, :];", 3, 19,
     "slicing a block to sub-blocks or scalars is not supported"),
    ("  float a[16] = 0;\n  float b[8] = a[0:8];", 3, 19, "slicing a block to sub-blocks"),
    ("  float a = X[0];", 2, 15, "Triton-C does not index pointers"),
    ("  do { } while (1);", 2, 3, "do-while loops are not supported"),
    ("  switch (N) { }", 2, 3, "switch is not supported"),
    ("  while (1) { break; }", 2, 15, "break is not supported"),
    ("  goto end;", 2, 3, "goto is not supported"),
    ("  return;\n  N = 1;", 2, 3, "'return' is only supported as the last statement"),
    ("  float y = undefined_name;", 2, 13, "use of undeclared identifier 'undefined_name'"),
    ("  int a = 1;\n  int a = 2;", 3, 7, "redefinition of 'a'"),
    ("  float a[16] = 0 ... 24;", 2, 19, "arange's length must be a power of two"),
    ("  float a[16] = 0 ... N;", 2, 23, "the bounds of a range 'start ... end' must be integer"),
    ("  float a[N] = 0;", 2, 11, "a block dimension must be an integer constant"),
    ("  float a[16] = 0;\n  float b[32] = a;", 3, 9,
     "cannot initialize 'b' (float[32]) with a block of shape [16]"),
    ("  float a[16] = 0;\n  float c = 0;\n  c = a;", 4, 5,
     "cannot assign to 'c' (float) with a block of shape [16]"),
    ("  float *p = 1.5;", 2, 10, "cannot initialize 'p' (float*) with a value (float literal)"),
    ("  int *p = X;", 2, 8, "cannot initialize 'p' (int*) with an incompatible pointer (float*)"),
    ("  float a[16] = *(X + (0 ... 16));\n  if (a > 0) { N = 1; }", 3, 3,
     "a condition must be a scalar"),
    ("  float a[16] = 0;\n  float b = a[+, +];", 3, 14, "a subscript reduces one axis"),
    ("  float a[16] = 0;\n  float b[16] = ^a;", 3, 17, "'^' transposes a 2-D block, got float[16]"),
    ("  float a = foo(1);", 2, 13, "unknown function 'foo'"),
    ("  float a = exp(1, 2);", 2, 13, "'exp' takes 1 argument, got 2"),
    ("  int pid = get_program_id(N);", 2, 28, "the axis of get_program_id must be an integer"),
    ("  int pid = get_program_id(3);", 2, 13, "axis 3 is out of range"),
    ("  float a = (N = 2);", 2, 16, "'=' inside an expression is not supported"),
    ("  float *p = X * 2;", 2, 16, "'*' does not apply to pointers"),
    ("  float a = 1 / 0;", 2, 15, "division by zero in a constant expression"),
    ("  float a = &N;", 2, 13, "taking an address ('&') is not supported"),
    ("  float a = \"s\";", 2, 13, "Triton-C has no string literals"),
    ("  float a = 1 +;", 2, 16, "expected an expression, got ';'"),
    ("  float a = 1\n  float b = 2;", 2, 14, "expected ';' after the declaration, got 'float'"),
    ("  float a = *?N X;", 2, 15, "expected '(' after '*?'"),
    ("  float a = 0x1fz;", 2, 13, "invalid suffix 'z' on a number"),
    ("  /* never closed", 2, 3, "unterminated /* comment"),
    ("  for (int i = 0; i < 4; i++) { float a[16] = 0; a = i < N; }\n  N = a;", 3, 7,
     "use of undeclared identifier 'a'"),
]


@pytest.mark.parametrize(("body", "line", "col", "message"), BODY_ERRORS)
def test_errors_in_kernels(body: str, line: int, col: int, message: str) -> None:
    located(kernel_body(body), line, col, message)


PREPROCESSOR_ERRORS = [
    ("#if 1\n", 1, 2, "unterminated conditional: #endif is missing"),
    ("#endif\n", 1, 2, "#endif without a matching #if"),
    ("#else\n", 1, 2, "#else without a matching #if"),
    ("#error TM must be set\n", 1, 1, "#error TM must be set"),
    ("#define\n", 1, 2, "#define needs a macro name"),
    ("#define CAT(a, b) a ## b\n", 1, 21, "the '##' operator is not supported in macros"),
    ("#define F(a, b) a\nint x = F(1);\n", 2, 9, "macro 'F' takes 2 arguments, got 1"),
    ("#frobnicate\n", 1, 2, "unknown preprocessor directive '#frobnicate'"),
    ("#ifdef\n#endif\n", 1, 2, "#ifdef needs exactly one macro name"),
]


@pytest.mark.parametrize(("source", "line", "col", "message"), PREPROCESSOR_ERRORS)
def test_preprocessor_errors(source: str, line: int, col: int, message: str) -> None:
    located(source + "__global__ void k(int *X) {}\n", line, col, message)


def test_macro_expansion_reports_use_site_and_macro() -> None:
    source = "#define WIDTH 24\n#define RANGE (0 ... WIDTH)\n" + kernel_body(
        "  int r[16] = RANGE;"
    )
    err = located(source, 4, 15, "arange's length must be a power of two, got 24")
    notes = err.diagnostics[0].notes
    assert notes == [(SourceLocation("bad.tc", 2, 18), "expanded from macro 'RANGE'")]
    text = str(err)
    assert "bad.tc:4:15: error:" in text
    assert "  int r[16] = RANGE;\n              ^\n" in text
    assert "bad.tc:2:18: note: expanded from macro 'RANGE'\n#define RANGE (0 ... WIDTH)\n" in text


def test_nested_macros_note_each_level() -> None:
    source = "#define INNER 1 / 0\n#define OUTER (INNER)\n" + kernel_body("  int a = OUTER;")
    err = located(source, 4, 11, "division by zero")
    assert [msg for _, msg in err.diagnostics[0].notes] == [
        "expanded from macro 'INNER'",
        "expanded from macro 'OUTER'",
    ]


def test_host_define_notes_the_command_line() -> None:
    err = located(kernel_body("  float a[TM] = 0;"), 2, 11, "a block dimension must be an "
                  "integer constant", TM="16.5")
    assert err.diagnostics[0].notes == [
        (SourceLocation("<command line>", 1, 12), "expanded from macro 'TM'")
    ]
    assert "#define TM 16.5\n           ^" in str(err)


def test_type_errors_from_the_builder_are_located() -> None:
    err = located(kernel_body("  float a[16] = 0;\n  float b[8] = 0;\n  a = a + b;"), 4, 9,
                  "cannot broadcast")
    assert "  a = a + b;\n        ^" in str(err)


def test_candidate_errors_name_the_candidate() -> None:
    source = kernel_body("  int r[TM] = 0 ... TM;")
    with pytest.raises(BlkcError) as caught:
        tc.compile(source, defines={"TM": [16, 24]}, filename="bad.tc")
    assert caught.value.diagnostics[0].notes[-1] == (
        None, "while compiling the candidate TM=24"
    )
