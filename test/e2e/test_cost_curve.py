"""bench/cost_curve.py: its --quick run at tiny sizes gives a row per case and size with a
time per provider, the ratio table and, with --out, each case's CSV (and plot)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "cost_curve.py"


def cost_curve() -> ModuleType:
    if "blkc_cost_curve" not in sys.modules:
        spec = importlib.util.spec_from_file_location("blkc_cost_curve", SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["blkc_cost_curve"] = module
        spec.loader.exec_module(module)
    return sys.modules["blkc_cost_curve"]


def test_quick_run_gives_a_time_per_provider_for_every_case_and_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    curve = cost_curve()
    args = ["--quick", "--cols", "48", "--warmup", "0", "--rep", "1", "--out", str(tmp_path)]
    rows = curve.main(args)
    providers = curve.Curve(48, 0, 1).providers()
    assert providers[:2] == ["blkc", "numpy"]
    expected = [(case.name, case.shape(size, 48)) for case in curve.CASES for size in case.quick]
    assert [(row.case, row.size) for row in rows] == expected
    assert ("softmax", "64x48") in expected and ("matmul", "128^3") in expected
    for row in rows:
        assert list(row.times) == providers and all(t > 0 for t in row.times.values())
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 + len(rows)
    others = len(providers) - 1
    assert lines[0].split()[-others:] == [f"blkc/{p}" for p in providers[1:]]
    for line, row in zip(lines[2:], rows, strict=True):
        ratio = float(line.split()[-others])
        assert ratio == pytest.approx(row.times["blkc"] / row.times["numpy"], rel=0.01, abs=0.01)
    csv = (tmp_path / "cost-softmax.csv").read_text().splitlines()
    assert csv[0] == "size," + ",".join(f"{p} (ms)" for p in providers)
    assert [line.split(",")[0] for line in csv[1:]] == ["64", "256"]
    assert (tmp_path / "cost_curve.txt").read_text().splitlines() == lines
    if importlib.util.find_spec("matplotlib") is not None:
        assert (tmp_path / "cost-matmul.png").read_bytes().startswith(b"\x89PNG")


def test_table_gives_blkc_time_over_each_other_providers() -> None:
    curve = cost_curve()
    row = curve.Row("vector add", "1K", {"blkc": 2.0, "numpy": 4.0, "torch": 1.0})
    table = curve.format_table([row], ["blkc", "numpy", "torch"]).splitlines()
    assert table[0].split()[-2:] == ["blkc/numpy", "blkc/torch"]
    assert table[2].split()[-2:] == ["0.50", "2.00"]


def test_sizes_span_the_ranges_asked() -> None:
    sizes = {case.name: case.sizes for case in cost_curve().CASES}
    assert (sizes["vector add"][0], sizes["vector add"][-1]) == (1 << 10, 64 << 20)
    assert (sizes["softmax"][0], sizes["softmax"][-1]) == (64, 16 << 10)
    assert (sizes["layer norm"][0], sizes["layer norm"][-1]) == (64, 16 << 10)
    assert (sizes["matmul"][0], sizes["matmul"][-1]) == (64, 2048)
