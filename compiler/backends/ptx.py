"""The `ptx` target: the GPU lowering (`convert-blk-to-simt`, one program per CTA) as LLVM
IR for `nvptx64-nvidia-cuda`, assembled to PTX for `arch` (default sm_90) by llvmlite's
NVPTX target, and launched through the CUDA driver where a GPU is present
(`blkc.runtime.cuda_launch`).

The GPU launch does not check whether arrays overlap, so the loops are lowered for
arrays that may (no `disjoint-args`): a load is read whole before a write that may change
it, with a barrier between.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp

from blkc.backends import Backend, TargetOptions
from blkc.backends.cpu_simt import simt_lowering
from blkc.pipeline import run_pipeline
from blkc.runtime.gpu_kernel import STAGES, GpuKernel, build_gpu_kernel
from blkc.runtime.grid import normalize_grid

if TYPE_CHECKING:
    from blkc.kernel import Kernel
    from blkc.runtime.launch import Grid


class PtxBackend(Backend):
    """NVIDIA GPUs through PTX (see the module's docstring)."""

    name = "ptx"
    stages = STAGES

    def lowering(self, options: TargetOptions) -> str:
        return simt_lowering(options.num_warps)

    def build(
        self, module: ModuleOp, name: str, options: TargetOptions, cache_key: str | None
    ) -> tuple[dict[str, str], GpuKernel]:
        assert options.arch is not None
        run_pipeline(module, self.lowering(options))
        loops = str(module)
        llvm_ir, program = build_gpu_kernel(
            module, name, arch=options.arch, num_warps=options.num_warps, opt=options.opt
        )
        return {"loops": loops, "llvm": llvm_ir, "ptx": program.ptx}, program

    def launch(
        self,
        kernel: Kernel,
        grid: Grid,
        args: Sequence[object],
        meta: dict[str, Any],
        num_cpu_threads: int | None = None,
    ) -> None:
        """Run on the GPU (`num_cpu_threads`, a CPU option, is ignored)."""
        from blkc.runtime import cuda_launch

        shape = normalize_grid(grid, meta)
        cuda_launch.launch(kernel.program, kernel.params, shape, args, kernel.writes)

    def program_meta(self, program: GpuKernel) -> dict[str, Any]:
        return program.to_meta()

    def program_from_meta(
        self, meta: dict[str, Any], options: TargetOptions, cache_key: str | None
    ) -> GpuKernel:
        return GpuKernel.from_meta(meta)

    def resources(self, program: GpuKernel) -> dict[str, int | None]:
        return {"n_regs": program.n_regs, "shared": program.shared, "spills": program.spills}


__all__ = ["PtxBackend"]
