"""Moved to `blkc.promotion.array_api`; this name is kept for existing imports."""

from blkc.promotion.array_api import *  # noqa: F403
