"""Kernels travel: `@blkc.jit` kernels pickle by module and name where they can be imported
so, else by value with their source; compiled code never travels."""

from __future__ import annotations

import copy
import importlib
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def scale(x_ptr, out_ptr, n, FACTOR: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)


def test_an_importable_kernel_pickles_by_name() -> None:
    assert pickle.loads(pickle.dumps(scale)) is scale
    x = numpy.arange(10, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    scale[(1,)](x, out, 10, FACTOR=3, BLOCK=16)  # compiled code does not stop a pickle
    assert pickle.loads(pickle.dumps(scale)) is scale


MODULE = """
import blkc
import blkc.language as tl

OFFSET = tl.constexpr({offset})


@blkc.jit
def shift(x_ptr, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) + OFFSET, mask=o < n)
"""


def test_another_process_unpickles_and_launches(tmp_path: Path) -> None:
    (tmp_path / "shipped_kernels.py").write_text(MODULE.format(offset=5))
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("shipped_kernels")
        payload = pickle.dumps(module.shift)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("shipped_kernels", None)
    worker = textwrap.dedent(
        f"""
        import pickle, sys, numpy
        sys.path.insert(0, {str(tmp_path)!r})
        kernel = pickle.loads({payload!r})
        x = numpy.arange(4, dtype=numpy.int32)
        kernel[(1,)](x, 4, BLOCK=4)
        print(x.tolist())
        """
    )
    result = subprocess.run([sys.executable, "-c", worker], capture_output=True, text=True)
    assert result.stdout.strip() == "[5, 6, 7, 8]", result.stderr


LOCAL = """
import blkc
import blkc.language as tl


def make():
    @blkc.jit
    def shift(x_ptr, n, BLOCK: tl.constexpr):
        o = tl.arange(0, BLOCK)
        tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) + 5, mask=o < n)

    return shift
"""


def test_a_kernel_that_cannot_be_imported_travels_with_its_source(tmp_path: Path) -> None:
    """A kernel no module names (made in a function, or in __main__) pickles its function
    by value (cloudpickle does that) with its source: rebuilt where the file says
    something else, or is gone, it compiles what was sent."""
    path = tmp_path / "local_kernels.py"
    path.write_text(LOCAL)
    sys.path.insert(0, str(tmp_path))
    try:
        kernel = importlib.import_module("local_kernels").make()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("local_kernels", None)
    rebuild, args = kernel.__reduce__()
    path.write_text("# the file changed since\n")
    travelled = rebuild(*args)
    assert travelled is not kernel and travelled.__name__ == "shift"
    x = numpy.arange(4, dtype=numpy.int32)
    travelled[(1,)](x, 4, BLOCK=4)
    assert x.tolist() == [5, 6, 7, 8]
    assert copy.deepcopy(travelled).src == travelled.src


@blkc.jit
def broken(x_ptr):
    tl.store(x_ptr, tl.lod(x_ptr))  # a typo, reported where it was written


def test_errors_of_a_rebuilt_kernel_name_the_original_file() -> None:
    from blkc.frontend.python import function_source
    from blkc.jitfunction import _rebuild_kernel

    lines, first, filename = function_source(broken.fn)
    travelled = _rebuild_kernel(broken.fn, lines, first, filename, {})
    with pytest.raises(blkc.BlkcError, match="has no attribute 'lod'") as info:
        travelled.warmup(numpy.zeros(1, numpy.float32))
    assert f"{__file__}:{first + 2}:" in str(info.value)
