"""Mistakes of a first hour: the message names the user's file and line, shows the line
and a caret, suggests the name meant, and carries no compiler frames (BLKC_TRACEBACK=1
brings them back).

The mistakes: a misspelled `tl` function, variable or dtype; blocks whose shapes do not
broadcast; an `arange` whose length is no power of two, or is not known at compile time;
Python that kernels do not run (a comprehension, a NumPy call); a launch with an argument
missing, a list for an array, a grid that is no grid, or no grid at all; an access out of
bounds; and on the command line, a kernel file whose imports fail and a file of several
kernels given no values.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import blkc
import blkc.dialects
import blkc.passes
import blkc.runtime

BLKC_FOLDERS = tuple(
    f"{Path(package.__file__).parent}/"
    for package in (blkc, blkc.dialects, blkc.passes, blkc.runtime)
)
"""Where blkc's own frames come from."""


def blkc_frames(lines: list[str]) -> list[str]:
    return [line for line in lines if any(folder in line for folder in BLKC_FOLDERS)]


KERNEL = """
import numpy, blkc, blkc.language as tl

@blkc.jit
def copy(X, Y, N: tl.constexpr):
    offsets = tl.arange(0, N)
    {statement}

x = numpy.ones(8, numpy.float32)
{launch}
"""
STATEMENT_LINE, LAUNCH_LINE = 7, 10
LAUNCH = "copy[(1,)](x, numpy.empty_like(x), 8)"


def run(tmp_path: Path, statement: str, launch: str = LAUNCH, **env: str) -> list[str]:
    script = tmp_path / "mistake.py"
    script.write_text(KERNEL.format(statement=statement, launch=launch))
    done = subprocess.run(
        [sys.executable, script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "BLKC_CACHE": "0", **env},
    )
    assert done.returncode == 1
    return [line for line in done.stderr.splitlines() if line.strip()]


def store(value: str) -> str:
    return f"tl.store(Y + offsets, {value})"


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        (
            store("tl.lod(X + offsets)"),
            "module 'blkc.language' has no attribute 'lod'; did you mean 'load'?",
        ),
        (store("tl.load(X + ofsets)"), "name 'ofsets' is not defined; did you mean 'offsets'?"),
        (
            store("tl.load(X + offsets).to(tl.float23)"),
            "has no attribute 'float23'; did you mean 'float32'?",
        ),
        (
            store("tl.load(X + offsets) + tl.load(X + tl.arange(0, 16))"),
            "cannot broadcast: dimension 0 has sizes 8 and 16",
        ),
        (
            "tl.store(Y + tl.arange(0, 6), tl.load(X + offsets))",
            "arange's length must be a power of two, got 6",
        ),
        (
            "tl.store(Y + tl.arange(0, X), tl.load(X + offsets))",
            "arange's end must be a compile-time constant",
        ),
        ("squares = {i: i * i for i in range(3)}", "dict comprehensions are not supported"),
        (
            store("numpy.exp(tl.load(X + offsets))"),
            "cannot call 'exp' in a kernel: kernels call tl functions and other @blkc.jit",
        ),
    ],
)
def test_a_mistake_reads_like_a_compiler_message(
    tmp_path: Path, statement: str, message: str
) -> None:
    lines = run(tmp_path, statement)
    assert len(lines) <= 6, "\n".join(lines)
    assert not blkc_frames(lines)
    assert lines[1] == f'  File "{tmp_path / "mistake.py"}", line {LAUNCH_LINE}, in <module>'
    error = next(line for line in lines if "error:" in line)
    assert f"{tmp_path / 'mistake.py'}:{STATEMENT_LINE}:" in error and message in error
    assert lines[-2].strip() == statement
    assert lines[-1].strip() == "^"


@pytest.mark.parametrize(
    ("launch", "message"),
    [
        (
            "copy[(1,)](x, numpy.empty_like(x))",
            "TypeError: kernel 'copy': missing 1 required positional argument: 'N'",
        ),
        (
            "copy[(1,)](list(x), numpy.empty_like(x), 8)",
            "TypeError: kernel 'copy', argument 'X': cannot pass list to a kernel",
        ),
        (
            "copy[(1,)](x.astype(numpy.complex64), numpy.empty_like(x), 8)",
            "TypeError: kernel 'copy', argument 'X': kernels take no complex numbers (complex64)",
        ),
        ("copy[8.5](x, numpy.empty_like(x), 8)", "TypeError: a grid is a tuple of 1 to 3 ints"),
        (
            "copy[(1,)](x, numpy.empty(4, numpy.float32), 8)",
            "IndexError: kernel 'copy' accessed memory outside the arrays it was given, at one "
            "of {script}:7:",
        ),
    ],
)
def test_a_launch_mistake_is_the_launch_line_and_the_message(
    tmp_path: Path, launch: str, message: str
) -> None:
    lines = run(tmp_path, store("tl.load(X + offsets)"), launch)
    script = tmp_path / "mistake.py"
    assert lines == [
        "Traceback (most recent call last):",
        f'  File "{script}", line {LAUNCH_LINE}, in <module>',
        f"    {launch}",
        lines[-1],
    ]
    assert lines[-1].startswith(message.format(script=script))


def test_a_kernel_called_without_a_grid_says_how_to_launch_it(tmp_path: Path) -> None:
    launch = "copy(x, numpy.empty_like(x), 8)"
    lines = run(tmp_path, store("tl.load(X + offsets)"), launch)
    assert lines[:3] == [
        "Traceback (most recent call last):",
        f'  File "{tmp_path / "mistake.py"}", line {LAUNCH_LINE}, in <module>',
        f"    {launch}",
    ]
    assert len(lines) == 4
    assert lines[-1] == (
        "RuntimeError: 'copy' is a @blkc.jit kernel: launch it with copy[grid](...), or call "
        "it from another kernel"
    )


def test_the_full_traceback_is_one_variable_away(tmp_path: Path) -> None:
    lines = run(tmp_path, store("tl.lod(X + offsets)"), BLKC_TRACEBACK="1")
    assert any("frontend/python.py" in line for line in blkc_frames(lines))
    launch = "copy[(1,)](x, numpy.empty_like(x))"
    lines = run(tmp_path, store("tl.load(X + offsets)"), launch, BLKC_TRACEBACK="1")
    assert any("jitfunction.py" in line for line in blkc_frames(lines))


def test_a_grid_that_is_no_grid_is_refused_with_what_a_grid_is() -> None:
    import numpy

    import blkc
    import blkc.language as tl

    @blkc.jit
    def fill(X, N: tl.constexpr):
        tl.store(X + tl.arange(0, N), 1.0)

    x = numpy.zeros(4, numpy.float32)
    for grid in (("8",), (8.5,), None, "8"):
        with pytest.raises(TypeError, match="a grid is a tuple of 1 to 3 ints"):
            fill[grid](x, 4)
    with pytest.raises(TypeError, match="a grid function must return a tuple of 1 to 3 ints"):
        fill[lambda meta: "1"](x, 4)
    fill[(1,)](x, 4)
    assert x.tolist() == [1.0] * 4


def test_dir_lists_the_public_names_and_the_version_is_one_flag_away() -> None:
    import blkc
    import blkc.dialects
    import blkc.passes

    assert {"jit", "compile", "Kernel", "language", "reinterpret"} <= set(dir(blkc))
    assert {"blk", "simt", "context"} <= set(dir(blkc.dialects))
    assert {"promote_types", "convert_blk_to_loops", "registry"} <= set(dir(blkc.passes))
    blkc_command = Path(sys.executable).with_name("blkc")
    done = subprocess.run([blkc_command, "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("blkc ")


def test_a_lossy_cast_is_a_python_warning_at_its_line() -> None:
    import warnings

    import blkc
    from blkc.diagnostics import BlkcWarning

    text = """func.func @k(%x: tensor<4xi32>, %h: tensor<4xf16>) -> tensor<4xf16> {
  %y = blk.add %x, %h : tensor<4xi32>, tensor<4xf16> -> tensor<4xf16>
  func.return %y : tensor<4xf16>
}
"""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        blkc.run_pipeline(blkc.parse(text, "lossy.mlir"), "to-strict")
    (warning,) = [w for w in caught if issubclass(w.category, BlkcWarning)]
    assert "implicit cast from int32 to float16 can lose information" in str(warning.message)
    assert (warning.filename, warning.lineno) == ("lossy.mlir", 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BlkcWarning)  # a library user can make it an error
        with pytest.raises(BlkcWarning):
            blkc.run_pipeline(blkc.parse(text, "lossy.mlir"), "to-strict")


def test_a_kernel_file_whose_imports_fail_is_an_error_at_the_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from blkc.tools.blkc_main import main

    script = tmp_path / "kernels.py"
    script.write_text("import numpy\nimport no_such_module\n")
    assert main([str(script), "--emit=loose"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        f"{script}:2:1: error: importing kernels.py failed: "
        "ModuleNotFoundError(\"No module named 'no_such_module'\")",
        "import no_such_module",
        "^",
    ]


def test_a_file_of_several_kernels_says_what_each_needs_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from blkc.tools.blkc_main import main

    script = tmp_path / "kernels.py"
    script.write_text(
        "import blkc, blkc.language as tl\n\n"
        "@blkc.jit\ndef ones(X, N: tl.constexpr):\n    tl.store(X + tl.arange(0, N), 1.0)\n\n"
        "@blkc.jit\ndef twos(X, M: tl.constexpr):\n    tl.store(X + tl.arange(0, M), 2.0)\n"
    )
    assert main([str(script), "--emit=loose"]) == 1
    lines = capsys.readouterr().err.splitlines()
    said = [line for line in lines if "error:" in line or line.startswith("note:")]
    assert said == [
        f"{script}:4:13: error: constexpr parameter 'N' of ones needs a value: pass -DN=...",
        f"{script}:8:13: error: constexpr parameter 'M' of twos needs a value: pass -DM=...",
        "note: kernels.py has kernels ones, twos: --kernel NAME compiles one",
    ]
    assert main([str(script), "--kernel", "twos", "-DM=4", "--emit=loose"]) == 0
    assert "func.func @twos" in capsys.readouterr().out


def test_blkc_reads_ir_from_stdin_and_a_closed_pipe_is_no_traceback(tmp_path: Path) -> None:
    blkc_command = Path(sys.executable).with_name("blkc")
    source = (Path(__file__).resolve().parents[3] / "examples" / "vector_add.mlir").read_text()
    env = {**os.environ, "BLKC_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [blkc_command, "-", "--emit=strict"], input=source, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and "func.func @vector_add" in done.stdout
    bad = subprocess.run(
        [blkc_command, "-"],
        input="func.func @f() {\n  %x = blk.nope\n}\n",
        capture_output=True,
        text=True,
        env=env,
    )
    assert bad.returncode == 1
    assert bad.stderr.startswith("<stdin>:2:8: error: Operation blk.nope is not registered")
    # The reader is gone before the IR is written (`blkc ... | head -1` with a slow compile).
    reader_gone = subprocess.Popen(
        [blkc_command, "-", "--emit=llvm"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    reader_gone.stdout.close()  # type: ignore[union-attr]
    _, err = reader_gone.communicate(source.encode(), timeout=300)
    assert reader_gone.returncode == 1 and b"Traceback" not in err, err.decode()


def test_the_demo_names_the_cpu_its_ratios_come_from(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3] / "examples"))
    import _timing

    row = _timing.Row("vector add", "16 f32", 1.0, 2.0, 10.0, cached=False)
    _timing.print_rows([row])
    first = capsys.readouterr().out.splitlines()[0]
    assert re.fullmatch(
        r"   measured on .+ \(\w[\w-]*\), \d+ cores, (AVX-512|AVX2|SVE|NEON|no AVX2 or AVX-512)",
        first,
    ), first


@pytest.mark.parametrize(
    "first", ["blkc", "blkc.jitfunction", "blkc.frontend.cli", "blkc.frontend.python"]
)
def test_blkc_imports_in_any_order(first: str) -> None:
    # `import blkc` then `@blkc.jit` (no `blkc.language` first), and `blkc kernel.py`, which
    # starts from blkc.frontend.cli: tl.random's helpers are @jit functions themselves.
    code = f"import {first}; import blkc; blkc.jit; import blkc.language as tl; tl.rand"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_kernels_print_short() -> None:
    import numpy

    import blkc.language as tl

    @blkc.jit
    def fill(X, N: tl.constexpr):
        tl.store(X + tl.arange(0, N), 1.0)

    kernel = fill.warmup(numpy.zeros(4, numpy.float32), 4)
    assert repr(kernel) == "<blkc.Kernel 'fill' for cpu>"
    assert len(repr(fill)) < 80 and "fill" in repr(fill)


def test_only_user_errors_lose_blkc_frames() -> None:
    from blkc.runtime.grid import user_entry

    @user_entry
    def refuses() -> None:
        raise TypeError("kernel 'k': cannot pass list to a kernel")

    @user_entry
    def breaks() -> None:
        raise AssertionError  # a bare assert of blkc's own: a bug, its frames kept

    with pytest.raises(TypeError) as refused:
        refuses()
    assert [entry.name for entry in refused.traceback][-1] == "entry"
    with pytest.raises(AssertionError) as broken:
        breaks()
    assert [entry.name for entry in broken.traceback][-2:] == ["entry", "breaks"]


def test_blkc_without_emit_or_run_says_what_it_did(capsys: pytest.CaptureFixture[str]) -> None:
    from blkc.tools.blkc_main import main

    example = Path(__file__).resolve().parents[3] / "examples" / "vector_add.mlir"
    assert main([str(example)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "blkc: compiled vector_add (--emit=STAGE prints a stage, --run runs it on generated "
        "inputs)\n"
    )
