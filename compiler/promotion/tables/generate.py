"""Generate blkc's reference tables of dtype promotion from the real array libraries.

This script is run BY HAND, in a scratch environment that has the libraries installed.
It is never imported or run by blkc's tests, which only read the JSON files it writes.

    python compiler/promotion/tables/generate.py LIBRARY [--out DIR]

LIBRARY is one of: numpy, jax, torch, array_api, triton. The script writes LIBRARY.json
into DIR (default: the folder holding this script). Each library is imported only when
its table is asked for, so the script can be read (and linted) without any of them.

Every cell records what the operation actually gave when it was run (``a + b`` on real
arrays, or, for Triton, the result type the real Triton front end gave while compiling a
small kernel to TTIR), not what a promotion function claims. A cell is either a blkc dtype
name or ``{"error": "<ExceptionType>: <first line of the message>"}``.

The checked-in tables were produced with CPython 3.11.7 and:
    numpy 2.4.6 + ml_dtypes 0.6.0          (numpy.json)
    jax 0.10.2 + jaxlib 0.10.2, CPU        (jax.json, jax_enable_x64=True)
    torch 2.13.0+cpu                       (torch.json)
    array-api-strict 2.6.1                 (array_api.json)
    triton 3.9.0                           (triton.json, TTIR for GPUTarget("cuda", 90, 32))
See README.md beside this file for the environment recipe and the schema.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import inspect
import io
import json
import os
import re
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

# blkc's dtype names, in blkc's canonical order. Tables list rows and columns in this order.
DTYPES: tuple[str, ...] = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "float8_e4m3fn",
    "float8_e5m2",
    "complex64",
    "complex128",
)

# Python scalars of the array_scalar / scalar_array sections, keyed by their repr.
SCALAR_VALUES: tuple[object, ...] = (
    True,
    False,
    0,
    1,
    -1,
    127,
    128,
    255,
    256,
    -128,
    -129,
    32767,
    32768,
    65535,
    65536,
    2147483647,
    2147483648,
    -2147483648,
    -2147483649,
    4294967295,
    4294967296,
    9223372036854775807,
    9223372036854775808,
    -9223372036854775808,
    18446744073709551615,
    18446744073709551616,
    2.5,
    -2.5,
    1e300,
    float("inf"),
    1j,
)
SCALARS: tuple[tuple[str, object], ...] = tuple((repr(v), v) for v in SCALAR_VALUES)

# Operands of the "rounding" section: (key, lhs, rhs, op) for int32 and float32 arrays.
ROUNDING_CASES: dict[str, tuple[tuple[str, int | float, int | float, str], ...]] = {
    "int32": (
        ("-7//2", -7, 2, "floordiv"),
        ("-7%2", -7, 2, "mod"),
        ("7//-2", 7, -2, "floordiv"),
        ("7%-2", 7, -2, "mod"),
    ),
    "float32": (
        ("-7.0//2.0", -7.0, 2.0, "floordiv"),
        ("-7.0%2.0", -7.0, 2.0, "mod"),
        ("7.0//-2.0", 7.0, -2.0, "floordiv"),
        ("7.0%-2.0", 7.0, -2.0, "mod"),
    ),
}

BINARY_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b,
    "truediv": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "sub": lambda a, b: a - b,
    "and": lambda a, b: a & b,
    "shl": lambda a, b: a << b,
    "lt": lambda a, b: a < b,
}

# Ops of the "unary" section, in order. neg and invert are the operators -x and ~x; the
# others are functions of the library's namespace (np.exp, jnp.exp, torch.exp, xp.exp, tl.exp).
UNARY_OPS: tuple[str, ...] = ("exp", "sqrt", "sin", "floor", "abs", "neg", "invert")
UNARY_OPERATORS: dict[str, Callable[[Any], Any]] = {
    "neg": lambda a: -a,
    "invert": lambda a: ~a,
}

# Ops of the "bitwise" section: its keys and the BINARY_OPS they use.
BITWISE_OPS: tuple[str, ...] = ("and", "shl")

# Side of the square 2-d operands of the "dot" section (16 x 16).
DOT_SIZE = 16
# Side of Triton's dot_acc operands: on sm_90, int8 and float8 tl.dot need K >= 32.
DOT_ACC_SIZE = 32

Cell = str | dict[str, str]
Table = dict[str, dict[str, Cell]]

HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------------------
# Helpers shared by every library
# ---------------------------------------------------------------------------


def error_cell(exc: BaseException) -> dict[str, str]:
    """An error cell: exception type and the first non-empty line of its message."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return {"error": f"{type(exc).__name__}: {lines[0] if lines else ''}"}


def try_cell(fn: Callable[[], str]) -> Cell:
    """Run ``fn`` and turn an exception into an error cell."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - every refusal is data here
        return error_cell(exc)


def grid(rows: Iterable[str], cols: Iterable[Any], fn: Callable[[str, Any], str]) -> Table:
    """A two-level table {row: {col_key: cell}}; ``cols`` holds keys or (key, value) pairs."""
    cols = list(cols)
    table: Table = {}
    for row in rows:
        cells: dict[str, Cell] = {}
        for col in cols:
            key, value = col if isinstance(col, tuple) else (col, col)
            cells[key] = try_cell(lambda row=row, value=value: fn(row, value))
        table[row] = cells
    return table


class ArrayLibrary:
    """What the generic table builder needs from an eager array library."""

    name: str = ""
    dtypes: dict[str, Any]
    # Namespace of the library's functions (exp, sqrt, sin, floor, abs, where, minimum, matmul).
    ns: Any

    def function(self, op: str) -> Callable[..., Any]:
        """The library's own function named ``op`` (e.g. ``np.exp`` for "exp")."""
        return getattr(self.ns, op)

    def max_reduce(self, arr: Any) -> Any:
        return self.ns.max(arr)

    def cumsum(self, arr: Any) -> Any:
        return self.ns.cumsum(arr)

    def versions(self) -> tuple[str, dict[str, str]]:
        raise NotImplementedError

    def array(self, dtype: str, shape: tuple[int, ...] = (2,)) -> Any:
        """An array of ones of the given blkc dtype."""
        raise NotImplementedError

    def full(self, dtype: str, value: int | float) -> Any:
        """A 1-d array of shape (1,) holding ``value``."""
        raise NotImplementedError

    def dtype_name(self, result: Any) -> str:
        """blkc name of the dtype of an array result."""
        raise NotImplementedError

    def promote(self, lhs: str, rhs: str) -> str:
        raise NotImplementedError

    def sum(self, arr: Any) -> Any:
        raise NotImplementedError

    def value(self, arr: Any) -> int | float:
        """First element of a 1-d result as a Python number."""
        raise NotImplementedError

    def extra_sections(self) -> dict[str, Any]:
        return {}

    def notes(self) -> list[str]:
        return []


# Notes on the sections after "sum", shared by the eager array libraries.
ARRAY_SECTION_NOTES: tuple[str, ...] = (
    "truediv covers every pair of dtypes (a / b on 1-d arrays).",
    "unary[op][dtype]: dtype of the library's exp, sqrt, sin, floor and abs functions and of "
    "the operators -a (neg) and ~a (invert) on a 1-d array.",
    "bitwise: a & b (and) and a << b (shl); compare: a < b; sub_bool: bool array - bool "
    "array; all on 1-d arrays.",
    "where[lhs][rhs]: where(cond, a, b) with cond a 1-d bool array, a of lhs and b of rhs; "
    "minimum[lhs][rhs]: the library's minimum(a, b).",
    "max_reduce and cumsum: the library's max reduction (np.max, jnp.max, torch.amax, xp.max) "
    "and cumulative sum (np.cumsum, jnp.cumsum, torch.cumsum with dim=0, which has no default, "
    "xp.cumulative_sum) of a 1-d array, otherwise with default arguments.",
    f"dot[lhs][rhs]: matmul(a, b) of two 2-d arrays of shape ({DOT_SIZE}, {DOT_SIZE}).",
)


def build_array_tables(lib: ArrayLibrary) -> dict[str, Any]:
    names = [d for d in DTYPES if d in lib.dtypes]

    def binop(op: str, lhs: Any, rhs: Any) -> str:
        return lib.dtype_name(BINARY_OPS[op](lhs, rhs))

    def call(op: str, *args: Any) -> str:
        return lib.dtype_name(lib.function(op)(*args))

    def unary(op: str, dtype: str) -> str:
        arr = lib.array(dtype)
        if op in UNARY_OPERATORS:
            return lib.dtype_name(UNARY_OPERATORS[op](arr))
        return call(op, arr)

    def per_dtype(fn: Callable[[str], str]) -> dict[str, Cell]:
        return {d: try_cell(lambda d=d: fn(d)) for d in names}

    def call_table(op: str, shape: tuple[int, ...] = (2,), cond: bool = False) -> Table:
        """{lhs: {rhs: cell}} of the library function ``op`` on two arrays (after a condition)."""
        head = (lib.array("bool"),) if cond else ()
        return grid(
            names,
            names,
            lambda lhs, rhs: call(op, *head, lib.array(lhs, shape), lib.array(rhs, shape)),
        )

    def pair_table(op: str, rows: list[str], zero_d_rhs: bool = False) -> Table:
        rhs_shape: tuple[int, ...] = () if zero_d_rhs else (2,)
        return grid(
            rows,
            rows,
            lambda lhs, rhs: binop(op, lib.array(lhs), lib.array(rhs, rhs_shape)),
        )

    def rounding() -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for dtype, cases in ROUNDING_CASES.items():
            row: dict[str, Any] = {}
            for key, x, y, op in cases:
                row[key] = try_cell(
                    lambda x=x, y=y, op=op, dtype=dtype: lib.value(
                        BINARY_OPS[op](lib.full(dtype, x), lib.full(dtype, y))
                    )
                )
            out[dtype] = row
        return out

    version, extra_versions = lib.versions()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tables: dict[str, Any] = {
            "library": lib.name,
            "version": version,
            "extra_versions": extra_versions,
            "generated_by": f"python compiler/promotion/tables/generate.py {lib.name}",
            "notes": [
                "Arrays are 1-d of shape (2,) filled with ones (0-d arrays: shape ()), so no "
                "cell is produced by an overflowing value; division by zero never happens.",
                "array_array/zero_dim/truediv/floordiv/mod cells are the dtype of the result of "
                "the Python operator (a + b, a / b, a // b, a % b) actually evaluated.",
                "Scalar keys are repr() of the Python scalar (so 1e300 is '1e+300').",
                *lib.notes(),
                *ARRAY_SECTION_NOTES,
            ],
            "dtypes": names,
            "array_array": pair_table("add", names),
            "promote_types": grid(names, names, lib.promote),
            "array_scalar": grid(names, SCALARS, lambda d, s: binop("add", lib.array(d), s)),
            "scalar_array": grid(names, SCALARS, lambda d, s: binop("add", s, lib.array(d))),
            "zero_dim": pair_table("add", names, zero_d_rhs=True),
            "truediv": pair_table("truediv", names),
            "floordiv": pair_table("floordiv", names),
            "mod": pair_table("mod", names),
            "rounding": rounding(),
            "sum": {d: try_cell(lambda d=d: lib.dtype_name(lib.sum(lib.array(d)))) for d in names},
            "unary": {op: per_dtype(lambda d, op=op: unary(op, d)) for op in UNARY_OPS},
            "bitwise": {op: pair_table(op, names) for op in BITWISE_OPS},
            "compare": pair_table("lt", names),
            "where": call_table("where", cond=True),
            "sub_bool": try_cell(lambda: binop("sub", lib.array("bool"), lib.array("bool"))),
            "minimum": call_table("minimum"),
            "max_reduce": per_dtype(lambda d: lib.dtype_name(lib.max_reduce(lib.array(d)))),
            "cumsum": per_dtype(lambda d: lib.dtype_name(lib.cumsum(lib.array(d)))),
            "dot": call_table("matmul", shape=(DOT_SIZE, DOT_SIZE)),
        }
        tables.update(lib.extra_sections())
    return tables


# ---------------------------------------------------------------------------
# numpy (+ ml_dtypes for bfloat16 and float8)
# ---------------------------------------------------------------------------


class NumpyLibrary(ArrayLibrary):
    name = "numpy"

    def __init__(self) -> None:
        import ml_dtypes
        import numpy as np

        self.np = np
        self.ns = np
        self.ml_dtypes = ml_dtypes
        self.dtypes = {}
        for d in DTYPES:
            if hasattr(ml_dtypes, d) and d in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
                self.dtypes[d] = np.dtype(getattr(ml_dtypes, d))
            else:
                self.dtypes[d] = np.dtype(d)

    def versions(self) -> tuple[str, dict[str, str]]:
        return self.np.__version__, {"ml_dtypes": self.ml_dtypes.__version__}

    def array(self, dtype: str, shape: tuple[int, ...] = (2,)) -> Any:
        return self.np.ones(shape, dtype=self.dtypes[dtype])

    def full(self, dtype: str, value: int | float) -> Any:
        return self.np.full((1,), value, dtype=self.dtypes[dtype])

    def dtype_name(self, result: Any) -> str:
        return str(result.dtype.name)

    def promote(self, lhs: str, rhs: str) -> str:
        return str(self.np.promote_types(self.dtypes[lhs], self.dtypes[rhs]).name)

    def sum(self, arr: Any) -> Any:
        return self.np.sum(arr)

    def value(self, arr: Any) -> int | float:
        return arr.tolist()[0]

    def notes(self) -> list[str]:
        return [
            "bfloat16, float8_e4m3fn and float8_e5m2 are the ml_dtypes extension types.",
            "promote_types is numpy.promote_types. The 0-d operand of zero_dim is np.ones((), "
            "dtype); under NEP 50 (numpy 2) it promotes like any array.",
            "sum is the dtype of np.sum(a), a NumPy scalar.",
            "Warnings (overflow in casts, invalid values) were silenced; they do not change "
            "the result dtype.",
        ]


# ---------------------------------------------------------------------------
# jax
# ---------------------------------------------------------------------------


class JaxLibrary(ArrayLibrary):
    name = "jax"

    def __init__(self) -> None:
        import jax

        # Must happen before any array exists.
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_platforms", "cpu")
        import jax.numpy as jnp
        import numpy as np

        self.jax = jax
        self.jnp = jnp
        self.ns = jnp
        self.np = np
        self.dtypes = {d: np.dtype(getattr(jnp, "bool_" if d == "bool" else d)) for d in DTYPES}

    def versions(self) -> tuple[str, dict[str, str]]:
        import jaxlib
        import ml_dtypes

        return self.jax.__version__, {
            "jaxlib": jaxlib.__version__,
            "ml_dtypes": ml_dtypes.__version__,
            "numpy": self.np.__version__,
        }

    def array(self, dtype: str, shape: tuple[int, ...] = (2,)) -> Any:
        return self.jnp.ones(shape, dtype=self.dtypes[dtype])

    def full(self, dtype: str, value: int | float) -> Any:
        return self.jnp.full((1,), value, dtype=self.dtypes[dtype])

    def dtype_name(self, result: Any) -> str:
        return str(result.dtype.name)

    def promote(self, lhs: str, rhs: str) -> str:
        return str(self.np.dtype(self.jnp.promote_types(self.dtypes[lhs], self.dtypes[rhs])).name)

    def sum(self, arr: Any) -> Any:
        return self.jnp.sum(arr)

    def value(self, arr: Any) -> int | float:
        return self.np.asarray(arr).tolist()[0]

    def notes(self) -> list[str]:
        return [
            'jax.config.update("jax_enable_x64", True) was set before any array was made; CPU.',
            "promote_types is jnp.promote_types. The 0-d operand of zero_dim is "
            "jnp.ones((), dtype), a committed (not weakly typed) array.",
            "Python scalars enter as weakly typed values; the cells record the dtype of the "
            "result only (its weak_type flag is not recorded; it is False whenever an array "
            "operand is present).",
        ]


# ---------------------------------------------------------------------------
# torch
# ---------------------------------------------------------------------------


class TorchLibrary(ArrayLibrary):
    name = "torch"

    def __init__(self) -> None:
        import torch

        self.torch = torch
        self.ns = torch
        self.dtypes = {d: getattr(torch, d) for d in DTYPES if hasattr(torch, d)}

    def versions(self) -> tuple[str, dict[str, str]]:
        extra: dict[str, str] = {}
        with contextlib.suppress(ImportError):
            import numpy

            extra["numpy"] = numpy.__version__
        return str(self.torch.__version__), extra

    def array(self, dtype: str, shape: tuple[int, ...] = (2,)) -> Any:
        return self.torch.ones(shape, dtype=self.dtypes[dtype])

    def full(self, dtype: str, value: int | float) -> Any:
        return self.torch.full((1,), value, dtype=self.dtypes[dtype])

    def dtype_name(self, result: Any) -> str:
        return str(result.dtype).removeprefix("torch.")

    def promote(self, lhs: str, rhs: str) -> str:
        return str(self.torch.promote_types(self.dtypes[lhs], self.dtypes[rhs])).removeprefix(
            "torch."
        )

    def sum(self, arr: Any) -> Any:
        return self.torch.sum(arr)

    def max_reduce(self, arr: Any) -> Any:
        return self.torch.amax(arr)

    def cumsum(self, arr: Any) -> Any:
        return self.torch.cumsum(arr, dim=0)  # torch.cumsum has no default dim

    def value(self, arr: Any) -> int | float:
        return arr.tolist()[0]

    def extra_sections(self) -> dict[str, Any]:
        return {"default_dtype": str(self.torch.get_default_dtype())}

    def notes(self) -> list[str]:
        return [
            "CPU tensors. Where the CPU add kernel is missing for the computation dtype (e.g. "
            "uint16/uint32/uint64, float8), the cell is the NotImplementedError torch raised.",
            "default_dtype (extra section) is str(torch.get_default_dtype()).",
            "A result dtype outside blkc's list is recorded under torch's own name (float16 + "
            "1j gives complex32).",
            "promote_types is torch.promote_types. zero_dim: the 0-d operand is "
            "torch.ones((), dtype); torch's category rule lets a 0-d tensor of a higher "
            "category (bool < integer < floating < complex) take part in promotion only then.",
            "sum is the dtype of torch.sum(a) with default arguments on CPU.",
        ]


# ---------------------------------------------------------------------------
# array-api-strict
# ---------------------------------------------------------------------------


class ArrayApiLibrary(ArrayLibrary):
    name = "array_api"

    def __init__(self) -> None:
        import array_api_strict as xp

        self.xp = xp
        self.ns = xp
        self.dtypes = {d: getattr(xp, d) for d in DTYPES if hasattr(xp, d)}

    def versions(self) -> tuple[str, dict[str, str]]:
        import numpy

        flags = self.xp.get_array_api_strict_flags()
        return self.xp.__version__, {
            "numpy": numpy.__version__,
            "array_api_version": str(flags["api_version"]),
        }

    def array(self, dtype: str, shape: tuple[int, ...] = (2,)) -> Any:
        return self.xp.ones(shape, dtype=self.dtypes[dtype])

    def full(self, dtype: str, value: int | float) -> Any:
        return self.xp.full((1,), value, dtype=self.dtypes[dtype])

    def dtype_name(self, result: Any) -> str:
        return str(result.dtype).removeprefix("array_api_strict.")

    def promote(self, lhs: str, rhs: str) -> str:
        result = self.xp.result_type(self.dtypes[lhs], self.dtypes[rhs])
        return str(result).removeprefix("array_api_strict.")

    def sum(self, arr: Any) -> Any:
        return self.xp.sum(arr)

    def cumsum(self, arr: Any) -> Any:
        return self.xp.cumulative_sum(arr)

    def value(self, arr: Any) -> int | float:
        return self.xp.asarray(arr)._array.tolist()[0]

    def notes(self) -> list[str]:
        return [
            "Uses the array_api_strict namespace (xp.ones, xp.full, xp.result_type, xp.sum) "
            "with its default flags; the standard version it enforces is in extra_versions.",
            "array-api-strict has no float16, bfloat16 or float8 dtypes; they are left out.",
            "promote_types is xp.result_type on two dtypes.",
        ]


# ---------------------------------------------------------------------------
# triton
# ---------------------------------------------------------------------------

TRITON_DTYPES: dict[str, str] = {
    # blkc name -> Triton signature name (pointer element type)
    "bool": "i1",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float16": "fp16",
    "bfloat16": "bf16",
    "float32": "fp32",
    "float64": "fp64",
    "float8_e4m3fn": "fp8e4nv",
    "float8_e5m2": "fp8e5",
}

# str(tl.dtype) -> blkc name
TRITON_RESULT_NAMES: dict[str, str] = {
    "int1": "bool",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "fp16": "float16",
    "bf16": "bfloat16",
    "fp32": "float32",
    "fp64": "float64",
    "fp8e4nv": "float8_e4m3fn",
    "fp8e5": "float8_e5m2",
}

TRITON_OPS: dict[str, str] = {"add": "+", "truediv": "/", "floordiv": "//", "mod": "%"}

# Expressions of the sections after "sum", over tensors a and b (and the bool tensor c for
# where); every operand is a tensor from tl.load, no Python literal takes part.
TRITON_PAIR_EXPRS: dict[str, str] = {
    "and": "a & b",
    "shl": "a << b",
    "lt": "a < b",
    "sub": "a - b",
    "where": "tl.where(c, a, b)",
    "minimum": "tl.minimum(a, b)",
}
TRITON_UNARY_EXPRS: dict[str, str] = {
    "exp": "tl.exp(a)",
    "sqrt": "tl.sqrt(a)",
    "sin": "tl.sin(a)",
    "floor": "tl.floor(a)",
    "abs": "tl.abs(a)",
    "neg": "-a",
    "invert": "~a",
}
assert tuple(TRITON_UNARY_EXPRS) == UNARY_OPS
TRITON_REDUCE_EXPRS: dict[str, str] = {"max_reduce": "tl.max(a)", "cumsum": "tl.cumsum(a)"}
# tl.dot variants over 2-d tensors a, b and a third 2-d tensor c (the accumulator).
TRITON_DOT_EXPRS: dict[str, str] = {
    "default": "tl.dot(a, b)",
    "out_fp16": "tl.dot(a, b, out_dtype=tl.float16)",
    "acc": "tl.dot(a, b, c)",
}
# Columns of dot_acc: (key, kernel of TRITON_DOT_EXPRS, dtype of the accumulator c).
TRITON_DOT_ACC_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("default", "default", "float32"),
    ("out_dtype=float16", "out_fp16", "float32"),
    ("acc=float16", "acc", "float16"),
    ("acc=float32", "acc", "float32"),
    ("acc=int32", "acc", "int32"),
)

_TRITON_HEADER = '''"""Temporary kernels written by blkc's compiler/promotion/tables/generate.py."""
import triton
import triton.language as tl

'''


def _triton_literal(value: object) -> str:
    if isinstance(value, float) and value == float("inf"):
        return 'float("inf")'
    return repr(value)


def _triton_kernel_source() -> str:
    """Source text of every kernel used for the Triton table, and the scalar kernel names.

    Tensor operands come from ``tl.load`` of a pointer whose element type is set in the
    signature; Python scalars appear as literals in the kernel text, exactly as a user
    would write them. Each kernel reports the result dtype with ``tl.static_print``.
    """
    parts = [_TRITON_HEADER]
    for op, sym in TRITON_OPS.items():
        parts.append(
            f"""
@triton.jit
def tensor_tensor_{op}(a_ptr, b_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.static_print("RESULT", (a {sym} b).dtype)


@triton.jit
def tensor_scalar_{op}(a_ptr, b_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr)
    tl.static_print("RESULT", (a {sym} b).dtype)


@triton.jit
def ops_{op}(a_ptr, b_ptr, o_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(o_ptr + offs, a {sym} b)


@triton.jit
def fold_{op}(o_ptr, X: tl.constexpr, Y: tl.constexpr, DT: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.full([16], X, DT)
    b = tl.full([16], Y, DT)
    tl.store(o_ptr + offs, a {sym} b)
"""
        )
    parts.append(
        """
@triton.jit
def reduce_sum(a_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    tl.static_print("RESULT", tl.sum(a).dtype)
"""
    )
    for op, expr in TRITON_PAIR_EXPRS.items():
        parts.append(
            f"""
@triton.jit
def pair_{op}(a_ptr, b_ptr, c_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    c = tl.load(c_ptr + offs)
    tl.static_print("RESULT", ({expr}).dtype)
"""
        )
    for op, expr in (*TRITON_UNARY_EXPRS.items(), *TRITON_REDUCE_EXPRS.items()):
        parts.append(
            f"""
@triton.jit
def one_{op}(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16))
    tl.static_print("RESULT", ({expr}).dtype)
"""
        )
    for name, expr in TRITON_DOT_EXPRS.items():
        parts.append(
            f"""
@triton.jit
def dot_{name}(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    idx = offs[:, None] * N + offs[None, :]
    a = tl.load(a_ptr + idx)
    b = tl.load(b_ptr + idx)
    c = tl.load(c_ptr + idx)
    tl.static_print("RESULT", ({expr}).dtype)
"""
        )
    for x, y, sym, name in (
        (-7, 2, "//", "a"),
        (-7, 2, "%", "b"),
        (7, -2, "//", "c"),
        (7, -2, "%", "d"),
    ):
        parts.append(
            f"""
@triton.jit
def literal_{name}(o_ptr):
    tl.store(o_ptr, {x} {sym} {y})
"""
        )
    for i, (_, value) in enumerate(SCALARS):
        lit = _triton_literal(value)
        parts.append(
            f"""
@triton.jit
def tensor_literal_{i}(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16))
    tl.static_print("RESULT", (a + {lit}).dtype)


@triton.jit
def literal_tensor_{i}(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16))
    tl.static_print("RESULT", ({lit} + a).dtype)
"""
        )
    return "".join(parts)


class TritonFrontEnd:
    """Drives Triton's real code generator (AST -> TTIR) for a CUDA target, on the CPU."""

    def __init__(self, module_dir: Path) -> None:
        import triton
        from triton._C.libtriton import ir
        from triton.backends.compiler import GPUTarget
        from triton.compiler.compiler import ASTSource, make_backend

        self.triton = triton
        self.ir = ir
        self.ASTSource = ASTSource
        self.target = GPUTarget("cuda", 90, 32)
        self.backend = make_backend(self.target)
        self.options = self.backend.parse_options({})
        source = _triton_kernel_source()
        path = module_dir / "blkc_promotion_kernels.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location("blkc_promotion_kernels", path)
        assert spec is not None and spec.loader is not None
        self.kernels = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = self.kernels
        spec.loader.exec_module(self.kernels)

    def make_ir(
        self,
        kernel: str,
        signature: dict[str, str],
        constexprs: dict[str, Any] | None = None,
        fold: bool = False,
    ) -> tuple[str, str]:
        """Compile ``kernel`` to TTIR; returns (compile-time stdout, TTIR text)."""
        fn = getattr(self.kernels, kernel)
        src = self.ASTSource(fn=fn, signature=signature, constexprs=constexprs)
        context = self.ir.context()
        self.ir.load_dialects(context)
        self.backend.load_dialects(context)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                module = src.make_ir(
                    self.target,
                    self.options,
                    self.backend.get_codegen_implementation(self.options),
                    self.backend.get_module_map(),
                    context,
                )
        except Exception as exc:
            raise _triton_cause(exc) from None
        if fold:
            # The backend's own TTIR stage (inliner, canonicalizer, combine, CSE): runs on CPU.
            module = self.backend.make_ttir(module, {}, self.options, self.target.arch)
        return out.getvalue(), str(module)

    def result(
        self, kernel: str, signature: dict[str, str], constexprs: dict[str, Any] | None = None
    ) -> str:
        printed, _ = self.make_ir(kernel, signature, constexprs)
        results = [line.split()[1] for line in printed.splitlines() if line.startswith("RESULT ")]
        if len(results) != 1:
            raise RuntimeError(f"expected one RESULT line, got {printed!r}")
        return TRITON_RESULT_NAMES.get(results[0], f"triton:{results[0]}")


def _triton_cause(exc: Exception) -> Exception:
    """The exception the front end raised inside a CompilationError, else the error itself."""
    cause = exc.__cause__
    if cause is not None and type(exc).__name__ == "CompilationError":
        return cause if isinstance(cause, Exception) else exc
    if type(exc).__name__ == "CompilationError":
        # No underlying exception: the message is "at L:C:\n<source>\n<reason>".
        lines = [line for line in str(exc).splitlines() if line.strip()]
        return RuntimeError(lines[-1] if lines else "")
    return exc


def _ptr(dtype: str) -> str:
    return "*" + TRITON_DTYPES[dtype]


_STORE_RE = re.compile(r"tt\.store %\S+, (%\S+)")


def _folded_store_value(ttir: str) -> int | float:
    """The constant that the folded kernel stores."""
    stores = _STORE_RE.findall(ttir)
    if len(stores) != 1:
        raise RuntimeError("expected one tt.store in folded TTIR")
    const = re.search(re.escape(stores[0]) + r" = arith\.constant (?:dense<)?([^>: ]+)>? : ", ttir)
    if const is None:
        raise RuntimeError(f"stored value {stores[0]} did not fold to a constant")
    text = const.group(1)
    return float(text) if any(c in text for c in ".eEn") else int(text)


# MLIR element type -> blkc name (unsigned integers are signless in TTIR, so i8 is int8).
_MLIR_NAMES: dict[str, str] = {
    "i1": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "f8E4M3FN": "float8_e4m3fn",
    "f8E5M2": "float8_e5m2",
}
_DOT_RE = re.compile(r"= tt\.dot .* -> tensor<(?:\d+x)+(\w+)>")


def _ttir_dot_result(ttir: str) -> str:
    """blkc name of the element type of the single tt.dot result in the TTIR."""
    found = _DOT_RE.findall(ttir)
    if len(found) != 1:
        raise RuntimeError("expected one tt.dot in TTIR")
    return _MLIR_NAMES.get(found[0], f"mlir:{found[0]}")


def _ttir_ops(ttir: str) -> list[str]:
    """The arith ops of the final tt.store's operand chain (op names only, in order)."""
    return re.findall(r"= (arith\.\w+)", ttir)


# Documented rules (/work/shared/spec/000-triton-semantics.md, Triton's semantics page).
_KIND = {d: 0 if d == "bool" else 1 if d.startswith(("int", "uint")) else 2 for d in TRITON_DTYPES}
_WIDTH = {
    "bool": 1,
    "int8": 8,
    "int16": 16,
    "int32": 32,
    "int64": 64,
    "uint8": 8,
    "uint16": 16,
    "uint32": 32,
    "uint64": 64,
    "float16": 16,
    "bfloat16": 16,
    "float32": 32,
    "float64": 64,
    "float8_e4m3fn": 8,
    "float8_e5m2": 8,
}


def documented_triton(lhs: str, rhs: str) -> str:
    """Result dtype of a tensor-tensor binary op by Triton's documented promotion rules."""
    if lhs == rhs:
        return lhs
    if _KIND[lhs] != _KIND[rhs]:  # 1. kind: bool < integral < floating
        return lhs if _KIND[lhs] > _KIND[rhs] else rhs
    if _WIDTH[lhs] != _WIDTH[rhs]:  # 2. width
        return lhs if _WIDTH[lhs] > _WIDTH[rhs] else rhs
    if _KIND[lhs] == 2:  # 3. supremum (floats of one width); 3.1 two fp8 types -> float16
        return "float16" if _WIDTH[lhs] == 8 else "float32"
    return lhs if lhs.startswith("uint") else rhs  # 4. prefer unsigned


def documented_triton_scalar(tensor: str, scalar: object) -> str | None:
    """Documented result of tensor (op) Python scalar; None where the page gives no answer."""
    if isinstance(scalar, bool):
        kind = 0
    elif isinstance(scalar, int):
        kind = 1
    elif isinstance(scalar, float):
        kind = 2
    else:
        return None  # complex scalars: not covered by the page
    if kind <= _KIND[tensor]:  # 1. a scalar of lower or equal kind does not participate
        return tensor
    if kind == 1:  # 2. lowest of int32 < uint32 < int64 < uint64 that holds it
        assert isinstance(scalar, int)
        for name, lo, hi in (
            ("int32", -(2**31), 2**31 - 1),
            ("uint32", 0, 2**32 - 1),
            ("int64", -(2**63), 2**63 - 1),
            ("uint64", 0, 2**64 - 1),
        ):
            if lo <= scalar <= hi:
                return name
        return None
    assert isinstance(scalar, float)
    if scalar != scalar or abs(scalar) == float("inf") or abs(scalar) <= 3.4028234663852886e38:
        return "float32"
    return "float64"


def build_triton() -> dict[str, Any]:
    import triton
    import triton.language as tl

    names = list(TRITON_DTYPES)
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fe = TritonFrontEnd(Path(tmp))

        def pair(kernel: str, rows: list[str]) -> Table:
            return grid(
                rows,
                rows,
                lambda lhs, rhs: fe.result(kernel, {"a_ptr": _ptr(lhs), "b_ptr": _ptr(rhs)}),
            )

        def three(kernel: str, lhs: str, rhs: str, third: str = "bool") -> str:
            """Result of a kernel over a_ptr, b_ptr and c_ptr (c: the condition/accumulator)."""
            signature = {"a_ptr": _ptr(lhs), "b_ptr": _ptr(rhs), "c_ptr": _ptr(third)}
            return fe.result(kernel, signature)

        def dot(kernel: str, lhs: str, rhs: str, acc: str, size: int, ttir: bool = False) -> str:
            """dtype of tl.dot: the tl.tensor's (static_print), or the tt.dot result in TTIR."""
            signature = {
                "a_ptr": _ptr(lhs),
                "b_ptr": _ptr(rhs),
                "c_ptr": _ptr(acc),
                "N": "constexpr",
            }
            if not ttir:
                return fe.result(kernel, signature, {"N": size})
            _, module = fe.make_ir(kernel, signature, {"N": size})
            return _ttir_dot_result(module)

        def dot_acc(ttir: bool) -> Table:
            """{dtype: {column: cell}}: tl.dot variants on two tensors of the same dtype."""
            cols = [(key, (kernel, acc)) for key, kernel, acc in TRITON_DOT_ACC_COLUMNS]
            return grid(
                names,
                cols,
                lambda d, col: dot(f"dot_{col[0]}", d, d, col[1], DOT_ACC_SIZE, ttir),
            )

        def pair3(kernel: str) -> Table:
            return grid(names, names, lambda lhs, rhs: three(kernel, lhs, rhs))

        def one(op: str) -> dict[str, Cell]:
            return {
                d: try_cell(lambda d=d: fe.result(f"one_{op}", {"a_ptr": _ptr(d)})) for d in names
            }

        def scalar_table(prefix: str) -> Table:
            table: Table = {}
            for d in names:
                table[d] = {
                    key: try_cell(lambda d=d, i=i: fe.result(f"{prefix}_{i}", {"a_ptr": _ptr(d)}))
                    for i, (key, _) in enumerate(SCALARS)
                }
            return table

        def fold(op: str, dtype: str, x: int | float, y: int | float) -> int | float:
            dt = {"int32": tl.int32, "float32": tl.float32}[dtype]
            _, ttir = fe.make_ir(
                f"fold_{op}",
                {"o_ptr": _ptr(dtype), "X": "constexpr", "Y": "constexpr", "DT": "constexpr"},
                {"X": x, "Y": y, "DT": dt},
                fold=True,
            )
            return _folded_store_value(ttir)

        def ops_used(op: str, dtype: str) -> str:
            _, ttir = fe.make_ir(
                f"ops_{op}", {"a_ptr": _ptr(dtype), "b_ptr": _ptr(dtype), "o_ptr": _ptr(dtype)}
            )
            return " ".join(_ttir_ops(ttir))

        def literal(name: str) -> int | float:
            _, ttir = fe.make_ir(f"literal_{name}", {"o_ptr": "*i32"}, fold=True)
            return _folded_store_value(ttir)

        start = time.perf_counter()
        tables: dict[str, Any] = {
            "library": "triton",
            "version": triton.__version__,
            "extra_versions": {},
            "generated_by": "python compiler/promotion/tables/generate.py triton",
            "notes": [],
            "dtypes": names,
            "array_array": pair("tensor_tensor_add", names),
            "array_scalar": scalar_table("tensor_literal"),
            "scalar_array": scalar_table("literal_tensor"),
            "tensor_scalar": pair("tensor_scalar_add", names),
            "truediv": pair("tensor_tensor_truediv", names),
            "floordiv": pair("tensor_tensor_floordiv", names),
            "mod": pair("tensor_tensor_mod", names),
            "rounding": {
                dtype: {
                    key: try_cell(lambda op=op, dtype=dtype, x=x, y=y: fold(op, dtype, x, y))
                    for key, x, y, op in cases
                }
                for dtype, cases in ROUNDING_CASES.items()
            },
            "rounding_ops": {
                dtype: {
                    f"tensor_{op}_op": try_cell(lambda op=op, dtype=dtype: ops_used(op, dtype))
                    for op in ("floordiv", "mod")
                }
                for dtype in ROUNDING_CASES
            },
            "rounding_literals": {
                key: try_cell(lambda name=name: literal(name))
                for key, name in (("-7//2", "a"), ("-7%2", "b"), ("7//-2", "c"), ("7%-2", "d"))
            },
            "sum": {
                d: try_cell(lambda d=d: fe.result("reduce_sum", {"a_ptr": _ptr(d)})) for d in names
            },
            "unary": {op: one(op) for op in UNARY_OPS},
            "bitwise": {op: pair3(f"pair_{op}") for op in BITWISE_OPS},
            "compare": pair3("pair_lt"),
            "where": pair3("pair_where"),
            "sub_bool": try_cell(lambda: three("pair_sub", "bool", "bool")),
            "minimum": pair3("pair_minimum"),
            "max_reduce": one("max_reduce"),
            "cumsum": one("cumsum"),
            "dot": grid(
                names,
                names,
                lambda lhs, rhs: dot("dot_default", lhs, rhs, "float32", DOT_SIZE),
            ),
            "dot_acc": dot_acc(ttir=False),
            "dot_acc_ttir": dot_acc(ttir=True),
            "dot_out_dtype_default": repr(
                inspect.signature(tl.dot).parameters["out_dtype"].default
            ),
        }
        elapsed = time.perf_counter() - start
    print(f"triton: front end driven in {elapsed:.1f}s", file=sys.stderr)

    tables["departures_from_documented"] = triton_departures(tables)
    uncovered = sum(documented_triton_scalar(d, v) is None for d in names for _, v in SCALARS)
    tables["notes"] = [
        "Every cell comes from Triton's real front end: a small @triton.jit kernel is turned "
        "into TTIR by triton.compiler.ASTSource.make_ir (the code generator and "
        "triton/language/semantic.py) for GPUTarget('cuda', 90, 32), on a machine without a "
        "GPU; the result dtype is read with tl.static_print, errors are the exception the "
        "front end raised (the cause inside CompilationError).",
        "Tensors are tl.load(p + tl.arange(0, 16)) from a pointer typed in the signature "
        "(*i1 for bool). array_scalar / scalar_array put the Python scalar in the kernel as a "
        'literal (a + 128, 128 + a; inf is written float("inf")), which Triton treats as a '
        "constexpr scalar.",
        "promote_types is omitted: Triton has no public promote_types/result_type function "
        "(the rules live in TritonSemantic.computation_type_impl).",
        "zero_dim is replaced by tensor_scalar: 1-d tensor of the row dtype + a 0-d "
        "non-constexpr scalar tl.load(b_ptr) of the column dtype. A loaded scalar is a "
        "tl.tensor, not a Python number, so it promotes exactly like a tensor.",
        "truediv covers every pair of dtypes; floordiv on floating dtypes is refused by the "
        "front end (semantic.floordiv accepts integers only).",
        "rounding: VALUES obtained by compiling a kernel over tl.full tensors of the operands "
        "and running the backend's own TTIR passes (canonicalizer) on the CPU, which fold "
        "arith.divsi / arith.remsi / arith.remf to constants; no GPU execution. "
        "rounding_ops (extra section): the arith ops the front end emits for tensor // and % "
        "on int32 and float32 tensors (conversions included, in order). rounding_literals "
        "(extra section): the stored value of an all-literal expression such as -7 // 2, "
        "which is evaluated as Python constexprs.",
        "sum is the dtype of tl.sum(a) with default arguments.",
        "departures_from_documented: every cell of array_array, array_scalar, scalar_array, "
        "tensor_scalar, floordiv and mod (op 'add', 'floordiv', 'mod') whose actual result "
        "differs from the rules in Triton's semantics page (Type Promotion section), computed "
        "by documented_triton / documented_triton_scalar in generate.py. tensor_scalar uses "
        "the tensor-tensor rules (the page's 'scalar' means a literal or constexpr). truediv "
        "is left out: the page does not say what / gives. Scalar cells the page does not "
        f"cover are skipped ({uncovered} cells per scalar section: 1j with every dtype, and "
        "2**64 with bool, the only case where an integer outside every 64-bit range meets a "
        "tensor of lower kind).",
        "The sections after sum use tensors only (no literal takes part): unary[op][dtype] is "
        "tl.exp, tl.sqrt, tl.sin, tl.floor, tl.abs, -a (neg) and ~a (invert) of a loaded 1-d "
        "tensor; bitwise is a & b (and) and a << b (shl); compare is a < b; where is "
        "tl.where(c, a, b) with c a loaded int1 tensor; sub_bool is a - b on two int1 tensors; "
        "minimum is tl.minimum(a, b); max_reduce and cumsum are tl.max(a) and tl.cumsum(a) "
        "with default arguments.",
        f"dot[lhs][rhs]: tl.dot(a, b) of two loaded {DOT_SIZE}x{DOT_SIZE} tensors with default "
        "arguments. On this target int8 and float8 operands need K >= 32, so those cells are "
        "the front end's shape assertion.",
        f"dot_acc[dtype]: tl.dot on two {DOT_ACC_SIZE}x{DOT_ACC_SIZE} tensors of the same dtype "
        "(large enough for every dtype): 'default' is tl.dot(a, b), 'out_dtype=float16' is "
        "tl.dot(a, b, out_dtype=tl.float16), 'acc=X' is tl.dot(a, b, c) with c a loaded tensor "
        "of dtype X. Cells are the dtype of the tl.tensor the front end returns "
        "(tl.static_print). dot_acc_ttir: for the same kernels, the element type of the tt.dot "
        "result in the TTIR, which is always the accumulator's type and can differ from "
        "dot_acc (e.g. float32 operands with a float16 accumulator). dot_out_dtype_default: "
        "repr() of the default of tl.dot's out_dtype parameter.",
    ]
    return tables


def triton_departures(tables: dict[str, Any]) -> list[dict[str, Any]]:
    names = tables["dtypes"]
    out: list[dict[str, Any]] = []

    def check(section: str, op: str, lhs: str, rhs: str, documented: str | None, actual: Cell):
        if documented is not None and actual != documented:
            out.append(
                {
                    "section": section,
                    "op": op,
                    "lhs": lhs,
                    "rhs": rhs,
                    "documented": documented,
                    "actual": actual,
                }
            )

    for section, op in (
        ("array_array", "add"),
        ("tensor_scalar", "add"),
        ("floordiv", "floordiv"),
        ("mod", "mod"),
    ):
        for lhs in names:
            for rhs in names:
                check(section, op, lhs, rhs, documented_triton(lhs, rhs), tables[section][lhs][rhs])
    values = dict(SCALARS)
    for d in names:
        for key in values:
            doc = documented_triton_scalar(d, values[key])
            check("array_scalar", "add", d, key, doc, tables["array_scalar"][d][key])
            check("scalar_array", "add", key, d, doc, tables["scalar_array"][d][key])
    return out


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


def dump(tables: dict[str, Any]) -> str:
    """JSON with one line per table row / list entry, keys in insertion (blkc) order."""

    def compact(value: Any) -> str:
        return json.dumps(value, ensure_ascii=True, separators=(", ", ": "))

    def is_table(value: Any) -> bool:
        """A dict of rows, each a dict that is not an error cell."""
        return (
            isinstance(value, dict)
            and bool(value)
            and all(isinstance(v, dict) and set(v) != {"error"} for v in value.values())
        )

    lines = ["{"]
    items = list(tables.items())
    for i, (key, value) in enumerate(items):
        tail = "," if i < len(items) - 1 else ""
        if is_table(value) and all(is_table(v) for v in value.values()):
            # A group of tables ("bitwise"): one line per row of each table.
            lines.append(f" {json.dumps(key)}: {{")
            groups = list(value.items())
            for j, (gkey, group) in enumerate(groups):
                gtail = "," if j < len(groups) - 1 else ""
                lines.append(f"  {json.dumps(gkey)}: {{")
                rows = list(group.items())
                for k, (rkey, row) in enumerate(rows):
                    rtail = "," if k < len(rows) - 1 else ""
                    lines.append(f"   {json.dumps(rkey)}: {compact(row)}{rtail}")
                lines.append(f"  }}{gtail}")
            lines.append(f" }}{tail}")
        elif isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            lines.append(f" {json.dumps(key)}: {{")
            rows = list(value.items())
            for j, (rkey, row) in enumerate(rows):
                rtail = "," if j < len(rows) - 1 else ""
                lines.append(f"  {json.dumps(rkey)}: {compact(row)}{rtail}")
            lines.append(f" }}{tail}")
        elif isinstance(value, list) and value and all(isinstance(v, (dict, str)) for v in value):
            lines.append(f" {json.dumps(key)}: [")
            for j, entry in enumerate(value):
                etail = "," if j < len(value) - 1 else ""
                lines.append(f"  {compact(entry)}{etail}")
            lines.append(f" ]{tail}")
        else:
            lines.append(f" {json.dumps(key)}: {compact(value)}{tail}")
    lines.append("}")
    return "\n".join(lines) + "\n"


BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "numpy": lambda: build_array_tables(NumpyLibrary()),
    "jax": lambda: build_array_tables(JaxLibrary()),
    "torch": lambda: build_array_tables(TorchLibrary()),
    "array_api": lambda: build_array_tables(ArrayApiLibrary()),
    "triton": build_triton,
}


def main(argv: list[str] | None = None) -> int:
    if argv is None and os.environ.get("PYTHONHASHSEED") != "0":
        # Some messages list the members of a set (jax names the dtypes of a failed
        # promotion); a fixed hash seed keeps their order, and so the files, reproducible.
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library", choices=sorted(BUILDERS))
    parser.add_argument("--out", type=Path, default=HERE, help="output folder")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    tables = BUILDERS[args.library]()
    text = dump(tables)
    json.loads(text)  # the writer must produce valid JSON
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{args.library}.json"
    path.write_text(text)
    elapsed = time.perf_counter() - start
    print(f"wrote {path} ({len(text)} bytes) in {elapsed:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
