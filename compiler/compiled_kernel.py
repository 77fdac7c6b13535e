"""What `JITFunction.warmup` returns: one variant's `blkc.Kernel`, as Triton's compiled
kernels are used.

    kernel = softmax.warmup(y, x, n_rows, n_cols, BLOCK=1024, num_warps=8, grid=(1,))
    kernel._init_handles()                      # native code ready (warmup did it already)
    kernel.n_regs, kernel.metadata.shared       # what an occupancy estimate reads
    kernel[(programs, 1, 1)](y, x, n_rows, n_cols, 1024)   # every argument, constants too

A launch takes the kernel's runtime arguments, or every argument of the `@blkc.jit`
function in order, as Triton's compiled kernels take them: those compiled in (constexprs,
None, an int equal to 1) must equal what the variant was compiled for, a `ValueError`
otherwise. The resources are the target's (`Backend.resources`); on the CPU targets
`n_regs` is a core's registers split among the program's warps (see
`blkc.runtime.driver.device_properties`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from blkc.kernel import Kernel
from blkc.runtime import driver
from blkc.runtime.grid import Grid


@dataclass(frozen=True)
class KernelMetadata:
    """Triton's `CompiledKernel.metadata`, the fields programs read."""

    name: str
    target: driver.Target
    num_warps: int
    num_stages: int
    shared: int
    """Bytes of shared memory (the CPU targets: of the stack buffers of blocks) a program uses."""


@dataclass(repr=False)
class CompiledKernel(Kernel):
    """A `blkc.Kernel` bound to the `@blkc.jit` function it was compiled from (see the
    module's docstring)."""

    arg_names: list[str] = field(default_factory=list)
    """The function's parameters, in order."""
    constants: dict[str, Any] = field(default_factory=dict)
    """The arguments compiled in, by name."""
    num_warps: int = 4
    num_stages: int = 2

    @classmethod
    def bind(cls, kernel: Kernel, arg_names: list[str], **options: Any) -> CompiledKernel:
        """`kernel` as compiled from a function with parameters `arg_names`; `options` are
        the other fields (`constants`, `num_warps`, `num_stages`)."""
        shared = {f.name: getattr(kernel, f.name) for f in fields(Kernel) if f.init}
        return cls(**shared, arg_names=arg_names, **options)

    def launch(self, grid: Grid, args: Sequence[object], kwargs: dict[str, Any]) -> None:
        if len(args) == len(self.arg_names) != len(self.param_types):
            args = self._runtime(args)
        super().launch(grid, args, kwargs)

    def _runtime(self, args: Sequence[object]) -> list[object]:
        """The runtime arguments among every argument of the function, checking that those
        compiled in are what they were."""
        for name, value in zip(self.arg_names, args, strict=True):
            if name in self.constants and not _same(value, self.constants[name]):
                raise ValueError(
                    f"kernel '{self.name}', argument '{name}': this kernel was compiled for "
                    f"{self.constants[name]!r}, got {value!r} (warm up a variant for it)"
                )
        return [v for n, v in zip(self.arg_names, args, strict=True) if n not in self.constants]

    def _init_handles(self) -> None:
        """Make the native code ready to launch (Triton loads its module here)."""
        self.prepare()

    @property
    def n_regs(self) -> int | None:
        """Registers per thread: the assembler's count (ptx), or on the CPU a core's vector
        lanes split among the program's `num_warps × warpSize` threads."""
        counted = self.backend.resources(self.program).get("n_regs")
        if counted is not None or self.target == "ptx":
            return counted
        properties = driver.device_properties()
        return max(1, properties["max_num_regs"] // (self.num_warps * properties["warpSize"]))

    @property
    def n_spills(self) -> int | None:
        """Bytes of registers spilled (Triton's name for `spills`)."""
        return self.spills if self.target == "ptx" else 0

    @property
    def metadata(self) -> KernelMetadata:
        if self.target == "ptx":
            target = driver.Target("cuda", getattr(self.program, "arch", ""), 32)
        else:
            target = driver.host_target()
        return KernelMetadata(self.name, target, self.num_warps, self.num_stages, self.shared or 0)


def _same(value: object, compiled: object) -> bool:
    """Whether `value`, passed where `compiled` was compiled in, is that value."""
    from blkc.language import core as tl

    if isinstance(value, tl.constexpr):
        value = value.value
    return value is compiled or (type(value) is type(compiled) and value == compiled)


@dataclass
class ASTSource:
    """A `@blkc.jit` function and the types to compile it for, as Triton's
    `triton.compiler.ASTSource`: ``blkc.compile(ASTSource(fn, signature, constexprs))``
    returns the `CompiledKernel` that `fn.warmup` would for arguments of those types.

    `signature` maps each parameter (by name, or by position) to a Triton type: ``*fp32``
    (a pointer), ``i32``, ``fp16``, ... or ``constexpr``; `constexprs` maps parameters (by
    name, position, or a one-element tuple of the position, as Triton's keys are) to their
    values. A parameter that `signature` leaves out takes its default. `attrs`, Triton's
    per-parameter hints, are read for ``tt.divisibility`` 16 (an integer a multiple of 16)."""

    fn: Any
    signature: dict[Any, str]
    constexprs: dict[Any, Any] | None = None
    attrs: dict[Any, Any] | None = None

    def arguments(self) -> dict[str, Any]:
        """An argument of each parameter's type (or value), by name."""
        from blkc.frontend.cli import parse_type
        from blkc.jitfunction import base_function

        fn = base_function(self.fn)
        names = list(fn.arg_names)
        where = f"ASTSource of kernel '{fn.__name__}'"
        signature = {self._name(k, names, where): v for k, v in self.signature.items()}
        constexprs = {self._name(k, names, where): v for k, v in (self.constexprs or {}).items()}
        divisible = {
            self._name(k, names, where)
            for k, hints in (self.attrs or {}).items()
            if any(list(h) == ["tt.divisibility", 16] for h in hints)
        }
        arguments: dict[str, Any] = {}
        for name, parameter in fn.signature.parameters.items():
            kind = signature.get(name)
            if name in constexprs:
                arguments[name] = constexprs[name]
            elif kind is None or kind == "constexpr":
                if parameter.default is parameter.empty:
                    what = "a value in constexprs" if kind else "a type in signature"
                    raise ValueError(f"{where}: parameter '{name}' needs {what}")
                arguments[name] = parameter.default
            else:
                hint = ":16" if name in divisible and ":" not in kind else ""
                arguments[name] = parse_type(kind + hint, f"{where}, parameter '{name}'").example()
        return arguments

    @staticmethod
    def _name(key: Any, names: list[str], where: str) -> str:
        """A parameter's name from Triton's key for it: its name, position, or a tuple of
        its position (one element: a path into a tuple argument is not supported)."""
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        if isinstance(key, int) and 0 <= key < len(names):
            return names[key]
        if isinstance(key, str) and key in names:
            return key
        raise ValueError(f"{where}: {key!r} names no parameter ({', '.join(names)})")

    def compile(self, target: Any = None, options: dict[str, Any] | None = None) -> CompiledKernel:
        """The compiled kernel, for `target` (a `driver.Target`, Triton's `GPUTarget`, or a
        blkc target name; default the host CPU) with Triton's `options` (`num_warps`, ...;
        the GPU tuning options blkc ignores at launches are ignored here too)."""
        settings = dict(options or {})
        if isinstance(target, str):
            settings["target"] = target
        elif target is not None and getattr(target, "backend", "cpu") == "cuda":
            settings.update(target="ptx", arch=f"sm_{target.arch}")
        return self.fn.warmup(**self.arguments(), **settings)  # type: ignore[no-any-return]
