"""Moved to `blkc.promotion.triton`; this name is kept for existing imports."""

from blkc.promotion.triton import *  # noqa: F403
