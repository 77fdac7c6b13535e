"""Random kernels of shape ops, reductions, scans and dots agree with Triton 3.9's
interpreter (`shape_fuzz`). The batch against Triton runs where ``$BLKC_TRITON_PYTHON``
names a Python with triton and torch, and is skipped elsewhere (CI has no Triton); the
generator is tested here without it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from . import triton_fuzz
from .shape_fuzz import FAMILIES, families, fuzz, kernel
from .test_triton_fuzz import triton_python

COUNT = 30
SEED = 4
"""Kernels 400000..400029: the ones the Triton batch runs."""


def test_random_shape_kernels_agree_with_triton(tmp_path: Path) -> None:
    python = triton_python()
    if python is None:
        pytest.skip("needs $BLKC_TRITON_PYTHON: a Python with triton and torch installed")
    outcomes, mismatches = fuzz(COUNT, SEED, python, tmp_path, batch=COUNT)
    assert len(outcomes) == COUNT
    assert not mismatches, "\n".join(triton_fuzz.reproducer(m) for m in mismatches)
    assert sum(str(o.theirs["status"]) == "ok" for o in outcomes) > COUNT // 2


def test_generated_kernels_are_reproducible_and_draw_every_family() -> None:
    seen: set[str] = set()
    for seed in range(300):
        case = kernel(seed)
        source = case.source
        assert source == kernel(seed).source
        function = ast.parse(source).body[-1]
        assert isinstance(function, ast.FunctionDef) and function.name == f"k{seed}"
        assert all(value != 1 for _, value in case.scalars)
        seen |= families(case)
    assert seen == set(FAMILIES)
