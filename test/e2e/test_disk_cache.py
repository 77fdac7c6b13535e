"""A second process loads compiled kernels from the disk cache instead of compiling."""

import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "softmax.mlir"

PROGRAM = f"""
import numpy, blkc, blkc.kernel
kernel = blkc.compile(open({str(EXAMPLE)!r}).read())
x = numpy.random.default_rng(0).standard_normal((4, 1024)).astype(numpy.float32)
y = numpy.zeros_like(x)
kernel[(4,)](x, y, 1024, 1024)
print(blkc.kernel.builds, float(abs(y.sum(axis=1) - 1).max()))
"""


def run(cache: Path) -> tuple[int, float]:
    env = {**os.environ, "BLKC_CACHE_DIR": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, check=True, capture_output=True, text=True
    )
    builds, error = out.stdout.split()
    return int(builds), float(error)


def test_second_process_skips_compilation(tmp_path: Path) -> None:
    first_builds, first_error = run(tmp_path)
    builds, error = run(tmp_path)
    assert (first_builds, builds) == (1, 0)
    assert first_error < 1e-5 and error < 1e-5


def test_cache_directory_is_private(tmp_path: Path) -> None:
    cache = tmp_path / "blkc-cache"
    env = {**os.environ, "BLKC_CACHE_DIR": str(cache)}
    subprocess.run(
        [sys.executable, "-c", "import blkc.runtime.cache as c; c.directory()"], env=env, check=True
    )
    assert cache.stat().st_mode & 0o777 == 0o700


def test_cache_can_be_turned_off(tmp_path: Path) -> None:
    env_off = {**os.environ, "BLKC_CACHE_DIR": str(tmp_path), "BLKC_CACHE": "0"}
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", PROGRAM], env=env_off, check=True, capture_output=True, text=True
        )
        assert out.stdout.split()[0] == "1"
    assert not any(tmp_path.iterdir())


PTX_PROGRAM = f"""
import blkc, blkc.kernel
kernel = blkc.compile(open({str(EXAMPLE)!r}).read(), target="ptx", arch="sm_80")
print(blkc.kernel.builds, ".target sm_80" in kernel.asm["ptx"])
"""


def test_ptx_kernels_are_cached_on_disk_too(tmp_path: Path) -> None:
    env = {**os.environ, "BLKC_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", PTX_PROGRAM], env=env, check=True, capture_output=True,
            text=True,
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs == [["1", "True"], ["0", "True"]]
