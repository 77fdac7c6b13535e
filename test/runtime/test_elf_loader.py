"""Object code loaded without LLVM (`blkc.runtime.elf_loader`): code, constants and
writable data placed and relocated, symbols resolved in the process; anything it does not
handle is refused, and `load_module` then loads through LLVM."""

from __future__ import annotations

import ctypes
import struct

import pytest

from blkc.runtime import elf_loader, jit
from blkc.runtime.elf_loader import DamagedObject, UnsupportedObject, load, load_module

pytestmark = pytest.mark.skipif(not elf_loader.supported(), reason="x86-64 Linux only")

IR = """
@table = internal constant [4 x double] [double 1.5, double 2.5, double 3.5, double 4.5]
@counter = internal global i64 0
@start = global i64 40

declare double @cos(double)

define double @pick(i64 %i) {
  %p = getelementptr [4 x double], ptr @table, i64 0, i64 %i
  %v = load volatile double, ptr %p
  %c = call double @cos(double %v)
  ret double %c
}

define i64 @bump(i64 %by) {
  %old = load volatile i64, ptr @counter
  %base = load volatile i64, ptr @start
  %new = add i64 %old, %by
  store volatile i64 %new, ptr @counter
  %sum = add i64 %new, %base
  ret i64 %sum
}
"""


def _compiled() -> jit.CompiledModule:
    compiled = jit.compile_ir(IR, 2)
    assert compiled.object_code is not None
    return compiled


def test_code_constants_and_globals_load_and_run() -> None:
    import math

    compiled = _compiled()
    loaded = load(compiled.object_code)  # type: ignore[arg-type]
    pick = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_int64)(loaded.address("pick"))
    assert [pick(i) for i in range(4)] == [math.cos(v) for v in (1.5, 2.5, 3.5, 4.5)]
    bump = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(loaded.address("bump"))
    assert [bump(1), bump(2), bump(10)] == [41, 43, 53]  # its own, writable globals
    again = load(compiled.object_code)  # type: ignore[arg-type]
    bump_again = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(again.address("bump"))
    assert bump_again(5) == 45  # each load has its own copy
    with pytest.raises(KeyError, match="nowhere"):
        loaded.address("nowhere")


def test_what_it_does_not_load_is_refused() -> None:
    code = _compiled().object_code
    assert code is not None
    with pytest.raises(DamagedObject, match="not an ELF"):
        load(b"\0" * 100)
    with pytest.raises(UnsupportedObject, match="x86-64 relocatable"):
        load(code[:16] + struct.pack("<H", 3) + code[18:])  # a shared object
    with pytest.raises(UnsupportedObject, match="'cos'"):
        load(code, resolve=lambda name: None)
    with pytest.raises(DamagedObject, match="section table"):
        load(code[:200])


def test_objects_that_need_more_than_placing_go_to_llvm() -> None:
    """Static constructors: MCJIT's loader takes them."""
    constructed = (
        IR
        + """
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }]
    [{ i32, ptr, ptr } { i32 65535, ptr @setup, ptr null }]
define internal void @setup() {
  store volatile i64 7, ptr @counter
  ret void
}
"""
    )
    code = jit.object_code(constructed, 2)
    with pytest.raises(UnsupportedObject, match="run at load"):
        load(code)
    module = load_module(constructed, code)
    assert isinstance(module, jit.CompiledModule)
    bump = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(module.address("bump"))
    assert bump(1) == 41
    # Thread-local data is refused, and never handed to MCJIT, which aborts on it.
    threaded = IR.replace("@counter = internal global", "@counter = internal thread_local global")
    with pytest.raises(DamagedObject, match="thread-local"):
        load_module(threaded, jit.object_code(threaded, 2))


def test_load_module_falls_back_to_llvm() -> None:
    compiled = _compiled()
    native = load_module(compiled.llvm_ir, compiled.object_code)  # type: ignore[arg-type]
    assert isinstance(native, elf_loader.NativeModule)
    assert "pick:" in native.assembly()
    # An object this loader refuses (a symbol only LLVM's own table knows) goes to LLVM.
    elf_loader_symbols = elf_loader._RUNTIME_SYMBOLS
    try:
        elf_loader._RUNTIME_SYMBOLS = {}
        text = IR.replace("@cos(", "@blkc_test_only(")
        jit.add_symbols(
            {"blkc_test_only": ctypes.cast(ctypes.CDLL(None).labs, ctypes.c_void_p).value}
        )
        other = jit.compile_ir(text, 2)
        fallback = load_module(other.llvm_ir, other.object_code)  # type: ignore[arg-type]
        assert isinstance(fallback, jit.CompiledModule)
    finally:
        elf_loader._RUNTIME_SYMBOLS = elf_loader_symbols
    with pytest.raises(DamagedObject):
        load_module(compiled.llvm_ir, b"\0" * 100)  # never handed to LLVM, which aborts
