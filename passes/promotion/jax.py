"""Moved to `blkc.promotion.jax`; this name is kept for existing imports."""

from blkc.promotion.jax import *  # noqa: F403
