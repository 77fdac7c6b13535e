"""blkc."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from blkc.broadcasting import BroadcastError
    from blkc.diagnostics import BlkcError
    from blkc.jitfunction import (
        Config,
        JITFunction,
        autotune,
        cdiv,
        constexpr_function,
        heuristics,
        jit,
        next_power_of_2,
    )
    from blkc.kernel import Kernel, compile
    from blkc.pipeline import parse, run_pipeline
    from blkc.promotion import set_default_policy
    from blkc.promotion.base import PromotionError
    from blkc.runtime.allocation import set_allocator
    from blkc.runtime.arrays import Reinterpreted as TensorWrapper
    from blkc.runtime.arrays import reinterpret
    from blkc.runtime.errors import OutOfResources
    from blkc.runtime.launch import get_num_threads, set_num_threads

    CompilationError = BlkcError
    TritonError = BlkcError

__all__ = [
    "BlkcError",
    "BroadcastError",
    "CompilationError",
    "Config",
    "JITFunction",
    "Kernel",
    "OutOfResources",
    "PromotionError",
    "TensorWrapper",
    "TritonError",
    "autotune",
    "cdiv",
    "compile",
    "constexpr_function",
    "get_num_threads",
    "heuristics",
    "jit",
    "must_use_result",
    "next_power_of_2",
    "parse",
    "reinterpret",
    "run_pipeline",
    "set_allocator",
    "set_default_policy",
    "set_num_threads",
]

# Resolved on first use so that `import blkc` stays cheap (it imports no xDSL).
_LAZY = {
    "BlkcError": "blkc.diagnostics",
    "BroadcastError": "blkc.broadcasting",
    "Kernel": "blkc.kernel",
    "Config": "blkc.jitfunction",
    "JITFunction": "blkc.jitfunction",
    "autotune": "blkc.jitfunction",
    "cdiv": "blkc.jitfunction",
    "constexpr_function": "blkc.jitfunction",
    "heuristics": "blkc.jitfunction",
    "jit": "blkc.jitfunction",
    "must_use_result": "blkc.jitfunction",
    "next_power_of_2": "blkc.jitfunction",
    "compile": "blkc.kernel",
    "PromotionError": "blkc.promotion.base",
    "parse": "blkc.pipeline",
    "reinterpret": "blkc.runtime.arrays",
    "run_pipeline": "blkc.pipeline",
    "set_allocator": "blkc.runtime.allocation",
    "set_default_policy": "blkc.promotion",
    "OutOfResources": "blkc.runtime.errors",
    "get_num_threads": "blkc.runtime.launch",
    "set_num_threads": "blkc.runtime.launch",
}

# Triton's names, for programs written for Triton: its CompilationError and TritonError are
# blkc's BlkcError, and its TensorWrapper (what `reinterpret` returns) is Reinterpreted.
_ALIASES = {
    "CompilationError": ("blkc.diagnostics", "BlkcError"),
    "TritonError": ("blkc.diagnostics", "BlkcError"),
    "TensorWrapper": ("blkc.runtime.arrays", "Reinterpreted"),
}


# Modules reached as attributes without importing them: by Triton programs
# (`triton.testing.do_bench`, `triton.runtime.driver.active`), and `blkc.dask.map_blocks`.
_SUBMODULES = frozenset({"dask", "runtime", "testing"})


def __dir__() -> list[str]:
    """The public names, the lazily loaded ones included, and the subpackages."""
    import pkgutil

    modules = [m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")]
    return sorted({*__all__, *modules, "dialects", "passes", "runtime", "tools"})


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        from importlib import import_module

        return import_module(f"blkc.{name}")
    module, attribute = _ALIASES.get(name) or (_LAZY.get(name), name)
    if module is None:
        raise AttributeError(f"module 'blkc' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), attribute)
    globals()[name] = value
    return value
