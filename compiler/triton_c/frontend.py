"""From Triton-C source to loose blk IR (`translate`) and to launchable kernels
(`compile`): preprocess with the host's defines, parse, generate one module per kernel,
then `blkc.compile` each."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from blkc.diagnostics import BlkcError, Diagnostic
from blkc.kernel import compile as compile_module
from blkc.promotion import default_policy
from blkc.runtime.grid import user_entry
from blkc.targets import resolve as resolve_target
from blkc.triton_c.codegen import generate
from blkc.triton_c.lexer import Token, error
from blkc.triton_c.parser import parse_constant, parse_unit
from blkc.triton_c.preprocessor import preprocess
from blkc.triton_c.syntax import Function
from blkc.triton_c.tuning import Candidate, DefineValue, TritonCKernel

Defines = Mapping[str, DefineValue | Sequence[DefineValue]]
"""Host defines: a value (spliced as source text) or a list of candidate values."""

Source = str | os.PathLike[str]

_compiled: dict[tuple[object, ...], dict[str, TritonCKernel]] = {}
_compiled_lock = threading.Lock()


def read_source(source: Source, filename: str | None = None) -> tuple[str, str]:
    """(text, filename) of `source`: a path (a `PathLike`, or a one-line string ending in
    `.tc`), else the source text itself."""
    is_path = isinstance(source, os.PathLike) or ("\n" not in source and source.endswith(".tc"))
    if is_path:
        path = Path(source)
        return path.read_text(), filename or str(path)
    return str(source), filename or "<string>"


def translate(
    source: Source,
    *,
    defines: Mapping[str, DefineValue] | None = None,
    policy: str | None = None,
    filename: str | None = None,
) -> dict[str, ModuleOp]:
    """The loose blk IR of each kernel of a Triton-C file, one module per kernel, by name.

    `defines` are the host's `#define`s (one value each); `policy` defaults to
    `blkc.passes.promotion.default_policy()`. Errors raise a located `blkc.BlkcError`.
    """
    policy = policy or default_policy()
    text, filename = read_source(source, filename)
    replacements = {name: _define_text(name, value) for name, value in (defines or {}).items()}
    tokens = preprocess(text, filename, replacements, parse_constant)
    functions = parse_unit(tokens)
    _check_functions(functions, tokens[-1])
    return {f.name: generate(f, policy, filename) for f in functions}


@user_entry
def compile(  # noqa: A001 - the public name mirrors blkc.compile
    source: Source,
    *,
    defines: Defines | None = None,
    policy: str | None = None,
    filename: str | None = None,
    opt: int = 3,
    check_bounds: bool | None = None,
    target: str | None = None,
    num_warps: int = 4,
    arch: str | None = None,
) -> dict[str, TritonCKernel]:
    """Compile a Triton-C file (a path or the source text) to its kernels, by name.

    Launch one as ``kernels["add"][grid](x, y, out, n)`` on NumPy arrays. A define given
    a list makes every combination a candidate, timed on the first launch (see
    `blkc.triton_c.tuning`). `policy`, `opt`, `check_bounds`, `target`, `num_warps` and
    `arch` are `blkc.compile`'s.
    """
    text, filename = read_source(source, filename)
    policy = policy or default_policy()
    if check_bounds is None:
        check_bounds = os.environ.get("BLKC_CHECK_BOUNDS", "1") != "0"
    combos = candidates(defines or {})
    # The target is resolved now ($BLKC_TARGET) so that the cache key names it.
    targets = {"target": resolve_target(target), "num_warps": num_warps, "arch": arch}
    key = (text, filename, repr(combos), policy, opt, check_bounds, repr(targets))
    with _compiled_lock:
        if key in _compiled:
            return _compiled[key]
    kernels: dict[str, list[Candidate]] = {}
    for combo in combos:
        try:
            modules = translate(text, defines=combo, policy=policy, filename=filename)
            for name, module in modules.items():
                kernel = compile_module(module, policy=policy, kernel=name, opt=opt,
                                        filename=filename, check_bounds=check_bounds,
                                        **targets)
                kernels.setdefault(name, []).append(Candidate(combo, kernel))
        except BlkcError as err:
            if len(combos) == 1:
                raise
            label = " ".join(f"{k}={v}" for k, v in combo.items())
            raise _with_note(err, f"while compiling the candidate {label}") from None
    result = {name: TritonCKernel(name, found) for name, found in kernels.items()}
    with _compiled_lock:
        _compiled[key] = result
    return result


def candidates(defines: Defines) -> list[dict[str, DefineValue]]:
    """Every combination of the defines' values (a list gives several), in order."""
    choices: dict[str, list[DefineValue]] = {}
    for name, value in defines.items():
        values = list(value) if isinstance(value, list | tuple) else [value]
        if not values:
            raise ValueError(f"define '{name}' has an empty list of values")
        choices[name] = values
    combos = itertools.product(*choices.values())
    return [dict(zip(choices, combo, strict=True)) for combo in combos]


def parse_define(text: str) -> tuple[str, DefineValue | list[DefineValue]]:
    """A command-line define: `NAME` (1), `NAME=VALUE`, or `NAME=[V1,V2,...]` (a list of
    candidates). Integer values become ints, so that a grid function can compute with
    them."""
    name, _, value = text.partition("=")
    if not name.isidentifier():
        raise ValueError(f"-D{text}: '{name}' is not a macro name")
    if not _:
        return name, 1
    if value.startswith("[") and value.endswith("]"):
        return name, [_meta_value(v.strip()) for v in value[1:-1].split(",") if v.strip()]
    return name, _meta_value(value)


def _meta_value(text: str) -> DefineValue:
    try:
        return int(text, 0)
    except ValueError:
        return text


def _define_text(name: str, value: DefineValue) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int | float | str):
        return repr(value) if isinstance(value, float) else str(value)
    raise TypeError(f"define '{name}' must be a str, int, float or bool, got {value!r}")


def _check_functions(functions: list[Function], end: Token) -> None:
    if not functions:
        raise error(end, "the file defines no kernel")
    seen: set[str] = set()
    for function in functions:
        if len(functions) > 1 and not function.is_global:
            raise error(function.token, "non-kernel functions are not supported: every "
                        "function must be a __global__ kernel (only the one function of a "
                        "file may omit __global__)")
        if function.name in seen:
            raise error(function.token, f"redefinition of kernel '{function.name}'")
        seen.add(function.name)


def _with_note(err: BlkcError, note: str) -> BlkcError:
    first = err.diagnostics[0]
    noted = Diagnostic(first.severity, first.message, first.location, [*first.notes, (None, note)])
    return BlkcError([noted, *err.diagnostics[1:]])
