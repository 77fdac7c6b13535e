"""The Python examples (`examples/*.py`, Triton-language kernels): each one's `main()` at
small sizes, whose checks against NumPy raise on a mismatch; and one run as a script."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SMALL_SIZES: dict[str, dict[str, Any]] = {
    "vector_add": {"n": 5000},
    "softmax": {"rows": 37, "cols": 300},
    "matmul": {"m": 70, "n": 45, "k": 33},
    "layernorm": {"rows": 19, "cols": 700},
    "mixed_dtypes": {"n": 3000},
    "int_division": {"n": 3000},
    "dropout": {"n": 5000},
}
"""Sizes that are not multiples of the blocks, so the masked edges run too."""


def example(name: str) -> ModuleType:
    """examples/`name`.py, imported as a module (its `_timing` import found beside it)."""
    module_name = f"blkc_example_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    if str(EXAMPLES) not in sys.path:
        sys.path.append(str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(module_name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize("name", SMALL_SIZES)
def test_example_matches_numpy_at_small_sizes(
    name: str, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the CPU, and under cpu-simt: the GPU lowering run on the CPU."""
    monkeypatch.setenv("BLKC_TARGET", target)
    rows = example(name).main(**SMALL_SIZES[name], repeat=1)
    assert rows
    for row in rows:
        assert row.blkc_ms > 0 and row.numpy_ms > 0 and row.compile_ms >= 0


def test_mixed_dtypes_promote_differently_under_the_two_policies() -> None:
    mixed = example("mixed_dtypes")
    assert [str(d) for d in mixed.result_dtypes("triton")] == [
        "float16", "float32", "uint8", "float32"
    ]
    assert [str(d) for d in mixed.result_dtypes("numpy")] == [
        "float64", "float32", "int16", "float64"
    ]
    args = mixed.inputs(64)
    with pytest.raises(AssertionError, match="the policy gives float16"):
        mixed.check("numpy", args, mixed.reference("triton", *args))


def test_int_division_check_tells_truncation_from_floor() -> None:
    division = example("int_division")
    a = numpy.array([7, -7, 7, -7], numpy.int32)
    b = numpy.array([2, 2, -2, -2], numpy.int32)
    assert division.reference("triton", a, b)[0].tolist() == [3, -3, -3, 3]
    assert division.reference("numpy", a, b)[0].tolist() == [3, -4, -4, 3]
    with pytest.raises(AssertionError, match="a // b under triton"):
        division.check("triton", a, b, *division.reference("numpy", a, b))


def test_example_runs_as_a_script() -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "vector_add.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "x numpy" in result.stdout
    assert "vector add" in result.stdout
