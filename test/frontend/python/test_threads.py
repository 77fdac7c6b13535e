"""Kernels compiled from several threads at once (Dask's threaded scheduler does this):
every thread gets the right result, a variant compiles once, and parsing kernel source
survives thread switches in the middle of building an AST."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.frontend.source import parse_function, replace_source

InThreads = Callable[[int, Callable[[int], Any]], list[Any]]


@pytest.fixture
def switching_threads() -> Iterator[None]:
    """Let the garbage collector run often and switch threads each time it does: a thread
    switch can then fall inside the C code that builds an AST."""
    threshold = gc.get_threshold()

    def switch(phase: str, info: dict[str, int]) -> None:
        time.sleep(0)

    gc.set_threshold(10, 1, 1)
    gc.callbacks.append(switch)
    try:
        yield
    finally:
        gc.callbacks.remove(switch)
        gc.set_threshold(*threshold)


def _kernel_source() -> Callable[..., Any]:
    def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.where(x > 0, x * factor, (x - 1.0) * factor) + tl.sum(x, axis=0) * 0
        tl.store(out_ptr + offsets, y, mask=mask)

    return scale


def test_threads_parse_kernels_at_once(switching_threads: None, in_threads: InThreads) -> None:
    # Long kernels, each its own function object (parsed once each).
    body = "".join(
        f"    y{i} = tl.where(x > {i}, x * {i}, (x - 1.0) // {i + 1})\n" for i in range(150)
    )
    source = "def long_kernel(x):\n" + body + "    return y0\n"
    functions = [_kernel_source() for _ in range(24)]
    for function in functions:
        replace_source(function, source)
    trees = in_threads(4, lambda i: [parse_function(f).tree for f in functions[i::4]])
    assert [len(tree.body) for parsed in trees for tree in parsed] == [151] * 24


def test_threads_launching_a_new_variant_compile_it_once(in_threads: InThreads) -> None:
    kernel = blkc.jit(_kernel_source())
    block, n = 128, 1000
    x = numpy.linspace(-3, 3, n, dtype=numpy.float32)

    def launch(i: int) -> numpy.ndarray:
        out = numpy.zeros(n, numpy.float32)
        kernel[(blkc.cdiv(n, block),)](x, out, n, float(i + 1), BLOCK=block)
        return out

    outs = in_threads(4, launch)
    for i, out in enumerate(outs):
        expected = numpy.where(x > 0, x * (i + 1), (x - 1) * (i + 1))
        numpy.testing.assert_allclose(out, expected, rtol=1e-6)
    assert kernel.builds == 1  # the tests' cache folder is new for each session
