"""`to-strict{policy=P}`: loose blk IR to strict blk IR, as one named pipeline.

Runs `promote-types{policy=P explain=E}`, `insert-broadcasts`, `warn-lossy-casts` (unless
`warn=false`) and `blk-verify-strict`, in that order.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from blkc.passes.insert_broadcasts import InsertBroadcastsPass
from blkc.passes.promote_types import PromoteTypesPass
from blkc.passes.verify_strict import VerifyStrictPass
from blkc.passes.warn_lossy_casts import WarnLossyCastsPass


@dataclass(frozen=True)
class ToStrictPipeline(ModulePass):
    """Make the implicit explicit: promotion casts, broadcasts, lossy-cast warnings, check."""

    name = "to-strict"

    policy: str | None = None
    explain: bool = False
    warn: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        passes: list[ModulePass] = [
            PromoteTypesPass(policy=self.policy, explain=self.explain),
            InsertBroadcastsPass(),
        ]
        if self.warn:
            passes.append(WarnLossyCastsPass())
        passes.append(VerifyStrictPass())
        for module_pass in passes:
            module_pass.apply(ctx, op)
