"""What a warm start needs: a new process whose kernel is in the disk cache computes the
key from the source, loads the stored object code and launches; it imports no part of the
compiler, parses no LLVM IR and runs no LLVM pass."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.backends import TargetOptions
from blkc.frontend.source import function_source, parse_function
from blkc.runtime import elf_loader, fast_launch, jit, launch, native_pool
from blkc.runtime.jit import UnresolvedSymbolError, load_object

KERNELS = """
import blkc
import blkc.language as tl


@blkc.constexpr_function
def block_of(block):  # its source is part of the key, read when the process starts
    return block


@blkc.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * block_of(BLOCK) + tl.arange(0, BLOCK)
    m = o < n
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)
"""

LAUNCH = """
import json, sys
import numpy
from warm_kernels import add

n, launches = int(sys.argv[1]), int(sys.argv[2])
x = numpy.arange(n, dtype=numpy.float32)
for _ in range(launches):  # the second builds the launch stub the third runs through
    out = numpy.zeros_like(x)
    add[((n + 1023) // 1024,)](x, x + 1, out, n, BLOCK=1024)
    assert (out == 2 * x + 1).all()
print(json.dumps({"modules": sorted(sys.modules), "stubs": len(add._fast)}))
"""

SMALL = 2000
"""Elements of a launch on the calling thread (24 KB in all)."""
LARGE = 100_000
"""Elements of a launch on the native pool, where the process has one (1.2 MB)."""

NOT_NEEDED = (
    "xdsl",  # the IR, its parser and printer
    "blkc.dialects",
    "blkc.passes",
    "blkc.pipeline",
    "blkc.frontend.python",  # the frontend's code generator
    "blkc.frontend.builder",
    "blkc.runtime.llvm_emitter",  # LLVM IR generation
    "blkc.runtime.llvm_codegen",
    "blkc.runtime.fast_launch",  # launch stubs: built at a second launch
    "torch",  # NumPy arrays need no torch probe
    "concurrent.futures",  # the thread pool: a small launch runs on the calling thread
    "importlib.metadata",  # the versions in the key are read from their metadata files
    "email",  # (what importlib.metadata parses them with)
    "ctypes.util",  # libm is found by its name (find_library runs ldconfig)
    *(("llvmlite",) if elf_loader.supported() else ()),  # cached objects load without LLVM
)


def _launch(folder: Path, elements: int = SMALL, launches: int = 1) -> dict[str, Any]:
    path = os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "BLKC_CACHE_DIR": str(folder / "cache"), "PYTHONPATH": path}
    result = subprocess.run(
        [sys.executable, "-c", LAUNCH, str(elements), str(launches)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _needless(modules: list[str]) -> list[str]:
    return [m for m in modules if m.split(".")[0] == "torch" or m.startswith(NOT_NEEDED)]


def test_a_cache_hit_in_a_new_process_imports_parses_and_optimizes_nothing(tmp_path: Path):
    (tmp_path / "warm_kernels.py").write_text(KERNELS)
    cold = _launch(tmp_path)
    assert "blkc.runtime.llvm_codegen" in cold["modules"]  # the first process compiles
    assert "llvmlite.binding" in cold["modules"]  # with LLVM
    warm = _launch(tmp_path)
    assert _needless(warm["modules"]) == []


@pytest.mark.skipif(
    not native_pool.available() or launch.cores() < 2, reason="needs the native pool"
)
def test_a_cache_hit_large_enough_for_the_pool_loads_the_pools_code_too(tmp_path: Path):
    """The native pool's module is cached as kernels are: a warm process starting the
    pool compiles nothing either."""
    (tmp_path / "warm_kernels.py").write_text(KERNELS)
    cold = _launch(tmp_path, LARGE)
    assert "blkc.runtime.llvm_codegen" in cold["modules"]  # the first process compiles
    warm = _launch(tmp_path, LARGE)
    assert "blkc.runtime.native_pool" in warm["modules"]
    assert _needless(warm["modules"]) == []


@pytest.mark.skipif(
    not fast_launch.available() or not elf_loader.supported(), reason="needs launch stubs"
)
def test_a_warm_process_builds_its_launch_stubs_from_the_cache_too(tmp_path: Path):
    """A launch stub's object code is cached under its IR text: a new process builds the
    stub of a cached kernel without LLVM."""
    (tmp_path / "warm_kernels.py").write_text(KERNELS)
    cold = _launch(tmp_path, launches=3)
    assert cold["stubs"] == 1 and "llvmlite.binding" in cold["modules"]
    warm = _launch(tmp_path, launches=3)
    assert warm["stubs"] == 1 and "blkc.runtime.fast_launch" in warm["modules"]
    assert "llvmlite.binding" not in warm["modules"]


def test_loading_refuses_code_that_calls_a_function_this_process_lacks() -> None:
    ir = 'declare void @"blkc_nowhere"(ptr)\ndeclare float @llvm.fabs.f32(float)\n'
    with pytest.raises(UnresolvedSymbolError, match="blkc_nowhere") as info:
        load_object("; ModuleID = 'k'\n" + ir, b"")
    assert "fabs" not in str(info.value)  # intrinsics are LLVM's own


@blkc.jit
def doubled(x_ptr, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o, mask=o < n)
    tl.device_assert(x >= 0, "a negative input")
    tl.store(x_ptr + o, x * 2, mask=o < n)


def test_a_kernel_loaded_from_object_code_runs_and_reports(monkeypatch: pytest.MonkeyPatch):
    """Rebuilt from its description, a kernel takes its code from the disk cache: the
    object code links to the runtime (`blkc_assert_fail`), and nothing is compiled."""
    x = numpy.arange(10, dtype=numpy.float32)
    compiled = doubled.warmup(x, 10, BLOCK=16)
    assert "blkc_assert_fail" in compiled.asm["llvm"]
    fresh = blkc.Kernel.from_meta(compiled.to_meta(), TargetOptions("cpu"), compiled.cache_key)

    def compile_ir(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a cache hit compiled LLVM IR")

    monkeypatch.setattr(jit, "compile_ir", compile_ir)
    fresh[(1,)](x, 10)
    assert x.tolist() == [2.0 * i for i in range(10)]
    assert "doubled__grid" in fresh.asm["asm"]
    x[3] = -1
    with pytest.raises(AssertionError, match="a negative input"):
        fresh[(1,)](x, 10)


def deco(*_args: object) -> object:
    return lambda f: f


# fmt: off
@deco(
    1,
)
def decorated(x):  # noqa: ANN001, ANN201
    return (x +
            1)
    # a comment of the body, kept

  # a comment at another depth: not the function's
# fmt: on


def ends_in_pass(x):  # noqa: ANN001, ANN201
    if x:
        return 1
    else:
        pass


def docstring_only():  # noqa: ANN201
    """Nothing else."""


class Holder:
    @staticmethod
    def nested(x):  # noqa: ANN001, ANN205
        def inner(q):  # noqa: ANN001, ANN202
            return q

        return inner(
            x,
        )

    def one_line(self): return 1  # noqa: ANN001, ANN201, E704  # fmt: skip


@pytest.mark.parametrize(
    "fn", [decorated, ends_in_pass, docstring_only, Holder.nested, Holder.one_line]
)
def test_a_kernel_source_is_read_as_inspect_reads_it(fn: object) -> None:
    """The key's source is read without inspect's tokenizer, to the same lines."""
    lines, first, filename = function_source(fn)  # type: ignore[arg-type]
    assert (lines, first) == inspect.getsourcelines(fn)  # type: ignore[arg-type]
    assert filename == inspect.getsourcefile(fn)  # type: ignore[arg-type]


def margin_string(x):  # noqa: ANN001, ANN201
    x.append(1)
    """
a string going on at the left margin"""


def test_a_definition_ending_in_a_string_at_the_margin_is_read_whole() -> None:
    body = parse_function(margin_string).tree.body
    assert len(body) == 2 and "left margin" in body[1].value.value  # type: ignore[attr-defined]


def test_a_kernel_without_a_source_file_is_a_located_error() -> None:
    namespace: dict[str, object] = {}
    exec(textwrap.dedent("def made(x_ptr):\n    pass\n"), namespace)  # noqa: S102
    with pytest.raises(blkc.BlkcError, match="cannot read the source of kernel 'made'"):
        parse_function(namespace["made"])  # type: ignore[arg-type]
