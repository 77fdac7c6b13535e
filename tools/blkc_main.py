"""`blkc`: compile a kernel file and print any stage, or run it on generated inputs.

    blkc kernel.mlir --emit=strict              # loose | strict | loops | llvm | asm
    blkc kernel.mlir --policy=numpy --emit=loops
    blkc kernel.mlir --run --grid 16 --size 16384

`--run` gives every pointer argument a random array of `--size` elements and every
integer argument the value `--size` (float arguments 1.0), launches the grid, and prints
the time and the start of each array.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

EMIT_STAGES = ("loose", "strict", "loops", "llvm", "asm")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="blkc", description="Compile blk kernels to native code and run them."
    )
    parser.add_argument("file", type=Path, help="a .mlir file of blk IR")
    parser.add_argument("--emit", choices=EMIT_STAGES, help="print this stage of the pipeline")
    parser.add_argument("--run", action="store_true", help="run the kernel on generated inputs")
    parser.add_argument("--policy", help="promotion policy (default: the module's, else triton)")
    parser.add_argument("--kernel", help="the kernel to compile when the file has several")
    parser.add_argument("-O", dest="opt", type=int, choices=(0, 1, 2, 3), default=3)
    parser.add_argument("--target", choices=("cpu",), default="cpu")
    parser.add_argument("--grid", type=int, nargs="+", default=[1], help="grid for --run")
    parser.add_argument("--size", type=int, default=4096, help="array size for --run")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from blkc.diagnostics import BlkcError

    if args.file.suffix != ".mlir":
        print(f"blkc: error: {args.file}: only .mlir input is supported so far", file=sys.stderr)
        return 1
    try:
        text = args.file.read_text()
    except OSError as err:
        print(f"blkc: error: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return 1
    import blkc

    try:
        kernel = blkc.compile(
            text, policy=args.policy, kernel=args.kernel, opt=args.opt, filename=str(args.file)
        )
        if args.emit:
            print(kernel.asm[args.emit], end="" if args.emit in ("llvm", "asm") else "\n")
        if args.run:
            _run(kernel, args.grid, args.size)
    except BlkcError as err:
        print(err, file=sys.stderr)
        return 1
    except (TypeError, ValueError, AssertionError) as err:
        print(f"blkc: error: {err}", file=sys.stderr)
        return 1
    return 0


def _run(kernel: object, grid: list[int], size: int) -> None:
    import numpy

    from blkc import dtypes
    from blkc.dialects.types import PtrType

    rng = numpy.random.default_rng(0)
    args: list[object] = []
    for t in kernel.params:  # type: ignore[attr-defined]
        if isinstance(t, PtrType):
            d = dtypes.from_xdsl(t.pointee)
            values = rng.standard_normal(size) if d.is_float else rng.integers(0, 100, size)
            args.append(values.astype(d.numpy))
        else:
            d = dtypes.from_xdsl(t)
            args.append(1.0 if d.is_float else size)
    start = time.perf_counter()
    kernel[tuple(grid)](*args)  # type: ignore[index]
    elapsed = (time.perf_counter() - start) * 1000
    print(f"ran {kernel.name} on grid {tuple(grid)} in {elapsed:.3f} ms")  # type: ignore[attr-defined]
    for index, arg in enumerate(args):
        if isinstance(arg, numpy.ndarray):
            print(f"  argument {index}: {arg[:8]}")


if __name__ == "__main__":
    sys.exit(main())
