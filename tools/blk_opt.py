"""`blk-opt`: parse blk IR, run passes, print the result; xDSL's opt driver with located
diagnostics and an MLIR-compatible `--verify-diagnostics`.

    blk-opt kernel.mlir -p promote-types{policy=numpy},canonicalize
    blk-opt --split-input-file --verify-diagnostics invalid.mlir

User errors print `file:line:col: error: ...` with the source line and a caret, and exit
with status 1; with `--split-input-file` every chunk is still processed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from importlib.metadata import version
from io import BytesIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.xdsl_opt_main import xDSLOptMain

from blkc.diagnostics import (
    BlkcError,
    Diagnostic,
    Severity,
    capture_diagnostics,
    format_diagnostics,
    parse_module,
    register_source,
    verify_module,
)
from blkc.pipeline import apply_passes, available_passes, build_passes, make_context
from blkc.verify_diagnostics import check_diagnostics, parse_expectations

SPLIT_MARKER = "// -----"
STDIN = "-"  # the input file name that reads standard input, as in MLIR's tools


def split_input(text: str) -> list[tuple[str, int]]:
    """Split text at `// -----` lines into (chunk, number of lines before the chunk)."""
    chunks: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    for index, line in enumerate(text.splitlines(keepends=True)):
        if line.strip() == SPLIT_MARKER:
            chunks.append(("".join(current), start))
            current, start = [], index + 1
        else:
            current.append(line)
    chunks.append(("".join(current), start))
    return chunks


def _user_error(message: str) -> BlkcError:
    return BlkcError(Diagnostic(Severity.ERROR, message, None))


class BlkOptMain(xDSLOptMain):
    """xDSL's opt driver, with blkc's context, located parsing, verification and errors."""

    passes: tuple[ModulePass, ...]

    def __init__(self, args: Sequence[str] | None = None):
        self.version_format = f"blk-opt (blkc {version('blkc')}) built with xDSL {{xdsl_version}}"
        self._pass_start = time.perf_counter()
        super().__init__(description="blkc's modular optimizer driver", args=args)

    # -- set-up --------------------------------------------------------------------------

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        for action in arg_parser._actions:  # xDSL's flag, with MLIR's meaning here
            if action.dest == "verify_diagnostics":
                action.help = (
                    "check the diagnostics against the input's expected-error/warning/note/"
                    "remark annotations (MLIR's format); exit 1 on any mismatch"
                )

    def register_all_dialects(self) -> None:
        self.ctx = make_context()

    def register_all_targets(self) -> None:
        # xDSL's other targets (llvm, x86-asm, wgsl, ...) take xDSL's own lowered dialects,
        # not blk IR: offering them would promise output they cannot produce.
        super().register_all_targets()
        self.available_targets = {"mlir": self.available_targets["mlir"]}

    def register_all_passes(self) -> None:
        for name, factory in available_passes().items():
            self.register_pass(name, factory)

    def register_all_frontends(self) -> None:
        self.available_frontends["mlir"] = lambda io: self._parse_mlir(io.read().decode(), 0)

    def setup_pipeline(self) -> None:
        self.passes = build_passes(self.args.passes, self.available_passes)
        self.pipeline = PassPipeline(self.passes)

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        if self.args.input_file == STDIN:
            return sys.stdin.buffer, "mlir"
        return super().get_input_stream()

    def get_input_name(self) -> str:
        return "<stdin>" if self.args.input_file in (None, STDIN) else self.args.input_file

    # -- input ---------------------------------------------------------------------------

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        """Read the input, register it as diagnostic source, and split it if asked."""
        try:
            stream, extension = self.get_input_stream()
            with stream:
                text = stream.read().decode("utf-8")
        except OSError as exc:
            raise _user_error(
                f"cannot open input file '{self.get_input_name()}': {exc.strerror}"
            ) from None
        extension = self.args.frontend or extension
        if extension not in self.available_frontends:
            raise _user_error(f"unrecognized file extension '{extension}'")
        register_source(self.get_input_name(), text)
        pieces = split_input(text) if self.args.split_input_file else [(text, 0)]
        return [(BytesIO(chunk.encode()), offset) for chunk, offset in pieces], extension

    def _parse_mlir(self, text: str, line_offset: int) -> ModuleOp:
        return parse_module(
            self.ctx,
            text,
            self.get_input_name(),
            line_offset,
            allow_implicit_module=not self.args.no_implicit_module,
        )

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        if file_extension == "mlir":
            return self._parse_mlir(chunk.read().decode(), start_offset)
        return super().parse_chunk(chunk, file_extension, start_offset)

    # -- passes --------------------------------------------------------------------------

    def apply_passes(self, prog: ModuleOp) -> None:
        self._pass_start = time.perf_counter()
        apply_passes(
            self.ctx,
            prog,
            self.passes,
            verify=not self.args.disable_verify,
            after_pass=self._after_pass,
        )

    def _after_pass(self, module_pass: ModulePass, module: ModuleOp) -> None:
        if self.args.time_passes:
            elapsed = time.perf_counter() - self._pass_start
            print(f"Pass {module_pass.name} took {elapsed} seconds", file=sys.stderr)
        if self.args.print_between_passes and module_pass is not self.passes[-1]:
            print(f"IR after {module_pass.name}:")
            Printer(stream=sys.stdout).print_op(module)
            print("\n\n\n")
        self._pass_start = time.perf_counter()

    # -- driver --------------------------------------------------------------------------

    def run(self) -> None:
        """Process every chunk; exit with status 1 if any failed (or mismatched its
        expected diagnostics), after processing all of them."""
        chunks, extension = self.prepare_input()
        output = self.prepare_output()
        failed = False
        try:
            for index, (chunk, offset) in enumerate(chunks):
                if index > 0:
                    output.write(f"{SPLIT_MARKER}\n")
                with chunk:
                    failed |= not self._process_chunk(chunk.read(), extension, offset, output)
                output.flush()
        finally:
            if output is not sys.stdout:
                output.close()
        if failed:
            raise SystemExit(1)

    def _process_chunk(self, data: bytes, extension: str, offset: int, output: IO[str]) -> bool:
        """Parse, verify, transform and print one chunk; report its diagnostics. Returns
        whether the chunk succeeded (under --verify-diagnostics: matched its annotations)."""
        error: BlkcError | None = None
        parsed = False
        with capture_diagnostics() as engine:
            try:
                module = self.parse_chunk(BytesIO(data), extension, offset)
                parsed = True
                if module is not None:
                    if not self.args.disable_verify:
                        verify_module(module)
                    self.apply_passes(module)
                    output.write(self.output_resulting_program(module))
            except BlkcError as exc:
                error = exc
        produced = engine.diagnostics + (error.diagnostics if error else [])
        if self.args.verify_diagnostics:
            text = data.decode()
            expectations = parse_expectations(text, self.get_input_name(), offset)
            problems = check_diagnostics(produced, expectations, self.get_input_name())
            sys.stderr.write(format_diagnostics(problems))
            return not problems
        if error is not None and not parsed and self.args.parsing_diagnostics:
            sys.stdout.write(str(error))  # xDSL's flag: the parse error on stdout, success
            return True
        sys.stderr.write(format_diagnostics(produced))
        return error is None


def main(args: Sequence[str] | None = None) -> None:
    """The `blk-opt` console script."""
    try:
        BlkOptMain(args).run()
    except BlkcError as exc:
        sys.stderr.write(str(exc))
        raise SystemExit(1) from None
    except BrokenPipeError:  # the reader of the output left (`| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
