"""Choosing a target: the argument, else BLKC_TARGET, else cpu."""

from __future__ import annotations

import pytest

from blkc import targets
from blkc.backends import cpu
from blkc.runtime import cpu_target


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
    # The CPU lowering sizes `dot`'s register tile from the host's vector registers.
    host = cpu_target.host()
    assert targets.lowering("cpu") == cpu.lowering_for(host)
    registers = f"vector-bits={host.vector_bits} vector-registers={host.vector_registers}"
    loops = f"convert-blk-to-loops{{{registers}"
    pairs = f" pair-dot-types={','.join(host.pair_dot_types)}" if host.pair_dot_types else ""
    assert loops + pairs + "}" in targets.lowering("cpu")
