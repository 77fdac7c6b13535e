"""Object code from the disk cache loaded into this process without LLVM.

A disk-cache hit needs only its object code in memory: importing llvmlite's LLVM binding
and creating an MCJIT engine cost a new process about 25 ms, most of its first launch. The
objects `runtime.jit` makes on x86-64 Linux are small ELF relocatable files of LLVM's large
code model (`jitdefault`): sections of code and constants, and relocations that write
64-bit addresses (`R_X86_64_64`, `R_X86_64_PC64`). `load` maps them the way MCJIT's section
memory manager does (sections copied into fresh anonymous pages, relocations applied, the
code pages then made read-only and executable), and resolves undefined symbols in the
process (`symbol_address`: blkc's runtime symbols, then the C library and the math
library). Anything else (another machine or format, a relocation it does not know, a
symbol it cannot find) raises `UnsupportedObject`, and the caller loads the object
through LLVM instead.
"""

from __future__ import annotations

import ctypes
import mmap
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

_RUNTIME_SYMBOLS: dict[str, int] = {}
"""Addresses blkc's runtime gives generated code (`register_symbol`)."""


class UnsupportedObject(RuntimeError):
    """An object this loader does not load (LLVM's loader may)."""


class DamagedObject(RuntimeError):
    """Bytes that are no whole object file, or one no loader here takes (LLVM's would
    abort the process on it)."""


def register_symbol(name: str, address: int) -> None:
    """Make `name` resolve to `address` in the objects loaded from now on (here and, once
    `runtime.jit` is in use, through LLVM)."""
    _RUNTIME_SYMBOLS[name] = address
    jit = sys.modules.get("blkc.runtime.jit")
    if jit is not None:
        jit.add_symbols({name: address})


def runtime_symbols() -> dict[str, int]:
    return dict(_RUNTIME_SYMBOLS)


_libraries: list[ctypes.CDLL] = []


def symbol_address(name: str) -> int | None:
    """Where `name` is in this process: a runtime symbol, else one of the process's own
    libraries (the C library among them), else the math library."""
    if name in _RUNTIME_SYMBOLS:
        return _RUNTIME_SYMBOLS[name]
    if not _libraries:
        _libraries.append(ctypes.CDLL(None))
        for library in ("libm.so.6", "libm.so"):
            try:
                _libraries.append(ctypes.CDLL(library))
                break
            except OSError:
                continue
    for library in _libraries:
        try:
            return ctypes.cast(getattr(library, name), ctypes.c_void_p).value
        except AttributeError:
            continue
    return None


@cache
def supported() -> bool:
    """Whether this process can load objects here: x86-64 Linux."""
    import platform

    return sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")


# ELF constants (System V ABI, x86-64 supplement).
_ET_REL, _EM_X86_64 = 1, 62
_SHT_SYMTAB, _SHT_RELA, _SHT_NOBITS, _SHT_REL = 2, 4, 8, 9
_SHF_WRITE, _SHF_ALLOC, _SHF_EXECINSTR, _SHF_TLS = 0x1, 0x2, 0x4, 0x400
_RUN_AT_LOAD = (".init_array", ".fini_array", ".ctors", ".dtors", ".preinit_array")
"""Sections of functions a loader must call (static constructors): MCJIT's job."""
_SHN_UNDEF, _SHN_ABS, _SHN_COMMON = 0, 0xFFF1, 0xFFF2
_STB_LOCAL = 0
_R_X86_64_64, _R_X86_64_PC32, _R_X86_64_PLT32, _R_X86_64_PC64 = 1, 2, 4, 24
_PAGE = mmap.PAGESIZE


@dataclass
class _Section:
    name: str
    kind: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    align: int
    entsize: int


@dataclass
class LoadedObject:
    """An object's sections in this process; keep it alive while its code may run."""

    symbols: dict[str, int]
    """The object's global symbols and their addresses."""
    _memory: mmap.mmap = field(repr=False)

    def address(self, name: str) -> int:
        if name not in self.symbols:
            raise KeyError(f"no function '{name}' in the loaded object")
        return self.symbols[name]


def load(data: bytes, resolve: Callable[[str], int | None] = symbol_address) -> LoadedObject:
    """Map the ELF relocatable object `data` into this process (see the module's
    docstring); UnsupportedObject for anything it does not handle."""
    if not supported():
        raise UnsupportedObject("objects are loaded without LLVM on x86-64 Linux only")
    sections = _sections(data)
    placed, code, rest = _layout(sections)
    if code + rest == 0:
        raise UnsupportedObject("an object without code")
    # One mapping, code pages first: relocations between sections stay within 2 GiB.
    memory = mmap.mmap(-1, code + rest, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = _address(memory)
    addresses: dict[int, int] = {}
    for index, (region, offset) in placed.items():
        section = sections[index]
        at = offset + (code if region else 0)
        addresses[index] = base + at
        if section.kind != _SHT_NOBITS:  # the pages start zeroed: nothing to copy for .bss
            memory[at : at + section.size] = data[section.offset : section.offset + section.size]
    symbols, exported = _symbols(data, sections, addresses, resolve)
    for section in sections:
        if section.kind == _SHT_REL:
            raise UnsupportedObject("REL relocations (x86-64 objects use RELA)")
        if section.kind == _SHT_RELA and section.info in addresses:
            start = addresses[section.info] - base
            _relocate(data, section, symbols, memory, start, addresses[section.info])
    if code:
        _protect(base, code, mmap.PROT_READ | mmap.PROT_EXEC)
    return LoadedObject(exported, memory)


def _sections(data: bytes) -> list[_Section]:
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise DamagedObject("not an ELF object")
    if data[4] != 2 or data[5] != 1:
        raise UnsupportedObject("not a 64-bit little-endian object")
    e_type, machine = struct.unpack_from("<HH", data, 16)
    if e_type != _ET_REL or machine != _EM_X86_64:
        raise UnsupportedObject("not an x86-64 relocatable object")
    (shoff,) = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    if shentsize != 64 or shoff + shnum * 64 > len(data) or shstrndx >= shnum:
        raise DamagedObject("a damaged section table")
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i) for i in range(shnum)]
    names = raw[shstrndx]
    sections = []
    for name, kind, flags, _addr, offset, size, link, info, align, entsize in raw:
        if kind != _SHT_NOBITS and offset + size > len(data):
            raise DamagedObject("a section past the end of the object")
        sections.append(
            _Section(
                _string(data, names[4] + name), kind, flags, offset, size, link, info,
                max(align, 1), entsize,
            )
        )  # fmt: skip
    return sections


def _string(data: bytes, at: int) -> str:
    end = data.index(b"\0", at)
    return data[at:end].decode()


def _layout(sections: list[_Section]) -> tuple[dict[int, tuple[int, int]], int, int]:
    """Where each allocated section goes: (region, offset) by section index, region 0
    holding the code and 1 the data; and the two regions' sizes (whole pages)."""
    placed: dict[int, tuple[int, int]] = {}
    ends = [0, 0]
    for index, section in enumerate(sections):
        if not section.flags & _SHF_ALLOC or section.size == 0:
            continue
        if section.name.startswith(".eh_frame"):
            continue  # unwinding tables: nothing unwinds through kernels
        if section.flags & _SHF_TLS:  # MCJIT aborts the process on these
            raise DamagedObject(f"section {section.name} is thread-local")
        if section.name.startswith(_RUN_AT_LOAD):
            raise UnsupportedObject(f"section {section.name} (functions run at load)")
        if section.align > _PAGE:
            raise UnsupportedObject(f"section {section.name} aligned to {section.align}")
        region = 0 if section.flags & _SHF_EXECINSTR else 1
        offset = -(-ends[region] // section.align) * section.align
        placed[index] = (region, offset)
        ends[region] = offset + section.size
    code, rest = (-(-end // _PAGE) * _PAGE for end in ends)
    return placed, code, rest


def _address(memory: mmap.mmap) -> int:
    return ctypes.addressof(ctypes.c_char.from_buffer(memory))


def _protect(address: int, size: int, protection: int) -> None:
    if _mprotect()(address, size, protection) != 0:
        raise UnsupportedObject(f"mprotect failed (errno {ctypes.get_errno()})")


@cache
def _mprotect() -> Any:
    """The C library's `mprotect`, declared once."""
    mprotect = ctypes.CDLL(None, use_errno=True).mprotect
    mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return mprotect


def _symbols(
    data: bytes,
    sections: list[_Section],
    addresses: dict[int, int],
    resolve: Callable[[str], int | None],
) -> tuple[list[int | None], dict[str, int]]:
    """Each symbol's address by its index (None: one no relocation may use), and the
    global symbols the object defines."""
    tables = [s for s in sections if s.kind == _SHT_SYMTAB]
    if len(tables) != 1:
        raise UnsupportedObject("an object without one symbol table")
    table = tables[0]
    strings = sections[table.link]
    values: list[int | None] = []
    exported: dict[str, int] = {}
    for at in range(table.offset, table.offset + table.size, 24):
        name_at, info, _other, shndx, value, _size = struct.unpack_from("<IBBHQQ", data, at)
        name = _string(data, strings.offset + name_at) if name_at else ""
        if shndx == _SHN_UNDEF:
            found = resolve(name) if name else None
            if name and not found:
                raise UnsupportedObject(f"the object calls '{name}', which this process lacks")
            values.append(found)
        elif shndx == _SHN_ABS:
            values.append(value)
        elif shndx == _SHN_COMMON or shndx >= len(sections):
            raise UnsupportedObject(f"symbol '{name}' in section {shndx:#x}")
        elif shndx in addresses:
            values.append(addresses[shndx] + value)
            if info >> 4 != _STB_LOCAL and name:
                exported[name] = addresses[shndx] + value
        else:
            values.append(None)  # in a section not loaded (unwinding tables)
    return values, exported


def _relocate(
    data: bytes,
    rela: _Section,
    symbols: list[int | None],
    memory: mmap.mmap,
    start: int,
    base: int,
) -> None:
    """Apply the relocations of `rela` to its section, which starts at offset `start` of
    `memory` (at address `base`)."""
    for at in range(rela.offset, rela.offset + rela.size, 24):
        offset, info, addend = struct.unpack_from("<QQq", data, at)
        index, kind = info >> 32, info & 0xFFFFFFFF
        if index >= len(symbols) or symbols[index] is None:
            raise UnsupportedObject(f"a relocation against symbol {index}, not loaded")
        value = symbols[index] + addend  # type: ignore[operator]
        place = base + offset
        if kind == _R_X86_64_64:
            struct.pack_into("<Q", memory, start + offset, value & 0xFFFFFFFFFFFFFFFF)
        elif kind == _R_X86_64_PC64:
            struct.pack_into("<Q", memory, start + offset, (value - place) & 0xFFFFFFFFFFFFFFFF)
        elif kind in (_R_X86_64_PC32, _R_X86_64_PLT32):
            distance = value - place
            if not -(2**31) <= distance < 2**31:
                raise UnsupportedObject("a 32-bit relative relocation out of range")
            struct.pack_into("<i", memory, start + offset, distance)
        else:
            raise UnsupportedObject(f"relocation type {kind}")


@dataclass
class NativeModule:
    """Cached object code loaded by `load`: what `runtime.jit.CompiledModule` offers a
    kernel (its functions' addresses, its LLVM IR and object code)."""

    loaded: LoadedObject
    llvm_ir: str
    object_code: bytes

    def address(self, name: str) -> int:
        return self.loaded.address(name)

    def assembly(self) -> str:
        from blkc.runtime.jit import assembly

        return assembly(self.llvm_ir)


def load_module(llvm_ir: str, object_code: bytes) -> Any:
    """The cached object code of `llvm_ir` in this process: loaded here where this module
    can (no LLVM imported), else through LLVM (`runtime.jit.load_object`, which raises
    RuntimeError for an object it cannot load either); `DamagedObject` (a RuntimeError)
    for bytes that are no object file."""
    try:
        return NativeModule(load(object_code), llvm_ir, object_code)
    except UnsupportedObject:
        from blkc.runtime.jit import load_object

        return load_object(llvm_ir, object_code)


def cached_module(
    key: str | None,
    variant: str,
    llvm_ir: Callable[[], str],
    opt: int,
    what: str | None = None,
) -> Any:
    """The native code of the LLVM IR `llvm_ir()` makes: the disk cache's object code for
    `key` and `variant` where it holds one this process loads (`load_cached`), else the IR
    compiled and stored there (`compile_module`)."""
    found = load_cached(key, variant)
    return found if found is not None else compile_module(key, variant, llvm_ir(), opt, what)


def load_cached(key: str | None, variant: str) -> Any:
    """The disk cache's object code for `key` and `variant`, loaded (`load_module`); None
    where it holds none, or one this process cannot load (no disk cache without a `key`)."""
    from blkc.runtime import cache

    found = cache.load_binary(key, variant) if key else None
    if found is None:
        return None
    try:
        return load_module(*found)
    except RuntimeError:
        return None  # an entry this process cannot load: compile again


def compile_module(key: str | None, variant: str, llvm_ir: str, opt: int, what: str | None) -> Any:
    """`llvm_ir` compiled at O`opt`, its object code stored in the disk cache for `key` and
    `variant` (none without a `key`). A kernel's (`what` names it) compiles in the worker
    process (`runtime.jit.compile_isolated`, whose LLVM crashing does not take this
    process down), other IR, or any where `jit.isolated()` says no, is JIT-compiled here
    (`runtime.jit.compile_ir`)."""
    from blkc.runtime import cache
    from blkc.runtime.jit import compile_ir, compile_isolated, isolated

    if what is not None and isolated():
        optimized, code = compile_isolated(llvm_ir, opt, what)
        if key:
            cache.store_binary(key, variant, optimized, code)
        return load_module(optimized, code)
    compiled = compile_ir(llvm_ir, opt)
    if key and compiled.object_code:
        cache.store_binary(key, variant, compiled.llvm_ir, compiled.object_code)
    return compiled
