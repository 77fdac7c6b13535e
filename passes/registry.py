"""The passes blkc adds to xDSL's, by flag name, imported only when used.

Each value is a factory returning the pass class, so that building the registry (which
every `blk-opt` start does) imports no pass module; start-up time dominates a lit suite.
"""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

_PASSES: dict[str, str] = {
    "promote-types": "blkc.passes.promote_types:PromoteTypesPass",
    "insert-broadcasts": "blkc.passes.insert_broadcasts:InsertBroadcastsPass",
    "blk-verify-strict": "blkc.passes.verify_strict:VerifyStrictPass",
    "warn-lossy-casts": "blkc.passes.warn_lossy_casts:WarnLossyCastsPass",
    "to-strict": "blkc.passes.to_strict:ToStrictPipeline",
    "contiguous-persistent-loops": (
        "blkc.passes.contiguous_persistent_loops:ContiguousPersistentLoopsPass"
    ),
    "carry-pointer-offsets": "blkc.passes.carry_pointer_offsets:CarryPointerOffsetsPass",
    "convert-blk-to-loops": "blkc.passes.convert_blk_to_loops:ConvertBlkToLoopsPass",
    "prefetch-next-iteration": "blkc.passes.prefetch_next_iteration:PrefetchNextIterationPass",
    "lower-int-semantics": "blkc.passes.lower_int_semantics:LowerIntSemanticsPass",
    "emulate-small-floats": "blkc.passes.emulate_small_floats:EmulateSmallFloatsPass",
    "convert-blk-to-simt": "blkc.passes.convert_blk_to_simt:ConvertBlkToSimtPass",
    "convert-simt-to-thread-loops": (
        "blkc.passes.convert_simt_to_thread_loops:ConvertSimtToThreadLoopsPass"
    ),
}


def _factory(target: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        module, cls = target.split(":")
        return getattr(import_module(module), cls)

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Return blkc's passes by flag name, as lazy factories."""
    return {name: _factory(target) for name, target in _PASSES.items()}
