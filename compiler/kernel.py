"""`blkc.compile`: blk IR to a kernel that runs on NumPy arrays, on every core.

    kernel = blkc.compile(open("examples/vector_add.mlir").read())
    kernel[(triton_cdiv(n, 1024),)](x, y, out, n)

The pipeline: `to-strict{policy=P}`, `convert-blk-to-loops`, `lower-int-semantics`,
`emulate-small-floats`, then LLVM IR, llvmlite's O3 with vectorization and MCJIT. Compiled
kernels are cached in memory by (IR, policy, options). Each launch checks whether its
arrays share bytes and picks one of two variants: for arrays that do not, the loops
lowered with `disjoint-args` and pointers marked `noalias`; for arrays that do, neither
(lowered again only where the option made a difference).
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import ParseError

from blkc.diagnostics import error_at
from blkc.dialects.blk import DIVISIBILITY_ATTR, KERNEL_ATTR
from blkc.passes.promotion import default_policy
from blkc.pipeline import apply_passes, build_passes, make_context, parse, run_pipeline
from blkc.runtime import cache, launch
from blkc.runtime.jit import CompiledModule, compile_ir
from blkc.runtime.llvm_codegen import abi_type, emit_module

if TYPE_CHECKING:
    from blkc.runtime.gpu_kernel import GpuKernel


STAGES = ("loose", "strict", "loops", "llvm", "asm")
"""What `Kernel.asm` holds, in pipeline order."""


def to_strict_spec(policy: str | None, warn: bool = False) -> str:
    options = [f"policy={policy}"] if policy else []
    options.append(f"warn={'true' if warn else 'false'}")
    return f"to-strict{{{' '.join(options)}}}"


def lower(module: ModuleOp, policy: str | None, lowering: str) -> tuple[str, str]:
    """Run the whole pipeline (`to-strict`, then the passes `lowering` names) on `module`
    in place; return the strict and loop IR text."""
    run_pipeline(module, to_strict_spec(policy))
    strict = str(module)
    run_pipeline(module, lowering)
    return strict, str(module)


def lower_variants(
    module: ModuleOp, policy: str | None, lowering: str
) -> tuple[str, dict[bool, ModuleOp]]:
    """Run `to-strict` on `module`, then the passes `lowering` names, with the loop
    lowerings told that distinct pointer arguments do not overlap (`disjoint-args`): the
    loop IR for launches whose arrays do not (`noalias`, True). Where that assumption
    changed the lowering, lower a copy of the strict IR again without it, for launches
    whose arrays do (False); else both share `module`. Returns the strict IR text too."""
    from blkc.passes.convert_blk_to_loops import relies_on_disjoint_args

    run_pipeline(module, to_strict_spec(policy))
    strict = str(module)
    passes = build_passes(lowering)
    assuming = tuple(_assuming_disjoint_args(p) for p in passes)
    aliased = module.clone() if assuming != passes else None
    ctx = make_context()
    apply_passes(ctx, module, assuming)
    if aliased is None or not relies_on_disjoint_args(module):
        return strict, {True: module, False: module}
    apply_passes(ctx, aliased, passes)
    return strict, {True: module, False: aliased}


def _assuming_disjoint_args(module_pass: ModulePass) -> ModulePass:
    if any(f.name == "disjoint_args" for f in fields(module_pass)):
        return replace(module_pass, disjoint_args=True)
    return module_pass


@dataclass
class _Binary:
    compiled: CompiledModule
    launcher: Callable[..., None]
    errors: ctypes.c_uint32
    """The kernel's out-of-bounds record (see `KernelSignature.errors`)."""

    def check_accesses(self, name: str, accesses: Sequence[str]) -> None:
        """Raise IndexError when the last launch touched memory outside its arrays."""
        if not self.errors.value:
            return
        self.errors.value = 0
        where = accesses[0] if len(accesses) == 1 else "one of " + ", ".join(accesses)
        raise IndexError(
            f"kernel '{name}' accessed memory outside the arrays it was given, at {where} "
            "(the access was skipped; check the offsets and the mask)"
        )


@dataclass
class Kernel:
    """A compiled kernel: launch it with ``kernel[grid](*args)``."""

    name: str
    params: list[Attribute]
    """The blk types of the kernel's parameters (with their signedness)."""
    launcher: str
    """The symbol of the exported grid launcher."""
    abi: list[Attribute]
    """The parameter types the launcher takes (signless, as the code generator saw them)."""
    errors: str
    """The symbol of the kernel's out-of-bounds record."""
    accesses: list[str]
    """The source location of each memory access the kernel checks."""
    llvm_variants: dict[bool, str]
    """The LLVM IR for launches whose arrays do not overlap (True: lowered with
    `disjoint-args`, pointer arguments marked noalias) and for those whose arrays do."""
    stages: dict[str, str]
    opt: int = 3
    cache_key: str | None = None
    divisibility: list[int | None] = field(default_factory=list)
    """Per parameter, the power of two an int argument promises to be a multiple of (its
    `blk.divisibility` attribute: Triton-C's `__multipleof`), checked at each launch."""
    _binaries: dict[bool, _Binary] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __getitem__(self, grid: launch.Grid) -> Callable[..., None]:
        def run(*args: object) -> None:
            self.run(grid, args)

        return run

    def run(
        self, grid: launch.Grid, args: Sequence[object], meta: dict[str, Any] | None = None
    ) -> None:
        converted = launch.convert_args(self.name, self.params, args)
        _check_divisibility(self.name, self.divisibility, args)
        shape = launch.normalize_grid(grid, meta or {})
        binary = self._binary(launch.no_overlap(converted.arrays))
        bounds = launch.array_bounds(self.params, converted.arrays)
        launch.run_grid(binary.launcher, [*converted.values, bounds], shape)
        binary.check_accesses(self.name, self.accesses)

    def prepare(self) -> Kernel:
        """Compile the native code now (a launch otherwise does it first); return self."""
        self._binary(True)
        return self

    @property
    def asm(self) -> dict[str, str]:
        """Each stage's text: `loose`, `strict`, `loops` (blk and loop IR), `llvm`, `asm`."""
        if "asm" not in self.stages:
            self.stages["llvm"] = self._binary(True).compiled.llvm_ir
            self.stages["asm"] = self._binary(True).compiled.assembly()
        return self.stages

    def _binary(self, noalias: bool) -> _Binary:
        with self._lock:
            if noalias not in self._binaries:
                self._binaries[noalias] = self._load_or_compile(noalias)
            return self._binaries[noalias]

    def _load_or_compile(self, noalias: bool) -> _Binary:
        launch.register_runtime_symbols()
        variant = "noalias" if noalias else "alias"
        cached = cache.load_binary(self.cache_key, variant) if self.cache_key else None
        compiled = None
        if cached is not None:
            try:
                compiled = compile_ir(cached[0], self.opt, optimized=True, object_code=cached[1])
            except RuntimeError:
                compiled = None  # a damaged entry: compile again
        if compiled is None:
            compiled = compile_ir(self.llvm_variants[noalias], self.opt)
            if self.cache_key and compiled.object_code:
                cache.store_binary(self.cache_key, variant, compiled.llvm_ir, compiled.object_code)
        prototype = ctypes.CFUNCTYPE(
            None,
            *(_ctype(t) for t in self.abi),
            ctypes.c_void_p,
            ctypes.c_int64,
            ctypes.c_int64,
            *([ctypes.c_int32] * 3),
        )
        errors = ctypes.c_uint32.from_address(compiled.engine.get_global_value_address(self.errors))
        return _Binary(compiled, prototype(compiled.address(self.launcher)), errors)


def _ctype(t: object) -> type:
    import llvmlite.ir as ir

    llvm_t = abi_type(t)  # type: ignore[arg-type]
    if isinstance(llvm_t, ir.PointerType):
        return ctypes.c_void_p
    if isinstance(llvm_t, ir.IntType):
        return {
            1: ctypes.c_bool,
            8: ctypes.c_int8,
            16: ctypes.c_int16,
            32: ctypes.c_int32,
            64: ctypes.c_int64,
        }[llvm_t.width]
    if isinstance(llvm_t, ir.DoubleType):
        return ctypes.c_double
    return ctypes.c_float


_cache: dict[str, Kernel | GpuKernel] = {}
builds = 0
"""How many kernels this process compiled from IR (not found in a cache)."""
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class _Options:
    policy: str | None
    kernel: str | None
    opt: int
    filename: str
    check_bounds: bool
    target: str
    num_warps: int
    arch: str | None

    def key_parts(self) -> tuple[object, ...]:
        # No policy named: the module's `blk.policy`, else the process-wide default.
        policy = self.policy if self.policy is not None else ("default", default_policy())
        parts: tuple[object, ...] = (policy, self.kernel, self.opt, self.check_bounds)
        if self.target != "cpu":  # the CPU's keys stay as they were
            parts += (self.target, self.num_warps, self.arch)
        return parts


def _options(
    policy: str | None,
    kernel: str | None,
    opt: int,
    filename: str,
    check_bounds: bool | None,
    target: str | None,
    num_warps: int,
    arch: str | None,
) -> _Options:
    from blkc import targets

    if check_bounds is None:
        check_bounds = os.environ.get("BLKC_CHECK_BOUNDS", "1") != "0"
    chosen = targets.resolve(target)
    if chosen == "ptx":
        arch = targets.check_arch(arch)
    return _Options(policy, kernel, opt, filename, check_bounds, chosen, num_warps, arch)


def compile(  # noqa: A001 - the public name mirrors Triton's and Python's
    source: str | ModuleOp,
    *,
    policy: str | None = None,
    kernel: str | None = None,
    opt: int = 3,
    filename: str = "<string>",
    check_bounds: bool | None = None,
    target: str | None = None,
    num_warps: int = 4,
    arch: str | None = None,
) -> Kernel | GpuKernel:
    """Compile blk IR (text or a module) to a `Kernel`.

    `policy` overrides the module's `blk.policy`; `kernel` names the kernel when the module
    has several. `check_bounds` (default: on unless the environment variable
    `BLKC_CHECK_BOUNDS=0`) makes every memory access check its address against the arrays
    the kernel was given, skipping and reporting (IndexError) those outside: no kernel can
    then corrupt or crash the process, at a cost on memory-bound kernels. `target` (default
    `$BLKC_TARGET`, else `cpu`) is `cpu`, `cpu-simt` (the GPU lowering of `num_warps` warps
    per program, run on the CPU) or `ptx` (a `GpuKernel` for `arch`, default sm_90; see
    `blkc.targets`). User errors raise `blkc.BlkcError` with located diagnostics. Kernels
    are cached in memory and on disk (see `blkc.runtime.cache`).
    """
    options = _options(policy, kernel, opt, filename, check_bounds, target, num_warps, arch)
    text = source if isinstance(source, str) else str(source)
    key = cache.key(text, *options.key_parts())
    return _compile_keyed(key, lambda: (source, text), options)


def compile_cached(
    key_parts: Sequence[object],
    build: Callable[[], ModuleOp],
    *,
    policy: str | None = None,
    opt: int = 3,
    filename: str = "<string>",
    check_bounds: bool | None = None,
    target: str | None = None,
    num_warps: int = 4,
    arch: str | None = None,
) -> Kernel | GpuKernel:
    """Compile the module `build()` returns, unless a kernel for `key_parts` is cached (in
    memory or on disk), in which case `build` is not called. Frontends key on their source
    and specialization, so a warm cache skips building IR too. Options as in `compile`."""
    options = _options(policy, None, opt, filename, check_bounds, target, num_warps, arch)
    key = cache.key("frontend", *key_parts, *options.key_parts())

    def source() -> tuple[ModuleOp, str]:
        module = build()
        return module, str(module)

    return _compile_keyed(key, source, options)


def _compile_keyed(
    key: str, source: Callable[[], tuple[str | ModuleOp, str]], options: _Options
) -> Kernel | GpuKernel:
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    gpu = options.target == "ptx"
    compiled = _gpu_from_disk(key) if gpu else _from_disk(key, options.opt)
    if compiled is None:
        module, text = source()
        compiled = _build(module, text, options, key)
        if gpu:
            cache.store_meta(key, compiled.to_meta())  # type: ignore[union-attr]
    with _cache_lock:
        _cache[key] = compiled
    return compiled


def _build(source: str | ModuleOp, text: str, options: _Options, key: str) -> Kernel | GpuKernel:
    from blkc import targets

    global builds
    builds += 1
    module = parse(text, options.filename) if isinstance(source, str) else source.clone()
    name = _pick_kernel(module, options.kernel)
    params = _params(module, name)  # with signedness, which lowering removes
    divisibility = _divisibility(module, name)
    lowering = targets.lowering(options.target, options.num_warps)
    if options.target == "ptx":
        from blkc.runtime.gpu_kernel import build_gpu_kernel

        # No launch check of overlapping arrays on the GPU: one conservative lowering.
        strict, loops = lower(module, options.policy, lowering)
        stages = {"loose": text, "strict": strict, "loops": loops}
        assert options.arch is not None
        return build_gpu_kernel(
            module,
            name,
            params,
            stages,
            arch=options.arch,
            num_warps=options.num_warps,
            opt=options.opt,
        )
    strict, lowered = lower_variants(module, options.policy, lowering)
    variants = {
        noalias: emit_module(lowered[noalias], noalias=noalias, check_bounds=options.check_bounds)
        for noalias in (True, False)
    }
    signature = variants[True].kernels[name]
    loops = str(lowered[True])
    stages = {"loose": text, "strict": strict, "loops": loops, "llvm": variants[True].llvm_ir}
    built = Kernel(
        name,
        params,
        signature.launcher,
        list(signature.params),
        signature.errors,
        signature.accesses,
        {noalias: emitted.llvm_ir for noalias, emitted in variants.items()},
        stages,
        options.opt,
        key,
        divisibility,
    )
    cache.store_meta(
        key,
        {
            "name": name,
            "params": [str(t) for t in params],
            "launcher": signature.launcher,
            "abi": [str(t) for t in signature.params],
            "errors": signature.errors,
            "accesses": signature.accesses,
            "llvm": {"noalias": built.llvm_variants[True], "alias": built.llvm_variants[False]},
            "stages": stages,
            "divisibility": divisibility,
        },
    )
    return built


def _gpu_from_disk(key: str) -> GpuKernel | None:
    from blkc.runtime.gpu_kernel import GpuKernel

    meta = cache.load_meta(key)
    if meta is None:
        return None
    try:
        return GpuKernel.from_meta(meta)
    except (KeyError, TypeError, ValueError, ParseError):
        return None  # a damaged entry: compile again


def _from_disk(key: str, opt: int) -> Kernel | None:
    meta = cache.load_meta(key)
    if meta is None:
        return None
    try:
        ctx = make_context()
        types = [
            [Parser(ctx, t).parse_attribute() for t in meta[field_name]]
            for field_name in ("params", "abi")
        ]
        return Kernel(
            meta["name"],
            types[0],
            meta["launcher"],
            types[1],
            meta["errors"],
            list(meta["accesses"]),
            {True: meta["llvm"]["noalias"], False: meta["llvm"]["alias"]},
            dict(meta["stages"]),
            opt,
            key,
            list(meta.get("divisibility", [])),
        )
    except (KeyError, TypeError, ValueError, ParseError):
        return None


def _function(module: ModuleOp, name: str) -> func.FuncOp:
    for op in module.walk():
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    raise AssertionError(name)


def _params(module: ModuleOp, name: str) -> list[Attribute]:
    return list(_function(module, name).function_type.inputs.data)


def _divisibility(module: ModuleOp, name: str) -> list[int | None]:
    attrs = _function(module, name).arg_attrs
    found: list[int | None] = []
    for entry in attrs.data if attrs is not None else ():
        hint = entry.data.get(DIVISIBILITY_ATTR)  # type: ignore[attr-defined]
        found.append(hint.value.data if isinstance(hint, IntegerAttr) else None)
    return found


def _check_divisibility(name: str, divisibility: list[int | None], args: Sequence[object]) -> None:
    """A launch must keep the divisibility its kernel was compiled to rely on."""
    for index, (amount, arg) in enumerate(zip(divisibility, args, strict=False)):
        if amount and isinstance(arg, int) and arg % amount:
            raise ValueError(
                f"argument {index} of kernel '{name}' is {arg}, not a multiple of {amount} as "
                "its parameter's divisibility hint (__multipleof, blk.divisibility) promises"
            )


def _pick_kernel(module: ModuleOp, name: str | None) -> str:
    kernels = [
        op.sym_name.data
        for op in module.walk()
        if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes
    ]
    if name is not None:
        if name not in kernels:
            raise error_at(module, f"no kernel '{name}' (kernels: {', '.join(kernels) or 'none'})")
        return name
    if len(kernels) != 1:
        raise error_at(
            module,
            "the module has "
            + (f"several kernels ({', '.join(kernels)}): name one" if kernels else "no kernel")
            + " (a kernel is a func.func with the blk.kernel attribute)",
        )
    return kernels[0]


__all__ = ["Kernel", "compile", "compile_cached"]
