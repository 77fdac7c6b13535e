"""Moved to `blkc.promotion.triton_compat`; this name is kept for existing imports."""

from blkc.promotion.triton_compat import *  # noqa: F403
