"""A kernel compiled for the GPU: its PTX, what ptxas says of it, and its launch.

    kernel = blkc.compile(text, target="ptx", arch="sm_90")
    kernel.asm["ptx"]; kernel.n_regs; kernel.shared; kernel.num_warps
    kernel[grid](*args)            # through the CUDA driver, where there is a GPU

`n_regs`, `shared` and `spills` come from `ptxas -v`, run on first use; they are None
where ptxas is not installed. `to_meta` and `from_meta` turn a kernel into JSON-able data
and back, for the disk cache.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from blkc.runtime import nvptx_codegen, ptx

STAGES = ("loose", "strict", "loops", "llvm", "ptx")
"""What `GpuKernel.asm` holds, in pipeline order (`loops`: the SIMT loop IR)."""


@dataclass
class GpuKernel:
    """A kernel compiled to PTX: launch it with ``kernel[grid](*args)``."""

    name: str
    params: list[Attribute]
    """The blk types of the kernel's parameters (with their signedness)."""
    arch: str
    num_warps: int
    stages: dict[str, str]
    _report: ptx.PtxasReport | None = None
    _assembled: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def asm(self) -> dict[str, str]:
        """Each stage's text: `loose`, `strict`, `loops` (SIMT loop IR), `llvm`, `ptx`."""
        return self.stages

    @property
    def threads(self) -> int:
        return self.num_warps * nvptx_codegen.WARP_SIZE

    def ptxas_report(self) -> ptx.PtxasReport | None:
        """`ptxas -v` for this kernel (assembled once), None without ptxas."""
        with self._lock:
            if not self._assembled:
                reports = ptx.assemble(self.stages["ptx"], self.arch)
                self._report = reports[self.name] if reports is not None else None
                self._assembled = True
            return self._report

    @property
    def n_regs(self) -> int | None:
        report = self.ptxas_report()
        return report.registers if report else None

    @property
    def shared(self) -> int | None:
        """Bytes of shared memory per CTA."""
        report = self.ptxas_report()
        return report.shared if report else None

    @property
    def spills(self) -> int | None:
        """Bytes of registers spilled (stores plus loads)."""
        report = self.ptxas_report()
        return report.spill_stores + report.spill_loads if report else None

    def to_meta(self) -> dict[str, Any]:
        """What `from_meta` rebuilds this kernel from (JSON-able; types as IR text)."""
        return {
            "name": self.name,
            "params": [str(t) for t in self.params],
            "arch": self.arch,
            "num_warps": self.num_warps,
            "stages": self.stages,
        }

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> GpuKernel:
        """The kernel `to_meta` described."""
        from xdsl.parser import Parser

        from blkc.pipeline import make_context

        ctx = make_context()
        params = [Parser(ctx, text).parse_type() for text in meta["params"]]
        return cls(meta["name"], params, meta["arch"], meta["num_warps"], dict(meta["stages"]))

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        def run(*args: object) -> None:
            self.run(grid, args)

        return run

    def run(self, grid: Any, args: Sequence[object], meta: dict[str, Any] | None = None) -> None:
        """Launch over `grid` through the CUDA driver (`blkc.runtime.cuda_launch`)."""
        from blkc.runtime import cuda_launch, launch

        cuda_launch.launch(self, launch.normalize_grid(grid, meta or {}), args)


def build_gpu_kernel(
    module: ModuleOp,
    name: str,
    params: list[Attribute],
    stages: dict[str, str],
    *,
    arch: str,
    num_warps: int,
    opt: int = 3,
) -> GpuKernel:
    """`module` (SIMT loop IR, from `blkc.targets.simt_lowering`) to PTX for `arch`."""
    llvm_ir, _ = nvptx_codegen.emit_module(module, arch)
    optimized, text = ptx.compile_to_ptx(llvm_ir, arch, opt)
    return GpuKernel(name, params, arch, num_warps, {**stages, "llvm": optimized, "ptx": text})
