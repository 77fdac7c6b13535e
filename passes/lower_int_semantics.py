"""`lower-int-semantics`: scalar `blk` arithmetic to `arith`/`math`, signedness made explicit.

After `convert-blk-to-loops`, elementwise `blk` ops act on scalars whose dtypes still carry
signedness (`ui32`). This pass replaces each by `arith`/`math` ops on signless integers,
choosing the signed or unsigned op (`divsi`/`divui`, `shrsi`/`shrui`, `slt`/`ult`,
`extsi`/`extui`, ...) from the operand dtype, and then makes every type signless.

Integer division never traps (docs/semantics.md): the divisor is replaced by 1 where it
is 0 (result `0` for `//`, the dividend for `%`) and where it is -1 (result `-x` and `0`),
since x86 traps on both. `rounding = floor` adds Python's correction to the truncating
quotient. `shr` is `shrsi` or `shrui` as its `fill` says (else by signedness); shifts by the
width or more give 0 (or -1 for an arithmetic `shr` of a value whose sign bit is set).
Float `minimum`/`maximum` become `minnumf`/`maxnumf` or `minimumf`/`maximumf` as their `nan`
says.
Float to integer casts are `arith.fptosi`/`fptoui`, which the code generator emits as
saturating conversions (NaN gives 0).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import (
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    Signedness,
    f32,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from blkc import dtypes
from blkc.diagnostics import error_at
from blkc.dialects import blk
from blkc.dialects.types import PtrType
from blkc.dtypes import DType
from blkc.passes.convert_blk_to_loops import REASSOC_ATTR


@dataclass(frozen=True)
class LowerIntSemanticsPass(ModulePass):
    """Lower scalar blk arithmetic to arith/math on signless types."""

    name = "lower-int-semantics"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Read each op's dtypes (with their signedness) first, then make every type
        # signless, then lower: the new arith ops never see a signed or unsigned type.
        work = [
            _Lowering(nested, lower)
            for nested in op.walk()
            if (lower := _LOWERINGS.get(type(nested))) is not None
        ]
        _make_signless(op)
        for lowering in work:
            lowering.run()


# ------------------------------------------------------------------------------------
# Building replacements
# ------------------------------------------------------------------------------------


class _Lowering:
    """Builds the replacement of one op just before it."""

    def __init__(self, op: Operation, lower: Callable[[_Lowering], SSAValue | None]):
        self.op = op
        self.lower = lower
        self.operand_dtypes = [_dtype_or_none(v.type) for v in op.operands]
        self.result_dtype = _dtype_or_none(op.results[0].type) if op.results else None

    def run(self) -> None:
        replacement = self.lower(self)
        if replacement is not None:
            self.op.results[0].replace_all_uses_with(replacement)
        self.op.detach()
        self.op.erase()

    def emit(self, new: Operation) -> SSAValue:
        new.location = self.op.location
        block = self.op.parent_block()
        assert block is not None
        block.insert_op_before(new, self.op)
        return new.results[0]

    @property
    def dtype(self) -> DType:
        """The dtype the op computes in: that of its first operand, signedness included."""
        found = self.operand_dtypes[0]
        assert found is not None
        return found

    def const(self, value: int | float, like: Attribute, d: DType | None = None) -> SSAValue:
        """A constant of type `like` (signless); `d` gives its dtype when `like` is i1..i64
        that may stand for an unsigned dtype (the op's own dtype by default)."""
        d = d or _dtype(like)
        if d.is_float:
            attr: Attribute = FloatAttr(float(value), like)
        elif d.is_bool:
            attr = IntegerAttr(int(value) & 1, i1)
        else:  # two's complement bits of a signless integer
            bits = int(value) % (1 << d.width)
            attr = IntegerAttr(
                bits - (1 << d.width) if bits >> (d.width - 1) else bits, signless(like)
            )
        return self.emit(arith.ConstantOp(attr))

    def operands(self) -> list[SSAValue]:
        return list(self.op.operands)


def _dtype(t: Attribute) -> DType:
    return dtypes.from_xdsl(t)


def _dtype_or_none(t: Attribute) -> DType | None:
    return dtypes.from_xdsl(t) if dtypes.is_dtype_type(t) else None


def _int_or_float(
    int_op: type[Operation], float_op: type[Operation]
) -> Callable[[_Lowering], SSAValue]:
    def lower(low: _Lowering) -> SSAValue:
        if not low.dtype.is_float:
            return low.emit(int_op(*low.operands()))
        flags = None
        if REASSOC_ATTR in low.op.attributes:
            flags = arith.FastMathFlagsAttr([arith.FastMathFlag.REASSOC])
        return low.emit(float_op(*low.operands(), flags))

    return lower


def _by_signedness(
    signed: type[Operation], unsigned: type[Operation], floating: type[Operation] | None = None
) -> Callable[[_Lowering], SSAValue]:
    def lower(low: _Lowering) -> SSAValue:
        d = low.dtype
        if d.is_float:
            assert floating is not None
            return low.emit(floating(*low.operands()))
        return low.emit((signed if d.signed else unsigned)(*low.operands()))

    return lower


def _extremum(
    signed: type[Operation],
    unsigned: type[Operation],
    num: type[Operation],
    propagate: type[Operation],
) -> Callable[[_Lowering], SSAValue]:
    """Integer min/max by signedness; float min/max by what a NaN operand gives."""
    by_nan = {blk.Nan.NUM: num, blk.Nan.PROPAGATE: propagate}
    return lambda low: _by_signedness(signed, unsigned, by_nan[blk.nan_of(low.op)])(low)


def _select(low: _Lowering, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return low.emit(arith.SelectOp(cond, a, b))


def _cmpi(low: _Lowering, a: SSAValue, b: SSAValue, predicate: str) -> SSAValue:
    return low.emit(arith.CmpiOp(a, b, predicate))


# ------------------------------------------------------------------------------------
# Division, remainder, shifts
# ------------------------------------------------------------------------------------


def _safe_divisor(low: _Lowering, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(divisor with 0 and -1 replaced by 1, b == 0, b == -1 (false when unsigned))."""
    t = b.type
    zero, one = low.const(0, t), low.const(1, t)
    is_zero = _cmpi(low, b, zero, "eq")
    if low.dtype.signed:
        is_minus_one = _cmpi(low, b, low.const(-1, t), "eq")
        special = low.emit(arith.OrIOp(is_zero, is_minus_one))
    else:
        is_minus_one = low.const(0, i1)
        special = is_zero
    return _select(low, special, one, b), is_zero, is_minus_one


def _floor_adjustment(low: _Lowering, remainder: SSAValue, divisor: SSAValue) -> SSAValue:
    """Where C's truncating remainder needs Python's correction: it is nonzero and its sign
    differs from the divisor's."""
    zero = low.const(0, remainder.type)
    nonzero = _cmpi(low, remainder, zero, "ne")
    signs_differ = _cmpi(low, low.emit(arith.XOrIOp(remainder, divisor)), zero, "slt")
    return low.emit(arith.AndIOp(nonzero, signs_differ))


def _in_float32(low: _Lowering, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue, bool]:
    """Operands of a float op lowered to several ops: small floats widen to f32 so that
    the whole op rounds once (docs/semantics.md), then `_narrow` rounds the result."""
    if low.dtype.width >= 32:
        return a, b, False
    return low.emit(arith.ExtFOp(a, f32)), low.emit(arith.ExtFOp(b, f32)), True


def _narrow(low: _Lowering, value: SSAValue, like: SSAValue, widened: bool) -> SSAValue:
    return low.emit(arith.TruncFOp(value, like.type)) if widened else value


def _lower_floordiv(low: _Lowering) -> SSAValue:
    a, b = low.operands()
    op = low.op
    assert isinstance(op, blk.FloorDivOp)
    floor = op.rounding is not None and op.rounding.data is blk.Rounding.FLOOR
    if low.dtype.is_float:
        wa, wb, widened = _in_float32(low, a, b)
        quotient = low.emit(arith.DivfOp(wa, wb))
        rounded = low.emit((math.FloorOp if floor else math.TruncOp)(quotient))
        return _narrow(low, rounded, a, widened)
    divisor, is_zero, is_minus_one = _safe_divisor(low, a, b)
    signed = low.dtype.signed
    quotient = low.emit((arith.DivSIOp if signed else arith.DivUIOp)(a, divisor))
    if floor and signed:
        # Python rounds toward -inf: subtract 1 when the remainder is nonzero and its sign
        # differs from the divisor's.
        remainder = low.emit(arith.RemSIOp(a, divisor))
        adjust = _floor_adjustment(low, remainder, divisor)
        quotient = _select(
            low, adjust, low.emit(arith.SubiOp(quotient, low.const(1, a.type))), quotient
        )
    if signed:
        negated = low.emit(arith.SubiOp(low.const(0, a.type), a))
        quotient = _select(low, is_minus_one, negated, quotient)
    return _select(low, is_zero, low.const(0, a.type), quotient)


def _lower_mod(low: _Lowering) -> SSAValue:
    a, b = low.operands()
    op = low.op
    assert isinstance(op, blk.ModOp)
    floor = op.rounding is not None and op.rounding.data is blk.Rounding.FLOOR
    if low.dtype.is_float:
        wa, wb, widened = _in_float32(low, a, b)
        # arith has no remf: a scalar `blk.mod` with C rounding stays for the code generator,
        # which emits LLVM's exact `frem`.
        remainder = low.emit(
            blk.ModOp.create(
                operands=[wa, wb],
                result_types=[wa.type],
                properties={"rounding": blk.RoundingAttr(blk.Rounding.TRUNC)},
            )
        )
        if floor:
            # NumPy: a nonzero remainder takes the divisor's sign (add the divisor), and so
            # does a zero one (-4.0 % 2.0 == 0.0).
            zero = low.const(0.0, wa.type)
            nonzero = low.emit(arith.CmpfOp(remainder, zero, "une"))
            signs_differ = low.emit(
                arith.XOrIOp(
                    low.emit(arith.CmpfOp(remainder, zero, "olt")),
                    low.emit(arith.CmpfOp(wb, zero, "olt")),
                )
            )
            adjust = low.emit(arith.AndIOp(nonzero, signs_differ))
            remainder = _select(low, adjust, low.emit(arith.AddfOp(remainder, wb)), remainder)
            signed_zero = low.emit(math.CopySignOp(zero, wb))
            is_zero = low.emit(arith.CmpfOp(remainder, zero, "oeq"))
            remainder = _select(low, is_zero, signed_zero, remainder)
        return _narrow(low, remainder, a, widened)
    divisor, is_zero, is_minus_one = _safe_divisor(low, a, b)
    signed = low.dtype.signed
    remainder = low.emit((arith.RemSIOp if signed else arith.RemUIOp)(a, divisor))
    if floor and signed:
        adjust = _floor_adjustment(low, remainder, divisor)
        remainder = _select(low, adjust, low.emit(arith.AddiOp(remainder, divisor)), remainder)
    if signed:
        remainder = _select(low, is_minus_one, low.const(0, a.type), remainder)
    return _select(low, is_zero, a, remainder)


def _lower_shift(left: bool) -> Callable[[_Lowering], SSAValue]:
    def lower(low: _Lowering) -> SSAValue:
        a, amount = low.operands()
        d = low.dtype
        width = low.const(d.width, amount.type)
        too_far = _cmpi(low, amount, width, "uge")  # negative amounts are huge unsigned
        safe = _select(low, too_far, low.const(0, amount.type), amount)
        if left:
            return _select(low, too_far, low.const(0, a.type), low.emit(arith.ShLIOp(a, safe)))
        given = low.op.properties.get("fill")
        arithmetic = d.signed if given is None else given.data is blk.ShiftFill.SIGN  # type: ignore[attr-defined]
        if arithmetic:
            shifted = low.emit(arith.ShRSIOp(a, safe))
            negative = _cmpi(low, a, low.const(0, a.type), "slt")
            fill = _select(low, negative, low.const(-1, a.type), low.const(0, a.type))
            return _select(low, too_far, fill, shifted)
        return _select(low, too_far, low.const(0, a.type), low.emit(arith.ShRUIOp(a, safe)))

    return lower


# ------------------------------------------------------------------------------------
# Other ops
# ------------------------------------------------------------------------------------

_INT_PREDICATES = {"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge"}
_FLOAT_PREDICATES = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}


def _lower_cmp(low: _Lowering) -> SSAValue | None:
    op = low.op
    assert isinstance(op, blk.CmpOp)
    if isinstance(op.lhs.type, PtrType):
        return _keep(low)
    predicate = op.predicate.data.value
    a, b = low.operands()
    d = low.dtype
    if d.is_float:
        return low.emit(arith.CmpfOp(a, b, _FLOAT_PREDICATES[predicate]))
    if predicate in ("eq", "ne"):
        return _cmpi(low, a, b, predicate)
    prefix = "s" if d.signed else "u"
    return _cmpi(low, a, b, prefix + predicate)


def _keep(low: _Lowering) -> None:
    """Leave pointer ops to the code generator: re-insert a clone and keep its result."""
    clone = low.op.clone()
    low.emit(clone)
    low.op.results[0].replace_all_uses_with(clone.results[0])
    return None


def _lower_neg(low: _Lowering) -> SSAValue:
    (a,) = low.operands()
    if low.dtype.is_float:
        return low.emit(arith.NegfOp(a))
    return low.emit(arith.SubiOp(low.const(0, a.type), a))


def _lower_abs(low: _Lowering) -> SSAValue:
    (a,) = low.operands()
    d = low.dtype
    if d.is_float:
        return low.emit(math.AbsFOp(a))
    if not d.signed:
        return a
    return low.emit(math.AbsIOp(a))


def _lower_not(low: _Lowering) -> SSAValue:
    (a,) = low.operands()
    return low.emit(arith.XOrIOp(a, low.const(-1 if not low.dtype.is_bool else 1, a.type)))


def _lower_fma(low: _Lowering) -> SSAValue:
    a, b, c = low.operands()
    if low.dtype.is_float:
        return low.emit(math.FmaOp(a, b, c))
    return low.emit(arith.AddiOp(low.emit(arith.MuliOp(a, b)), c))


def _lower_where(low: _Lowering) -> SSAValue:
    cond, a, b = low.operands()
    return _select(low, cond, a, b)


def _lower_constant(low: _Lowering) -> SSAValue:
    op = low.op
    assert isinstance(op, blk.ConstantOp)
    value = op.value
    assert isinstance(value, IntegerAttr | FloatAttr)
    assert low.result_dtype is not None
    return low.const(value.value.data, signless(value.type), low.result_dtype)


def _math(cls: type[Operation]) -> Callable[[_Lowering], SSAValue]:
    return lambda low: low.emit(cls(*low.operands()))


def _lower_cast(low: _Lowering) -> SSAValue | None:
    op = low.op
    assert isinstance(op, blk.CastOp)
    src_t, dst_t = op.src.type, op.result.type
    if isinstance(src_t, PtrType):
        return _keep(low)
    src, dst = low.operand_dtypes[0], low.result_dtype
    assert src is not None and dst is not None
    (a,) = low.operands()
    if src == dst:
        return a
    if dst.is_bool:
        if src.is_float:
            return low.emit(arith.CmpfOp(a, low.const(0.0, src_t), "une"))
        return _cmpi(low, a, low.const(0, src_t), "ne")
    if src.is_float and dst.is_float:
        wider = dst.width > src.width or (
            dst.width == src.width and dst.max_exponent > src.max_exponent
        )
        return low.emit((arith.ExtFOp if wider else arith.TruncFOp)(a, dst_t))
    if src.is_float:
        return low.emit((arith.FPToSIOp if dst.signed else arith.FPToUIOp)(a, dst_t))
    if dst.is_float:
        unsigned = src.is_bool or not src.signed
        return low.emit((arith.UIToFPOp if unsigned else arith.SIToFPOp)(a, dst_t))
    if dst.width == src.width:
        return a
    if dst.width < src.width:
        return low.emit(arith.TruncIOp(a, dst_t))
    unsigned = src.is_bool or not src.signed
    return low.emit((arith.ExtUIOp if unsigned else arith.ExtSIOp)(a, dst_t))


def _lower_bitcast(low: _Lowering) -> SSAValue:
    op = low.op
    assert isinstance(op, blk.BitcastOp)
    (a,) = low.operands()
    return low.emit(arith.BitcastOp(a, op.result.type))


_LOWERINGS: dict[type[Operation], Callable[[_Lowering], SSAValue | None]] = {
    blk.AddOp: _int_or_float(arith.AddiOp, arith.AddfOp),
    blk.SubOp: _int_or_float(arith.SubiOp, arith.SubfOp),
    blk.MulOp: _int_or_float(arith.MuliOp, arith.MulfOp),
    blk.TrueDivOp: _int_or_float(arith.DivfOp, arith.DivfOp),
    blk.FloorDivOp: _lower_floordiv,
    blk.ModOp: _lower_mod,
    blk.AndOp: _int_or_float(arith.AndIOp, arith.AndIOp),
    blk.OrOp: _int_or_float(arith.OrIOp, arith.OrIOp),
    blk.XorOp: _int_or_float(arith.XOrIOp, arith.XOrIOp),
    blk.ShlOp: _lower_shift(True),
    blk.ShrOp: _lower_shift(False),
    blk.MinimumOp: _extremum(arith.MinSIOp, arith.MinUIOp, arith.MinnumfOp, arith.MinimumfOp),
    blk.MaximumOp: _extremum(arith.MaxSIOp, arith.MaxUIOp, arith.MaxnumfOp, arith.MaximumfOp),
    blk.CmpOp: _lower_cmp,
    blk.NegOp: _lower_neg,
    blk.AbsOp: _lower_abs,
    blk.NotOp: _lower_not,
    blk.FmaOp: _lower_fma,
    blk.WhereOp: _lower_where,
    blk.ConstantOp: _lower_constant,
    blk.CastOp: _lower_cast,
    blk.BitcastOp: _lower_bitcast,
    blk.ExpOp: _math(math.ExpOp),
    blk.Exp2Op: _math(math.Exp2Op),
    blk.LogOp: _math(math.LogOp),
    blk.Log2Op: _math(math.Log2Op),
    blk.SqrtOp: _math(math.SqrtOp),
    blk.RsqrtOp: _math(math.RsqrtOp),
    blk.SinOp: _math(math.SinOp),
    blk.CosOp: _math(math.CosOp),
    blk.TanhOp: _math(math.TanhOp),
    blk.ErfOp: _math(math.ErfOp),
    blk.FloorOp: _math(math.FloorOp),
    blk.CeilOp: _math(math.CeilOp),
}


# ------------------------------------------------------------------------------------
# Signless types
# ------------------------------------------------------------------------------------


def signless(t: Attribute) -> Attribute:
    """`t` with every unsigned integer type made signless (pointees and buffers too)."""
    if isinstance(t, IntegerType) and t.signedness.data != Signedness.SIGNLESS:
        return IntegerType(t.width.data)
    if isinstance(t, PtrType):
        return PtrType(signless(t.pointee))
    if isinstance(t, MemRefType):
        return MemRefType(signless(t.element_type), t.get_shape())
    return t


def _make_signless(module: ModuleOp) -> None:
    for op in list(module.walk()):
        if isinstance(op, func.FuncOp):
            ft = op.function_type
            op.function_type = FunctionType.from_lists(
                [signless(t) for t in ft.inputs.data], [signless(t) for t in ft.outputs.data]
            )
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    if signless(arg.type) != arg.type:
                        Rewriter.replace_value_with_new_type(arg, signless(arg.type))
        for result in op.results:
            if signless(result.type) != result.type:
                Rewriter.replace_value_with_new_type(result, signless(result.type))
        if isinstance(op, blk.ReduceOp | blk.ScanOp | blk.DotOp):
            raise error_at(op, f"'{op.name}' must be lowered by convert-blk-to-loops first")
