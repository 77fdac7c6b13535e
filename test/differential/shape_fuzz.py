"""Random kernels of shape and data-movement ops, reductions, scans and `tl.dot`, run by
Triton 3.9's interpreter and by blkc, compared.

`triton_fuzz.py` draws elementwise expressions and `control_flow_fuzz.py` what carries
them; this draws what moves and folds blocks. A kernel loads 1-D, 2-D (and, for batched
dots, 3-D) blocks of power-of-two shapes from its input arrays, through row strides
passed as arguments and sometimes under 2-D masks with `other=`, then applies a chain of
2 to 6 ops to them:

- shapes: `tl.reshape`/`.reshape`/`tl.ravel`, `tl.trans`/`tl.permute`/`.T` (2-D to 4-D),
  `tl.expand_dims`/`x[:, None]`/`tl.unsqueeze`/`tl.squeeze`, `tl.broadcast_to`,
  `tl.join`, `tl.split`, `tl.interleave`, `tl.cat` along a dimension, `tl.flip`;
- reductions along an axis (or all), keep_dims or not: `tl.sum`, `tl.max`/`tl.min` (with
  `return_indices`), `tl.argmax`/`tl.argmin` (ties: the data are small integers),
  `tl.xor_sum`, `tl.reduce` with a kernel-module combine function (one or two operands);
- scans: `tl.cumsum`, `tl.cumprod`, `tl.associative_scan` (forwards and reversed, with
  an associative combine that does not commute too), `tl.sort`, `tl.topk`,
  `tl.histogram`, `tl.gather` (indices in range);
- `tl.dot` on int8, float16 and float32 blocks, 2-D and batched 3-D, with and without an
  accumulator, on transposed operands;
- glue that broadcasts: `tl.where` and `+`, `-` against lower-rank or keep_dims values,
  casts between the dtypes.

Every kernel prints its result's dtype and stores the result whole into `OUT`; the two
sides must print the same dtype and store the same bits. Integer data are small (ties,
no overflow where widths differ by design) but sometimes span the dtype (two's
complement wrap-around is defined and must agree); float data are small integers and
halves, so that products are exact. Float values that went through a sum, a product
scan or a dot are compared within `triton_fuzz`'s tolerance (the two sides may add in
different orders), the others bit for bit; the sign of a zero is free after a maximum,
minimum or sort. Running, comparing and cutting a mismatch to its shortest prefix are
`triton_fuzz`'s.

Left out, as they are not comparable: `tl.view` and `can_reorder=True` (unspecified
order), `tie_break_left=False` (an unspecified index among ties; Triton's interpreter
always answers the first), a histogram of negative values, sorting along other than the
last dimension (Triton refuses it). Int arguments are never 1 (compiled Triton and blkc
make such an argument a constant, Triton's interpreter does not).

    python test/differential/shape_fuzz.py --count 300 --seed 1 [--report FILE] \
        [--triton-python PATH] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

try:
    from . import triton_fuzz
except ImportError:  # run as a script: this folder is on sys.path
    import triton_fuzz  # type: ignore[no-redef]

NUMPY, TL_NAME, DTYPE_MARK = triton_fuzz.NUMPY, triton_fuzz.TL_NAME, triton_fuzz.DTYPE_MARK

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint32", "fp16", "fp32"]
INTS = [d for d in DTYPES if d[0] in "iu"]
MAX_NUMEL = 1024
"""The most elements a block may have."""
MAX_DIM = 64

COMBINE = {
    "_c_add": "return a + b",
    "_c_mul": "return a * b",
    "_c_max": "return tl.maximum(a, b)",
    "_c_min": "return tl.minimum(a, b)",
    "_c_or": "return a | b",
    "_c_and": "return a & b",
    "_c_xor": "return a ^ b",
    # Associative, not commutative: the last nonzero value so far.
    "_c_last": "return tl.where(b != 0, b, a)",
}
"""Combine functions of one operand: name -> body over `a` and `b`."""
PAIR_COMBINE = {
    "_c_pair": ("(a0, a1, b0, b1)", "return a0 + b0, tl.maximum(a1, b1)"),
    "_c_pair_last": ("(a0, a1, b0, b1)", "return tl.where(b1 != 0, b0, a0), a1 | b1"),
}
"""Combine functions of two operands: name -> (parameters, body)."""


def is_int(dtype: str) -> bool:
    return dtype[0] in "iu"


def numel(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


@dataclass
class Val:
    """A kernel value: its name, a guess at its dtype, its shape, and whether float
    rounding in a different order may have changed its last bits."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    inexact: bool = False


@dataclass
class Stmt:
    """``targets = text``; `value` describes the first target."""

    targets: str
    text: str
    value: Val


@dataclass
class ShapeCase:
    """A generated kernel and its launch, in the form `triton_fuzz.run_cases` takes."""

    name: str
    loads: list[str]
    statements: list[Stmt]
    arrays: dict[str, np.ndarray]
    scalars: list[tuple[str, int]]

    @property
    def result(self) -> Val:
        return self.statements[-1].value

    def live(self) -> list[int]:
        """The statements the result depends on, in order."""
        texts = [s.text for s in self.statements]
        return triton_fuzz.live_statements(texts, r"\b[tu](\d+)\b")

    @property
    def inexact(self) -> bool:
        return self.result.inexact and self.result.dtype[0] == "f"

    @property
    def extremum(self) -> bool:
        """Whether a zero's sign is free: the result went through a float maximum,
        minimum or sort, which may pick either of ``-0.0`` and ``0.0``."""
        names = ("maximum", "minimum", "max(", "min(", "sort(", "topk(", "_c_max", "_c_min")
        return any(n in self.statements[i].text for i in self.live() for n in names)

    @property
    def source(self) -> str:
        live = self.live()
        text = "\n".join(self.statements[i].text for i in live)
        lines: list[str] = []
        for name, body in COMBINE.items():
            if name in text:
                lines += ["", "@triton.jit", f"def {name}(a, b):", f"    {body}", ""]
        for name, (params, body) in PAIR_COMBINE.items():
            if name in text:
                lines += ["", "@triton.jit", f"def {name}{params}:", f"    {body}", ""]
        params = ", ".join([*self.arrays, "OUT", *(s for s, _ in self.scalars)])
        result = self.result.name
        body = [
            *self.loads,
            *(f"{self.statements[i].targets} = {self.statements[i].text}" for i in live),
            f"tl.static_print({DTYPE_MARK!r}, {result}.dtype)",
            f"tl.store(OUT{store_offsets(self.result.shape)}, {result})",
        ]
        lines += ["", "@triton.jit", f"def {self.name}({params}):"]
        return "\n".join(lines + ["    " + line for line in body]) + "\n"

    def prefixes(self) -> list[ShapeCase]:
        """The kernel cut after each of its statements, storing that statement's value."""
        return [
            ShapeCase(
                f"{self.name}_{i}", self.loads, self.statements[: i + 1], self.arrays, self.scalars
            )
            for i in range(len(self.statements) - 1)
        ]


def arange(size: int, axis: int, rank: int) -> str:
    """``tl.arange(0, size)`` along `axis` of a rank-`rank` block."""
    text = f"tl.arange(0, {size})"
    if rank == 1:
        return text
    return text + "[" + ", ".join(":" if d == axis else "None" for d in range(rank)) + "]"


def store_offsets(shape: tuple[int, ...]) -> str:
    """`` + offsets`` of a contiguous store of a block of `shape` ('' for a scalar)."""
    terms = []
    for axis, size in enumerate(shape):
        stride = numel(shape[axis + 1 :])
        term = arange(size, axis, len(shape))
        terms.append(term if stride == 1 else f"{term} * {stride}")
    return "".join(f" + {t}" for t in terms)


def powers(low: int, high: int) -> list[int]:
    return [2**i for i in range(20) if low <= 2**i <= high]


class Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.nrng = np.random.default_rng(seed)
        self.pool: list[Val] = []
        self.statements: list[Stmt] = []
        self.loads: list[str] = []
        self.arrays: dict[str, np.ndarray] = {}
        self.scalars: list[tuple[str, int]] = []

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # ---- inputs ------------------------------------------------------------------------

    def data(self, dtype: str, size: int) -> np.ndarray:
        """Small integers (halves too for floats); integers sometimes span the dtype."""
        np_dtype = NUMPY[dtype]
        if is_int(dtype):
            if self.chance(0.15):
                info = np.iinfo(np_dtype)
                low, high = int(info.min), int(info.max)
                return self.nrng.integers(low, high, size, endpoint=True).astype(np_dtype)
            low = 0 if dtype[0] == "u" else -6
            return self.nrng.integers(low, 7, size).astype(np_dtype)
        return (self.nrng.integers(-6, 7, size) * self.rng.choice([1.0, 0.5])).astype(np_dtype)

    def scalar(self, prefix: str, value: int) -> str:
        name = f"{prefix}{len(self.scalars)}"
        assert value != 1
        self.scalars.append((name, value))
        return name

    def load(self, dtype: str, shape: tuple[int, ...], values: np.ndarray | None = None) -> Val:
        """Load a fresh input array as a block of `shape`, through strides passed as
        arguments (rows maybe padded, 2-D blocks maybe column-major), maybe masked."""
        index = len(self.arrays)
        rank = len(shape)
        strides = [numel(shape[d + 1 :]) for d in range(rank)]
        if rank == 2 and self.chance(0.25):
            strides = [1, shape[0] + self.rng.choice([0, 0, 1, 3])]  # column-major
        elif rank >= 2 and self.chance(0.5):
            strides[-2] = shape[-1] + self.rng.choice([1, 3, 5])
            if rank == 3:
                strides[0] = strides[1] * shape[1]
        elif rank == 1 and self.chance(0.2):
            strides = [self.rng.choice([2, 3])]
        terms = []
        for axis, (size, stride) in enumerate(zip(shape, strides, strict=True)):
            term = arange(size, axis, rank)
            if stride != 1:
                term += " * " + self.scalar("s", stride)
            terms.append(term)
        offsets = " + ".join(terms)
        extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
        array = self.data(dtype, extent) if values is None else np.zeros(extent, NUMPY[dtype])
        if values is not None:
            positions = sum(
                np.arange(n).reshape([-1 if d == a else 1 for d in range(rank)]) * s
                for a, (n, s) in enumerate(zip(shape, strides, strict=True))
            )
            array[np.asarray(positions).ravel()] = values.ravel()
        mask = ""
        if values is None and rank <= 2 and self.chance(0.3):
            bounds = []
            for axis, size in enumerate(shape):
                bound = self.rng.choice([b for b in (0, 2, 3, size - 1, size, 40) if b != 1])
                bounds.append(f"({arange(size, axis, rank)} < {self.scalar('n', bound)})")
            other = self.rng.choice(["0", "-1", "3"] if dtype[0] == "i" else ["0", "2"])
            mask = f", mask={' & '.join(bounds)}, other={other}"
        name = f"X{index}"
        self.arrays[name] = array
        self.loads.append(f"x{index} = tl.load({name} + {offsets}{mask})")
        value = Val(f"x{index}", dtype, shape)
        self.pool.append(value)
        return value

    def random_shape(self, rank: int, largest: int = 256) -> tuple[int, ...]:
        while True:
            shape = tuple(self.rng.choice(powers(1, MAX_DIM)) for _ in range(rank))
            if 2 <= numel(shape) <= largest:
                return shape

    # ---- picking values ----------------------------------------------------------------

    def pick(self, test: Any = None) -> Val | None:
        """A pool value passing `test`: most often the latest one (chains of ops)."""
        choices = [v for v in self.pool if test is None or test(v)]
        if not choices:
            return None
        if self.chance(0.65):
            return choices[-1]
        return self.rng.choice(choices)

    def partner(self, a: Val) -> str:
        """A value of `a`'s dtype and shape other than `a`, as text."""
        same = [v for v in self.pool if v.shape == a.shape and v.dtype == a.dtype and v != a]
        if same and self.chance(0.6):
            # The dtype is a guess: Triton's interpreter joins two dtypes, compiled
            # Triton (and blkc) refuse to.
            return f"{self.rng.choice(same).name}.to({a.name}.dtype)"
        if self.chance(0.5):
            return f"{self.load(a.dtype, a.shape).name}.to({a.name}.dtype)"
        return f"({a.name} + 3)" if is_int(a.dtype) else f"({a.name} * 2)"

    def bind(
        self, text: str, dtype: str, shape: tuple[int, ...], inexact: bool, second: bool = False
    ) -> Val:
        """``t<i> = text`` (and ``u<i>``, the second of a pair, if `second`)."""
        i = len(self.statements)
        value = Val(f"t{i}", dtype, shape, inexact)
        targets = f"t{i}, u{i}" if second else f"t{i}"
        self.statements.append(Stmt(targets, text, value))
        self.pool.append(value)
        return value

    # ---- shape ops ---------------------------------------------------------------------

    def reshape(self) -> Val | None:
        a = self.pick(lambda v: v.shape and numel(v.shape) >= 2)
        if a is None:
            return None
        n = numel(a.shape)
        rank = self.rng.choice([1, 2, 2, 3, 3] if n >= 4 else [1, 2])
        exponents = [0] * rank
        for _ in range(n.bit_length() - 1):
            open_ = [d for d in range(rank) if exponents[d] < 6 or rank == 1]
            exponents[self.rng.choice(open_ or range(rank))] += 1
        dims = [2**e for e in exponents]
        if rank == 1 and self.chance(0.5):
            return self.bind(f"tl.ravel({a.name})", a.dtype, (n,), a.inexact)
        shape = tuple(dims)
        listed = ", ".join(map(str, shape))
        text = self.rng.choice(
            [
                f"tl.reshape({a.name}, ({listed},))",
                f"tl.reshape({a.name}, [{listed}])",
                f"tl.reshape({a.name}, {listed})",
                f"{a.name}.reshape({listed})",
            ]
        )
        return self.bind(text, a.dtype, shape, a.inexact)

    def permute(self) -> Val | None:
        a = self.pick(lambda v: len(v.shape) >= 2)
        if a is None:
            return None
        rank = len(a.shape)
        order = list(range(rank))
        if rank == 2 or self.chance(0.3):
            order[-2:] = order[-1], order[-2]
            text = self.rng.choice(
                [f"tl.trans({a.name})", f"{a.name}.trans()"]
                + ([f"{a.name}.T"] if rank == 2 else [])
            )
        else:
            while order == list(range(rank)):
                self.rng.shuffle(order)
            listed = ", ".join(map(str, order))
            text = self.rng.choice(
                [
                    f"tl.permute({a.name}, ({listed}))",
                    f"tl.permute({a.name}, {listed})",
                    f"tl.trans({a.name}, {listed})",
                    f"{a.name}.permute({listed})",
                ]
            )
        if self.chance(0.3) and rank == 2:
            text = self.rng.choice([f"tl.permute({a.name}, 1, 0)", f"tl.trans({a.name}, (1, 0))"])
        shape = tuple(a.shape[d] for d in order)
        return self.bind(text, a.dtype, shape, a.inexact)

    def expand(self) -> Val | None:
        a = self.pick(lambda v: len(v.shape) <= 3)
        if a is None:
            return None
        rank = len(a.shape)
        axis = self.rng.randrange(rank + 1)
        shape = a.shape[:axis] + (1,) + a.shape[axis:]
        c = self.rng.random()
        if c < 0.35 and rank >= 1:
            index = ", ".join("None" if d == axis else ":" for d in range(rank + 1))
            text = f"{a.name}[{index}]"
        elif c < 0.55 and rank <= 2 and len(a.shape) >= 1:
            first, second = sorted(self.rng.sample(range(rank + 2), 2))
            shape = list(a.shape)
            for d in (first, second):
                shape.insert(d, 1)
            text = f"tl.expand_dims({a.name}, ({first}, {second}))"
            return self.bind(text, a.dtype, tuple(shape), a.inexact)
        elif c < 0.7 and rank >= 1:  # Triton refuses to unsqueeze a scalar
            text = f"tl.unsqueeze({a.name}, {axis})"
        else:
            written = axis - (rank + 1) if self.chance(0.3) else axis
            text = self.rng.choice(
                [f"tl.expand_dims({a.name}, {written})", f"{a.name}.expand_dims({written})"]
            )
        return self.bind(text, a.dtype, shape, a.inexact)

    def squeeze(self) -> Val | None:
        a = self.pick(lambda v: 1 in v.shape and len(v.shape) >= 2)
        if a is None:
            return self.expand()
        axis = self.rng.choice([d for d, n in enumerate(a.shape) if n == 1])
        shape = a.shape[:axis] + a.shape[axis + 1 :]
        return self.bind(f"tl.squeeze({a.name}, {axis})", a.dtype, shape, a.inexact)

    def broadcast(self) -> Val | None:
        a = self.pick(lambda v: v.shape and numel(v.shape) <= MAX_NUMEL // 2)
        if a is None:
            return None
        name, shape = a.name, a.shape
        if 1 not in shape:
            axis = self.rng.randrange(len(shape) + 1)
            name = f"tl.expand_dims({name}, {axis})"
            shape = shape[:axis] + (1,) + shape[axis:]
        room = MAX_NUMEL // numel(shape)
        target = list(shape)
        for d in self.rng.sample(range(len(shape)), len(shape)):
            if shape[d] == 1 and room >= 2:
                target[d] = self.rng.choice(powers(2, min(room, MAX_DIM)))
                room //= target[d]
        listed = ", ".join(map(str, target))
        text = self.rng.choice(
            [f"tl.broadcast_to({name}, ({listed}))", f"tl.broadcast_to({name}, {listed})"]
        )
        return self.bind(text, a.dtype, tuple(target), a.inexact)

    def pairing(self) -> Val | None:
        """``tl.join``, ``tl.interleave`` or ``tl.cat`` of a value and a partner."""
        a = self.pick(lambda v: v.shape and numel(v.shape) <= MAX_NUMEL // 2)
        if a is None:
            return None
        b = self.partner(a)
        op = self.rng.choice(["join", "interleave", "cat"])
        if op == "join" and len(a.shape) <= 3:
            return self.bind(f"tl.join({a.name}, {b})", a.dtype, a.shape + (2,), a.inexact)
        if op == "interleave" and a.shape[-1] * 2 <= MAX_NUMEL:
            shape = a.shape[:-1] + (a.shape[-1] * 2,)
            return self.bind(f"tl.interleave({a.name}, {b})", a.dtype, shape, a.inexact)
        dim = self.rng.randrange(len(a.shape))
        shape = tuple(n * 2 if d == dim else n for d, n in enumerate(a.shape))
        dim_text = f", dim={dim}" if dim or self.chance(0.5) else ""
        return self.bind(f"tl.cat({a.name}, {b}{dim_text})", a.dtype, shape, a.inexact)

    def split(self) -> Val | None:
        a = self.pick(lambda v: v.shape and v.shape[-1] % 2 == 0)
        if a is None:
            return None
        name, shape = a.name, a.shape
        if shape[-1] != 2:
            shape = shape[:-1] + (shape[-1] // 2, 2)
            name = f"tl.reshape({name}, {', '.join(map(str, shape))})"
        text = self.rng.choice([f"tl.split({name})", f"{name}.split()"])
        return self.bind(text, a.dtype, shape[:-1], a.inexact, second=True)

    def flip(self) -> Val | None:
        # Not a block of one element: Triton's flip reshapes it to a scalar and fails.
        a = self.pick(lambda v: len(v.shape) >= 1 and v.shape != (1,))
        if a is None:
            return None
        dim = self.rng.choice([None, *range(len(a.shape))])
        text = f"tl.flip({a.name})" if dim is None else f"tl.flip({a.name}, {dim})"
        return self.bind(text, a.dtype, a.shape, a.inexact)

    # ---- reductions and scans ----------------------------------------------------------

    def reduction(self) -> Val | None:
        a = self.pick(lambda v: v.shape)
        if a is None:
            return None
        fn = self.rng.choice(["sum", "max", "min", "argmax", "argmin", "xor_sum", "max_idx"])
        if fn == "xor_sum" and not is_int(a.dtype):
            fn = "sum"
        rank = len(a.shape)
        axis: int | None = self.rng.randrange(rank)
        if fn in ("sum", "max", "min", "xor_sum") and self.chance(0.15):
            axis = None
        # Not xor_sum's over every axis with keep_dims: Triton's interpreter reduces with a
        # combine function of its own over the flattened block and keeps one dimension,
        # where compiled Triton (`tl.reduce`'s `expand_ndims`) and blkc keep them all.
        keep = self.chance(0.4) and not (fn == "xor_sum" and axis is None)
        if axis is None:
            shape: tuple[int, ...] = (1,) * rank if keep else ()
        elif keep:
            shape = tuple(1 if d == axis else n for d, n in enumerate(a.shape))
        else:
            shape = tuple(n for d, n in enumerate(a.shape) if d != axis)
        keep_text = ", keep_dims=True" if keep else ""
        written = axis
        if axis is not None and fn != "xor_sum" and self.chance(0.2):
            # Not xor_sum's: Triton's interpreter reduces with a combine function of its
            # own (not NumPy's) wrongly along a negative axis.
            written = axis - rank
        inexact = a.inexact or (fn == "sum" and not is_int(a.dtype))
        dtype = a.dtype
        if fn == "sum" and is_int(a.dtype) and int(a.dtype[-2:].strip("t")) < 32:
            dtype = "uint32" if a.dtype[0] == "u" else "int32"
        if fn == "max_idx":
            which = self.rng.choice(["max", "min"])
            tie = ", return_indices_tie_break_left=True" if self.chance(0.3) else ""
            text = f"tl.{which}({a.name}, {written}, return_indices=True{tie}{keep_text})"
            return self.bind(text, a.dtype, shape, a.inexact, second=True)
        if fn in ("argmax", "argmin"):
            tie = ", tie_break_left=True" if self.chance(0.3) else ""
            text = f"tl.{fn}({a.name}, {written}{tie}{keep_text})"
            return self.bind(text, "int32", shape, False)
        if fn == "sum" and self.chance(0.2):
            dtype = self.rng.choice(["int64", "fp32"] if is_int(a.dtype) else ["fp32"])
            text = f"tl.sum({a.name}, axis={written}{keep_text}, dtype={TL_NAME[dtype]})"
            return self.bind(text, dtype, shape, inexact or dtype[0] == "f")
        text = self.rng.choice(
            [
                f"tl.{fn}({a.name}, axis={written}{keep_text})",
                f"tl.{fn}({a.name}, {written}{keep_text})",
                f"{a.name}.{fn}({written}{keep_text})",
            ]
        )
        return self.bind(text, dtype, shape, inexact)

    def combine_for(self, dtype: str, scan: bool) -> str:
        names = ["_c_add", "_c_max", "_c_min", "_c_last"]
        if is_int(dtype):
            names += ["_c_mul", "_c_or", "_c_and", "_c_xor"]
        if not scan:
            names.remove("_c_last")  # a reduction's order of combining is not specified
        return self.rng.choice(names)

    def user_reduce(self) -> Val | None:
        a = self.pick(lambda v: v.shape)
        if a is None:
            return None
        rank = len(a.shape)
        axis = self.rng.randrange(rank)
        keep = self.chance(0.3)
        shape = tuple(1 if d == axis else n for d, n in enumerate(a.shape) if keep or d != axis)
        keep_text = ", keep_dims=True" if keep else ""
        if self.chance(0.25):
            b = self.pick(lambda v: v.shape == a.shape and is_int(v.dtype)) or a
            if not is_int(b.dtype):
                return None
            text = f"tl.reduce(({a.name}, {b.name}), {axis}, _c_pair{keep_text})"
            return self.bind(text, a.dtype, shape, a.inexact or a.dtype[0] == "f", second=True)
        fn = self.combine_for(a.dtype, scan=False)
        inexact = a.inexact or (fn in ("_c_add", "_c_mul") and not is_int(a.dtype))
        text = f"tl.reduce({a.name}, {axis}, {fn}{keep_text})"
        return self.bind(text, a.dtype, shape, inexact)

    def scan(self) -> Val | None:
        a = self.pick(lambda v: v.shape)
        if a is None:
            return None
        axis = self.rng.randrange(len(a.shape))
        reverse = ", reverse=True" if self.chance(0.4) else ""
        fn = self.rng.choice(["cumsum", "cumprod", "user", "user", "pair"])
        float_ = not is_int(a.dtype)
        dtype = a.dtype
        if fn in ("cumsum", "cumprod") and is_int(a.dtype) and a.dtype not in ("int32", "int64"):
            if a.dtype != "uint32":
                dtype = "uint32" if a.dtype[0] == "u" else "int32"
        if fn == "cumsum":
            text = f"tl.cumsum({a.name}, {axis}{reverse})"
            return self.bind(text, dtype, a.shape, a.inexact or float_)
        if fn == "cumprod":
            name = a.name
            if float_:  # powers of two and signs: exact, and within float16's range
                name = f"tl.where({name} < 0, -1.0, 1.0).to({TL_NAME[a.dtype]})"
            text = f"tl.cumprod({name}, axis={axis}{reverse})"
            return self.bind(text, dtype, a.shape, a.inexact or float_)
        if fn == "pair":
            b = self.pick(lambda v: v.shape == a.shape and is_int(v.dtype))
            if b is None:
                return None
            name = self.rng.choice(list(PAIR_COMBINE))
            text = f"tl.associative_scan(({a.name}, {b.name}), {axis}, {name}{reverse})"
            inexact = a.inexact or (float_ and name == "_c_pair")
            return self.bind(text, a.dtype, a.shape, inexact, second=True)
        name = self.combine_for(a.dtype, scan=True)
        operand = a.name
        inexact = a.inexact or (float_ and name == "_c_add")
        text = f"tl.associative_scan({operand}, {axis}, {name}{reverse})"
        return self.bind(text, a.dtype, a.shape, inexact)

    def sort(self) -> Val | None:
        a = self.pick(lambda v: v.shape and v.shape[-1] >= 2)
        if a is None:
            return None
        descending = self.rng.choice(["", ", descending=True", ", descending=False"])
        if self.chance(0.3):
            k = self.rng.choice(powers(1, a.shape[-1]))
            text = f"tl.topk({a.name}, {k})"
            return self.bind(text, a.dtype, a.shape[:-1] + (k,), a.inexact)
        dim = f", dim={len(a.shape) - 1}" if self.chance(0.3) else ""
        return self.bind(f"tl.sort({a.name}{dim}{descending})", a.dtype, a.shape, a.inexact)

    def histogram(self) -> Val | None:
        a = self.pick(lambda v: is_int(v.dtype) and v.shape)
        if a is None:
            return None
        bins = self.rng.choice(powers(2, 64))
        flat = a.name if len(a.shape) == 1 else f"tl.ravel({a.name})"
        if a.dtype != "int32" or self.chance(0.7):
            # Into [0, bins) (Triton's interpreter counts no negative value; out of range
            # above, values are dropped alike).
            flat = f"({flat} & {self.rng.choice([bins - 1, 2 * bins - 1])}).to(tl.int32)"
        mask = ""
        if self.chance(0.3):
            mask = f", mask={a.name if len(a.shape) == 1 else f'tl.ravel({a.name})'} > 0"
        return self.bind(f"tl.histogram({flat}, {bins}{mask})", "int32", (bins,), False)

    def gather(self) -> Val | None:
        a = self.pick(lambda v: v.shape)
        if a is None:
            return None
        axis = self.rng.randrange(len(a.shape))
        size = a.shape[axis]
        room = MAX_NUMEL * size // numel(a.shape)
        width = self.rng.choice(powers(1, min(room, MAX_DIM)))
        shape = tuple(width if d == axis else n for d, n in enumerate(a.shape))
        ints = self.pick(lambda v: v.shape == shape and is_int(v.dtype))
        if ints is not None and self.chance(0.6):
            index = f"({ints.name} & {size - 1})"
        else:
            values = self.nrng.integers(0, size, numel(shape)).astype(np.int32)
            index = self.load(self.rng.choice(["int32", "int64", "int16"]), shape, values).name
        text = f"tl.gather({a.name}, {index}, {axis if self.chance(0.7) else axis - len(shape)})"
        return self.bind(text, a.dtype, shape, a.inexact)

    # ---- dot ---------------------------------------------------------------------------

    def dot(self) -> Val | None:
        dtype = self.rng.choice(["int8", "fp16", "fp32"])
        batch = (2,) if self.chance(0.25) else ()
        limit = MAX_NUMEL // (batch[0] if batch else 1)
        while True:
            m, n, k = (self.rng.choice([16, 16, 32, 64]) for _ in range(3))
            if m * k <= limit and k * n <= limit and m * n <= limit:
                break
        a_name = self.load(dtype, batch + (m, k)).name if self.chance(0.4) else ""
        a = self.pick(lambda v: len(v.shape) in (2, 3) and min(v.shape[-2:]) >= 16)
        flat = self.pick(lambda v: numel(v.shape) in (256, 512, 1024))
        if a is None and flat is not None:
            rows = self.rng.choice([r for r in (16, 32, 64) if 16 <= numel(flat.shape) // r <= 64])
            shape = (rows, numel(flat.shape) // rows)
            a = Val(f"tl.reshape({flat.name}, {shape})", flat.dtype, shape, flat.inexact)
        if a is not None and not a_name and numel(a.shape) <= MAX_NUMEL:
            # A computed block as the left operand: its shape fixes M and K (and the batch).
            batch, (m, k) = a.shape[:-2], a.shape[-2:]
            limit = MAX_NUMEL // numel(batch)
            n = max(p for p in (16, 32, 64) if p == 16 or (k * p <= limit and m * p <= limit))
            if not is_int(a.dtype) and dtype == "int8":
                dtype = "fp32"
            a_name = a.name if a.dtype == dtype else f"{a.name}.to({TL_NAME[dtype]})"
        elif not a_name:
            a_name = self.load(dtype, batch + (m, k)).name
        if self.chance(0.3):
            transposed = self.load(dtype, batch + (n, k)).name
            b_name = self.rng.choice(
                [f"tl.trans({transposed})", f"{transposed}.T"][: 2 - len(batch)]
            )
            if self.chance(0.4):
                b_name = f"tl.permute({transposed}, {'(0, 2, 1)' if batch else '(1, 0)'})"
        else:
            b_name = self.load(dtype, batch + (k, n)).name
        out = "int32" if dtype == "int8" else "fp32"
        extra = ""
        if dtype == "fp16" and self.chance(0.25):
            out = "fp16"
            extra += ", out_dtype=tl.float16"
        if dtype == "fp32" or self.chance(0.3):
            extra += ', input_precision="ieee"'
        acc = self.rng.choice(["", "", "load", "zeros"])
        if acc == "load":
            extra = f", {self.load(out, batch + (m, n)).name}" + extra
        elif acc == "zeros":
            extra = f", acc=tl.zeros({list(batch + (m, n))}, {TL_NAME[out]})" + extra
        text = f"tl.dot({a_name}, {b_name}{extra})"
        return self.bind(text, out, batch + (m, n), out[0] == "f")

    # ---- glue --------------------------------------------------------------------------

    def where(self) -> Val | None:
        a = self.pick(lambda v: v.shape)
        if a is None:
            return None
        b = self.pick(lambda v: triton_fuzz.broadcast(v.shape, a.shape) == a.shape and v != a)
        other = b.name if b is not None and self.chance(0.7) else self.rng.choice(["0", "-1"])
        cond_source = self.pick(lambda v: triton_fuzz.broadcast(v.shape, a.shape) == a.shape) or a
        cond = f"{cond_source.name} > {self.rng.choice(['0', '1', '-2'])}"
        dtype = a.dtype if b is None else triton_fuzz.promote(a.dtype, b.dtype)
        inexact = a.inexact or (b is not None and b.inexact)
        if self.chance(0.5):
            text = f"tl.where({cond}, {a.name}, {other})"
        else:
            text = f"tl.where({cond}, {other}, {a.name})"
        return self.bind(text, dtype, a.shape, inexact)

    def arith(self) -> Val | None:
        """``a op b`` where `b` broadcasts to `a` (a keep_dims or lower-rank value)."""
        a = self.pick(lambda v: v.shape)
        if a is None:
            return None
        b = self.pick(lambda v: triton_fuzz.broadcast(v.shape, a.shape) == a.shape and v != a)
        if b is None:
            axis = self.rng.randrange(len(a.shape))
            fn = self.rng.choice(["max", "min"] + (["xor_sum"] if is_int(a.dtype) else []))
            b = Val(f"tl.{fn}({a.name}, {axis}, keep_dims=True)", a.dtype, a.shape, a.inexact)
        op = self.rng.choice(["+", "-", "*"] if is_int(a.dtype) or is_int(b.dtype) else ["+", "-"])
        inexact = a.inexact or b.inexact
        dtype = triton_fuzz.promote(a.dtype, b.dtype)
        return self.bind(f"{a.name} {op} {b.name}", dtype, a.shape, inexact)

    def cast(self) -> Val | None:
        a = self.pick(lambda v: v.shape)
        if a is None:
            return None
        target = self.rng.choice(DTYPES)
        text = a.name
        if not is_int(a.dtype) and is_int(target):
            # Within range: out of range is poison in compiled Triton.
            text = f"tl.minimum(tl.maximum({text}, -100.0), 100.0)"
            if target[0] == "u":
                text = f"tl.maximum({text}, 0.0)"
        return self.bind(f"{text}.to({TL_NAME[target]})", target, a.shape, a.inexact)

    def generate(self, name: str) -> ShapeCase:
        rank = self.rng.choice([1, 2, 2])
        self.load(self.rng.choice(DTYPES), self.random_shape(rank))
        if self.chance(0.4):
            self.load(self.rng.choice(DTYPES), self.random_shape(self.rng.choice([1, 2])))
        makers = [
            self.reshape,
            self.permute,
            self.expand,
            self.squeeze,
            self.broadcast,
            self.pairing,
            self.pairing,
            self.split,
            self.flip,
            self.reduction,
            self.reduction,
            self.user_reduce,
            self.scan,
            self.scan,
            self.sort,
            self.histogram,
            self.gather,
            self.dot,
            self.where,
            self.arith,
            self.cast,
        ]
        wanted = self.rng.randint(2, 6)
        while len(self.statements) < wanted:
            self.rng.choice(makers)()
        return ShapeCase(name, self.loads, self.statements, self.arrays, self.scalars)


FAMILIES = {
    "reshape": r"\breshape\(|tl\.ravel\(",
    "permute": r"tl\.trans\(|tl\.permute\(|\.T\b|\.trans\(|\.permute\(",
    "expand_dims": r"expand_dims\(|unsqueeze\(|\[None|, None\]",
    "squeeze": r"tl\.squeeze\(",
    "broadcast_to": r"tl\.broadcast_to\(",
    "join": r"tl\.join\(",
    "split": r"split\(",
    "interleave": r"tl\.interleave\(",
    "cat": r"tl\.cat\(",
    "flip": r"tl\.flip\(",
    "sum": r"\bsum\(",
    "max/min": r"\b(max|min)\(",
    "argmax/argmin": r"\barg(max|min)\(|return_indices=True",
    "xor_sum": r"xor_sum\(",
    "reduce": r"tl\.reduce\(",
    "cumsum/cumprod": r"tl\.cum(sum|prod)\(",
    "associative_scan": r"tl\.associative_scan\(",
    "sort/topk": r"tl\.(sort|topk)\(",
    "histogram": r"tl\.histogram\(",
    "gather": r"tl\.gather\(",
    "dot": r"tl\.dot\(",
    "where": r"tl\.where\(",
    "masked load": r"mask=",  # looked for in the loads
}
"""The op families a kernel may draw, and how to spot each in its source."""


def families(case: ShapeCase) -> set[str]:
    """The op families `case` uses (in its ops and loads, not its store)."""
    ops = "\n".join(case.statements[i].text for i in case.live())
    loads = "\n".join(case.loads)
    return {
        name
        for name, pattern in FAMILIES.items()
        if re.search(pattern, loads if name == "masked load" else ops)
    }


def kernel(seed: int) -> ShapeCase:
    return Generator(seed).generate(f"k{seed}")


def fuzz(
    count: int,
    seed: int,
    triton_python: str,
    workdir: Path,
    batch: int = 100,
    timeout: float = 900,
) -> tuple[list[Any], list[Any]]:
    """Generate and run `count` kernels from `seed`; every outcome and the mismatches, each
    cut to its shortest prefix that disagrees the same way."""
    outcomes: list[Any] = []
    first = seed * 100_000
    for start in range(0, count, batch):
        cases = [kernel(first + i) for i in range(start, min(count, start + batch))]
        found = triton_fuzz.run_cases(cases, workdir / f"batch{start}", triton_python, timeout)  # type: ignore[arg-type]
        outcomes += found
    mismatches = [
        triton_fuzz.smallest(o, workdir / f"cut_{o.case.name}", triton_python, timeout)
        for o in outcomes
        if o.mismatch is not None
    ]
    return outcomes, mismatches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--report", type=Path, default=Path("shape_fuzz_report.md"))
    parser.add_argument("--triton-python", default=os.environ.get("BLKC_TRITON_PYTHON"))
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    if not args.triton_python:
        parser.error("needs --triton-python or $BLKC_TRITON_PYTHON: a Python with triton")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="shape_fuzz_"))
    started = time.time()
    outcomes, mismatches = fuzz(
        args.count,
        args.seed,
        args.triton_python,
        workdir,
        args.batch_size,
    )
    text = triton_fuzz.summary(outcomes) + f" ({time.time() - started:.0f} s)\n\n"
    args.report.write_text(text + "\n".join(triton_fuzz.reproducer(m) for m in mismatches))
    print(text.strip(), f"report: {args.report}", sep="\n")
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
