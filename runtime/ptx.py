"""LLVM IR for NVPTX to PTX text (llvmlite's NVPTX target), and what `ptxas` says of it.

`/usr/bin/llc` on these machines is LLVM 14 (no sm_90): llvmlite's own LLVM emits the PTX.
`ptxas` (the CUDA toolkit's assembler) is optional: `assemble` returns None without it.
Kernels calling `__nv_*` functions (float64 math) are linked with the toolkit's
libdevice, as CUDA C and Triton are; only what they call is kept.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import llvmlite.binding as llvm

from blkc.runtime.jit import context_lock, optimize
from blkc.runtime.nvptx_codegen import TRIPLE


@cache
def _initialize() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


_FEATURES = {"sm_89": "+ptx81"}
"""PTX ISA versions above LLVM's default for an arch, for the instructions blkc uses
there (sm_89's fp8 `cvt` needs PTX 8.1; LLVM would declare 7.8)."""


def _target_machine(arch: str, opt: int) -> llvm.TargetMachine:
    _initialize()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, features=_FEATURES.get(arch, ""), opt=opt)


def libdevice_path() -> Path | None:
    """The CUDA toolkit's `libdevice.10.bc`: under `$CUDA_HOME`, beside `ptxas`, or in
    /usr/local/cuda; None where there is none."""
    roots = [os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    if (found := shutil.which("ptxas")) is not None:
        roots.insert(1, str(Path(found).resolve().parents[1]))
    for root in filter(None, roots):
        path = Path(root) / "nvvm" / "libdevice" / "libdevice.10.bc"
        if path.is_file():
            return path
    return None


@cache
def _libdevice_bitcode() -> bytes:
    path = libdevice_path()
    if path is None:
        raise RuntimeError(
            "float64 math on the GPU calls CUDA's libdevice, which was not found "
            "(set CUDA_HOME to the toolkit holding nvvm/libdevice/libdevice.10.bc)"
        )
    return path.read_bytes()


def _link_libdevice(module: llvm.ModuleRef) -> None:
    """Link libdevice into `module` where it calls `__nv_*` functions; its functions
    become internal, so that the optimizer drops the ones not called."""
    if not any(f.is_declaration and f.name.startswith("__nv_") for f in module.functions):
        return
    library = llvm.parse_bitcode(_libdevice_bitcode())
    library.triple = module.triple
    library.data_layout = module.data_layout
    module.link_in(library)
    for function in module.functions:
        if function.name.startswith("__nv_") and not function.is_declaration:
            function.linkage = llvm.Linkage.internal


def compile_to_ptx(llvm_ir: str, arch: str, opt: int = 3) -> tuple[str, str]:
    """Optimize NVPTX LLVM IR for `arch` (`sm_80`, `sm_90`, ...) and emit PTX; return the
    optimized IR and the PTX text."""
    with context_lock:  # LLVM's global context, which the CPU's compilations use too
        tm = _target_machine(arch, opt)
        module = llvm.parse_assembly(llvm_ir)
        module.triple = TRIPLE
        module.data_layout = str(tm.target_data)
        _link_libdevice(module)
        module.verify()
        if opt:
            optimize(module, tm, opt)
        return str(module), tm.emit_assembly(module)


@dataclass(frozen=True)
class PtxasReport:
    """What `ptxas -v` reports for one kernel."""

    registers: int
    shared: int
    """Bytes of static shared memory."""
    spill_stores: int
    spill_loads: int
    stack: int
    """Bytes of stack frame (local memory)."""


def ptxas_available() -> bool:
    return shutil.which("ptxas") is not None


def assemble(ptx: str, arch: str) -> dict[str, PtxasReport] | None:
    """Assemble `ptx` for `arch` with `ptxas -v`; return each kernel's report, None when
    ptxas is not installed. A PTX error raises RuntimeError with ptxas's message."""
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        return None
    with tempfile.TemporaryDirectory(prefix="blkc-ptx-") as folder:
        source = Path(folder) / "kernel.ptx"
        source.write_text(ptx)
        done = subprocess.run(
            [ptxas, f"-arch={arch}", "-v", "-o", str(Path(folder) / "kernel.cubin"), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode:
        raise RuntimeError(f"ptxas -arch={arch} failed:\n{done.stderr}")
    return parse_ptxas_report(done.stderr)


_FUNCTION = re.compile(r"Compiling entry function '([^']+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")


def parse_ptxas_report(text: str) -> dict[str, PtxasReport]:
    """Each entry function's registers, shared memory and spills in `ptxas -v` output."""
    reports: dict[str, PtxasReport] = {}
    name: str | None = None
    frame = (0, 0, 0)
    for line in text.splitlines():
        if found := _FUNCTION.search(line):
            name, frame = found.group(1), (0, 0, 0)
        elif (found := _FRAME.search(line)) and name:
            frame = (int(found.group(1)), int(found.group(2)), int(found.group(3)))
        elif (found := _USED.search(line)) and name:
            shared = int(found.group(2) or 0)
            reports[name] = PtxasReport(int(found.group(1)), shared, frame[1], frame[2], frame[0])
    return reports


_INSTRUCTION = re.compile(r"^\s*(?:@!?%\w+\s+)?[a-z][\w.]*(?:\s|;)")


def count_instructions(ptx: str, kernel: str | None = None) -> int:
    """PTX instructions (not directives, labels or braces) in the body of `kernel` (or of
    every function)."""
    count = 0
    inside = kernel is None
    depth = 0
    for line in ptx.splitlines():
        stripped = line.strip()
        if kernel is not None and re.match(
            rf"\.(visible\s+)?\.entry\s+{re.escape(kernel)}\b", stripped
        ):
            inside = True
        if not inside:
            continue
        depth += stripped.count("{") - stripped.count("}")
        if _INSTRUCTION.match(stripped) and not stripped.startswith("."):
            count += 1
        if kernel is not None and depth == 0 and stripped.startswith("}"):
            break
    return count
