"""The native pool's module is compiled once per machine and environment: a process whose
disk cache holds its object code loads it (no LLVM IR parsed, no code generation) and the
pool it starts runs jobs."""

from __future__ import annotations

import ctypes
import platform
from pathlib import Path

import numpy
import pytest
from test_native_pool import COUNTER  # a packed launcher counting the programs it runs

from blkc.runtime import cache, jit, launch, native_pool

pytestmark = pytest.mark.skipif(
    not native_pool.available() or launch.cores() < 2, reason="needs the native pool"
)


def _no_compiling(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the pool's module was compiled again")


def test_a_pool_started_from_the_disk_cache_runs_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = jit.compile_ir(COUNTER, 2)
    monkeypatch.setenv("BLKC_CACHE_DIR", str(tmp_path))
    compiled = native_pool.compiled_module(platform.machine())
    assert compiled.object_code and list(tmp_path.glob("*/pool.o"))
    monkeypatch.setattr(jit, "compile_ir", _no_compiling)
    pool = native_pool._Pool(1)
    try:
        assert pool.module.object_code == compiled.object_code
        marks = numpy.zeros(300, numpy.int32)
        argv = native_pool.pack_arguments([ctypes.c_void_p(marks.ctypes.data)])
        count = counter.address("count")
        for seats in (0, 1):
            pool.run(count, ctypes.addressof(argv), None, 300, 8, 300, 1, 1, seats)
            assert (marks == 1).all()
            marks[:] = 0
    finally:
        pool.close()


def test_another_environment_compiles_the_pool_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A changed blkc, llvmlite or host CPU (the environment every key holds) compiles
    the pool's module again, as it does kernels."""
    monkeypatch.setenv("BLKC_CACHE_DIR", str(tmp_path))
    native_pool.compiled_module(platform.machine())
    compiles = []
    compile_ir = jit.compile_ir

    def counted(*args: object, **kwargs: object) -> jit.CompiledModule:
        compiles.append(args)
        return compile_ir(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(jit, "compile_ir", counted)
    native_pool.compiled_module(platform.machine())
    assert compiles == []
    cache._environment.cache_clear()
    monkeypatch.setattr(cache, "_compiler_source", lambda: "another compiler")
    try:
        native_pool.compiled_module(platform.machine())
    finally:
        cache._environment.cache_clear()
    assert len(compiles) == 1
    assert len(list(tmp_path.glob("*/pool.o"))) == 2
