"""The `cpu` target: one program is one loop nest per block, vectorized by LLVM, the grid
run on every core.

Lowering: `cse`, `carry-pointer-offsets`, `convert-blk-to-loops`,
`prefetch-next-iteration`, `lower-int-semantics`, `emulate-small-floats`; then LLVM IR
(`blkc.runtime.llvm_codegen`), llvmlite's O3 and MCJIT. Each launch checks whether its
arrays share bytes and picks one of two variants: for arrays that do not, the loops
lowered with `disjoint-args` and pointer arguments marked `noalias`; for arrays that do,
neither (lowered again only where the option made a difference). Each variant's native
code is compiled on first use, and cached on disk.
"""

from __future__ import annotations

import ctypes
import functools
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from blkc.backends import Backend, TargetOptions
from blkc.runtime import launch
from blkc.runtime.elf_loader import compile_module, load_cached
from blkc.runtime.grid import normalize_grid

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from blkc.kernel import Kernel
    from blkc.runtime.cpu_target import CpuTarget
    from blkc.runtime.elf_loader import NativeModule
    from blkc.runtime.jit import CompiledModule

# Loading a kernel from the disk cache and launching it needs neither xDSL nor the code
# generator: they are imported where a kernel is lowered.

LOWERING = (
    "cse,contiguous-persistent-loops,carry-pointer-offsets,convert-blk-to-loops,"
    "prefetch-next-iteration,lower-int-semantics,"
    "emulate-small-floats"
)


def lower_variants(module: ModuleOp, lowering: str, aliased: bool = True) -> dict[bool, ModuleOp]:
    """Run the passes `lowering` names on the strict `module`, with the loop lowerings told
    that distinct pointer arguments do not overlap (`disjoint-args`): the loop IR for
    launches whose arrays do not (True). Where that assumption changed the lowering, lower
    a copy of the strict IR again without it, for launches whose arrays do (False; unless
    not `aliased`); else both share `module`. Each result is verified once, after its last
    pass (`blk-opt` verifies after every pass, and names the pass that broke the IR)."""
    from blkc.passes.convert_blk_to_loops import relies_on_disjoint_args
    from blkc.pipeline import build_passes

    passes = build_passes(lowering)
    assuming = tuple(_assuming_disjoint_args(p) for p in passes)
    aliased_module = module.clone() if aliased and assuming != passes else None
    _lower(module, assuming)
    if not aliased:
        return {True: module}
    if aliased_module is None or not relies_on_disjoint_args(module):
        return {True: module, False: module}
    _lower(aliased_module, passes)
    return {True: module, False: aliased_module}


def _lower(module: ModuleOp, passes: Sequence[ModulePass]) -> None:
    """Run `passes` on `module`, then verify it once."""
    from blkc.diagnostics import verify_module
    from blkc.pipeline import apply_passes, make_context

    apply_passes(make_context(), module, passes, verify=False)
    verify_module(module)


def alias_llvm_ir(strict_ir: str, lowering: str, check_bounds: bool) -> str:
    """The LLVM IR of a kernel's variant for launches whose arrays overlap, from its strict
    IR (the `strict` stage): lowered without `disjoint-args`, pointers not noalias."""
    from blkc.pipeline import build_passes, parse
    from blkc.runtime.llvm_codegen import emit_module

    module = parse(strict_ir)
    _lower(module, build_passes(lowering))
    return emit_module(module, noalias=False, check_bounds=check_bounds).llvm_ir


def lowering_for(target: CpuTarget) -> str:
    """`LOWERING` with the loop lowering told `target`'s vector registers (which size the
    register tile of `dot`) and the element types whose products it adds in pairs."""
    registers = f"vector-bits={target.vector_bits} vector-registers={target.vector_registers}"
    if target.pair_dot_types:
        registers += f" pair-dot-types={','.join(target.pair_dot_types)}"
    return LOWERING.replace("convert-blk-to-loops", f"convert-blk-to-loops{{{registers}}}")


_ALLOCA = re.compile(r"= alloca \[(\d+) x (\w+)\]")
_ELEMENT_BYTES = {"i1": 1, "i8": 1, "i16": 2, "half": 2, "bfloat": 2, "i32": 4, "float": 4}


def stack_bytes(llvm_ir: str) -> int:
    """The bytes of the stack arrays (`alloca [N x T]`) in `llvm_ir`: the buffers of the
    blocks its programs materialize."""
    return sum(int(n) * _ELEMENT_BYTES.get(t, 8) for n, t in _ALLOCA.findall(llvm_ir))


def _assuming_disjoint_args(module_pass: ModulePass) -> ModulePass:
    if any(f.name == "disjoint_args" for f in fields(module_pass)):
        return replace(module_pass, disjoint_args=True)
    return module_pass


@dataclass
class _Binary:
    """One variant's native code, ready to call."""

    compiled: CompiledModule | NativeModule
    launcher: Callable[..., None]
    packed: int = 0
    """The address of the launcher reading its arguments from 8-byte slots (`<launcher>_args`,
    for `runtime.native_pool`)."""
    lean: bool = False
    """Whether it is the kernel's lean form, without its streaming copies
    (`launch.without_stream_copies`)."""


@dataclass
class CpuProgram:
    """A kernel's LLVM IR for the CPU and, once compiled, its native code."""

    launcher: str
    """The symbol of the exported grid launcher."""
    abi: list[str]
    """The parameter types the launcher takes (signless, as the code generator saw them),
    as IR text."""
    accesses: list[str]
    """The source location of each memory access the kernel checks."""
    llvm_variants: dict[bool, str]
    """The LLVM IR for launches whose arrays do not overlap (True: lowered with
    `disjoint-args`, pointer arguments marked noalias) and, once a launch's arrays did
    overlap, for those (False: made then, by `alias_source`)."""
    opt: int = 3
    cache_key: str | None = None
    interruptible: bool = False
    """Whether a loop of the kernel may run forever: launches then stop on Ctrl-C."""
    alias_source: Callable[[], str] | None = None
    """What makes the LLVM IR for overlapping arrays (`CpuBackend.launch` sets it)."""
    _binaries: dict[bool, _Binary] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def compiled(self) -> dict[bool, _Binary]:
        """The variants compiled so far (True: for arrays that do not overlap)."""
        with self._lock:
            return dict(self._binaries)

    def binary(self, noalias: bool, large: bool = True) -> _Binary:
        """The native code of a variant (compiled, or loaded from the disk cache, once) for
        a launch whose arrays span at least `launch.stream_threshold()` bytes in all
        (`large`) or fewer. A kernel with copies of nests that stream their stores (only
        launches that store that much take them) is compiled without them, in its lean
        form, until a large launch needs them: LLVM takes a sixth less time on a row
        softmax. The code with them (loaded from the disk cache where it is there) then
        serves every launch."""
        with self._lock:
            found = self._binaries.get(noalias)
            if found is None or (found.lean and large):
                self._binaries[noalias] = self._load_or_compile(noalias, lean=not large)
            return self._binaries[noalias]

    def _llvm_ir(self, noalias: bool) -> str:
        """A variant's LLVM IR; the one for overlapping arrays made first if need be."""
        if noalias not in self.llvm_variants:
            if self.alias_source is None:
                raise RuntimeError("no LLVM IR for overlapping arrays, and no way to make it")
            self.llvm_variants[noalias] = self.alias_source()
        return self.llvm_variants[noalias]

    def _load_or_compile(self, noalias: bool, lean: bool) -> _Binary:
        """The variant's code from the disk cache (the whole kernel first, where a `lean`
        one would do), else compiled: lean where asked and the kernel has streaming
        copies. The LLVM IR is not made (nor xDSL imported, for the variant for arrays
        that overlap) where the disk holds the code."""
        launch.register_runtime_symbols()
        variant = "noalias" if noalias else "alias"
        for name in (variant, f"{variant}-lean")[: 2 if lean else 1]:
            compiled = load_cached(self.cache_key, name)
            if compiled is not None:
                lean = name != variant
                break
        else:
            text = self._llvm_ir(noalias)
            lean = lean and launch.has_stream_copies(text)
            compiled = compile_module(
                self.cache_key,
                f"{variant}-lean" if lean else variant,
                launch.without_stream_copies(text) if lean else text,
                self.opt,
                f"kernel '{self.launcher.removesuffix('__grid')}'",
            )
        prototype = ctypes.CFUNCTYPE(None, *launch.launcher_ctypes(self.abi))
        # Failed assertions are recorded per launching thread (`launch._failures`): kernels
        # that assert stay off the native pool, whose workers have no launch.
        asserts = "blkc_assert_fail" in compiled.llvm_ir
        packed = 0 if asserts else compiled.address(f"{self.launcher}_args")
        return _Binary(compiled, prototype(compiled.address(self.launcher)), packed, lean)


class CpuBackend(Backend):
    """Loop nests on the host CPU (see the module's docstring)."""

    name = "cpu"
    stages = ("loose", "strict", "loops", "llvm", "asm")

    def key_parts(self, options: TargetOptions) -> tuple[object, ...]:
        # The GPU options change nothing here; the host's vector registers (in the cache's
        # key already, through its features) size the tiles the lowering names.
        return (self.lowering(options),)

    def lowering(self, options: TargetOptions) -> str:
        from blkc.runtime.cpu_target import host

        return lowering_for(host())

    def build(
        self, module: ModuleOp, name: str, options: TargetOptions, cache_key: str | None
    ) -> tuple[dict[str, str], CpuProgram]:
        from blkc.runtime.llvm_codegen import emit_module

        # Only the variant for arrays that do not overlap: a launch whose arrays do makes the
        # other from the strict IR (`launch`), which most kernels never need.
        lowered = lower_variants(module, self.lowering(options), aliased=False)[True]
        emitted = emit_module(lowered, noalias=True, check_bounds=options.check_bounds)
        signature = emitted.kernels[name]
        program = CpuProgram(
            signature.launcher,
            [str(t) for t in signature.params],
            signature.accesses,
            {True: emitted.llvm_ir},
            options.opt,
            cache_key,
            signature.interruptible,
        )
        return {"loops": str(lowered), "llvm": emitted.llvm_ir}, program

    def resources(self, program: CpuProgram) -> dict[str, int | None]:
        """`shared`: the bytes of the buffers a program keeps its materialized blocks in (its
        stack arrays), the CPU's counterpart of a GPU kernel's shared memory."""
        return {"shared": stack_bytes(program.llvm_variants[True])}

    def launch(
        self,
        kernel: Kernel,
        grid: launch.Grid,
        args: Sequence[object],
        meta: dict[str, Any],
        num_cpu_threads: int | None = None,
    ) -> None:
        program: CpuProgram = kernel.program
        converted = launch.convert_args(
            kernel.name, kernel.param_types, args, kernel.writes, kernel.param_names, kernel.slots
        )
        shape = normalize_grid(grid, meta)
        noalias, work_bytes = self._variant(kernel, converted.spans)
        binary = program.binary(noalias, large=work_bytes >= launch.stream_threshold())
        bounds = launch.array_bounds(kernel.slots, converted.spans)
        launch.run_grid(
            binary.launcher,
            [*converted.values, bounds],
            shape,
            num_cpu_threads,
            interruptible=program.interruptible,
            work_bytes=work_bytes,
            packed=binary.packed,
        )
        if launch.accessed_outside():
            raise launch.out_of_bounds(kernel.name, program.accesses)

    def _variant(self, kernel: Kernel, spans: Sequence[tuple[int, int]]) -> tuple[bool, int]:
        """Whether a launch's arrays (`spans`) do not overlap, the variant it runs (its IR
        made from the strict IR where they do), and the bytes they span in all."""
        program: CpuProgram = kernel.program
        noalias = launch.no_overlap(spans)
        if not noalias and False not in program.llvm_variants and program.alias_source is None:
            options = kernel.options or TargetOptions(kernel.target)
            program.alias_source = functools.partial(
                alias_llvm_ir, kernel.stages["strict"], self.lowering(options), options.check_bounds
            )
        return noalias, sum(end - start for start, end in spans)

    def compile_job(
        self, kernel: Kernel, args: Sequence[object] | None
    ) -> Callable[[], object] | None:
        if args is None:
            return lambda: self.prepare(kernel)
        program: CpuProgram = kernel.program
        converted = launch.convert_args(
            kernel.name, kernel.param_types, args, kernel.writes, kernel.param_names, kernel.slots
        )
        noalias, work_bytes = self._variant(kernel, converted.spans)
        program._llvm_ir(noalias)  # xDSL lowers it here, on this thread, where it must
        large = work_bytes >= launch.stream_threshold()
        return lambda: program.binary(noalias, large)

    def prepare(self, kernel: Kernel) -> None:
        kernel.program.binary(True, large=False)  # as the first launches of most kernels

    def asm(self, kernel: Kernel) -> dict[str, str]:
        if "asm" not in kernel.stages:
            binary = kernel.program.binary(True)
            kernel.stages["llvm"] = binary.compiled.llvm_ir
            kernel.stages["asm"] = binary.compiled.assembly()
        return kernel.stages

    def program_meta(self, program: CpuProgram) -> dict[str, Any]:
        return {
            "launcher": program.launcher,
            "abi": [str(t) for t in program.abi],
            "accesses": program.accesses,
            "llvm": {
                "noalias": program.llvm_variants[True],
                "alias": program.llvm_variants.get(False),
            },
            "interruptible": program.interruptible,
        }

    def program_from_meta(
        self, meta: dict[str, Any], options: TargetOptions, cache_key: str | None
    ) -> CpuProgram:
        return CpuProgram(
            meta["launcher"],
            [str(t) for t in meta["abi"]],
            list(meta["accesses"]),
            {
                noalias: str(text)
                for noalias, text in (
                    (True, meta["llvm"]["noalias"]),
                    (False, meta["llvm"]["alias"]),
                )
                if text is not None
            },
            options.opt,
            cache_key,
            bool(meta["interruptible"]),
        )


def launch_stub(kernel: Kernel, plan: list[Any], num_cpu_threads: int | None) -> Any:
    """A launch stub (`runtime.fast_launch.Stub`) of `kernel` for the positional arguments
    `plan` describes (`fast_launch.Arg`s), launching on at most `num_cpu_threads`; None
    where the kernel has none: not a CPU program, one whose loops may run forever (they
    must stop on Ctrl-C), or no native code yet."""
    from blkc.runtime import fast_launch

    program = kernel.program
    if not isinstance(program, CpuProgram) or program.interruptible:
        return None
    binaries = program.compiled()
    if not binaries:
        return None
    inline_always = num_cpu_threads == 1 or launch.cores() == 1
    return fast_launch.build(
        plan,
        [fast_launch.abi_type(str(t)) for t in program.abi],
        {noalias: b.compiled.address(program.launcher) for noalias, b in binaries.items()},
        ctypes.addressof(launch.failure_count),
        launch.stream_threshold(),
        inline_always=inline_always,
        pool=None if inline_always else _pooled(binaries, num_cpu_threads),
        owners=[b.compiled for b in binaries.values()],
        # A lean kernel leaves launches that would stream to Python (`CpuProgram.binary`).
        lean=any(b.lean for b in binaries.values()),
    )


def stub_current(kernel: Kernel, stub: Any) -> bool:
    """Whether launch stub `stub` of `kernel` launches the code of every variant `kernel`
    has compiled: a stub built before a launch compiled the other (for arrays that overlap,
    or for arrays that do not), or the code with the streaming copies in place of the
    lean one, leaves launches that need it to Python, and is to be built again."""
    program = kernel.program
    if not isinstance(program, CpuProgram):
        return True
    compiled = program.compiled()
    return compiled.keys() <= stub.variants and all(
        any(b.compiled is owner for owner in stub.keep) for b in compiled.values()
    )


def _pooled(binaries: dict[bool, _Binary], num_cpu_threads: int | None) -> Any:
    """How a launch stub runs large grids on the native pool (None where there is none)."""
    from blkc.runtime import fast_launch

    pool = launch.shared_pool()
    if pool is None or not all(b.packed for b in binaries.values()):
        return None  # no pool here, or a kernel that asserts (see `_Binary.packed`)
    launch.sync_stub_threads()
    return fast_launch.Pooled(
        {noalias: b.packed for noalias, b in binaries.items()},
        pool.run_address,
        ctypes.addressof(launch.stub_threads),
        min(num_cpu_threads or launch.cores(), launch.cores()),
    )


def raise_stub_errors(kernel: Kernel, outcome: object) -> None:
    """Raise what a stub's launch of `kernel` recorded (`outcome`, what the stub returned:
    an access outside the arrays, or failed assertions), as a launch through Python does."""
    from blkc.runtime import fast_launch

    if outcome == fast_launch.OUT_OF_BOUNDS:
        raise launch.out_of_bounds(kernel.name, kernel.program.accesses)
    launch.raise_failures()


def stub_plan(kernel: Kernel, args: Sequence[object]) -> list[Any] | None:
    """What a stub of compiled `kernel` accepts for each of `args` (`fast_launch.Arg`, as
    they came: arrays of their dtype, exact ints, floats and bools), or None where one of
    them is something a stub does not read (or the kernel promises divisibility: the
    Python path checks it)."""
    from blkc.runtime.fast_launch import runtime_arg

    if len(args) != len(kernel.param_types) or any(kernel.divisibility):
        return None
    plan = []
    for index, (t, value) in enumerate(zip(kernel.param_types, args, strict=True)):
        written = kernel.writes[index] if index < len(kernel.writes) else True
        arg = runtime_arg(t, value, index, written)
        if arg is None:
            return None
        plan.append(arg)
    return plan


__all__ = ["LOWERING", "CpuBackend", "CpuProgram", "lower_variants", "lowering_for"]
