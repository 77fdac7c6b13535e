"""Choosing a target: the argument, else BLKC_TARGET, else cpu."""

from __future__ import annotations

import pytest

from blkc import targets


def test_default_is_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BLKC_TARGET", raising=False)
    assert targets.resolve(None) == "cpu"


def test_environment_chooses_when_the_argument_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BLKC_TARGET", "cpu-simt")
    assert targets.resolve(None) == "cpu-simt"
    assert targets.resolve("ptx") == "ptx"


def test_unknown_target_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BLKC_TARGET", "tpu")
    with pytest.raises(ValueError, match="unknown target 'tpu' \\(targets: cpu, cpu-simt, ptx\\)"):
        targets.resolve(None)


def test_gpu_targets_share_the_simt_lowering() -> None:
    simt = targets.lowering("ptx", 8)
    assert "convert-blk-to-simt{num-warps=8}" in simt.split(",")
    assert targets.lowering("cpu-simt", 8) == simt + ",convert-simt-to-thread-loops"
    assert targets.lowering("cpu") == targets.CPU_LOWERING
