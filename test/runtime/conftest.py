"""Helpers of the runtime tests: blk IR text to a strict module, and running it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from xdsl.dialects.builtin import ModuleOp

import blkc
from blkc.runtime import interpreter


def strict_module(text: str, filename: str = "kernel.mlir") -> ModuleOp:
    """Parse blk IR (loose or strict) and make it strict, as the frontends' IR is."""
    return blkc.run_pipeline(blkc.parse(text, filename), "to-strict{warn=false}")


@pytest.fixture
def make_strict() -> Callable[[str], ModuleOp]:
    """`strict_module`, for tests that look at the module or run it several times."""
    return strict_module


@pytest.fixture
def run_blk() -> Callable[..., None]:
    """``run_blk(text, grid, *args, kernel=None)``: make `text` strict and interpret it."""

    def run(text: str, grid: tuple[int, ...], *args: object, kernel: str | None = None) -> None:
        interpreter.run(strict_module(text), kernel, grid, list(args))

    return run
