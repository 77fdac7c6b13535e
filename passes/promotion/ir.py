"""Moved to `blkc.dialects.promotion`; this name is kept for existing imports."""

from blkc.dialects.promotion import decide, module_policy, operand_of, result_type

__all__ = ["decide", "module_policy", "operand_of", "result_type"]
