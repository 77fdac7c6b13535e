"""Random Triton kernels agree with Triton 3.9's interpreter (`triton_fuzz`).

The batch against Triton runs where ``$BLKC_TRITON_PYTHON`` names a Python that imports
triton and torch, and is skipped, saying so, elsewhere (CI has no Triton). The comparison
and the generator are tested here without Triton.
"""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from . import triton_fuzz
from .triton_fuzz import Generator, compare, compare_values

COUNT = 30
SEED = 7


def triton_python() -> str | None:
    """``$BLKC_TRITON_PYTHON`` if it imports triton and torch, else None."""
    python = os.environ.get("BLKC_TRITON_PYTHON")
    if not python:
        return None
    found = subprocess.run([python, "-c", "import triton, torch"], capture_output=True)
    return python if found.returncode == 0 else None


def test_random_kernels_agree_with_triton(tmp_path: Path) -> None:
    python = triton_python()
    if python is None:
        pytest.skip("needs $BLKC_TRITON_PYTHON: a Python with triton and torch installed")
    outcomes, mismatches = triton_fuzz.fuzz(COUNT, SEED, python, tmp_path, batch=COUNT)
    assert len(outcomes) == COUNT
    assert not mismatches, "\n".join(triton_fuzz.reproducer(m) for m in mismatches)


def test_generated_kernels_are_python_and_reproducible() -> None:
    for seed in range(40):
        case = Generator(seed).generate(f"k{seed}")
        tree = ast.parse(case.source)
        function = tree.body[0]
        assert isinstance(function, ast.FunctionDef) and function.name == f"k{seed}"
        assert case.source == Generator(seed).generate(f"k{seed}").source
        assert set(case.arrays) <= {"X0", "X1"} and "tl.store(OUT" in case.source


def test_generated_inputs_hold_edge_values() -> None:
    seen: set[str] = set()
    for seed in range(60):
        for array in Generator(seed).generate("k").arrays.values():
            if array.dtype.kind == "f":
                seen |= {"nan"} if np.isnan(array).any() else set()
                seen |= {"-0.0"} if (np.signbit(array) & (array == 0)).any() else set()
                seen |= {"inf"} if np.isinf(array).any() else set()
            elif array.dtype.kind in "iu":
                info = np.iinfo(array.dtype)
                seen |= {"extreme"} if ((array == info.min) | (array == info.max)).any() else set()
    assert seen == {"nan", "-0.0", "inf", "extreme"}


def result(out: np.ndarray, dtype: str, status: str = "ok") -> dict[str, object]:
    return {"status": status, "error": "", "dtype": dtype, "out": out}


def test_compare_integers_bit_for_bit() -> None:
    a = np.array([1, -(2**63)], np.int64)
    assert compare_values("int64", False, a, a.copy()) is None
    mismatch = compare_values("int64", False, a, np.array([1, 2**63 - 1], np.int64))
    assert mismatch is not None and mismatch[0] == "values" and "(1,)" in mismatch[1]


def test_compare_floats_nan_positions_and_signed_zeros() -> None:
    t = np.array([np.nan, 0.0, 1.0], np.float32)
    payload = np.array([0x7FC00001, 0, 0x3F800000], np.uint32).view(np.float32)
    assert compare_values("fp32", False, t, payload) is None
    moved = compare_values("fp32", False, t, np.array([1.0, 0.0, np.nan], np.float32))
    assert moved is not None and moved[0] == "NaN positions"
    zero = compare_values("fp32", False, t, np.array([np.nan, -0.0, 1.0], np.float32))
    assert zero is not None and zero[0] == "signed zeros"
    up = np.nextafter(np.float32(1), np.float32(2))
    ulp = compare_values("fp32", False, t, np.array([np.nan, 0.0, up], np.float32))
    assert ulp is not None and ulp[0] == "values"


def test_compare_inexact_floats_within_their_bound() -> None:
    t = np.array([1.0, 100.0], np.float32)
    near = (t * (1 + 2.0**-20)).astype(np.float32)
    assert compare_values("fp32", True, t, near) is None
    far = compare_values("fp32", True, t, (t * 1.01).astype(np.float32))
    assert far is not None and far[0] == "inexact values"


def test_compare_refusals() -> None:
    ok = result(np.zeros(2, np.float32), "fp32")
    refused = result(np.zeros(0), "", "refused")
    assert compare(False, refused, refused) is None
    assert compare(False, refused, ok) == ("refused by Triton only", "")
    assert compare(False, ok, refused) == ("refused by blkc only", "")
    crash = result(np.zeros(0), "", "error") | {"error": "builtins.TypeError: x"}
    assert compare(False, refused, crash) == ("blkc error", "builtins.TypeError: x")
    assert compare(False, ok, result(np.zeros(2, np.float64), "fp64")) == (
        "dtype",
        "Triton fp32, blkc fp64",
    )
