"""Moved to `blkc.promotion.torch`; this name is kept for existing imports."""

from blkc.promotion.torch import *  # noqa: F403
