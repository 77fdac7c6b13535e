"""bench/launch.py runs and prints its table (the timings themselves are not tested)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "launch.py"


def test_the_launch_bench_prints_each_row() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH), "--launches", "20", "--repeats", "1"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    names = [line[:30].strip() for line in lines[1:-1]]
    assert names == [
        "blkc launch, NumPy arrays",
        "blkc launch, grid function",
        "blkc.compile kernel launch",
        "numpy.add",
        "blkc launch, torch tensors",
        "torch.add",
    ]
    for line in lines[1:-1]:
        assert float(line[30:39]) > 0
    assert lines[-1].startswith("warm start: import blkc + blkc.language ")
