"""The distribution maps the repository folders under the one import name `blkc`."""

import re
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_wheel_maps_folders_under_blkc_and_registers_entry_points(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--verbose", "--no-deps", "-w", tmp_path, REPO],
        check=True,
        capture_output=True,
        text=True,
    )
    # The build backend reads pyproject.toml without complaint (no deprecated license
    # table, no data folder missing from `packages`): an install prints no warning of ours.
    complaints = re.findall(r"^.*\w+Warning: .*$", build.stdout + build.stderr, re.MULTILINE)
    assert not complaints, "\n".join(complaints)
    (wheel,) = tmp_path.glob("blkc-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in (
        "blkc/__init__.py",
        "blkc/dtypes.py",
        "blkc/dialects/blk.py",
        "blkc/passes/registry.py",
        "blkc/promotion/tables/numpy.json",
        "blkc/passes/promotion/base.py",
        "blkc/tools/blk_opt.py",
    ):
        assert path in names, path
    assert not any(n.startswith(("compiler/", "dialects/", "tools/", "test/")) for n in names)
    (entry_points,) = [n for n in names if n.endswith("entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "blk-opt = blkc.tools.blk_opt:main" in text
    assert "[xdsl.universe]" in text and "blkc = blkc.universe:BLKC_UNIVERSE" in text


def test_editable_install_imports_from_outside_the_repository(tmp_path: Path) -> None:
    code = "import blkc.dialects.blk, blkc.dtypes; print(blkc.dialects.blk.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, check=True, capture_output=True, text=True
    )
    assert Path(out.stdout.strip()).resolve() == REPO / "dialects" / "blk.py"
