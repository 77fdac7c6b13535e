"""A generator of small random blk kernels for the differential tests.

`kernels()` is a Hypothesis strategy of `GeneratedKernel`: the text of a *loose* blk
kernel under the default triton policy, its grid, its arguments and how to check each
array it writes. A kernel is

- a tile of lanes per program (1-D ``[B]`` or 2-D ``[R, C]``) over a grid of 1 to 3
  programs, whose lanes at offsets ``>= n`` are masked off;
- leaves: masked tile loads with an optional `other` literal, and in 2-D kernels masked
  row and column loads widened with `blk.expand_dims` (so that operands broadcast),
  scalar loads, scalar parameters and weak literals, of random dtypes (operands of
  different dtypes on purpose: `promote-types` inserts the casts);
- 5 to 15 elementwise ops (``add sub mul truediv floordiv mod minimum maximum neg abs
  cmp where cast and or xor shl shr exp sqrt``, `floordiv`/`mod` with rounding ``floor``,
  ``trunc`` or left to the policy, explicit `blk.broadcast`/`blk.splat`), whose result
  types the policy decides (the generator asks it, as the verifier does, and drops what it
  refuses);
- optionally a reduction (``sum max min argmax argmin``, along one axis or all) stored
  per program, then masked stores of some of the values, possibly into a pointer of
  another dtype (loose stores convert), and last, sometimes, a store in place into an
  array the kernel loaded from.

Dtypes: bool, int8 to int64, uint8 to uint32, float16, bfloat16, float32, float64 and
the two fp8 types. Float literals include values that are not float32 numbers, so that
conversions to bfloat16 and fp8 from float64 (and from wide integers) are exercised: both
sides round them through float32, as docs/semantics.md now says.

What the generator still leaves out: two shapes of kernel that exposed bugs, both fixed
since and pinned as regression tests in `test_found_discrepancies.py`; generating them
again is future work:

- bool arithmetic on scalars (the interpreter stopped on it);
- a store in place followed by another use of a value computed from the old contents (the
  compiled code recomputed the value after the store).

Where the spec leaves room:

- the sign of zero after a float ``minimum`` or ``maximum`` (NumPy's ``minimum(-0.0,
  0.0)`` depends on the dtype, the compiled code orders ``-0.0 < 0.0``): such values are
  never divisors, where the sign would show, and outputs computed from them compare
  ``-0.0`` equal to ``0.0``;
- `blk.exp` need only be within a few ulp (the compiled one is not correctly rounded,
  the interpreter's is): its results never go where a last-place difference could jump
  (comparisons, `floordiv`, `mod`, `abs`, casts to integers or bool, `exp` again,
  divisors, `argmax`, an op with two such operands). What remains is monotone in each
  `exp` result, which makes the envelope check of `test_random_kernels.check_kernel`
  sound.

Float scalar parameters take values of their own dtype or any float64 (which the kernel
rounds to the parameter's dtype, like a cast).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import numpy as np
from hypothesis import strategies as st

from blkc import dtypes
from blkc.dialects.traits import Computation
from blkc.dtypes import DType
from blkc.passes.promotion import get_policy
from blkc.passes.promotion.base import Decision, Operand, PromotionError

from .harness import Argument, random_values

POLICY = get_policy("triton")

NUMBER_DTYPES: tuple[DType, ...] = (
    dtypes.int8,
    dtypes.int16,
    dtypes.int32,
    dtypes.int64,
    dtypes.uint8,
    dtypes.uint16,
    dtypes.uint32,
    dtypes.float16,
    dtypes.bfloat16,
    dtypes.float32,
    dtypes.float64,
    dtypes.float8_e4m3fn,
    dtypes.float8_e5m2,
)
ALL_DTYPES: tuple[DType, ...] = (dtypes.bool_, *NUMBER_DTYPES)

INT_LITERALS = (0, 1, 2, 3, 5, 7, -1, -2, -7, 31, 100, -128, 255, 2**31 - 1, -(2**31))
FLOAT_LITERALS = tuple(
    float(np.float32(v))
    for v in (0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.75, 0.1, 1e-3, 3e4, 1e30, np.inf, -np.inf, np.nan)
) + (0.1, 1 / 3, 1 + 2**-8 + 2**-30)

BINARY: dict[str, Computation] = {
    "add": Computation.ARITH,
    "sub": Computation.ARITH,
    "mul": Computation.ARITH,
    "minimum": Computation.ARITH,
    "maximum": Computation.ARITH,
    "truediv": Computation.TRUEDIV,
    "floordiv": Computation.FLOORDIV,
    "mod": Computation.MOD,
    "and": Computation.BITWISE,
    "or": Computation.BITWISE,
    "xor": Computation.BITWISE,
    "shl": Computation.SHIFT,
    "shr": Computation.SHIFT,
    "cmp": Computation.COMPARE,
}
UNARY: dict[str, Computation] = {
    "neg": Computation.ARITH,
    "abs": Computation.ARITH,
    "exp": Computation.FLOAT_MATH,
    "sqrt": Computation.FLOAT_MATH,
}
OPS: tuple[str, ...] = (*BINARY, *UNARY, "where", "cast", "broadcast")
EXP_SAFE = frozenset({"add", "sub", "mul", "minimum", "maximum", "truediv", "neg", "sqrt"})
"""The ops that may take a value computed from `exp` (see the module docstring)."""
PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


# --------------------------------------------------------------------------------------
# Values, arguments and checks
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """An SSA value of the kernel being built."""

    name: str
    dtype: DType | None
    """None for a weak literal."""
    shape: tuple[int, ...]
    literal: bool | int | float | None = None
    from_exp: bool = False
    """Computed from a `blk.exp` result (not correctly rounded in the compiled code)."""
    zero_sign_unspecified: bool = False
    """A float whose zeros may have either sign (it went through a float min or max)."""

    @property
    def type(self) -> str:
        if self.dtype is None:
            kind = {bool: "bool", int: "int", float: "float"}[type(self.literal)]
            return f"!blk.weak<{kind}>"
        return type_text(self.dtype.mlir, self.shape)

    @property
    def operand(self) -> Operand:
        """The value as the promotion policy sees it."""
        if self.dtype is None:
            assert self.literal is not None
            return Operand.literal(self.literal)
        return Operand.typed(self.dtype, len(self.shape))


def type_text(element: str, shape: tuple[int, ...]) -> str:
    """``f32`` for a scalar, ``tensor<4x8xf32>`` for a block."""
    return f"tensor<{'x'.join(map(str, shape))}x{element}>" if shape else element


def ptr_text(d: DType, shape: tuple[int, ...] = ()) -> str:
    return type_text(f"!blk.ptr<{d.mlir}>", shape)


Check: TypeAlias = Literal["exact", "zeros-equal", "envelope", "sum", "max", "min"]


@dataclass(frozen=True)
class Output:
    """An array the kernel writes and how it is checked.

    ``exact``: bit for bit; ``zeros-equal``: bit for bit but ``-0.0 == 0.0``;
    ``envelope``: between the interpreter's runs with `exp` nudged down and up;
    ``sum``, ``max``, ``min``: a float reduction, bounded from the values it reduced,
    which the kernel also stores into the argument `source` (a tile per program).
    """

    position: int
    check: Check
    source: int | None = None
    axis: int | None = None
    """The reduced axis of the tile; None for all axes."""


@dataclass
class GeneratedKernel:
    """A random kernel, its launch and its checks."""

    text: str
    grid: tuple[int, ...]
    args: list[Argument]
    outputs: list[Output]
    tile: tuple[int, ...]
    uses_exp: bool

    def __repr__(self) -> str:
        """The grid, the arguments (with their values) and the kernel's text."""
        lines = [f"grid {self.grid}, arguments:"]
        for i, a in enumerate(self.args):
            if isinstance(a, np.ndarray):
                values = np.array2string(a, separator=", ", threshold=64).replace("\n", "")
                lines.append(f"  {i}: {a.dtype}[{a.size}] {values}")
            else:
                lines.append(f"  {i}: {a!r}")
        return "\n".join([*lines, self.text])


# --------------------------------------------------------------------------------------
# The builder
# --------------------------------------------------------------------------------------


class _Refused(Exception):
    """The drawn op is not one the generator may emit; draw another."""


@dataclass
class _Param:
    """A kernel parameter and how to make its argument from a random generator."""

    name: str
    type: str
    make: Callable[[np.random.Generator], Argument]


@dataclass
class _Builder:
    """Builds one kernel: its parameters, its body (lines of loose IR), its outputs."""

    draw: st.DrawFn
    tile: tuple[int, ...]
    programs: int
    n: int
    """Lanes (over all programs) that are not masked off."""
    row_limit: int
    """Masks the row and column loads of 2-D tiles: lanes at index ``>= row_limit``."""
    params: list[_Param] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    pool: list[Value] = field(default_factory=list)
    """Every typed value so far: leaves and op results."""
    results: list[Value] = field(default_factory=list)
    """The op results, in order."""
    used: set[str] = field(default_factory=set)
    """The names of the values some op takes."""
    tile_inputs: list[tuple[str, DType]] = field(default_factory=list)
    """The parameters read by tile loads, and their dtypes."""
    outputs: list[Output] = field(default_factory=list)
    counter: int = 0
    uses_exp: bool = False
    row_limit_param: str = ""

    # -- small helpers -----------------------------------------------------------------

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def param(self, type_: str, make: Callable[[np.random.Generator], Argument]) -> str:
        name = f"%a{len(self.params)}"
        self.params.append(_Param(name, type_, make))
        return name

    def choose(self, options: tuple[Any, ...] | list[Any]) -> Any:
        return self.draw(st.sampled_from(options))

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 999)) < p * 1000

    @property
    def tile_size(self) -> int:
        return int(np.prod(self.tile))

    # -- the frame: offsets and masks --------------------------------------------------

    def frame(self) -> None:
        """Program id, the tile's offsets and mask (``offset < n``), and for 2-D tiles the
        row and column indices."""
        n = self.param("i32", lambda rng: self.n)
        self.row_limit_param = self.param("i32", lambda rng: self.row_limit)
        self.emit("%pid = blk.program_id 0 : i32")
        self.emit(f"%tile_size = blk.literal {self.tile_size} : !blk.weak<int>")
        self.emit("%start = blk.mul %pid, %tile_size : i32, !blk.weak<int> -> i32")
        if len(self.tile) == 1:
            (b,) = self.tile
            self.emit(f"%local = blk.arange 0, {b} : tensor<{b}xi32>")
        else:
            r, c = self.tile
            self.emit(f"%rows = blk.arange 0, {r} : tensor<{r}xi32>")
            self.emit(f"%cols = blk.arange 0, {c} : tensor<{c}xi32>")
            self.emit(
                f"%rows2 = blk.expand_dims %rows axis = 1 : tensor<{r}xi32> -> tensor<{r}x1xi32>"
            )
            self.emit(
                f"%cols2 = blk.expand_dims %cols axis = 0 : tensor<{c}xi32> -> tensor<1x{c}xi32>"
            )
            self.emit(f"%width = blk.literal {c} : !blk.weak<int>")
            self.emit(
                f"%row_start = blk.mul %rows2, %width : tensor<{r}x1xi32>, !blk.weak<int> "
                f"-> tensor<{r}x1xi32>"
            )
            self.emit(
                f"%local = blk.add %row_start, %cols2 : tensor<{r}x1xi32>, tensor<1x{c}xi32> "
                f"-> tensor<{r}x{c}xi32>"
            )
        offsets = type_text("i32", self.tile)
        self.emit(f"%offsets = blk.add %start, %local : i32, {offsets} -> {offsets}")
        self.emit(
            f"%mask = blk.cmp lt, %offsets, {n} : {offsets}, i32 -> {type_text('i1', self.tile)}"
        )

    # -- leaves ------------------------------------------------------------------------

    def literal(self, kind: str, within: DType | None = None) -> Value:
        """A new weak literal of `kind` (``bool``, ``int``, ``float``); an integer one
        in the range of `within` when given."""
        value: bool | int | float
        if kind == "bool":
            value = self.draw(st.booleans())
            text = "true" if value else "false"
        elif kind == "int":
            value = self.choose([v for v in INT_LITERALS if within is None or _fits(v, within)])
            text = str(value)
        else:
            value = self.choose(FLOAT_LITERALS)
            text = _float_text(value)
        name = self.fresh("lit")
        self.emit(f"{name} = blk.literal {text} : !blk.weak<{kind}>")
        return Value(name, None, (), literal=value)

    def leaf(self, d: DType) -> Value:
        """A new value of dtype `d` read from the arguments."""
        forms = ["tile", "tile", "tile", "scalar-load", "param"]
        if len(self.tile) == 2:
            forms += ["row", "column"]
        form = self.choose(forms)
        name = self.fresh()
        if form == "param":
            values = np.dtype(np.float64) if d.is_float and self.chance(0.5) else d.numpy
            arg = self.param(d.mlir, lambda rng: _python_scalar(random_values(rng, values, (1,))))
            return Value(arg, d, ())
        if form == "scalar-load":
            arg = self.param(ptr_text(d), lambda rng: random_values(rng, d.numpy, (1,)))
            self.emit(f"{name} = blk.load {arg} : {ptr_text(d)} -> {d.mlir}")
            return Value(name, d, ())
        if form == "tile":
            size = self.n
            arg = self.param(ptr_text(d), lambda rng: random_values(rng, d.numpy, (size,)))
            self.tile_inputs.append((arg, d))
            return self.masked_load(name, arg, d, self.tile, "%offsets", "%mask")
        r, c = self.tile
        length, index, axis = (c, "%cols", 0) if form == "row" else (r, "%rows", 1)
        arg = self.param(ptr_text(d), lambda rng: random_values(rng, d.numpy, (length,)))
        mask = self.fresh("m")
        self.emit(
            f"{mask} = blk.cmp lt, {index}, {self.row_limit_param} : "
            f"tensor<{length}xi32>, i32 -> tensor<{length}xi1>"
        )
        flat = self.masked_load(self.fresh(), arg, d, (length,), index, mask)
        wide = (1, length) if axis == 0 else (length, 1)
        self.emit(
            f"{name} = blk.expand_dims {flat.name} axis = {axis} : {flat.type} -> "
            f"{type_text(d.mlir, wide)}"
        )
        return Value(name, d, wide)

    def masked_load(
        self, name: str, arg: str, d: DType, shape: tuple[int, ...], offsets: str, mask: str
    ) -> Value:
        """``name = load arg + offsets mask mask``, with `other` (a literal) or without."""
        ptrs = self.fresh("p")
        self.emit(
            f"{ptrs} = blk.addptr {arg}, {offsets} : {ptr_text(d)}, {type_text('i32', shape)} "
            f"-> {ptr_text(d, shape)}"
        )
        mask_type = type_text("i1", shape)
        if self.chance(0.6):
            other = self.literal("bool" if d.is_bool else "int" if d.is_int else "float", d)
            self.emit(
                f"{name} = blk.load {ptrs} mask {mask} other {other.name} : {ptr_text(d, shape)}, "
                f"{mask_type}, {other.type} -> {type_text(d.mlir, shape)}"
            )
        else:
            self.emit(
                f"{name} = blk.load {ptrs} mask {mask} : {ptr_text(d, shape)}, {mask_type} "
                f"-> {type_text(d.mlir, shape)}"
            )
        return Value(name, d, shape)

    def operand(self, allow_literal: bool = True) -> Value:
        """An existing value, or a new leaf or literal."""
        roll = self.draw(st.integers(0, 9))
        if allow_literal and roll == 9:
            return self.literal(self.choose(("int", "int", "float", "bool")))
        if self.pool and roll < 5:
            value = self.choose(self.pool)
        else:
            value = self.leaf(self.choose(ALL_DTYPES))
            self.pool.append(value)
        self.used.add(value.name)
        return value

    # -- ops ---------------------------------------------------------------------------

    def op(self) -> None:
        """Append one random op (drawing again when the drawn one is refused)."""
        for _ in range(20):
            name = self.choose(OPS)
            try:
                value = self._op(name)
            except _Refused:
                continue
            self.pool.append(value)
            self.results.append(value)
            return

    def _op(self, name: str) -> Value:
        """The op `name`, or `_Refused`."""
        if name in BINARY:
            return self.binary(name)
        if name in UNARY:
            return self.unary(name)
        if name == "where":
            return self.where()
        if name == "cast":
            return self.cast()
        return self.broadcast()

    def decide(self, computation: Computation, operands: list[Value]) -> Decision:
        """The policy's decision for an op on `operands` (refused when it refuses)."""
        try:
            return POLICY.decide(computation, [o.operand for o in operands])
        except PromotionError:
            raise _Refused from None

    def binary(self, name: str) -> Value:
        """A binary op (or a comparison) on two operands, typed or literal."""
        lhs, rhs = self.operand(), self.operand()
        if lhs.dtype is None and rhs.dtype is None and self.chance(0.8):
            raise _Refused  # literal arithmetic folds: rarely worth a kernel
        if name in ("shl", "shr") and not (_is_int(lhs) and _is_int(rhs)):
            raise _Refused  # the verifier takes integers only (not bools) for shifts
        decision = self.decide(BINARY[name], [lhs, rhs])
        _check_exp_use(name, lhs, rhs)
        is_float = decision.compute.is_float
        if is_float and name in ("truediv", "floordiv") and rhs.zero_sign_unspecified:
            raise _Refused  # x / -0.0 is -inf: see the module docstring
        clauses, prefix = "", ""
        if name in ("floordiv", "mod"):
            rounding = self.choose(("policy", "floor", "trunc"))
            if rounding != "policy":
                clauses = f" rounding = {rounding}"
        if name == "cmp":
            prefix = f"{self.choose(PREDICATES)}, "
        shape = np.broadcast_shapes(lhs.shape, rhs.shape)
        if name != "cmp" and decision.compute.is_bool and not shape:
            raise _Refused  # the interpreter fails on it: see the module docstring
        result = Value(
            self.fresh(),
            decision.result,
            shape,
            from_exp=lhs.from_exp or rhs.from_exp,
            zero_sign_unspecified=decision.result.is_float
            and (
                lhs.zero_sign_unspecified
                or rhs.zero_sign_unspecified
                or (name in ("minimum", "maximum") and is_float)
            ),
        )
        self.emit(
            f"{result.name} = blk.{name} {prefix}{lhs.name}, {rhs.name}{clauses} : "
            f"{lhs.type}, {rhs.type} -> {result.type}"
        )
        return result

    def unary(self, name: str) -> Value:
        """neg, abs, exp or sqrt of a typed operand."""
        x = self.operand(allow_literal=False)
        decision = self.decide(UNARY[name], [x])
        _check_exp_use(name, x)
        if decision.compute.is_bool and not x.shape:
            raise _Refused  # the interpreter fails on it: see the module docstring
        if name == "exp":
            self.uses_exp = True
        result = Value(
            self.fresh(),
            decision.result,
            x.shape,
            from_exp=x.from_exp or name == "exp",
            zero_sign_unspecified=x.zero_sign_unspecified and decision.result.is_float,
        )
        self.emit(f"{result.name} = blk.{name} {x.name} : {x.type} -> {result.type}")
        return result

    def where(self) -> Value:
        """A select on a bool value of the pool (or a new bool leaf)."""
        conditions = [v for v in self.pool if v.dtype == dtypes.bool_]
        if conditions:
            cond = self.choose(conditions)
        else:
            cond = self.leaf(dtypes.bool_)
            self.pool.append(cond)
        self.used.add(cond.name)
        a, b = self.operand(), self.operand()
        decision = self.decide(Computation.SELECT, [a, b])
        _check_exp_use("where", a, b)
        shape = np.broadcast_shapes(cond.shape, a.shape, b.shape)
        result = Value(
            self.fresh(),
            decision.result,
            shape,
            from_exp=a.from_exp or b.from_exp,
            zero_sign_unspecified=decision.result.is_float
            and (a.zero_sign_unspecified or b.zero_sign_unspecified),
        )
        self.emit(
            f"{result.name} = blk.where {cond.name}, {a.name}, {b.name} : "
            f"{cond.type}, {a.type}, {b.type} -> {result.type}"
        )
        return result

    def cast(self) -> Value:
        """An explicit cast of a typed operand to any dtype."""
        x = self.operand(allow_literal=False)
        assert x.dtype is not None
        target = self.choose(ALL_DTYPES)
        if x.from_exp and not target.is_float:
            raise _Refused
        result = Value(
            self.fresh(),
            target,
            x.shape,
            from_exp=x.from_exp,
            zero_sign_unspecified=x.zero_sign_unspecified and target.is_float,
        )
        self.emit(f"{result.name} = blk.cast {x.name} : {x.type} -> {result.type}")
        return result

    def broadcast(self) -> Value:
        """An explicit splat or broadcast of a value smaller than the tile."""
        small = [v for v in self.pool if v.shape != self.tile]
        if not small:
            raise _Refused
        x = self.choose(small)
        self.used.add(x.name)
        return self.widen(x)

    def widen(self, x: Value) -> Value:
        """`x` as a full tile: `blk.splat` of a scalar, `blk.broadcast` of a block."""
        if x.shape == self.tile:
            return x
        result = Value(
            self.fresh(), x.dtype, self.tile, x.literal, x.from_exp, x.zero_sign_unspecified
        )
        how = "splat" if not x.shape else "broadcast"
        self.emit(f"{result.name} = blk.{how} {x.name} : {x.type} -> {result.type}")
        return result

    # -- stores and reductions ---------------------------------------------------------

    def store(self, x: Value) -> None:
        """Store `x` (broadcast to the tile), masked, into a new output, possibly
        converting it to another dtype."""
        assert x.dtype is not None
        target = x.dtype
        if self.chance(0.3):
            target = self.choose(ALL_DTYPES)
            if x.from_exp and not target.is_float:
                target = x.dtype
        size = self.n
        arg = self.param(ptr_text(target), lambda rng: random_values(rng, target.numpy, (size,)))
        self.store_tile(x, arg, target)

    def store_in_place(self, x: Value) -> None:
        """Store `x` (broadcast to the tile), masked, into an array of its dtype that tile
        loads read (the loaded values must be the old ones), if there is one."""
        arrays = [arg for arg, d in self.tile_inputs if d == x.dtype]
        if arrays:
            assert x.dtype is not None
            self.store_tile(x, self.choose(arrays), x.dtype)

    def store_tile(self, x: Value, arg: str, target: DType) -> None:
        """The masked store of `x` into the tile of `arg` (pointing to `target`)."""
        ptrs = self.fresh("p")
        tile_i32, tile_i1 = type_text("i32", self.tile), type_text("i1", self.tile)
        self.emit(
            f"{ptrs} = blk.addptr {arg}, %offsets : {ptr_text(target)}, {tile_i32} "
            f"-> {ptr_text(target, self.tile)}"
        )
        self.emit(
            f"blk.store {ptrs}, {x.name} mask %mask : {ptr_text(target, self.tile)}, {x.type}, "
            f"{tile_i1}"
        )
        self.add_output(arg, _elementwise_check(x, target))

    def add_output(
        self, arg: str, check: Check, source: str | None = None, axis: int | None = None
    ) -> None:
        names = [p.name for p in self.params]
        source_position = None if source is None else names.index(source)
        self.outputs.append(Output(names.index(arg), check, source_position, axis))

    def reduce(self, x: Value) -> None:
        """Reduce `x` (widened to the tile) along an axis or all of them; store the result
        per program (and, for float reductions that need it, the tile reduced)."""
        assert x.dtype is not None
        kinds = ["sum", "max", "min"]
        if not x.from_exp:
            kinds += ["argmax", "argmin"]
        kind = self.choose(kinds)
        axes: list[int | None] = [None, *range(len(self.tile))]
        axis = self.choose(axes)
        tile = self.widen(x)
        assert tile.dtype is not None
        if kind in ("argmax", "argmin"):
            result_dtype = dtypes.int32
        elif kind == "sum":
            result_dtype = POLICY.sum_dtype(tile.dtype)
        else:
            result_dtype = tile.dtype
        shape = () if axis is None else tuple(s for i, s in enumerate(self.tile) if i != axis)
        name = self.fresh()
        clause = "" if axis is None else f" axis = {axis}"
        result_type = type_text(result_dtype.mlir, shape)
        self.emit(f"{name} = blk.reduce {kind}, {tile.name}{clause} : {tile.type} -> {result_type}")
        # One slot per program: out[pid] for a scalar, out[pid * L : pid * L + L] otherwise.
        length = int(np.prod(shape))
        arg = self.param(
            ptr_text(result_dtype),
            lambda rng: random_values(rng, result_dtype.numpy, (self.programs * length,)),
        )
        self.store_per_program(arg, result_dtype, name, shape)
        source = None
        check: Check = "exact"
        if result_dtype.is_float and kind == "sum":
            check = "sum"
        elif result_dtype.is_float and kind in ("max", "min"):
            check = kind if tile.from_exp else "zeros-equal"
        if check in ("sum", "max", "min"):
            d = tile.dtype
            source = self.param(
                ptr_text(d),
                lambda rng: random_values(rng, d.numpy, (self.programs * self.tile_size,)),
            )
            self.store_per_program(source, d, tile.name, self.tile)
            self.add_output(source, _elementwise_check(tile, d))
        self.add_output(arg, check, source, axis)

    def store_per_program(self, arg: str, d: DType, value: str, shape: tuple[int, ...]) -> None:
        """Store `value` (of `shape`) unmasked into the `pid`-th slot of `arg`."""
        if not shape:
            ptr = self.fresh("p")
            self.emit(f"{ptr} = blk.addptr {arg}, %pid : {ptr_text(d)}, i32 -> {ptr_text(d)}")
            self.emit(f"blk.store {ptr}, {value} : {ptr_text(d)}, {d.mlir}")
            return
        length = int(np.prod(shape))
        lanes, offsets, base = self.fresh("i"), self.fresh("o"), self.fresh("o")
        flat = type_text("i32", (length,))
        self.emit(f"{lanes} = blk.arange 0, {length} : {flat}")
        self.emit(f"{base} = blk.literal {length} : !blk.weak<int>")
        start = self.fresh("o")
        self.emit(f"{start} = blk.mul %pid, {base} : i32, !blk.weak<int> -> i32")
        self.emit(f"{offsets} = blk.add {start}, {lanes} : i32, {flat} -> {flat}")
        if len(shape) > 1:
            shaped = self.fresh("o")
            self.emit(f"{shaped} = blk.reshape {offsets} : {flat} -> {type_text('i32', shape)}")
            offsets = shaped
        ptrs = self.fresh("p")
        self.emit(
            f"{ptrs} = blk.addptr {arg}, {offsets} : {ptr_text(d)}, {type_text('i32', shape)} "
            f"-> {ptr_text(d, shape)}"
        )
        self.emit(f"blk.store {ptrs}, {value} : {ptr_text(d, shape)}, {type_text(d.mlir, shape)}")

    # -- the kernel --------------------------------------------------------------------

    def finish(self, rng: np.random.Generator) -> GeneratedKernel:
        signature = ", ".join(f"{p.name}: {p.type}" for p in self.params)
        text = "\n".join(
            [
                'module attributes {blk.policy = "triton"} {',
                f"  func.func @random({signature}) attributes {{blk.kernel}} {{",
                *self.lines,
                "    func.return",
                "  }",
                "}",
                "",
            ]
        )
        args = [p.make(rng) for p in self.params]
        return GeneratedKernel(text, (self.programs,), args, self.outputs, self.tile, self.uses_exp)


def _float_text(value: float) -> str:
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def _python_scalar(values: np.ndarray[Any, Any]) -> Argument:
    value = values[0]
    if values.dtype == np.bool_:
        return bool(value)
    if values.dtype.kind in "iu":
        return int(value)
    return float(value)


def _fits(value: int, d: DType) -> bool:
    low, high = d.int_range
    return low <= value <= high


def _is_int(value: Value) -> bool:
    if value.dtype is None:
        return type(value.literal) is int
    return value.dtype.is_int


def _check_exp_use(op: str, *operands: Value) -> None:
    """Refuse an op that takes `exp` results where a last-place difference could jump."""
    tainted = [o for o in operands if o.from_exp]
    if not tainted:
        return
    if len(tainted) > 1 or (op not in EXP_SAFE and op != "where"):
        raise _Refused
    if op == "truediv" and operands[1].from_exp:
        raise _Refused


def _elementwise_check(x: Value, target: DType) -> Check:
    if not target.is_float:
        return "exact"
    if x.from_exp:
        return "envelope"
    return "zeros-equal" if x.zero_sign_unspecified else "exact"


@st.composite
def kernels(draw: st.DrawFn) -> GeneratedKernel:
    """A random kernel (see the module docstring)."""
    if draw(st.booleans()):
        tile: tuple[int, ...] = (draw(st.sampled_from((1, 2, 3, 4, 7, 8, 16, 33))),)
    else:
        tile = (draw(st.sampled_from((1, 2, 3, 4))), draw(st.sampled_from((1, 2, 3, 5, 8))))
    programs = draw(st.integers(1, 3))
    size = int(np.prod(tile))
    n = draw(st.integers(0, programs * size))
    row_limit = draw(st.integers(0, max(tile)))
    builder = _Builder(draw, tile, programs, n, row_limit)
    builder.frame()
    for _ in range(draw(st.integers(5, 15))):
        builder.op()
    # Store the last result and some of the results no op takes (others feed into them).
    computed = builder.results or builder.pool or [builder.leaf(dtypes.float32)]
    unused = [v for v in computed[:-1] if v.name not in builder.used] or computed
    if draw(st.integers(0, 9)) < 4:
        builder.reduce(draw(st.sampled_from(computed)))
    builder.store(computed[-1])
    for _ in range(draw(st.integers(0, 2))):
        builder.store(draw(st.sampled_from(unused)))
    # Last: no value computed before an in-place store may be read after it (the compiled
    # code would read the new contents: test_found_discrepancies.py).
    if draw(st.integers(0, 9)) < 3:
        builder.store_in_place(draw(st.sampled_from(computed)))
    seed = draw(st.integers(0, 2**32 - 1))
    return builder.finish(np.random.default_rng(seed))
