"""blkc."""

from typing import Any


def __getattr__(name: str) -> Any:
    """`driver` on first use, as Triton programs read `triton.runtime.driver.active`."""
    if name == "driver":
        from importlib import import_module

        return import_module("blkc.runtime.driver")
    raise AttributeError(f"module 'blkc.runtime' has no attribute {name!r}")
