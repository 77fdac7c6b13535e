"""Moved to `blkc.promotion.numpy`; this name is kept for existing imports."""

from blkc.promotion.numpy import *  # noqa: F403
