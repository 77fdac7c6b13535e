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
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    curve = cost_curve()
    monkeypatch.setattr(curve, "SETTLE", 0.0)
    args = ["--quick", "--cols", "48", "--warmup", "0", "--rep", "1", "--rounds", "2"]
    args += ["--out", str(tmp_path)]
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


def test_providers_run_in_turn_each_round_and_times_pool_over_rounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    curve = cost_curve()
    expected = curve.numpy.arange(3.0)
    runs = {"blkc": lambda: expected, "numpy": lambda: expected}
    work = curve.Work(runs, expected, 0.0, 0.0)
    timed: list[tuple[str, float]] = []
    rounds = iter(range(100))

    def do_bench(run, warmup, rep, return_mode):  # type: ignore[no-untyped-def]
        assert return_mode == "all"
        provider = "blkc" if run is runs["blkc"] else "numpy"
        timed.append((provider, rep))
        start = next(rounds) * 10.0
        return [start, start + 1.0] if provider == "blkc" else [start + 5.0]

    monkeypatch.setattr(curve.blkc.testing, "do_bench", do_bench)
    pauses: list[float] = []
    monkeypatch.setattr(curve.time, "sleep", pauses.append)
    case = curve.Case(
        "vector add", (8,), (8,), "elements", lambda n, cols: work, lambda n, cols: str(n)
    )
    measured = curve.Curve(48, 0, 30.0, rounds=3)
    median, low, high = measured.measure(8, "blkc", case)
    assert timed == [("blkc", 10.0), ("numpy", 10.0)] * 3
    assert measured.times["blkc"] == [0.0, 1.0, 20.0, 21.0, 40.0, 41.0]
    assert median == pytest.approx(20.5) and low < median < high
    assert measured.measure(8, "numpy", case)[0] == pytest.approx(35.0)  # 15, 35, 55
    assert len(timed) == 6  # the second provider's times came from the same rounds
    assert pauses == [curve.SETTLE] * 6 and curve.SETTLE > 0.02  # torch's threads spin 10-20 ms
