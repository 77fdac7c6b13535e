"""Every example kernel compiles to PTX for sm_80 and sm_90, and ptxas (where installed)
assembles it without spilling registers."""

from __future__ import annotations

from pathlib import Path

import pytest

import blkc
from blkc import targets
from blkc.backends import TargetOptions
from blkc.runtime import ptx
from blkc.runtime.gpu_kernel import STAGES, GpuKernel

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.mlir"))
needs_ptxas = pytest.mark.skipif(not ptx.ptxas_available(), reason="ptxas is not installed")


def compiled(name: str, arch: str) -> blkc.Kernel:
    path = EXAMPLES / f"{name}.mlir"
    kernel = blkc.compile(path.read_text(), target="ptx", filename=str(path), arch=arch)
    assert isinstance(kernel.program, GpuKernel)
    return kernel


@pytest.mark.parametrize("arch", targets.ARCHES)
@pytest.mark.parametrize("name", NAMES)
def test_example_compiles_to_ptx(name: str, arch: str) -> None:
    kernel = compiled(name, arch)
    assert list(kernel.asm) == [*STAGES, "ttir", "llir"]  # and Triton's names for two
    text = kernel.asm["ptx"]
    assert f".target {arch}" in text
    assert f".visible .entry {name}(" in text
    assert ".maxntid 128" in text
    assert "ld.global" in text  # pointer arguments are global memory
    assert "ld.local" not in text and "st.local" not in text  # per-thread buffers in registers
    assert kernel.program.num_warps == 4 and kernel.program.threads == 128


@needs_ptxas
@pytest.mark.parametrize("arch", targets.ARCHES)
@pytest.mark.parametrize("name", NAMES)
def test_example_assembles_without_spills(name: str, arch: str) -> None:
    kernel = compiled(name, arch)
    report = kernel.program.ptxas_report()
    assert report is not None
    assert kernel.spills == 0 and report.stack == 0
    assert kernel.n_regs is not None and 0 < kernel.n_regs <= 255


def test_reductions_use_shuffles_shared_memory_and_barriers() -> None:
    text = compiled("softmax", "sm_90").asm["ptx"]
    assert text.count("shfl.sync.bfly.b32") == 10  # two reductions of five steps
    assert "st.shared" in text and "bar.sync" in text
    assert "ex2.approx" in text


@needs_ptxas
def test_shared_memory_is_reported() -> None:
    assert compiled("vector_add", "sm_90").shared == 0
    # Two reductions, one float per warp each.
    assert compiled("softmax", "sm_90").shared == 2 * 4 * 4
    # Both 32x32 float32 dot operands.
    assert compiled("matmul", "sm_90").shared == 2 * 32 * 32 * 4


def test_unknown_arch_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown arch 'gfx90a'"):
        blkc.compile((EXAMPLES / "vector_add.mlir").read_text(), target="ptx", arch="gfx90a")


def test_ptxas_report_parsing() -> None:
    text = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 32 bytes smem
"""
    assert ptx.parse_ptxas_report(text) == {"k": ptx.PtxasReport(40, 32, 4, 4, 8)}


def test_instruction_count_skips_directives_and_labels() -> None:
    text = """.visible .entry k(
\t.param .u32 k_param_0
)
{
\t.reg .b32 \t%r<3>;
\tld.param.b32 \t%r1, [k_param_0];
$L__BB0_1:
\t@%p1 bra \t$L__BB0_1;
\tret;
}
"""
    assert ptx.count_instructions(text, "k") == 3


def test_kernel_round_trips_through_cache_data() -> None:
    import json

    kernel = compiled("softmax", "sm_80")
    options = TargetOptions("ptx", 4, "sm_80")
    again = blkc.Kernel.from_meta(json.loads(json.dumps(kernel.to_meta())), options)
    assert again.asm == kernel.asm and again.params == kernel.params
    assert isinstance(again.program, GpuKernel)
    program = again.program
    assert (program.name, program.arch, program.num_warps) == ("softmax", "sm_80", 4)
