"""The `blk` dialect: block-tensor operations with explicit dtypes and shapes.

Elementwise ops come in two forms sharing one op class. In *loose* IR, which frontends
emit, operands may differ in dtype and shape (NumPy-style broadcasting) and may be weak
literals; in *strict* IR, which `promote-types` and `insert-broadcasts` leave behind, all
operands of an elementwise op share one type and shape. The custom syntax shows the
difference: a strict op prints one type, a loose op its whole signature.

```mlir
%s = blk.add %x, %y : tensor<16xf32>                                      // strict
%l = blk.add %i, %c : tensor<16xi32>, !blk.weak<float> -> tensor<16xf32>  // loose
```

Kernels are `func.func` ops carrying the unit attribute `blk.kernel`; the module attribute
`blk.policy` names the promotion policy of loose IR.
"""

from __future__ import annotations

import math
from abc import ABC
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    OperandDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariableDirective,
    irdl_custom_directive,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from blkc import dtypes
from blkc.broadcasting import BroadcastError, broadcast_shapes, format_shape
from blkc.dialects.traits import Broadcasts, Computation, Promotes
from blkc.dialects.types import (
    PtrType,
    WeakType,
    block_of,
    element_type,
    shape_of,
    with_element,
)

# --------------------------------------------------------------------------------------
# Enumerations
# --------------------------------------------------------------------------------------


class Rounding(StrEnum):
    """How ``//`` and ``%`` round: toward negative infinity, or toward zero (C)."""

    FLOOR = "floor"
    TRUNC = "trunc"


class Nan(StrEnum):
    """What a float minimum or maximum gives when an operand is NaN: ``num`` the other
    operand (MLIR's ``arith.maxnumf``, C's ``fmax``, Triton's default), ``propagate`` NaN
    (MLIR's ``arith.maximumf``, NumPy's ``maximum``)."""

    NUM = "num"
    PROPAGATE = "propagate"


class ShiftFill(StrEnum):
    """What ``>>`` shifts in from the left: copies of the sign bit (arithmetic, MLIR's
    ``arith.shrsi``) or zeros (logical, ``arith.shrui``)."""

    SIGN = "sign"
    ZERO = "zero"


class CmpPredicate(StrEnum):
    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


class ReduceKind(StrEnum):
    SUM = "sum"
    PROD = "prod"
    MAX = "max"
    MIN = "min"
    ARGMAX = "argmax"
    ARGMIN = "argmin"
    AND = "and"
    OR = "or"
    XOR = "xor"


class AtomicKind(StrEnum):
    ADD = "add"
    MAX = "max"
    MIN = "min"
    AND = "and"
    OR = "or"
    XOR = "xor"
    XCHG = "xchg"


class _NamesItsValues:
    """Mixin of the enum attributes: a word that is not a value is refused with the
    values allowed (xDSL's own message lists them but names no role)."""

    enum_type: ClassVar[type[StrEnum]]
    ROLE: ClassVar[str]
    """What the enum says, in the error message (``predicate``, ``fill``, ...)."""

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> StrEnum:
        pos = parser.pos
        word = parser.parse_optional_identifier_or_str_literal()
        allowed = [e.value for e in cls.enum_type]
        if word not in allowed:
            parser.raise_error(
                f"'{word}' is not a valid {cls.ROLE}; expected one of: " + ", ".join(allowed),
                pos,
                parser.pos,
            )
        return cls.enum_type(word)


@irdl_attr_definition
class RoundingAttr(_NamesItsValues, EnumAttribute[Rounding], SpacedOpaqueSyntaxAttribute):
    name = "blk.rounding"
    ROLE = "rounding"


@irdl_attr_definition
class NanAttr(_NamesItsValues, EnumAttribute[Nan], SpacedOpaqueSyntaxAttribute):
    name = "blk.nan"
    ROLE = "nan"


@irdl_attr_definition
class ShiftFillAttr(_NamesItsValues, EnumAttribute[ShiftFill], SpacedOpaqueSyntaxAttribute):
    name = "blk.shift_fill"
    ROLE = "fill"


@irdl_attr_definition
class CmpPredicateAttr(_NamesItsValues, EnumAttribute[CmpPredicate], SpacedOpaqueSyntaxAttribute):
    name = "blk.predicate"
    ROLE = "predicate"


@irdl_attr_definition
class ReduceKindAttr(_NamesItsValues, EnumAttribute[ReduceKind], SpacedOpaqueSyntaxAttribute):
    name = "blk.reduce_kind"
    ROLE = "reduction kind"


@irdl_attr_definition
class AtomicKindAttr(_NamesItsValues, EnumAttribute[AtomicKind], SpacedOpaqueSyntaxAttribute):
    name = "blk.atomic_kind"
    ROLE = "atomic kind"


# --------------------------------------------------------------------------------------
# Value categories, shared by the verifiers
# --------------------------------------------------------------------------------------

BOOL, INT, FLOAT, PTR = "bool", "int", "float", "ptr"
NUMBER = frozenset({BOOL, INT, FLOAT})
INTEGRAL = frozenset({BOOL, INT})
ANY_VALUE = frozenset({BOOL, INT, FLOAT, PTR})

_DOMAIN_WORDS = {
    NUMBER: "a number (bool, integer or float)",
    INTEGRAL: "a bool or an integer",
    frozenset({INT}): "an integer",
    frozenset({FLOAT}): "a float",
    frozenset({BOOL}): "a bool (i1)",
    frozenset({PTR}): "a pointer",
    ANY_VALUE: "a number or a pointer",
}


def category(t: Attribute) -> str | None:
    """`bool`, `int`, `float` or `ptr` for a blk value type; None for anything else."""
    if isinstance(t, WeakType):
        return t.kind
    if isinstance(t, TensorType) and isinstance(t.element_type, WeakType):
        return None  # weak literals are scalars only
    elem = element_type(t)
    if isinstance(elem, PtrType):
        return PTR
    if not dtypes.is_dtype_type(elem):
        return None
    d = dtypes.from_xdsl(elem)
    if d.is_complex:
        return None
    return BOOL if d.is_bool else INT if d.is_int else FLOAT


def check_value(role: str, t: Attribute, domain: frozenset[str], *, weak_ok: bool = True) -> str:
    """Check that `t` (the type of `role`) is a blk value in `domain`; return its category."""
    if isinstance(t, TensorType) and any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"{role} has type {t}: blk blocks have static shapes")
    cat = category(t)
    if cat is None:
        raise VerifyException(
            f"{role} has type {t}, which is not a blk value "
            "(a dtype scalar, a static block of a dtype, a pointer or a weak literal)",
        )
    if isinstance(t, WeakType) and not weak_ok:
        raise VerifyException(f"{role} has type {t}: weak literals are not allowed here")
    if cat not in domain:
        raise VerifyException(f"{role} has type {t}; expected {_DOMAIN_WORDS[domain]}")
    return cat


def _broadcast(roles: Sequence[str], types: Sequence[Attribute]) -> tuple[int, ...]:
    try:
        return broadcast_shapes(
            *(shape_of(t) for t in types),
            names=[f"'{r}' ({t})" for r, t in zip(roles, types, strict=True)],
        )
    except BroadcastError as err:
        raise VerifyException(str(err)) from None


def _same_dtype(types: Sequence[Attribute]) -> dtypes.DType | None:
    """The dtype all `types` share, or None when they differ or any is weak or a pointer."""
    found: set[Attribute] = {element_type(t) for t in types}
    if len(found) != 1:
        return None
    (elem,) = found
    return dtypes.from_xdsl(elem) if dtypes.is_dtype_type(elem) else None


# --------------------------------------------------------------------------------------
# The signature of value ops: one type (the short form) or all of them
# --------------------------------------------------------------------------------------


class BlkOp(IRDLOperation, ABC):
    """Base of the ops whose signature has a short form (printed by `Signature`).

    The signature is either one type, from which every operand and result type follows
    (see `short_signature`), or the full ``operand types '->' result type``.
    """

    @classmethod
    def short_signature(
        cls, t: Attribute, present: Sequence[str]
    ) -> tuple[list[Attribute], list[Attribute]] | None:
        """Operand and result types implied by the short form ``: t``; None if it has none.

        `present` names the operands the op has, in order.
        """
        return None

    def short_key(self) -> Attribute | None:
        """The type to print in the short form (the result type unless overridden)."""
        return self.results[0].type if self.results else None


class Signature(CustomDirective, ABC):
    """The types of a `BlkOp`: ``t`` when the op's `short_signature` of `t` gives them all
    (a strict op), else ``operand types -> result type`` (a loose op, or one without a
    short form).

    A custom directive (MLIR's ``custom<...>``) because a declarative format prints a fixed
    list of types: it cannot choose between the short and the full form. Subclasses take
    the type of each operand, in order, then that of the result if the op has one.
    """

    def _directives(self) -> tuple[list[TypeDirective], TypeDirective | None]:
        directives: list[TypeDirective] = [getattr(self, f.name) for f in fields(self)]
        operands = [d for d in directives if isinstance(d.inner, OperandDirective)]
        results = [d for d in directives if not isinstance(d.inner, OperandDirective)]
        return operands, (results[0] if results else None)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        assert isinstance(op, BlkOp)
        state.print_whitespace(printer)
        operands, result = self._directives()
        operand_types = [t for d in operands for t in d.get(op)]
        result_types = list(result.get(op)) if result is not None else []
        key = op.short_key()
        if key is not None:
            present = [_variable_name(d) for d in operands if d.get(op)]
            if type(op).short_signature(key, present) == (operand_types, result_types):
                printer.print_attribute(key)
                return
        printer.print_list(operand_types, printer.print_attribute)
        if result_types:
            printer.print_string(" -> ")
            printer.print_attribute(result_types[0])

    def parse(self, parser: Parser, state: ParsingState) -> None:
        op_type = state.op_type
        assert issubclass(op_type, BlkOp)
        operands, result = self._directives()
        present = [d for d in operands if state.operands[_variable_index(d)]]
        names = [_variable_name(d) for d in present]
        pos = parser.pos
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = [parser.parse_type()]
            operand_types = types
        elif len(types) == 1 and (result is not None or len(present) > 1):
            implied = op_type.short_signature(types[0], names)
            if implied is None:
                parser.raise_error(
                    f"{op_type.name} has no short form: write its full signature "
                    "'operand types -> result type'",
                    pos,
                    parser.pos,
                )
            operand_types, result_types = implied
        else:
            operand_types = types
        if len(operand_types) != len(present):
            parser.raise_error(
                f"{op_type.name} has {len(present)} operands but its signature lists "
                f"{len(operand_types)} types",
                pos,
                parser.pos,
            )
        if (result is not None) != bool(result_types):
            parser.raise_error(
                f"{op_type.name} {'has a result' if result is not None else 'has no result'}: "
                "write its signature as 'operand types"
                + (" -> result type'" if result is not None else "'"),
                pos,
                parser.pos,
            )
        given = dict(zip(names, operand_types, strict=True))
        for d in operands:
            name = _variable_name(d)
            d.set(state, (given[name],) if name in given else ())
        if result is not None:
            result.set(state, result_types)


def _variable_name(directive: TypeDirective) -> str:
    assert isinstance(directive.inner, VariableDirective)
    return directive.inner.name


def _variable_index(directive: TypeDirective) -> int:
    assert isinstance(directive.inner, VariableDirective)
    return directive.inner.index


@irdl_custom_directive
class UnarySignature(Signature):
    """``custom<UnarySignature>(type($operand), type($result))``"""

    operand: TypeDirective
    result: TypeDirective


@irdl_custom_directive
class BinarySignature(Signature):
    """``custom<BinarySignature>(type($lhs), type($rhs), type($result))``"""

    lhs: TypeDirective
    rhs: TypeDirective
    result: TypeDirective


@irdl_custom_directive
class TernarySignature(Signature):
    """``custom<TernarySignature>(type($x), type($y), type($z), type($result))``; an
    optional operand (a load's `mask` and `other`) has a type when present."""

    first: TypeDirective
    second: TypeDirective
    third: TypeDirective
    result: TypeDirective


@irdl_custom_directive
class StoreSignature(Signature):
    """``custom<StoreSignature>(type($ptr), type($value), type($mask))``: no result."""

    ptr: TypeDirective
    value: TypeDirective
    mask: TypeDirective


# --------------------------------------------------------------------------------------
# Elementwise ops
# --------------------------------------------------------------------------------------


class ElementwiseOp(BlkOp, ABC):
    """Base of elementwise ops, loose or strict.

    Subclasses say which operand categories they accept (`DOMAINS`, per operand, default
    `DOMAIN`), what their result is (`RESULT`: "common" for the operands' common dtype,
    "bool", "float" for ops that compute in floats), and carry `Promotes` / `Broadcasts`
    traits that the promotion and broadcast passes query.
    """

    DOMAIN: ClassVar[frozenset[str]] = NUMBER
    DOMAINS: ClassVar[dict[str, frozenset[str]]] = {}
    RESULT: ClassVar[str] = "common"

    @classmethod
    def short_signature(
        cls, t: Attribute, present: Sequence[str]
    ) -> tuple[list[Attribute], list[Attribute]] | None:
        return [t] * len(present), [t]

    def verify_(self) -> None:
        op_def = type(self).get_irdl_definition()
        roles = [f"operand '{n}'" for n, _ in op_def.operands]
        types = [v.type for v in self.operands]
        for (name, _), role, t in zip(op_def.operands, roles, types, strict=True):
            check_value(role, t, self.DOMAINS.get(name, self.DOMAIN))
        shape = _broadcast([n for n, _ in op_def.operands], types)
        result = self.results[0].type
        if isinstance(result, WeakType) or category(result) is None:
            raise VerifyException(f"result has type {result}, which is not a blk value type")
        if shape_of(result) != shape:
            raise VerifyException(
                f"result has type {result} but its operands broadcast to shape "
                f"{format_shape(shape)}",
            )
        self._verify_result_dtype(result)
        self._verify_policy(result)

    def _verify_policy(self, result: Attribute) -> None:
        """A loose op's result dtype must be the one the module's policy gives."""
        trait = self.get_trait(Promotes)
        if trait is None:
            return
        from blkc.dialects.promotion import decide, module_policy
        from blkc.promotion.base import PromotionError

        policy = module_policy(self)
        if policy is None:
            return
        try:
            decision = decide(
                policy, trait.computation_of(self), [getattr(self, n) for n in trait.operands]
            )
        except PromotionError as err:
            raise VerifyException(str(err)) from None
        if decision is not None and element_type(result) != decision.result.xdsl:
            operands = ", ".join(str(getattr(self, n).type) for n in trait.operands)
            raise VerifyException(
                f"result has type {result} but policy '{policy}' gives {decision.result.mlir} "
                f"for operands {operands} (rule '{decision.rule}')"
            )

    def _promoted_types(self) -> list[Attribute]:
        trait = self.get_trait(Promotes)
        if trait is None:
            return [v.type for v in self.operands]
        return [getattr(self, n).type for n in trait.operands]

    def _verify_result_dtype(self, result: Attribute) -> None:
        res_cat = category(result)
        common = _same_dtype(self._promoted_types())
        if self.RESULT == "bool":
            if element_type(result) != i1:
                raise VerifyException(f"result has type {result}; a comparison gives bool (i1)")
            return
        if self.RESULT == "float":
            if res_cat != FLOAT:
                raise VerifyException(f"result has type {result}; {self.name} gives a float")
            if common is not None and common.is_float and element_type(result) != common.xdsl:
                raise VerifyException(
                    f"result has type {result} but the operands are {common.mlir}: "
                    f"with operands of one float dtype, {self.name} gives that dtype",
                )
            return
        allowed = self.DOMAIN if self.RESULT == "common" else ANY_VALUE
        if res_cat not in allowed:
            raise VerifyException(f"result has type {result}; expected {_DOMAIN_WORDS[allowed]}")
        if common is not None and element_type(result) != common.xdsl:
            raise VerifyException(
                f"result has type {result} but its operands are all {common.mlir}: "
                f"with operands of one dtype, {self.name} gives that dtype",
            )


_BINARY_TYPES = "attr-dict `:` custom<BinarySignature>(type($lhs), type($rhs), type($result))"
"""The end of every binary op's format: its attributes and its signature."""


class BinaryOp(ElementwiseOp, ABC):
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()

    traits = traits_def(Pure(), Broadcasts(("lhs", "rhs")))
    custom_directives = (BinarySignature,)
    assembly_format = f"$lhs `,` $rhs {_BINARY_TYPES}"

    def __init__(
        self, lhs: SSAValue | Operation, rhs: SSAValue | Operation, result_type: Attribute
    ):
        super().__init__(operands=[lhs, rhs], result_types=[result_type])


def _binary_traits(computation: Computation) -> traits_def:
    return traits_def(Pure(), Promotes(computation, ("lhs", "rhs")), Broadcasts(("lhs", "rhs")))


@irdl_op_definition
class AddOp(BinaryOp):
    """Elementwise sum.

    ```mlir
    %z = blk.add %x, %y : tensor<16xf32>
    %w = blk.add %i, %one : tensor<16xi32>, !blk.weak<int> -> tensor<16xi32>
    ```
    """

    name = "blk.add"
    traits = _binary_traits(Computation.ARITH)


@irdl_op_definition
class SubOp(BinaryOp):
    """Elementwise difference: ``%z = blk.sub %x, %y : tensor<16xf32>``."""

    name = "blk.sub"
    traits = _binary_traits(Computation.SUBTRACT)


@irdl_op_definition
class MulOp(BinaryOp):
    """Elementwise product: ``%z = blk.mul %x, %y : tensor<16xf32>``."""

    name = "blk.mul"
    traits = _binary_traits(Computation.ARITH)


@irdl_op_definition
class TrueDivOp(BinaryOp):
    """Elementwise true division: integers give a float (the policy says which).

    ```mlir
    %q = blk.truediv %x, %y : tensor<16xf32>
    %r = blk.truediv %i, %j : tensor<16xi32>, tensor<16xi32> -> tensor<16xf32>
    ```
    """

    name = "blk.truediv"
    traits = _binary_traits(Computation.TRUEDIV)
    RESULT: ClassVar[str] = "float"


class _RoundingDivOp(BinaryOp, ABC):
    rounding = opt_prop_def(RoundingAttr)
    assembly_format = f"$lhs `,` $rhs (`rounding` `=` $rounding^)? {_BINARY_TYPES}"


@irdl_op_definition
class FloorDivOp(_RoundingDivOp):
    """Elementwise integer-style division, rounding as `rounding` says.

    Loose IR may leave `rounding` unset; `promote-types` sets it from the policy
    (Triton: ``trunc`` on blocks, ``floor`` when every operand is a constant).

    ```mlir
    %q = blk.floordiv %x, %y rounding = trunc : tensor<16xi32>
    ```
    """

    name = "blk.floordiv"
    traits = _binary_traits(Computation.FLOORDIV)


@irdl_op_definition
class ModOp(_RoundingDivOp):
    """Elementwise remainder; its sign follows `rounding` (``floor``: the divisor's,
    ``trunc``: the dividend's).

    ```mlir
    %r = blk.mod %x, %y rounding = floor : tensor<16xi32>
    ```
    """

    name = "blk.mod"
    traits = _binary_traits(Computation.MOD)


@irdl_op_definition
class AndOp(BinaryOp):
    """Elementwise bitwise (or logical, on i1) and: ``%z = blk.and %x, %y : tensor<16xi1>``."""

    name = "blk.and"
    traits = _binary_traits(Computation.BITWISE)
    DOMAIN: ClassVar[frozenset[str]] = INTEGRAL


@irdl_op_definition
class OrOp(BinaryOp):
    """Elementwise bitwise or: ``%z = blk.or %x, %y : tensor<16xui8>``."""

    name = "blk.or"
    traits = _binary_traits(Computation.BITWISE)
    DOMAIN: ClassVar[frozenset[str]] = INTEGRAL


@irdl_op_definition
class XorOp(BinaryOp):
    """Elementwise bitwise xor: ``%z = blk.xor %x, %y : tensor<16xi32>``."""

    name = "blk.xor"
    traits = _binary_traits(Computation.BITWISE)
    DOMAIN: ClassVar[frozenset[str]] = INTEGRAL


@irdl_op_definition
class ShlOp(BinaryOp):
    """Elementwise left shift: ``%z = blk.shl %x, %n : tensor<16xi32>``."""

    name = "blk.shl"
    traits = _binary_traits(Computation.SHIFT)
    DOMAIN: ClassVar[frozenset[str]] = frozenset({INT})


@irdl_op_definition
class ShrOp(BinaryOp):
    """Elementwise right shift: `fill` says what comes in from the left, the sign bit
    (arithmetic) or zeros (logical). Unset, it follows the dtype: arithmetic on signed and
    logical on unsigned integers. `promote-types` sets it from the policy, which may decide
    by the operand's dtype before promotion (Triton shifts an int8 arithmetically even when
    a uint8 amount makes the shift compute in uint8).

    ```mlir
    %z = blk.shr %x, %n fill = sign : tensor<16xui8>
    %w = blk.shr %i, %m : tensor<16xi32>
    ```
    """

    name = "blk.shr"
    fill = opt_prop_def(ShiftFillAttr)
    traits = _binary_traits(Computation.SHIFT)
    DOMAIN: ClassVar[frozenset[str]] = frozenset({INT})
    assembly_format = f"$lhs `,` $rhs (`fill` `=` $fill^)? {_BINARY_TYPES}"

    def arithmetic(self) -> bool:
        """Whether the shift copies the sign bit in (`fill`, else the dtype's signedness)."""
        if self.fill is not None:
            return self.fill.data is ShiftFill.SIGN
        d = dtypes.from_xdsl(element_type(self.lhs.type))
        return d.is_int and d.signed


def nan_of(op: Operation) -> Nan:
    """The NaN behaviour of a float minimum, maximum, or max/min/argmax/argmin reduction or
    scan: its `nan` property; unset (IR that skipped `promote-types`), ``propagate``."""
    attr = op.properties.get("nan")
    return attr.data if isinstance(attr, NanAttr) else Nan.PROPAGATE


class _ExtremumOp(BinaryOp, ABC):
    nan = opt_prop_def(NanAttr)
    assembly_format = f"$lhs `,` $rhs (`nan` `=` $nan^)? {_BINARY_TYPES}"


@irdl_op_definition
class MinimumOp(_ExtremumOp):
    """Elementwise minimum. On floats, `nan` says what a NaN operand gives (`Nan`): ``num``
    the other operand, ``propagate`` NaN; loose IR may leave it to the policy, which
    `promote-types` asks (Triton: ``num``, NumPy: ``propagate``).

    ```mlir
    %z = blk.minimum %x, %y nan = num : tensor<16xf32>
    %k = blk.minimum %i, %j : tensor<16xi32>
    ```
    """

    name = "blk.minimum"
    traits = _binary_traits(Computation.MINMAX)


@irdl_op_definition
class MaximumOp(_ExtremumOp):
    """Elementwise maximum; `nan` as for `blk.minimum`.

    ```mlir
    %z = blk.maximum %x, %y nan = propagate : tensor<16xf32>
    ```
    """

    name = "blk.maximum"
    traits = _binary_traits(Computation.MINMAX)


@dataclass(frozen=True)
class _ComparesByPredicate(Promotes):
    """``eq`` and ``ne`` compare (any dtypes); the other predicates order, which some policies
    refuse for bools or complex numbers."""

    def computation_of(self, op: Operation) -> Computation:
        assert isinstance(op, CmpOp)
        if op.predicate.data in (CmpPredicate.EQ, CmpPredicate.NE):
            return Computation.COMPARE
        return Computation.ORDER


@irdl_op_definition
class CmpOp(BinaryOp):
    """Elementwise comparison giving bool (i1); the short form names the operand type.

    ```mlir
    %m = blk.cmp lt, %offs, %n : tensor<16xi32>
    %k = blk.cmp ge, %x, %zero : tensor<16xf32>, !blk.weak<float> -> tensor<16xi1>
    ```
    """

    name = "blk.cmp"
    predicate = prop_def(CmpPredicateAttr)
    traits = traits_def(
        Pure(),
        _ComparesByPredicate(Computation.COMPARE, ("lhs", "rhs")),
        Broadcasts(("lhs", "rhs")),
    )
    DOMAIN: ClassVar[frozenset[str]] = ANY_VALUE
    RESULT: ClassVar[str] = "bool"
    assembly_format = f"$predicate `,` $lhs `,` $rhs {_BINARY_TYPES}"

    def __init__(
        self,
        predicate: CmpPredicate | str,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute,
    ):
        IRDLOperation.__init__(
            self,
            operands=[lhs, rhs],
            result_types=[result_type],
            properties={"predicate": CmpPredicateAttr(CmpPredicate(predicate))},
        )

    def short_key(self) -> Attribute | None:
        return self.lhs.type

    @classmethod
    def short_signature(
        cls, t: Attribute, present: Sequence[str]
    ) -> tuple[list[Attribute], list[Attribute]] | None:
        if isinstance(t, WeakType):
            return None
        return [t, t], [with_element(t, i1)]


class UnaryOp(ElementwiseOp, ABC):
    operand = operand_def()
    result = result_def()
    custom_directives = (UnarySignature,)
    assembly_format = "$operand attr-dict `:` custom<UnarySignature>(type($operand), type($result))"

    def __init__(self, operand: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[operand], result_types=[result_type])


def _unary_traits(computation: Computation) -> traits_def:
    return traits_def(Pure(), Promotes(computation, ("operand",)), Broadcasts(("operand",)))


@irdl_op_definition
class NegOp(UnaryOp):
    """Elementwise negation: ``%y = blk.neg %x : tensor<16xf32>``."""

    name = "blk.neg"
    traits = _unary_traits(Computation.SUBTRACT)


@irdl_op_definition
class AbsOp(UnaryOp):
    """Elementwise absolute value: ``%y = blk.abs %x : tensor<16xi32>``."""

    name = "blk.abs"
    traits = _unary_traits(Computation.ABS)


@irdl_op_definition
class NotOp(UnaryOp):
    """Elementwise bitwise not (logical on i1): ``%y = blk.not %m : tensor<16xi1>``."""

    name = "blk.not"
    traits = _unary_traits(Computation.BITWISE)
    DOMAIN: ClassVar[frozenset[str]] = INTEGRAL


class MathOp(UnaryOp, ABC):
    """A float function; loose IR may apply it to integers, which the policy turns into
    floats.

    ```mlir
    %y = blk.exp %x : tensor<16xf32>
    %z = blk.sqrt %i : tensor<16xi32> -> tensor<16xf32>
    ```
    """

    traits = _unary_traits(Computation.FLOAT_MATH)
    RESULT: ClassVar[str] = "float"


@irdl_op_definition
class ExpOp(MathOp):
    """Elementwise e**x. ``%y = blk.exp %x : tensor<16xf32>``"""

    name = "blk.exp"


@irdl_op_definition
class Exp2Op(MathOp):
    """Elementwise 2**x. ``%y = blk.exp2 %x : tensor<16xf32>``"""

    name = "blk.exp2"


@irdl_op_definition
class LogOp(MathOp):
    """Elementwise natural logarithm. ``%y = blk.log %x : tensor<16xf32>``"""

    name = "blk.log"


@irdl_op_definition
class Log2Op(MathOp):
    """Elementwise base-2 logarithm. ``%y = blk.log2 %x : tensor<16xf32>``"""

    name = "blk.log2"


@irdl_op_definition
class SqrtOp(MathOp):
    """Elementwise square root. ``%y = blk.sqrt %x : tensor<16xf32>``"""

    name = "blk.sqrt"


@irdl_op_definition
class RsqrtOp(MathOp):
    """Elementwise reciprocal square root. ``%y = blk.rsqrt %x : tensor<16xf32>``"""

    name = "blk.rsqrt"


@irdl_op_definition
class SinOp(MathOp):
    """Elementwise sine. ``%y = blk.sin %x : tensor<16xf32>``"""

    name = "blk.sin"


@irdl_op_definition
class CosOp(MathOp):
    """Elementwise cosine. ``%y = blk.cos %x : tensor<16xf32>``"""

    name = "blk.cos"


@irdl_op_definition
class TanhOp(MathOp):
    """Elementwise hyperbolic tangent. ``%y = blk.tanh %x : tensor<16xf32>``"""

    name = "blk.tanh"


@irdl_op_definition
class ErfOp(MathOp):
    """Elementwise error function. ``%y = blk.erf %x : tensor<16xf32>``"""

    name = "blk.erf"


@irdl_op_definition
class FloorOp(MathOp):
    """Elementwise floor, toward negative infinity: ``%y = blk.floor %x : tensor<16xf32>``"""

    name = "blk.floor"
    traits = _unary_traits(Computation.ROUNDING_MATH)


@irdl_op_definition
class CeilOp(MathOp):
    """Elementwise ceiling, toward positive infinity: ``%y = blk.ceil %x : tensor<16xf32>``"""

    name = "blk.ceil"
    traits = _unary_traits(Computation.ROUNDING_MATH)


UNARY_FUNCTIONS: tuple[str, ...] = (
    "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
    "exp10", "expm1", "log10", "log1p", "cbrt", "erfc", "lgamma", "tgamma",
    "rint", "round", "trunc", "logb",
    "j0", "j1", "y0", "y1", "cyl_bessel_i0", "cyl_bessel_i1",
    "erfinv", "erfcinv", "erfcx", "normcdfinv", "sinpi", "cospi",
)  # fmt: skip
"""The functions `blk.math` names: C's functions of one float (``round`` rounds halves
away from zero, ``rint`` to even), Bessel functions (``j0 j1 y0 y1`` of the first and
second kinds, ``cyl_bessel_i0 cyl_bessel_i1`` modified, of the first kind), the inverse
and scaled error functions (``erfcx`` is e**(x*x) erfc(x), ``normcdfinv`` the inverse of
the standard normal distribution function) and sin(pi x), cos(pi x) (libdevice's
names)."""

BINARY_FUNCTIONS: tuple[str, ...] = (
    "atan2", "pow", "hypot", "fmod", "remainder", "copysign", "nextafter", "fdim", "ldexp",
    "jn", "yn",
)  # fmt: skip
"""The functions `blk.math2` names: C's functions of two floats (``ldexp``'s exponent is
an integral float, and so is ``jn``'s and ``yn``'s order, their first operand: the
frontends convert them)."""


def _check_function(op: Operation, known: tuple[str, ...]) -> None:
    fn = op.properties["fn"]
    assert isinstance(fn, StringAttr)
    if fn.data not in known:
        raise VerifyException(
            f"'{fn.data}' is not a function of {op.name}; expected one of: " + ", ".join(known)
        )


@irdl_op_definition
class MathFnOp(MathOp):
    """Elementwise C math function of one float, named by `fn` (`UNARY_FUNCTIONS`).

    ```mlir
    %y = blk.math "cbrt" %x : tensor<16xf32>
    ```
    """

    name = "blk.math"
    fn = prop_def(StringAttr)
    assembly_format = (
        "$fn $operand attr-dict `:` custom<UnarySignature>(type($operand), type($result))"
    )

    def __init__(self, fn: str, operand: SSAValue | Operation, result_type: Attribute):
        IRDLOperation.__init__(
            self,
            operands=[operand],
            result_types=[result_type],
            properties={"fn": StringAttr(fn)},
        )

    def verify_(self) -> None:
        _check_function(self, UNARY_FUNCTIONS)
        super().verify_()


@irdl_op_definition
class MathFn2Op(BinaryOp):
    """Elementwise C math function of two floats, named by `fn` (`BINARY_FUNCTIONS`); the
    operands promote as a float function's.

    ```mlir
    %z = blk.math2 "atan2" %y, %x : tensor<16xf32>
    ```
    """

    name = "blk.math2"
    fn = prop_def(StringAttr)
    traits = _binary_traits(Computation.FLOAT_MATH)
    RESULT: ClassVar[str] = "float"
    assembly_format = f"$fn $lhs `,` $rhs {_BINARY_TYPES}"

    def __init__(
        self,
        fn: str,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute,
    ):
        IRDLOperation.__init__(
            self,
            operands=[lhs, rhs],
            result_types=[result_type],
            properties={"fn": StringAttr(fn)},
        )

    def verify_(self) -> None:
        _check_function(self, BINARY_FUNCTIONS)
        super().verify_()


@irdl_op_definition
class WhereOp(ElementwiseOp):
    """Elementwise select: `true_value` where `cond` holds, else `false_value`.

    Only the two values take part in promotion; all three operands broadcast.

    ```mlir
    %r = blk.where %m, %x, %y : tensor<16xf32>
    ```
    """

    name = "blk.where"
    cond = operand_def()
    true_value = operand_def()
    false_value = operand_def()
    result = result_def()
    traits = traits_def(
        Pure(),
        Promotes(Computation.SELECT, ("true_value", "false_value")),
        Broadcasts(("cond", "true_value", "false_value")),
    )
    DOMAIN: ClassVar[frozenset[str]] = ANY_VALUE
    DOMAINS: ClassVar[dict[str, frozenset[str]]] = {"cond": frozenset({BOOL})}
    RESULT: ClassVar[str] = "any"
    custom_directives = (TernarySignature,)
    assembly_format = (
        "$cond `,` $true_value `,` $false_value attr-dict `:` custom<TernarySignature>("
        "type($cond), type($true_value), type($false_value), type($result))"
    )

    def __init__(
        self,
        cond: SSAValue | Operation,
        true_value: SSAValue | Operation,
        false_value: SSAValue | Operation,
        result_type: Attribute,
    ):
        super().__init__(operands=[cond, true_value, false_value], result_types=[result_type])

    @classmethod
    def short_signature(
        cls, t: Attribute, present: Sequence[str]
    ) -> tuple[list[Attribute], list[Attribute]] | None:
        return [with_element(t, i1), t, t], [t]


@irdl_op_definition
class FmaOp(ElementwiseOp):
    """Elementwise fused multiply-add ``a * b + c`` with a single rounding.

    ```mlir
    %r = blk.fma %a, %b, %c : tensor<16xf32>
    ```
    """

    name = "blk.fma"
    a = operand_def()
    b = operand_def()
    c = operand_def()
    result = result_def()
    traits = traits_def(
        Pure(), Promotes(Computation.ARITH, ("a", "b", "c")), Broadcasts(("a", "b", "c"))
    )
    custom_directives = (TernarySignature,)
    assembly_format = (
        "$a `,` $b `,` $c attr-dict `:` "
        "custom<TernarySignature>(type($a), type($b), type($c), type($result))"
    )

    def __init__(
        self,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        c: SSAValue | Operation,
        result_type: Attribute,
    ):
        super().__init__(operands=[a, b, c], result_types=[result_type])


@irdl_op_definition
class AddPtrOp(ElementwiseOp):
    """Pointer arithmetic: `ptr` advanced by `offset` elements (not bytes).

    ```mlir
    %p = blk.addptr %base, %offs : !blk.ptr<f32>, tensor<16xi32> -> tensor<16x!blk.ptr<f32>>
    ```
    """

    name = "blk.addptr"
    ptr = operand_def()
    offset = operand_def()
    result = result_def()
    traits = traits_def(Pure(), Broadcasts(("ptr", "offset")))
    DOMAINS: ClassVar[dict[str, frozenset[str]]] = {
        "ptr": frozenset({PTR}),
        "offset": frozenset({INT}),
    }
    assembly_format = (
        "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset) `->` type($result)"
    )

    def __init__(
        self, ptr: SSAValue | Operation, offset: SSAValue | Operation, result_type: Attribute
    ):
        super().__init__(operands=[ptr, offset], result_types=[result_type])

    def _verify_result_dtype(self, result: Attribute) -> None:
        if element_type(result) != element_type(self.ptr.type):
            raise VerifyException(
                f"result has type {result} but operand 'ptr' has type {self.ptr.type}: "
                "the result points to the same element type",
            )


# --------------------------------------------------------------------------------------
# Program ids, ranges, constants and literals
# --------------------------------------------------------------------------------------


def _verify_axis(axis: int) -> None:
    if not 0 <= axis <= 2:
        raise VerifyException(f"axis {axis} is out of range: the launch grid has axes 0, 1 and 2")


class _GridOp(IRDLOperation, ABC):
    """Base of the ops that read the launch grid along one axis."""

    axis = prop_def(IntegerAttr[I32])
    result = result_def(i32)
    traits = traits_def(Pure())
    assembly_format = "$axis attr-dict `:` type($result)"

    def __init__(self, axis: int):
        super().__init__(properties={"axis": IntegerAttr(axis, i32)}, result_types=[i32])

    def verify_(self) -> None:
        _verify_axis(self.axis.value.data)


@irdl_op_definition
class ProgramIdOp(_GridOp):
    """The index of this program instance along grid axis `axis` (0, 1 or 2).

    ```mlir
    %pid = blk.program_id 0 : i32
    ```
    """

    name = "blk.program_id"


@irdl_op_definition
class NumProgramsOp(_GridOp):
    """The number of program instances along grid axis `axis` (0, 1 or 2).

    ```mlir
    %n = blk.num_programs 1 : i32
    ```
    """

    name = "blk.num_programs"


@irdl_op_definition
class GlobalTimerOp(IRDLOperation):
    """Nanoseconds on a clock that every program of a launch reads alike (monotonic; the
    GPU's global timer), for timeouts. Each read is a new time: it has a memory effect, so
    no pass merges two reads or moves one out of a loop.

    ```mlir
    %t = blk.global_timer : i64
    ```
    """

    name = "blk.global_timer"
    result = result_def(i64)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self) -> None:
        super().__init__(result_types=[i64])


@irdl_op_definition
class ArangeOp(IRDLOperation):
    """The block ``[start, start + 1, ..., end - 1]`` of i32.

    ```mlir
    %r = blk.arange 0, 16 : tensor<16xi32>
    ```
    """

    name = "blk.arange"
    start = prop_def(IntegerAttr[I32])
    end = prop_def(IntegerAttr[I32])
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$start `,` $end attr-dict `:` type($result)"

    def __init__(self, start: int, end: int):
        super().__init__(
            properties={"start": IntegerAttr(start, i32), "end": IntegerAttr(end, i32)},
            result_types=[TensorType(i32, [end - start])],
        )

    def verify_(self) -> None:
        start, end = self.start.value.data, self.end.value.data
        if end <= start:
            raise VerifyException(f"needs end > start, got start = {start} and end = {end}")
        expected = TensorType(i32, [end - start])
        if self.result.type != expected:
            raise VerifyException(
                f"result has type {self.result.type}; the range {start}..{end} gives {expected}",
            )


_TYPED_CONSTANT = IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr


def is_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    """Whether every element of `attr` has the same bits. (xDSL's `is_splat` compares the
    values: a block of NaN is not a splat there, and one of 0.0 and -0.0 is.)"""
    data = attr.data.data
    count = attr.type.element_count()
    if count <= 1:
        return True
    size = len(data) // count
    return data == data[:size] * count


@irdl_custom_directive
class TypedValue(CustomDirective):
    """``custom<TypedValue>($value, type($result))``: a typed constant (``1.0 : f32``),
    whose type is the result's.

    A custom directive because xDSL's format infers a result type only through a
    constraint variable shared with the value's type, whose messages ("attribute f16
    expected from variable 'T'") would replace the parser's and the verifier's.
    """

    value: AttributeVariable
    result: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, _TYPED_CONSTANT):
            parser.raise_error(
                "expected a typed constant such as '1.0 : f32', '3 : ui8' or "
                "'dense<0.0> : tensor<16xf32>'",
                pos,
                parser.pos,
            )
        self.value.set(state, value)
        self.result.set(state, (value.type,))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_attribute(op.properties[self.value.name])


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A typed constant: a scalar of a dtype, or a block (dense, possibly splat).

    ```mlir
    %one = blk.constant 1.000000e+00 : f32
    %z = blk.constant dense<0> : tensor<16xui8>
    ```
    """

    name = "blk.constant"
    value = prop_def()
    result = result_def()
    traits = traits_def(Pure())

    custom_directives = (TypedValue,)
    assembly_format = "custom<TypedValue>($value, type($result)) attr-dict"

    def __init__(self, value: Attribute):
        super().__init__(properties={"value": value}, result_types=[value.type])  # type: ignore[attr-defined]

    def verify_(self) -> None:
        value = self.value
        if not isinstance(value, _TYPED_CONSTANT):
            raise VerifyException(f"value {value} is not a typed scalar or dense block constant")
        check_value("value", value.type, NUMBER, weak_ok=False)
        if value.type != self.result.type:
            raise VerifyException(
                f"result has type {self.result.type} but the value has type {value.type}"
            )


@irdl_op_definition
class LiteralOp(IRDLOperation):
    """A weak literal of loose IR: a Python value whose dtype the promotion policy decides.

    ```mlir
    %c = blk.literal 3 : !blk.weak<int>
    %h = blk.literal 5.000000e-01 : !blk.weak<float>
    %t = blk.literal true : !blk.weak<bool>
    ```
    """

    name = "blk.literal"
    value = prop_def(IntAttr | FloatAttr)
    result = result_def(WeakType)
    traits = traits_def(Pure())

    def __init__(self, value: bool | int | float):
        if isinstance(value, bool):
            attr: Attribute = IntAttr(int(value))
            kind = "bool"
        elif isinstance(value, int):
            attr, kind = IntAttr(value), "int"
        else:
            attr, kind = FloatAttr(float(value), f64), "float"
        super().__init__(properties={"value": attr}, result_types=[WeakType(kind)])

    @property
    def python_value(self) -> bool | int | float:
        """The literal as a Python value of its kind."""
        kind = self.result.type.kind  # type: ignore[attr-defined]
        if isinstance(self.value, FloatAttr):
            return self.value.value.data
        return bool(self.value.data) if kind == "bool" else self.value.data

    # Custom syntax, not a format: the value is spelled as Python writes it, by the kind
    # its type names (the `IntAttr` 1 is `true` for !blk.weak<bool>, floats include `nan`
    # and `-inf`, integers may exceed 64 bits), where a format would print `#builtin.int<1>`
    # and an f64 `FloatAttr` with its type.
    def print(self, printer: Printer) -> None:
        value = self.python_value
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            text = str(value)
        elif value != value:
            text = "nan"
        elif value in (float("inf"), float("-inf")):
            text = "inf" if value > 0 else "-inf"
        else:
            text = f"{value:.6e}" if float(f"{value:.6e}") == value else repr(value)
        printer.print_string(f" {text}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> LiteralOp:
        pos = parser.pos
        negative = parser.parse_optional_punctuation("-") is not None
        value: bool | int | float
        if (word := parser.parse_optional_keyword_in(("true", "false", "inf", "nan"))) is not None:
            value = {"true": True, "false": False, "inf": float("inf"), "nan": float("nan")}[word]
            if negative and isinstance(value, bool):
                parser.raise_error("a bool literal cannot be negated", pos, parser.pos)
        else:
            number = parser.parse_number()
            value = number
        if negative:
            value = -value
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_pos = parser.pos
        weak = parser.parse_type()
        expected = (
            "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"
        )
        if not isinstance(weak, WeakType) or weak.kind != expected:
            parser.raise_error(
                f"literal {value!r} has type !blk.weak<{expected}>", type_pos, parser.pos
            )
        op = cls(value)
        op.attributes.update(attributes)
        return op

    def verify_(self) -> None:
        kind = self.result.type.kind  # type: ignore[attr-defined]
        is_float = isinstance(self.value, FloatAttr)
        if is_float and self.value.type != f64:
            raise VerifyException(f"float literal {self.value} must be stored as f64")
        if is_float != (kind == "float") or (kind == "bool" and self.value.data not in (0, 1)):
            raise VerifyException(f"value {self.value} does not fit type {self.result.type}")


# --------------------------------------------------------------------------------------
# Shape ops
# --------------------------------------------------------------------------------------


def _check_block_or_scalar(role: str, t: Attribute) -> None:
    check_value(role, t, ANY_VALUE, weak_ok=False)


class _ShapeOp(IRDLOperation, ABC):
    src = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, result_type: Attribute, **props: Attribute):
        super().__init__(operands=[src], result_types=[result_type], properties=props)

    def _check_elements(self) -> None:
        _check_block_or_scalar("operand 'src'", self.src.type)
        _check_block_or_scalar("result", self.result.type)
        if element_type(self.src.type) != element_type(self.result.type):
            raise VerifyException(
                f"changes the element type from {self.src.type} to {self.result.type}; "
                "use blk.cast to convert",
            )


@irdl_op_definition
class SplatOp(_ShapeOp):
    """A block whose every element is the scalar `src`.

    ```mlir
    %b = blk.splat %x : f32 -> tensor<16x16xf32>
    ```
    """

    name = "blk.splat"

    def verify_(self) -> None:
        self._check_elements()
        if isinstance(self.src.type, TensorType) or not isinstance(self.result.type, TensorType):
            raise VerifyException(
                f"splats a scalar into a block, got {self.src.type} -> {self.result.type}",
            )


@irdl_op_definition
class ExpandDimsOp(_ShapeOp):
    """Inserts a dimension of size 1 at `axis`.

    ```mlir
    %col = blk.expand_dims %x axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
    ```
    """

    name = "blk.expand_dims"
    axis = prop_def(IntegerAttr[I32])
    assembly_format = "$src `axis` `=` $axis attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, axis: int, result_type: Attribute | None = None):
        src_type = SSAValue.get(src).type
        if result_type is None:
            shape = list(shape_of(src_type))
            shape.insert(axis, 1)
            result_type = block_of(element_type(src_type), shape)
        super().__init__(src, result_type, axis=IntegerAttr(axis, i32))

    def verify_(self) -> None:
        self._check_elements()
        shape = list(shape_of(self.src.type))
        axis = self.axis.value.data
        if not 0 <= axis <= len(shape):
            raise VerifyException(f"axis {axis} is out of range for {self.src.type}")
        shape.insert(axis, 1)
        expected = block_of(element_type(self.src.type), shape)
        if self.result.type != expected:
            raise VerifyException(
                f"result has type {self.result.type}; inserting axis {axis} into "
                f"{self.src.type} gives {expected}",
            )


@irdl_op_definition
class BroadcastOp(_ShapeOp):
    """Expands dimensions of size 1 to the result's sizes (same rank).

    ```mlir
    %b = blk.broadcast %x : tensor<1x16xf32> -> tensor<8x16xf32>
    ```
    """

    name = "blk.broadcast"

    def verify_(self) -> None:
        self._check_elements()
        src, res = shape_of(self.src.type), shape_of(self.result.type)
        if len(src) != len(res):
            raise VerifyException(
                f"keeps the rank: {self.src.type} has rank {len(src)} but the result "
                f"{self.result.type} has rank {len(res)}; insert blk.expand_dims first",
            )
        for dim, (a, b) in enumerate(zip(src, res, strict=True)):
            if a != b and a != 1:
                raise VerifyException(
                    f"cannot broadcast {self.src.type} to {self.result.type}: dimension "
                    f"{dim} has size {a}, which is neither 1 nor {b}",
                )


@irdl_op_definition
class ReshapeOp(_ShapeOp):
    """Reinterprets a block with another shape of the same number of elements
    (row-major order).

    ```mlir
    %m = blk.reshape %x : tensor<256xf32> -> tensor<16x16xf32>
    ```
    """

    name = "blk.reshape"

    def verify_(self) -> None:
        self._check_elements()
        count = _numel(shape_of(self.src.type))
        if count != _numel(shape_of(self.result.type)):
            raise VerifyException(
                f"cannot reshape {self.src.type} ({count} elements) to {self.result.type} "
                f"({_numel(shape_of(self.result.type))} elements)",
            )


def _numel(shape: Sequence[int]) -> int:
    count = 1
    for d in shape:
        count *= d
    return count


@irdl_op_definition
class PermuteOp(_ShapeOp):
    """Permutes dimensions: result dimension i is source dimension ``order[i]``.

    ```mlir
    %t = blk.permute %x order = [1, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
    ```
    """

    name = "blk.permute"
    order = prop_def(DenseArrayBase.constr(i64))
    assembly_format = "$src `order` `=` $order attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, order: Sequence[int]):
        src_type = SSAValue.get(src).type
        shape = shape_of(src_type)
        result_type = block_of(element_type(src_type), [shape[i] for i in order])
        super().__init__(src, result_type, order=DenseArrayBase.from_list(i64, list(order)))

    def verify_(self) -> None:
        self._check_elements()
        order = list(self.order.get_values())
        shape = shape_of(self.src.type)
        if sorted(order) != list(range(len(shape))):
            raise VerifyException(
                f"order {order} is not a permutation of the {len(shape)} dimensions of "
                f"{self.src.type}",
            )
        expected = block_of(element_type(self.src.type), [shape[i] for i in order])
        if self.result.type != expected:
            raise VerifyException(
                f"result has type {self.result.type}; permuting {self.src.type} by "
                f"{order} gives {expected}",
            )


@irdl_op_definition
class GatherOp(IRDLOperation):
    """Reads `src` at positions `index` gives along `axis`: the result has the shape of
    `index`, and its element at ``i`` is `src`'s element at ``i`` with coordinate `axis`
    replaced by ``index[i]``. `src` and `index` have one rank and agree on every other
    dimension (NumPy's ``take_along_axis``). Flips, slices and the halves of `split` are
    gathers. An index outside ``[0, size)`` fails the launch; `in_range` says the frontend
    built `index` inside it, so the check can go.

    ```mlir
    %r = blk.gather %x[%i] axis = 1 : tensor<4x8xf32>, tensor<4x2xi32> -> tensor<4x2xf32>
    ```
    """

    name = "blk.gather"
    src = operand_def()
    index = operand_def()
    axis = prop_def(IntegerAttr[I32])
    in_range = opt_prop_def(UnitAttr)
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = (
        "$src `[` $index `]` `axis` `=` $axis (`in_range` $in_range^)? attr-dict `:` "
        "type($src) `,` type($index) `->` type($result)"
    )

    def __init__(
        self,
        src: SSAValue | Operation,
        index: SSAValue | Operation,
        axis: int,
        in_range: bool = False,
    ):
        src_elem = element_type(SSAValue.get(src).type)
        result_type = block_of(src_elem, shape_of(SSAValue.get(index).type))
        props: dict[str, Attribute] = {"axis": IntegerAttr(axis, i32)}
        if in_range:
            props["in_range"] = UnitAttr()
        super().__init__(operands=[src, index], result_types=[result_type], properties=props)

    def verify_(self) -> None:
        check_value("operand 'src'", self.src.type, ANY_VALUE, weak_ok=False)
        check_value("operand 'index'", self.index.type, frozenset({INT}), weak_ok=False)
        if not isinstance(self.src.type, TensorType) or not isinstance(self.index.type, TensorType):
            raise VerifyException(
                f"gathers from a block with a block of indices, got {self.src.type} and "
                f"{self.index.type}"
            )
        src, index = shape_of(self.src.type), shape_of(self.index.type)
        axis = self.axis.value.data
        if len(src) != len(index):
            raise VerifyException(
                f"'src' ({self.src.type}) and 'index' ({self.index.type}) must have one rank"
            )
        if not 0 <= axis < len(src):
            raise VerifyException(f"axis {axis} is out of range for {self.src.type}")
        for dim, (a, b) in enumerate(zip(src, index, strict=True)):
            if dim != axis and a != b:
                raise VerifyException(
                    f"'index' ({self.index.type}) differs from 'src' ({self.src.type}) in "
                    f"dimension {dim}, which is not the gathered axis {axis}"
                )
        expected = block_of(element_type(self.src.type), index)
        if self.result.type != expected:
            raise VerifyException(
                f"result has type {self.result.type}; gathering {self.src.type} at "
                f"{self.index.type} gives {expected}"
            )


@irdl_op_definition
class CastOp(_ShapeOp):
    """Converts each element to another dtype (or pointer type), keeping the shape.

    Float to int truncates toward zero; int to float rounds to nearest even; narrowing
    ints wrap. In loose IR the source may be a weak literal. `implicit` marks the casts
    that `promote-types` inserted (the ones `warn-lossy-casts` looks at).

    ```mlir
    %f = blk.cast %i : tensor<16xi32> -> tensor<16xf32>
    %g = blk.cast %j implicit : tensor<16xi64> -> tensor<16xf32>
    ```
    """

    name = "blk.cast"
    implicit = opt_prop_def(UnitAttr)
    assembly_format = "$src (`implicit` $implicit^)? attr-dict `:` type($src) `->` type($result)"

    def verify_(self) -> None:
        src_cat = check_value("operand 'src'", self.src.type, ANY_VALUE)
        res_cat = check_value("result", self.result.type, ANY_VALUE, weak_ok=False)
        if shape_of(self.src.type) != shape_of(self.result.type):
            raise VerifyException(
                f"keeps the shape: cannot cast {self.src.type} to {self.result.type}; "
                "use blk.broadcast or blk.reshape to change it",
            )
        if (src_cat == PTR) != (res_cat == PTR):
            raise VerifyException(
                f"cannot cast between pointers and numbers: {self.src.type} to {self.result.type}",
            )


@irdl_op_definition
class BitcastOp(_ShapeOp):
    """Reinterprets the bits of each element as another dtype of the same width.

    ```mlir
    %bits = blk.bitcast %x : tensor<16xf32> -> tensor<16xi32>
    ```
    """

    name = "blk.bitcast"

    def verify_(self) -> None:
        check_value("operand 'src'", self.src.type, NUMBER, weak_ok=False)
        check_value("result", self.result.type, NUMBER, weak_ok=False)
        if shape_of(self.src.type) != shape_of(self.result.type):
            raise VerifyException(f"keeps the shape: {self.src.type} to {self.result.type}")
        src_d = dtypes.from_xdsl(element_type(self.src.type))
        res_d = dtypes.from_xdsl(element_type(self.result.type))
        if src_d.width != res_d.width:
            raise VerifyException(
                f"needs equal bit widths: {src_d.mlir} has {src_d.width} bits and "
                f"{res_d.mlir} has {res_d.width}",
            )


# --------------------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------------------


def _pointee(ptr_type: Attribute) -> Attribute:
    check_value("operand 'ptr'", ptr_type, frozenset({PTR}), weak_ok=False)
    elem = element_type(ptr_type)
    assert isinstance(elem, PtrType)
    return elem.pointee


def _memory_signature(
    t: Attribute, present: Sequence[str], with_result: bool
) -> tuple[list[Attribute], list[Attribute]] | None:
    elem = element_type(t)
    if not isinstance(elem, PtrType):
        return None
    value = with_element(t, elem.pointee)
    mask = with_element(t, i1)
    types = {"ptr": t, "mask": mask}
    operand_types = [types.get(name, value) for name in present]
    return operand_types, ([value] if with_result else [])


def _check_mask(mask: SSAValue | None) -> None:
    if mask is not None:
        check_value("operand 'mask'", mask.type, frozenset({BOOL}))


class _MemoryOp(BlkOp, ABC):
    def short_key(self) -> Attribute | None:
        return self.operands[0].type


@irdl_op_definition
class LoadOp(_MemoryOp):
    """Loads the elements `ptr` points to; where `mask` is false, no memory is touched and
    the element is `other` (zero when absent). `mask` and `other` broadcast to the shape.

    ```mlir
    %x = blk.load %p mask %m other %zero : tensor<16x!blk.ptr<f32>>
    %y = blk.load %q : !blk.ptr<i32>
    ```
    """

    name = "blk.load"
    ptr = operand_def()
    mask = opt_operand_def()
    other = opt_operand_def()
    result = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), Broadcasts(("ptr", "mask", "other")))
    custom_directives = (TernarySignature,)
    assembly_format = (
        "$ptr (`mask` $mask^)? (`other` $other^)? attr-dict `:` "
        "custom<TernarySignature>(type($ptr), type($mask), type($other), type($result))"
    )

    def __init__(
        self,
        ptr: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        other: SSAValue | Operation | None = None,
        result_type: Attribute | None = None,
    ):
        if result_type is None:
            ptr_type = SSAValue.get(ptr).type
            result_type = with_element(ptr_type, element_type(ptr_type).pointee)  # type: ignore[attr-defined]
        super().__init__(operands=[ptr, mask, other], result_types=[result_type])

    @classmethod
    def short_signature(cls, t: Attribute, present: Sequence[str]):
        return _memory_signature(t, present, True)

    def verify_(self) -> None:
        pointee = _pointee(self.ptr.type)
        _check_mask(self.mask)
        if self.other is not None:
            if self.mask is None:
                raise VerifyException("has 'other' without 'mask': 'other' fills masked-off lanes")
            check_value("operand 'other'", self.other.type, ANY_VALUE)
        present = [("ptr", self.ptr.type)]
        present += [(n, v.type) for n, v in (("mask", self.mask), ("other", self.other)) if v]
        shape = _broadcast([n for n, _ in present], [t for _, t in present])
        expected = block_of(pointee, shape)
        if self.result.type != expected:
            raise VerifyException(
                f"result has type {self.result.type}; loading through {self.ptr.type} "
                f"gives {expected}",
            )


@irdl_op_definition
class StoreOp(_MemoryOp):
    """Stores `value` where `ptr` points; where `mask` is false, no memory is touched.
    `value` and `mask` broadcast to the shape of `ptr`; loose IR converts `value` to the
    pointee type.

    ```mlir
    blk.store %p, %x mask %m : tensor<16x!blk.ptr<f32>>
    ```
    """

    name = "blk.store"
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryWriteEffect(), Broadcasts(("value", "mask"), to="ptr"))
    custom_directives = (StoreSignature,)
    assembly_format = (
        "$ptr `,` $value (`mask` $mask^)? attr-dict `:` "
        "custom<StoreSignature>(type($ptr), type($value), type($mask))"
    )

    def __init__(
        self,
        ptr: SSAValue | Operation,
        value: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
    ):
        super().__init__(operands=[ptr, value, mask])

    @classmethod
    def short_signature(cls, t: Attribute, present: Sequence[str]):
        return _memory_signature(t, present, False)

    def verify_(self) -> None:
        _pointee(self.ptr.type)
        check_value("operand 'value'", self.value.type, ANY_VALUE)
        _check_mask(self.mask)
        _check_broadcasts_to(self.ptr.type, ("value", self.value), ("mask", self.mask))


def _check_broadcasts_to(target: Attribute, *operands: tuple[str, SSAValue | None]) -> None:
    target_shape = shape_of(target)
    for name, value in operands:
        if value is None:
            continue
        shape = shape_of(value.type)
        try:
            if broadcast_shapes(shape, target_shape) != target_shape:
                raise BroadcastError("", (shape, target_shape), 0)
        except BroadcastError:
            raise VerifyException(
                f"operand '{name}' of type {value.type} does not broadcast to the shape "
                f"{format_shape(target_shape)} of operand 'ptr' ({target})",
            ) from None


@irdl_op_definition
class AtomicRMWOp(_MemoryOp):
    """Atomically combines `value` into memory and returns the old contents.

    ```mlir
    %old = blk.atomic_rmw add, %p, %x mask %m : tensor<16x!blk.ptr<f32>>
    ```
    """

    name = "blk.atomic_rmw"
    kind = prop_def(AtomicKindAttr)
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    result = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryWriteEffect(), Broadcasts(("value", "mask"), to="ptr"))
    custom_directives = (TernarySignature,)
    assembly_format = (
        "$kind `,` $ptr `,` $value (`mask` $mask^)? attr-dict `:` "
        "custom<TernarySignature>(type($ptr), type($value), type($mask), type($result))"
    )

    @classmethod
    def short_signature(cls, t: Attribute, present: Sequence[str]):
        return _memory_signature(t, present, True)

    def verify_(self) -> None:
        pointee = _pointee(self.ptr.type)
        cat = check_value("operand 'value'", self.value.type, NUMBER)
        _check_mask(self.mask)
        kind = self.kind.data
        if kind in (AtomicKind.AND, AtomicKind.OR, AtomicKind.XOR) and (
            category(pointee) not in INTEGRAL or cat not in INTEGRAL
        ):
            raise VerifyException(f"atomic {kind.value} needs integer memory and value")
        _check_broadcasts_to(self.ptr.type, ("value", self.value), ("mask", self.mask))
        expected = with_element(self.ptr.type, pointee)
        if self.result.type != expected:
            raise VerifyException(f"result has type {self.result.type}; expected {expected}")


@irdl_op_definition
class AtomicCASOp(_MemoryOp):
    """Atomic compare-and-swap: where memory equals `cmp`, writes `value`; returns the old
    contents.

    ```mlir
    %old = blk.atomic_cas %p, %expected, %new : !blk.ptr<i32>
    ```
    """

    name = "blk.atomic_cas"
    ptr = operand_def()
    cmp = operand_def()
    value = operand_def()
    result = result_def()
    traits = traits_def(MemoryWriteEffect(), Broadcasts(("cmp", "value"), to="ptr"))
    custom_directives = (TernarySignature,)
    assembly_format = (
        "$ptr `,` $cmp `,` $value attr-dict `:` "
        "custom<TernarySignature>(type($ptr), type($cmp), type($value), type($result))"
    )

    @classmethod
    def short_signature(cls, t: Attribute, present: Sequence[str]):
        return _memory_signature(t, present, True)

    def verify_(self) -> None:
        pointee = _pointee(self.ptr.type)
        check_value("operand 'cmp'", self.cmp.type, NUMBER)
        check_value("operand 'value'", self.value.type, NUMBER)
        _check_broadcasts_to(self.ptr.type, ("cmp", self.cmp), ("value", self.value))
        expected = with_element(self.ptr.type, pointee)
        if self.result.type != expected:
            raise VerifyException(f"result has type {self.result.type}; expected {expected}")


# --------------------------------------------------------------------------------------
# Reductions, scans, dot
# --------------------------------------------------------------------------------------


def _check_acc_dtype(acc: Attribute | None) -> None:
    if acc is not None and (not dtypes.is_dtype_type(acc) or category(acc) is None):
        raise VerifyException(f"acc_dtype {acc} is not a blk dtype")


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """Reduces a block along `axis` (all axes when absent, giving a scalar).

    `sum` and `prod` accumulate in `acc_dtype` (set by `promote-types`) and convert to
    the result dtype at the end; so do `max` and `min` when the policy widens them (Triton
    reduces 8- and 16-bit values in 32 bits); `argmax`/`argmin` give i32 indices of the first
    extreme. On floats, `nan` (set by `promote-types` from the policy) says whether NaN is
    the extreme (``propagate``) or is skipped (``num``: NaN only when every element is).

    ```mlir
    %s = blk.reduce sum, %x axis = 1 acc_dtype = f32 : tensor<16x32xf16> -> tensor<16xf32>
    %m = blk.reduce max, %v : tensor<64xi32> -> i32
    %i = blk.reduce argmax, %f nan = num : tensor<64xf32> -> i32
    ```
    """

    name = "blk.reduce"
    kind = prop_def(ReduceKindAttr)
    axis = opt_prop_def(IntegerAttr[I32])
    acc_dtype = opt_prop_def()
    nan = opt_prop_def(NanAttr)
    src = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = (
        "$kind `,` $src (`axis` `=` $axis^)? (`acc_dtype` `=` $acc_dtype^)? (`nan` `=` $nan^)? "
        "attr-dict `:` type($src) `->` type($result)"
    )

    def verify_(self) -> None:
        kind = self.kind.data
        domain = INTEGRAL if kind in (ReduceKind.AND, ReduceKind.OR, ReduceKind.XOR) else NUMBER
        check_value("operand 'src'", self.src.type, domain, weak_ok=False)
        if not isinstance(self.src.type, TensorType):
            raise VerifyException(f"reduces a block, got the scalar type {self.src.type}")
        _check_acc_dtype(self.acc_dtype)
        shape = list(shape_of(self.src.type))
        if self.axis is None:
            out_shape: list[int] = []
        else:
            axis = self.axis.value.data
            if not 0 <= axis < len(shape):
                raise VerifyException(f"axis {axis} is out of range for {self.src.type}")
            out_shape = shape[:axis] + shape[axis + 1 :]
        src_elem = element_type(self.src.type)
        if kind in (ReduceKind.ARGMAX, ReduceKind.ARGMIN):
            expected_elem: Attribute | None = i32
        elif kind in (ReduceKind.SUM, ReduceKind.PROD, ReduceKind.MAX, ReduceKind.MIN):
            expected_elem = None  # the policy decides (Triton: i8 sums and maxima give i32)
        else:
            expected_elem = src_elem
        check_value("result", self.result.type, NUMBER, weak_ok=False)
        if shape_of(self.result.type) != tuple(out_shape) or (
            expected_elem is not None and element_type(self.result.type) != expected_elem
        ):
            where = "all axes" if self.axis is None else f"axis {self.axis.value.data}"
            shown = expected_elem or (
                src_elem if kind in (ReduceKind.MAX, ReduceKind.MIN) else None
            )
            want = block_of(shown, out_shape) if shown else format_shape(out_shape)
            raise VerifyException(
                f"result has type {self.result.type}; {kind.value} over {where} of "
                f"{self.src.type} gives {want}",
            )


@irdl_op_definition
class ScanOp(BlkOp):
    """Inclusive prefix reduction along `axis` (sum, prod, max or min); `nan` as for
    `blk.reduce`.

    ```mlir
    %c = blk.scan sum, %x axis = 0 : tensor<16xi32>
    %m = blk.scan max, %f axis = 0 nan = num : tensor<16xf32>
    ```
    """

    name = "blk.scan"
    kind = prop_def(ReduceKindAttr)
    axis = prop_def(IntegerAttr[I32])
    acc_dtype = opt_prop_def()
    nan = opt_prop_def(NanAttr)
    src = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    custom_directives = (UnarySignature,)
    assembly_format = (
        "$kind `,` $src `axis` `=` $axis (`acc_dtype` `=` $acc_dtype^)? (`nan` `=` $nan^)? "
        "attr-dict `:` custom<UnarySignature>(type($src), type($result))"
    )

    @classmethod
    def short_signature(cls, t: Attribute, present: Sequence[str]):
        return [t], [t]

    def verify_(self) -> None:
        kind = self.kind.data
        if kind not in (ReduceKind.SUM, ReduceKind.PROD, ReduceKind.MAX, ReduceKind.MIN):
            raise VerifyException(f"scan kind must be sum, prod, max or min, got {kind.value}")
        check_value("operand 'src'", self.src.type, NUMBER, weak_ok=False)
        if not isinstance(self.src.type, TensorType):
            raise VerifyException(f"scans a block, got the scalar type {self.src.type}")
        _check_acc_dtype(self.acc_dtype)
        axis = self.axis.value.data
        if not 0 <= axis < len(shape_of(self.src.type)):
            raise VerifyException(f"axis {axis} is out of range for {self.src.type}")
        check_value("result", self.result.type, NUMBER, weak_ok=False)
        if shape_of(self.result.type) != shape_of(self.src.type):
            raise VerifyException(
                f"result has type {self.result.type}; a scan keeps the shape of {self.src.type}"
            )


# --------------------------------------------------------------------------------------
# Sorting
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompareSwap:
    """A step of a bitonic network over lines of `length` elements: the positions
    `distance` apart are ordered in pairs, ascending where bit `direction` of the lower
    position is clear and descending where it is set (None: the op's order).

    Each position takes its partner's value where ``(own > partner) != (descending xor
    own is the upper)``, as Triton's network does: where neither value is greater (NaN,
    -0.0 against 0.0) both positions of the pair end up with the same value."""

    length: int
    distance: int
    direction: int | None

    def pairs(self) -> int:
        return self.length // 2


@dataclass(frozen=True)
class Halve:
    """A top-k step over lines of `length` elements: pair `j` (the positions
    ``p = j % distance + (j // distance) * 2 * distance`` and ``p + distance``) keeps the
    larger of its values (smaller: ascending) at position `j`, the line halving. NaN loses
    to a number; on ties the lower position wins."""

    length: int
    distance: int

    def pairs(self) -> int:
        return self.length // 2


NetworkStep = CompareSwap | Halve


def _merge_steps(length: int, stage: int, whole: int) -> list[NetworkStep]:
    """Stage `stage` of a bitonic sort of lines of `length`, in a network sorting lines of
    `whole`: its direction alternates with bit `stage` until the last stage."""
    direction = 1 << stage if 1 << stage < whole else None
    return [CompareSwap(length, 1 << i, direction) for i in reversed(range(stage))]


def bitonic_network(length: int, keep: int) -> list[NetworkStep]:
    """Triton's network sorting lines of `length` (a power of two) and keeping the first
    `keep` (a power of two): bitonic stages up to `keep`, then halvings each followed by
    a merge of `keep`-long runs."""
    log_keep = keep.bit_length() - 1
    steps: list[NetworkStep] = []
    for stage in range(1, log_keep + 1):
        steps += _merge_steps(length, stage, length)
    while length > keep:
        steps.append(Halve(length, keep))
        length //= 2
        steps += _merge_steps(length, log_keep, length)
    return steps


def _is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


class _BitonicOp(IRDLOperation, ABC):
    """Base of the ops running a bitonic network along `axis` (see `network`)."""

    axis = prop_def(IntegerAttr[I32])
    descending = opt_prop_def(UnitAttr)
    src = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def length(self) -> int:
        """The length of the lines sorted (the size of `axis`)."""
        return shape_of(self.src.type)[self.axis.value.data]

    def kept(self) -> int:
        """How many elements of each line the result keeps."""
        return self.length()

    def network(self) -> list[NetworkStep]: ...

    def verify_(self) -> None:
        check_value("operand 'src'", self.src.type, NUMBER, weak_ok=False)
        if not isinstance(self.src.type, TensorType):
            raise VerifyException(f"sorts a block, got the scalar type {self.src.type}")
        shape = list(shape_of(self.src.type))
        axis = self.axis.value.data
        if not 0 <= axis < len(shape):
            raise VerifyException(f"axis {axis} is out of range for {self.src.type}")
        if not _is_power_of_two(shape[axis]):
            raise VerifyException(
                f"axis {axis} of {self.src.type} has {shape[axis]} elements; a bitonic "
                "network needs a power of two"
            )
        kept = self.kept()
        if not _is_power_of_two(kept) or kept > shape[axis]:
            raise VerifyException(
                f"k = {kept} must be a power of two no larger than the {shape[axis]} elements "
                "along the axis"
            )
        shape[axis] = kept
        expected = block_of(element_type(self.src.type), shape)
        if self.result.type != expected:
            raise VerifyException(f"result has type {self.result.type}; expected {expected}")


@irdl_op_definition
class SortOp(_BitonicOp):
    """Sorts the lines of a block along `axis`, ascending (or `descending`), by Triton's
    bitonic network (`bitonic_network`), so that NaN and signed zeros land where they
    land in Triton; with `k`, keeps the first `k` elements of each sorted line (top-k),
    `k` a power of two.

    ```mlir
    %s = blk.sort %x axis = 1 : tensor<4x16xf32> -> tensor<4x16xf32>
    %t = blk.sort %x axis = 0 descending k = 4 : tensor<16xi32> -> tensor<4xi32>
    ```
    """

    name = "blk.sort"
    k = opt_prop_def(IntegerAttr[I32])
    assembly_format = (
        "$src `axis` `=` $axis (`descending` $descending^)? (`k` `=` $k^)? attr-dict `:` "
        "type($src) `->` type($result)"
    )

    def kept(self) -> int:
        return self.length() if self.k is None else self.k.value.data

    def network(self) -> list[NetworkStep]:
        return bitonic_network(self.length(), self.kept())


@irdl_op_definition
class BitonicMergeOp(_BitonicOp):
    """Merges the lines of a block along `axis`, each a bitonic sequence (ascending then
    descending, or the reverse), into ascending (or `descending`) order: the last stage
    of `blk.sort`'s network alone.

    ```mlir
    %m = blk.bitonic_merge %x axis = 0 descending : tensor<16xf32> -> tensor<16xf32>
    ```
    """

    name = "blk.bitonic_merge"
    assembly_format = (
        "$src `axis` `=` $axis (`descending` $descending^)? attr-dict `:` "
        "type($src) `->` type($result)"
    )

    def network(self) -> list[NetworkStep]:
        length = self.length()
        return _merge_steps(length, length.bit_length() - 1, length)


class CombineRegionOp(IRDLOperation, ABC):
    """Base of the reductions and scans whose combining step is a region: `srcs`, blocks of
    one shape, combined along `axis` element by element; the region's block takes the
    accumulated scalars then the next element's (one of each per operand) and yields the
    combined scalars with `blk.yield`, in the operands' dtypes."""

    srcs = var_operand_def()
    axis = prop_def(IntegerAttr[I32])
    combined = var_result_def()
    combiner = region_def("single_block")
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if not self.srcs:
            raise VerifyException(f"'{self.name}' takes at least one operand")
        shape = shape_of(self.srcs[0].type)
        for i, src in enumerate(self.srcs):
            check_value(f"operand {i}", src.type, NUMBER, weak_ok=False)
            if not isinstance(src.type, TensorType) or shape_of(src.type) != shape:
                raise VerifyException(
                    f"operand {i} has type {src.type}; the operands must be blocks of one "
                    f"shape, as operand 0 ({self.srcs[0].type})"
                )
        axis = self.axis.value.data
        if not 0 <= axis < len(shape):
            raise VerifyException(f"axis {axis} is out of range for {self.srcs[0].type}")
        elems = [element_type(s.type) for s in self.srcs]
        block = self.combiner.block
        if [a.type for a in block.args] != elems * 2:
            shown = ", ".join(str(a.type) for a in block.args)
            want = ", ".join(str(e) for e in elems * 2)
            raise VerifyException(
                f"the combiner takes ({shown}); the operands' dtypes, accumulated then "
                f"next, are ({want})"
            )
        last = block.last_op
        if not isinstance(last, YieldOp) or [v.type for v in last.values] != elems:
            raise VerifyException(
                f"the combiner must end in blk.yield of {', '.join(map(str, elems))}"
            )

    def combined_shape(self) -> list[int]:
        """The shape of each result."""
        return list(shape_of(self.srcs[0].type))

    def verify_results(self) -> None:
        out = self.combined_shape()
        for i, (src, result) in enumerate(zip(self.srcs, self.results, strict=False)):
            want = block_of(element_type(src.type), out)
            if result.type != want:
                raise VerifyException(f"result {i} has type {result.type}; expected {want}")
        if len(self.results) != len(self.srcs):
            raise VerifyException(
                f"{len(self.results)} results for {len(self.srcs)} operands; expected one each"
            )


@irdl_op_definition
class ReduceRegionOp(CombineRegionOp):
    """Reduces blocks along `axis` with the combining step in its region, left to right:
    the first element, combined with the second, that with the third. Several operands
    reduce together (an argmax over (value, index) pairs); a 1-D block gives scalars.

    ```mlir
    %s = blk.reduce_region %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
    ^bb0(%a : f32, %b : f32):
      %c = blk.add %a, %b : f32
      blk.yield %c : f32
    }
    ```
    """

    name = "blk.reduce_region"
    assembly_format = (
        "$srcs `axis` `=` $axis attr-dict-with-keyword `:` type($srcs) `->` type($combined) "
        "$combiner"
    )

    def combined_shape(self) -> list[int]:
        shape = list(shape_of(self.srcs[0].type))
        axis = self.axis.value.data
        return shape[:axis] + shape[axis + 1 :]

    def verify_(self) -> None:
        super().verify_()
        self.verify_results()


@irdl_op_definition
class ScanRegionOp(CombineRegionOp):
    """Inclusive prefix combination of blocks along `axis` with the combining step in its
    region; `reverse` runs from the last element to the first (the accumulated value,
    of the later elements, on the left).

    ```mlir
    %c = blk.scan_region %x axis = 0 reverse : tensor<16xi32> -> tensor<16xi32> {
    ^bb0(%a : i32, %b : i32):
      %c = blk.mul %a, %b : i32
      blk.yield %c : i32
    }
    ```
    """

    name = "blk.scan_region"
    reverse = opt_prop_def(UnitAttr)
    assembly_format = (
        "$srcs `axis` `=` $axis (`reverse` $reverse^)? attr-dict-with-keyword `:` type($srcs) "
        "`->` type($combined) $combiner"
    )

    def verify_(self) -> None:
        super().verify_()
        self.verify_results()


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends the combiner of `blk.reduce_region` or `blk.scan_region` with the combined
    scalars.

    ```mlir
    blk.yield %c, %i : f32, i32
    ```
    """

    name = "blk.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def verify_(self) -> None:
        if not isinstance(self.parent_op(), CombineRegionOp):
            raise VerifyException("blk.yield ends the combiner of a reduce_region or scan_region")


@irdl_op_definition
class DotOp(IRDLOperation):
    """Matrix product of blocks ``[M, K] x [K, N] -> [M, N]`` (a leading batch dimension
    is allowed), plus `acc` when given, accumulated in `acc_dtype`.

    ```mlir
    %c = blk.dot %a, %b acc %c0 acc_dtype = f32
        : tensor<32x16xf16>, tensor<16x64xf16>, tensor<32x64xf32> -> tensor<32x64xf32>
    ```
    """

    name = "blk.dot"
    lhs = operand_def()
    rhs = operand_def()
    acc = opt_operand_def()
    acc_dtype = opt_prop_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = (
        "$lhs `,` $rhs (`acc` $acc^)? (`acc_dtype` `=` $acc_dtype^)? attr-dict `:` "
        "type($lhs) `,` type($rhs) (`,` type($acc)^)? `->` type($result)"
    )

    def verify_(self) -> None:
        for role, value in (("lhs", self.lhs), ("rhs", self.rhs)):
            check_value(f"operand '{role}'", value.type, NUMBER, weak_ok=False)
            if len(shape_of(value.type)) not in (2, 3):
                raise VerifyException(
                    f"operand '{role}' has type {value.type}; dot takes 2-D or 3-D blocks"
                )
        _check_acc_dtype(self.acc_dtype)
        a, b = shape_of(self.lhs.type), shape_of(self.rhs.type)
        if len(a) != len(b):
            raise VerifyException(f"operands have ranks {len(a)} and {len(b)}; they must be equal")
        if a[-1] != b[-2]:
            raise VerifyException(
                f"inner dimensions differ: 'lhs' {self.lhs.type} has K = {a[-1]} but "
                f"'rhs' {self.rhs.type} has K = {b[-2]}",
            )
        if len(a) == 3 and a[0] != b[0]:
            raise VerifyException(f"batch dimensions differ: {a[0]} and {b[0]}")
        out = (*a[:-1], b[-1])
        check_value("result", self.result.type, NUMBER, weak_ok=False)
        if shape_of(self.result.type) != out:
            raise VerifyException(
                f"result has type {self.result.type}; {self.lhs.type} times "
                f"{self.rhs.type} has shape {format_shape(out)}",
            )
        if self.acc is not None:
            check_value("operand 'acc'", self.acc.type, NUMBER, weak_ok=False)
            if shape_of(self.acc.type) != out:
                raise VerifyException(
                    f"operand 'acc' has type {self.acc.type}; it must have the result "
                    f"shape {format_shape(out)}",
                )


PAIR_DOTS = {"bfloat16": "float32", "int8": "int32", "uint8": "int32"}
"""The element types a `blk.dot_tile` with `pairs` multiplies, each with its accumulator's
type."""
FMA_DOTS = {"float32": "float32", "float64": "float64"}
"""The element types a `blk.dot_tile` without `pairs` multiplies, each with its
accumulator's type."""


@irdl_op_definition
class PrefetchOp(IRDLOperation):
    """A hint, in loop IR, that the element `ptr` points to will be read soon: its cache
    line is fetched into the caches if it is not there. Not an access: it never faults,
    reads nothing and is not bounds-checked, so `ptr` may point anywhere
    (`prefetch-next-iteration` makes these).

    ```mlir
    blk.prefetch %p : !blk.ptr<bf16>
    ```
    """

    name = "blk.prefetch"
    ptr = operand_def(PtrType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$ptr attr-dict `:` type($ptr)"

    def __init__(self, ptr: SSAValue):
        super().__init__(operands=[ptr])


@irdl_op_definition
class DotTileOp(IRDLOperation):
    """One register tile of a `dot` in loop IR (buffers, not blocks): the `rows` x `cols`
    block of `acc` at (`indices`: batch index if any, first row, first column) plus the
    product of those rows of `lhs` with those columns of `rhs`, over the whole inner
    dimension, the accumulators in vectors of `lanes` across it.

    Without `pairs`, each step of the inner dimension broadcasts one element of `lhs` per
    row and multiplies it into a vector of a row of `rhs` (`[batch] x K x N`) with one
    fused multiply-add, in order: the float element types of `FMA_DOTS`. With `pairs`,
    for a target whose vector instructions multiply pairs of elements and add both
    products into one 32-bit lane (`vdpbf16ps` for bfloat16, `pmaddwd` for 8-bit integers
    widened to 16), `rhs` holds B's pairs: `[batch] x ceil(K/2) x N x 2`, B's rows 2p and
    2p + 1 side by side at p (zero after the last row where K is odd), and each step takes
    a pair (`PAIR_DOTS`; `convert-blk-to-loops{pair-dot-types=...}` names those it may
    use).

    ```mlir
    blk.dot_tile %a, %b, %c[%i, %j] {rows = 4 : i64, cols = 32 : i64, lanes = 16 : i64}
        : memref<64x32xf32>, memref<32x64xf32>, memref<64x64xf32>
    blk.dot_tile %a, %bp, %c[%i, %j] {rows = 4 : i64, cols = 32 : i64, lanes = 16 : i64,
        pairs} : memref<64x32xbf16>, memref<16x64x2xbf16>, memref<64x64xf32>
    ```
    """

    name = "blk.dot_tile"
    lhs = operand_def(MemRefType)
    rhs = operand_def(MemRefType)
    acc = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    rows = prop_def(IntegerAttr)
    cols = prop_def(IntegerAttr)
    lanes = prop_def(IntegerAttr)
    pairs = opt_prop_def(UnitAttr)
    """`rhs` holds B's pairs, which each step multiplies with pair instructions."""
    unsigned = opt_prop_def(UnitAttr)
    """Integer elements are unsigned (zero-extended): `lower-int-semantics` leaves the
    buffers signless."""
    traits = traits_def(MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$lhs `,` $rhs `,` $acc `[` $indices `]` attr-dict `:` "
        "type($lhs) `,` type($rhs) `,` type($acc)"
    )

    def __init__(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        acc: SSAValue,
        indices: Sequence[SSAValue],
        rows: int,
        cols: int,
        lanes: int,
        pairs: bool = False,
    ):
        properties: dict[str, Attribute] = {
            "rows": IntegerAttr(rows, i64),
            "cols": IntegerAttr(cols, i64),
            "lanes": IntegerAttr(lanes, i64),
        }
        if pairs:
            properties["pairs"] = UnitAttr()
        element = lhs.type.element_type if isinstance(lhs.type, MemRefType) else None
        if element is not None and dtypes.from_xdsl(element).name == "uint8":
            properties["unsigned"] = UnitAttr()
        super().__init__(operands=[lhs, rhs, acc, list(indices)], properties=properties)

    def verify_(self) -> None:
        a, b, c = (v.type for v in (self.lhs, self.rhs, self.acc))
        assert isinstance(a, MemRefType) and isinstance(b, MemRefType)
        assert isinstance(c, MemRefType)
        name = dtypes.from_xdsl(a.element_type).name
        kinds = PAIR_DOTS if self.pairs is not None else FMA_DOTS
        if b.element_type != a.element_type or name not in kinds:
            raise VerifyException(
                f"operands hold {a.element_type} and {b.element_type}; dot_tile"
                f"{' with pairs' if self.pairs is not None else ''} multiplies two buffers "
                f"of one of {', '.join(kinds)}"
            )
        if dtypes.from_xdsl(c.element_type).name != kinds[name]:
            raise VerifyException(f"{name} products accumulate in {kinds[name]}, not {c}")
        (m, k), (m2, n2) = (t.get_shape()[-2:] for t in (a, c))
        batch = [t.get_shape()[:-2] for t in (a, c)]
        if self.pairs is not None:
            *batch_b, pairs, n, two = b.get_shape() if len(b.get_shape()) >= 3 else (0, 0, 0)
            fits = pairs == (k + 1) // 2 and two == 2
            what = "the pairs "
        else:
            *batch_b, k2, n = b.get_shape()
            fits, what = k2 == k, ""
        if not fits or (m, n) != (m2, n2) or not tuple(batch_b) == batch[0] == batch[1]:
            raise VerifyException(f"{a} times {what}{b} does not give {c}")
        if len(self.indices) != len(batch[0]) + 2:
            raise VerifyException(f"dot_tile takes {len(batch[0]) + 2} indices into {c}")
        rows, cols, lanes = (x.value.data for x in (self.rows, self.cols, self.lanes))
        if not (0 < rows <= m and 0 < lanes <= cols <= n and cols % lanes == 0):
            raise VerifyException(
                f"a tile of {rows} x {cols} in vectors of {lanes} does not fit {c}"
            )


# --------------------------------------------------------------------------------------
# Debugging
# --------------------------------------------------------------------------------------


@irdl_op_definition
class PrintOp(IRDLOperation):
    """Prints `prefix` and the values, from every program (a debugging aid), one line per
    element in Triton's format:

    ```
    pid (<x>, <y>, <z>) idx (<i>, <j>)<prefix>(operand <n>) <value>
    ```

    The indices are padded to the digits of their dimension (`index_widths`), `(operand
    n) ` appears where the print has several values, each value prints its elements before
    the next value's, and a scalar prints `idx ()`. Without values the line is `pid (<x>,
    <y>, <z>)<prefix>`. Floats print as C's `%f` (bfloat16, float16 and fp8 widened), or
    `%a` with `hex`; integers in decimal, as signed or unsigned by their dtype, or with
    `hex` as `0x` and all the hexadecimal digits of their width; pointers as `%p`.

    ```mlir
    blk.print " x: " %x : tensor<16xf32>
    blk.print " x: " %x : tensor<16xi32> {hex}
    ```

    `convert-blk-to-loops` prints a block one element at a time: the element form has
    `index_widths`, its leading operands are the element's indices (one per width) and its
    last is the element; `operand` is the `(operand n)` label, if any. Once
    `lower-int-semantics` has made types signless, `blk.unsigned_args` lists the operands
    that hold unsigned integers.
    """

    name = "blk.print"
    prefix = prop_def(StringAttr)
    hex = opt_prop_def(UnitAttr)
    index_widths = opt_prop_def(DenseArrayBase.constr(i64))
    operand = opt_prop_def(IntegerAttr[I64])
    args = var_operand_def()
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$prefix ($args^ `:` type($args))? attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(
        self,
        prefix: str,
        args: Sequence[SSAValue | Operation] = (),
        hex: bool = False,  # noqa: A002 - Triton's name
        index_widths: Sequence[int] | None = None,
        operand: int | None = None,
    ):
        props: dict[str, Attribute] = {"prefix": StringAttr(prefix)}
        if hex:
            props["hex"] = UnitAttr()
        if index_widths is not None:
            props["index_widths"] = DenseArrayBase.from_list(i64, list(index_widths))
        if operand is not None:
            props["operand"] = IntegerAttr(operand, i64)
        super().__init__(properties=props, operands=[list(args)])

    @staticmethod
    def widths_of(shape: Sequence[int]) -> list[int]:
        """The widths the indices of a block of `shape` print with: the digits of each
        dimension, ceil(log10(size)) as Triton pads them."""
        return [math.ceil(math.log10(d)) if d > 0 else 0 for d in shape]

    def widths(self) -> tuple[int, ...] | None:
        """The widths of the element form's indices; None for a print of whole values."""
        if self.index_widths is None:
            return None
        return tuple(self.index_widths.get_values())  # type: ignore[arg-type]

    def lines(self) -> list[tuple[tuple[int, ...], int | None, int]]:
        """What each line of a print of scalars shows: the operands of its indices (none
        for a scalar), its `(operand n)` label (or None) and the operand of its value."""
        widths = self.widths()
        if widths is not None:
            label = None if self.operand is None else self.operand.value.data
            return [(tuple(range(len(widths))), label, len(widths))]
        several = len(self.args) > 1
        return [((), i if several else None, i) for i in range(len(self.args))]

    def verify_(self) -> None:
        for index, value in enumerate(self.args):
            check_value(f"argument {index}", value.type, ANY_VALUE, weak_ok=False)
        widths = self.widths()
        if widths is None:
            if self.operand is not None:
                raise VerifyException("'operand' labels an element print (with 'index_widths')")
            return
        if len(self.args) != len(widths) + 1:
            raise VerifyException(
                f"an element print takes {len(widths)} indices and the element, "
                f"got {len(self.args)} operands"
            )
        for index, value in enumerate(self.args):
            if shape_of(value.type):
                raise VerifyException(f"an element print takes scalars, operand {index} is not")
            if index < len(widths) and not isinstance(value.type, IntegerType | IndexType):
                raise VerifyException(f"index {index} of an element print is not an integer")
        if any(w < 0 for w in widths) or (self.operand is not None and self.operand.value.data < 0):
            raise VerifyException("index widths and the operand label are not negative")


@irdl_op_definition
class AssertOp(IRDLOperation):
    """Fails the launch with `message` where `cond` is false.

    ```mlir
    blk.assert %ok, "index out of bounds" : tensor<16xi1>
    ```
    """

    name = "blk.assert"
    cond = operand_def()
    message = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$cond `,` $message attr-dict `:` type($cond)"

    def __init__(self, cond: SSAValue | Operation, message: str):
        super().__init__(operands=[cond], properties={"message": StringAttr(message)})

    def verify_(self) -> None:
        check_value("operand 'cond'", self.cond.type, frozenset({BOOL}), weak_ok=False)


# --------------------------------------------------------------------------------------
# The dialect
# --------------------------------------------------------------------------------------

KERNEL_ATTR = "blk.kernel"
"""Unit attribute marking a `func.func` as a kernel."""
POLICY_ATTR = "blk.policy"
"""Module attribute naming the promotion policy of loose IR (a string)."""

UNSIGNED_ATTR = "blk.unsigned"
"""Unit attribute of a scalar integer `blk.atomic_rmw` min or max whose memory holds
unsigned integers: `lower-int-semantics` sets it before types become signless, and the code
generators compare unsigned."""
UNSIGNED_ARGS_ATTR = "blk.unsigned_args"
"""Attribute of a `blk.print` (an array of i64): the operands that hold unsigned integers,
which `lower-int-semantics` records before types become signless."""
DIVISIBILITY_ATTR = "blk.divisibility"
"""Argument attribute: the int parameter is a multiple of this power of two (an i32),
which the GPU lowering relies on and each launch checks."""

NO_UNROLL_ATTR = "blk.no_unroll"
"""The unit attribute of an `scf.for` in loop IR that LLVM unrolls at most twice (not fully):
the steps of a sorting network (`sort_lowering`), which, unrolled fully and vectorized,
took LLVM seconds to compile."""

Blk = Dialect(
    "blk",
    [
        ProgramIdOp,
        NumProgramsOp,
        GlobalTimerOp,
        ArangeOp,
        ConstantOp,
        LiteralOp,
        SplatOp,
        ExpandDimsOp,
        BroadcastOp,
        ReshapeOp,
        PermuteOp,
        GatherOp,
        CastOp,
        BitcastOp,
        AddOp,
        SubOp,
        MulOp,
        TrueDivOp,
        FloorDivOp,
        ModOp,
        NegOp,
        AbsOp,
        NotOp,
        AndOp,
        OrOp,
        XorOp,
        ShlOp,
        ShrOp,
        MinimumOp,
        MaximumOp,
        CmpOp,
        WhereOp,
        FmaOp,
        ExpOp,
        Exp2Op,
        LogOp,
        Log2Op,
        SqrtOp,
        RsqrtOp,
        SinOp,
        CosOp,
        TanhOp,
        ErfOp,
        FloorOp,
        CeilOp,
        MathFnOp,
        MathFn2Op,
        AddPtrOp,
        LoadOp,
        StoreOp,
        AtomicRMWOp,
        AtomicCASOp,
        ReduceOp,
        ScanOp,
        ReduceRegionOp,
        ScanRegionOp,
        SortOp,
        BitonicMergeOp,
        YieldOp,
        DotOp,
        DotTileOp,
        PrefetchOp,
        PrintOp,
        AssertOp,
    ],
    [
        PtrType,
        WeakType,
        RoundingAttr,
        NanAttr,
        ShiftFillAttr,
        CmpPredicateAttr,
        ReduceKindAttr,
        AtomicKindAttr,
    ],
)
