"""`blkc FILE.tc`: -D defines (lists too), --emit of every stage, --run, --kernel, and
located errors with exit status 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from blkc.tools.blkc_main import main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "triton_c"


def blkc(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("stage", "expected"),
    [
        ("loose", "blk.arange 0, 256 : tensor<256xi32>"),
        ("strict", "blk.splat"),
        ("loops", "scf.for"),
        ("llvm", "define"),
        ("asm", "ret"),
    ],
)
def test_emit_every_stage(stage: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = blkc(str(EXAMPLES / "vector_add.tc"), "-DTM=256", f"--emit={stage}",
                          capsys=capsys)
    assert status == 0
    assert expected in out


def test_run_on_generated_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = blkc(str(EXAMPLES / "softmax.tc"), "-DTN=64", "--run", "--grid", "1",
                          "--size", "256", capsys=capsys)
    assert status == 0
    assert "ran softmax on grid (1,)" in out


def test_list_define_tunes_on_run(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = blkc(str(EXAMPLES / "vector_add.tc"), "-DTM=[64,128]", "--run",
                            "--grid", "4", "--size", "512", capsys=capsys)
    assert status == 0
    assert "blkc: autotuning vector_add [1/2]" in err
    assert "TM=64" in err and "TM=128" in err
    assert "ran vector_add" in out


def test_kernel_selection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "two.tc"
    source.write_text("__global__ void one(int *X) { *X = 1; }\n"
                      "__global__ void two(int *X) { *X = 2; }\n")
    status, out, _ = blkc(str(source), "--emit=loose", capsys=capsys)  # every kernel
    assert status == 0
    assert "// ----- kernel one -----" in out and "func.func @two" in out
    status, _, err = blkc(str(source), "--run", capsys=capsys)
    assert status == 1
    assert "has several kernels (one, two): name the one to run with --kernel" in err
    status, out, _ = blkc(str(source), "--kernel", "two", "--emit=loose", capsys=capsys)
    assert status == 0
    assert "func.func @two" in out and "@one" not in out


def test_policy_option(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = blkc(str(EXAMPLES / "transpose.tc"), "--policy=jax", "--emit=loose",
                          capsys=capsys)
    assert status == 0
    assert 'blk.policy = "jax"' in out


def test_errors_are_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "bad.tc"
    source.write_text("__global__ void k(float *X) {\n  float a[TM] = 0 ... TM;\n}\n")
    status, out, err = blkc(str(source), "-DTM=12", capsys=capsys)
    assert status == 1
    assert out == ""
    assert f"{source}:2:19: error: arange's length must be a power of two, got 12" in err
    assert "  float a[TM] = 0 ... TM;\n                  ^\n" in err
    assert "Traceback" not in err


def test_bad_define(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = blkc(str(EXAMPLES / "vector_add.tc"), "-D1TM=4", capsys=capsys)
    assert status == 1
    assert "'1TM' is not a macro name" in err


def test_installed_command(tmp_path: Path) -> None:
    tool = Path(sys.executable).parent / "blkc"
    result = subprocess.run(
        [str(tool), str(EXAMPLES / "row_sum.tc"), "-DTM=4", "-DTN=32", "--emit=loose"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "blk.reduce sum" in result.stdout
