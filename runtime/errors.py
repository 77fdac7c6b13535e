"""Exceptions a launch can raise, under the names programs written for Triton catch.

blkc reports errors in a kernel's source as `blkc.BlkcError` (also reachable as
`blkc.CompilationError` and `blkc.TritonError`, Triton's names for it). The classes here
exist so that code catching Triton's runtime exceptions imports and runs unchanged; the
CPU backend raises none of them, as it has no per-program resource limits and runs
compiled code rather than an interpreter.
"""

from __future__ import annotations

__all__ = ["InterpreterError", "OutOfResources"]


class OutOfResources(Exception):
    """A kernel needs more of a per-program resource (shared memory, registers) than the
    device has: Triton's autotuners skip such configurations."""

    def __init__(self, required: int, limit: int, name: str):
        self.required, self.limit, self.name = required, limit, name
        super().__init__(f"out of resource: {name}, required: {required}, hardware limit: {limit}")


class InterpreterError(RuntimeError):
    """An error raised while Triton's interpreter runs a kernel. blkc compiles instead of
    interpreting, so its errors are `BlkcError`s; nothing raises this class."""
