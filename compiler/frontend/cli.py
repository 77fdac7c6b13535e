"""`blkc kernel.py`: compile a `@blkc.jit` kernel of a Python file from the command line.

The file is imported as a module (its ``if __name__ == "__main__"`` block does not run);
the kernel is specialised for the `-D` values of its constexpr parameters and the
`--signature` types of the others, as `tools/blkc_main.py` documents. A parameter
`--signature` leaves out gets the type its use decides (`blkc.frontend.infer_signature`);
none is assumed a multiple of 16 unless its type says so (``n=i32:16``).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy

from blkc import dtypes
from blkc.diagnostics import BlkcError, Diagnostic, Severity, SourceLocation, error_at
from blkc.frontend.infer_signature import Kind, infer_kinds, typed
from blkc.frontend.python import parse_function
from blkc.jitfunction import JITFunction, base_function

_TRITON_TYPES = {
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
    "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2",
}  # fmt: skip
"""Triton's signature type names, and the dtypes they stand for."""


def _dtype(name: str, where: str) -> dtypes.DType:
    try:
        return dtypes.dtype(_TRITON_TYPES.get(name, name))
    except dtypes.UnknownDTypeError:
        known = ", ".join(_TRITON_TYPES)
        raise _usage_error(f"{where}: unknown type '{name}' (known: {known})") from None


def _usage_error(message: str) -> BlkcError:
    return error_at(None, message)


def parse_define(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` as a name and a Python value: an int, float, bool, dtype or string."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise _usage_error(f"-D{text}: expected NAME=VALUE")
    return name, _value(value)


def _value(text: str) -> Any:
    import blkc.language as tl

    short = text.removeprefix("tl.")
    if isinstance(getattr(tl, short, None), tl.dtype):
        return getattr(tl, short)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def load_kernels(path: Path) -> dict[str, JITFunction]:
    """The `@blkc.jit` kernels (autotuned or not) defined at the top level of `path`."""
    name = f"_blkc_cli_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise _usage_error(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        spec.loader.exec_module(module)
    except SyntaxError as err:
        location = SourceLocation(str(path), err.lineno or 1, err.offset or 1)
        raise error_at(location, f"invalid Python: {err.msg}") from None
    except Exception as err:  # the file's own code failed: say where, as Python would
        raise error_at(_failing_line(path, err), f"importing {path.name} failed: {err!r}") from None
    finally:
        sys.path.pop(0)
    found: dict[str, JITFunction] = {}
    for attr, value in vars(module).items():
        if hasattr(value, "run") and hasattr(value, "fn") or isinstance(value, JITFunction):
            base = base_function(value)
            if base.fn.__module__ == name:
                found[attr] = base
    return found


def _failing_line(path: Path, err: Exception) -> SourceLocation | None:
    """The line of `path` that raised `err` (the last frame in it), if any."""
    tb = traceback.extract_tb(err.__traceback__)
    frames = [f for f in tb if Path(f.filename).resolve() == path.resolve()]
    if not frames or frames[-1].lineno is None:
        return None
    return SourceLocation(str(path), frames[-1].lineno, (frames[-1].colno or 0) + 1)


@dataclass(frozen=True)
class ParamType:
    """A `--signature` type: a scalar of `dtype` or a pointer to one, and whether it carries
    Triton's `:16` promise (an integer a multiple of 16; a pointer 16-byte aligned, as blkc
    assumes every pointer argument is)."""

    dtype: dtypes.DType
    pointer: bool = False
    multiple_of_16: bool = False

    def example(self) -> Any:
        """An argument that `@blkc.jit` specialises as this type: an array for a pointer,
        a NumPy scalar (no divisibility hint) for a scalar, and for `:16` the Python int
        it marks divisible by 16."""
        if self.pointer:
            return numpy.zeros(1, self.dtype.numpy)
        if self.multiple_of_16:
            return _MULTIPLES_OF_16[self.dtype.name]
        return numpy.zeros((), self.dtype.numpy)[()]


_MULTIPLES_OF_16 = {"int32": 16, "int64": 2**32, "uint64": 2**63}
"""A Python int that `@blkc.jit` types as each integer type, a multiple of 16: the types
its specialization gives a divisibility hint (as Triton's launcher does)."""

_INFERRED_TYPES = {Kind.POINTER: "*fp32", Kind.INT: "i32", Kind.FLOAT: "fp32"}
"""The type of a parameter whose use decides only its kind."""


def parse_type(text: str, where: str) -> ParamType:
    """A Triton signature type: ``fp16``, ``*fp32``, ``i32:16``, ``*fp32:16``."""
    name, sep, hint = text.partition(":")
    pointer = name.startswith("*")
    dtype = _dtype(name.removeprefix("*"), where)
    if not sep:
        return ParamType(dtype, pointer)
    if hint != "16":
        raise _usage_error(
            f"{where}: '{text}': the only divisibility hint is ':16' (Triton's: 'i32:16' "
            "for a multiple of 16, '*fp32:16' for a 16-byte aligned pointer)"
        )
    if not pointer and dtype.name not in _MULTIPLES_OF_16:
        raise _usage_error(f"{where}: '{text}': ':16' applies to pointers, i32, i64 and u64")
    return ParamType(dtype, pointer, multiple_of_16=True)


def compile_file(
    path: Path,
    kernel: str | None,
    defines: list[str],
    signature: str,
    **options: Any,
) -> dict[str, Any]:
    """Compile the kernel `kernel` of the Python file `path`, or every kernel when it is
    None (with `policy`, `target`, `arch`, `num_warps` options as `blkc.compile` takes
    them); return the compiled kernels by name. What no kernel can be compiled without
    (a constexpr's value, a type no use decides) is reported for all kernels at once."""
    kernels = load_kernels(path)
    if not kernels:
        raise _usage_error(f"{path}: no @blkc.jit kernel")
    if kernel is not None and kernel not in kernels:
        raise _usage_error(f"{path}: no kernel '{kernel}' (kernels: {', '.join(kernels)})")
    names = [kernel] if kernel is not None else list(kernels)
    values = dict(parse_define(d) for d in defines)
    types = _parse_signature(signature, [kernels[name] for name in names])
    arguments: dict[str, dict[str, Any]] = {}
    missing: list[Diagnostic] = []
    for name in names:
        try:
            arguments[name] = _arguments(kernels[name], values, types, signature)
        except BlkcError as err:
            missing += err.diagnostics
    if missing:
        if len(names) > 1:
            listed = f"{path.name} has kernels {', '.join(names)}: --kernel NAME compiles one"
            missing.append(Diagnostic(Severity.NOTE, listed, None))
        raise BlkcError(missing)
    return {name: kernels[name].warmup(**arguments[name], **options) for name in names}


def _parse_signature(signature: str, kernels: list[JITFunction]) -> dict[str, ParamType]:
    parameters = {p for fn in kernels for p in fn.arg_names}
    types: dict[str, ParamType] = {}
    for item in filter(None, (part.strip() for part in signature.split(","))):
        name, sep, type_name = item.partition("=")
        if not sep or name not in parameters:
            raise _usage_error(
                f"--signature: '{item}' is not NAME=TYPE for a parameter of "
                f"{', '.join(fn.__name__ for fn in kernels)} ({', '.join(sorted(parameters))})"
            )
        types[name] = parse_type(type_name.strip(), f"--signature: parameter '{name}'")
    return types


def _arguments(
    fn: JITFunction, values: dict[str, Any], types: dict[str, ParamType], signature: str
) -> dict[str, Any]:
    """The arguments to specialise `fn` with: `-D` values and constexpr defaults, then an
    example of each other parameter's type, given or inferred from its use."""
    constants, errors = _constants(fn, values)
    given = {n: t for n, t in types.items() if n in fn.arg_names and n not in constants}
    kinds = infer_kinds(fn, constants, {n: typed(t.dtype, t.pointer) for n, t in given.items()})
    undecided = [name for name, kind in kinds.items() if kind is None]
    if undecided:
        errors.append(_undecided_error(fn, undecided, signature))
    if errors:
        raise BlkcError([d for err in errors for d in err.diagnostics])
    inferred = {n: parse_type(_INFERRED_TYPES[k], n) for n, k in kinds.items() if k}
    return constants | {n: t.example() for n, t in (given | inferred).items()}


def _constants(fn: JITFunction, values: dict[str, Any]) -> tuple[dict[str, Any], list[BlkcError]]:
    """`fn`'s `-D` values and constexpr defaults, and an error for each constexpr without."""
    constants: dict[str, Any] = {}
    errors: list[BlkcError] = []
    for name, parameter in fn.signature.parameters.items():
        if name in values:
            constants[name] = values[name]
        elif name in fn.constexprs and parameter.default is not parameter.empty:
            constants[name] = parameter.default
        elif name in fn.constexprs:
            message = (
                f"constexpr parameter '{name}' of {fn.__name__} needs a value: pass -D{name}=..."
            )
            errors.append(error_at(parameter_location(fn, name), message))
    return constants, errors


def _undecided_error(fn: JITFunction, undecided: list[str], signature: str) -> BlkcError:
    listing = ", ".join(f"'{name}'" for name in undecided)
    given = [part.strip() for part in signature.split(",") if part.strip()]
    wanted = ",".join([*given, *(f"{name}=..." for name in undecided)])
    return error_at(
        parameter_location(fn, undecided[0]),
        f"no use in kernel '{fn.__name__}' decides the type of {listing}: pass "
        f"--signature '{wanted}' (Triton's types: *fp32 for a pointer, i32, i64, fp32, ...)",
    )


def parameter_location(fn: JITFunction, name: str) -> SourceLocation:
    """Where the parameter `name` is declared in `fn`'s source."""
    function = parse_function(fn.fn)
    args = function.tree.args
    arg = next(a for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a.arg == name)
    return SourceLocation(
        function.filename,
        function.line_offset + arg.lineno,
        function.col_offset + arg.col_offset + 1,
    )
