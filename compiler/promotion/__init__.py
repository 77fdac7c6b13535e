"""Promotion policies: how operands of different dtypes meet, library by library.

`result_type` and `broadcast_shapes` under a chosen policy, and the policies themselves
(`get_policy`), one module each over the reference tables in `tables/`:

>>> import blkc.promotion
>>> blkc.promotion.result_type("int32", "uint32")
'uint32'
>>> blkc.promotion.result_type("int16", 4.0)
'float32'
>>> blkc.promotion.result_type("int16", 4.0, policy="numpy")
'float64'
>>> blkc.promotion.broadcast_shapes((16, 1), (32,))
(16, 32)

This is blkc's semantic layer, beneath the dialect: it knows dtypes, not IR.
"""

from __future__ import annotations

import os
from importlib import import_module
from typing import TYPE_CHECKING

from blkc.broadcasting import BroadcastError, broadcast_shapes

if TYPE_CHECKING:
    from blkc.dtypes import DType
    from blkc.promotion.base import Policy, PromotionError, Scalar

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

POLICIES: dict[str, str] = {
    "triton": "blkc.promotion.triton:TritonPolicy",
    "triton-compat": "blkc.promotion.triton_compat:TritonCompatPolicy",
    "numpy": "blkc.promotion.numpy:NumpyPolicy",
    "jax": "blkc.promotion.jax:JaxPolicy",
    "torch": "blkc.promotion.torch:TorchPolicy",
    "array_api": "blkc.promotion.array_api:ArrayApiPolicy",
}
"""Every policy by name, imported on first use."""

_instances: dict[str, Policy] = {}

_setting: list[str | None] = [None]
"""The process-wide policy `set_default_policy` chose (None: `$BLKC_POLICY`, else triton),
as the one element of a list that `policy_setting_cell` hands out."""


def set_default_policy(name: str | None) -> None:
    """Choose the policy of every kernel, launch and module that names none (``None``
    goes back to ``$BLKC_POLICY``, else ``triton``). Compiled kernels key on the policy
    they were compiled under, so a change takes effect at the next launch."""
    _setting[0] = None if name is None else canonical_name(name)


def policy_setting() -> str | None:
    """What `set_default_policy` set (None: nothing), without reading the environment."""
    return _setting[0]


def policy_setting_cell() -> list[str | None]:
    """The one-element list whose element is `policy_setting()`, always the same list: a
    launch stub's guard reads ``cell[0]``, cheaper from cold caches than a call."""
    return _setting


def default_policy() -> str:
    """The policy used where none is named: `set_default_policy`'s choice, else the
    environment variable ``BLKC_POLICY``, else ``triton``."""
    if _setting[0] is not None:
        return _setting[0]
    configured = os.environ.get("BLKC_POLICY")
    if not configured:
        return "triton"
    try:
        return canonical_name(configured)
    except ValueError as err:
        raise ValueError(f"BLKC_POLICY: {err}") from None


def canonical_name(name: str) -> str:
    """The policy's name as `POLICIES` spells it (``array-api`` and ``triton_compat`` are
    accepted too); `ValueError` for an unknown name."""
    for known in POLICIES:
        if name.replace("_", "-") == known.replace("_", "-"):
            return known
    raise ValueError(f"unknown promotion policy '{name}'; known policies: {', '.join(POLICIES)}")


def get_policy(name: str) -> Policy:
    """The policy named `name`."""
    key = canonical_name(name)
    if key not in _instances:
        module, cls = POLICIES[key].split(":")
        _instances[key] = getattr(import_module(module), cls)()
    return _instances[key]


def result_type(*operands: DType | str | Scalar, policy: str = "triton") -> str:
    """The dtype name `operands` promote to under `policy`.

    An operand is a dtype (``"int32"``, a `blkc.dtypes.DType`) standing for a block of that
    dtype, or a Python scalar (``True``, ``3``, ``2.5``, ``1j``) standing for a weak
    literal. Raises `PromotionError` (a `TypeError`) when the policy refuses them.
    """
    from blkc.dtypes import DType
    from blkc.promotion.base import Operand

    if not operands:
        raise TypeError("result_type() needs at least one operand")
    converted = [
        Operand.typed(o) if isinstance(o, str | DType) else Operand.literal(o) for o in operands
    ]
    return get_policy(policy).result_type(converted).name


def __getattr__(name: str) -> type:
    if name == "PromotionError":
        from blkc.promotion.base import PromotionError

        return PromotionError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
