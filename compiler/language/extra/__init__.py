"""`blkc.language.extra` (``tl.extra``): Triton's `triton.language.extra`, its
`libdevice` module of math functions."""

from blkc.language.extra import libdevice

__all__ = ["libdevice"]
