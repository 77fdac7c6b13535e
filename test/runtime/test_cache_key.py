"""What the disk cache's key is made of, read cheaply at a warm start: the versions of
blkc, xDSL and llvmlite read from their metadata without `importlib.metadata` (and the
same versions it reads), and blkc's sources hashed once, their hashes kept by their stat
(a changed file read again, even with its old modification time)."""

from __future__ import annotations

import importlib.metadata
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from blkc.runtime import cache


@pytest.fixture
def fresh_environment() -> Iterator[None]:
    """`cache._environment` computed again in the test, and again after it."""
    cache._environment.cache_clear()
    yield
    cache._environment.cache_clear()


@pytest.mark.parametrize("name", ["blkc", "xdsl", "llvmlite", "numpy", "ml-dtypes", "PyYAML"])
def test_versions_are_those_importlib_metadata_reads(name: str) -> None:
    assert cache.versions(name) == [importlib.metadata.version(name)]


def _distribution(folder: Path, name: str, version: str) -> None:
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


@pytest.mark.parametrize("name", ["blkc", "xdsl", "llvmlite"])
def test_another_version_of_a_tool_is_another_key(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_environment: None
) -> None:
    before = cache.key("a kernel")
    _distribution(tmp_path, name, "99.0.1")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cache.versions(name) == ["99.0.1"] == [importlib.metadata.version(name)]
    cache._environment.cache_clear()
    assert cache.key("a kernel") != before


def test_a_distribution_in_a_zip_file_is_left_to_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "tools.zip"
    with zipfile.ZipFile(archive, "w") as stream:
        stream.writestr("xdsl-98.0.dist-info/METADATA", "Name: xdsl\nVersion: 98.0\n")
    monkeypatch.syspath_prepend(str(archive))
    assert cache.versions("llvmlite", "xdsl") == [importlib.metadata.version("llvmlite"), "98.0"]


def test_a_distribution_not_installed_is_importlib_metadatas_error() -> None:
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        cache.versions("xdsl", "no-such-distribution-of-blkc")


# -- blkc's sources --------------------------------------------------------------------


@pytest.fixture
def sources(tmp_path: Path) -> list[str]:
    root = tmp_path / "package"
    (root / "inner").mkdir(parents=True)
    (root / "first.py").write_text("A = 1\n")
    (root / "inner" / "second.py").write_text("B = 2\n")
    (root / "notes.txt").write_text("not a source\n")
    return [str(root)]


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file counts as settled, however recently it changed (so its hash is kept)."""
    monkeypatch.setattr(cache, "SETTLED_NS", -(10**12))


def _read_none(path: str) -> str:
    raise AssertionError(f"{path} was read again")


def test_kept_hashes_give_the_digest_of_the_files(
    sources: list[str], tmp_path: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = cache.sources_digest(sources, None)
    assert cache.sources_digest(sources, tmp_path) == read  # hashes them and keeps that
    assert list(tmp_path.glob("sources-*.json"))
    monkeypatch.setattr(cache, "_file_hash", _read_none)
    assert cache.sources_digest(sources, tmp_path) == read  # from the kept hashes


def test_a_changed_source_changes_the_digest(sources: list[str], tmp_path: Path) -> None:
    before = cache.sources_digest(sources, tmp_path)
    Path(sources[0], "inner", "second.py").write_text("B = 3\n")
    assert cache.sources_digest(sources, tmp_path) != before


def test_a_source_changed_within_the_timestamps_granularity_is_read_again(
    sources: list[str], tmp_path: Path
) -> None:
    """A file that changed moments ago keeps no hash: written again in the same tick of
    the file system's clock, with its size and times as they were, it is read again."""
    path = Path(sources[0], "first.py")
    times = os.stat(path)
    before = cache.sources_digest(sources, tmp_path)
    path.write_text("A = 7\n")
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert cache.sources_digest(sources, tmp_path) != before


def test_a_kept_hash_is_not_used_for_a_file_replaced_with_equal_size_and_times(
    sources: list[str], tmp_path: Path, settled: None
) -> None:
    path = Path(sources[0], "first.py")
    times = os.stat(path)
    before = cache.sources_digest(sources, tmp_path)
    replacement = path.with_suffix(".new")
    replacement.write_text("A = 5\n")
    os.utime(replacement, ns=(times.st_atime_ns, times.st_mtime_ns))
    os.replace(replacement, path)  # another inode, another change time
    assert cache.sources_digest(sources, tmp_path) != before
    assert cache.sources_digest(sources, None) == cache.sources_digest(sources, tmp_path)


def test_a_damaged_record_of_hashes_is_rebuilt(
    sources: list[str], tmp_path: Path, settled: None
) -> None:
    read = cache.sources_digest(sources, tmp_path)
    (manifest,) = tmp_path.glob("sources-*.json")
    manifest.write_bytes(manifest.read_bytes().replace(b"first.py", b"other.py"))
    with pytest.warns(cache.CacheWarning, match="damaged"):
        assert cache.sources_digest(sources, tmp_path) == read
    assert cache.sources_digest(sources, tmp_path) == read


def test_clearing_the_cache_removes_the_kept_hashes(
    sources: list[str], tmp_path: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BLKC_CACHE_DIR", str(tmp_path))
    cache.sources_digest(sources, tmp_path)
    cache.clear()
    assert list(tmp_path.iterdir()) == []


def test_a_process_whose_sources_changed_stores_no_kernels(
    sources: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that hashed blkc's sources and then sees them change (a new blkc
    installed, files edited) may run new code under its old key: it stores nothing more,
    with one warning, while it still reads what is stored."""
    monkeypatch.setenv("BLKC_CACHE_DIR", str(tmp_path / "cache"))
    _, signatures = cache._digest_and_signatures(sources, None)
    monkeypatch.setattr(cache, "_hashed_sources", (sources, signatures))
    monkeypatch.setattr(cache, "_changed_warned", False)
    cache.store_meta("before", {"kept": 1})
    assert cache.load_meta("before") == {"kept": 1} and not cache.sources_changed()
    Path(sources[0], "inner", "second.py").write_text("B = 3\n")
    assert cache.sources_changed()
    with pytest.warns(cache.CacheWarning, match="sources changed on disk"):
        cache.store_meta("after", {"kept": 2})
    cache.store_binary("after", "variant", "ir", b"object")  # no second warning
    assert cache.load_meta("after") is None and cache.load_binary("after", "variant") is None
    assert cache.load_meta("before") == {"kept": 1}
    Path(sources[0], "third.py").write_text("C = 1\n")  # a new file counts too
    Path(sources[0], "inner", "second.py").write_text("B = 2\n")
    assert cache.sources_changed()
