"""`blkc kernel.py`: compile a `@blkc.jit` kernel of a Python file from the command line.

The file is imported as a module (its ``if __name__ == "__main__"`` block does not run);
the kernel is specialised for the `-D` values of its constexpr parameters and the
`--signature` types of the others, as `tools/blkc_main.py` documents.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy

from blkc import dtypes
from blkc.diagnostics import BlkcError, SourceLocation, error_at
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
    finally:
        sys.path.pop(0)
    found: dict[str, JITFunction] = {}
    for attr, value in vars(module).items():
        if hasattr(value, "run") and hasattr(value, "fn") or isinstance(value, JITFunction):
            base = base_function(value)
            if base.fn.__module__ == name:
                found[attr] = base
    return found


def compile_file(
    path: Path,
    kernel: str | None,
    defines: list[str],
    signature: str,
    size: int,
    **options: Any,
) -> dict[str, Any]:
    """Compile the kernel `kernel` of the Python file `path`, or every kernel when it is
    None (with `policy`, `target`, `arch`, `num_warps` options as `blkc.compile` takes
    them); return the compiled kernels by name."""
    kernels = load_kernels(path)
    if not kernels:
        raise _usage_error(f"{path}: no @blkc.jit kernel")
    if kernel is not None and kernel not in kernels:
        raise _usage_error(f"{path}: no kernel '{kernel}' (kernels: {', '.join(kernels)})")
    names = [kernel] if kernel is not None else list(kernels)
    values = dict(parse_define(d) for d in defines)
    types: dict[str, str] = {}
    parameters = {p for name in names for p in kernels[name].arg_names}
    for item in filter(None, (part.strip() for part in signature.split(","))):
        name, sep, type_name = item.partition("=")
        if not sep or name not in parameters:
            raise _usage_error(
                f"--signature: '{item}' is not NAME=TYPE for a parameter of "
                f"{', '.join(names)} ({', '.join(sorted(parameters))})"
            )
        types[name] = type_name.strip()
    return {name: _compile(kernels[name], values, types, size, options) for name in names}


def _compile(
    fn: JITFunction,
    values: dict[str, Any],
    types: dict[str, str],
    size: int,
    options: dict[str, Any],
) -> Any:
    arguments: dict[str, Any] = {}
    for name, parameter in fn.signature.parameters.items():
        if name in values:
            arguments[name] = values[name]
        elif name in fn.constexprs:
            if parameter.default is parameter.empty:
                raise _usage_error(
                    f"constexpr parameter '{name}' of {fn.__name__} needs a value: "
                    f"pass -D{name}=..."
                )
            arguments[name] = parameter.default
        else:
            arguments[name] = _example(name, types.get(name), size)
    return fn.warmup(**arguments, **options)


def _example(name: str, type_name: str | None, size: int) -> Any:
    """An argument of type `type_name` (``*fp32``, ``i64``, ...; guessed from the name when
    None) to specialise the kernel with."""
    if type_name is None:
        pointer = name.lower().endswith("ptr") or name[:1].isupper()
        type_name = "*fp32" if pointer else "i32"
    where = f"parameter '{name}'"
    if type_name.startswith("*"):
        return numpy.zeros(1, _dtype(type_name[1:], where).numpy)
    d = _dtype(type_name, where)
    if d.is_float:
        return numpy.array(1.0, d.numpy)[()]
    return numpy.array(size, d.numpy)[()] if d.name != "int32" else size
