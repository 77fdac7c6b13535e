"""A kernel's PTX: its text, what ptxas says of it, and how to rebuild it from the cache.

    kernel = blkc.compile(text, target="ptx", arch="sm_90")
    kernel.asm["ptx"]; kernel.n_regs; kernel.shared; kernel.program.num_warps
    kernel[grid](*args)            # through the CUDA driver, where there is a GPU

`n_regs`, `shared` and `spills` come from `ptxas -v`, run on first use; they are None
where ptxas is not installed. `to_meta` and `from_meta` turn the program into JSON-able
data and back, for the disk cache.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from blkc.runtime import nvptx_codegen, ptx

STAGES = ("loose", "strict", "loops", "llvm", "ptx")
"""What `Kernel.asm` holds for the ptx target, in pipeline order (`loops`: the SIMT loop
IR)."""


@dataclass
class GpuKernel:
    """The PTX part of a kernel compiled for the `ptx` target (`blkc.Kernel.program`): the
    PTX text, the launch shape, and what ptxas says of it."""

    name: str
    arch: str
    num_warps: int
    ptx: str
    _report: ptx.PtxasReport | None = None
    _assembled: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def threads(self) -> int:
        return self.num_warps * nvptx_codegen.WARP_SIZE

    def ptxas_report(self) -> ptx.PtxasReport | None:
        """`ptxas -v` for this kernel (assembled once), None without ptxas."""
        with self._lock:
            if not self._assembled:
                reports = ptx.assemble(self.ptx, self.arch)
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
        """What `from_meta` rebuilds this program from (JSON-able)."""
        return {"name": self.name, "arch": self.arch, "num_warps": self.num_warps, "ptx": self.ptx}

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> GpuKernel:
        """The program `to_meta` described."""
        return cls(meta["name"], meta["arch"], meta["num_warps"], meta["ptx"])


def build_gpu_kernel(
    module: ModuleOp, name: str, *, arch: str, num_warps: int, opt: int = 3
) -> tuple[str, GpuKernel]:
    """`module` (SIMT loop IR, from `blkc.backends.cpu_simt.simt_lowering`) to PTX for
    `arch`: the optimized LLVM IR and the program."""
    llvm_ir, _ = nvptx_codegen.emit_module(module, arch)
    optimized, text = ptx.compile_to_ptx(llvm_ir, arch, opt)
    return optimized, GpuKernel(name, arch, num_warps, text)
