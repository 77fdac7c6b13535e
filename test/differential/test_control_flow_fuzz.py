"""Random kernels of nested control flow agree with Triton 3.9's interpreter
(`control_flow_fuzz`). The batch against Triton runs where ``$BLKC_TRITON_PYTHON`` names a
Python with triton and torch, and is skipped elsewhere (CI has no Triton); the generator
is tested here without it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .control_flow_fuzz import fuzz, kernel
from .test_triton_fuzz import triton_python


def test_random_control_flow_agrees_with_triton(tmp_path: Path) -> None:
    python = triton_python()
    if python is None:
        pytest.skip("needs $BLKC_TRITON_PYTHON: a Python with triton and torch installed")
    refused, mismatches = fuzz(40, 3, python, tmp_path)
    assert not mismatches, "\n".join(mismatches)
    assert refused < 40


def test_generated_kernels_nest_loops_and_branches_reproducibly() -> None:
    kinds: set[str] = set()
    for seed in range(60):
        source = kernel(seed)
        assert source == kernel(seed)
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.For | ast.While | ast.If):
                kinds.add(type(node).__name__)
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "static_range":
                kinds.add("static_range")
    assert kinds == {"For", "While", "If", "static_range"}
