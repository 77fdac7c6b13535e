"""Random Triton kernels, run by Triton 3.9's interpreter and by blkc, compared.

Issue 11 asks that random kernels agree with Triton under ``triton-compat``: the same
result dtype and the same values, NaN positions included, and the same refusals. This
script generates kernels as Python source text over the ``tl`` surface both support, runs
each in two processes and compares what they stored:

- Triton: ``TRITON_INTERPRET=1`` in a Python with triton and torch (``--triton-python``,
  else ``$BLKC_TRITON_PYTHON``), the arrays as torch CPU tensors;
- blkc: this file's Python with ``BLKC_POLICY=triton-compat``, the arrays as NumPy arrays.

The processes exchange inputs and results as ``.npz`` files in a work folder, one batch of
kernels a process. Each kernel prints its result's dtype (``tl.static_print``) and stores
the result into ``OUT``, whose dtype is the one Triton printed. How results compare:

- a refusal on one side only, or any error from blkc that is not a `BlkcError`, is a
  mismatch; refusals on both sides agree;
- the printed dtypes must be equal;
- integers and bools bit for bit; floats bit for bit where every op is correctly
  rounded (NaN positions equal, any NaN payload); values that went through a
  transcendental function or a float sum or cumsum (*inexact*) within a relative bound of
  a few hundred units of the dtype's precision, scaled by the largest value stored; the
  sign of a zero is free after a float maximum or minimum.

The generator keeps inexact values away from ops that would magnify a last-place
difference into a different answer (comparisons, ``floor``, casts to integers, ``//``,
``%``, ``argmax``).

Usage::

    python test/differential/triton_fuzz.py --count 200 --seed 1 [--report FILE]

writes, for each mismatch, its class, the kernel, its inputs and both results, with the
smallest prefix of the kernel's statements that still disagrees.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# bfloat16 is left out: Triton 3.9's interpreter cannot load or store it.
DTYPES = [
    "int1",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "fp16",
    "fp32",
    "fp64",
]
NUMPY = {
    "int1": np.bool_,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "fp16": np.float16,
    "fp32": np.float32,
    "fp64": np.float64,
}
TL_NAME = {
    "int1": "tl.int1",
    "fp16": "tl.float16",
    "fp32": "tl.float32",
    "fp64": "tl.float64",
} | {d: f"tl.{d}" for d in DTYPES if d[0] in "iu" and d != "int1"}
ROWS, COLS, LENGTH = 4, 8, 16
"""The block shapes: 2-D kernels are ROWS x COLS, 1-D ones LENGTH long."""
DTYPE_MARK = "@@dtype"


def width(dtype: str) -> int:
    return 1 if dtype == "int1" else int("".join(c for c in dtype if c.isdigit()))


def kind(dtype: str) -> str:
    """'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'L' int literal, 'F' float literal."""
    if dtype == "int1":
        return "b"
    return {"lit_int": "L", "lit_float": "F"}.get(dtype, dtype[0] if dtype[0] != "f" else "f")


# --------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------


def edge_values(dtype: str) -> list[Any]:
    """The values a kernel's inputs are most likely to get wrong, for `dtype`."""
    if dtype == "int1":
        return [False, True]
    if kind(dtype) in "iu":
        info = np.iinfo(NUMPY[dtype])
        return [0, 1, info.max, info.min, info.max - 1, 7, 2 ** (width(dtype) - 1) - 1] + (
            [-1, info.min + 1] if dtype[0] == "i" else []
        )
    info = np.finfo(NUMPY[dtype])
    tiny = float(info.smallest_subnormal)
    return [0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, tiny, -tiny, float(info.max)]


def random_array(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Random values of `dtype` in `shape`, about a third of them edge values."""
    size = int(np.prod(shape))
    np_dtype = NUMPY[dtype]
    if dtype == "int1":
        values = rng.integers(0, 2, size).astype(bool)
    elif kind(dtype) in "iu":
        info = np.iinfo(np_dtype)
        bits = rng.integers(0, 2**63, size, dtype=np.uint64)
        small = rng.integers(-20 if dtype[0] == "i" else 0, 20, size)
        wide = bits.view(np.int64).astype(np_dtype) if info.bits < 64 else bits.view(np_dtype)
        values = np.where(rng.random(size) < 0.5, small.astype(np_dtype), wide)
    else:
        scale = 10.0 ** rng.integers(-3, 4, size)
        values = (rng.standard_normal(size) * scale).astype(np_dtype)
    edges = np.array(edge_values(dtype), dtype=np_dtype)
    pick = rng.random(size) < 0.35
    values = np.where(pick, edges[rng.integers(0, len(edges), size)], values)
    return values.astype(np_dtype).reshape(shape)


# --------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------


@dataclass
class Value:
    """A kernel expression: its text, a guess at its dtype (Triton's promotion, roughly:
    the runs tell the real one), its shape, and whether a last-place difference may
    separate the two sides' values."""

    text: str
    dtype: str
    shape: tuple[int, ...]
    exact: bool = True

    @property
    def literal(self) -> bool:
        return self.dtype.startswith("lit_")


@dataclass
class Case:
    """One generated kernel and its launch: statements ``t0 = ...``, ``t1 = ...`` after
    the loads, the last one stored."""

    name: str
    params: str
    loads: list[str]
    statements: list[Value]
    arrays: dict[str, np.ndarray]
    scalars: list[tuple[str, Any]]

    @property
    def result(self) -> Value:
        return self.statements[-1]

    @property
    def inexact(self) -> bool:
        return not all(self.statements[i].exact for i in self.live())

    @property
    def extremum(self) -> bool:
        """Whether the result went through a float maximum or minimum, which may give
        either zero of ``-0.0`` and ``0.0`` (LLVM's maxnum, NumPy's fmax)."""
        names = ("tl.maximum", "tl.minimum", "tl.max(", "tl.min(")
        return any(name in self.statements[i].text for i in self.live() for name in names)

    @property
    def source(self) -> str:
        offsets, mask = store_offsets(self.result.shape)
        body = [
            f"rm = tl.arange(0, {ROWS})[:, None]",
            f"rn = tl.arange(0, {COLS})[None, :]",
            f"r1 = tl.arange(0, {LENGTH})",
            *self.loads,
            *(f"t{i} = {self.statements[i].text}" for i in self.live()),
            f"tl.static_print({DTYPE_MARK!r}, t{len(self.statements) - 1}.dtype)",
            f"tl.store(OUT{offsets}, t{len(self.statements) - 1}{mask})",
        ]
        lines = ["@triton.jit", f"def {self.name}({self.params}):"]
        return "\n".join(lines + ["    " + line for line in body]) + "\n"

    def live(self) -> list[int]:
        """The statements the result depends on, in order."""
        return live_statements([s.text for s in self.statements], r"\bt(\d+)\b")

    def prefixes(self) -> list[Case]:
        """The kernel cut after each of its statements, storing that statement's value:
        the candidates for a smaller reproducer, shortest first."""
        return [
            Case(
                f"{self.name}_{i}",
                self.params,
                self.loads,
                self.statements[: i + 1],
                self.arrays,
                self.scalars,
            )
            for i in range(len(self.statements) - 1)
            if not self.statements[i].literal
        ]


def live_statements(texts: list[str], names: str) -> list[int]:
    """The statements the last of `texts` depends on (itself included), in order: those
    whose number the regular expression `names` finds (its group) in a needed one."""
    needed = {len(texts) - 1}
    for i in range(len(texts) - 1, -1, -1):
        if i in needed:
            needed |= {int(t) for t in re.findall(names, texts[i])}
    return sorted(needed)


def broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    """The NumPy broadcast of two shapes, None if they do not broadcast."""
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


def promote(a: str, b: str) -> str:
    """A guess at Triton's result dtype of a binary op on `a` and `b`."""
    ka, kb = kind(a), kind(b)
    if ka in "LF":
        return promote(b, a) if kb not in "LF" else ("lit_float" if "F" in ka + kb else a)
    if kb == "L":
        return a
    if kb == "F":
        return a if ka == "f" else "fp32"
    if "f" in ka + kb:
        floats = [d for d in (a, b) if kind(d) == "f"]
        return max(floats, key=width) if len(floats) == 1 or a == b else _wider_float(a, b)
    if ka == "b":
        return b
    if kb == "b":
        return a
    if ka == kb:
        return max((a, b), key=width)
    unsigned, signed = (a, b) if ka == "u" else (b, a)
    return unsigned if width(unsigned) >= width(signed) else signed


def _wider_float(a: str, b: str) -> str:
    return "fp64" if "fp64" in (a, b) else "fp32"


class Generator:
    """Random kernels over the ``tl`` surface Triton's interpreter and blkc share."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.nrng = np.random.default_rng(seed)
        self.pool: list[Value] = []
        self.statements: list[Value] = []

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def literal(self, float_ok: bool = True) -> Value:
        if float_ok and self.chance(0.3):
            text = self.rng.choice(["0.5", "-2.0", "1e30", "0.0", "-0.0", "3.25", "1e-40"])
            return Value(text, "lit_float", ())
        text = self.rng.choice(["0", "1", "2", "-1", "3", "7", "127", "255", "-128", "65536"])
        return Value(text, "lit_int", ())

    def pick(
        self, shape: tuple[int, ...] | None = None, exact: bool = False, kinds: str = ""
    ) -> Value:
        """A value from the pool (or a literal) whose shape broadcasts with `shape`, exact
        if asked, mostly of `kinds` if given (sometimes not: refusals are tested too)."""
        choices = [
            v
            for v in self.pool
            if (shape is None or broadcast(v.shape, shape) is not None) and (v.exact or not exact)
        ]
        if kinds and self.chance(0.93):
            choices = [v for v in choices if kind(v.dtype) in kinds]
        if not choices or self.chance(0.12):
            return self.literal("F" in kinds or not kinds)
        temporaries = [v for v in choices if v.text.startswith("t")]
        if temporaries and self.chance(0.6):  # chains of ops, not only ops of the loads
            return self.rng.choice(temporaries[-2:])
        return self.rng.choice(choices)

    def block(self, shape: tuple[int, ...] | None, exact: bool) -> Value:
        """A value of the pool that is no literal (the loads always are there)."""
        choices = [
            v
            for v in self.pool
            if (shape is None or broadcast(v.shape, shape) is not None) and (v.exact or not exact)
        ]
        return self.rng.choice(choices or self.pool)

    def bind(self, value: Value) -> Value:
        """Assign `value` to a new temporary; the pool gets the temporary."""
        name = f"t{len(self.statements)}"
        self.statements.append(value)
        # Triton makes a number assigned to a name a scalar of its own dtype.
        dtype = {"lit_int": "int32", "lit_float": "fp32"}.get(value.dtype, value.dtype)
        bound = Value(name, dtype, value.shape, value.exact)
        self.pool.append(bound)
        return bound

    # ---- expressions -------------------------------------------------------------------

    def binary(self) -> Value:
        """``a op b``."""
        op = self.rng.choice(
            ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>"] * 2
            + ["<", "<=", "==", "!=", ">", ">="]
        )
        needs_exact = op in ("//", "%", "<", "<=", "==", "!=", ">", ">=")
        bitwise = op in ("&", "|", "^", "<<", ">>")
        a = self.pick(exact=needs_exact, kinds="biu" if bitwise else "biuf")
        if op in ("<<", ">>"):
            b = self.pick(a.shape, exact=True, kinds="iu")
            amount = self.rng.choice(["0", "1", "3", "7"]) if b.literal else f"({b.text} & 7)"
            if op == ">>" and kind(a.dtype) == "i" and kind(promote(a.dtype, b.dtype)) == "u":
                # Triton's interpreter shifts such a signed value right in int64 and
                # keeps the int64 array under the unsigned type: later ops then mix
                # int64 with uint64 arrays, which NumPy computes in float64.
                amount = "3"
            return Value(f"({a.text} {op} {amount})", a.dtype, broadcast(a.shape, b.shape) or ())
        b = self.pick(a.shape, exact=needs_exact, kinds="biuL" if bitwise else "")
        if not a.literal and a.dtype not in ("fp16", "lit_float") and self.chance(0.15):
            b = Value("s1", "lit_float", ())
        rhs = b.text
        if op in ("//", "%") and kind(promote(a.dtype, b.dtype)) in "iubL":
            # Integer division by zero and INT_MIN // -1 are undefined in compiled Triton
            # (the interpreter answers with NumPy's values): divisors are 1..16.
            rhs = f"(({b.text} & 15) + 1)" if not b.literal else self.rng.choice(["3", "7", "16"])
        dtype = "int1" if op in ("<", "<=", "==", "!=", ">", ">=") else promote(a.dtype, b.dtype)
        if op == "/" and kind(dtype) in "iubL":
            dtype = "fp32"
        shape = broadcast(a.shape, b.shape) or ()
        return Value(f"({a.text} {op} {rhs})", dtype, shape, a.exact and b.exact)

    def unary(self) -> Value:
        op = self.rng.choice(["-{}", "~{}", "tl.abs({})"])
        a = self.pick(kinds="biu" if op == "~{}" else "")
        return Value(op.format(a.text), a.dtype, a.shape, a.exact)

    def where(self) -> Value:
        cond = self.pick(exact=True)
        if cond.dtype != "int1":
            cond = Value(f"({cond.text} > {self.literal(False).text})", "int1", cond.shape)
        a = self.pick(cond.shape)
        b = self.pick(broadcast(cond.shape, a.shape))
        shape = broadcast(broadcast(cond.shape, a.shape) or (), b.shape) or ()
        return Value(
            f"tl.where({cond.text}, {a.text}, {b.text})",
            promote(a.dtype, b.dtype),
            shape,
            a.exact and b.exact,
        )

    def extremum(self) -> Value:
        a = self.pick()
        b = self.pick(a.shape)
        fn = self.rng.choice(["tl.maximum", "tl.minimum"])
        nan = ", propagate_nan=tl.PropagateNan.ALL" if self.chance(0.3) else ""
        return Value(
            f"{fn}({a.text}, {b.text}{nan})",
            promote(a.dtype, b.dtype),
            broadcast(a.shape, b.shape) or (),
            a.exact and b.exact,
        )

    def math(self) -> Value:
        fn = self.rng.choice(["exp", "log", "sqrt", "sin", "cos", "floor", "ceil", "erf"])
        a = self.pick(exact=fn in ("floor", "ceil"), kinds="f")
        if a.literal:
            # Triton checks the dtype of blocks only: on an int literal its interpreter
            # computes in int32, compiled Triton builds invalid IR.
            a = self.block(None, fn in ("floor", "ceil"))
        text, dtype = a.text, a.dtype
        if dtype not in ("fp32", "fp64") and not a.literal and self.chance(0.9):
            # Triton's math functions take float32 and float64 only.
            text, dtype = f"{text}.to(tl.float32)", "fp32"
        exact = a.exact and fn in ("sqrt", "floor", "ceil")
        return Value(f"tl.{fn}({text})", dtype, a.shape, exact)

    def cast(self) -> Value:
        a = self.pick(exact=True)
        if self.chance(0.3) and not a.literal and kind(a.dtype) in "iu":
            # Bit views of integers as integers only: a float's NaN payload is not
            # specified, and a float view can make a signaling NaN, of which NumPy's
            # fmin/fmax (C's, in Triton's interpreter) give NaN where compiled Triton's
            # minnum/maxnum give the other operand.
            same = [d for d in DTYPES if width(d) == width(a.dtype) and kind(d) in "iu"]
            target = self.rng.choice(same)
            return Value(f"{a.text}.to({TL_NAME[target]}, bitcast=True)", target, a.shape)
        target = self.rng.choice(DTYPES)
        text, source, shape = a.text, a.dtype, a.shape
        if a.literal:
            # Only dtypes that hold the literal: for others Triton's interpreter refuses
            # (NumPy's range check) where compiled Triton wraps or refuses.
            source = self.holding(a)
            text = f"tl.full({list(a.shape) or [1]}, {text}, {TL_NAME[source]})"
            shape = a.shape or (1,)
        if kind(source) in "fF" and kind(target) in "iu":
            # A float outside the integer's range (NaN included) converts to poison in
            # compiled Triton: keep the converted values within range.
            low = "0.0" if kind(target) == "u" else "-100.0"
            text = f"tl.minimum(tl.maximum(tl.where({text} != {text}, 0.0, {text}), {low}), 100.0)"
        return Value(f"({text}).to({TL_NAME[target]})", target, shape, True)

    def holding(self, literal: Value) -> str:
        """A dtype that holds the value of `literal`."""
        try:
            value = float(literal.text)
        except ValueError:  # a temporary bound to a literal
            return "int32" if literal.dtype == "lit_int" else "fp32"
        floats = [
            d for d in DTYPES if kind(d) == "f" and abs(value) <= float(np.finfo(NUMPY[d]).max)
        ]
        if literal.dtype == "lit_float":
            return self.rng.choice(floats)
        ints = [
            d
            for d in DTYPES
            if kind(d) in "iu" and np.iinfo(NUMPY[d]).min <= value <= np.iinfo(NUMPY[d]).max
        ]
        return self.rng.choice(ints + floats)

    def reduction(self) -> Value:
        blocks = [v for v in self.pool if v.shape]
        if not blocks:
            return self.binary()
        a = self.rng.choice(blocks)
        fn = self.rng.choice(["sum", "max", "min", "argmax", "xor_sum", "cumsum"])
        if fn == "argmax" and not a.exact:
            fn = "max"
        if fn == "xor_sum" and kind(a.dtype) not in "biu" and self.chance(0.9):
            fn = "sum"
        axis = self.rng.randrange(len(a.shape))
        exact = a.exact and not (fn in ("sum", "cumsum") and kind(a.dtype) == "f")
        dtype = "int32" if fn == "argmax" else a.dtype
        if fn == "cumsum":
            return Value(f"tl.cumsum({a.text}, axis={axis})", dtype, a.shape, exact)
        keep = len(a.shape) == 2 and self.chance(0.3)
        text = f"tl.{fn}({a.text}, axis={axis}{', keep_dims=True' if keep else ''})"
        if keep:
            return Value(
                text, dtype, tuple(1 if i == axis else n for i, n in enumerate(a.shape)), exact
            )
        shape = tuple(n for i, n in enumerate(a.shape) if i != axis)
        if len(a.shape) == 2 and self.chance(0.6):
            text += "[:, None]" if axis == 1 else "[None, :]"
            shape = (a.shape[0], 1) if axis == 1 else (1, a.shape[1])
        return Value(text, dtype, shape, exact)

    def expression(self) -> Value:
        makers = [self.binary] * 6 + [self.unary, self.where, self.extremum, self.cast]
        makers += [self.math] * 2 + [self.reduction] * 2
        return self.rng.choice(makers)()

    # ---- the kernel --------------------------------------------------------------------

    def loads(self, two_d: bool) -> tuple[list[str], dict[str, np.ndarray]]:
        """The statements loading X0 (and maybe X1), with their arrays."""
        lines: list[str] = []
        arrays: dict[str, np.ndarray] = {}
        full = (ROWS, COLS) if two_d else (LENGTH,)
        shapes = [full, full] + ([(ROWS, 1), (1, COLS)] if two_d else [])
        for index in range(1 if self.chance(0.3) else 2):
            dtype = self.rng.choice(DTYPES)
            shape = full if index == 0 else self.rng.choice(shapes)
            offsets = {(ROWS, COLS): "rm * 8 + rn", (ROWS, 1): "rm", (1, COLS): "rn"}.get(
                shape, "r1"
            )
            mask = ""
            if self.chance(0.3):
                other = self.rng.choice(["0", "1", "-1", "2.5"])
                mask = f", mask={offsets} < n, other={other}"
            lines.append(f"x{index} = tl.load(X{index} + {offsets}{mask})")
            arrays[f"X{index}"] = random_array(self.nrng, dtype, shape)
            self.pool.append(Value(f"x{index}", dtype, shape))
        return lines, arrays

    def scalars(self) -> list[tuple[str, Any]]:
        """Scalar arguments: ints of several magnitudes, a float.

        Not 1: compiled Triton specializes an int argument equal to 1 into a constant (a
        literal's promotion), its interpreter does not. Nothing in [2**31, 2**32): the
        interpreter keeps such an int64 argument in a uint32 array and reads garbage.

        The float is used only next to an integer, float32 or float64 block (`binary`):
        the interpreter passes a float argument on as a Python float, i.e. as a literal,
        where compiled Triton has a float32 scalar; the two agree there. For the same
        reason its value is a float32: zero, infinity, NaN or a normal number (the
        interpreter makes other floats float64, or computes with the double's digits).
        """
        ints = [0, 2, -3, 17, 2**31 - 1, -(2**31), 2**33, 2**40, -(2**40), 2**63 - 1, 2**63]
        floats = [0.5, -0.0, 3.0, 1e30, -1.5e-3, float("nan"), float("inf"), 2.0**-120]
        floats = [float(np.float32(f)) for f in floats]
        chosen = [("s0", self.rng.choice(ints)), ("s1", self.rng.choice(floats))]
        value = chosen[0][1]
        dtype = "uint64" if value >= 2**63 else "int64" if abs(value) >= 2**31 else "int32"
        self.pool.append(Value("s0", dtype, ()))
        return chosen

    def generate(self, name: str) -> Case:
        two_d = self.chance(0.6)
        load_lines, arrays = self.loads(two_d)
        scalars = self.scalars()
        for _ in range(self.rng.randint(1, 7)):
            self.bind(self.expression())
        while self.statements[-1].literal:
            self.bind(self.binary())
        params = ", ".join([*arrays, "OUT", *(s for s, _ in scalars), "n"])
        scalars.append(("n", self.rng.choice([3, 5, 11, 16])))
        return Case(name, params, load_lines, self.statements, arrays, scalars)


def store_offsets(shape: tuple[int, ...]) -> tuple[str, str]:
    """The offsets and mask of the store of a result of `shape`."""
    if shape == ():
        return "", ""
    if len(shape) == 1:
        offsets = f"tl.arange(0, {shape[0]})"
    else:
        offsets = f"tl.arange(0, {shape[0]})[:, None] * {shape[1]} + tl.arange(0, {shape[1]})"
        offsets += "[None, :]"
    return f" + {offsets}", f", mask={offsets} < n"


# --------------------------------------------------------------------------------------
# One side: run a batch of kernels in this process
# --------------------------------------------------------------------------------------


def run_side(side: str, folder: Path) -> None:
    """Run every case of `folder` on `side` ('triton' or 'blkc'), writing its results."""
    if side == "triton":
        os.environ["TRITON_INTERPRET"] = "1"
        import torch
        import triton
        import triton.language as tl

        def to_device(a: np.ndarray) -> Any:
            return torch.from_numpy(a)

    else:
        os.environ["BLKC_POLICY"] = "triton-compat"
        import blkc as triton  # type: ignore[no-redef]
        import blkc.language as tl  # type: ignore[no-redef]

        def to_device(a: np.ndarray) -> Any:
            return a

    manifest = json.loads((folder / "cases.json").read_text())
    for entry in manifest:
        result_file = folder / f"{entry['name']}.{side}.npz"
        if result_file.exists():
            continue
        (folder / f"{side}.current").write_text(entry["name"])
        result = run_one(side, folder, entry, triton, tl, to_device)
        np.savez(result_file, **result)


def run_one(
    side: str, folder: Path, entry: dict[str, Any], triton: Any, tl: Any, to_device: Any
) -> dict[str, Any]:
    inputs = dict(np.load(folder / f"{entry['name']}.in.npz"))
    out_dtype = "fp64"
    if side == "blkc":
        theirs = np.load(folder / f"{entry['name']}.triton.npz")
        out_dtype = str(theirs["dtype"]) or "fp32"
    spec = importlib.util.spec_from_file_location(entry["name"], folder / f"{entry['name']}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.triton = triton  # type: ignore[attr-defined]
    module.tl = tl  # type: ignore[attr-defined]
    printed = io.StringIO()
    out = np.zeros(0)
    try:
        spec.loader.exec_module(module)
        kernel = getattr(module, entry["name"])
        dtype = out_dtype
        for _attempt in range(2):
            out = init_out(dtype, tuple(entry["out_shape"]))
            args = [to_device(inputs[name]) for name in entry["arrays"]] + [to_device(out)]
            args += [value for _, value in entry["scalars"]]
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                kernel[(1,)](*args)
            dtype = printed_dtype(printed.getvalue())
            if side == "blkc" or dtype == out_dtype:
                break
            out_dtype = dtype
    except Exception as err:  # noqa: BLE001 - every refusal and failure is a result
        located = side == "triton" or isinstance(err, triton.BlkcError)
        return {
            "status": "refused" if located else "error",
            "error": f"{type(err).__module__}.{type(err).__name__}: {err}"[:3000],
            "dtype": printed_dtype(printed.getvalue()),
            "out": np.zeros(0),
        }
    return {"status": "ok", "error": "", "dtype": printed_dtype(printed.getvalue()), "out": out}


def printed_dtype(text: str) -> str:
    for line in text.splitlines():
        if line.startswith(DTYPE_MARK):
            return line.split()[-1]
    return ""


def init_out(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """`OUT`, filled with a pattern the masked stores must leave alone."""
    size = max(1, int(np.prod(shape)))
    if dtype == "int1":
        return np.zeros(shape, bool) if shape else np.zeros(1, bool)
    np_dtype = np.dtype(NUMPY[dtype])
    raw = np.frombuffer(bytes([0x3C, 0x5A] * (size * np_dtype.itemsize // 2 + 1)), np.uint8)
    values = raw[: size * np_dtype.itemsize].view(np_dtype).copy()
    return values.reshape(shape) if shape else values


# --------------------------------------------------------------------------------------
# The driver
# --------------------------------------------------------------------------------------


def write_batch(folder: Path, cases: list[Case]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = []
    for case in cases:
        (folder / f"{case.name}.py").write_text(case.source)
        np.savez(folder / f"{case.name}.in.npz", **case.arrays)
        manifest.append(
            {
                "name": case.name,
                "arrays": list(case.arrays),
                "scalars": case.scalars,
                "out_shape": list(case.result.shape),
                "inexact": case.inexact,
            }
        )
    (folder / "cases.json").write_text(json.dumps(manifest))


def run_batch(folder: Path, side: str, python: str, timeout: float) -> None:
    """Run `side` over the batch in `folder` in its own process; a kernel that kills or
    hangs the process gets a 'crash' result, and the rest run in a new one."""
    env = dict(os.environ, BLKC_CACHE_DIR=str(folder / "cache"), PYTHONWARNINGS="ignore")
    names = [entry["name"] for entry in json.loads((folder / "cases.json").read_text())]
    while not all((folder / f"{name}.{side}.npz").exists() for name in names):
        command = [python, __file__, "--side", side, "--batch", str(folder)]
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
            detail = f"exit status {done.returncode}: {done.stderr[-1500:]}"
        except subprocess.TimeoutExpired:
            detail = f"no result within {timeout} s"
        current = folder / f"{side}.current"
        name = current.read_text() if current.exists() else names[0]
        if not (folder / f"{name}.{side}.npz").exists():
            np.savez(
                folder / f"{name}.{side}.npz",
                status="crash",
                error=detail,
                dtype="",
                out=np.zeros(0),
            )


INTERPRETER_FAILURES = ("All-NaN slice encountered",)
"""Errors of Triton's interpreter where compiled Triton computes an answer: NumPy's
``nanargmax`` refuses a row of NaN (compiled Triton's ``argmax`` gives an index). Such a
kernel is not compared."""


def ulp_bound(dtype: str) -> float:
    """The relative bound on inexact values: a few hundred units in the last place (a
    few for float16, whose sums both sides keep in float32)."""
    return {"fp16": 4 * 2.0**-10, "fp32": 256 * 2.0**-23, "fp64": 256 * 2.0**-52}[dtype]


def compare(inexact: bool, theirs: dict[str, Any], ours: dict[str, Any]) -> tuple[str, str] | None:
    """The class and details of a mismatch between Triton's result and blkc's, or None."""
    t_status, o_status = str(theirs["status"]), str(ours["status"])
    if o_status in ("crash", "error"):
        return f"blkc {o_status}", str(ours["error"])
    if t_status == "crash":
        return "triton crash", str(theirs["error"])
    if any(failure in str(theirs["error"]) for failure in INTERPRETER_FAILURES):
        return None
    if t_status == "refused" or o_status == "refused":
        if t_status == o_status:
            return None
        who = "Triton" if t_status == "refused" else "blkc"
        return f"refused by {who} only", str(theirs["error"] or ours["error"])
    t_dtype, o_dtype = str(theirs["dtype"]), str(ours["dtype"])
    if t_dtype != o_dtype:
        return "dtype", f"Triton {t_dtype}, blkc {o_dtype}"
    return compare_values(t_dtype, inexact, theirs["out"], ours["out"])


def compare_values(
    dtype: str, inexact: bool, t: np.ndarray, o: np.ndarray
) -> tuple[str, str] | None:
    if kind(dtype) != "f":
        differ = (
            t.view(f"u{t.itemsize}") != o.view(f"u{o.itemsize}")
            if t.itemsize > 1 or t.dtype != bool
            else t != o
        )
        return None if not differ.any() else ("values", shown(t, o, differ))
    t_nan, o_nan = np.isnan(t), np.isnan(o)
    if (t_nan != o_nan).any():
        return "NaN positions", shown(t, o, t_nan != o_nan)
    with np.errstate(all="ignore"):
        if inexact:
            finite = np.abs(np.where(np.isfinite(t), t, 0)).astype(np.float64)
            scale = max(float(finite.max(initial=0.0)), float(np.finfo(t.dtype).tiny))
            tolerance = ulp_bound(dtype) * np.maximum(scale, np.abs(t.astype(np.float64)))
            same = (t == o) | (np.abs(t.astype(np.float64) - o.astype(np.float64)) <= tolerance)
            differ = ~same & ~t_nan
            return None if not differ.any() else ("inexact values", shown(t, o, differ))
        bits = f"u{t.itemsize}"
        differ = (t.view(bits) != o.view(bits)) & ~t_nan
    if not differ.any():
        return None
    signed_zero = ((t == 0) & (o == 0))[differ].all()
    return ("signed zeros" if signed_zero else "values"), shown(t, o, differ)


def shown(t: np.ndarray, o: np.ndarray, differ: np.ndarray) -> str:
    where = np.argwhere(differ)[:8]
    items = [
        f"{tuple(int(i) for i in w)}: Triton {t[tuple(w)]!r}, blkc {o[tuple(w)]!r}" for w in where
    ]
    return f"{int(differ.sum())} of {differ.size} differ; " + "; ".join(items)


@dataclass
class Outcome:
    case: Case
    mismatch: tuple[str, str] | None
    theirs: dict[str, Any]
    ours: dict[str, Any]


def run_cases(cases: list[Case], folder: Path, triton_python: str, timeout: float) -> list[Outcome]:
    """Run `cases` on both sides in `folder` and compare."""
    write_batch(folder, cases)
    run_batch(folder, "triton", triton_python, timeout)
    run_batch(folder, "blkc", sys.executable, timeout)
    outcomes = []
    for case in cases:
        theirs = dict(np.load(folder / f"{case.name}.triton.npz"))
        ours = dict(np.load(folder / f"{case.name}.blkc.npz"))
        mismatch = compare(case.inexact, theirs, ours)
        if mismatch is not None and mismatch[0] == "signed zeros" and case.extremum:
            mismatch = None
        outcomes.append(Outcome(case, mismatch, theirs, ours))
    return outcomes


def smallest(outcome: Outcome, folder: Path, triton_python: str, timeout: float) -> Outcome:
    """The shortest prefix of the kernel that still disagrees the same way."""
    assert outcome.mismatch is not None
    prefixes = outcome.case.prefixes()
    if not prefixes:
        return outcome
    for cut in run_cases(prefixes, folder, triton_python, timeout):
        if cut.mismatch is not None and cut.mismatch[0] == outcome.mismatch[0]:
            return cut
    return outcome


def fuzz(
    count: int, seed: int, triton_python: str, workdir: Path, batch: int = 50, timeout: float = 600
) -> tuple[list[Outcome], list[Outcome]]:
    """Generate and run `count` kernels from `seed`; every outcome and the mismatches, each
    cut to its smallest reproducer."""
    outcomes: list[Outcome] = []
    for start in range(0, count, batch):
        cases = [
            Generator(seed * 1_000_003 + i).generate(f"k{seed}_{i}")
            for i in range(start, min(count, start + batch))
        ]
        outcomes += run_cases(cases, workdir / f"batch{start}", triton_python, timeout)
    mismatches = [
        smallest(o, workdir / f"cut_{o.case.name}", triton_python, timeout)
        for o in outcomes
        if o.mismatch is not None
    ]
    return outcomes, mismatches


def reproducer(outcome: Outcome) -> str:
    """A mismatch as text: its class, the kernel, its arguments, both results."""
    case = outcome.case
    assert outcome.mismatch is not None
    cls, detail = outcome.mismatch
    np.set_printoptions(threshold=100, linewidth=100)
    arrays = "\n".join(f"{k} = np.{v!r}" for k, v in case.arrays.items())
    scalars = ", ".join(f"{k}={v!r}" for k, v in case.scalars)
    lines = [
        f"## {cls}: {case.name}",
        "",
        detail,
        "",
        "```python",
        case.source.rstrip(),
        "```",
        "",
        "```python",
        arrays,
        f"# scalars: {scalars}",
        f"# Triton: {outcome.theirs['status']} {outcome.theirs['dtype']} "
        f"{outcome.theirs['error'] or outcome.theirs['out']!r}",
        f"# blkc:   {outcome.ours['status']} {outcome.ours['dtype']} "
        f"{outcome.ours['error'] or outcome.ours['out']!r}",
        "```",
        "",
    ]
    return "\n".join(lines)


def summary(outcomes: list[Outcome]) -> str:
    refused = sum(
        1 for o in outcomes if o.mismatch is None and str(o.theirs["status"]) == "refused"
    )
    agreeing = sum(1 for o in outcomes if o.mismatch is None)
    classes = Counter(o.mismatch[0] for o in outcomes if o.mismatch is not None)
    return (
        f"{len(outcomes)} kernels: {agreeing} agree ({refused} refused by both), "
        f"{len(outcomes) - agreeing} disagree" + "".join(f"; {n} {c}" for c, n in classes.items())
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument("--report", type=Path, default=Path("triton_fuzz_report.md"))
    parser.add_argument("--triton-python", default=os.environ.get("BLKC_TRITON_PYTHON"))
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--side", choices=["triton", "blkc"], help=argparse.SUPPRESS)
    parser.add_argument("--batch", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.side:
        run_side(args.side, args.batch)
        return 0
    if not args.triton_python:
        parser.error("needs --triton-python or $BLKC_TRITON_PYTHON: a Python with triton")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="triton_fuzz_"))
    started = time.time()
    outcomes, mismatches = fuzz(args.count, args.seed, args.triton_python, workdir, args.batch_size)
    text = summary(outcomes) + f" ({time.time() - started:.0f} s)\n\n"
    args.report.write_text(text + "\n".join(reproducer(m) for m in mismatches))
    print(text.strip(), f"report: {args.report}", sep="\n")
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
