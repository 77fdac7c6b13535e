"""`blk-verify-strict`: fail, located, on anything implicit left in the IR.

Strict IR is what the backends take; `blkc.dialects.strict` says what it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from blkc.diagnostics import error_at
from blkc.dialects.strict import strict_problem

_FIX = {
    "dtype": "run promote-types",
    "shape": "run insert-broadcasts",
    "attribute": "run promote-types",
}


@dataclass(frozen=True)
class VerifyStrictPass(ModulePass):
    """Check that the module is strict blk IR; change nothing."""

    name = "blk-verify-strict"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nested in op.walk():
            problem = strict_problem(nested)
            if problem is not None:
                message, fix = problem
                raise error_at(nested, f"is not strict: {message} ({_FIX[fix]})")
