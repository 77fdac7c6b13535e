"""`promote-types`: make every implicit dtype conversion of loose IR an explicit `blk.cast`.

For each op that promotes (the `Promotes` trait), the policy decides the computation dtype;
operands of another dtype get a `blk.cast ... implicit` and weak literals become typed
`blk.constant`s. The pass also fills what loose IR leaves to the policy: `rounding` on
`floordiv`/`mod`, `fill` on `shr`, `nan` on float `minimum`/`maximum` and on float
max/min/argmax/argmin reductions and scans, `acc_dtype` on reductions, scans and `dot`, and
converts the values stored or loaded (`other`) to the pointee type.

```mlir
%r = blk.add %i, %h : tensor<16xi32>, tensor<16xf16> -> tensor<16xf16>
// becomes
%c = blk.cast %i implicit : tensor<16xi32> -> tensor<16xf16>
%r = blk.add %c, %h : tensor<16xf16>
```

Options: `policy` (default: the module's `blk.policy`, else `triton`), `explain` (attach
to each inserted cast the rule that caused it, as ``{rule = "kind"}``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from blkc import dtypes
from blkc.diagnostics import error_at
from blkc.dialects import blk
from blkc.dialects.promotion import decide, module_policy
from blkc.dialects.traits import Promotes
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
from blkc.dtypes import DType
from blkc.promotion import canonical_name, default_policy, get_policy
from blkc.promotion.base import Policy, PromotionError

_ACCUMULATES = (blk.ReduceKind.SUM, blk.ReduceKind.PROD)
_SELECTS = (blk.ReduceKind.MAX, blk.ReduceKind.MIN, blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN)


@dataclass(frozen=True)
class PromoteTypesPass(ModulePass):
    """Insert the casts the promotion policy implies; leave no weak literal behind."""

    name = "promote-types"

    policy: str | None = None
    explain: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        name = self.policy or module_policy(op) or default_policy()
        try:
            name = canonical_name(name)
        except ValueError as err:
            raise error_at(op, str(err)) from None
        promoter = _Promoter(name, get_policy(name), self.explain)
        for nested in list(op.walk()):
            promoter.visit(nested)
        for nested in list(op.walk()):
            if isinstance(nested, blk.LiteralOp) and not nested.result.uses:
                nested.detach()
                nested.erase()
        op.attributes[blk.POLICY_ATTR] = StringAttr(name)


class _Promoter:
    def __init__(self, name: str, policy: Policy, explain: bool):
        self.name = name
        self.policy = policy
        self.explain = explain
        self._casts: dict[tuple[SSAValue, DType], SSAValue] = {}

    # -- visiting ----------------------------------------------------------------------

    def visit(self, op: Operation) -> None:
        self._casts = {}  # one cast per value and dtype within an op
        trait = op.get_trait(Promotes)
        if trait is not None:
            self._promote(op, trait)
        elif isinstance(op, blk.LoadOp):
            if op.other is not None:
                self._convert_operand(op, "other", self._pointee(op.ptr), "pointee")
        elif isinstance(op, blk.StoreOp | blk.AtomicRMWOp):
            self._convert_operand(op, "value", self._pointee(op.ptr), "pointee")
        elif isinstance(op, blk.AtomicCASOp):
            for name in ("cmp", "value"):
                self._convert_operand(op, name, self._pointee(op.ptr), "pointee")
        elif isinstance(op, blk.CastOp) and isinstance(op.src.type, WeakType):
            self._fold_literal_cast(op)
        elif isinstance(op, blk.ReduceOp | blk.ScanOp):
            self._accumulate(op)
        elif isinstance(op, blk.DotOp):
            self._dot(op)
        elif isinstance(op, blk.SplatOp | blk.ExpandDimsOp | blk.BroadcastOp | blk.ReshapeOp):
            self._follow_element(op)
        elif isinstance(op, blk.PermuteOp | blk.GatherOp):
            self._follow_element(op)
        elif not isinstance(op, blk.LiteralOp):
            for value in op.operands:
                if isinstance(value.type, WeakType):
                    raise error_at(
                        op,
                        f"'{op.name}' uses the weak literal {_describe(value)}, which "
                        "promote-types cannot type here; give it an explicit dtype",
                    )

    def _promote(self, op: Operation, trait: Promotes) -> None:
        values = [getattr(op, n) for n in trait.operands]
        try:
            decision = decide(self.name, trait.computation_of(op), values)
        except PromotionError as err:
            raise error_at(op, str(err)) from None
        if decision is not None:
            for name in trait.operands:
                self._convert_operand(op, name, decision.compute, decision.rule)
            result = op.results[0]
            wanted = block_of(decision.result.xdsl, shape_of(result.type))
            if result.type != wanted:
                Rewriter.replace_value_with_new_type(result, wanted)
            if isinstance(op, blk.FloorDivOp | blk.ModOp) and op.rounding is None:
                assert decision.rounding is not None
                op.properties["rounding"] = blk.RoundingAttr(blk.Rounding(decision.rounding))
            if isinstance(op, blk.ShrOp) and op.fill is None:
                assert decision.fill is not None
                op.properties["fill"] = blk.ShiftFillAttr(blk.ShiftFill(decision.fill))
            if isinstance(op, blk.MinimumOp | blk.MaximumOp) and decision.compute.is_float:
                self._fill_nan(op)
        for index, value in enumerate(op.operands):
            if isinstance(value.type, WeakType):  # e.g. the condition of blk.where
                kind = dtypes.bool_ if value.type.kind == "bool" else None
                if kind is None:
                    raise error_at(op, f"weak literal {_describe(value)} cannot be typed here")
                op.operands[index] = self._convert(value, kind, op, "weak-literal")

    def _fill_nan(self, op: Operation) -> None:
        """Set `nan` from the policy on an op that selects among floats, unless set."""
        if op.properties.get("nan") is None:
            op.properties["nan"] = blk.NanAttr(blk.Nan(self.policy.nan))

    def _accumulate(self, op: blk.ReduceOp | blk.ScanOp) -> None:
        kind = op.kind.data
        if kind in _SELECTS and dtype_of(op.src.type).is_float:  # type: ignore[union-attr]
            self._fill_nan(op)
        selects = kind in (blk.ReduceKind.MAX, blk.ReduceKind.MIN)
        if op.acc_dtype is not None or not (selects or kind in _ACCUMULATES):
            return
        src = dtype_of(op.src.type)
        assert src is not None
        ask = self.policy.scan_dtype if isinstance(op, blk.ScanOp) else self.policy.reduce_dtype
        try:
            acc = ask(kind.value, src)
        except PromotionError as err:
            raise error_at(op, str(err)) from None
        if selects and acc == src:
            self._follow_element(op)
            return
        op.properties["acc_dtype"] = acc.xdsl
        wanted = with_element(op.result.type, acc.xdsl)
        if op.result.type != wanted:
            Rewriter.replace_value_with_new_type(op.result, wanted)

    def _dot(self, op: blk.DotOp) -> None:
        lhs, rhs = dtype_of(op.lhs.type), dtype_of(op.rhs.type)
        assert lhs is not None and rhs is not None
        acc = None if op.acc is None else dtype_of(op.acc.type)
        try:
            decision = self.policy.dot_dtype(lhs, rhs, acc)
        except PromotionError as err:
            raise error_at(op, str(err)) from None
        self._convert_operand(op, "lhs", decision.compute, decision.rule)
        self._convert_operand(op, "rhs", decision.compute, decision.rule)
        if op.acc_dtype is None:
            op.properties["acc_dtype"] = decision.result.xdsl
        if op.acc is not None:
            result = dtype_of(op.result.type)
            assert result is not None
            self._convert_operand(op, "acc", result, "accumulator")

    def _follow_element(self, op: Operation) -> None:
        """Shape ops (and max/min reductions) keep their source's element type."""
        src_elem = element_type(op.operands[0].type)
        result = op.results[0]
        if isinstance(src_elem, WeakType):
            raise error_at(op, f"'{op.name}' of a weak literal: give the literal a dtype first")
        wanted = with_element(result.type, src_elem)
        if result.type != wanted:
            Rewriter.replace_value_with_new_type(result, wanted)

    def _fold_literal_cast(self, op: blk.CastOp) -> None:
        target = dtype_of(op.result.type)
        if target is None:
            raise error_at(op, "a weak literal can only be cast to a dtype")
        constant = self._constant(op.src, target, op)
        op.result.replace_all_uses_with(constant)
        op.detach()
        op.erase()

    # -- conversions -------------------------------------------------------------------

    @staticmethod
    def _pointee(ptr: SSAValue) -> DType:
        elem = element_type(ptr.type)
        assert isinstance(elem, PtrType)
        found = dtype_of(elem.pointee)
        assert found is not None
        return found

    def _convert_operand(self, op: Operation, name: str, dtype: DType, rule: str) -> None:
        value = getattr(op, name)
        if value is None:
            return
        converted = self._convert(value, dtype, op, rule)
        if converted is not value:
            op.operands[operand_index(op, name)] = converted

    def _convert(self, value: SSAValue, dtype: DType, user: Operation, rule: str) -> SSAValue:
        if isinstance(value.type, WeakType):
            return self._constant(value, dtype, user)
        if dtype_of(value.type) == dtype:
            return value
        if (value, dtype) in self._casts:
            return self._casts[(value, dtype)]
        cast = blk.CastOp(value, with_element(value.type, dtype.xdsl))
        cast.properties["implicit"] = UnitAttr()
        if self.explain:
            cast.attributes["rule"] = StringAttr(rule)
        cast.location = user.location
        _insert_before(cast, user)
        self._casts[(value, dtype)] = cast.result
        return cast.result

    def _constant(self, value: SSAValue, dtype: DType, user: Operation) -> SSAValue:
        owner = value.owner
        if not isinstance(owner, blk.LiteralOp):
            raise error_at(user, f"the weak literal {_describe(value)} has no known value")
        constant = blk.ConstantOp(typed_value(owner.python_value, dtype))
        if self.explain:
            constant.attributes["rule"] = StringAttr("weak-literal")
        constant.location = owner.location
        _insert_before(constant, user)
        return constant.result


def operand_index(op: Operation, name: str) -> int:
    """The position in `op.operands` of the operand named `name` (optional operands that
    are absent take no position). The same value may stand at several positions."""
    position = 0
    for defined, _ in type(op).get_irdl_definition().operands:  # type: ignore[attr-defined]
        if defined == name:
            return position
        if getattr(op, defined) is not None:
            position += 1
    raise KeyError(f"{op.name} has no operand '{name}'")


def _insert_before(new: Operation, user: Operation) -> None:
    block = user.parent_block()
    assert block is not None
    block.insert_op_before(new, user)


def _describe(value: SSAValue) -> str:
    owner = value.owner
    if isinstance(owner, blk.LiteralOp):
        return repr(owner.python_value)
    return str(value.type)
