"""`blkc`: compile a kernel file and print any stage, or run it on generated inputs.

    blkc kernel.mlir --emit=strict              # loose | strict | loops | llvm | asm
    blkc kernel.mlir --policy=numpy --emit=loops
    blkc kernel.mlir --run --grid 16 --size 16384
    blk-opt kernel.mlir -p to-strict | blkc - --emit=llvm   # - reads blk IR from stdin
    blkc examples/vector_add.py -DBLOCK_SIZE=1024 --emit=strict
    blkc examples/vector_add.py -DBLOCK_SIZE=1024 --signature 'x_ptr=*fp16,n_elements=i32:16'
    blkc kernel.tc -DTM=64 --emit=loose         # Triton-C; -DTM=[64,128] autotunes on --run
    blkc --cache-info                           # where the kernel cache is, its size
    blkc --clear-cache                          # empty it

For a Python file, the `@blkc.jit` kernel is compiled for `-D` values of its
`tl.constexpr` parameters (else their defaults) and for `--signature` types of the others
(Triton's: `*fp16`, `i64`, `i32:16` for a multiple of 16). A parameter left out gets the
type its use decides: a pointer of `tl.load`/`tl.store` is `*fp32`, an integer use
(a `range` bound, `cols < N`, a pointer offset) `i32`, a scalar meeting only floats
`fp32`; where no use decides, the error names the parameters to give. No integer is
assumed a multiple of 16 unless its type says `:16`.

`--run` gives every pointer argument a random array of `--size` elements and every
integer argument the value `--size` (float arguments 1.0), launches the grid, and prints
the time and the start of each array.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from importlib.metadata import version
from pathlib import Path

EMIT_STAGES = ("loose", "strict", "loops", "llvm", "asm", "ptx")
STDIN = Path("-")  # reads blk IR from standard input


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="blkc", description="Compile blk kernels to native code and run them."
    )
    parser.add_argument(
        "file",
        type=Path,
        nargs="?",
        help="a .mlir file of blk IR, a .py file of kernels, a .tc file, or - for blk IR on stdin",
    )
    parser.add_argument("--version", action="version", version=f"blkc {version('blkc')}")
    parser.add_argument(
        "--cache-info", action="store_true", help="show where the kernel cache is and its size"
    )
    parser.add_argument(
        "--clear-cache", action="store_true", help="remove every entry of the kernel cache"
    )
    parser.add_argument("--emit", choices=EMIT_STAGES, help="print this stage of the pipeline")
    parser.add_argument("--run", action="store_true", help="run the kernel on generated inputs")
    parser.add_argument("--policy", help="promotion policy (default: the module's, else triton)")
    parser.add_argument("--kernel", help="the kernel to compile when the file has several")
    parser.add_argument("-O", dest="opt", type=int, choices=(0, 1, 2, 3), default=3)
    parser.add_argument(
        "--target",
        choices=("cpu", "cpu-simt", "ptx"),
        help="cpu (default, or $BLKC_TARGET), cpu-simt (the GPU lowering run on the CPU), ptx",
    )
    parser.add_argument("--arch", help="the GPU architecture for --target=ptx (default sm_90)")
    parser.add_argument("--num-warps", type=int, default=4, help="warps per program on GPUs")
    parser.add_argument("--grid", type=int, nargs="+", default=[1], help="grid for --run")
    parser.add_argument("--size", type=int, default=4096, help="array size for --run")
    parser.add_argument(
        "-D",
        dest="defines",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a compile-time value (a tl.constexpr parameter, or a Triton-C macro)",
    )
    parser.add_argument(
        "--signature",
        default="",
        help="Python kernels: parameter types, 'x=*fp16,n=i32:16' (Triton's type names; "
        "by default what each parameter's use decides, never ':16')",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """The `blkc` console script."""
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader of the output left (`| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    from blkc.diagnostics import BlkcError, print_diagnostics

    if args.cache_info or args.clear_cache:
        from blkc.runtime import cache

        if args.clear_cache:
            removed = cache.clear()
            print(f"blkc: removed {removed} cache {'entry' if removed == 1 else 'entries'}")
        if args.cache_info:
            print(cache.info())
        if args.file is None:
            return 0
    if args.file is None:
        parser.print_usage(sys.stderr)
        print("blkc: error: the following arguments are required: file", file=sys.stderr)
        return 2

    compilers = {".mlir": _compile_mlir, ".py": _compile_python, ".tc": _compile_triton_c}
    suffix = ".mlir" if args.file == STDIN else args.file.suffix
    if suffix not in compilers:
        print(f"blkc: error: {args.file}: expected a {', '.join(compilers)} file", file=sys.stderr)
        return 1
    if args.file != STDIN and not args.file.is_file():
        print(f"blkc: error: cannot read {args.file}: no such file", file=sys.stderr)
        return 1
    try:
        with print_diagnostics():  # warnings as the compiler prints errors
            compiled = compilers[suffix](args)
        if len(compiled) > 1 and args.run:
            raise ValueError(
                f"{args.file} has several kernels ({', '.join(compiled)}): name the one to run "
                "with --kernel"
            )
        for name, kernel in compiled.items():
            if len(compiled) > 1 and args.emit:
                print(f"// ----- kernel {name} -----")
            _output(kernel, args)
        if not args.emit and not args.run:  # say what happened, and what else it can do
            print(
                f"blkc: compiled {', '.join(compiled)} (--emit=STAGE prints a stage, --run "
                "runs it on generated inputs)",
                file=sys.stderr,
            )
    except BlkcError as err:
        print(err, file=sys.stderr)
        return 1
    except (TypeError, ValueError, AssertionError, IndexError, OverflowError) as err:
        print(f"blkc: error: {err}", file=sys.stderr)
        return 1
    return 0


def _output(kernel: object, args: argparse.Namespace) -> None:
    """Print the stage `--emit` asks for, then `--run` the kernel."""
    if args.emit:
        stages = kernel.asm  # type: ignore[attr-defined]
        if args.emit not in stages:
            raise ValueError(
                f"--emit={args.emit} is not a stage of this target (stages: "
                f"{', '.join(stages)}); --target=ptx emits ptx, the CPU targets asm"
            )
        print(stages[args.emit], end="" if args.emit in ("llvm", "asm", "ptx") else "\n")
    if args.run:
        _run(kernel, args.grid, args.size)


def _compile_mlir(args: argparse.Namespace) -> dict[str, object]:
    import blkc

    from_stdin = args.file == STDIN
    kernel = blkc.compile(
        sys.stdin.read() if from_stdin else args.file.read_text(),
        policy=args.policy,
        kernel=args.kernel,
        opt=args.opt,
        filename="<stdin>" if from_stdin else str(args.file),
        **_target_options(args),
    )
    return {kernel.name: kernel}


def _target_options(args: argparse.Namespace) -> dict[str, object]:
    return {"target": args.target, "arch": args.arch, "num_warps": args.num_warps}


def _compile_python(args: argparse.Namespace) -> dict[str, object]:
    from blkc.frontend.cli import compile_file

    return compile_file(
        args.file,
        args.kernel,
        args.defines,
        args.signature,
        policy=args.policy,
        **_target_options(args),
    )


def _compile_triton_c(args: argparse.Namespace) -> dict[str, object]:
    """A Triton-C file's kernels (the one `--kernel` names, else all), for the `-D`
    defines; a list value (`-DTM=[64,128]`) makes candidates that `--run` times, and
    `--emit` shows the first."""
    from blkc import triton_c

    defines = dict(triton_c.parse_define(d) for d in args.defines)
    kernels = triton_c.compile(
        args.file,
        defines=defines,
        policy=args.policy,
        opt=args.opt,
        **_target_options(args),
    )
    if args.kernel is None:
        return dict(kernels)
    if args.kernel not in kernels:
        raise ValueError(f"{args.file} has no kernel '{args.kernel}' ({', '.join(kernels)})")
    return {args.kernel: kernels[args.kernel]}


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
