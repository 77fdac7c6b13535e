"""Atomics a CPU thread may combine across the programs it runs before touching memory.

A reduction kernel typically ends with ``tl.atomic_add(out_ptr, tl.sum(x))``: every
program adds its partial result to one address. Run on CPU threads, each program's atomic
then takes the cache line from the other cores, which costs as much as the program's own
work when the programs are small (4096 float32 each: about 20% of a 16M-element sum). The
launcher instead runs a chunk of consecutive programs per call (`llvm_codegen`): an atomic
found *deferrable* here combines each program's value into a private accumulator of the
chunk, and the chunk's last program applies the accumulated value with one atomic.

That is one of the orders in which concurrently running programs may apply their atomics
(Triton orders nothing between programs), provided nothing can tell the difference:

- the atomic's old value is unused;
- it runs exactly once in every program: at the kernel's top level, not inside a loop or
  a branch;
- its address and mask are the same in every program (computed from the kernel's
  arguments and constants, never from the program id or from memory);
- its kind has an identity and is associative and commutative: add (integer or float),
  and, or, xor, integer max and min;
- no access of the kernel other than such atomics goes through the same pointer argument
  (the program cannot read back what it added);
- the kernel has no compare-and-swap, no other atomic and no `while` loop: no program can
  wait for another one's atomic.

Float additions are then reassociated (the chunk's values summed first), as running the
programs on other threads reassociates them too.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.traits import Pure

from blkc.dialects import blk
from blkc.dialects.types import PtrType
from blkc.runtime.access_ranges import base_pointer
from blkc.runtime.small_floats import is_storage_float

_KINDS = frozenset({"add", "and", "or", "xor", "max", "min"})
"""Atomic kinds that combine; max and min only on integers (see `deferrable`)."""


def deferrable(function: func.FuncOp) -> list[blk.AtomicRMWOp]:
    """The atomics of `function` (loop IR) that may be combined across a chunk of programs
    (see the module's docstring), in program order."""
    entry = function.body.blocks[0]
    pointer_args = {a for a in entry.args if isinstance(a.type, PtrType)}
    candidates: list[blk.AtomicRMWOp] = []
    others: set[SSAValue] = set()  # pointer arguments some other access goes through
    for op in function.walk():
        if isinstance(op, scf.WhileOp | blk.AtomicCASOp):
            return []
        if isinstance(op, blk.AtomicRMWOp):
            if _combinable(op, entry):
                candidates.append(op)
            else:
                return []
        elif isinstance(op, blk.LoadOp | blk.StoreOp):
            others.add(base_pointer(op.ptr, pointer_args))
    if None in others:
        return []  # an access whose pointer argument is not known may alias any
    return [op for op in candidates if base_pointer(op.ptr, pointer_args) not in others | {None}]


def _combinable(op: blk.AtomicRMWOp, entry: Block) -> bool:
    kind = op.kind.data.value
    element = op.value.type
    if kind not in _KINDS or op.parent_block() is not entry or any(op.result.uses):
        return False
    if isinstance(element, PtrType) or not isinstance(op.ptr.type, PtrType):
        return False  # a block of pointers left in loop IR, or an atomic on pointers
    if kind in ("max", "min") and not isinstance(element, IntegerType):
        return False  # float max/min order NaNs and signed zeros by their own rules
    if is_storage_float(element):
        return False  # bfloat16 and fp8 combine in a compare-and-swap loop (`FunctionEmitter`)
    invariant: dict[SSAValue, bool] = {}
    return _invariant(op.ptr, entry, invariant) and (
        op.mask is None or _invariant(op.mask, entry, invariant)
    )


def _invariant(value: SSAValue, entry: Block, seen: dict[SSAValue, bool]) -> bool:
    """Whether `value` is the same in every program: computed from the kernel's arguments
    and constants by pure operations, without the program id."""
    if value in seen:
        return seen[value]
    if isinstance(value, BlockArgument):
        result = value.block is entry
    else:
        op: Operation = value.owner  # type: ignore[assignment]
        result = (
            not isinstance(op, blk.ProgramIdOp)
            and not op.regions
            and (op.has_trait(Pure) or op.dialect_name() == arith.Arith.name)
            and all(_invariant(o, entry, seen) for o in op.operands)
        )
    seen[value] = result
    return result
