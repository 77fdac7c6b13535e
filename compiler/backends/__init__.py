"""Compilation targets behind one interface: each target is one module of this package.

A `Backend` takes a kernel from strict blk IR to something that runs:

- `lowering(options)`: the passes after `to-strict` (a pass pipeline spec);
- `build(module, name, options, cache_key)`: lower the strict module, generate its code
  and return the stages it adds (`loops`, `llvm`, ...) and its `program`, all that a
  launch needs;
- `launch(kernel, grid, args, meta, num_cpu_threads)`: run a compiled kernel over a grid
  (CPU targets on at most `num_cpu_threads` threads, every core by default);
- `program_meta(program)` / `program_from_meta(meta, options, cache_key)`: the program
  as JSON-able data for the disk cache, and back.

`blkc.kernel.Kernel` is the one compiled-kernel object over every backend: it holds what
is common (name, parameter types, divisibility promises, the IR stages) and the backend's
program. Adding a target means adding a module here and its name to `BACKENDS`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from xdsl.dialects.builtin import ModuleOp

    from blkc.kernel import Kernel
    from blkc.runtime.launch import Grid

BACKENDS: dict[str, str] = {
    "cpu": "blkc.backends.cpu:CpuBackend",
    "cpu-simt": "blkc.backends.cpu_simt:CpuSimtBackend",
    "ptx": "blkc.backends.ptx:PtxBackend",
}
"""Every target by name, imported on first use."""


@dataclass(frozen=True)
class TargetOptions:
    """How to generate code, whatever the target (each backend reads what it needs)."""

    target: str
    num_warps: int = 4
    """Warps per program (the SIMT targets)."""
    arch: str | None = None
    """The NVIDIA architecture (ptx)."""
    check_bounds: bool = True
    opt: int = 3


class Backend(ABC):
    """A compilation target (see the module's docstring)."""

    name: ClassVar[str]
    stages: ClassVar[tuple[str, ...]]
    """What `Kernel.asm` holds for this target, in pipeline order."""

    def key_parts(self, options: TargetOptions) -> tuple[object, ...]:
        """The options that change this target's code, for cache keys."""
        return (options.target, options.num_warps, options.arch)

    @abstractmethod
    def lowering(self, options: TargetOptions) -> str:
        """The passes from strict blk IR to what `build` generates code from."""

    @abstractmethod
    def build(
        self, module: ModuleOp, name: str, options: TargetOptions, cache_key: str | None
    ) -> tuple[dict[str, str], Any]:
        """Lower the strict `module` (kernel `name`) and generate its code: the stages
        this adds (their text by name) and the program."""

    @abstractmethod
    def launch(
        self,
        kernel: Kernel,
        grid: Grid,
        args: Sequence[object],
        meta: dict[str, Any],
        num_cpu_threads: int | None = None,
    ) -> None:
        """Run `kernel` (whose `program` this backend built) over `grid`, on at most
        `num_cpu_threads` CPU threads where the target runs on the CPU (None: every
        core)."""

    @abstractmethod
    def program_meta(self, program: Any) -> dict[str, Any]:
        """`program` as JSON-able data."""

    @abstractmethod
    def program_from_meta(
        self, meta: dict[str, Any], options: TargetOptions, cache_key: str | None
    ) -> Any:
        """The program `program_meta` described."""

    def prepare(self, kernel: Kernel) -> None:  # noqa: B027 - optional
        """Generate native code now, where a launch would otherwise do it first."""

    def compile_job(
        self, kernel: Kernel, args: Sequence[object] | None
    ) -> Callable[[], object] | None:
        """The native code a launch of `kernel` on the runtime arguments `args` would run
        (None: what `prepare` makes), as a job that any thread may run
        (`runtime.jit.compile_in_parallel`), its part that must run on this thread done
        now; None where this target has no such job."""
        return None

    def asm(self, kernel: Kernel) -> dict[str, str]:
        """Each stage's text (a backend may produce late stages here, on demand)."""
        return kernel.stages

    def resources(self, program: Any) -> dict[str, int | None]:
        """What the target's assembler says of the program (registers, shared memory,
        spills), where it says anything."""
        return {}


_instances: dict[str, Backend] = {}


def get(name: str) -> Backend:
    """The backend of target `name` (a ValueError for an unknown one)."""
    if name not in _instances:
        if name not in BACKENDS:
            raise ValueError(f"unknown target '{name}' (targets: {', '.join(BACKENDS)})")
        module, cls = BACKENDS[name].split(":")
        _instances[name] = getattr(import_module(module), cls)()
    return _instances[name]


__all__ = ["BACKENDS", "Backend", "TargetOptions", "get"]
