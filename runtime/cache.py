"""The on-disk cache of compiled kernels, so that a second process skips compilation.

Entries live in a per-user directory (`$BLKC_CACHE_DIR`, else `$XDG_CACHE_HOME/blkc`, else
`~/.cache/blkc`) created with mode 0700, one folder per key. A key hashes the kernel's
IR, the compile options, the versions of blkc, xDSL and llvmlite, blkc's own sources and
the host CPU, so a changed tool or machine never reuses stale code (the sources' hashes
are kept in the root by each file's stat, so that a new process reads none that did not
change). An entry holds a JSON description, the optimized LLVM IR of each variant and
the object code MCJIT produced for it (the native pool's entry: its IR and object code).
A process whose blkc sources change on disk after it hashed them (a new blkc installed
while it runs) stores nothing more: modules it imports later would be the new code under
the old key (`sources_changed`).

What the cache trusts: a file is read only if it starts with the SHA-256 of the rest (a
truncated or altered file, from a full disk, a crash or a bad copy, is rebuilt with one
warning, and never reaches LLVM), and only from a root and entries that this user owns
and no other user may write (a root another user owns or can write is not used: one
warning, and the process compiles without a disk cache). A directory that cannot be
created or written has the same effect. The cache keeps at most `$BLKC_CACHE_SIZE` bytes
(default 1 GiB): past that, the least recently used entries go first. `BLKC_CACHE=0` turns
the cache off; `blkc --cache-info` and `blkc --clear-cache` show and empty it.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import re
import stat
import sys
import time
import warnings
from functools import cache
from pathlib import Path
from typing import Any

# Versions are read without `importlib.metadata`, whose import (with the email package)
# cost a warm start's first launch about 15 ms.

DEFAULT_SIZE = 1 << 30
"""The most bytes the cache keeps by default (`$BLKC_CACHE_SIZE` overrides)."""

_refused: set[str] = set()
"""Cache roots found unusable in this process (warned about once)."""


class CacheWarning(RuntimeWarning):
    """Something about the disk cache that blkc worked around (it compiled instead)."""


def _warn(message: str) -> None:
    warnings.warn(f"blkc: {message}", CacheWarning, stacklevel=3)


def _configured_root() -> Path:
    configured = os.environ.get("BLKC_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "blkc"


def _trusted(path: Path, info: os.stat_result) -> str | None:
    """Why `path` (a directory or file of the cache) is not to be trusted, if it is not."""
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return f"{path} belongs to another user"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{path} may be written by other users"
    return None


def directory() -> Path | None:
    """The cache's root, created if needed; None (after one warning) when it cannot be
    used: not creatable, not writable, or not this user's alone."""
    root = _configured_root()
    if str(root) in _refused:
        return None
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        problem = _trusted(root, root.stat())
        if problem is None and not os.access(root, os.W_OK | os.X_OK):
            problem = f"{root} is not writable"
    except OSError as err:
        problem = f"{root} cannot be created ({err.strerror})"
    if problem is not None:
        _refused.add(str(root))
        _warn(f"not using the kernel cache: {problem}; compiling without it")
        return None
    return root


def enabled() -> bool:
    return os.environ.get("BLKC_CACHE", "1") != "0"


@cache
def _compiler_source() -> str:
    """A hash of blkc's own Python sources: a changed compiler never reuses old entries."""
    roots: set[str] = set()
    for name in ("blkc", "blkc.dialects", "blkc.passes", "blkc.runtime"):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.submodule_search_locations is not None, name
        roots.update(spec.submodule_search_locations)
    root = directory() if enabled() else None
    global _hashed_sources
    ordered = sorted(roots)
    digest, signatures = _digest_and_signatures(ordered, root)
    _hashed_sources = (ordered, signatures)
    return digest


_hashed_sources: tuple[list[str], dict[str, list[int]]] | None = None
"""The roots of blkc's sources and their files' stat signatures when `_compiler_source`
hashed them (None before)."""


SETTLED_NS = 2 * 10**9
"""How long ago a file must have last changed for its hash to be kept by its stat: a file
changed again within the file system's timestamp granularity keeps its times."""


def sources_digest(roots: list[str], cache_root: Path | None) -> str:
    """A hash of the contents of the Python files under `roots`. With a `cache_root`,
    each file's hash is kept there by its stat (device, inode, size, modification and
    change times: an edit, even one that restores the modification time, changes the
    change time), for files that last changed `SETTLED_NS` ago or more, so that a warm
    start reads no unchanged source."""
    return _digest_and_signatures(roots, cache_root)[0]


def _digest_and_signatures(
    roots: list[str], cache_root: Path | None
) -> tuple[str, dict[str, list[int]]]:
    """`sources_digest`, and the stat signatures of the files it hashed."""
    named = hashlib.sha256("\0".join(roots).encode()).hexdigest()[:16]
    manifest = None if cache_root is None else cache_root / f"sources-{named}.json"
    known = _load_json(manifest) if manifest is not None else None
    known = known if isinstance(known, dict) else {}
    settled = time.time_ns() - SETTLED_NS
    kept: dict[str, list[object]] = {}
    digest = hashlib.sha256()
    seen = _signatures(roots)
    for path, signature in seen.items():
        entry = known.get(path)
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == signature:
            hashed = entry[1]
        else:
            hashed = _file_hash(path)
        if max(signature[3], signature[4]) < settled:  # modified, changed
            kept[path] = [signature, hashed]
        digest.update(hashed.encode())
    if manifest is not None and kept != known:
        _write(manifest, json.dumps(kept).encode())
    return digest.hexdigest(), seen


def _signatures(roots: list[str]) -> dict[str, list[int]]:
    """Each Python file under `roots` and its stat signature (device, inode, size,
    modification and change times)."""
    found = {}
    for path in _python_files(roots):
        try:
            info = os.stat(path)
        except FileNotFoundError:
            continue  # removed since it was listed
        found[path] = [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]
    return found


def sources_changed() -> bool:
    """Whether blkc's sources changed on disk since this process hashed them for its
    keys (a new blkc installed, or its files edited, while the process runs). Such a
    process may run new code from modules it imports later under the old key, and what it
    compiled would then be stored for processes that run the old code: it stores nothing
    (`store_meta`, `store_binary`)."""
    if _hashed_sources is None:
        return False  # no key of this process hashed them yet
    roots, seen = _hashed_sources
    return _signatures(roots) != seen


_changed_warned = False
"""Whether this process found its sources changed (and warned): it stores nothing more."""


def _storable() -> bool:
    global _changed_warned
    if _changed_warned:
        return False  # changed sources stay changed: no need to look again
    if not sources_changed():
        return True
    _changed_warned = True
    _warn(
        "blkc's sources changed on disk since this process started; it no longer "
        "stores compiled kernels in the disk cache (restart it to use the new blkc)"
    )
    return False


def _file_hash(path: str) -> str:
    with open(path, "rb") as stream:
        return hashlib.sha256(stream.read()).hexdigest()


def _python_files(roots: list[str]) -> list[str]:
    """The `.py` files under `roots`, in a stable order."""
    found = []
    for root in roots:
        for folder, _, names in os.walk(root):
            found.extend(os.path.join(folder, n) for n in names if n.endswith(".py"))
    return sorted(found)


def _load_json(path: Path) -> object:
    """The JSON a trusted cache file holds, or None."""
    data = _read(path)
    try:
        return None if data is None else json.loads(data)
    except ValueError:
        return None


def _normalized(name: str) -> str:
    """A distribution's name as `importlib.metadata` compares it (PEP 503, with
    underscores)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _version_header(folder: str) -> str | None:
    """The Version header of the metadata in `folder` (a `.dist-info` or `.egg-info`), if
    it has a metadata file with one."""
    for name in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as stream:
                for line in stream:
                    if not line.strip():
                        return None  # the headers end at the first empty line
                    label, colon, value = line.partition(":")
                    if colon and label.lower() == "version":
                        return value.strip()
            return None
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError):
            return None
    return None


def _found_versions(distributions: tuple[str, ...]) -> dict[str, str]:
    """The versions of `distributions` where `importlib.metadata` finds them (the first
    `.dist-info` or `.egg-info` folder of each name along `sys.path`, in each entry's
    listing order), read without it; those it would look for elsewhere (other finders of
    distributions, zip files, eggs) or that have no Version header are left out."""
    finders = [f for f in sys.meta_path if hasattr(f, "find_distributions")]
    if finders != [importlib.machinery.PathFinder]:
        return {}
    wanted = {_normalized(name): name for name in distributions}
    found = {}
    for entry in sys.path:
        try:
            children = [] if not wanted else os.listdir(entry or ".")
        except (FileNotFoundError, PermissionError):
            continue  # importlib.metadata finds nothing there either
        except OSError:
            break  # a zip file
        if entry.lower().endswith(".egg"):
            break
        for child in children:
            stem, dot, suffix = child.lower().rpartition(".")
            if dot and suffix in ("dist-info", "egg-info"):
                name = wanted.pop(_normalized(stem.partition("-")[0]), None)
                version = None if name is None else _version_header(os.path.join(entry, child))
                if version is not None:
                    found[name] = version
    return found


def versions(*distributions: str) -> list[str]:
    """`importlib.metadata.version` of each distribution, read without importing
    `importlib.metadata` where it is an ordinary folder along `sys.path`."""
    found = _found_versions(distributions)
    if len(found) < len(distributions):
        from importlib.metadata import version

        return [found.get(name) or version(name) for name in distributions]
    return [found[name] for name in distributions]


@cache
def _environment() -> str:
    from blkc.runtime.cpu_target import host

    blkc, xdsl, llvmlite = versions("blkc", "xdsl", "llvmlite")
    parts = [
        blkc,
        _compiler_source(),
        xdsl,
        llvmlite,
        host().cpu,
        host().llvm_features,  # BLKC_CPU_FEATURES included
    ]
    return "\n".join(parts)


def compiler_key() -> str:
    """What identifies this compiler in a cache key: blkc's version and a hash of its
    sources, xDSL's and llvmlite's versions (`triton.runtime.cache.triton_key` under
    `blkc.as_triton`, which torch's Triton integration reads)."""
    blkc, xdsl, llvmlite = versions("blkc", "xdsl", "llvmlite")
    return f"blkc-{blkc}-{_compiler_source()}-xdsl-{xdsl}-llvmlite-{llvmlite}"


def key_without_host(*parts: object) -> str:
    """A key of `parts` under blkc's version and sources and llvmlite's version (for what
    describes the host itself: `cpu_target.host`)."""
    blkc, llvmlite = versions("blkc", "llvmlite")
    return _digest("\n".join([blkc, _compiler_source(), llvmlite]), parts)


def load_json(path: Path) -> object:
    """The JSON a cache file holds (written by `store_json`), or None."""
    return _load_json(path)


def store_json(path: Path, value: object) -> None:
    """Write `value` as JSON to a cache file, atomically."""
    _write(path, json.dumps(value).encode())


def key(*parts: object) -> str:
    return _digest(_environment(), parts)


def _digest(environment: str, parts: tuple[object, ...]) -> str:
    digest = hashlib.sha256(environment.encode())
    for part in parts:
        digest.update(b"\0" + repr(part).encode())
    return digest.hexdigest()[:32]


def _entry(entry_key: str) -> Path | None:
    root = directory() if enabled() else None
    return None if root is None else root / entry_key


def _read(path: Path) -> bytes | None:
    """The contents of a cache file, if it is trusted and whole (else None; a damaged file
    is removed, with one warning)."""
    try:
        with open(path, "rb") as stream:
            info = os.fstat(stream.fileno())
            data = stream.read()
    except OSError:
        return None
    problem = _trusted(path, info)
    if problem is not None:
        _warn(f"ignoring a cache file: {problem}")
        return None
    digest, newline, body = data.partition(b"\n")
    if not newline or digest != hashlib.sha256(body).hexdigest().encode():
        _warn(f"the cache file {path} is damaged (truncated or altered); compiling again")
        path.unlink(missing_ok=True)
        return None
    try:
        os.utime(path.parent)  # recently used: the last to go when the cache is full
    except OSError:
        pass
    return body


def load_meta(entry_key: str) -> dict[str, Any] | None:
    folder = _entry(entry_key)
    meta = None if folder is None else _load_json(folder / "kernel.json")
    return meta if isinstance(meta, dict) else None


def store_meta(entry_key: str, meta: dict[str, Any]) -> None:
    folder = _entry(entry_key)
    if folder is not None and _storable():
        data = json.dumps(meta).encode()
        _write(folder / "kernel.json", data)
        _evict(folder.parent, len(data))


def load_binary(entry_key: str, variant: str) -> tuple[str, bytes] | None:
    """The optimized LLVM IR and object code of a variant, if cached (and whole)."""
    folder = _entry(entry_key)
    if folder is None:
        return None
    llvm_ir = _read(folder / f"{variant}.ll")
    obj = None if llvm_ir is None else _read(folder / f"{variant}.o")
    return None if llvm_ir is None or obj is None else (llvm_ir.decode(), obj)


def store_binary(entry_key: str, variant: str, llvm_ir: str, obj: bytes) -> None:
    folder = _entry(entry_key)
    if folder is not None and _storable():
        _write(folder / f"{variant}.ll", llvm_ir.encode())
        _write(folder / f"{variant}.o", obj)
        _evict(folder.parent, len(llvm_ir) + len(obj))


def _write(path: Path, data: bytes) -> None:
    """Write `data` after its SHA-256, atomically (a concurrent reader sees the old file or
    the whole new one)."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        import tempfile  # not imported by a process that only reads the cache

        handle, temporary = tempfile.mkstemp(dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(hashlib.sha256(data).hexdigest().encode() + b"\n" + data)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)


def limit() -> int:
    """The most bytes the cache keeps (`$BLKC_CACHE_SIZE`, else `DEFAULT_SIZE`)."""
    setting = os.environ.get("BLKC_CACHE_SIZE")
    try:
        return int(setting) if setting else DEFAULT_SIZE
    except ValueError:
        raise ValueError(f"BLKC_CACHE_SIZE must be a number of bytes, not {setting!r}") from None


def entries(root: Path) -> list[tuple[float, int, Path]]:
    """Each entry of the cache at `root`: when it was last used, its size, its folder."""
    found = []
    for folder in root.iterdir() if root.is_dir() else ():
        try:
            if not folder.is_dir():
                continue
            size = sum(f.stat().st_size for f in folder.iterdir())
            found.append((folder.stat().st_mtime, size, folder))
        except OSError:
            continue
    return sorted(found)


_unchecked = [-1]
"""Bytes this process wrote since it last measured the cache (-1: never measured)."""


def _evict(root: Path, written: int) -> None:
    """Remove the least recently used entries until the cache fits its limit. The cache is
    measured at a process's first write, then whenever it wrote another 1/16 of the limit
    (measuring reads every entry)."""
    if 0 <= _unchecked[0] < limit() // 16:
        _unchecked[0] += written
        return
    _unchecked[0] = 0
    found = entries(root)
    total = sum(size for _, size, _ in found)
    for _, size, folder in found:
        if total <= limit():
            break
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
        total -= size


def info() -> str:
    """Where the cache is, how many entries and bytes it holds, and its limit."""
    root = _configured_root()
    found = entries(root)
    total = sum(size for _, size, _ in found)
    state = "" if enabled() else " (off: BLKC_CACHE=0)"
    return (
        f"kernel cache: {root}{state}\n"
        f"{len(found)} {'entry' if len(found) == 1 else 'entries'}, "
        f"{total / 2**20:.1f} MiB of {limit() / 2**20:.0f} MiB"
    )


def clear() -> int:
    """Remove every entry, the hashes of sources (`sources_digest`) and the host CPU's
    description (`cpu_target.host`); return how many entries there were."""
    import shutil

    root = _configured_root()
    found = entries(root)
    for _, _, folder in found:
        shutil.rmtree(folder, ignore_errors=True)
    for kept in [*root.glob("sources-*.json"), *root.glob("host-*.json")]:
        kept.unlink(missing_ok=True)
    return len(found)
