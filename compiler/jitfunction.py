"""`@blkc.jit`: Python kernels in Triton's language, compiled per specialization.

    @blkc.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        ...

    add[(blkc.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    add[lambda meta: (blkc.cdiv(n, meta["BLOCK"]),)](x, y, out, n, BLOCK=1024)

Arguments specialise the kernel as Triton does: arrays (NumPy arrays, torch tensors,
`blkc.reinterpret` views, anything with `__array_interface__` or DLPack:
`blkc.runtime.arrays`) become pointers to their dtype; bools are i1; ints are
i32 when they fit, else i64 (uint64 above that), and an int equal to 1 is compiled in;
floats are f32; `tl.constexpr` parameters and None are compiled in. Each specialization
compiles once and is cached in memory and on disk. The key holds everything the compiled
code depends on: the sources of the kernel and of the `@blkc.jit` functions it can call,
the values of the `tl.constexpr` globals they read (`blkc.frontend.captures`), the
specialization, the policy, the target and its options, and (in the disk cache's key) the
bounds-check mode, blkc's own sources, the xDSL and llvmlite versions and the host CPU.
A global that changes after a compile recompiles the kernel at its next launch.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import sys
import textwrap
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from blkc import autotuning, host_descriptors
from blkc.frontend.captures import Captures, capture, key_of
from blkc.promotion import policy_setting, policy_setting_cell
from blkc.runtime.grid import (
    ENTRY_CODES,
    ENTRY_FILES,
    Grid,
    GridLauncher,
    KeptLaunchers,
    Launchable,
    check_num_cpu_threads,
    for_user,
    grid_sizes,
    hide_entry_frames,
    user_entry,
)

_IGNORED_OPTIONS = frozenset(
    {
        "num_stages",
        "num_ctas",
        "enable_fp_fusion",
        "maxnreg",
        "launch_cooperative_grid",
        "debug",
        "matrix_instr_nonkdim",
        "waves_per_eu",
        "kpack",
    }
)
"""Triton launch options accepted and ignored: they tune GPU code generation blkc does
not do (`num_warps` is used by the cpu-simt and ptx targets; the last three are AMD's)."""


def _is_constexpr_annotation(annotation: Any) -> bool:
    from blkc.language import core as tl  # not at import: tl.random's helpers are jit'ed

    if annotation is tl.constexpr:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


_BINDER = "_blkc_bind_arguments"
"""The name of the function `JITFunction._binder` generates (dropped from its errors)."""


@dataclass(frozen=True)
class _Spec:
    """How one argument specialises the kernel: a runtime parameter of type `mlir`, or a
    compiled-in `constant`."""

    mlir: str | None
    constant: Any = None
    hint: str = ""
    """Part of the key only: an int's divisibility by 16, as Triton specialises it."""


_POINTERS: dict[Any, _Spec] = {}
"""The specialization of a NumPy array, by dtype (the launch path's most common case)."""


@dataclass(frozen=True)
class _TupleArg:
    """A tuple argument, flattened: each element a parameter of its own (named
    ``name.0``, ``name.1.2`` ...), which the kernel gets back as a tuple of the same type (a
    NamedTuple keeps its fields)."""

    kind: type
    parts: tuple[str | _TupleArg, ...]

    def rebuild(self, values: dict[str, Any], semantic: Any) -> tuple[Any, ...]:
        items = [
            values[p] if isinstance(p, str) else p.rebuild(values, semantic) for p in self.parts
        ]
        return self.kind._make(items) if hasattr(self.kind, "_fields") else tuple(items)

    def key(self) -> Any:
        kind = f"{self.kind.__module__}.{self.kind.__qualname__}"
        return (kind, tuple(p if isinstance(p, str) else p.key() for p in self.parts))

    def has_descriptor(self) -> bool:
        """Whether a host tensor descriptor is among its elements, at any depth."""
        return any(
            isinstance(p, _DescriptorArg) or (isinstance(p, _TupleArg) and p.has_descriptor())
            for p in self.parts
        )


@dataclass(frozen=True)
class _DescriptorArg:
    """A host-side tensor descriptor argument (`blkc.host_descriptors`), flattened:
    its base (``name.base``), shape (``name.shape.0`` ...) and strides (``name.strides.0``
    ...) parameters of their own, its block shape and padding compiled in; the kernel gets
    what `tl.make_tensor_descriptor` makes of them."""

    base: str
    shape: tuple[str, ...]
    strides: tuple[str, ...]
    block_shape: tuple[int, ...]
    padding: str

    def rebuild(self, values: dict[str, Any], semantic: Any) -> Any:
        from blkc.language.tensor_descriptors import make_tensor_descriptor

        return make_tensor_descriptor(
            values[self.base],
            [values[n] for n in self.shape],
            [values[n] for n in self.strides],
            list(self.block_shape),
            self.padding,
            _semantic=semantic,
        )

    def key(self) -> Any:
        return ("tensordesc", self.block_shape, self.padding)


def _flattened(
    arguments: dict[str, Any], constexprs: frozenset[str], kernel: str = "kernel"
) -> tuple[dict[str, Any], dict[str, _TupleArg | _DescriptorArg]]:
    """`arguments` with each tuple (one not declared `tl.constexpr`, which is compiled in
    whole) replaced by its elements, recursively, and each host-side tensor descriptor by
    its base, shape and strides; and the shapes of the tuples and descriptors by name."""
    if not _structured(arguments, constexprs):
        return arguments, {}
    flat: dict[str, Any] = {}
    tuples: dict[str, _TupleArg | _DescriptorArg] = {}

    def walk(name: str, value: Any) -> str | _TupleArg | _DescriptorArg:
        if _is_descriptor(value):
            return _descriptor(name, value)
        if not isinstance(value, tuple):
            flat[name] = value
            return name
        parts = tuple(walk(f"{name}.{i}", v) for i, v in enumerate(value))
        kind = type(value) if hasattr(type(value), "_fields") else tuple
        return _TupleArg(kind, parts)

    def _descriptor(name: str, desc: Any) -> _DescriptorArg:
        try:
            sizes, steps, block = host_descriptors.checked(desc)
        except (TypeError, ValueError) as err:
            raise type(err)(f"kernel '{kernel}', argument '{name}': {err}") from None
        if getattr(desc, "round_f32_to_tf32", False):
            raise ValueError(
                f"kernel '{kernel}', argument '{name}': blkc does not round a descriptor's "
                "float32 loads to tf32 (round_f32_to_tf32=True); pass a descriptor without it"
            )
        flat[f"{name}.base"] = desc.base
        shape = tuple(f"{name}.shape.{i}" for i in range(len(sizes)))
        strides = tuple(f"{name}.strides.{i}" for i in range(len(steps)))
        flat.update(zip(shape, sizes, strict=True))
        flat.update(zip(strides, steps, strict=True))
        padding = str(getattr(desc, "padding", "zero"))
        return _DescriptorArg(f"{name}.base", shape, strides, tuple(block), padding)

    for name, value in arguments.items():
        if (isinstance(value, tuple) or _is_descriptor(value)) and name not in constexprs:
            shape = walk(name, value)
            assert not isinstance(shape, str)
            tuples[name] = shape
        else:
            flat[name] = value
    return flat, tuples


_is_descriptor = host_descriptors.is_host_descriptor


def _structured(arguments: dict[str, Any], constexprs: frozenset[str]) -> bool:
    """Whether any runtime argument is a tuple or a host-side tensor descriptor (which
    `_flattened` takes apart)."""
    return any(
        (isinstance(v, tuple) or _is_descriptor(v)) and n not in constexprs
        for n, v in arguments.items()
    )


@dataclass(frozen=True)
class KernelParam:
    """A parameter of a kernel, as tools written for Triton read it (`kernel.params`)."""

    num: int
    name: str
    annotation: str
    """The annotation as written (``"constexpr"`` for `tl.constexpr`), else ``""``."""
    is_constexpr: bool
    do_not_specialize: bool
    default: Any

    @property
    def has_default(self) -> bool:
        return self.default is not inspect.Parameter.empty


def _annotation(parameter: inspect.Parameter) -> str:
    from blkc.language import core as tl

    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        return ""
    if annotation is tl.constexpr:
        return "constexpr"
    return annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")


class _Launchable(Launchable):
    """``kernel[grid](*args, **meta)``, for kernels and their decorators alike."""

    def run(self, *args: Any, grid: Any, **kwargs: Any) -> None:
        raise NotImplementedError

    def launch(self, grid: Grid, args: Sequence[object], kwargs: dict[str, Any]) -> None:
        self.run(*args, grid=grid, **kwargs)


class _Decorator(_Launchable):
    """What `autotune` and `heuristics` wrap: a kernel, or another such decorator."""

    fn: JITFunction | Autotuner | Heuristics

    @property
    def __name__(self) -> str:
        return self.fn.__name__

    @property
    def base_fn(self) -> Callable[..., Any]:
        """The Python function under the decorators (Triton's `Autotuner.base_fn`)."""
        return base_function(self).fn

    def _arguments(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        """A launch's arguments by parameter name."""
        arguments = dict(zip(base_function(self).arg_names, args, strict=False))
        arguments.update(kwargs)
        return arguments


class JITFunction(KeptLaunchers, _Launchable):
    """A kernel (or a helper that kernels call): ``kernel[grid](*args, **meta)`` compiles the
    variant for the arguments' specialization (once) and runs it on every core."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        policy: str | None = None,
        do_not_specialize: Iterable[str | int] = (),
        check_bounds: bool | None = None,
        target: str | None = None,
    ):
        self.fn = fn
        self.target = target
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn
        self.policy = policy
        self.check_bounds = check_bounds
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self.constexprs = [
            name
            for name, p in self.signature.parameters.items()
            if _is_constexpr_annotation(p.annotation)
        ]
        self.do_not_specialize = {
            self.arg_names[d] if isinstance(d, int) else d for d in do_not_specialize
        }
        self._unspecializable_constexprs = sorted(self.do_not_specialize & set(self.constexprs))
        """Constexpr parameters listed in `do_not_specialize`: refused when it compiles, as
        Triton refuses them."""
        self.params = [
            KernelParam(
                i,
                name,
                _annotation(p),
                name in self.constexprs,
                name in self.do_not_specialize,
                p.default,
            )
            for i, (name, p) in enumerate(self.signature.parameters.items())
        ]
        self.builds = 0
        """How many variants this function compiled from source (not found in a cache)."""
        self._variants: dict[tuple[Any, ...], Any] = {}
        self._compiling = threading.RLock()
        """Held while a variant is looked up or compiled, so that threads launching a new
        variant at once compile it once."""
        self._captures: Captures | None = None
        """What the kernel reads from outside, as of its variants' compiles."""
        self._fast: list[_FastEntry] = []
        """Launch stubs of recently launched variants (`_GridLaunch.__call__`), newest first."""
        self._fresh_launcher: type[_GridLaunch] | None = None
        """With stubs, the class of ``self[grid_function]`` (`KeptLaunchers`), whose
        ``__call__`` has their launches inline (`_grid_launch_type`)."""
        self._launched: tuple[Any, ...] | None = None
        """The variant and keywords of the last launch through Python."""
        self._grids: dict[Any, _GridLaunch] = {}

    def __repr__(self) -> str:
        return f"JITFunction({self.fn.__module__}:{self.fn.__qualname__})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling (pickle, cloudpickle, Dask): by module and name where the kernel can be
        imported so, else by value: the function (cloudpickle sends its code) with its
        source, from which the receiving process compiles it at its first launch (or finds
        it in the disk cache, under the same key). Compiled code never travels."""
        module = sys.modules.get(self.fn.__module__)
        if self.fn.__module__ != "__main__" and _named(module, self.fn.__qualname__) is self:
            return (_import_kernel, (self.fn.__module__, self.fn.__qualname__))
        from blkc.frontend.source import function_source

        lines, first, filename = function_source(self.fn)
        options = {
            "policy": self.policy,
            "do_not_specialize": sorted(self.do_not_specialize),
            "check_bounds": self.check_bounds,
            "target": self.target,
        }
        return (_rebuild_kernel, (self.fn, lines, first, filename, options))

    @property
    def src(self) -> str:
        """The function's source, from its `def` line (decorators left out)."""
        from blkc.frontend.source import function_source

        text = textwrap.dedent("".join(function_source(self.fn)[0]))
        start = re.search(r"^def\s+\w+\s*\(", text, re.MULTILINE)
        return text[start.start() :] if start else text

    @src.setter
    def src(self, _value: str) -> None:
        raise AttributeError(
            "cannot set 'src' of a kernel: call _unsafe_update_src(new_source) instead"
        )

    @property
    def cache_key(self) -> str:
        """A digest of the kernel's source and of what it reads from outside (helpers,
        constants), as Triton's `JITFunction.cache_key`, by which kernel libraries key
        their own caches: it changes when either changes."""
        with self._compiling:
            return self._fresh_captures()[0].digest

    def _fresh_captures(self) -> tuple[Captures, bool]:
        """What the kernel reads from outside, walked again (and every variant dropped)
        where a global it reads changed or nothing is compiled yet; with whether it was.
        Called with `_compiling` held."""
        captures = self._captures
        if captures is not None and captures.fresh():
            return captures, False
        # A global the kernel reads changed (or nothing is compiled yet): every variant
        # may depend on it.
        self._variants.clear()
        self._captures = capture(self)
        return self._captures, True

    @property
    def __globals__(self) -> dict[str, Any]:
        """The globals of the kernel's module (Triton's `JITFunction.__globals__`)."""
        return self.fn.__globals__

    def _unsafe_update_src(self, new_src: str) -> None:
        """Compile this function from `new_src` (a `def` with the same parameters) from now
        on; every kernel that calls it recompiles at its next launch."""
        from blkc.frontend.captures import source_replaced
        from blkc.frontend.source import replace_source

        replace_source(self.fn, new_src)
        source_replaced(self.fn)
        self._variants.clear()
        self._captures = None
        self._fast = []
        self._fresh_launcher = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        hide_entry_frames()  # the traceback ends at the user's call
        raise RuntimeError(
            f"'{self.__name__}' is a @blkc.jit kernel: launch it with "
            f"{self.__name__}[grid](...), or call it from another kernel"
        )

    # -- specialization ----------------------------------------------------------------

    def _with_options(self, kwargs: dict[str, Any], **options: Any) -> dict[str, Any]:
        """`kwargs`, plus each launch option given (`num_warps`, `num_cpu_threads`) that the
        kernel has a parameter of that name for (Triton passes the option to it too)."""
        named = {n: v for n, v in options.items() if v is not None and n in self.arg_names}
        return {**kwargs, **named} if named else kwargs

    def _bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        if kwargs:
            for name in _IGNORED_OPTIONS & kwargs.keys():
                if name not in self.arg_names:  # a parameter of that name takes the value
                    del kwargs[name]
        try:
            return self._binder(*args, **kwargs)
        except TypeError as err:
            message = str(err).replace(f"{_BINDER}()", "")
            raise TypeError(f"kernel '{self.__name__}': {message.strip()}") from None

    @functools.cached_property
    def _binder(self) -> Callable[..., dict[str, Any]]:
        """The launch's arguments by parameter name, defaults applied: a function with the
        kernel's own parameters, so Python binds them (faster than `Signature.bind`)."""
        parameters = list(self.signature.parameters.values())
        if any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in parameters):

            def bind(*args: Any, **kwargs: Any) -> dict[str, Any]:
                bound = self.signature.bind(*args, **kwargs)
                bound.apply_defaults()
                return dict(bound.arguments)

            return bind
        defaults = {f"_d{i}": p.default for i, p in enumerate(parameters)}
        listed = []
        for i, p in enumerate(parameters):
            if p.kind == p.KEYWORD_ONLY and "*" not in listed:
                listed.append("*")
            listed.append(p.name if p.default is p.empty else f"{p.name}=_d{i}")
        body = ", ".join(f"{p.name!r}: {p.name}" for p in parameters)
        namespace = dict(defaults)
        exec(f"def {_BINDER}({', '.join(listed)}):\n    return {{{body}}}\n", namespace)  # noqa: S102
        return namespace[_BINDER]  # type: ignore[no-any-return]

    def _spec(self, name: str, value: Any) -> _Spec:
        if type(value) is numpy.ndarray and name not in self._constexpr_names:
            spec = _POINTERS.get(value.dtype)
            if spec is None:
                spec = _POINTERS[value.dtype] = self._slow_spec(name, value)
            return spec
        return self._slow_spec(name, value)

    @functools.cached_property
    def _option_names(self) -> frozenset[str]:
        """Launch and ignored Triton options that are not parameters of the kernel."""
        return (frozenset(_LAUNCH_OPTIONS) | _IGNORED_OPTIONS) - frozenset(self.arg_names)

    @functools.cached_property
    def _constexpr_names(self) -> frozenset[str]:
        return frozenset(self.constexprs)

    def _slow_spec(self, name: str, value: Any) -> _Spec:
        from blkc.language import core as tl

        if name in self._constexpr_names:
            return _Spec(None, tl.constexpr(value).value)
        if isinstance(value, tl.constexpr):
            return _Spec(None, value.value)
        if value is None or isinstance(value, tl.dtype):
            return _Spec(None, value)
        from blkc import dtypes
        from blkc.runtime.arrays import dtype_and_shape

        try:
            array = None if isinstance(value, numpy.generic) else dtype_and_shape(value)
            pointee = None if array is None else dtypes.from_numpy(array[0])
        except dtypes.UnknownDTypeError as err:
            raise TypeError(f"kernel '{self.__name__}', argument '{name}': {err}") from None
        scalar = dtypes.from_numpy(value.dtype) if isinstance(value, numpy.generic) else None
        element = pointee or scalar
        if element is not None and element.is_complex:
            raise TypeError(
                f"kernel '{self.__name__}', argument '{name}': kernels take no complex "
                f"numbers ({element.name}), as Triton's have none: pass the real and "
                "imaginary parts (x.real, x.imag) or a view of the floats (x.view(numpy.float32))"
            )
        if pointee is not None:
            return _Spec(f"!blk.ptr<{pointee.mlir}>")
        if scalar is not None:
            return _Spec(scalar.mlir)
        if isinstance(value, bool):
            return _Spec("i1")
        if isinstance(value, int):
            if value == 1 and name not in self.do_not_specialize:
                return _Spec(None, 1)
            hint = "" if name in self.do_not_specialize else str(value % 16 == 0)
            if -(2**31) <= value < 2**31:
                return _Spec("i32", hint=hint)
            if -(2**63) <= value < 2**63:
                return _Spec("i64", hint=hint)
            if 0 <= value < 2**64:
                return _Spec("ui64", hint=hint)
            raise OverflowError(
                f"kernel '{self.__name__}', argument '{name}': {value} does not fit 64 bits"
            )
        if isinstance(value, float):
            return _Spec("f32")
        raise TypeError(
            f"kernel '{self.__name__}', argument '{name}': cannot pass "
            f"{type(value).__name__} to a kernel (pass arrays, numbers, None or dtypes)"
        )

    def compile_for(
        self,
        arguments: dict[str, Any],
        policy: str | None = None,
        target: str | None = None,
        num_warps: int | None = None,
        arch: str | None = None,
    ) -> tuple[Any, list[Any]]:
        """The compiled variant for `arguments` (by name) and the runtime arguments it
        takes, in order."""
        from blkc.kernel import compile_cached
        from blkc.promotion import default_policy

        if self._unspecializable_constexprs:
            from blkc.diagnostics import error_at
            from blkc.frontend.cli import parameter_location

            name = self._unspecializable_constexprs[0]
            raise error_at(
                parameter_location(self, name),
                f"{name} marked as constexpr and listed in do_not_specialize: a constexpr "
                "is always specialized (compiled in); drop it from do_not_specialize",
            )
        policy = policy or self.policy or default_policy()
        flat, tuples = _flattened(arguments, self._constexpr_names, self.__name__)
        specs = {name: self._spec(name, value) for name, value in flat.items()}
        signature = tuple(
            (n, s.mlir, s.hint) if s.mlir is not None else (n, key_of(s.constant))
            for n, s in specs.items()
        )
        if tuples:
            signature += tuple(("tuple", n, t.key()) for n, t in tuples.items())
        runtime = [flat[n] for n, s in specs.items() if s.mlir is not None]
        # Launches look their variant up here first: hashing the key for the shared cache
        # costs more than some kernels take to run.
        options = (policy, target or self.target, num_warps, arch)
        environment = tuple(os.environ.get(v) for v in ("BLKC_TARGET", "BLKC_CHECK_BOUNDS"))
        variant = (signature, options, environment)
        with self._compiling:
            captures, renewed = self._fresh_captures()
            if not renewed and variant in self._variants:
                return self._variants[variant], runtime
            key = (captures.digest, signature)

            def build() -> Any:
                from xdsl.parser import Parser

                from blkc.frontend.python import build_module
                from blkc.pipeline import make_context

                self.builds += 1
                ctx = make_context()
                params = [
                    (name, Parser(ctx, spec.mlir).parse_type())
                    for name, spec in specs.items()
                    if spec.mlir is not None
                ]
                constants = {n: s.constant for n, s in specs.items() if s.mlir is None}
                divisibility = [
                    16 if spec.hint == "True" else None
                    for spec in specs.values()
                    if spec.mlir is not None
                ]
                return build_module(self, params, constants, policy, divisibility, tuples)

            from blkc.frontend.source import parse_function

            kernel = compile_cached(
                key,
                build,
                policy=policy,
                filename=parse_function(self.fn).filename,
                check_bounds=self.check_bounds,
                target=target or self.target,
                num_warps=num_warps or 4,
                arch=arch,
            )
            self._variants[variant] = kernel
            return kernel, runtime

    # -- launching ---------------------------------------------------------------------

    def run(
        self,
        *args: Any,
        grid: Any,
        policy: str | None = None,
        target: str | None = None,
        num_warps: int | None = None,
        arch: str | None = None,
        num_cpu_threads: int | None = None,
        warmup: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Compile (once per specialization) and launch over `grid`, on CPU targets on at
        most `num_cpu_threads` threads (None: every core); with `warmup` (Triton's
        signature), compile only and return the kernel, as `warmup` does."""
        if warmup:
            options = {"policy": policy, "target": target, "num_warps": num_warps, "arch": arch}
            given = {k: v for k, v in options.items() if v is not None}
            return self.warmup(*args, grid=grid, **given, **kwargs)
        self._run(args, grid, policy, target, num_warps, arch, num_cpu_threads, kwargs)
        return None

    def _run(
        self,
        args: Sequence[Any],
        grid: Any,
        policy: str | None,
        target: str | None,
        num_warps: int | None,
        arch: str | None,
        num_cpu_threads: int | None,
        kwargs: dict[str, Any],
    ) -> tuple[Any, dict[str, Any]]:
        options = {"num_warps": num_warps, "num_cpu_threads": num_cpu_threads}
        arguments = self._bind(args, self._with_options(kwargs, **options))
        kernel, runtime = self.compile_for(arguments, policy, target, num_warps, arch)
        kernel.run(grid, runtime, arguments, num_cpu_threads)
        return kernel, arguments

    def _compile_job(
        self, args: Sequence[Any], kwargs: dict[str, Any], warmup: bool = False
    ) -> Any:
        """Lower the variant a launch with these arguments and keywords (launch options
        among them) would run, and return the job that compiles its native code
        (`Backend.compile_job`), or None where its target has none; with `warmup`, the
        job compiles what `warmup` does (`Kernel.prepare`)."""
        options = {name: kwargs.get(name) for name in _LAUNCH_OPTIONS}
        rest = {k: v for k, v in kwargs.items() if k not in options}
        threads = {"num_warps": options["num_warps"], "num_cpu_threads": options["num_cpu_threads"]}
        arguments = self._bind(args, self._with_options(rest, **threads))
        kernel, runtime = self.compile_for(
            arguments, options["policy"], options["target"], options["num_warps"], options["arch"]
        )
        return kernel.backend.compile_job(kernel, None if warmup else runtime)

    def _meta(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The arguments by name that a grid function gets, for a launch's arguments and
        keywords (launch options included)."""
        if kwargs.keys().isdisjoint(self._option_names):
            try:  # the common case: keywords that are all parameters
                return self._binder(*args, **kwargs)
            except TypeError:
                pass  # `_bind` says what is wrong
        options = {n: kwargs[n] for n in ("num_warps", "num_cpu_threads") if n in kwargs}
        rest = {k: v for k, v in kwargs.items() if k not in _LAUNCH_OPTIONS}
        return self._bind(args, self._with_options(rest, **options))

    def _run_noted(self, grid: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """`run`, then `_note_launch` with the launch's own keywords."""
        options = {name: kwargs.get(name) for name in _LAUNCH_OPTIONS}
        rest = {k: v for k, v in kwargs.items() if k not in options}
        kernel, arguments = self._run(args, grid, **options, kwargs=rest)
        self._note_launch(kernel, args, kwargs, arguments, options["num_cpu_threads"])

    # -- launch stubs --------------------------------------------------------------------

    def _launcher(self, grid: Grid) -> _GridLaunch:
        return _GridLaunch(self, grid)

    def _note_launch(
        self,
        kernel: Any,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        arguments: dict[str, Any],
        num_cpu_threads: int | None,
    ) -> None:
        """After a launch through Python: the second launch in a row of the same variant
        with the same keywords builds a stub for the launches after it."""
        if not all(map(_plain, kwargs.values())):
            # An array by keyword: launches keep the Python path (a stub's guard compares
            # keywords by value, which an array's `==` does element by element).
            self._launched = None
            return
        signature = (kernel, tuple(kwargs.items()), len(args))
        repeated, self._launched = self._launched == signature, signature
        if not repeated:
            return
        from blkc.runtime import fast_launch  # not before: a first launch needs no stub

        if not fast_launch.available():
            return
        plan = self._fast_args(kernel, args, arguments)
        if plan is None:
            return
        environment = _environment()
        same = [e for e in self._fast if e.kernel is kernel and e.kwargs == kwargs]
        from blkc.backends.cpu import stub_current

        if any(
            e.plan == plan
            and e.environment == environment
            and e.captures is self._captures
            and stub_current(kernel, e.stub)
            for e in same
        ):
            return  # its stub left this launch to Python (a large grid, say)
        entry = _FastEntry.build(self, kernel, plan, kwargs, arguments, num_cpu_threads)
        if entry is not None:
            others = [e for e in self._fast if all(e is not s for s in same)]
            self._fast = [entry, *others[:3]]
            self._fresh_launcher = _grid_launch_type(self, self._fast)

    def _fast_args(
        self, kernel: Any, args: Sequence[Any], arguments: dict[str, Any]
    ) -> list[Any] | None:
        """What a stub accepts for each positional argument (`fast_launch.Arg`), or None
        where this launch cannot have a stub (a runtime argument given by name, an
        argument that is not a NumPy array, a Python number or a tuple of those, a host
        tensor descriptor)."""
        from blkc.runtime.fast_launch import Arg, runtime_arg

        flat, tuples = _flattened(arguments, self._constexpr_names, self.__name__)
        if any(not isinstance(t, _TupleArg) or t.has_descriptor() for t in tuples.values()):
            return None  # host tensor descriptors launch through Python
        names = self.arg_names[: len(args)]
        specs = {name: self._spec(name, value) for name, value in flat.items()}
        runtime = [name for name, spec in specs.items() if spec.mlir is not None]
        positional = {n.partition(".")[0] for n in runtime}  # a tuple's elements are its own
        if not positional <= set(names):
            return None
        index = {name: i for i, name in enumerate(runtime)}

        def accepted(name: str, value: Any) -> Arg | None:
            spec = specs[name]
            if spec.mlir is None:
                return Arg("constant", value=value)
            at = index[name]
            written = kernel.writes[at] if at < len(kernel.writes) else True
            # An i32 excludes what 0/1 and i64 specializations take, an i64 the i32 range.
            narrow = (-(2**31), 2**31 - 1)
            return runtime_arg(
                spec.mlir,
                value,
                at,
                written,
                excluded=(0, -1) if spec.mlir == "i32" else narrow,
                not_one=name not in self.do_not_specialize,  # as `_slow_spec` reads it
                multiple_of_16={"True": True, "False": False}.get(spec.hint),
            )

        def element(shape: str | _TupleArg, value: Any) -> Arg | None:
            if isinstance(shape, str):
                return accepted(shape, value)
            if type(value) is not tuple and not hasattr(type(value), "_fields"):
                return None  # a tuple subclass may iterate otherwise than the stub reads
            parts = [element(s, v) for s, v in zip(shape.parts, value, strict=True)]
            if any(p is None for p in parts):
                return None
            return Arg("tuple", value=type(value), parts=tuple(parts))  # type: ignore[arg-type]

        plan = []
        for name, value in zip(names, args, strict=True):
            arg = element(tuples[name], value) if name in tuples else accepted(name, value)
            if arg is None:
                return None
            plan.append(arg)
        return plan

    @user_entry
    def warmup(
        self,
        *args: Any,
        grid: Any = None,
        policy: str | None = None,
        target: str | None = None,
        num_warps: int | None = None,
        arch: str | None = None,
        num_cpu_threads: int | None = None,
        **kwargs: Any,
    ) -> Any:
        """Compile for these arguments without running; return the compiled kernel (a
        `blkc.compiled_kernel.CompiledKernel`, native code included), whose `asm` maps stage
        names to text and whose launches take the runtime arguments or all of them."""
        from blkc.compiled_kernel import CompiledKernel

        num_stages = kwargs.get("num_stages", 2)
        kernel, arguments = self._lowered(
            args, kwargs, policy, target, num_warps, arch, num_cpu_threads
        )
        flat, tuples = _flattened(arguments, self._constexpr_names, self.__name__)
        specs = {name: self._spec(name, value) for name, value in flat.items()}
        constants = {name: s.constant for name, s in specs.items() if s.mlir is None}
        return CompiledKernel.bind(
            kernel.prepare(),
            list(flat) if tuples else self.arg_names,
            constants=constants,
            num_warps=num_warps or 4,
            num_stages=num_stages,
        )

    def _lowered(
        self,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        policy: str | None = None,
        target: str | None = None,
        num_warps: int | None = None,
        arch: str | None = None,
        num_cpu_threads: int | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """The variant for a launch's arguments and keywords (a `blkc.Kernel`, lowered to its
        target's code but not yet compiled to native code) and the arguments by name."""
        options = {"num_warps": num_warps, "num_cpu_threads": num_cpu_threads}
        arguments = self._bind(args, self._with_options(kwargs, **options))
        kernel, _ = self.compile_for(arguments, policy, target, num_warps, arch)
        return kernel, arguments


def _named(module: Any, qualname: str) -> Any:
    """What `qualname` names in `module` (None where nothing does)."""
    found = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found


def _import_kernel(module: str, qualname: str) -> JITFunction:
    """A pickled kernel, by its module and name."""
    import importlib

    found = _named(importlib.import_module(module), qualname)
    if not isinstance(found, JITFunction):
        raise TypeError(f"{module}.{qualname} is not a @blkc.jit kernel here")
    return found


def _rebuild_kernel(
    fn: Callable[..., Any], lines: list[str], first: int, filename: str, options: dict[str, Any]
) -> JITFunction:
    """A kernel pickled by value: its function, compiled from the source it came with."""
    from blkc.frontend.source import adopt_source

    adopt_source(fn, lines, first, filename)
    return JITFunction(fn, **options)


_SIMPLE_KEYWORDS = (int, float, str, bool, type(None))


_LAUNCH_OPTIONS = ("policy", "target", "num_warps", "arch", "num_cpu_threads")


_LAUNCH = "_blkc_launch"
_LAUNCH_FILE = "<blkc launch>"
"""The file name of the launch code generated for stubs (`_launch_function`,
`_grid_launch_type`), whose frames a user error's traceback leaves out."""


def _guard_terms(
    fn: JITFunction, entry: _FastEntry, prefix: str, namespace: dict[str, Any]
) -> tuple[list[str], str]:
    """What a launch must satisfy to take `entry`'s stub, as Python expressions to join
    with `and` (over `args` and `kwargs`), and the dict a grid function gets, as an
    expression; the values they name go into `namespace`, their names starting with
    `prefix`. The tests: the launch's keywords by name, value and type, its count of
    positional arguments, the default policy, the environment variables of `_environment`,
    and the kernel's captures, still fresh."""
    namespace.update(
        {
            f"{prefix}fn": fn,
            f"{prefix}captures": entry.captures,
            f"{prefix}policy": entry.environment[0],
            "setting": policy_setting_cell(),
            "MISSING": _MISSING,
        }
    )
    kwargs = entry.kwargs
    tests = [f"len(kwargs) == {len(kwargs)}", f"len(args) == {len(entry.plan)}"]
    for i, (name, value) in enumerate(kwargs.items()):
        namespace[f"{prefix}v{i}"], namespace[f"{prefix}t{i}"] = value, type(value)
        tests.append(f"type(kwargs.get({name!r}, MISSING)) is {prefix}t{i}")
        # compared as dicts compare their values
        tests.append(f"(kwargs[{name!r}] is {prefix}v{i} or kwargs[{name!r}] == {prefix}v{i})")
    tests.append(f"setting[0] == {prefix}policy")
    data = getattr(os.environ, "_data", None)
    if data is not None:  # os.environ's own dict, which its changes change
        namespace["get"] = data.get
        keyed = zip(_ENVIRONMENT_KEYS, entry.environment[1:], strict=True)
        for i, (key, value) in enumerate(keyed):
            namespace[f"{prefix}k{i}"], namespace[f"{prefix}e{i}"] = key, value
            tests.append(
                f"get({prefix}k{i}) is None"
                if value is None
                else f"get({prefix}k{i}) == {prefix}e{i}"
            )
    else:  # not CPython's os.environ
        namespace[f"{prefix}environment"] = entry.environment
        namespace["current"] = _environment
        tests.append(f"current() == {prefix}environment")
    tests.append(f"{prefix}fn._captures is {prefix}captures")
    tests += entry.captures.fresh_terms(namespace, f"{prefix}c_")
    items = []
    for j, (name, (kind, where)) in enumerate(entry.meta):
        if kind == "arg":
            items.append(f"{name!r}: args[{where}]")
        elif kind == "keyword":
            items.append(f"{name!r}: kwargs[{name!r}]")
        else:  # a default: the same object at every launch
            namespace[f"{prefix}d{j}"] = where
            items.append(f"{name!r}: {prefix}d{j}")
    return tests, "{" + ", ".join(items) + "}"


def _sized_call(call: str, indent: str) -> list[str]:
    """Lines that run `call` (a stub) over the grid `sizes` (a grid function's result),
    into `ran`: a one-axis result checked inline, others by `grid_sizes`."""
    return [
        f"{indent}if (type(sizes) is tuple and len(sizes) == 1 and type(sizes[0]) is int",
        f"{indent}        and 0 <= sizes[0] < 2147483648):",
        f"{indent}    ran = {call}(sizes[0], 1, 1, *args)",
        f"{indent}else:",
        f"{indent}    ran = {call}(*grid_sizes(sizes, function=True), *args)",
    ]


def _compiled(lines: list[str], namespace: dict[str, Any], name: str) -> Any:
    namespace["grid_sizes"] = grid_sizes
    exec(compile("\n".join(lines) + "\n", _LAUNCH_FILE, "exec"), namespace)  # noqa: S102
    return namespace.pop(name)


def _launch_function(
    fn: JITFunction, entry: _FastEntry
) -> Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]:
    """`entry`'s launch: ``launch(sizes, grid, args, kwargs)`` runs its stub (returning
    what the stub returns) where the launch is one the stub was built for
    (`_guard_terms`), else returns False, as the stub does for a launch it leaves to
    Python. Given a grid function (`sizes` None), it calls it with the arguments by name
    and checks the sizes it returns. One function written for the stub: a launch pays a
    few comparisons and no calls but the grid function's and the stub's (from cold
    caches each call costs its own cache lines)."""
    namespace: dict[str, Any] = {"call": entry.stub.call}
    tests, meta = _guard_terms(fn, entry, "", namespace)
    lines = [
        f"def {_LAUNCH}(sizes, grid, args, kwargs):",
        "    if not (" + "\n        and ".join(tests) + "):",
        "        return False",
        "    if sizes is None:",
        f"        sizes = grid({meta})",
        *_sized_call("call", "        "),
        "        return ran",
        "    return call(*sizes, *args)",
    ]
    return _compiled(lines, namespace, _LAUNCH)  # type: ignore[no-any-return]


def _grid_launch_type(fn: JITFunction, entries: Sequence[_FastEntry]) -> type[_GridLaunch]:
    """The launcher class of ``fn[grid_function]`` while `entries` are its stubs: its
    ``__call__`` tries each stub's guard (`_guard_terms`) in turn, inline, and runs the
    first stub whose guard passes (the grid function called with the arguments by name),
    else launches through Python. A Triton wrapper builds a launcher for each launch and
    calls it once: from cold caches, this makes the launch one Python call besides the
    grid function and the stub."""
    namespace: dict[str, Any] = {"fn": fn, "for_user": for_user}
    lines = ["def __call__(self, *args, **kwargs):", "    try:", "        grid = self.grid"]
    for index, entry in enumerate(entries):
        prefix = f"s{index}_"
        namespace[f"{prefix}call"], namespace[f"{prefix}entry"] = entry.stub.call, entry
        tests, meta = _guard_terms(fn, entry, prefix, namespace)
        lines += [
            "        if (" + "\n            and ".join(tests) + "):",
            f"            sizes = grid({meta})",
            *_sized_call(f"{prefix}call", "            "),
            "            if ran is None:",
            "                return",
            "            if ran:",
            f"                {prefix}entry.raise_errors(ran)",
            "                return",
        ]
    lines += [
        "        fn._run_noted(grid, args, kwargs)",
        "    except Exception as err:",
        "        if for_user(err):",
        "            raise err.with_traceback(None) from None",
        "        raise",
    ]
    call = _compiled(lines, namespace, "__call__")
    return type("_GridLaunch", (_GridLaunch,), {"__slots__": (), "__call__": call})


_MISSING = object()


def _plain(value: Any) -> bool:
    """Whether `value` compares with ``==`` as one value: a number, string, None, dtype or
    a tuple of those (not an array, whose ``==`` compares elements)."""
    if isinstance(value, tuple):
        return all(map(_plain, value))
    from blkc.language import core as tl

    return value is None or isinstance(value, int | float | str | tl.dtype | tl.constexpr)


def _environment() -> tuple[Any, ...]:
    """What a variant depends on besides its arguments and keywords, as cheap to read as
    can be: the default policy and the environment variables compile_for reads."""
    data = getattr(os.environ, "_data", None)
    if data is None:  # not CPython's os.environ
        return (policy_setting(), *map(os.environ.get, _ENVIRONMENT))
    get, keys = data.get, _ENVIRONMENT_KEYS
    return (policy_setting(), get(keys[0]), get(keys[1]), get(keys[2]), get(keys[3]))


_ENVIRONMENT = ("BLKC_POLICY", "BLKC_TARGET", "BLKC_CHECK_BOUNDS", "BLKC_STREAM_BYTES")
_ENVIRONMENT_KEYS = (
    tuple(os.fsencode(v) for v in _ENVIRONMENT) if os.name == "posix" else _ENVIRONMENT
)


@dataclass(eq=False)
class _FastEntry:
    """A launch stub of one variant (`blkc.runtime.fast_launch`) and what it assumes."""

    kernel: Any
    stub: Any
    kwargs: dict[str, Any]
    environment: tuple[Any, ...]
    captures: Captures

    plan: list[Any]
    """What the stub accepts for each positional argument (`fast_launch.Arg`)."""
    meta: list[tuple[str, tuple[str, Any]]]
    """Where each argument a grid function gets by name comes from, in the parameters'
    order: ("arg", index), ("keyword", name) or ("default", value)."""
    launch: Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any] = field(
        init=False, repr=False
    )
    """``launch(sizes, grid, args, kwargs)``: the stub's launch where it takes these
    arguments, else False (`_launch_function`)."""

    @classmethod
    def build(
        cls,
        fn: JITFunction,
        kernel: Any,
        plan: list[Any],
        kwargs: dict[str, Any],
        meta: dict[str, Any],
        num_cpu_threads: int | None,
    ) -> _FastEntry | None:
        """The stub of `kernel` for launches like one with `len(plan)` positional arguments,
        keywords `kwargs` and arguments by name `meta` (what a grid function got)."""
        from blkc.backends.cpu import launch_stub
        from blkc.language import core as tl

        if any(
            type(v) not in _SIMPLE_KEYWORDS and not isinstance(v, tl.dtype) for v in kwargs.values()
        ):
            return None
        if fn._captures is None:
            return None
        stub = launch_stub(kernel, plan, num_cpu_threads)
        if stub is None:
            return None
        names = fn.arg_names[: len(plan)]
        sources: list[tuple[str, tuple[str, Any]]] = [
            (name, ("arg", names.index(name)))
            if name in names
            else (name, ("keyword", name))
            if name in kwargs
            else (name, ("default", value))
            for name, value in meta.items()
        ]
        entry = cls(kernel, stub, dict(kwargs), _environment(), fn._captures, plan, sources)
        entry.launch = _launch_function(fn, entry)
        return entry

    def raise_errors(self, outcome: object) -> None:
        """Raise what the stub's launch recorded (`outcome`, what the stub returned), as a
        launch through Python does."""
        from blkc.backends.cpu import raise_stub_errors

        raise_stub_errors(self.kernel, outcome)


class _GridLaunch(GridLauncher):
    """``kernel[grid]``: launches through a stub where one takes the arguments, else
    through Python (`JITFunction.run`)."""

    __slots__ = ("fn",)

    def __init__(self, fn: JITFunction, grid: Grid):
        self.fn, self.grid = fn, grid
        if callable(grid):  # the common case of a fresh launcher: Triton's grid lambdas
            self.sizes = None
        else:
            super().__init__(grid)

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        # Every launch of a Triton-style wrapper runs this, and from cold caches each Python
        # call costs a few cache lines (a tenth of a microsecond each): a stub's launch
        # function checks the launch and calls the grid function and the stub itself.
        fn = self.fn
        try:
            fast = fn._fast
            if fast and (self.sizes is not None or callable(self.grid)):
                for entry in fast:
                    ran = entry.launch(self.sizes, self.grid, args, kwargs)
                    if ran is None:
                        return
                    if ran:
                        entry.raise_errors(ran)
                        return
            fn._run_noted(self.grid, args, kwargs)
        except Exception as err:
            if for_user(err):
                raise err.with_traceback(None) from None
            raise


ENTRY_CODES.add(_GridLaunch.__call__.__code__)
ENTRY_CODES.add(JITFunction.__call__.__code__)
ENTRY_FILES.add(_LAUNCH_FILE)


def jit(
    fn: Callable[..., Any] | None = None,
    *,
    policy: str | None = None,
    do_not_specialize: Iterable[str | int] = (),
    check_bounds: bool | None = None,
    target: str | None = None,
    **options: Any,
) -> Any:
    """Make `fn` a blkc kernel (``@blkc.jit`` or ``@blkc.jit(policy="numpy")``).

    `policy` is the promotion policy of its arithmetic (by default the process-wide one:
    `blkc.set_default_policy`, else `$BLKC_POLICY`, else triton); ints named in
    `do_not_specialize` are never compiled in; `check_bounds` and `target` (cpu, cpu-simt,
    ptx; default `$BLKC_TARGET`, else cpu) as in `blkc.compile`. Other Triton options
    (`debug`, `noinline`, ...) are accepted. Launches may also pass `policy=`, `target=`,
    `num_warps=` and `num_cpu_threads=` (how many CPU threads the launch may use).
    """

    def decorate(f: Callable[..., Any]) -> JITFunction:
        return JITFunction(
            f,
            policy=policy,
            do_not_specialize=do_not_specialize,
            check_bounds=check_bounds,
            target=target,
        )

    return decorate(fn) if fn is not None else decorate


# ---------------------------------------------------------------------------------------
# Autotuning


@dataclass
class Config:
    """One candidate of `autotune`: meta-parameter values (`kwargs`), how many CPU threads
    its launches may use (triton-cpu's `num_cpu_threads`; None: every core, or what the
    launch says), plus Triton's GPU options, accepted for compatibility."""

    kwargs: dict[str, Any]
    num_warps: int = 4
    num_stages: int = 2
    num_ctas: int = 1
    maxnreg: int | None = None
    pre_hook: Callable[..., Any] | None = None
    num_cpu_threads: int | None = None

    def __post_init__(self) -> None:
        if self.num_cpu_threads is not None:
            check_num_cpu_threads(self.num_cpu_threads)

    def all_kwargs(self) -> dict[str, Any]:
        return dict(self.kwargs)

    def with_launch_options(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """A launch's keyword arguments `kwargs`, plus this config's `num_cpu_threads`
        unless the launch gives its own."""
        if self.num_cpu_threads is None:
            return kwargs
        return {"num_cpu_threads": self.num_cpu_threads, **kwargs}

    def __str__(self) -> str:
        items = {**self.kwargs}
        if self.num_cpu_threads is not None:
            items["num_cpu_threads"] = self.num_cpu_threads
        return ", ".join(f"{k}: {v}" for k, v in items.items())


@dataclass(init=False, eq=False)
class Autotuner(_Decorator):
    """Times every config that pruning keeps (`prune_configs`) on the first launch for each
    key and reuses the fastest.

    Its constructor is Triton's (`triton.runtime.autotuner.Autotuner`), so that kernel
    libraries that subclass it run: ``Autotuner(fn, arg_names, configs, key,
    reset_to_zero, restore_value, pre_hook=None, post_hook=None, prune_configs_by=None,
    warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False)``,
    with Triton's attributes (`keys`, `cache`, `nargs`, `pre_hook`, `post_hook`,
    `user_defined_pre_hook`, ...). `warmup` and `rep` count runs here (blkc's
    `autotune`), `use_cuda_graph`, `do_bench` and `cache_results` are accepted and
    ignored."""

    fn: JITFunction | Autotuner | Heuristics
    configs: list[Config]
    key: list[str]
    reset_to_zero: list[str] = field(default_factory=list)
    restore_value: list[str] = field(default_factory=list)
    num_warmups: int = 2
    num_reps: int = 5
    prune_configs_by: dict[str, Any] | None = None
    """Triton's pruning: `early_config_prune`, `perf_model` and `top_k` (see `autotune`)."""
    prune_by_cache: bool | None = None
    """Whether to prune by working set on the CPU (None: unless `prune_configs_by` is given
    or ``BLKC_AUTOTUNE_PRUNE=0``)."""
    best: dict[tuple[Any, ...], Config] = field(default_factory=dict)
    """The config chosen for each key."""
    best_config: Config | None = None
    """The config the last launch ran with (Triton's name; None before any launch)."""
    timings: dict[tuple[Any, ...], dict[str, float]] = field(default_factory=dict)
    cache: dict[tuple[Any, ...], Config] = field(default_factory=dict)
    """Configs by Triton's key (the `key` arguments' values, then the dtype of each array
    argument): a config a subclass puts here is used without tuning."""

    def __init__(
        self,
        fn: Any,
        arg_names: Sequence[str] | None,
        configs: Sequence[Config],
        key: Sequence[str],
        reset_to_zero: Sequence[str] | None = None,
        restore_value: Sequence[str] | None = None,
        pre_hook: Callable[..., Any] | None = None,
        post_hook: Callable[..., Any] | None = None,
        prune_configs_by: dict[str, Any] | None = None,
        warmup: int | None = None,
        rep: int | None = None,
        use_cuda_graph: bool = False,
        do_bench: Any = None,
        cache_results: bool = False,
        *,
        prune_by_cache: bool | None = None,
    ):
        self.fn = fn
        self.arg_names = list(arg_names or base_function(fn).arg_names)
        self.configs = list(configs) or [Config({})]
        self.key = self.keys = list(key)
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for what, names in (
            ("key", self.key),
            ("reset_to_zero", self.reset_to_zero),
            ("restore_value", self.restore_value),
        ):
            unknown = [n for n in names if n not in self.arg_names]
            if unknown:
                raise ValueError(
                    f"{what} contains names that are not kernel arguments: "
                    f"{', '.join(unknown)}. Valid argument names are: "
                    f"{', '.join(self.arg_names)}."
                )
        self.num_warmups = 2 if warmup is None else warmup
        self.num_reps = 5 if rep is None else rep
        self.prune_configs_by = dict(prune_configs_by) if prune_configs_by else None
        self.prune_by_cache = prune_by_cache
        self.best, self.best_config, self.timings, self.cache = {}, None, {}, {}
        self.nargs: dict[str, Any] = {}
        self.restore_copies: dict[str, Any] = {}
        self.user_defined_pre_hook = pre_hook is not None
        self.user_defined_post_hook = post_hook is not None
        self.pre_hook = pre_hook if pre_hook is not None else self._reset_and_save
        self.post_hook = post_hook if post_hook is not None else self._restore
        self.use_cuda_graph, self.do_bench = use_cuda_graph, do_bench
        self.cache_results = False  # tuning results are kept per process, not on disk

    def _reset_and_save(self, arguments: dict[str, Any], reset_only: bool = False) -> None:
        """The default `pre_hook`: zero the `reset_to_zero` arrays, and (unless
        `reset_only`) keep a copy of the `restore_value` ones."""
        for name in self.reset_to_zero:
            if arguments.get(name) is not None:
                _as_array(arguments[name])[...] = 0
        if not reset_only:
            self.restore_copies = {
                n: numpy.array(_as_array(arguments[n]), copy=True)
                for n in self.restore_value
                if arguments.get(n) is not None
            }

    def _restore(self, arguments: dict[str, Any], exception: BaseException | None = None) -> None:
        """The default `post_hook`: the `restore_value` arrays as `pre_hook` found them."""
        for name, copy in self.restore_copies.items():
            _as_array(arguments[name])[...] = copy
        self.restore_copies = {}

    def _key(self, arguments: dict[str, Any]) -> tuple[Any, ...]:
        from blkc.runtime.arrays import dtype_and_shape

        parts = []
        for name in self.key:
            value = arguments.get(name)
            array = None if value is None else dtype_and_shape(value)
            parts.append((str(array[0]), array[1]) if array is not None else value)
        return tuple(parts)

    def _triton_key(self, arguments: dict[str, Any]) -> tuple[Any, ...] | None:
        """Triton's key of a launch (`cache`), or None where it is not hashable."""
        named = {k: v for k, v in arguments.items() if k in self.arg_names}
        parts = [named[k] for k in self.key if k in named]
        parts += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
        key = tuple(parts)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def run(self, *args: Any, grid: Any, **kwargs: Any) -> None:
        arguments = self._arguments(args, kwargs)
        self.nargs = dict(zip(self.arg_names, args, strict=False))
        config = None
        if self.cache:
            triton_key = self._triton_key(arguments)
            config = None if triton_key is None else self.cache.get(triton_key)
        if config is None:
            key = self._key(arguments)
            if key not in self.best:
                self.best[key] = self._tune(args, kwargs, grid, arguments, key)
            config = self.best[key]
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook({**arguments, **config.kwargs})
        self.fn.run(*args, grid=grid, **config.with_launch_options(kwargs), **config.kwargs)

    def _tune(
        self,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        grid: Any,
        arguments: dict[str, Any],
        key: tuple[Any, ...],
    ) -> Config:
        configs = self.prune_configs(args, kwargs)
        if len(configs) == 1:
            return configs[0]
        self._compile_configs(args, kwargs, configs, arguments)

        def once(config: Config) -> None:
            full = {**arguments, **config.kwargs}
            if config.pre_hook is not None:
                config.pre_hook(full)
            self.pre_hook(full)
            try:
                self.fn.run(*args, grid=grid, **config.with_launch_options(kwargs), **config.kwargs)
            except Exception as err:
                self.post_hook(full, exception=err)
                raise
            self.post_hook(full, exception=None)

        best, self.timings[key] = autotuning.choose(
            self.__name__, configs, str, once, warmup=self.num_warmups, reps=self.num_reps
        )
        self.pre_hook({**arguments, **best.kwargs}, reset_only=True)
        return best

    def _compile_configs(
        self,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        configs: Sequence[Config],
        arguments: dict[str, Any] | None = None,
    ) -> None:
        """Every config's native code ahead, where compilations can run side by side
        (`runtime.jit.parallel_compilations`): each lowered in turn here, then compiled in
        parallel (`runtime.jit.compile_in_parallel`: on two cores, a 512^3 matmul's four
        configs in 0.67-0.74 s instead of about 1.4). Before timing (`arguments` given),
        each config's pre-hook runs first, since it may change the arguments, and each
        compiles the variant its launch runs; for `warmup`, what `warmup` compiles. A
        config that fails to lower or compile fails again where it is timed or warmed up,
        as it did before; a function this one wraps without `_compile_job` (heuristics)
        compiles each config there too."""
        from blkc.runtime.jit import compile_in_parallel, parallel_compilations

        if len(configs) < 2 or parallel_compilations() < 2 or not hasattr(self.fn, "_compile_job"):
            return
        jobs = []
        for config in configs:
            if arguments is not None and config.pre_hook is not None:
                config.pre_hook({**arguments, **config.kwargs})
            given = {**config.with_launch_options(kwargs), **config.kwargs}
            try:
                job = self.fn._compile_job(args, given, warmup=arguments is None)
            except Exception:  # noqa: BLE001, S112 - raised again where it is run
                continue
            if job is not None:
                jobs.append(job)
        compile_in_parallel(jobs)

    def warmup(self, *args: Any, **kwargs: Any) -> list[Any]:
        """Compile every config that pruning keeps without running (their native code in
        parallel, `_compile_configs`); return the compiled kernels."""
        configs = self.prune_configs(args, kwargs)
        self._compile_configs(args, {k: v for k, v in kwargs.items() if k != "grid"}, configs)
        return [self.fn.warmup(*args, **kwargs, **c.kwargs) for c in configs]

    def prune_configs(self, args: Sequence[Any], kwargs: dict[str, Any]) -> list[Config]:
        """The configs worth timing for a launch: those `prune_configs_by` keeps, then, where
        `prune_by_cache` says so, those whose working set fits a core's L2 cache."""
        configs = list(self.configs)
        if len(configs) > 1 and self.prune_configs_by:
            configs = self._user_pruned(configs, args, kwargs)
        by_cache = self.prune_by_cache
        if by_cache is None and self.prune_configs_by:
            by_cache = False  # the user's pruning replaces blkc's unless asked for both
        if len(configs) > 1 and autotuning.pruning_enabled(by_cache):
            configs = self._cache_pruned(configs, args, kwargs)
        return configs

    def _user_pruned(
        self, configs: list[Config], args: Sequence[Any], kwargs: dict[str, Any]
    ) -> list[Config]:
        """`prune_configs_by`'s choice, as Triton makes it: `early_config_prune(configs,
        named_args, **kwargs)`, then, where more than `top_k` are left, the `top_k` with the
        least time `perf_model(**named_args, **kwargs, **config.kwargs)` estimates."""
        options = self.prune_configs_by or {}
        named = dict(zip(base_function(self).arg_names, args, strict=False))
        early = options.get("early_config_prune")
        if early is not None:
            configs = list(early(configs, named, **kwargs))
            if not configs:
                raise ValueError(
                    f"autotune of '{self.__name__}': no config left after early_config_prune"
                )
        perf_model = options.get("perf_model")
        if perf_model is None:
            return configs
        top_k = _top_k(options.get("top_k", 10), len(self.configs))
        if len(configs) <= top_k:
            return configs
        estimates = [perf_model(**named, **kwargs, **c.all_kwargs()) for c in configs]
        order = sorted(range(len(configs)), key=lambda i: estimates[i])
        return [configs[i] for i in order[:top_k]]

    def _cache_pruned(
        self, configs: list[Config], args: Sequence[Any], kwargs: dict[str, Any]
    ) -> list[Config]:
        """`configs` pruned by their working set against the host's caches, each one left
        out reported (`autotuning.prune_by_working_set`). Only `cpu` kernels are pruned.
        Each config's `pre_hook` runs before its variant is lowered, as before its launches
        (Triton's persistent matmul sets its descriptors' block shapes there)."""
        from blkc.runtime.cpu_target import cache_sizes

        sizes: list[int] = []
        for config in configs:
            if config.pre_hook is not None:  # it may set what compiles (descriptors' blocks)
                config.pre_hook({**self._arguments(args, kwargs), **config.kwargs})
            size = _working_set(self.fn, args, {**kwargs, **config.kwargs})
            if size is None:
                return configs
            sizes.append(size)
        kept, dropped = autotuning.prune_by_working_set(configs, sizes, cache_sizes())
        autotuning.report_pruned(self.__name__, dropped, str)
        return kept


def _top_k(top_k: Any, total: int) -> int:
    """`prune_configs_by`'s `top_k` as a count: an int, or a fraction (at most 1.0) of the
    `total` configs, as Triton reads it."""
    if isinstance(top_k, float) and 0 < top_k <= 1.0:
        return max(1, int(total * top_k))
    if isinstance(top_k, int) and not isinstance(top_k, bool) and top_k > 0:
        return top_k
    raise TypeError(
        f"prune_configs_by's top_k must be a positive int or a float in (0, 1], not {top_k!r}"
    )


def _working_set(
    fn: JITFunction | Autotuner | Heuristics, args: Sequence[Any], kwargs: dict[str, Any]
) -> int | None:
    """The bytes of the buffers one program of `fn`'s variant for these arguments keeps its
    blocks in, lowered but not compiled to native code (the variant is cached, so a config
    that is then timed does not lower again); None off the `cpu` target, or under another
    autotuner, whose config is not yet chosen."""
    if isinstance(fn, Heuristics):
        return _working_set(fn.fn, args, fn._with_meta(args, dict(kwargs)))
    if not isinstance(fn, JITFunction):
        return None
    from blkc.targets import resolve

    options = {name: kwargs.pop(name) for name in _LAUNCH_OPTIONS if name in kwargs}
    kwargs.pop("grid", None)  # `warmup`'s
    if resolve(options.get("target") or fn.target) != "cpu":
        return None
    kernel, _ = fn._lowered(args, kwargs, **options)
    return kernel.backend.resources(kernel.program).get("shared")


def base_function(fn: JITFunction | Autotuner | Heuristics) -> JITFunction:
    """The `@blkc.jit` function under any autotune and heuristics decorators."""
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    return fn


def _as_array(value: Any) -> Any:
    from blkc.runtime.arrays import as_array

    return as_array(value)


def autotune(
    configs: Sequence[Config],
    key: Sequence[str],
    reset_to_zero: Sequence[str] | None = None,
    restore_value: Sequence[str] | None = None,
    warmup: int = 2,
    rep: int = 5,
    prune_configs_by: dict[str, Any] | None = None,
    prune_by_cache: bool | None = None,
    **options: Any,
) -> Callable[[Any], Autotuner]:
    """Decorate a `@blkc.jit` kernel to choose among `configs` by timing: on the first
    launch for each value of the `key` arguments (arrays count by dtype and shape), every
    config runs (best of `rep` after `warmup`), the fastest is kept and reused. Arrays
    named in `reset_to_zero` are zeroed before each timed run, those in `restore_value`
    restored before each run (`blkc.autotuning`). Progress goes to stderr
    (``BLKC_QUIET_AUTOTUNE=1`` silences it).

    Before timing, configs are pruned: by `prune_configs_by` where given (Triton's
    `early_config_prune`, `perf_model`, `top_k`), else, for the `cpu` target, by each
    config's working set against a core's caches (`Autotuner.prune_configs`);
    `prune_by_cache=False` or ``BLKC_AUTOTUNE_PRUNE=0`` turns the latter off,
    `prune_by_cache=True` runs it after `prune_configs_by` too."""
    if not configs:
        raise ValueError("autotune needs at least one Config")
    _check_prune_configs_by(prune_configs_by)

    def decorate(fn: Any) -> Autotuner:
        return Autotuner(
            fn,
            None,
            configs,
            key,
            reset_to_zero,
            restore_value,
            pre_hook=options.get("pre_hook"),
            post_hook=options.get("post_hook"),
            prune_configs_by=prune_configs_by,
            warmup=warmup,
            rep=rep,
            prune_by_cache=prune_by_cache,
        )

    return decorate


_PRUNE_KEYS = ("early_config_prune", "perf_model", "top_k")


def _check_prune_configs_by(prune_configs_by: Any) -> None:
    """A ValueError or TypeError where `prune_configs_by` is not what Triton takes."""
    if prune_configs_by is None:
        return
    if not isinstance(prune_configs_by, dict):
        raise TypeError(
            "autotune's prune_configs_by must be a dict with keys among "
            f"{', '.join(_PRUNE_KEYS)}, not {type(prune_configs_by).__name__}"
        )
    unknown = sorted(set(prune_configs_by) - set(_PRUNE_KEYS))
    if unknown:
        raise ValueError(
            f"autotune's prune_configs_by: unknown key {unknown[0]!r}; "
            f"the keys are {', '.join(_PRUNE_KEYS)}"
        )
    for name in ("early_config_prune", "perf_model"):
        if prune_configs_by.get(name) is not None and not callable(prune_configs_by[name]):
            raise TypeError(f"autotune's prune_configs_by: {name} must be callable")
    if "top_k" in prune_configs_by:
        _top_k(prune_configs_by["top_k"], 1)


@dataclass
class Heuristics(_Decorator):
    """Computes meta-parameters from the arguments before each launch."""

    fn: JITFunction | Autotuner | Heuristics
    values: dict[str, Callable[[dict[str, Any]], Any]]

    def _with_meta(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        """`kwargs` plus the meta-parameters computed from all the arguments."""
        arguments = self._arguments(args, kwargs)
        for name, compute in self.values.items():
            kwargs[name] = arguments[name] = compute(arguments)
        return kwargs

    def run(self, *args: Any, grid: Any, **kwargs: Any) -> None:
        self.fn.run(*args, grid=grid, **self._with_meta(args, kwargs))

    def warmup(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn.warmup(*args, **self._with_meta(args, kwargs))


def heuristics(values: dict[str, Callable[[dict[str, Any]], Any]]) -> Callable[[Any], Heuristics]:
    """Decorate a kernel so that each meta-parameter in `values` is computed from the
    launch's arguments (a dict by name) before it runs."""

    def decorate(fn: Any) -> Heuristics:
        return Heuristics(fn, dict(values))

    return decorate


class ConstexprFunction:
    """A Python function that kernels call while they compile (`constexpr_function`):
    every argument must be a compile-time constant (a literal, a `tl.constexpr` parameter
    or value, a dtype), and the result is one. Called from Python, it is the function
    (`tl.constexpr` arguments unwrapped). Its source, and the values of the names it
    reads from its module or closure, are part of each calling kernel's key."""

    __blkc_constexpr_function__ = True

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from blkc.language import core as tl

        def plain(v: Any) -> Any:
            return v.value if isinstance(v, tl.constexpr) else v

        return self.fn(*map(plain, args), **{k: plain(v) for k, v in kwargs.items()})

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        return _BoundConstexprFunction(self, instance)

    def __repr__(self) -> str:
        return f"ConstexprFunction({self.fn.__qualname__})"


class _BoundConstexprFunction:
    """A `ConstexprFunction` read as a method of `instance`."""

    __blkc_constexpr_function__ = True

    def __init__(self, function: ConstexprFunction, instance: Any):
        self.__func__, self.__self__ = function, instance
        self.__name__ = function.fn.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__func__(self.__self__, *args, **kwargs)


def constexpr_function(fn: Callable[..., Any]) -> ConstexprFunction:
    """Decorate a Python function so that kernels may call it on compile-time constants
    (``B: tl.constexpr = next_pow2(N)``), as Triton's `triton.constexpr_function`."""
    if not callable(fn):
        raise TypeError(f"constexpr_function() takes a function, got {type(fn).__name__}")
    return ConstexprFunction(fn)


def cdiv(x: int, y: int) -> int:
    """``(x + y - 1) // y``: for positive ints, how many blocks of `y` cover `x`. Kernels
    call it on compile-time constants too, as a `constexpr_function`."""
    return (x + (y - 1)) // y


cdiv.__blkc_constexpr_function__ = True  # type: ignore[attr-defined]


def next_power_of_2(n: int) -> int:
    """The smallest power of two at least `n`, by Triton's bit arithmetic on 64 bits: 0
    for n <= 0, 1 for 1. Kernels call it on compile-time constants too, as a
    `constexpr_function`."""
    n -= 1
    for shift in (1, 2, 4, 8, 16, 32):
        n |= n >> shift
    return n + 1


next_power_of_2.__blkc_constexpr_function__ = True  # type: ignore[attr-defined]


def must_use_result(fn: Any, words: Any = True) -> Any:
    """Mark `fn` (a `@blkc.jit` function, `constexpr_function` or builtin) as one whose
    result a kernel must use: a call of it as a statement of its own is a compile error
    ("The result of f is not being used."). ``@must_use_result("what to do")`` adds those
    words to the message."""
    if isinstance(fn, str):
        return lambda function: must_use_result(function, fn)
    fn._must_use_result = words
    return fn


__all__ = [
    "Autotuner",
    "Config",
    "ConstexprFunction",
    "Heuristics",
    "JITFunction",
    "KernelParam",
    "autotune",
    "cdiv",
    "constexpr_function",
    "heuristics",
    "jit",
    "must_use_result",
    "next_power_of_2",
]
