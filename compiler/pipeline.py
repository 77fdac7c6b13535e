"""Parse, verify and run pass pipelines: the steps `blk-opt` and the Python API share.

    module = blkc.parse(text, "kernel.mlir")
    module = blkc.run_pipeline(module, "promote-types{policy=numpy},canonicalize")

User errors (bad input, failed verification, a pass refusing the IR, a bad pipeline spec)
raise `blkc.BlkcError`, whose text is the located diagnostics.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from functools import cache

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException

from blkc import dialects
from blkc.diagnostics import (
    BlkcError,
    Diagnostic,
    Severity,
    SourceLocation,
    error_from_exception,
    parse_module,
    register_source,
    verify_module,
)

PassFactory = Callable[[], type[ModulePass]]
AfterPass = Callable[[ModulePass, ModuleOp], None]

_PIPELINE_SOURCE = "<pass-pipeline>"


@cache
def _multiverse() -> Universe:
    # Loads every `xdsl.universe` entry point (xDSL's and blkc's): do it once per process.
    return Universe.get_multiverse()


def available_passes() -> dict[str, PassFactory]:
    """Every registered pass (xDSL's and blkc's), by flag name, as lazy factories."""
    return _multiverse().all_passes


def make_context(*, allow_unregistered: bool = False) -> Context:
    """A context knowing every dialect of xDSL and blkc (loaded lazily, on first use)."""
    return dialects.context(allow_unregistered=allow_unregistered)


def parse(text: str, filename: str = "<string>", ctx: Context | None = None) -> ModuleOp:
    """Parse MLIR text into a verified module whose ops carry their source locations."""
    module = parse_module(ctx or make_context(), text, filename)
    verify_module(module)
    return module


def build_passes(spec: str, passes: dict[str, PassFactory] | None = None) -> tuple[ModulePass, ...]:
    """The passes named by an xDSL pipeline spec such as `pass1,pass2{opt=v}`.

    Raises a `BlkcError` for a malformed spec, an unknown pass or a bad option.
    """
    passes = available_passes() if passes is None else passes
    try:
        specs = list(parse_pipeline(spec))
    except ArgSpecParseError as exc:
        raise _spec_syntax_error(spec, exc) from None
    built: list[ModulePass] = []
    for pass_spec in specs:
        if pass_spec.name not in passes:
            close = difflib.get_close_matches(pass_spec.name, passes, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise BlkcError(
                Diagnostic(
                    Severity.ERROR,
                    f"'{pass_spec.name}' does not refer to a registered pass{hint}",
                    None,
                )
            )
        try:
            built.append(passes[pass_spec.name]().from_pass_spec(pass_spec))
        except ValueError as exc:
            raise BlkcError(
                Diagnostic(
                    Severity.ERROR, f"invalid options for pass '{pass_spec.name}': {exc}", None
                )
            ) from None
    return tuple(built)


def _spec_syntax_error(spec: str, exc: ArgSpecParseError) -> BlkcError:
    # xDSL keeps only the rendered text: "...:\npass-pipeline:1:COL\n<spec>\n<caret>\nMSG".
    text = str(exc).splitlines()
    column = re.search(r":(\d+)$", text[1]) if len(text) > 1 else None
    register_source(_PIPELINE_SOURCE, spec)
    location = SourceLocation(_PIPELINE_SOURCE, 1, int(column.group(1))) if column else None
    return BlkcError(
        Diagnostic(Severity.ERROR, f"invalid pass pipeline: {text[-1].strip()}", location)
    )


def apply_passes(
    ctx: Context,
    module: ModuleOp,
    passes: Sequence[ModulePass],
    *,
    verify: bool = True,
    after_pass: AfterPass | None = None,
) -> None:
    """Run `passes` in order on `module`, verifying after each one (located errors).

    A pass's xDSL diagnostic exception (PassFailedException, a pattern's VerifyException)
    becomes a `BlkcError` at the op being rewritten; `after_pass` runs after each pass
    and its verification.
    """
    for module_pass in passes:
        try:
            module_pass.apply(ctx, module)
        except DiagnosticException as exc:
            raise error_from_exception(exc, module) from None
        if verify:
            try:
                verify_module(module)
            except BlkcError as exc:
                exc.diagnostics[0].notes.append(
                    (None, f"the IR is invalid after pass '{module_pass.name}'")
                )
                raise
        if after_pass is not None:
            after_pass(module_pass, module)


def run_pipeline(module: ModuleOp, spec: str, ctx: Context | None = None) -> ModuleOp:
    """Run the passes of pipeline `spec` on `module` in place, verifying after each; return
    the module."""
    passes = build_passes(spec)
    apply_passes(ctx or make_context(), module, passes)
    return module


def to_strict_spec(policy: str | None, warn: bool = False) -> str:
    """The pipeline spec of `to-strict` under `policy` (None: the module's, else the
    process-wide default)."""
    options = [f"policy={policy}"] if policy else []
    options.append(f"warn={'true' if warn else 'false'}")
    return f"to-strict{{{' '.join(options)}}}"


def lower(module: ModuleOp, policy: str | None, lowering: str) -> tuple[str, str]:
    """Run `to-strict`, then the passes `lowering` names, on `module` in place; return the
    strict and the lowered IR text."""
    run_pipeline(module, to_strict_spec(policy))
    strict = str(module)
    run_pipeline(module, lowering)
    return strict, str(module)


def parse_attributes(texts: Sequence[str]) -> list[Attribute]:
    """Types and attributes from their IR text (as the disk cache stores them)."""
    ctx = make_context()
    return [Parser(ctx, text).parse_attribute() for text in texts]
