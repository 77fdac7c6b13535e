"""The `simt` dialect: what one thread of a CTA does, after `convert-blk-to-simt`.

A kernel in SIMT form is ordinary loop IR run by every thread of a CTA of
`num_warps * 32` threads (the function's `simt.num_warps` attribute). Code outside a
`simt.threads` region is *uniform*: every thread computes the same values (blk scalars
are program-wide values, so every thread may compute them redundantly). Code inside
one depends on the thread's index, and its side effects on memory are the only way
values leave it. This split is what lets the same IR run on a GPU (the region is inlined,
its argument is `%tid.x`) and on a CPU (the region becomes a loop over the threads,
`convert-simt-to-thread-loops`): threads only meet at `simt.barrier`, which sits in
uniform code, and at `simt.shuffle_xor`, which sits at the top level of a region.
`simt.vector_load` and `simt.vector_store` move a chunk of a thread's elements between
global memory and a per-thread buffer as one access.

```mlir
%partials = simt.alloc_shared : memref<4xf32>
simt.threads {
^bb0(%tid: index):
  %other = simt.shuffle_xor %x, 16 : f32
  ...
}
simt.barrier
```
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I32, IndexType, IntegerAttr, MemRefType, i1, i32
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from blkc.dialects.types import PtrType

WARP_SIZE = 32
NUM_WARPS_ATTR = "simt.num_warps"
"""The function attribute giving the CTA size in warps."""


@irdl_op_definition
class ThreadsOp(IRDLOperation):
    """Code run by each thread of the CTA; the block argument is the thread's index.

    The region holds no barrier; threads exchange values only through memory and, at
    the region's top level, `simt.shuffle_xor`.

        simt.threads {
        ^bb0(%tid: index):
          memref.store %v, %buf[%tid] : memref<128xf32>
        }
    """

    name = "simt.threads"
    body = region_def("single_block")
    traits = traits_def(NoTerminator())
    assembly_format = "attr-dict-with-keyword $body"

    def __init__(self) -> None:
        super().__init__(regions=[Region(Block(arg_types=[IndexType()]))])

    @property
    def tid(self) -> SSAValue:
        return self.body.block.args[0]

    def verify_(self) -> None:
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyException("'simt.threads' takes one index block argument (the thread)")
        for op in self.body.walk():
            if isinstance(op, BarrierOp):
                raise VerifyException("'simt.barrier' must not be inside 'simt.threads'")


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """Waits until every thread of the CTA got here; memory written before it is visible
    to every thread after it (PTX `bar.sync 0`).

        simt.barrier
    """

    name = "simt.barrier"
    assembly_format = "attr-dict"


@irdl_op_definition
class ShuffleXorOp(IRDLOperation):
    """The value `value` holds in the lane `lane ^ lane_mask` of the same warp (PTX
    `shfl.sync.bfly`): the step of a butterfly reduction.

        %other = simt.shuffle_xor %x, 16 : f32
    """

    name = "simt.shuffle_xor"
    T: ClassVar = VarConstraint("T", AnyAttr())
    value = operand_def(T)
    lane_mask = prop_def(IntegerAttr[I32])
    result = result_def(T)
    assembly_format = "$value `,` $lane_mask attr-dict `:` type($value)"

    def __init__(self, value: SSAValue, lane_mask: int) -> None:
        super().__init__(
            operands=[value],
            properties={"lane_mask": IntegerAttr(lane_mask, i32)},
            result_types=[value.type],
        )

    def verify_(self) -> None:
        if not 0 < self.lane_mask.value.data < WARP_SIZE:
            raise VerifyException(f"lane mask must lie in [1, {WARP_SIZE}), got {self.lane_mask}")


class _AllocOp(IRDLOperation):
    memref = result_def(MemRefType)
    assembly_format = "attr-dict `:` type($memref)"

    def __init__(self, shape: list[int], element: Attribute) -> None:
        super().__init__(result_types=[MemRefType(element, shape)])


@irdl_op_definition
class AllocSharedOp(_AllocOp):
    """A buffer shared by the CTA's threads (PTX `.shared`), indexed by block position.

    %a = simt.alloc_shared : memref<32x32xf32>
    """

    name = "simt.alloc_shared"


@irdl_op_definition
class AllocLocalOp(_AllocOp):
    """A buffer private to each thread (registers, once LLVM promotes it), holding the
    elements of a block the thread owns, in the order it visits them.

        %x = simt.alloc_local : memref<8xf32>
    """

    name = "simt.alloc_local"


class _VectorAccessOp(IRDLOperation):
    """A chunk of a thread's elements moved as one access (the buffer's length of them)
    from or to `ptr` (operand 0) through `buffer` (operand 1), where `mask` is true."""

    @property
    def width(self) -> int:
        t = self.operands[1].type
        assert isinstance(t, MemRefType)
        return t.get_shape()[0]

    def verify_(self) -> None:
        t, pointer = self.operands[1].type, self.operands[0].type
        assert isinstance(t, MemRefType) and isinstance(pointer, PtrType)
        if len(t.get_shape()) != 1 or t.get_shape()[0] not in (2, 4):
            raise VerifyException(f"'{self.name}' moves 2 or 4 elements, not {t}")
        if t.element_type != pointer.pointee:
            raise VerifyException(
                f"buffer elements {t.element_type} differ from the pointer's {pointer.pointee}"
            )


@irdl_op_definition
class VectorLoadOp(_VectorAccessOp):
    """Reads the consecutive elements at `ptr` into `buffer` as one access (PTX
    `ld.global.v4`): `ptr` is aligned to their total size, which the lowering proved. Where
    `mask` is false nothing is read and every element becomes `other` (zero without it).

        simt.vector_load %p into %buf mask %m other %x : !blk.ptr<f32>, memref<4xf32>, f32
    """

    name = "simt.vector_load"
    ptr = operand_def(PtrType)
    buffer = operand_def(MemRefType)
    mask = opt_operand_def(i1)
    other = opt_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$ptr `into` $buffer (`mask` $mask^)? (`other` $other^)? attr-dict `:` type($ptr) "
        "`,` type($buffer) (`,` type($other)^)?"
    )

    def __init__(
        self,
        ptr: SSAValue,
        buffer: SSAValue,
        mask: SSAValue | None,
        other: SSAValue | None = None,
    ) -> None:
        super().__init__(operands=[ptr, buffer, mask, other])

    def verify_(self) -> None:
        super().verify_()
        pointer = self.ptr.type
        assert isinstance(pointer, PtrType)
        if self.other is not None:
            if self.mask is None:
                raise VerifyException("'other' without a mask would never be used")
            if self.other.type != pointer.pointee:
                raise VerifyException(
                    f"'other' has type {self.other.type}; the elements are {pointer.pointee}"
                )


@irdl_op_definition
class VectorStoreOp(_VectorAccessOp):
    """Writes `buffer` to the consecutive elements at `ptr` as one access (PTX
    `st.global.v4`), where `mask` is true; `ptr` is aligned to their total size.

        simt.vector_store %p from %buf mask %m : !blk.ptr<f32>, memref<4xf32>
    """

    name = "simt.vector_store"
    ptr = operand_def(PtrType)
    buffer = operand_def(MemRefType)
    mask = opt_operand_def(i1)

    assembly_format = (
        "$ptr `from` $buffer (`mask` $mask^)? attr-dict `:` type($ptr) `,` type($buffer)"
    )

    def __init__(self, ptr: SSAValue, buffer: SSAValue, mask: SSAValue | None) -> None:
        super().__init__(operands=[ptr, buffer, mask])


Simt = Dialect(
    "simt",
    [
        ThreadsOp,
        BarrierOp,
        ShuffleXorOp,
        AllocSharedOp,
        AllocLocalOp,
        VectorLoadOp,
        VectorStoreOp,
    ],
    [],
)

__all__ = [
    "NUM_WARPS_ATTR",
    "WARP_SIZE",
    "AllocLocalOp",
    "AllocSharedOp",
    "BarrierOp",
    "ShuffleXorOp",
    "Simt",
    "ThreadsOp",
    "VectorLoadOp",
    "VectorStoreOp",
]
