"""blkc's xDSL plugin: the `blk` dialect and blkc's passes, registered lazily.

pyproject declares `blkc.universe:BLKC_UNIVERSE` under the `xdsl.universe` entry points,
so `xdsl-opt`, `blk-opt` and `Universe.get_multiverse()` all see blkc's dialect and passes.
Importing this module imports neither the dialect nor any pass module.
"""

from xdsl.ir import Dialect
from xdsl.universe import Universe

from blkc.passes.registry import get_all_passes


def _blk_dialect() -> Dialect:
    from blkc.dialects.blk import Blk

    return Blk


def _simt_dialect() -> Dialect:
    from blkc.dialects.simt import Simt

    return Simt


BLKC_UNIVERSE = Universe(
    all_dialects={"blk": _blk_dialect, "simt": _simt_dialect}, all_passes=get_all_passes()
)
