"""blkc's dialects: `blk` (block programs) and `simt` (one thread's share of a block).

`context()` builds an xDSL context knowing them and every dialect of xDSL, for whatever
parses IR text (the pipeline, the kernel cache).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.ir import Dialect


def _blk() -> Dialect:
    from blkc.dialects.blk import Blk

    return Blk


def _simt() -> Dialect:
    from blkc.dialects.simt import Simt

    return Simt


DIALECTS: dict[str, Callable[[], Dialect]] = {"blk": _blk, "simt": _simt}
"""blkc's dialects by name, each imported on first use."""


def context(*, allow_unregistered: bool = False) -> Context:
    """A context knowing every dialect of xDSL and blkc (each loaded on first use)."""
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects

    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in {**get_all_dialects(), **DIALECTS}.items():
        ctx.register_dialect(name, factory)
    return ctx


def __dir__() -> list[str]:
    """The dialect modules (imported on first use) and this package's names."""
    import pkgutil

    return sorted({"DIALECTS", "context"} | {m.name for m in pkgutil.iter_modules(__path__)})
