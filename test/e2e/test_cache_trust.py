"""A damaged or untrusted disk cache never kills or subverts the process: each case runs a
kernel in a child process against a cache directory prepared to fail, and asserts a
correct result, at most one warning, and a living process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blkc.runtime import cache

PROGRAM = """
import numpy, blkc, blkc.language as tl

@blkc.jit
def triple(X, Y, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(Y + o, tl.load(X + o) * 3)

x = numpy.arange(8, dtype=numpy.float32)
y = numpy.zeros_like(x)
triple[(1,)](x, y, 8)
print(y.tolist(), triple.builds)
"""
RESULT = str([3.0 * i for i in range(8)])


def run(tmp_path: Path, root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "triple.py"
    script.write_text(PROGRAM)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("BLKC_")}
    environment.update(BLKC_CACHE_DIR=str(root), **env)
    done = subprocess.run(
        [sys.executable, script], env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(RESULT), done.stdout
    return done


def entry_of(root: Path) -> Path:
    (entry,) = [p for p in root.iterdir() if p.is_dir()]
    return entry


@pytest.mark.parametrize(
    ("file", "damage"),
    [
        ("noalias.o", lambda data: data[: len(data) // 2]),  # truncated: a full disk, a crash
        ("noalias.o", lambda data: data[:-64] + bytes(64)),  # altered
        ("kernel.json", lambda data: data.replace(b"triple", b"trip1e")),
    ],
    ids=["truncated-object", "altered-object", "altered-description"],
)
def test_a_damaged_entry_is_rebuilt_with_one_warning(tmp_path: Path, file: str, damage) -> None:
    root = tmp_path / "cache"
    first = run(tmp_path, root)
    assert first.stderr == ""
    path = entry_of(root) / file
    path.write_bytes(damage(path.read_bytes()))
    second = run(tmp_path, root)
    assert second.stderr.count("CacheWarning") == 1, second.stderr
    assert "is damaged (truncated or altered); compiling again" in second.stderr
    third = run(tmp_path, root)  # rebuilt and stored whole again
    assert third.stderr == "" and third.stdout.split()[-1] == "0"


def test_a_cache_root_others_may_write_is_not_used(tmp_path: Path) -> None:
    root = tmp_path / "shared"
    root.mkdir()
    root.chmod(0o777)
    done = run(tmp_path, root)
    assert done.stderr.count("CacheWarning") == 1
    assert "may be written by other users" in done.stderr
    assert list(root.iterdir()) == []  # nothing written there, nothing read


def test_an_entry_others_may_write_is_not_loaded(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    run(tmp_path, root)
    planted = entry_of(root) / "noalias.o"
    planted.chmod(0o666)
    done = run(tmp_path, root)
    assert "ignoring a cache file" in done.stderr and "other users" in done.stderr


def test_an_unusable_cache_directory_means_no_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    done = run(tmp_path, blocker / "cache")
    assert done.stderr.count("CacheWarning") == 1 and "cannot be created" in done.stderr


def test_the_least_recently_used_entries_go_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for age, name in enumerate(["newest", "middle", "oldest"]):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "kernel.json").write_bytes(bytes(100))
        stamp = time.time() - 1000 * (age + 1)
        os.utime(folder, (stamp, stamp))
    monkeypatch.setenv("BLKC_CACHE_SIZE", "250")
    monkeypatch.setattr(cache, "_unchecked", [-1])
    cache._evict(tmp_path, 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["middle", "newest"]


def test_the_command_line_shows_and_clears_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    run(tmp_path, root)
    blkc = Path(sys.executable).with_name("blkc")
    env = {**os.environ, "BLKC_CACHE_DIR": str(root)}
    shown = subprocess.run([blkc, "--cache-info"], env=env, capture_output=True, text=True)
    assert shown.returncode == 0 and f"kernel cache: {root}" in shown.stdout
    assert "1 entry," in shown.stdout
    cleared = subprocess.run([blkc, "--clear-cache"], env=env, capture_output=True, text=True)
    assert "removed 1 cache entry" in cleared.stdout
    assert list(root.iterdir()) == []
