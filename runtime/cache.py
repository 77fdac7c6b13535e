"""The on-disk cache of compiled kernels, so that a second process skips compilation.

Entries live in a per-user directory (`$BLKC_CACHE_DIR`, else `$XDG_CACHE_HOME/blkc`, else
`~/.cache/blkc`) created with mode 0700, one folder per key. A key hashes the kernel's
IR, the compile options, the versions of blkc, xDSL and llvmlite, and the host CPU, so a
changed tool or machine never reuses stale code. An entry holds a JSON description, the
optimized LLVM IR of each variant and the object code MCJIT produced for it. Unreadable
or partial entries are ignored (and rebuilt); `BLKC_CACHE=0` turns the cache off.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any


def enabled() -> bool:
    return os.environ.get("BLKC_CACHE", "1") != "0"


def directory() -> Path:
    configured = os.environ.get("BLKC_CACHE_DIR")
    if configured:
        root = Path(configured)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = Path(base) / "blkc"
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    return root


@cache
def _compiler_source() -> str:
    """A hash of blkc's own Python sources: a changed compiler never reuses old entries."""
    digest = hashlib.sha256()
    roots: set[Path] = set()
    for name in ("blkc", "blkc.dialects", "blkc.passes", "blkc.runtime"):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.submodule_search_locations is not None, name
        roots.update(Path(p) for p in spec.submodule_search_locations)
    for root in sorted(roots):
        for path in sorted(root.rglob("*.py")):
            digest.update(path.read_bytes())
    return digest.hexdigest()


@cache
def _environment() -> str:
    import llvmlite.binding as llvm

    from blkc.runtime.jit import initialize

    initialize()
    parts = [
        version("blkc"),
        _compiler_source(),
        version("xdsl"),
        version("llvmlite"),
        llvm.get_host_cpu_name(),
        llvm.get_host_cpu_features().flatten(),
    ]
    return "\n".join(parts)


def key(*parts: object) -> str:
    digest = hashlib.sha256(_environment().encode())
    for part in parts:
        digest.update(b"\0" + repr(part).encode())
    return digest.hexdigest()[:32]


def _entry(entry_key: str) -> Path:
    return directory() / entry_key


def load_meta(entry_key: str) -> dict[str, Any] | None:
    if not enabled():
        return None
    try:
        return json.loads((_entry(entry_key) / "kernel.json").read_text())
    except (OSError, ValueError):
        return None


def store_meta(entry_key: str, meta: dict[str, Any]) -> None:
    if enabled():
        _write(_entry(entry_key) / "kernel.json", json.dumps(meta).encode())


def load_binary(entry_key: str, variant: str) -> tuple[str, bytes] | None:
    """The optimized LLVM IR and object code of a variant, if cached."""
    if not enabled():
        return None
    folder = _entry(entry_key)
    try:
        return (folder / f"{variant}.ll").read_text(), (folder / f"{variant}.o").read_bytes()
    except OSError:
        return None


def store_binary(entry_key: str, variant: str, llvm_ir: str, obj: bytes) -> None:
    if enabled():
        folder = _entry(entry_key)
        _write(folder / f"{variant}.ll", llvm_ir.encode())
        _write(folder / f"{variant}.o", obj)


def _write(path: Path, data: bytes) -> None:
    """Write atomically (a concurrent reader sees the old file or the whole new one)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
