"""blkc's PTX beside Triton's: instruction counts and `ptxas -v` registers, spills and
shared memory, for vector add, softmax, layer-norm and matmul (`examples/`).

    python bench/ptx_compare.py --triton-python PATH [--output FILE]

PATH is a Python interpreter with triton==3.9.0 installed (or set TRITON_PYTHON), e.g. after
`python3 -m venv /tmp/tritonenv && /tmp/tritonenv/bin/pip install triton==3.9.0`.

Each kernel is compiled twice: as written, and with every i32 argument known to be
divisible by 16 (Triton: `tt.divisibility`, which its launcher specializes such values
into; blkc: the argument attribute `blk.divisibility = 16`), which lets both vectorize
masked accesses.

Triton (3.9.0, never a blkc dependency) runs in its own interpreter, through
`bench/triton_ptx.py`, which compiles kernels of the same structure and block sizes as
the examples without a GPU. Both sides use 4 warps, and both PTX texts go through the same
counter (`blkc.runtime.ptx.count_instructions`: instructions of the kernel body, not
directives or labels) and the same ptxas. Triton's PTX declares a newer PTX ISA (9.4) than
the ptxas of CUDA 13.0 knows; its `.version` line is lowered to `--ptx-version` (9.0,
CUDA 13.0's; the instructions are unchanged), so that one assembler judges both.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import blkc
from blkc import targets
from blkc.runtime import ptx
from blkc.runtime.gpu_kernel import GpuKernel

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ("vector_add", "softmax", "layernorm", "matmul")
NUM_WARPS = 4


_I32_PARAMETER = re.compile(r"(%\w+: i32)(?=[,)])")


def blkc_ptx(name: str, arch: str, divisible_ints: bool) -> str:
    path = ROOT / "examples" / f"{name}.mlir"
    text = path.read_text()
    if divisible_ints:
        signature = next(line for line in text.splitlines() if "func.func" in line)
        hinted = _I32_PARAMETER.sub(r"\1 {blk.divisibility = 16 : i32}", signature)
        text = text.replace(signature, hinted)
    kernel = blkc.compile(text, target="ptx", filename=str(path), arch=arch)
    assert isinstance(kernel.program, GpuKernel)
    return kernel.asm["ptx"]


def triton_ptx(python: str, arch: str, divisible_ints: bool) -> dict[str, str]:
    capability = arch.removeprefix("sm_")
    command = [python, str(ROOT / "bench" / "triton_ptx.py"), capability, str(NUM_WARPS)]
    done = subprocess.run(
        command + (["--divisible-ints"] if divisible_ints else []),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def describe(text: str, name: str) -> tuple[int, ptx.PtxasReport | None]:
    """Instruction count and ptxas report, for the architecture the PTX targets (Triton
    targets sm_90a on Hopper)."""
    target = re.search(r"^\.target\s+(\w+)", text, re.MULTILINE)
    assert target is not None
    reports = ptx.assemble(text, target.group(1))
    return ptx.count_instructions(text, name), reports[name] if reports else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--triton-python",
        default=os.environ.get("TRITON_PYTHON"),
        help="a Python with triton==3.9.0 installed (default: $TRITON_PYTHON)",
    )
    parser.add_argument("--output", type=Path, help="also write the table to this file")
    parser.add_argument("--ptx-version", default="9.0", help="PTX ISA given to ptxas for Triton")
    args = parser.parse_args()
    if args.triton_python is None:
        parser.error("needs a Python with triton==3.9.0: give --triton-python (or TRITON_PYTHON)")
    if not shutil.which(args.triton_python):
        parser.error(f"--triton-python: no Python at {args.triton_python}")
    lines = [
        "| kernel | ints % 16 | arch | blkc instructions | Triton instructions | ratio "
        "| blkc registers | Triton registers | blkc spills (bytes) | Triton spills (bytes) "
        "| blkc smem | Triton smem |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for divisible_ints, arch in itertools.product((False, True), targets.ARCHES):
        theirs = triton_ptx(args.triton_python, arch, divisible_ints)
        for name in KERNELS:
            ours = blkc_ptx(name, arch, divisible_ints)
            other = re.sub(
                r"^\.version\s+\S+",
                f".version {args.ptx_version}",
                theirs[name],
                flags=re.MULTILINE,
            )
            (count, report), (other_count, other_report) = (
                describe(ours, name),
                describe(other, name),
            )

            def cell(r: ptx.PtxasReport | None, field: str) -> str:
                if r is None:
                    return "n/a"
                if field == "spills":
                    return str(r.spill_stores + r.spill_loads)
                return str(getattr(r, field))

            lines.append(
                f"| {name} | {'yes' if divisible_ints else 'no'} | {arch} | {count} "
                f"| {other_count} | {count / other_count:.2f} "
                f"| {cell(report, 'registers')} | {cell(other_report, 'registers')} "
                f"| {cell(report, 'spills')} | {cell(other_report, 'spills')} "
                f"| {cell(report, 'shared')} | {cell(other_report, 'shared')} |"
            )
    table = "\n".join(lines)
    print(table)
    if args.output:
        args.output.write_text(table + "\n")


if __name__ == "__main__":
    sys.exit(main())
