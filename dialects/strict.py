"""What strict blk IR is, op by op: what the backends and the interpreter take.

Strict IR has no weak literal; the promoted operands of every op share one dtype and the
broadcast operands one shape; `rounding` is set on `floordiv`/`mod`; `nan` on float
`minimum`/`maximum` and float max/min/argmax/argmin reductions and scans; `acc_dtype` on
sum/prod reductions, scans and `dot`; loaded `other` values and stored values are of the
pointee type. `promote-types` and `insert-broadcasts` make loose IR strict;
`blk-verify-strict` checks it.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from blkc.broadcasting import format_shape
from blkc.dialects import blk
from blkc.dialects.traits import Broadcasts, Promotes
from blkc.dialects.types import PtrType, WeakType, dtype_of, element_type, shape_of


def strict_problem(op: Operation) -> tuple[str, str] | None:
    """What keeps `op` from being strict, and which pass fixes it; None when strict."""
    for index, value in enumerate([*op.operands, *op.results]):
        if isinstance(value.type, WeakType):
            what = "operand" if index < len(op.operands) else "result"
            return f"{what} {_name(op, value)} is a weak literal", "dtype"
    promotes = op.get_trait(Promotes)
    if promotes is not None:
        values = [getattr(op, n) for n in promotes.operands]
        dtypes = {element_type(v.type) for v in values}
        if len(dtypes) > 1:
            names = [f"'{n}' ({v.type})" for n, v in zip(promotes.operands, values, strict=True)]
            listed = ", ".join(names[:-1]) + " and " + names[-1]
            return f"operands {listed} differ in dtype", "dtype"
    broadcasts = op.get_trait(Broadcasts)
    if broadcasts is not None:
        present = [(n, getattr(op, n)) for n in broadcasts.operands if getattr(op, n) is not None]
        target = (
            getattr(op, broadcasts.to) if broadcasts.to else (op.results[0] if op.results else None)
        )
        shape = shape_of(target.type) if target is not None else shape_of(present[0][1].type)
        for name, value in present:
            if shape_of(value.type) != shape:
                return (
                    f"operand '{name}' ({value.type}) does not have the shape "
                    f"{format_shape(shape)}",
                    "shape",
                )
    return _attribute_problem(op)


def _attribute_problem(op: Operation) -> tuple[str, str] | None:
    if isinstance(op, blk.FloorDivOp | blk.ModOp) and op.rounding is None:
        return "its rounding is not set", "attribute"
    if _selects_floats(op) and op.properties.get("nan") is None:
        return "its nan (what a NaN operand gives) is not set", "attribute"
    if isinstance(op, blk.ReduceOp | blk.ScanOp) and op.kind.data in (
        blk.ReduceKind.SUM,
        blk.ReduceKind.PROD,
    ):
        if op.acc_dtype is None:
            return "its acc_dtype is not set", "attribute"
    if isinstance(op, blk.DotOp):
        if op.acc_dtype is None:
            return "its acc_dtype is not set", "attribute"
        if element_type(op.lhs.type) != element_type(op.rhs.type):
            return f"operands {op.lhs.type} and {op.rhs.type} differ in dtype", "dtype"
    if isinstance(op, blk.LoadOp) and op.other is not None:
        return _pointee_problem(op, op.ptr, "other", op.other)
    if isinstance(op, blk.StoreOp | blk.AtomicRMWOp):
        return _pointee_problem(op, op.ptr, "value", op.value)
    if isinstance(op, blk.AtomicCASOp):
        return _pointee_problem(op, op.ptr, "cmp", op.cmp) or _pointee_problem(
            op, op.ptr, "value", op.value
        )
    return None


def _selects_floats(op: Operation) -> bool:
    """A float minimum or maximum, or a float max/min/argmax/argmin reduction or scan."""
    if isinstance(op, blk.MinimumOp | blk.MaximumOp):
        source = op.lhs
    elif isinstance(op, blk.ReduceOp | blk.ScanOp) and op.kind.data in _SELECTING:
        source = op.src
    else:
        return False
    found = dtype_of(source.type)
    return found is not None and found.is_float


_SELECTING = (blk.ReduceKind.MAX, blk.ReduceKind.MIN, blk.ReduceKind.ARGMAX, blk.ReduceKind.ARGMIN)


def _pointee_problem(
    op: Operation, ptr: SSAValue, name: str, value: SSAValue
) -> tuple[str, str] | None:
    pointee = element_type(ptr.type)
    assert isinstance(pointee, PtrType)
    if element_type(value.type) != pointee.pointee:
        return (
            f"operand '{name}' ({value.type}) is not of the pointee type {pointee.pointee}",
            "dtype",
        )
    return None


def _name(op: Operation, value: SSAValue) -> str:
    return f"'{value.name_hint}'" if value.name_hint else f"of type {value.type}"
