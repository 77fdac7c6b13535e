"""`lower-int-semantics`: scalar `blk` arithmetic to `arith`/`math`, signedness made explicit.

After `convert-blk-to-loops`, elementwise `blk` ops act on scalars whose dtypes still carry
signedness (`ui32`). This pass replaces each by `arith`/`math` ops on signless integers,
choosing the signed or unsigned op (`divsi`/`divui`, `shrsi`/`shrui`, `slt`/`ult`,
`extsi`/`extui`, ...) from the operand dtype, and then makes every type signless. Each kind
of op has its rewrite pattern (`LowerFloorDiv`, `LowerShr`, ...), applied in one walk.

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

from abc import ABC
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from xdsl.context import Context
from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    Signedness,
    UnitAttr,
    f32,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter

from blkc import dtypes
from blkc.diagnostics import error_at
from blkc.dialects import blk
from blkc.dialects.types import PtrType, element_type
from blkc.dtypes import DType
from blkc.passes.convert_blk_to_loops import REASSOC_ATTR


@dataclass(frozen=True)
class LowerIntSemanticsPass(ModulePass):
    """Lower scalar blk arithmetic to arith/math on signless types."""

    name = "lower-int-semantics"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Record each op's dtypes (with their signedness) first, then make every type
        # signless, then lower: the new arith ops never see a signed or unsigned type. One
        # walk: the ops the patterns create (arith, a float blk.mod) have no recorded dtypes.
        typed = _record_dtypes(op)
        _mark_unsigned(op)
        _make_signless(op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier(_patterns(typed), dce_enabled=False),
            apply_recursively=False,
        ).rewrite_module(op)


def _mark_unsigned(module: ModuleOp) -> None:
    """Mark what needs to know, once types are signless, that its integers are unsigned:
    atomic min and max (`blk.unsigned`), prints (`blk.unsigned_args`)."""
    for op in module.walk():
        if isinstance(op, blk.PrintOp):
            unsigned = [
                i
                for i, arg in enumerate(op.args)
                if (d := _dtype_or_none(element_type(arg.type))) is not None
                and d.is_int
                and not d.signed
            ]
            if unsigned:
                op.attributes[blk.UNSIGNED_ARGS_ATTR] = DenseArrayBase.from_list(i64, unsigned)
        if isinstance(op, blk.AtomicRMWOp) and op.kind.data in (
            blk.AtomicKind.MIN,
            blk.AtomicKind.MAX,
        ):
            d = _dtype_or_none(element_type(op.value.type))
            if d is not None and d.is_int and not d.signed:
                op.attributes[blk.UNSIGNED_ATTR] = UnitAttr()


def _patterns(typed: Mapping[Operation, _Typed]) -> list[RewritePattern]:
    """One pattern per kind of blk op."""
    return [
        LowerArith(typed, blk.AddOp, arith.AddiOp, arith.AddfOp),
        LowerArith(typed, blk.SubOp, arith.SubiOp, arith.SubfOp),
        LowerArith(typed, blk.MulOp, arith.MuliOp, arith.MulfOp),
        LowerArith(typed, blk.TrueDivOp, arith.DivfOp, arith.DivfOp),
        LowerArith(typed, blk.AndOp, arith.AndIOp),
        LowerArith(typed, blk.OrOp, arith.OrIOp),
        LowerArith(typed, blk.XorOp, arith.XOrIOp),
        LowerExtremum(
            typed, blk.MinimumOp, arith.MinSIOp, arith.MinUIOp, arith.MinnumfOp, arith.MinimumfOp
        ),
        LowerExtremum(
            typed, blk.MaximumOp, arith.MaxSIOp, arith.MaxUIOp, arith.MaxnumfOp, arith.MaximumfOp
        ),
        LowerFloorDiv(typed),
        LowerMod(typed),
        LowerShl(typed),
        LowerShr(typed),
        LowerCmp(typed),
        LowerNeg(typed),
        LowerAbs(typed),
        LowerNot(typed),
        LowerFma(typed),
        LowerWhere(typed),
        LowerConstant(typed),
        LowerCast(typed),
        LowerBitcast(typed),
        *(LowerMath(typed, op, math_op) for op, math_op in _MATH.items()),
        LowerNamedMath(typed),
    ]


# ------------------------------------------------------------------------------------
# Building replacements
# ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Typed:
    """An op's operand and result dtypes as the frontend typed them, signedness included
    (None for a type that is no dtype, a pointer)."""

    operands: tuple[DType | None, ...]
    result: DType | None


def _record_dtypes(module: ModuleOp) -> dict[Operation, _Typed]:
    return {
        op: _Typed(
            tuple(_dtype_or_none(v.type) for v in op.operands),
            _dtype_or_none(op.results[0].type) if op.results else None,
        )
        for op in module.walk()
        if op.dialect_name() == "blk"
    }


class _Lowering:
    """Builds the replacement of one op just before it, with the pattern's rewriter."""

    def __init__(self, op: Operation, rewriter: PatternRewriter, typed: _Typed):
        self.op = op
        self.rewriter = rewriter
        self.operand_dtypes = typed.operands
        self.result_dtype = typed.result

    def replace(self, value: SSAValue) -> None:
        """Replace the op's result by `value` and erase the op."""
        self.rewriter.replace(self.op, (), [value])

    def emit(self, new: Operation) -> SSAValue:
        new.location = self.op.location
        self.rewriter.insert(new)
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


@dataclass(frozen=True)
class _LowerOp(RewritePattern, ABC):
    """Replaces one kind of scalar blk op by arith/math ops on signless types."""

    typed: Mapping[Operation, _Typed]
    """Each op's dtypes, recorded before the pass made every type signless."""

    def start(self, op: Operation, rewriter: PatternRewriter) -> _Lowering:
        return _Lowering(op, rewriter, self.typed[op])


def _dtype(t: Attribute) -> DType:
    return dtypes.from_xdsl(t)


def _dtype_or_none(t: Attribute) -> DType | None:
    return dtypes.from_xdsl(t) if dtypes.is_dtype_type(t) else None


@dataclass(frozen=True)
class LowerArith(_LowerOp):
    """An elementwise op that is one arith op on integers and another on floats; a float op
    of a reduction that may reassociate (`blk.reassoc`) says so."""

    op_type: type[Operation]
    int_op: type[Operation]
    float_op: type[Operation] | None = None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, self.op_type):
            return
        low = self.start(op, rewriter)
        if not low.dtype.is_float:
            low.replace(low.emit(self.int_op(*low.operands())))
            return
        assert self.float_op is not None
        flags = None
        if REASSOC_ATTR in op.attributes:
            flags = arith.FastMathFlagsAttr([arith.FastMathFlag.REASSOC])
        low.replace(low.emit(self.float_op(*low.operands(), flags)))


@dataclass(frozen=True)
class LowerExtremum(_LowerOp):
    """Integer minimum or maximum by signedness; float by what a NaN operand gives."""

    op_type: type[Operation]
    signed: type[Operation]
    unsigned: type[Operation]
    num: type[Operation]
    propagate: type[Operation]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, self.op_type):
            return
        low = self.start(op, rewriter)
        d = low.dtype
        if d.is_float:
            chosen = self.num if blk.nan_of(op) is blk.Nan.NUM else self.propagate
        else:
            chosen = self.signed if d.signed else self.unsigned
        low.replace(low.emit(chosen(*low.operands())))


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


def _floors(op: blk.FloorDivOp | blk.ModOp) -> bool:
    return op.rounding is not None and op.rounding.data is blk.Rounding.FLOOR


class LowerFloorDiv(_LowerOp):
    """`//`: a float quotient floored or truncated; an integer one that never traps."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.FloorDivOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        a, b = low.operands()
        floor = _floors(op)
        if low.dtype.is_float:
            wa, wb, widened = _in_float32(low, a, b)
            quotient = low.emit(arith.DivfOp(wa, wb))
            rounded = low.emit((math.FloorOp if floor else math.TruncOp)(quotient))
            low.replace(_narrow(low, rounded, a, widened))
            return
        divisor, is_zero, is_minus_one = _safe_divisor(low, a, b)
        signed = low.dtype.signed
        quotient = low.emit((arith.DivSIOp if signed else arith.DivUIOp)(a, divisor))
        if floor and signed:
            # Python rounds toward -inf: subtract 1 when the remainder is nonzero and its
            # sign differs from the divisor's.
            remainder = low.emit(arith.RemSIOp(a, divisor))
            adjust = _floor_adjustment(low, remainder, divisor)
            quotient = _select(
                low, adjust, low.emit(arith.SubiOp(quotient, low.const(1, a.type))), quotient
            )
        if signed:
            negated = low.emit(arith.SubiOp(low.const(0, a.type), a))
            quotient = _select(low, is_minus_one, negated, quotient)
        low.replace(_select(low, is_zero, low.const(0, a.type), quotient))


class LowerMod(_LowerOp):
    """`%`: a remainder whose sign follows `rounding`, that never traps."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.ModOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        a, b = low.operands()
        if low.dtype.is_float:
            low.replace(_float_mod(low, a, b, _floors(op)))
            return
        divisor, is_zero, is_minus_one = _safe_divisor(low, a, b)
        signed = low.dtype.signed
        remainder = low.emit((arith.RemSIOp if signed else arith.RemUIOp)(a, divisor))
        if _floors(op) and signed:
            adjust = _floor_adjustment(low, remainder, divisor)
            remainder = _select(low, adjust, low.emit(arith.AddiOp(remainder, divisor)), remainder)
        if signed:
            remainder = _select(low, is_minus_one, low.const(0, a.type), remainder)
        low.replace(_select(low, is_zero, a, remainder))


def _float_mod(low: _Lowering, a: SSAValue, b: SSAValue, floor: bool) -> SSAValue:
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


def _shift_amount(low: _Lowering, amount: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(amount >= width, the amount where it is less, else 0)."""
    too_far = _cmpi(low, amount, low.const(low.dtype.width, amount.type), "uge")
    # negative amounts are huge unsigned
    return too_far, _select(low, too_far, low.const(0, amount.type), amount)


class LowerShl(_LowerOp):
    """`<<`: shifting by the width or more gives 0."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.ShlOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        a, amount = low.operands()
        too_far, safe = _shift_amount(low, amount)
        zero = low.const(0, a.type)
        low.replace(_select(low, too_far, zero, low.emit(arith.ShLIOp(a, safe))))


class LowerShr(_LowerOp):
    """`>>`: arithmetic or logical as `fill` says (else by signedness); shifting by the
    width or more gives 0, or -1 for an arithmetic shift of a negative value."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.ShrOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        a, amount = low.operands()
        too_far, safe = _shift_amount(low, amount)
        arithmetic = low.dtype.signed if op.fill is None else op.fill.data is blk.ShiftFill.SIGN
        if not arithmetic:
            zero = low.const(0, a.type)
            low.replace(_select(low, too_far, zero, low.emit(arith.ShRUIOp(a, safe))))
            return
        shifted = low.emit(arith.ShRSIOp(a, safe))
        negative = _cmpi(low, a, low.const(0, a.type), "slt")
        fill = _select(low, negative, low.const(-1, a.type), low.const(0, a.type))
        low.replace(_select(low, too_far, fill, shifted))


# ------------------------------------------------------------------------------------
# Other ops
# ------------------------------------------------------------------------------------

_FLOAT_PREDICATES = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}


class LowerCmp(_LowerOp):
    """A comparison by signedness; pointer comparisons stay for the code generator."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.CmpOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.lhs.type, PtrType):
            return
        low = self.start(op, rewriter)
        predicate = op.predicate.data.value
        a, b = low.operands()
        d = low.dtype
        if d.is_float:
            low.replace(low.emit(arith.CmpfOp(a, b, _FLOAT_PREDICATES[predicate])))
        elif predicate in ("eq", "ne"):
            low.replace(_cmpi(low, a, b, predicate))
        else:
            low.replace(_cmpi(low, a, b, ("s" if d.signed else "u") + predicate))


class LowerNeg(_LowerOp):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.NegOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        (a,) = low.operands()
        if low.dtype.is_float:
            low.replace(low.emit(arith.NegfOp(a)))
        else:
            low.replace(low.emit(arith.SubiOp(low.const(0, a.type), a)))


class LowerAbs(_LowerOp):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.AbsOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        (a,) = low.operands()
        d = low.dtype
        if d.is_float:
            low.replace(low.emit(math.AbsFOp(a)))
        elif d.signed:
            low.replace(low.emit(math.AbsIOp(a)))
        else:
            low.replace(a)


class LowerNot(_LowerOp):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.NotOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        (a,) = low.operands()
        ones = low.const(-1 if not low.dtype.is_bool else 1, a.type)
        low.replace(low.emit(arith.XOrIOp(a, ones)))


class LowerFma(_LowerOp):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.FmaOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        a, b, c = low.operands()
        if low.dtype.is_float:
            low.replace(low.emit(math.FmaOp(a, b, c)))
        else:
            low.replace(low.emit(arith.AddiOp(low.emit(arith.MuliOp(a, b)), c)))


class LowerWhere(_LowerOp):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.WhereOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        low.replace(_select(low, *low.operands()))


class LowerConstant(_LowerOp):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.ConstantOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        value = op.value
        assert isinstance(value, IntegerAttr | FloatAttr)
        assert low.result_dtype is not None
        low.replace(low.const(value.value.data, signless(value.type), low.result_dtype))


@dataclass(frozen=True)
class LowerMath(_LowerOp):
    """A float function: the math op of the same name."""

    op_type: type[Operation]
    math_op: type[Operation]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, self.op_type):
            low = self.start(op, rewriter)
            low.replace(low.emit(self.math_op(*low.operands())))


_MATH: dict[type[Operation], type[Operation]] = {
    blk.ExpOp: math.ExpOp,
    blk.Exp2Op: math.Exp2Op,
    blk.LogOp: math.LogOp,
    blk.Log2Op: math.Log2Op,
    blk.SqrtOp: math.SqrtOp,
    blk.RsqrtOp: math.RsqrtOp,
    blk.SinOp: math.SinOp,
    blk.CosOp: math.CosOp,
    blk.TanhOp: math.TanhOp,
    blk.ErfOp: math.ErfOp,
    blk.FloorOp: math.FloorOp,
    blk.CeilOp: math.CeilOp,
}


class LowerNamedMath(_LowerOp):
    """`blk.math` and `blk.math2` stay for the code generators, which call each target's
    implementation of the function; small floats compute in float32 and round once."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, blk.MathFnOp | blk.MathFn2Op) or op not in self.typed:
            return
        low = self.start(op, rewriter)
        if low.dtype.width >= 32:
            return
        wide = [low.emit(arith.ExtFOp(v, f32)) for v in low.operands()]
        new = type(op).create(operands=wide, result_types=[f32], properties=dict(op.properties))
        low.replace(_narrow(low, low.emit(new), op.operands[0], True))


class LowerCast(_LowerOp):
    """A conversion by the dtypes' kinds, widths and signedness; pointer casts stay for
    the code generator."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.CastOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.src.type, PtrType):
            return
        low = self.start(op, rewriter)
        low.replace(_convert(low, op.src.type, op.result.type))


def _convert(low: _Lowering, src_t: Attribute, dst_t: Attribute) -> SSAValue:
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


class LowerBitcast(_LowerOp):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.BitcastOp, rewriter: PatternRewriter) -> None:
        low = self.start(op, rewriter)
        low.replace(low.emit(arith.BitcastOp(op.src, op.result.type)))


# ------------------------------------------------------------------------------------
# Signless types
# ------------------------------------------------------------------------------------


@cache
def signless(t: Attribute) -> Attribute:
    """`t` with every unsigned integer type made signless (pointees and buffers too).
    Cached: a type is built (and verified) once, not for every value of a large kernel."""
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
        combining = blk.ReduceOp | blk.ScanOp | blk.DotOp | blk.CombineRegionOp
        if isinstance(op, combining | blk.SortOp | blk.BitonicMergeOp):
            raise error_at(op, f"'{op.name}' must be lowered by convert-blk-to-loops first")
