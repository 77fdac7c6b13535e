"""Public promotion API: `result_type` and `broadcast_shapes` under a chosen policy.

>>> import blkc.promotion
>>> blkc.promotion.result_type("int32", "uint32")
'uint32'
>>> blkc.promotion.broadcast_shapes((16, 1), (32,))
(16, 32)
"""

from blkc.broadcasting import BroadcastError, broadcast_shapes
from blkc.passes.promotion import (
    POLICIES,
    default_policy,
    get_policy,
    result_type,
    set_default_policy,
)
from blkc.passes.promotion.base import PromotionError

__all__ = [
    "POLICIES",
    "BroadcastError",
    "PromotionError",
    "broadcast_shapes",
    "default_policy",
    "get_policy",
    "result_type",
    "set_default_policy",
]
