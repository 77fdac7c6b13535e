"""`blkc.set_allocator`: where kernels that need scratch memory would get it.

Triton calls a user-set allocator at launch for kernels that need global scratch memory
(tensor descriptors built on the device, profiling buffers). blkc's CPU kernels allocate
their scratch on the stack or the heap themselves, so the allocator is recorded, for
programs that set it before launching, and not called.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

Allocator = Callable[[int, int, Any], Any]

_allocator: ContextVar[Allocator | None] = ContextVar("blkc_allocator", default=None)


def set_allocator(allocator: Allocator | None) -> None:
    """Sets the allocator, a callable ``(size, alignment, stream) -> buffer``, for the
    current context (thread or task), as Triton's ``triton.set_allocator``; None unsets it.
    """
    if allocator is not None and not callable(allocator):
        raise TypeError(
            f"set_allocator takes a callable (size, alignment, stream) -> buffer, "
            f"not {type(allocator).__name__}"
        )
    _allocator.set(allocator)


def get_allocator() -> Allocator | None:
    """The allocator `set_allocator` set in this context, or None."""
    return _allocator.get()
