"""Moved to `blkc.promotion`, the semantic layer; this name is kept for existing imports.

>>> from blkc.passes.promotion import result_type
>>> result_type("int16", 4.0)
'float32'
"""

from blkc.promotion import (
    POLICIES,
    BroadcastError,
    PromotionError,
    broadcast_shapes,
    canonical_name,
    default_policy,
    get_policy,
    result_type,
    set_default_policy,
)

__all__ = [
    "POLICIES",
    "BroadcastError",
    "PromotionError",
    "broadcast_shapes",
    "canonical_name",
    "default_policy",
    "get_policy",
    "result_type",
    "set_default_policy",
]
