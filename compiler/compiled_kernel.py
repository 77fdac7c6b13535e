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
