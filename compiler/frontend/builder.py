"""Building loose blk IR from a frontend, one located value at a time.

Both frontends (the Python `@blkc.jit` DSL and Triton-C) drive this builder. It gives each
loose op the result type its verifier expects (the policy's dtype over the broadcast
shape), reports promotion and broadcast errors at the user's source position as soon as
they arise, and builds `scf` control flow from callbacks:

    b = IRBuilder("triton", "kernel.py")
    x_ptr, n = b.begin_kernel("copy", [("x_ptr", PtrType(f32)), ("n", i32)])
    b.at(3, 5)                                   # what follows comes from line 3, column 5
    offsets = b.arange(0, 16)
    mask = b.compare("lt", offsets, n)
    ...
    b.end_kernel()
    module = b.module
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FileLineColLoc,
    FunctionType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    UnknownLoc,
    i1,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from blkc import dtypes
from blkc.broadcasting import BroadcastError, broadcast_shapes, format_shape
from blkc.diagnostics import BlkcError, SourceLocation, error_at
from blkc.dialects import blk
from blkc.dialects.promotion import decide
from blkc.dialects.traits import Computation, Promotes
from blkc.dialects.types import (
    PtrType,
    WeakType,
    block_of,
    dtype_of,
    element_type,
    shape_of,
    typed_value,
    with_element,
)
from blkc.dtypes import DType, lost_information
from blkc.promotion import canonical_name, get_policy
from blkc.promotion.base import Operand, PromotionError

BINARY_OPS: dict[str, type[blk.BinaryOp]] = {
    "add": blk.AddOp,
    "sub": blk.SubOp,
    "mul": blk.MulOp,
    "truediv": blk.TrueDivOp,
    "floordiv": blk.FloorDivOp,
    "mod": blk.ModOp,
    "and": blk.AndOp,
    "or": blk.OrOp,
    "xor": blk.XorOp,
    "shl": blk.ShlOp,
    "shr": blk.ShrOp,
    "minimum": blk.MinimumOp,
    "maximum": blk.MaximumOp,
}
"""The binary elementwise ops by the name frontends use."""

UNARY_OPS: dict[str, type[blk.UnaryOp]] = {
    "neg": blk.NegOp,
    "abs": blk.AbsOp,
    "not": blk.NotOp,
    "exp": blk.ExpOp,
    "exp2": blk.Exp2Op,
    "log": blk.LogOp,
    "log2": blk.Log2Op,
    "sqrt": blk.SqrtOp,
    "rsqrt": blk.RsqrtOp,
    "sin": blk.SinOp,
    "cos": blk.CosOp,
    "tanh": blk.TanhOp,
    "erf": blk.ErfOp,
    "floor": blk.FloorOp,
    "ceil": blk.CeilOp,
}
"""The unary elementwise ops (and float functions) by name."""

COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")

_SCAN_STEPS = {"sum": "add", "prod": "mul", "max": "maximum", "min": "minimum"}
"""The binary op of each scan kind, for scans built as `blk.scan_region`."""

DIVISIBILITY = blk.DIVISIBILITY_ATTR

ValueLike = SSAValue | Operation

Combiner = Callable[[list[SSAValue], list[SSAValue]], Sequence[SSAValue]]
"""The scalar step of a reduction or scan: the accumulated scalars and the next ones, to
the combined scalars."""


class IRBuilder:
    """Builds one module of loose blk IR; see the module docstring.

    Every op built gets the current location (`at`); errors raised through `error` point
    there too. Values are `SSAValue`s; Python constants enter as weak literals (`literal`)
    whose dtype the policy decides where they meet typed values.
    """

    def __init__(self, policy: str = "triton", filename: str = "<string>"):
        try:
            self.policy = canonical_name(policy)
        except ValueError as err:
            raise error_at(None, str(err)) from None
        self.filename = filename
        self.module = ModuleOp([], attributes={blk.POLICY_ATTR: StringAttr(self.policy)})
        self.block: Block = self.module.body.block
        self.location: Attribute = UnknownLoc()
        self._line, self._col, self._file = 0, 0, filename

    # -- locations and errors ------------------------------------------------------------

    def at(self, line: int, col: int, filename: str | None = None) -> None:
        """What is built next comes from `line`, `col` (1-based) of the source file (or of
        `filename`, for code inlined from another file)."""
        self._line, self._col = line, col
        self._file = filename or self.filename
        self.location = FileLineColLoc(StringAttr(self._file), IntAttr(line), IntAttr(col))

    @contextmanager
    def located(self, line: int, col: int, filename: str | None = None) -> Iterator[None]:
        """`at(line, col, filename)` for the duration of a `with` block, then back."""
        saved = (self._line, self._col, self._file, self.location)
        self.at(line, col, filename)
        try:
            yield
        finally:
            self._line, self._col, self._file, self.location = saved

    @property
    def source_location(self) -> SourceLocation | None:
        if isinstance(self.location, UnknownLoc):
            return None
        return SourceLocation(self._file, self._line, self._col)

    def error(self, message: str) -> BlkcError:
        """An error (for the caller to raise) at the current location."""
        return error_at(self.source_location, message)

    # -- insertion ---------------------------------------------------------------------

    def add(self, op: Operation) -> Operation:
        """Insert `op` at the insertion point, with the current location."""
        op.location = self.location
        self.block.add_op(op)
        return op

    def _value(self, op: Operation) -> SSAValue:
        return self.add(op).results[0]

    @contextmanager
    def inserting_into(self, block: Block) -> Iterator[Block]:
        saved = self.block
        self.block = block
        try:
            yield block
        finally:
            self.block = saved

    # -- kernels -----------------------------------------------------------------------

    def begin_kernel(
        self,
        name: str,
        params: Sequence[tuple[str, Attribute]],
        kernel: bool = True,
        divisibility: Sequence[int | None] = (),
    ) -> list[SSAValue]:
        """Start the function `name` (a `blk.kernel` unless `kernel` is false); return its
        arguments. Everything built until `end_kernel` goes into its body. `divisibility`
        gives, per parameter, a power of two its value is known to be a multiple of (the
        `blk.divisibility` argument attribute, which the GPU lowering uses), or None."""
        body = Block(arg_types=[t for _, t in params])
        for arg, (arg_name, _) in zip(body.args, params, strict=True):
            # xDSL drops a `_<digits>` suffix from a name: `_0` would leave none (and fail
            # when the function is cloned).
            if arg_name.isidentifier() and re.sub(r"_\d+$", "", arg_name):
                arg.name_hint = arg_name
        function = func.FuncOp(
            name, FunctionType.from_lists([t for _, t in params], []), Region(body)
        )
        if any(d is not None for d in divisibility):
            function.arg_attrs = ArrayAttr(
                [
                    DictionaryAttr({} if d is None else {DIVISIBILITY: IntegerAttr(d, i32)})
                    for d in (*divisibility, *[None] * (len(params) - len(divisibility)))
                ]
            )
        if kernel:
            function.attributes[blk.KERNEL_ATTR] = UnitAttr()
        self.add(function)
        self.block = body
        return list(body.args)

    def end_kernel(self) -> None:
        """Close the function; literals and constants that no op uses (a literal once
        converted to a typed constant, say) are dropped."""
        self.add(func.ReturnOp())
        function = self.block.parent_op()
        assert function is not None
        for op in reversed(list(function.walk())):
            if isinstance(op, blk.LiteralOp | blk.ConstantOp) and not op.results[0].uses:
                op.detach()
                op.erase()
        self.block = self.module.body.block

    # -- values ------------------------------------------------------------------------

    def literal(self, value: bool | int | float) -> SSAValue:
        """A weak literal: a Python constant whose dtype the policy decides."""
        return self._value(blk.LiteralOp(value))

    def constant(
        self, value: bool | int | float, dtype: DType, shape: Sequence[int] = ()
    ) -> SSAValue:
        """A typed constant of `dtype`, a scalar or a block of `shape` filled with `value`."""
        scalar = typed_value(value, dtype)
        if not shape:
            return self._value(blk.ConstantOp(scalar))
        dense = DenseIntOrFPElementsAttr.from_list(
            TensorType(dtype.xdsl, list(shape)),
            [scalar.value.data],  # type: ignore[attr-defined]
        )
        return self._value(blk.ConstantOp(dense))

    @staticmethod
    def literal_value(value: SSAValue) -> bool | int | float | None:
        """The Python value of a weak literal (None for other values)."""
        owner = value.owner
        return owner.python_value if isinstance(owner, blk.LiteralOp) else None

    def dtype_of_literal(self, value: bool | int | float) -> DType:
        """The dtype the policy gives a Python number on its own."""
        try:
            return get_policy(self.policy).literal_dtype(Operand.literal(value))
        except PromotionError as err:
            raise self.error(str(err)) from None

    @staticmethod
    def is_weak(value: SSAValue) -> bool:
        return isinstance(value.type, WeakType)

    def typed(self, value: SSAValue, dtype: DType | None = None) -> SSAValue:
        """`value` with a dtype: a weak literal becomes a constant of `dtype` (default: the
        dtype the policy gives the literal on its own); typed values pass through."""
        if not self.is_weak(value):
            return value
        literal = self.literal_value(value)
        if literal is None:
            raise self.error("a weak value without a known value needs an explicit dtype")
        if dtype is None:
            dtype = get_policy(self.policy).literal_dtype(Operand.literal(literal))
        return self.constant(literal, dtype)

    # -- elementwise -------------------------------------------------------------------

    def broadcast_shape(self, names: Sequence[str], values: Sequence[SSAValue]) -> tuple[int, ...]:
        """The shape `values` (named `names` in errors) broadcast to; a located error
        where they do not."""
        try:
            return broadcast_shapes(*(shape_of(v.type) for v in values), names=list(names))
        except BroadcastError as err:
            rank = max(len(shape_of(v.type)) for v in values)
            a, b = (s[err.dim - (rank - len(s))] for s in err.shapes)
            raise self.error(
                f"{err}; Cannot make_shape_compatible: incompatible dimensions at index "
                f"{err.dim}: {a} and {b}"
            ) from None

    def _decide(self, computation: Computation, values: Sequence[SSAValue]) -> Attribute | None:
        try:
            decision = decide(self.policy, computation, values)
        except PromotionError as err:
            raise self.error(f"{err}{_triton_literal_words(err, values)}") from None
        return None if decision is None else decision.result.xdsl

    def elementwise(
        self,
        cls: type[blk.ElementwiseOp],
        operands: Sequence[SSAValue],
        properties: dict[str, Attribute] | None = None,
        computation: Computation | None = None,
    ) -> SSAValue:
        """Build the loose elementwise op `cls` on `operands`: the result has the operands'
        broadcast shape and the dtype the policy gives."""
        names = [n for n, _ in cls.get_irdl_definition().operands]
        shape = self.broadcast_shape(names, operands)
        trait = cls.get_trait(Promotes)
        element: Attribute | None = None
        if trait is not None:
            promoted = [operands[names.index(n)] for n in trait.operands]
            element = self._decide(computation or trait.computation, promoted)
            if element is None:
                element = element_type(promoted[0].type)
        if cls.RESULT == "bool":
            element = i1
        elif cls is blk.AddPtrOp:
            element = element_type(operands[0].type)
        assert element is not None, cls.name
        op = cls.build(
            operands=list(operands),
            result_types=[block_of(element, shape)],
            properties=properties or {},
        )
        return self._value(op)

    def binary(self, name: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """``lhs <name> rhs`` for a name of `BINARY_OPS`."""
        return self.elementwise(BINARY_OPS[name], [lhs, rhs])

    def extremum(self, name: str, lhs: SSAValue, rhs: SSAValue, nan: str | None = None) -> SSAValue:
        """``minimum`` or ``maximum`` (`name`) of `lhs` and `rhs`. On floats, `nan` says what
        a NaN operand gives: ``num`` the other operand, ``propagate`` NaN; None leaves it to
        the policy (`promote-types` sets it)."""
        return self.elementwise(BINARY_OPS[name], [lhs, rhs], _nan_property(nan))

    def unary(self, name: str, operand: SSAValue) -> SSAValue:
        """``<name>(operand)`` for a name of `UNARY_OPS`."""
        return self.elementwise(UNARY_OPS[name], [operand])

    def compare(self, predicate: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """An elementwise comparison (`COMPARISONS`), giving bool."""
        ordering = predicate not in ("eq", "ne")
        return self.elementwise(
            blk.CmpOp,
            [lhs, rhs],
            {"predicate": blk.CmpPredicateAttr(blk.CmpPredicate(predicate))},
            Computation.ORDER if ordering else Computation.COMPARE,
        )

    def where(self, cond: SSAValue, true_value: SSAValue, false_value: SSAValue) -> SSAValue:
        return self.elementwise(blk.WhereOp, [self.to_bool(cond), true_value, false_value])

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        return self.elementwise(blk.FmaOp, [a, b, c])

    def math_function(self, name: str, operands: Sequence[SSAValue]) -> SSAValue:
        """C's math function `name` of one or two float operands (`blk.UNARY_FUNCTIONS`,
        `blk.BINARY_FUNCTIONS`), as `blk.math` or `blk.math2`."""
        cls = blk.MathFnOp if len(operands) == 1 else blk.MathFn2Op
        return self.elementwise(cls, operands, {"fn": StringAttr(name)})

    def umulhi(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """The high half of the 2N-bit product of `lhs` and `rhs`, converted to the N-bit
        integer dtype the policy promotes them to and multiplied as unsigned integers (as
        Triton's ``umulhi``: a signed operand takes part through its bits)."""
        allowed = ("int32", "int64", "uint32", "uint64")
        element = self._decide(Computation.ARITH, [lhs, rhs])
        dtype = dtypes.from_xdsl(element) if element is not None else None
        if dtype is None or dtype.name not in allowed:
            raise self.error(f"umulhi needs 32- or 64-bit integers, got {element}")
        unsigned = dtypes.uint32 if dtype.width == 32 else dtypes.uint64
        a, b = (self.bitcast(self.cast(v, dtype), unsigned) for v in (lhs, rhs))
        if dtype.width == 32:
            wide = self.binary("mul", self.cast(a, dtypes.uint64), self.cast(b, dtypes.uint64))
            high = self.cast(self.binary("shr", wide, self.constant(32, dtypes.uint64)), unsigned)
        else:
            high = self._high_product_64(a, b)
        return self.bitcast(high, dtype)

    def _high_product_64(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """The high 64 bits of the product of the uint64 values `a` and `b`, from their
        32-bit halves (no 128-bit integers needed)."""
        half = self.constant(32, dtypes.uint64)
        low_bits = self.constant(2**32 - 1, dtypes.uint64)
        a_lo, b_lo = (self.binary("and", v, low_bits) for v in (a, b))
        a_hi, b_hi = (self.binary("shr", v, half) for v in (a, b))
        low_low = self.binary("mul", a_lo, b_lo)
        high_low = self.binary("mul", a_hi, b_lo)
        carry = self.binary("shr", low_low, half)
        carry = self.binary("add", carry, self.binary("mul", a_lo, b_hi))
        cross = self.binary("add", carry, self.binary("and", high_low, low_bits))
        high = self.binary("mul", a_hi, b_hi)
        high = self.binary("add", high, self.binary("shr", high_low, half))
        return self.binary("add", high, self.binary("shr", cross, half))

    def addptr(self, ptr: SSAValue, offset: SSAValue) -> SSAValue:
        """`ptr` advanced by `offset` elements; a weak offset becomes i32 (or i64)."""
        if not isinstance(element_type(ptr.type), PtrType):
            raise self.error(f"pointer arithmetic needs a pointer, got {ptr.type}")
        offset = self.typed(offset)
        if dtype_of(offset.type) is None or not dtype_of(offset.type).is_int:  # type: ignore[union-attr]
            raise self.error(f"a pointer offset must be an integer, got {offset.type}")
        return self.elementwise(blk.AddPtrOp, [ptr, self.signed_offset(offset)])

    def signed_offset(self, offset: SSAValue) -> SSAValue:
        """An integer offset as a signed one of the same value: `blk.addptr` reads its
        offset as signed, so an unsigned one narrower than 64 bits is zero-extended (uint8
        and uint16 to int32, uint32 to int64), as Triton does (a uint8 offset of 200 was
        -56)."""
        offset = self.typed(offset)
        d = dtype_of(offset.type)
        if d is None or not d.is_unsigned or d.width >= 64:
            return offset
        return self.cast(offset, dtypes.int32 if d.width < 32 else dtypes.int64)

    def to_bool(self, value: SSAValue) -> SSAValue:
        """`value` as bool: comparisons pass through, numbers compare unequal to zero."""
        if self.is_weak(value):
            literal = self.literal_value(value)
            return self.constant(bool(literal), dtypes.bool_)
        if element_type(value.type) == i1:
            return value
        if isinstance(element_type(value.type), PtrType):
            raise self.error(f"a pointer ({value.type}) has no truth value")
        return self.compare("ne", value, self.literal(0))

    # -- conversions and shapes ----------------------------------------------------------

    def cast(self, value: SSAValue, dtype: DType | Attribute) -> SSAValue:
        """Convert each element to `dtype` (a `DType` or a pointer type)."""
        target = dtype.xdsl if isinstance(dtype, DType) else dtype
        if self.is_weak(value):
            if isinstance(dtype, DType):
                return self.typed(value, dtype)
            value = self.typed(value)
        if element_type(value.type) == target:
            return value
        return self._value(blk.CastOp(value, with_element(value.type, target)))

    def cast_toward_zero(self, value: SSAValue, dtype: DType) -> SSAValue:
        """Floats converted to the narrower float `dtype`, rounded toward zero (Triton's
        ``fp_downcast_rounding="rtz"``): the nearest conversion, stepped one unit toward
        zero where it lies farther from zero than `value` (compared in `value`'s dtype,
        which holds it exactly). A value past the largest finite one gives that one; NaN,
        infinities and zeros stay (infinities give the largest finite value of a dtype
        without them, float8_e4m3fn, where rounding to nearest gives NaN)."""
        value = self.typed(value)
        source = dtype_of(value.type)
        assert source is not None and source.is_float and dtype.is_float
        if not dtypes.has_infinity(dtype):
            limit = self.constant(dtypes.max_finite(dtype), source)
            big = self.compare("gt", self.unary("abs", value), limit)
            positive = self.compare("gt", value, self.constant(0, source))
            saturated = self.where(positive, limit, self.unary("neg", limit))
            value = self.where(big, saturated, value)
        nearest = self.cast(value, dtype)
        back = self.cast(nearest, source)
        away = self.compare("gt", self.unary("abs", back), self.unary("abs", value))
        ints = dtypes.dtype(f"int{dtype.width}")
        bits = self.bitcast(nearest, ints)
        stepped = self.bitcast(self.binary("sub", bits, self.constant(1, ints)), dtype)
        return self.where(away, stepped, nearest)

    def bitcast(self, value: SSAValue, dtype: DType) -> SSAValue:
        value = self.typed(value)
        source = dtype_of(value.type)
        if source is None or source.width != dtype.width:
            raise self.error(
                f"bitcast needs dtypes of one width: {value.type} and {dtype.name} differ"
            )
        return self._value(blk.BitcastOp(value, with_element(value.type, dtype.xdsl)))

    def expand_dims(self, value: SSAValue, axis: int) -> SSAValue:
        """`value` with a dimension of size 1 inserted at `axis`, an axis of the result."""
        value = self.typed(value)
        axis = self.normalize_axis(axis, len(shape_of(value.type)) + 1, "expand_dims's result")
        return self._value(blk.ExpandDimsOp(value, axis))

    def normalize_axis(self, axis: int, rank: int, what: str) -> int:
        """`axis` of `what`, of rank `rank`, in ``[0, rank)`` (a negative axis counts from
        the end); out of range, a located error naming the axis, `what` and the rank."""
        if not -rank <= axis < rank:
            raise self.error(
                f"axis {axis} is out of range for {what}, of rank {rank} "
                f"(expected {-rank} <= axis < {rank})"
            )
        return axis % rank

    def broadcast_to(self, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        """`value` broadcast to `shape` (NumPy's rules: leading dimensions are added)."""
        value = self.typed(value)
        shape = tuple(shape)
        current = shape_of(value.type)
        if current == shape:
            return value
        try:
            if broadcast_shapes(current, shape) != shape:
                raise BroadcastError("", (current, shape), 0)
        except BroadcastError:
            raise self.error(
                f"cannot broadcast a block of shape {format_shape(current)} to "
                f"{format_shape(shape)}"
            ) from None
        if not current:
            return self._value(blk.SplatOp(value, block_of(element_type(value.type), shape)))
        while len(current) < len(shape):
            value = self._value(blk.ExpandDimsOp(value, 0))
            current = shape_of(value.type)
        return self._value(blk.BroadcastOp(value, block_of(element_type(value.type), shape)))

    def reshape(self, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        value = self.typed(value)
        old = shape_of(value.type)
        if _numel(old) != _numel(shape):
            raise self.error(
                f"cannot reshape a block of shape {format_shape(old)} ({_numel(old)} elements) "
                f"to {format_shape(shape)} ({_numel(shape)} elements): reshape() cannot change "
                "total number of elements in tensor"
            )
        if tuple(shape) == old:
            return value
        if not shape:
            raise self.error("cannot reshape a block to a scalar; reduce it instead")
        return self._value(blk.ReshapeOp(value, block_of(element_type(value.type), shape)))

    def permute(self, value: SSAValue, order: Sequence[int]) -> SSAValue:
        value = self.typed(value)
        rank = len(shape_of(value.type))
        if sorted(order) != list(range(rank)):
            raise self.error(
                f"{list(order)} is not a permutation of the {rank} dimensions of {value.type} "
                f"(permute dims must be a permutation of 0, 1, ..., n-1, but were {tuple(order)})"
            )
        if list(order) == list(range(rank)):
            return value
        return self._value(blk.PermuteOp(value, order))

    def gather(self, src: SSAValue, index: SSAValue, axis: int, in_range: bool = False) -> SSAValue:
        """`src` read along `axis` at the positions the integer block `index` gives
        (`blk.gather`): a block of `index`'s shape, which agrees with `src`'s on every
        other axis. `in_range`: the caller built `index` inside the axis."""
        src, index = self.typed(src), self.typed(index)
        index_dtype = dtype_of(index.type)
        if index_dtype is None or not index_dtype.is_int or index_dtype.is_bool:
            raise self.error(f"gather's index must be a block of integers, got {index.type}")
        src_shape, index_shape = shape_of(src.type), shape_of(index.type)
        if not src_shape or len(src_shape) != len(index_shape):
            raise self.error(
                f"gather's source ({src.type}) and index ({index.type}) must be blocks of one rank"
            )
        axis = self.normalize_axis(axis, len(src_shape), "gather's source")
        for dim, (a, b) in enumerate(zip(src_shape, index_shape, strict=True)):
            if dim != axis and a != b:
                raise self.error(
                    f"gather's index ({index.type}) differs from its source ({src.type}) in "
                    f"dimension {dim}; only the gathered axis {axis} may differ"
                )
        return self._value(blk.GatherOp(src, index, axis, in_range))

    def join(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """`a` and `b`, broadcast to one shape, side by side along a new last axis of
        size 2 (two scalars give a block of 2): a `where` over that axis's positions."""
        a, b = self.typed(a), self.typed(b)
        shape = self.broadcast_shape(["a", "b"], [a, b]) or (1,)
        if element_type(a.type) != element_type(b.type):
            raise self.error(
                f"join needs operands of one dtype, got {element_type(a.type)} and "
                f"{element_type(b.type)}; convert one with .to()"
            )
        halves = [self.expand_dims(self.broadcast_to(v, shape), len(shape)) for v in (a, b)]
        joined = (*shape, 2)
        position = self.reshape(self.arange(0, 2), [1] * len(shape) + [2])
        first = self.broadcast_to(self.compare("eq", position, self.literal(0)), joined)
        pair = [self.broadcast_to(h, joined) for h in halves]
        result = self.where(first, pair[0], pair[1])
        return result if shape_of(a.type) or shape_of(b.type) else self.reshape(result, [2])

    def only_element(self, value: SSAValue) -> SSAValue:
        """The scalar in a block of one element."""
        flat = self.reshape(value, [1])
        (scalar,) = self.reduce_with([flat], 0, lambda first, _: first)
        return scalar

    def hint(self, value: SSAValue, name: str, amount: int) -> None:
        """Record on the op defining `value` that along its last dimension it comes in runs
        of `amount` (`name`: contiguity, constancy) or that its first elements are
        multiples of `amount` (divisibility): what `tl.max_contiguous`,
        `tl.max_constancy` and `tl.multiple_of` say. Values without a defining op (kernel
        arguments) and weak literals keep no hint."""
        owner = value.owner
        if isinstance(owner, Operation) and not self.is_weak(value):
            owner.attributes[f"blk.{name}"] = IntegerAttr(amount, i32)

    # -- grid and ranges ---------------------------------------------------------------

    def program_id(self, axis: int) -> SSAValue:
        self._check_axis(axis, "program_id")
        return self._value(blk.ProgramIdOp(axis))

    def num_programs(self, axis: int) -> SSAValue:
        self._check_axis(axis, "num_programs")
        return self._value(blk.NumProgramsOp(axis))

    def _check_axis(self, axis: int, op: str) -> None:
        if axis not in (0, 1, 2):
            raise self.error(
                f"axis {axis} is out of range: the launch grid has axes 0, 1 and 2 ({op} axis "
                f"must be 0, 1, or 2 but got {axis})"
            )

    def arange(self, start: int, end: int) -> SSAValue:
        """The i32 block ``[start, ..., end - 1]``; its length must be a power of two."""
        length = end - start
        if length <= 0:
            raise self.error(
                f"arange needs end > start, got start = {start} and end = {end} (arange's end "
                "argument must be greater than the start argument)"
            )
        if length & (length - 1):
            raise self.error(
                f"arange's length must be a power of two, got {length} ({start} to {end}); "
                "arange's range must be a power of 2"
            )
        if not (-(2**31) <= start and end <= 2**31):
            raise self.error(
                f"arange's bounds must fit int32, got {start} and {end} (arange must fit in int32)"
            )
        return self._value(blk.ArangeOp(start, end))

    # -- memory ------------------------------------------------------------------------

    def _pointer_block(self, ptr: SSAValue, shape: tuple[int, ...], op: str) -> SSAValue:
        if not isinstance(element_type(ptr.type), PtrType):
            raise self.error(
                f"expected a pointer or a block of pointers, got {ptr.type} (Unsupported ptr "
                f"type {ptr.type} in `tl.{op}`)"
            )
        return self.broadcast_to(ptr, shape) if shape_of(ptr.type) != shape else ptr

    def load(
        self, ptr: SSAValue, mask: SSAValue | None = None, other: SSAValue | None = None
    ) -> SSAValue:
        """Load where `ptr` points; where `mask` is false the element is `other` (zero)."""
        if other is not None and mask is None:
            raise self.error(
                "'other' fills the lanes a mask turns off: it needs a mask (`other` cannot be "
                "provided without `mask`)"
            )
        mask = None if mask is None else self.to_bool(mask)
        present = [v for v in (ptr, mask, other) if v is not None]
        shape = self.broadcast_shape(["ptr", "mask", "other"][: len(present)], present)
        ptr = self._pointer_block(ptr, shape, "load")
        pointee = element_type(ptr.type).pointee  # type: ignore[attr-defined]
        return self._value(blk.LoadOp(ptr, mask, other, block_of(pointee, shape)))

    def store(self, ptr: SSAValue, value: SSAValue, mask: SSAValue | None = None) -> None:
        """Store `value` where `ptr` points, only where `mask` holds."""
        mask = None if mask is None else self.to_bool(mask)
        present = [v for v in (ptr, value, mask) if v is not None]
        shape = self.broadcast_shape(["ptr", "value", "mask"][: len(present)], present)
        ptr = self._pointer_block(ptr, shape, "store")
        if isinstance(element_type(value.type), PtrType):
            raise self.error(f"cannot store a pointer value ({value.type})")
        self.add(blk.StoreOp(ptr, value, mask))

    def atomic_rmw(
        self,
        kind: str,
        ptr: SSAValue,
        value: SSAValue,
        mask: SSAValue | None = None,
        policy_checked: bool = True,
    ) -> SSAValue:
        """Atomically combine `value` into memory (`kind`: add, max, min, and, or, xor,
        xchg); return the old contents. `policy_checked`: whether the policy's refusals
        of element widths apply (not to the atomic reads other built-ins are made of)."""
        mask = None if mask is None else self.to_bool(mask)
        present = [v for v in (ptr, value, mask) if v is not None]
        shape = self.broadcast_shape(["ptr", "value", "mask"][: len(present)], present)
        ptr = self._pointer_block(ptr, shape, f"atomic_{kind}")
        pointee = element_type(ptr.type).pointee  # type: ignore[attr-defined]
        if policy_checked:
            self._check_atomic(kind, pointee)
        op = blk.AtomicRMWOp.build(
            operands=[ptr, value, mask],
            result_types=[block_of(pointee, shape)],
            properties={"kind": blk.AtomicKindAttr(blk.AtomicKind(kind))},
        )
        return self._value(op)

    def global_timer(self) -> SSAValue:
        """Nanoseconds on the launch's monotonic clock, an int64 (`blk.global_timer`)."""
        return self._value(blk.GlobalTimerOp())

    def atomic_cas(self, ptr: SSAValue, cmp: SSAValue, value: SSAValue) -> SSAValue:
        shape = self.broadcast_shape(["ptr", "cmp", "value"], [ptr, cmp, value])
        ptr = self._pointer_block(ptr, shape, "atomic_cas")
        pointee = element_type(ptr.type).pointee  # type: ignore[attr-defined]
        self._check_atomic("cas", pointee)
        op = blk.AtomicCASOp.build(
            operands=[ptr, cmp, value], result_types=[block_of(pointee, shape)]
        )
        return self._value(op)

    def _check_atomic(self, kind: str, pointee: Attribute) -> None:
        try:
            get_policy(self.policy).check_atomic(kind, dtypes.from_xdsl(pointee))
        except PromotionError as err:
            raise self.error(str(err)) from None

    # -- reductions, scans, dot ------------------------------------------------------------

    def _accumulated(self, kind: str, source: DType, scan: bool) -> DType:
        policy = get_policy(self.policy)
        if kind in ("argmax", "argmin"):
            return dtypes.int32
        if kind not in ("sum", "prod", "max", "min"):
            return source
        try:
            return (policy.scan_dtype if scan else policy.reduce_dtype)(kind, source)
        except PromotionError as err:
            raise self.error(str(err)) from None

    def _block_operand(self, value: SSAValue, what: str) -> tuple[SSAValue, DType]:
        value = self.typed(value)
        dtype = dtype_of(value.type)
        if not isinstance(value.type, TensorType) or dtype is None:
            raise self.error(f"{what} takes a block, got {value.type}")
        return value, dtype

    def reduce(
        self,
        kind: str,
        value: SSAValue,
        axis: int | None = None,
        nan: str | None = None,
        accumulate: DType | None = None,
    ) -> SSAValue:
        """Reduce `value` along `axis` (all axes when None) with `kind` (sum, prod, max,
        min, argmax, argmin, and, or, xor). For float max, min, argmax and argmin, `nan`
        says whether NaN is the extreme (``propagate``) or skipped (``num``); None leaves it
        to the policy. A sum or product accumulates in `accumulate` where given (its
        result of that dtype, which wraps or rounds as that dtype does), else in the dtype
        the policy gives."""
        value, source = self._block_operand(value, f"the {kind} reduction")
        shape = list(shape_of(value.type))
        properties: dict[str, Attribute] = {
            "kind": blk.ReduceKindAttr(blk.ReduceKind(kind)),
            **_nan_property(nan),
        }
        if accumulate is not None:
            properties["acc_dtype"] = accumulate.xdsl
        if axis is not None:
            axis = self.normalize_axis(axis, len(shape), str(value.type))
            properties["axis"] = IntegerAttr(axis, i32)
            out = shape[:axis] + shape[axis + 1 :]
        else:
            out = []
        acc = accumulate or self._accumulated(kind, source, False)
        result = block_of(acc.xdsl, out)
        return self._value(
            blk.ReduceOp.build(operands=[value], result_types=[result], properties=properties)
        )

    def scan(
        self,
        kind: str,
        value: SSAValue,
        axis: int = 0,
        reverse: bool = False,
        accumulate: DType | None = None,
    ) -> SSAValue:
        """Inclusive prefix `kind` (sum, prod, max, min) along `axis`; `reverse`: from the
        last element (a `blk.scan_region` over the accumulated dtype). Accumulates in
        `accumulate` where given, as `reduce` does."""
        value, source = self._block_operand(value, f"the {kind} scan")
        axis = self.normalize_axis(axis, len(shape_of(value.type)), str(value.type))
        acc = accumulate or self._accumulated(kind, source, True)
        result = with_element(value.type, acc.xdsl)
        if reverse:
            step = _SCAN_STEPS[kind]
            accumulated = self.cast(value, element_type(result))
            narrow = kind in ("sum", "prod") and acc.is_float and acc.width < 32
            if narrow:  # in float32, each element rounded once, as the forward scan does
                accumulated = self.cast(accumulated, dtypes.float32)
            (scanned,) = self.scan_with(
                [accumulated], axis, lambda a, b: [self.binary(step, a[0], b[0])], reverse=True
            )
            return self.cast(scanned, acc) if narrow else scanned
        properties: dict[str, Attribute] = {
            "kind": blk.ReduceKindAttr(blk.ReduceKind(kind)),
            "axis": IntegerAttr(axis, i32),
        }
        if accumulate is not None:
            properties["acc_dtype"] = accumulate.xdsl
        return self._value(
            blk.ScanOp.build(operands=[value], result_types=[result], properties=properties)
        )

    def sort(
        self,
        value: SSAValue,
        axis: int,
        descending: bool = False,
        k: int | None = None,
        merge: bool = False,
    ) -> SSAValue:
        """`value` sorted along `axis` by Triton's bitonic network (`blk.sort`); with `k`,
        the first `k` elements of each sorted line (top-k); `merge`: the network's last
        stage only, which sorts lines that are bitonic (`blk.bitonic_merge`)."""
        what = "bitonic_merge" if merge else "sort" if k is None else "topk"
        value, source = self._block_operand(value, what)
        shape = list(shape_of(value.type))
        axis = self.normalize_axis(axis, len(shape), str(value.type))
        length = shape[axis]
        if length & (length - 1):
            raise self.error(
                f"{what} needs a power-of-two length along its axis, got {length} "
                f"elements along axis {axis} of {value.type}"
            )
        properties: dict[str, Attribute] = {"axis": IntegerAttr(axis, i32)}
        if descending:
            properties["descending"] = UnitAttr()
        if k is not None:
            if k <= 0 or k & (k - 1) or k > length:
                raise self.error(
                    f"topk's k must be a power of two from 1 to the {length} elements along "
                    f"the axis, got {k}"
                )
            properties["k"] = IntegerAttr(k, i32)
            shape[axis] = k
        op_type = blk.BitonicMergeOp if merge else blk.SortOp
        result = block_of(element_type(value.type), shape)
        ordered = self._value(
            op_type.build(operands=[value], result_types=[result], properties=properties)
        )
        kept = length if k is None else k
        if not merge and (kept < length or kept == 1):
            # Triton's network reduces these with max (or min), whose result has the dtype
            # a max reduction has (32 bits for narrower elements, under Triton's policies):
            # a top-k of fewer elements than the axis holds, or of one, and a sort of one.
            ordered = self.cast(ordered, self._accumulated("max", source, False))
        return ordered

    def reduce_with(
        self, values: Sequence[SSAValue], axis: int, combine: Combiner
    ) -> list[SSAValue]:
        """Reduce the blocks `values` (of one shape) together along `axis` with the scalar
        step `combine` (`blk.reduce_region`)."""
        return self._combining(blk.ReduceRegionOp, values, axis, combine, {})

    def scan_with(
        self, values: Sequence[SSAValue], axis: int, combine: Combiner, reverse: bool = False
    ) -> list[SSAValue]:
        """The inclusive scan of the blocks `values` (of one shape) together along `axis`
        with the scalar step `combine`, from the last element when `reverse`
        (`blk.scan_region`)."""
        properties = {"reverse": UnitAttr()} if reverse else {}
        return self._combining(blk.ScanRegionOp, values, axis, combine, properties)

    def _combining(
        self,
        op_class: type[blk.CombineRegionOp],
        values: Sequence[SSAValue],
        axis: int,
        combine: Combiner,
        properties: dict[str, Attribute],
    ) -> list[SSAValue]:
        what = "the reduction" if op_class is blk.ReduceRegionOp else "the scan"
        typed = [self._block_operand(v, what)[0] for v in values]
        shape = list(shape_of(typed[0].type))
        for v in typed[1:]:
            if list(shape_of(v.type)) != shape:
                raise self.error(
                    f"{what} combines blocks of one shape, got {typed[0].type} and {v.type}"
                )
        axis = self.normalize_axis(axis, len(shape), str(typed[0].type))
        elems = [element_type(v.type) for v in typed]
        block = Block(arg_types=elems * 2)
        with self.inserting_into(block):
            combined = list(combine(list(block.args[: len(elems)]), list(block.args[len(elems) :])))
            if len(combined) != len(elems):
                raise self.error(
                    f"the combine function returns {len(combined)} values for {len(elems)} inputs"
                )
            for value in combined:
                if isinstance(value.type, TensorType):
                    raise self.error(f"the combine function must return scalars, got {value.type}")
            yielded = [self.cast(v, e) for v, e in zip(combined, elems, strict=True)]
            self.add(blk.YieldOp.create(operands=yielded))
        out = shape[:axis] + shape[axis + 1 :] if op_class is blk.ReduceRegionOp else shape
        op = op_class.build(
            operands=[typed],
            result_types=[[block_of(e, out) for e in elems]],
            properties={"axis": IntegerAttr(axis, i32), **properties},
            regions=[Region(block)],
        )
        return list(self.add(op).results)

    def dot(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        acc: SSAValue | None = None,
        out_dtype: DType | None = None,
    ) -> SSAValue:
        """The matrix product ``lhs @ rhs (+ acc)`` of 2-D (or batched 3-D) blocks. The
        result has `acc`'s dtype when given, else `out_dtype`, else the policy's."""
        lhs, a = self._block_operand(lhs, "dot")
        rhs, b = self._block_operand(rhs, "dot")
        sa, sb = shape_of(lhs.type), shape_of(rhs.type)
        if len(sa) not in (2, 3) or len(sa) != len(sb):
            raise self.error(
                f"dot takes two 2-D (or two batched 3-D) blocks, got {lhs.type} and {rhs.type} "
                "(input and other must have equal ranks >= 2)"
            )
        if sa[-1] != sb[-2]:
            raise self.error(
                f"dot's inner dimensions differ: {lhs.type} has K = {sa[-1]} but {rhs.type} "
                f"has K = {sb[-2]} (input and other must have equal reduction dimensions)"
            )
        shape = (*sa[:-1], sb[-1])
        if acc is not None:
            acc = self.broadcast_to(acc, shape)
            result = dtype_of(acc.type)
            assert result is not None
        elif out_dtype is not None:
            result = out_dtype
        else:
            try:
                result = get_policy(self.policy).dot_dtype(a, b).result
            except PromotionError as err:
                raise self.error(str(err)) from None
        if result.is_float and result.width < 32:
            # A narrow float result (out_dtype=float16, an f16 acc) accumulates in float32
            # and rounds once, as Triton's CPU reference does: rounding every step to f16
            # loses most of the digits of a sum that cancels.
            wide = dtypes.float32
            acc = None if acc is None else self.cast(acc, wide)
            product = self._value(
                blk.DotOp.build(
                    operands=[lhs, rhs, acc],
                    result_types=[block_of(wide.xdsl, shape)],
                    properties={"acc_dtype": wide.xdsl},
                )
            )
            return self.cast(product, result)
        properties = {} if out_dtype is None else {"acc_dtype": out_dtype.xdsl}
        return self._value(
            blk.DotOp.build(
                operands=[lhs, rhs, acc],
                result_types=[block_of(result.xdsl, shape)],
                properties=properties,
            )
        )

    # -- debugging ---------------------------------------------------------------------

    def print(self, prefix: str, values: Sequence[SSAValue], hex: bool = False) -> None:  # noqa: A002
        self.add(blk.PrintOp(prefix, [self.typed(v) for v in values], hex=hex))

    def assert_(self, cond: SSAValue, message: str) -> None:
        self.add(blk.AssertOp(self.to_bool(cond), message))

    # -- control flow --------------------------------------------------------------------

    def condition(self, value: SSAValue) -> SSAValue:
        """`value` as the scalar i1 an `if` or `while` tests (the element of a one-element
        block, as Triton takes it)."""
        if shape_of(value.type) and _numel(shape_of(value.type)) == 1:
            return self.reduce("or", self.to_bool(value))
        if shape_of(value.type):
            raise self.error(
                f"a condition must be a scalar, got a block ({value.type}); reduce it first "
                "or use where() to select elementwise"
            )
        return self.to_bool(value)

    def _loop_index_dtype(self, bounds: Sequence[SSAValue]) -> DType:
        typed = [v for v in bounds if not self.is_weak(v)]
        for v in typed:
            d = dtype_of(v.type)
            if d is None or not d.is_int or shape_of(v.type):
                raise self.error(f"loop bounds must be integer scalars, got {v.type}")
        if not typed:
            big = any(not -(2**31) <= int(self.literal_value(v) or 0) < 2**31 for v in bounds)
            return dtypes.int64 if big else dtypes.int32
        result = self._decide(Computation.ARITH, list(bounds))
        assert result is not None
        return dtypes.from_xdsl(result)

    def for_loop(
        self,
        lower: SSAValue,
        upper: SSAValue,
        step: SSAValue,
        inits: Sequence[SSAValue],
        body: Callable[[SSAValue, list[SSAValue]], Sequence[SSAValue]],
        names: Sequence[str] = (),
    ) -> list[SSAValue]:
        """``for i in range(lower, upper, step)`` carrying `inits` through `body`, which gets
        the index and the carried values and returns their next values; returns the
        final values. A constant negative step counts down, as Python's range does (a step
        known only at run time must be positive).

        A carried value whose body result has another dtype of the same shape is widened
        when the init is a literal or promotes to that dtype (``acc = 0`` before a float
        loop); any other change is an error naming the variable (`names`). `body` may
        therefore run twice, and must not keep state of its own between runs.
        """
        index = self._loop_index_dtype([lower, upper, step])
        bounds = [self.cast(v, index) for v in (lower, upper, step)]
        step_value = self.literal_value(step)
        if step_value == 0:
            raise self.error("a loop's step must not be zero")
        downward = step_value is not None and step_value < 0
        if downward:
            # range(a, b, -s) runs a + b - j for j in range(b, a, s): the same count.
            bounds = [bounds[1], bounds[0], self.constant(-int(step_value), index)]  # type: ignore[arg-type]

        def build(carried: list[SSAValue]) -> tuple[Operation, list[SSAValue]]:
            block = Block(arg_types=[index.xdsl, *(v.type for v in carried)])
            with self.inserting_into(block):
                i: SSAValue = block.args[0]
                if downward:
                    i = self.binary("sub", self.binary("add", bounds[0], bounds[1]), i)
                nexts = list(body(i, list(block.args[1:])))
            return scf.ForOp(*bounds, carried, block), nexts

        return self._carry(inits, names, build, "loop")

    def while_loop(
        self,
        inits: Sequence[SSAValue],
        cond: Callable[[list[SSAValue]], SSAValue],
        body: Callable[[list[SSAValue]], Sequence[SSAValue]],
        names: Sequence[str] = (),
    ) -> list[SSAValue]:
        """``while cond(carried): carried = body(carried)``; returns the final values
        (carried types as in `for_loop`)."""

        def build(carried: list[SSAValue]) -> tuple[Operation, list[SSAValue]]:
            types = [v.type for v in carried]
            before, after = Block(arg_types=types), Block(arg_types=types)
            with self.inserting_into(before):
                test = self.condition(cond(list(before.args)))
                self.add(scf.ConditionOp(test, *before.args))
            with self.inserting_into(after):
                nexts = list(body(list(after.args)))
            return scf.WhileOp(carried, types, [before], [after]), nexts

        return self._carry(inits, names, build, "loop")

    def _carry(
        self,
        inits: Sequence[SSAValue],
        names: Sequence[str],
        build: Callable[[list[SSAValue]], tuple[Operation, list[SSAValue]]],
        what: str,
    ) -> list[SSAValue]:
        carried = [self.typed(v) for v in inits]
        for _ in range(len(carried) + 1):
            op, nexts = build(carried)
            changed = False
            for i, (old, new) in enumerate(zip(carried, nexts, strict=True)):
                if new.type != old.type and not self.is_weak(new):
                    carried[i] = self._widen(old, inits[i], new, _name(names, i), what)
                    changed = True
            if not changed:
                with self.inserting_into(op.regions[-1].blocks[0]):
                    yielded = [self.coerce(v, c.type) for v, c in zip(nexts, carried, strict=True)]
                    self.add(scf.YieldOp(*yielded))
                self.add(op)
                return list(op.results)
            op.erase(safe_erase=False)
        raise AssertionError("loop-carried types did not settle")

    def _widen(
        self, old: SSAValue, init: SSAValue, new: SSAValue, name: str, what: str
    ) -> SSAValue:
        """The init of a carried value that is `old` before the loop and `new` after an
        iteration: `old` converted (or broadcast from a scalar) when that loses nothing, or
        when it was a literal; else a located error."""
        same_shape = shape_of(old.type) == shape_of(new.type) or not shape_of(old.type)
        source, target = dtype_of(old.type), dtype_of(new.type)
        if same_shape and source is not None and target is not None:
            if self.is_weak(init) or lost_information(source, target) is None:
                return self.coerce(init if self.is_weak(init) else old, new.type)
        raise self.error(
            f"{name} is {old.type} before the {what} but {new.type} after an iteration; "
            "a variable carried through a loop keeps its type (convert it with .to(), or "
            "initialize it with the dtype and shape it will have)"
        )

    def coerce(self, value: SSAValue, target: Attribute) -> SSAValue:
        """`value` converted to the dtype of `target` and broadcast to its shape."""
        if value.type == target:
            return value
        value = self.cast(value, dtypes.from_xdsl(element_type(target)))
        return self.broadcast_to(value, shape_of(target))

    def if_else(
        self,
        cond: SSAValue,
        then_body: Callable[[], Sequence[SSAValue]],
        else_body: Callable[[], Sequence[SSAValue]] | None = None,
        names: Sequence[str] = (),
    ) -> list[SSAValue]:
        """``if cond: then_body() else: else_body()``; each returns the values the `if`
        gives (the same count from both, named by `names` in errors). A literal on one side
        takes the other side's type; other values must agree in type."""

        def keyed(
            body: Callable[[], Sequence[SSAValue]] | None,
        ) -> Callable[[], dict[str, SSAValue]]:
            def run() -> dict[str, SSAValue]:
                values = list(body()) if body is not None else []
                return {_name(names, i): v for i, v in enumerate(values)}

            return run

        return list(self.branch(cond, keyed(then_body), keyed(else_body)).values())

    def branch(
        self,
        cond: SSAValue,
        then_body: Callable[[], Mapping[str, SSAValue]],
        else_body: Callable[[], Mapping[str, SSAValue]] | None = None,
    ) -> dict[str, SSAValue]:
        """``if cond`` with named values: each branch returns the variables it leaves; those
        both branches name become the results, in the then-branch's order (types unified
        as in `if_else`)."""
        test = self.condition(cond)
        then_block, else_block = Block(), Block()
        with self.inserting_into(then_block):
            then_values = dict(then_body())
        with self.inserting_into(else_block):
            else_values = dict(else_body()) if else_body is not None else {}
        names = [n for n in then_values if n in else_values]
        types: list[Attribute] = []
        for name in names:
            a, b = then_values[name], else_values[name]
            if self.is_weak(a) and self.is_weak(b):
                with self.inserting_into(then_block):
                    joined = self._decide(Computation.ARITH, [a, b])
                assert joined is not None
                types.append(joined)
            elif self.is_weak(a) or self.is_weak(b) or a.type == b.type:
                types.append(a.type if self.is_weak(b) else b.type)
            else:
                raise self.error(
                    f"{name} is {a.type} after the 'if' branch but {b.type} after the 'else' "
                    "branch; give both the same dtype and shape"
                )
        for block, values in ((then_block, then_values), (else_block, else_values)):
            with self.inserting_into(block):
                yielded = [self.coerce(values[n], t) for n, t in zip(names, types, strict=True)]
                self.add(scf.YieldOp(*yielded))
        op = scf.IfOp(test, types, [then_block], [else_block])
        self.add(op)
        return dict(zip(names, op.results, strict=True))


def _triton_literal_words(err: PromotionError, values: Sequence[SSAValue]) -> str:
    """Triton's words for an integer literal its typed operand cannot hold, to follow a
    policy's ``literal-range`` refusal (empty for other refusals)."""
    typed = [d for v in values if (d := dtype_of(v.type)) is not None and d.is_int]
    if err.rule != "literal-range" or not typed:
        return ""
    for value in values:
        literal = IRBuilder.literal_value(value)
        if isinstance(literal, bool) or not isinstance(literal, int):
            continue
        if literal < 0 and typed[0].is_unsigned:
            return (
                "; Cannot perform a binary operation between an unsigned tensor and a negative "
                "scalar"
            )
        low, high = typed[0].int_range
        if not low <= literal <= high:
            return f"; Scalar {literal} is out of range for type {typed[0].name}"
    return ""


def _nan_property(nan: str | None) -> dict[str, Attribute]:
    return {} if nan is None else {"nan": blk.NanAttr(blk.Nan(nan))}


def _name(names: Sequence[str], index: int) -> str:
    return f"'{names[index]}'" if index < len(names) else f"carried value {index}"


def _numel(shape: Sequence[int]) -> int:
    count = 1
    for d in shape:
        count *= d
    return count
