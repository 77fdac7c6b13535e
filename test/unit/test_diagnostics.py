"""Located diagnostics: formatting, parse locations, verification, annotations, blk-opt."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import PassFailedException, VerifyException

import blkc
from blkc.diagnostics import (
    BlkcError,
    BlkcWarning,
    Diagnostic,
    Severity,
    SourceLocation,
    capture_diagnostics,
    emit_warning,
    error_at,
    op_location,
    parse_module,
    print_diagnostics,
    register_source,
    verify_module,
)
from blkc.pipeline import apply_passes, available_passes, make_context
from blkc.tools.blk_opt import main as blk_opt_main
from blkc.tools.blk_opt import split_input
from blkc.verify_diagnostics import check_diagnostics, parse_expectations

TWO_ERRORS = """\
func.func @f(%a: i32, %b: i64) -> i32 {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  %1 = "arith.muli"(%a, %b) : (i32, i64) -> i32
  func.return %0 : i32
}
"""

VALID = """\
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  func.return %0 : i32
}
"""


@pytest.fixture(scope="module")
def ctx() -> Context:
    return make_context()


def _ops_by_name(module: ModuleOp) -> dict[str, FileLineColLoc]:
    return {op.name: op.location for op in module.walk()}  # type: ignore[misc]


# -- formatting ---------------------------------------------------------------------------


def test_format_shows_header_source_line_and_caret_at_the_column() -> None:
    register_source("fmt.mlir", "line one\n  %0 = arith.addi %a, %b : i32\n")
    diagnostic = Diagnostic(Severity.ERROR, "bad operand", SourceLocation("fmt.mlir", 2, 19))
    assert diagnostic.format() == (
        "fmt.mlir:2:19: error: bad operand\n  %0 = arith.addi %a, %b : i32\n                  ^\n"
    )


def test_format_notes_follow_their_error_located_or_not() -> None:
    register_source("notes.mlir", "a\nbb\n")
    diagnostic = Diagnostic(
        Severity.WARNING,
        "lossy",
        SourceLocation("notes.mlir", 1, 1),
        [(SourceLocation("notes.mlir", 2, 2), "from here"), (None, "see the policy")],
    )
    assert diagnostic.format() == (
        "notes.mlir:1:1: warning: lossy\na\n^\n"
        "notes.mlir:2:2: note: from here\nbb\n ^\n"
        "note: see the policy\n"
    )


def test_format_keeps_tabs_so_the_caret_lines_up() -> None:
    register_source("tabs.mlir", "\tx = y\n")
    text = Diagnostic(Severity.REMARK, "r", SourceLocation("tabs.mlir", 1, 4)).format()
    assert text.splitlines()[2] == "\t  ^"


def test_format_reads_unregistered_sources_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "on_disk.mlir"
    path.write_text("first\nsecond line\n")
    text = Diagnostic(Severity.ERROR, "m", SourceLocation(str(path), 2, 8)).format()
    assert text.splitlines()[1:] == ["second line", "       ^"]


def test_format_without_source_prints_only_the_header() -> None:
    text = Diagnostic(Severity.ERROR, "m", SourceLocation("/no/such/file.mlir", 3, 1)).format()
    assert text == "/no/such/file.mlir:3:1: error: m\n"


def test_registering_a_chunk_fills_in_its_lines_only() -> None:
    register_source("chunks.mlir", "l1\nl2\nl3\nl4\n")
    register_source("chunks.mlir", "L3\n", line_offset=2)
    lines = [
        Diagnostic(Severity.NOTE, "n", SourceLocation("chunks.mlir", n, 1)).format().split("\n")[1]
        for n in (1, 3, 4)
    ]
    assert lines == ["l1", "L3", "l4"]


def test_blkc_error_str_is_the_formatted_diagnostics() -> None:
    register_source("err.mlir", "abc\n")
    error = BlkcError(Diagnostic(Severity.ERROR, "boom", SourceLocation("err.mlir", 1, 2)))
    assert str(error) == "err.mlir:1:2: error: boom\nabc\n ^\n"


# -- parse_module locations ---------------------------------------------------------------


def test_parse_module_locates_every_op_at_its_first_token(ctx: Context) -> None:
    module = parse_module(ctx, VALID, "valid.mlir")
    locations = {
        op.name: (loc.line.data, loc.column.data)
        for op in module.walk()
        if isinstance(loc := op.location, FileLineColLoc)
    }
    assert locations == {
        "builtin.module": (1, 1),
        "func.func": (1, 1),
        "arith.addi": (2, 3),  # the result list, as in MLIR
        "func.return": (3, 3),
    }


def test_parse_module_line_offset_gives_true_line_numbers(ctx: Context) -> None:
    module = parse_module(ctx, VALID, "chunked.mlir", line_offset=10)
    add = next(op for op in module.walk() if op.name == "arith.addi")
    assert op_location(add) == SourceLocation("chunked.mlir", 12, 3)


def test_parse_module_keeps_explicit_locations(ctx: Context) -> None:
    text = 'func.func @f() {\n  func.return loc("kernel.py":7:5)\n}\n'
    module = parse_module(ctx, text, "explicit.mlir")
    ret = next(op for op in module.walk() if op.name == "func.return")
    assert op_location(ret) == SourceLocation("kernel.py", 7, 5)


def test_op_location_walks_up_to_the_parent_when_unknown(ctx: Context) -> None:
    module = parse_module(ctx, VALID, "parent.mlir")
    func = next(op for op in module.walk() if op.name == "func.func")
    orphan = arith.ConstantOp.from_int_and_width(1, 32)
    func.regions[0].block.insert_op_before(orphan, func.regions[0].block.first_op)  # type: ignore[arg-type]
    assert op_location(orphan) == SourceLocation("parent.mlir", 1, 1)
    assert op_location(arith.ConstantOp.from_int_and_width(1, 32)) is None


def test_parse_module_of_comments_only_is_an_empty_module(ctx: Context) -> None:
    module = parse_module(ctx, "// RUN: nothing\n\n", "comments.mlir")
    assert list(module.body.block.ops) == []


def test_parse_error_is_located_with_the_chunk_offset(ctx: Context) -> None:
    with pytest.raises(BlkcError) as info:
        parse_module(ctx, 'func.func @f() {\n  "nosuch.op"() : () -> ()\n}\n', "p.mlir", 4)
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.location == SourceLocation("p.mlir", 6, 3)
    assert diagnostic.message == "Operation nosuch.op is not registered"


def test_parse_error_for_a_refused_attribute_points_at_the_attribute(ctx: Context) -> None:
    text = 'func.func @f() {\n  %0 = "test.op"() {v = 300 : i8} : () -> i32\n  func.return\n}\n'
    with pytest.raises(BlkcError) as info:
        parse_module(ctx, text, "attr.mlir")
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.location == SourceLocation("attr.mlir", 2, 25)
    assert "out of range for type i8" in diagnostic.message


def test_undefined_value_is_reported_at_its_first_use(ctx: Context) -> None:
    text = "func.func @f() {\n  %0 = arith.addi %x, %x : i32\n  func.return\n}\n"
    with pytest.raises(BlkcError) as info:
        parse_module(ctx, text, "undef.mlir")
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.location == SourceLocation("undef.mlir", 2, 19)
    assert diagnostic.message == "use of undefined value '%x'"


def test_redeclared_block_error_has_a_located_note(ctx: Context) -> None:
    text = 'func.func @f() {\n^bb1:\n  "test.op"() [^bb1] : () -> ()\n^bb1:\n  func.return\n}\n'
    with pytest.raises(BlkcError) as info:
        parse_module(ctx, text, "blocks.mlir")
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.location == SourceLocation("blocks.mlir", 4, 1)
    assert diagnostic.notes[0][0] == SourceLocation("blocks.mlir", 2, 1)


# -- verify_module ------------------------------------------------------------------------


def test_verify_module_stops_at_the_first_failing_op_in_pre_order(ctx: Context) -> None:
    module = parse_module(ctx, TWO_ERRORS, "two.mlir")
    with pytest.raises(BlkcError) as info:
        verify_module(module)
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.location == SourceLocation("two.mlir", 2, 3)
    assert diagnostic.message.startswith("'arith.addi' op operand 'rhs' at position 1")
    assert "\n" not in diagnostic.message


def test_verify_module_never_shows_the_module_dump(ctx: Context) -> None:
    module = parse_module(ctx, TWO_ERRORS, "dump.mlir")
    with pytest.raises(BlkcError) as info:
        verify_module(module)
    assert "builtin.module" not in str(info.value)
    assert "Operation does not verify" not in str(info.value)


def test_verify_module_reports_an_empty_block_needing_a_terminator(ctx: Context) -> None:
    module = parse_module(ctx, "func.func @f() {\n^bb0:\n}\n", "empty.mlir")
    with pytest.raises(BlkcError, match="empty block") as info:
        verify_module(module)
    assert info.value.diagnostics[0].location == SourceLocation("empty.mlir", 1, 1)


def test_verify_module_accepts_valid_ir(ctx: Context) -> None:
    verify_module(parse_module(ctx, VALID, "ok.mlir"))


# -- errors and warnings from passes ------------------------------------------------------


def test_error_at_locates_the_error_and_its_notes(ctx: Context) -> None:
    module = parse_module(ctx, VALID, "passerr.mlir")
    add, ret = (op for op in module.walk() if op.name in ("arith.addi", "func.return"))
    error = error_at(add, "cannot do it", notes=[(ret, "used here"), (None, "hint")])
    assert error.diagnostics == [
        Diagnostic(
            Severity.ERROR,
            "cannot do it",
            SourceLocation("passerr.mlir", 2, 3),
            [(SourceLocation("passerr.mlir", 3, 3), "used here"), (None, "hint")],
        )
    ]


class _RefuseAddi(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        raise VerifyException("addi refused")


@dataclass(frozen=True)
class _RefusingPass(ModulePass):
    name = "test-refuse-addi"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(_RefuseAddi()).rewrite_module(op)


@dataclass(frozen=True)
class _FailingPass(ModulePass):
    name = "test-fail"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        raise PassFailedException("nothing to do")


@dataclass(frozen=True)
class _WarningPass(ModulePass):
    name = "test-warn-addi"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for inner in op.walk():
            if isinstance(inner, arith.AddiOp):
                emit_warning(inner, "addi seen")


@dataclass(frozen=True)
class _BreakingPass(ModulePass):
    name = "test-break-ir"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for inner in list(op.walk()):
            if isinstance(inner, arith.AddiOp):
                # A new op without a location, whose i64 result does not match its operands.
                bad = arith.AddiOp.create(operands=inner.operands, result_types=[builtin.i64])
                assert inner.parent is not None
                inner.parent.insert_op_before(bad, inner)


def test_a_pattern_failure_is_located_at_the_op_being_rewritten(ctx: Context) -> None:
    module = parse_module(ctx, VALID, "pattern.mlir")
    with pytest.raises(BlkcError) as info:
        apply_passes(ctx, module, [_RefusingPass()])
    (diagnostic,) = info.value.diagnostics
    assert (diagnostic.message, diagnostic.location) == (
        "addi refused",
        SourceLocation("pattern.mlir", 2, 3),
    )


def test_a_pass_failure_without_an_op_is_located_at_the_module(ctx: Context) -> None:
    module = parse_module(ctx, VALID, "passfail.mlir", line_offset=3)
    with pytest.raises(BlkcError) as info:
        apply_passes(ctx, module, [_FailingPass()])
    assert info.value.diagnostics[0].location == SourceLocation("passfail.mlir", 4, 1)


def test_invalid_ir_after_a_pass_names_the_pass(ctx: Context) -> None:
    module = parse_module(ctx, VALID, "broken.mlir")
    with pytest.raises(BlkcError) as info:
        apply_passes(ctx, module, [_BreakingPass()])
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.location == SourceLocation("broken.mlir", 1, 1)  # the parent func's
    assert diagnostic.notes == [(None, "the IR is invalid after pass 'test-break-ir'")]


def test_warnings_are_captured_by_the_current_engine(ctx: Context) -> None:
    module = parse_module(ctx, VALID, "warn.mlir")
    with capture_diagnostics() as engine:
        apply_passes(ctx, module, [_WarningPass()])
    assert engine.diagnostics == [
        Diagnostic(Severity.WARNING, "addi seen", SourceLocation("warn.mlir", 2, 3))
    ]


def test_warnings_outside_a_capture_are_python_warnings(ctx: Context) -> None:
    module = parse_module(ctx, VALID, "library.mlir")
    with pytest.warns(BlkcWarning, match="addi seen") as caught:
        apply_passes(ctx, module, [_WarningPass()])
    assert (caught[0].filename, caught[0].lineno) == ("library.mlir", 2)


def test_the_tools_print_warnings_as_they_print_errors(
    ctx: Context, capsys: pytest.CaptureFixture[str]
) -> None:
    module = parse_module(ctx, VALID, "stderr.mlir")
    with print_diagnostics():
        apply_passes(ctx, module, [_WarningPass()])
    assert capsys.readouterr().err.startswith("stderr.mlir:2:3: warning: addi seen\n")


# -- expectations -------------------------------------------------------------------------


def test_expectations_same_line_relative_and_several_per_line() -> None:
    text = (
        "op  // expected-error {{here}}\n"
        "// expected-warning @+2 {{two below}} expected-note @-1 {{one above}}\n"
        "x\n"
        "y  // expected-remark {{a}}  // expected-remark {{b}}\n"
    )
    found = [(e.severity, e.message, e.line) for e in parse_expectations(text, "f", 10)]
    assert found == [
        (Severity.ERROR, "here", 11),
        (Severity.WARNING, "two below", 14),
        (Severity.NOTE, "one above", 11),
        (Severity.REMARK, "a", 14),
        (Severity.REMARK, "b", 14),
    ]


def test_expectations_above_and_below_skip_annotation_lines() -> None:
    text = (
        "target_above\n"
        "// expected-error @above {{x}}\n"
        "// expected-error @below {{y}}\n"
        "// expected-note @above {{z}}\n"
        "target_below\n"
    )
    assert [e.line for e in parse_expectations(text, "f")] == [1, 5, 1]


def test_expectation_annotation_location_and_braces_in_messages() -> None:
    text = "  // expected-error @+1 {{dict {a = {b}} here}}\n"
    (expectation,) = parse_expectations(text, "f.mlir", 2)
    assert expectation.message == "dict {a = {b}} here"
    assert expectation.annotation == SourceLocation("f.mlir", 3, 6)
    assert expectation.line == 4


def test_expectation_without_closing_braces_is_an_error() -> None:
    with pytest.raises(BlkcError, match="expected '}}'"):
        parse_expectations("// expected-error {{oops\n", "f")


def test_regex_expectations() -> None:
    (expectation,) = parse_expectations("// expected-error-re {{op {{[0-9]+}} (a)}}\n", "f")
    assert expectation.matches("the op 42 (a) failed")
    assert not expectation.matches("the op x (a) failed")


def test_check_diagnostics_matches_substrings_by_line_and_severity() -> None:
    text = "a // expected-error {{bad}}\nb // expected-warning {{lossy}}\n"
    produced = [
        Diagnostic(Severity.ERROR, "very bad thing", SourceLocation("f", 1, 1)),
        Diagnostic(Severity.WARNING, "lossy cast", SourceLocation("f", 2, 1)),
    ]
    assert check_diagnostics(produced, parse_expectations(text, "f"), "f") == []


def test_check_diagnostics_reports_unexpected_and_missing() -> None:
    text = "a // expected-error {{bad}}\nb\n"
    produced = [Diagnostic(Severity.ERROR, "bad", SourceLocation("f", 2, 1))]
    problems = check_diagnostics(produced, parse_expectations(text, "f"), "f")
    assert [(p.message, p.location) for p in problems] == [
        ("unexpected error: bad", SourceLocation("f", 2, 1)),
        ('expected error "bad" was not produced', SourceLocation("f", 1, 6)),
    ]


def test_check_diagnostics_checks_the_notes_of_an_error() -> None:
    text = "a // expected-error {{bad}} expected-note {{because}}\n"
    error = Diagnostic(Severity.ERROR, "bad", SourceLocation("f", 1, 1), [(None, "because")])
    assert check_diagnostics([error], parse_expectations(text, "f"), "f") == []
    problems = check_diagnostics(
        [error], parse_expectations("a // expected-error {{bad}}\n", "f"), "f"
    )
    assert [p.message for p in problems] == ["unexpected note: because"]


def test_check_diagnostics_does_not_match_diagnostics_in_other_files() -> None:
    produced = [Diagnostic(Severity.ERROR, "bad", SourceLocation("other.py", 1, 1))]
    problems = check_diagnostics(
        produced, parse_expectations("// expected-error {{bad}}", "f"), "f"
    )
    assert len(problems) == 2


def test_split_input_keeps_line_offsets() -> None:
    text = "a\n// -----\nb\nc\n  // -----  \nd\n"
    assert split_input(text) == [("a\n", 0), ("b\nc\n", 2), ("d\n", 5)]


# -- Python API ---------------------------------------------------------------------------


def test_blkc_parse_returns_a_located_verified_module() -> None:
    module = blkc.parse(VALID, "api.mlir")
    add = next(op for op in module.walk() if op.name == "arith.addi")
    assert op_location(add) == SourceLocation("api.mlir", 2, 3)


def test_blkc_parse_raises_a_located_error_for_invalid_ir() -> None:
    with pytest.raises(blkc.BlkcError) as info:
        blkc.parse(TWO_ERRORS)
    assert str(info.value).startswith("<string>:2:3: error: 'arith.addi' op")


def test_blkc_run_pipeline_runs_passes_with_options() -> None:
    text = "func.func @f() -> i32 {\n  %0 = arith.constant 1 : i32\n  %1 = arith.constant 1 : i32\n"
    text += "  %2 = arith.addi %0, %1 : i32\n  func.return %2 : i32\n}\n"
    module = blkc.run_pipeline(blkc.parse(text), "canonicalize,cse")
    ops = [op.name for op in module.walk()]
    assert ops == ["builtin.module", "func.func", "arith.constant", "func.return"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no-such-pass", "'no-such-pass' does not refer to a registered pass"),
        ("canonicalize{bogus=1}", "invalid options for pass 'canonicalize'"),
        ("canonicalize,{", "invalid pass pipeline: Expected pass name here"),
    ],
)
def test_blkc_run_pipeline_rejects_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(blkc.BlkcError, match=message):
        blkc.run_pipeline(blkc.parse(VALID), spec)


@pytest.mark.parametrize("module", ["blkc", "blkc.language"])
def test_import_blkc_does_not_import_xdsl(module: str) -> None:
    """Importing blkc, and its kernel language, leaves xDSL (the compiler's IR) to the first
    compile: a script that only launches kernels from the cache never pays for it."""
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith('xdsl')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


def test_import_universe_does_not_import_the_dialect_or_passes() -> None:
    code = (
        "import sys, blkc.universe as u; assert 'blk' in u.BLKC_UNIVERSE.all_dialects; "
        "print(sorted(m for m in sys.modules if m.startswith(('blkc.dialects.', 'blkc.passes.'))))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "['blkc.passes.registry']", result.stderr


# -- blk-opt ------------------------------------------------------------------------------


def _blk_opt_command() -> list[str]:
    script = Path(sys.executable).with_name("blk-opt")
    return [str(script)] if script.exists() else [sys.executable, "-m", "blkc.tools.blk_opt"]


def test_blk_opt_on_a_bad_file_exits_1_with_a_located_message(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(TWO_ERRORS)
    result = subprocess.run(
        [*_blk_opt_command(), str(path)], capture_output=True, text=True, env=os.environ.copy()
    )
    assert result.returncode == 1
    assert result.stderr.startswith(f"{path}:2:3: error: 'arith.addi' op operand 'rhs'")
    assert result.stderr.splitlines()[1:] == [
        '  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32',
        "  ^",
    ]
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.fixture
def extra_passes() -> Iterator[None]:
    """Make the test passes visible to blk-opt run in this process."""
    registry = available_passes()
    added = {p.name: p for p in (_RefusingPass, _FailingPass, _WarningPass, _BreakingPass)}
    registry.update({name: (lambda p=p: p) for name, p in added.items()})
    yield
    for name in added:
        del registry[name]


def _run_blk_opt(args: list[str]) -> int:
    try:
        blk_opt_main(args)
    except SystemExit as exit:
        return int(exit.code or 0)
    return 0


def test_blk_opt_prints_pass_warnings_and_the_output(
    tmp_path: Path, extra_passes: None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "warn.mlir"
    path.write_text(VALID)
    assert _run_blk_opt([str(path), "-p", "test-warn-addi"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith(f"{path}:2:3: warning: addi seen\n")
    assert "func.func @f" in out


def test_blk_opt_verifies_pass_warnings_against_annotations(
    tmp_path: Path, extra_passes: None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "warn.mlir"
    path.write_text(VALID.replace(": i32\n", ": i32 // expected-warning {{addi seen}}\n", 1))
    assert _run_blk_opt([str(path), "-p", "test-warn-addi", "--verify-diagnostics"]) == 0
    assert capsys.readouterr().err == ""
    path.write_text(VALID)
    assert _run_blk_opt([str(path), "-p", "test-warn-addi", "--verify-diagnostics"]) == 1
    assert "error: unexpected warning: addi seen" in capsys.readouterr().err


def test_blk_opt_locates_pattern_failures_without_a_module_dump(
    tmp_path: Path, extra_passes: None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "refuse.mlir"
    path.write_text(VALID)
    assert _run_blk_opt([str(path), "-p", "test-refuse-addi"]) == 1
    out, err = capsys.readouterr()
    assert err == f"{path}:2:3: error: addi refused\n  %0 = arith.addi %a, %a : i32\n  ^\n"
    assert out == ""


def test_blk_opt_keeps_going_after_a_failed_chunk(
    tmp_path: Path, extra_passes: None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chunks.mlir"
    path.write_text(f"{VALID}// -----\n{VALID}")
    assert _run_blk_opt([str(path), "--split-input-file", "-p", "test-fail"]) == 1
    err = capsys.readouterr().err
    assert err.count("error: nothing to do") == 2
    assert f"{path}:6:1: error: nothing to do" in err
