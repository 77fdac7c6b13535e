"""`contiguous-persistent-loops`: a persistent loop gives each program a contiguous run of
the iterations, not every num_programs-th one, where the grid runs on a CPU.

Triton's persistent kernels (the tutorial's softmax, persistent matmul) start one program
per streaming multiprocessor and let each step over the work:

```mlir
%pid = blk.program_id 0 : i32
%n = blk.num_programs 0 : i32
scf.for %row = %pid to %rows step %n : i32 { ... }
```

On a GPU the programs run at once, so neighbouring programs read neighbouring rows. On a
CPU each core runs its programs one after another, so a program's rows lie `%n` rows
apart in memory: on a Zen 4 a 4096 x 1024 softmax ran at half the speed of the same
kernel reading consecutive rows. When the step equals the number of programs at run time,
the programs' iterations together are every value from the start to the bound, whatever
program takes each; the pass hands program p the p-th of `%n` runs of ceil(count / `%n`)
consecutive values (by a `select` on that test; any other step keeps the loop as written,
and so does a start `offset + pid` that would wrap around for some program):

```mlir
// lb = offset + pid, step = s (offset and s loop-invariant)
%count = max(ub - offset, 0)                 // in i64
%run = (count + n - 1) / n
%first = min(offset + pid * run, ub)
%last = min(first + run, ub)
scf.for %row = select(s == n, first, lb) to select(s == n, last, ub) step select(s == n, 1, s)
```

It applies to a loop in the kernel's entry block, with no carried values, whose start is
`program_id(a)` or `program_id(a)` plus a value that does not depend on it, where that
`program_id(a)` is used nowhere else in the kernel (so no program's other work depends on
which program it is, and every program computes the same bounds and step). Programs then
differ only in which iterations they run, which the grid leaves unordered anyway: two
iterations that touch the same memory in different programs race on a GPU too.

But iterations of one program run in order, and after the rewrite iterations `%n` apart
(one program's) land in different programs. So the loop is kept as written where its
iterations may depend on each other through memory: where it loads through an argument
the kernel writes (`Out[row] = Out[row - n] + x`; with `disjoint_args`, only an argument
it writes itself counts, and the function is marked as relying on that), runs an atomic,
or stores to an address that does not change with the iteration.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, Signedness, UnitAttr, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from blkc.dialects import blk
from blkc.dialects.kernels import kernel_functions
from blkc.passes.block_lowering import DISJOINT_ARGS_ATTR
from blkc.passes.written_arguments import pointer_bases, written_arguments


@dataclass(frozen=True)
class ContiguousPersistentLoopsPass(ModulePass):
    """Persistent loops give each program consecutive iterations (CPU lowering only)."""

    name = "contiguous-persistent-loops"

    disjoint_args: bool = False
    """Whether distinct pointer arguments may be assumed not to overlap."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in kernel_functions(op):
            for loop in [o for o in function.body.block.ops if isinstance(o, scf.ForOp)]:
                if _rewrite(function, loop, self.disjoint_args):
                    function.attributes[DISJOINT_ARGS_ATTR] = UnitAttr()


def _ordered_through_memory(
    function: func.FuncOp, loop: scf.ForOp, written: list[bool], disjoint: bool
) -> bool:
    """Whether `loop`'s iterations may depend on each other through memory (see the module
    docstring), given the arguments the kernel writes, assuming distinct arguments
    disjoint where `disjoint`."""
    index = loop.body.blocks[0].args[0]
    for op in loop.walk():
        if isinstance(op, blk.AtomicRMWOp | blk.AtomicCASOp):
            return True
        if isinstance(op, blk.LoadOp):
            bases = pointer_bases(op.ptr, function)
            if bases is None or any(written[i] for i in bases):
                return True
            if not disjoint and any(written):
                return True  # the array written may be the one read
        if isinstance(op, blk.StoreOp) and not _depends_on(op.ptr, index, loop):
            return True
    return False


def _depends_on(value: SSAValue, index: SSAValue, loop: scf.ForOp) -> bool:
    """Whether `value` may be computed from `index` (or from a value an inner loop carries)
    by ops inside `loop`."""
    seen: set[SSAValue] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if v is index:
            return True
        if v in seen:
            continue
        seen.add(v)
        owner = v.owner
        if isinstance(owner, Operation):
            if loop.is_ancestor(owner):
                stack.extend(owner.operands)
        else:  # a block argument: of an inner loop, or from outside `loop`
            parent = owner.parent_op()
            if parent is not None and parent is not loop and loop.is_ancestor(parent):
                return True
    return False


def _program_start(lb: SSAValue) -> tuple[blk.ProgramIdOp, SSAValue | None] | None:
    """The `program_id` a loop's start is (or adds a value to), and that value (None: the
    start is the program id itself)."""
    owner = lb.owner
    if isinstance(owner, blk.ProgramIdOp):
        return owner, None
    if isinstance(owner, blk.AddOp | arith.AddiOp) and lb.has_one_use():
        lhs, rhs = owner.operands
        for pid, offset in ((lhs, rhs), (rhs, lhs)):
            if isinstance(pid.owner, blk.ProgramIdOp) and offset.type == lb.type:
                return pid.owner, offset
    return None


def _rewrite(function: func.FuncOp, loop: scf.ForOp, disjoint: bool) -> bool:
    """Rewrite `loop` where it qualifies; whether the rewrite relied on disjoint
    arguments."""
    kind = loop.lb.type
    if (
        loop.iter_args
        or not isinstance(kind, IntegerType)
        or kind.signedness.data != Signedness.SIGNLESS
        or loop.ub.type != kind
        or loop.step.type != kind
    ):
        return False
    found = _program_start(loop.lb)
    if found is None:
        return False
    pid, offset = found
    axis = pid.axis.value.data
    same_axis = [
        o for o in function.walk() if isinstance(o, blk.ProgramIdOp) and o.axis.value.data == axis
    ]
    if same_axis != [pid] or not pid.result.has_one_use():
        return False  # another use (the offset's too): which program runs what may matter
    written = written_arguments(function)
    if _ordered_through_memory(function, loop, written, disjoint):
        return False
    _contiguous(loop, kind, pid, offset, axis)
    # Loads through one argument while the kernel writes through another.
    return disjoint and any(written) and any(isinstance(o, blk.LoadOp) for o in loop.walk())


def _contiguous(
    loop: scf.ForOp, kind: IntegerType, pid: blk.ProgramIdOp, offset: SSAValue | None, axis: int
) -> None:
    new: list[Operation] = []

    def add(op: Operation) -> SSAValue:
        op.location = loop.location
        new.append(op)
        return op.results[0]

    widened: dict[SSAValue, SSAValue] = {}

    def wide(value: SSAValue) -> SSAValue:
        if value.type == i64:
            return value
        if value not in widened:
            widened[value] = add(arith.ExtSIOp(value, i64))
        return widened[value]

    def constant(value: int, typ: IntegerType) -> SSAValue:
        return add(arith.ConstantOp(IntegerAttr(value, typ)))

    block = loop.parent_block()
    assert block is not None
    programs = None  # a num_programs of the axis before the loop, else a new one
    for o in block.ops:
        if o is loop:
            break
        if isinstance(o, blk.NumProgramsOp) and o.axis.value.data == axis:
            programs = o.result
            break
    if programs is None:
        programs = add(blk.NumProgramsOp(axis))
    ub, step, n = wide(loop.ub), wide(loop.step), wide(programs)
    count = ub if offset is None else add(arith.SubiOp(ub, wide(offset)))
    count = add(arith.MaxSIOp(count, constant(0, i64)))
    run = add(arith.DivSIOp(add(arith.SubiOp(add(arith.AddiOp(count, n)), constant(1, i64))), n))
    first = add(arith.MuliOp(wide(pid.result), run))
    if offset is not None:
        first = add(arith.AddiOp(wide(offset), first))
    first = add(arith.MinSIOp(first, ub))
    last = add(arith.MinSIOp(add(arith.AddiOp(first, run)), ub))
    if kind != i64:
        first, last = add(arith.TruncIOp(first, kind)), add(arith.TruncIOp(last, kind))
    bounds = [first, last, constant(1, kind)]
    step_owner = loop.step.owner
    conditions = []
    if not (isinstance(step_owner, blk.NumProgramsOp) and step_owner.axis.value.data == axis):
        conditions.append(add(arith.CmpiOp(step, n, "ne")))
    if offset is not None and kind != i64:
        # Some program's start wraps around (offset + pid past the type's maximum): its
        # iterations are not a share of [offset, ub), so every program keeps its own.
        highest = add(arith.AddiOp(wide(offset), add(arith.SubiOp(n, constant(1, i64)))))
        limit = constant(2 ** (kind.width.data - 1) - 1, i64)
        conditions.append(add(arith.CmpiOp(highest, limit, "sgt")))
    if conditions:
        strided = conditions[0]
        for other in conditions[1:]:
            strided = add(arith.OrIOp(strided, other))
        bounds = [
            add(arith.SelectOp(strided, old, new))
            for old, new in zip(loop.operands[:3], bounds, strict=True)
        ]
    block.insert_ops_before(new, loop)
    loop.operands = [*bounds, *loop.operands[3:]]
