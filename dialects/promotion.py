"""The bridge between blk IR and the promotion policies: operands of ops as policy
operands, the module's policy, and result types inferred from it.

The dialect's verifiers, `promote-types` and the frontends' builders all ask it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue

from blkc.dialects.blk import POLICY_ATTR, LiteralOp
from blkc.dialects.types import PtrType, WeakType, block_of, dtype_of, element_type, shape_of
from blkc.dtypes import Kind
from blkc.promotion import get_policy
from blkc.promotion.base import Decision, Operand
from blkc.promotion.computation import Computation

_WEAK_KINDS = {"bool": Kind.BOOL, "int": Kind.INT, "float": Kind.FLOAT}


def operand_of(value: SSAValue) -> Operand | None:
    """`value` as a policy operand; None for pointers (which do not promote)."""
    t = value.type
    if isinstance(t, WeakType):
        owner = value.owner
        if isinstance(owner, LiteralOp):
            return Operand.literal(owner.python_value)
        return Operand.weak(_WEAK_KINDS[t.kind])
    if isinstance(element_type(t), PtrType):
        return None
    d = dtype_of(t)
    assert d is not None, f"{t} is not a blk value type"
    return Operand.typed(d, rank=len(shape_of(t)))


def module_policy(op: Operation) -> str | None:
    """The policy named by the enclosing module's `blk.policy` attribute, if any."""
    current: Operation | None = op
    while current is not None:
        if isinstance(current, ModuleOp):
            attr = current.attributes.get(POLICY_ATTR)
            if isinstance(attr, StringAttr):
                return attr.data
        current = current.parent_op()
    return None


def decide(policy: str, computation: Computation, values: Sequence[SSAValue]) -> Decision | None:
    """The policy's decision for an op on `values`; None when pointers take part."""
    operands = [operand_of(v) for v in values]
    if any(o is None for o in operands):
        return None
    return get_policy(policy).decide(computation, operands)  # type: ignore[arg-type]


def result_type(
    policy: str, computation: Computation, promoted: Sequence[SSAValue], shape: Sequence[int]
) -> Attribute:
    """The result type a loose elementwise op gets: the policy's dtype over `shape`."""
    decision = decide(policy, computation, promoted)
    if decision is None:
        return block_of(element_type(promoted[0].type), shape)
    return block_of(decision.result.xdsl, shape)
