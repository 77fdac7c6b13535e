"""`blkc.compile`: blk IR to a kernel that runs on NumPy arrays, on every core (or a GPU).

    kernel = blkc.compile(open("examples/vector_add.mlir").read())
    kernel[(triton_cdiv(n, 1024),)](x, y, out, n)

The pipeline: `to-strict{policy=P}`, then the target's lowering and code generation
(`blkc.backends`: `cpu`, `cpu-simt`, `ptx`). `Kernel` is the compiled kernel of every
target. Compiled kernels are cached in memory and on disk by a key of the IR (or the
frontend's source and specialization), the policy and the target's options; this module
is the one front of that cache (`compile`, `compile_cached`).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from blkc import backends
from blkc.backends import Backend, TargetOptions
from blkc.promotion import default_policy
from blkc.runtime import cache, launch
from blkc.runtime.grid import (
    ENTRY_CODES,
    Grid,
    GridLauncher,
    KeptLaunchers,
    Launchable,
    for_user,
    positional_only,
    user_entry,
)

if TYPE_CHECKING:
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Attribute

    from blkc.compiled_kernel import ASTSource

# A kernel loaded from the disk cache launches without xDSL, the frontends and the code
# generators: this module imports them where it compiles.


@dataclass
class Kernel(KeptLaunchers, Launchable):
    """A compiled kernel, for any target: launch it with ``kernel[grid](*args)``."""

    name: str
    param_types: list[str]
    """The blk types of the kernel's parameters (with their signedness), as IR text."""
    target: str
    stages: dict[str, str]
    """The text of each stage compiled so far (see `asm`)."""
    program: Any
    """What the target's backend generated (`blkc.backends.cpu.CpuProgram`,
    `blkc.runtime.gpu_kernel.GpuKernel`)."""
    divisibility: list[int | None] = field(default_factory=list)
    """Per parameter, the power of two an int argument promises to be a multiple of (its
    `blk.divisibility` attribute: Triton-C's `__multipleof`), checked at each launch."""
    cache_key: str | None = None
    writes: list[bool] = field(default_factory=list)
    """Per parameter, whether the kernel may store through it (`passes.written_arguments`):
    a launch refuses a read-only array there."""
    param_names: list[str | None] = field(default_factory=list)
    """The parameters' names in the source, where known (for messages)."""
    options: TargetOptions | None = None
    """The options the kernel was generated with (None: the target's defaults)."""
    _stub: Any = field(default=None, init=False, repr=False, compare=False)
    """The launch stub of the latest arguments' kinds (`_note_launch`), and the
    `BLKC_STREAM_BYTES` it was built under, or None."""
    _launched: Any = field(default=None, init=False, repr=False, compare=False)
    """The stub plan of the last launch through Python (`backends.cpu.stub_plan`)."""
    _grids: dict[Any, _KernelLaunch] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def backend(self) -> Backend:
        return backends.get(self.target)

    @functools.cached_property
    def params(self) -> list[Attribute]:
        """The blk types of the kernel's parameters, as xDSL attributes (parsed at first
        use: launching needs only `param_types`)."""
        from blkc.pipeline import parse_attributes

        return parse_attributes(self.param_types)

    @functools.cached_property
    def slots(self) -> list[launch.Slot]:
        """How a launch checks and passes each argument (computed once)."""
        return launch.slots(self.param_types)

    def __repr__(self) -> str:
        return f"<blkc.Kernel '{self.name}' for {self.target}>"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling (pickle, cloudpickle, Dask): by the kernel's description (`to_meta`: its
        IR at each stage as text, its parameters) with its options and cache key. The
        receiving process takes the kernel from its memory cache under that key where it is
        there, else rebuilds it from the description and generates its native code at its
        first launch (or loads it from the disk cache). Compiled code never travels."""
        options = self.options or TargetOptions(self.target)
        return (_unpickle_kernel, (self.cache_key, self.to_meta(), options))

    def launch(self, grid: Grid, args: Sequence[object], kwargs: dict[str, Any]) -> None:
        threads = kwargs.pop("num_cpu_threads", None)
        positional_only(self.name, kwargs)
        self.run(grid, args, num_cpu_threads=threads)

    def _launcher(self, grid: Grid) -> _KernelLaunch:
        return _KernelLaunch(self, grid)

    def _note_launch(self, args: Sequence[object]) -> None:
        """After a launch through Python without keywords: the second in a row whose
        arguments are of the same kinds builds a launch stub for the launches after it
        (as `@blkc.jit` kernels' variants do)."""
        from blkc.backends.cpu import launch_stub, stub_current, stub_plan

        plan = stub_plan(self, args)
        repeated, self._launched = plan is not None and plan == self._launched, plan
        if not repeated:
            return
        if self._stub is not None and self._stub[2] == plan and stub_current(self, self._stub[0]):
            return  # its stub left this launch to Python (a large grid, say)
        from blkc.runtime import fast_launch

        if fast_launch.available():
            stub = launch_stub(self, plan, None)  # type: ignore[arg-type]
            if stub is not None:
                self._stub = (stub, os.environ.get("BLKC_STREAM_BYTES"), plan)

    def run(
        self,
        grid: Grid,
        args: Sequence[object],
        meta: dict[str, Any] | None = None,
        num_cpu_threads: int | None = None,
    ) -> None:
        """Launch over `grid` (a tuple, or a function of `meta`), on CPU targets on at most
        `num_cpu_threads` threads (None: every core)."""
        _check_divisibility(self.name, self.divisibility, args)
        self.backend.launch(self, grid, args, meta or {}, num_cpu_threads)

    def prepare(self) -> Kernel:
        """Generate the native code now (a launch otherwise does it first); return self."""
        self.backend.prepare(self)
        return self

    @property
    def asm(self) -> dict[str, str]:
        """Each stage's text: `loose`, `strict`, `loops` (blk and loop IR), `llvm`, and
        `asm` (CPU targets) or `ptx`; under Triton's names too, `ttir` (the strict blk IR)
        and `llir` (the LLVM IR)."""
        stages = self.backend.asm(self)
        aliases = {"ttir": "strict", "llir": "llvm"}
        return {**stages, **{t: stages[b] for t, b in aliases.items() if b in stages}}

    @property
    def n_regs(self) -> int | None:
        """Registers per thread, where the target's assembler says (ptx with ptxas)."""
        return self.backend.resources(self.program).get("n_regs")

    @property
    def shared(self) -> int | None:
        """Bytes of shared memory per program, where the target's assembler says."""
        return self.backend.resources(self.program).get("shared")

    @property
    def spills(self) -> int | None:
        """Bytes of registers spilled, where the target's assembler says."""
        return self.backend.resources(self.program).get("spills")

    def to_meta(self) -> dict[str, Any]:
        """What `from_meta` rebuilds this kernel from (JSON-able; types as IR text)."""
        return {
            "name": self.name,
            "target": self.target,
            "params": list(self.param_types),
            "stages": self.stages,
            "divisibility": self.divisibility,
            "writes": self.writes,
            "param_names": self.param_names,
            "program": self.backend.program_meta(self.program),
        }

    @classmethod
    def from_meta(
        cls, meta: dict[str, Any], options: TargetOptions, cache_key: str | None = None
    ) -> Kernel:
        """The kernel `to_meta` described, for `options` (a KeyError, TypeError or
        ValueError for a damaged description)."""
        backend = backends.get(meta["target"])
        return cls(
            meta["name"],
            [str(t) for t in meta["params"]],
            meta["target"],
            dict(meta["stages"]),
            backend.program_from_meta(meta["program"], options, cache_key),
            list(meta["divisibility"]),
            cache_key,
            [bool(w) for w in meta["writes"]],
            list(meta["param_names"]),
            options,
        )


_cache: dict[str, Kernel] = {}
builds = 0
"""How many kernels this process compiled from IR (not found in a cache)."""
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class _Options:
    policy: str | None
    kernel: str | None
    filename: str
    target: TargetOptions

    def key_parts(self) -> tuple[object, ...]:
        # No policy named: the module's `blk.policy`, else the process-wide default.
        policy = self.policy if self.policy is not None else ("default", default_policy())
        target = self.target
        parts: tuple[object, ...] = (policy, self.kernel, target.opt, target.check_bounds)
        return parts + backends.get(target.target).key_parts(target)


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
    return _Options(
        policy, kernel, filename, TargetOptions(chosen, num_warps, arch, check_bounds, opt)
    )


@user_entry
def compile(  # noqa: A001 - the public name mirrors Triton's and Python's
    source: str | ModuleOp | ASTSource,
    target: str | None = None,
    options: dict[str, Any] | None = None,
    *,
    policy: str | None = None,
    kernel: str | None = None,
    opt: int = 3,
    filename: str = "<string>",
    check_bounds: bool | None = None,
    num_warps: int = 4,
    arch: str | None = None,
) -> Kernel:
    """Compile blk IR (text or a module) to a `Kernel`; or a `@blkc.jit` function for the
    types an `ASTSource` gives (Triton's ``triton.compile(src, target, options)``, see
    `blkc.compiled_kernel.ASTSource`) to its `CompiledKernel`.

    `policy` overrides the module's `blk.policy`; `kernel` names the kernel when the module
    has several. `check_bounds` (default: on unless the environment variable
    `BLKC_CHECK_BOUNDS=0`) makes every memory access check its address against the arrays
    the kernel was given, skipping and reporting (IndexError) those outside: no kernel can
    then corrupt or crash the process, at a cost on memory-bound kernels. `target` (default
    `$BLKC_TARGET`, else `cpu`) is `cpu`, `cpu-simt` (the GPU lowering of `num_warps` warps
    per program, run on the CPU) or `ptx` (PTX for `arch`, default sm_90; see
    `blkc.targets`). User errors raise `blkc.BlkcError` with located diagnostics. Kernels
    are cached in memory and on disk (see `blkc.runtime.cache`).
    """
    from blkc.compiled_kernel import ASTSource

    if isinstance(source, ASTSource):
        return source.compile(target, options)
    if options is not None:
        raise TypeError("blkc.compile: options are for an ASTSource (IR takes keywords)")
    settings = _options(policy, kernel, opt, filename, check_bounds, target, num_warps, arch)
    text = source if isinstance(source, str) else str(source)
    key = cache.key(text, *settings.key_parts())
    return _compile_keyed(key, lambda: (source, text), settings)


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
) -> Kernel:
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
) -> Kernel:
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    compiled = _from_disk(key, options.target)
    if compiled is None:
        module, text = source()
        compiled = _build(module, text, options, key)
        cache.store_meta(key, compiled.to_meta())
    with _cache_lock:
        _cache[key] = compiled
    return compiled


def _build(source: str | ModuleOp, text: str, options: _Options, key: str) -> Kernel:
    from blkc.passes.written_arguments import written_arguments
    from blkc.pipeline import parse, run_pipeline, to_strict_spec

    global builds
    builds += 1
    module = parse(text, options.filename) if isinstance(source, str) else source.clone()
    function = _pick_kernel(module, options.kernel)  # the passes change it in place
    name = function.sym_name.data
    params = list(function.function_type.inputs.data)  # signed: lowering makes it signless
    divisibility = _divisibility(function)
    run_pipeline(module, to_strict_spec(options.policy))
    strict = str(module)
    writes = written_arguments(function)
    names = [arg.name_hint for arg in function.body.blocks[0].args]
    target = options.target
    stages, program = backends.get(target.target).build(module, name, target, key)
    kernel = Kernel(
        name,
        [str(t) for t in params],
        target.target,
        {"loose": text, "strict": strict, **stages},
        program,
        divisibility,
        key,
        writes,
        names,
        target,
    )
    kernel.__dict__["params"] = params  # parsed already
    return kernel


def _unpickle_kernel(key: str | None, meta: dict[str, Any], options: TargetOptions) -> Kernel:
    """The kernel a pickle describes (see `Kernel.__reduce__`): the one cached in memory
    under `key`, else rebuilt from `meta` and cached, so that a process unpickling a kernel
    for each task compiles it once."""
    if key is None:
        return Kernel.from_meta(meta, options)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    kernel = Kernel.from_meta(meta, options, key)
    with _cache_lock:
        return _cache.setdefault(key, kernel)


def _from_disk(key: str, options: TargetOptions) -> Kernel | None:
    meta = cache.load_meta(key)
    if meta is None:
        return None
    try:
        return Kernel.from_meta(meta, options, key)
    except (KeyError, TypeError, ValueError):
        return None  # a damaged or older entry: compile again


def _divisibility(function: func.FuncOp) -> list[int | None]:
    from xdsl.dialects.builtin import IntegerAttr

    from blkc.dialects.blk import DIVISIBILITY_ATTR

    attrs = function.arg_attrs
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


def _pick_kernel(module: ModuleOp, name: str | None) -> func.FuncOp:
    from blkc.diagnostics import error_at
    from blkc.dialects.kernels import find_kernel

    try:
        return find_kernel(module, name)
    except ValueError as err:
        raise error_at(module, str(err)) from None


__all__ = ["Kernel", "compile", "compile_cached"]


class _KernelLaunch(GridLauncher):
    """``kernel[grid]`` of a compiled kernel: launches through its stub where the stub
    takes the arguments, else through Python (`Kernel.launch`)."""

    __slots__ = ("kernel",)

    def __init__(self, kernel: Kernel, grid: Grid):
        super().__init__(grid)
        self.kernel = kernel

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        kernel = self.kernel
        try:
            stub = kernel._stub
            if (
                stub is not None
                and self.sizes is not None
                and not kwargs
                and stub[1] == os.environ.get("BLKC_STREAM_BYTES")
            ):
                ran = stub[0].call(*self.sizes, *args)
                if ran is None:
                    return
                if ran:
                    from blkc.backends.cpu import raise_stub_errors

                    raise_stub_errors(kernel, ran)
                    return
            kernel.launch(self.grid, args, kwargs)
            if not kwargs and self.sizes is not None:
                kernel._note_launch(args)
        except Exception as err:
            if for_user(err):
                raise err.with_traceback(None) from None
            raise


ENTRY_CODES.add(_KernelLaunch.__call__.__code__)
