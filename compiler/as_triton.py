"""Run code written for Triton on blkc, unchanged.

    python -m blkc.as_triton script.py [args]      # a program that says `import triton`
    python -m blkc.as_triton -m package.module [args]
    pytest -p blkc.as_triton tests/                # a test suite (a pytest plugin)

For that process, `import triton` and the modules Triton programs import resolve to
blkc's: `triton` itself (reporting as `__version__` the Triton release whose semantics
blkc follows, `TRITON_VERSION`), `triton.language` (with `extra.libdevice`, `math`,
`core`, `random`, `standard`), `triton.testing`, `triton.runtime` (with `driver`, whose
`active.get_active_torch_device()` is the CPU, `errors` and `jit`), and
`triton.compiler` (with `errors.CompilationError`). A `triton` module blkc has no
counterpart of fails to import with a message naming it. From Python, `install()` does the
same. When the real Triton is already imported, both refuse: two `triton`s in one process
would mix their kernels. Unless `BLKC_POLICY` or `blkc.set_default_policy` chose another,
the process's kernels follow the `triton-compat` policy: what Triton 3.9's front end
computes and refuses (float16 `/` in float32, for one).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import runpy
import sys
import types
from collections.abc import Sequence
from typing import Any

TRITON_VERSION = "3.9.0"
"""The Triton release whose semantics blkc follows (`triton.__version__` under it)."""

MODULES = {
    "triton.language": "blkc.language",
    "triton.language.core": "blkc.language.core",
    "triton.language.math": "blkc.language.math",
    "triton.language.random": "blkc.language.random",
    "triton.language.target_info": "blkc.language.target_info",
    "triton.language.standard": "blkc.language.standard",
    "triton.language.extra": "blkc.language.extra",
    "triton.language.extra.libdevice": "blkc.language.extra.libdevice",
    "triton.language.extra.cuda": "blkc.language.extra",
    "triton.language.extra.cuda.libdevice": "blkc.language.extra.libdevice",
    "triton.testing": "blkc.testing",
    "triton.runtime.driver": "blkc.runtime.driver",
    "triton.runtime.errors": "blkc.runtime.errors",
    "triton.tools": "blkc.tools",
    "triton.tools.tensor_descriptor": "blkc.tools.tensor_descriptor",
}
"""Each `triton` module, and the blkc module that stands for it."""

_MADE = (
    "triton.runtime",
    "triton",
    "triton.compiler",
    "triton.compiler.compiler",
    "triton.compiler.errors",
    "triton.runtime.jit",
    "triton.runtime.autotuner",
    "triton.backends",
    "triton.backends.compiler",
)
"""Modules made here: blkc has one module where Triton has these, or none (torch's Triton
integration, which `torch.compiler.disable`, `torch.library.wrap_triton` and `triton_op`
import, reads a few names from `triton.backends.compiler` and `triton.compiler.compiler`)."""


class _Triton(types.ModuleType):
    """`triton`: blkc's top-level names, as Triton's version."""

    def __getattr__(self, name: str) -> Any:
        import blkc

        if name in ("language", "testing", "runtime", "compiler", "backends"):
            return importlib.import_module(f"triton.{name}")
        if name == "KernelInterface":
            return importlib.import_module("triton.runtime.jit").KernelInterface
        return getattr(blkc, name)

    def __dir__(self) -> list[str]:
        import blkc

        return sorted({*dir(blkc), "__version__", "compiler"})


class _Package(types.ModuleType):
    """A `triton` package made here (`triton.compiler`, `triton.backends`): its submodules
    are attributes once imported, as Triton's own `__init__` imports them."""

    def __getattr__(self, name: str) -> Any:
        full = f"{self.__name__}.{name}"
        if full in _MADE or full in MODULES:
            return importlib.import_module(full)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")


class _TritonRuntime(types.ModuleType):
    """`triton.runtime`: blkc's runtime module, with the names Triton's exports (its
    autotuner, `JITFunction`, `KernelInterface`...)."""

    def __getattr__(self, name: str) -> Any:
        import blkc.runtime

        for submodule in ("triton.runtime.jit", "triton.runtime.autotuner"):
            found = getattr(importlib.import_module(submodule), name, None)
            if found is not None and not name.startswith("_"):
                return found
        return getattr(blkc.runtime, name)


def _made(name: str) -> types.ModuleType:
    import blkc

    if name == "triton.runtime":
        module = _TritonRuntime(name, "triton.runtime, answered by blkc (blkc.as_triton).")
        module.__path__ = []  # a package: its submodules come from the finder
        return module
    if name == "triton":
        module = _Triton("triton", "Triton's names, answered by blkc (blkc.as_triton).")
        module.__version__ = TRITON_VERSION  # type: ignore[attr-defined]
        module.__path__ = []  # a package: its submodules come from the finder
        return module
    doc = f"{name}, answered by blkc (blkc.as_triton)."
    if name in ("triton.compiler", "triton.backends"):
        module = _Package(name, doc)
        module.__path__ = []  # type: ignore[attr-defined]
    else:
        module = types.ModuleType(name, doc)
    if name in ("triton.compiler", "triton.compiler.compiler"):
        from blkc.compiled_kernel import ASTSource, CompiledKernel
        from blkc.runtime.cache import compiler_key

        module.ASTSource = ASTSource  # type: ignore[attr-defined]
        module.CompilationError = blkc.CompilationError  # type: ignore[attr-defined]
        module.CompiledKernel = CompiledKernel  # type: ignore[attr-defined]
        module.triton_key = compiler_key  # type: ignore[attr-defined]
    elif name == "triton.backends.compiler":
        from blkc.runtime.driver import Target

        module.GPUTarget = Target  # type: ignore[attr-defined]
    elif name == "triton.compiler.errors":
        module.CompilationError = blkc.CompilationError  # type: ignore[attr-defined]
        module.CompileTimeAssertionFailure = blkc.CompilationError  # type: ignore[attr-defined]
    elif name == "triton.runtime.jit":
        from blkc import jitfunction
        from blkc.runtime.grid import Launchable

        for attr in ("JITFunction", "jit", "ConstexprFunction", "constexpr_function"):
            setattr(module, attr, getattr(jitfunction, attr))
        module.KernelInterface = Launchable  # type: ignore[attr-defined]
    elif name == "triton.runtime.autotuner":
        from blkc import jitfunction

        for attr in ("Autotuner", "Heuristics", "Config", "autotune", "heuristics"):
            setattr(module, attr, getattr(jitfunction, attr))
        module.OutOfResources = blkc.OutOfResources  # type: ignore[attr-defined]
        module.TensorWrapper = blkc.TensorWrapper  # type: ignore[attr-defined]
        module.reinterpret = blkc.reinterpret  # type: ignore[attr-defined]
    return module


class _Loader(importlib.abc.Loader):
    """Loads a module that exists already: blkc's keeps its own `__spec__`."""

    def __init__(self, module: types.ModuleType):
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        if self.spec is not None:  # the import system set the `triton` name's spec
            module.__spec__ = self.spec


class _Finder(importlib.abc.MetaPathFinder):
    """Answers `triton` and `triton.*` imports with blkc's modules."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "triton" and not fullname.startswith("triton."):
            return None
        if fullname in _MADE:
            module = _made(fullname)
        elif fullname in MODULES:
            module = importlib.import_module(MODULES[fullname])
        else:
            raise ImportError(
                f"{fullname} has no blkc counterpart (blkc.as_triton answers "
                f"{', '.join(sorted({*MODULES, *_MADE}))})",
                name=fullname,
            )
        return importlib.machinery.ModuleSpec(fullname, _Loader(module), is_package=True)


_FINDER = _Finder()


def install() -> None:
    """Make `import triton` (and its modules) resolve to blkc in this process."""
    if _FINDER in sys.meta_path:
        return
    existing = sys.modules.get("triton")
    if existing is not None:
        raise RuntimeError(
            f"the real Triton is already imported (from {getattr(existing, '__file__', '?')}): "
            "blkc.as_triton must come first, as `python -m blkc.as_triton script.py` or "
            "`pytest -p blkc.as_triton`, before anything imports triton"
        )
    sys.meta_path.insert(0, _FINDER)
    from blkc import promotion

    if promotion.policy_setting() is None and not os.environ.get("BLKC_POLICY"):
        # Code written for Triton gets what Triton 3.9's front end computes (float16
        # division in float32, its refusals), not the semantics page's reading.
        promotion.set_default_policy("triton-compat")


def pytest_configure(config: Any) -> None:
    """As a pytest plugin (`pytest -p blkc.as_triton`): install before tests are collected."""
    install()


_USAGE = "usage: python -m blkc.as_triton script.py [args] | -m module [args]"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help") or (args[0] == "-m" and len(args) < 2):
        print(_USAGE, file=sys.stderr if not args or args[0] == "-m" else sys.stdout)
        return 0 if args and args[0] in ("-h", "--help") else 2
    try:
        install()
    except RuntimeError as err:
        print(f"blkc.as_triton: {err}", file=sys.stderr)
        return 1
    if args[0] == "-m":
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = args
        sys.path.insert(0, str(__import__("pathlib").Path(args[0]).resolve().parent))
        runpy.run_path(args[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
