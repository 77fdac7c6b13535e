"""Mistakes of a first hour: the message names the user's file and line, shows the line
and a caret, suggests the name meant, and carries no compiler frames (BLKC_TRACEBACK=1
brings them back)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

KERNEL = """
import numpy, blkc, blkc.language as tl

@blkc.jit
def copy(X, Y, N: tl.constexpr):
    offsets = tl.arange(0, N)
    tl.store(Y + offsets, {expression})

x = numpy.ones(8, numpy.float32)
copy[(1,)](x, numpy.empty_like(x), 8)
"""


def run(tmp_path: Path, expression: str, **env: str) -> list[str]:
    script = tmp_path / "mistake.py"
    script.write_text(KERNEL.format(expression=expression))
    done = subprocess.run(
        [sys.executable, script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "BLKC_CACHE": "0", **env},
    )
    assert done.returncode == 1
    return [line for line in done.stderr.splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            "tl.lod(X + offsets)",
            "module 'blkc.language' has no attribute 'lod'; did you mean 'load'?",
        ),
        ("tl.load(X + ofsets)", "name 'ofsets' is not defined; did you mean 'offsets'?"),
        (
            "tl.load(X + offsets).to(tl.float23)",
            "has no attribute 'float23'; did you mean 'float32'?",
        ),
    ],
)
def test_a_mistake_reads_like_a_compiler_message(
    tmp_path: Path, expression: str, message: str
) -> None:
    lines = run(tmp_path, expression)
    assert len(lines) <= 8, "\n".join(lines)
    assert not any("/compiler/" in line or "/passes/" in line for line in lines)
    error = next(line for line in lines if "error:" in line)
    assert f"{tmp_path / 'mistake.py'}:7:" in error and message in error
    assert lines[-2].strip() == f"tl.store(Y + offsets, {expression})"
    assert lines[-1].strip() == "^"


def test_the_full_traceback_is_one_variable_away(tmp_path: Path) -> None:
    lines = run(tmp_path, "tl.lod(X + offsets)", BLKC_TRACEBACK="1")
    assert any("/compiler/" in line for line in lines)


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
