"""Moved to `blkc.promotion.base`; this name is kept for existing imports."""

from blkc.promotion.base import *  # noqa: F403
