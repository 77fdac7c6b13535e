"""Kernels travel: `@blkc.jit` kernels pickle by module and name where they can be imported
so, else by value with their source; `blkc.Kernel`s and Triton-C kernels by their IR text
and options; compiled code never travels."""

from __future__ import annotations

import copy
import importlib
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import cloudpickle
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


EXAMPLES = Path(__file__).parents[3] / "examples"


@blkc.autotune(configs=[blkc.Config({"BLOCK": 16}), blkc.Config({"BLOCK": 32})], key=["n"])
@blkc.jit
def tuned(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) + 1, mask=o < n)


@blkc.heuristics({"BLOCK": lambda args: 16})
@blkc.jit
def guided(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) + 1, mask=o < n)


def test_autotuned_and_heuristic_kernels_travel_with_cloudpickle() -> None:
    """cloudpickle (Dask's fallback when pickle refuses) sends them by value: their
    function's source and configurations, compiled where they arrive."""
    for kernel in (tuned, guided):
        travelled = cloudpickle.loads(cloudpickle.dumps(kernel))
        assert travelled is not kernel and type(travelled) is type(kernel)
        x = numpy.arange(40, dtype=numpy.int32)
        out = numpy.zeros_like(x)
        travelled[lambda meta: (blkc.cdiv(40, meta["BLOCK"]),)](x, out, 40)
        assert out.tolist() == list(range(1, 41))


def _compiled_kernels() -> dict[str, Any]:
    import blkc.triton_c

    ir = blkc.compile((EXAMPLES / "vector_add.mlir").read_text())
    tc = blkc.triton_c.compile(EXAMPLES / "triton_c" / "vector_add.tc", defines={"TM": [64, 128]})
    return {"compile": ir, "triton_c": tc["vector_add"]}


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_compiled_and_triton_c_kernels_pickle_without_native_code(dumps: Any) -> None:
    """A blkc.Kernel travels as its description (IR text at each stage, parameters,
    options): unpickled in the same process it is the kernel cached under its key."""
    for kind, kernel in _compiled_kernels().items():
        x = numpy.ones(64, numpy.float32)
        out = numpy.zeros_like(x)
        kernel[(1,)](x, x, out, 64)  # its native code exists now, and stays behind
        payload = dumps(kernel)
        assert b"ELF" not in payload, kind
        travelled = pickle.loads(payload)
        out[:] = 0
        travelled[(1,)](x, x, out, 64)
        assert out.tolist() == [2.0] * 64, kind
    compiled = _compiled_kernels()["compile"]
    assert pickle.loads(dumps(compiled)) is compiled


def test_compiled_kernels_launch_in_a_process_with_an_empty_cache(tmp_path: Path) -> None:
    """Unpickled where no cache holds them, the kernels generate their native code from
    the IR they carry (a blkc.Kernel without importing the compiler: no xDSL), and a tuned
    Triton-C kernel keeps its choices."""
    kernels = _compiled_kernels()
    tc = kernels["triton_c"]
    x = numpy.ones(1000, numpy.float32)
    tc[lambda meta: (blkc.cdiv(1000, meta["TM"]),)](x, x, numpy.zeros_like(x), 1000)
    worker = textwrap.dedent(
        """
        import pickle, sys, numpy
        import blkc
        x = numpy.arange(1000, dtype=numpy.float32)
        for name in ("compile", "triton_c"):
            kernel = pickle.load(sys.stdin.buffer)
            out = numpy.zeros_like(x)
            kernel[(blkc.cdiv(1000, 64),)](x, x, out, 1000)
            print(name, bool((out == 2 * x).all()), "xdsl" in sys.modules)
        print("chosen", len(kernel.chosen))
        """
    )
    env = {**os.environ, "BLKC_CACHE_DIR": str(tmp_path)}
    payload = pickle.dumps(kernels["compile"]) + pickle.dumps(tc)
    result = subprocess.run([sys.executable, "-c", worker], input=payload, capture_output=True,
                            env=env)  # fmt: skip
    lines = result.stdout.decode().split("\n")
    assert lines[0] == "compile True False", result.stderr.decode()
    assert lines[1].startswith("triton_c True ") and lines[2] == f"chosen {len(tc.chosen)}"
