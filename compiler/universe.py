"""blkc's xDSL plugin: the `blk` dialect and blkc's passes, registered lazily.

pyproject declares `blkc.universe:BLKC_UNIVERSE` under the `xdsl.universe` entry points,
so `xdsl-opt`, `blk-opt` and `Universe.get_multiverse()` all see blkc's dialect and passes.
Importing this module imports neither the dialect nor any pass module.
"""

from xdsl.universe import Universe

from blkc.dialects import DIALECTS
from blkc.passes.registry import get_all_passes

BLKC_UNIVERSE = Universe(all_dialects=dict(DIALECTS), all_passes=get_all_passes())
