"""Test-wide settings: compiled kernels are cached in a folder of this test session, never
in the user's cache, and the folder is removed when the session ends (a whole run leaves
about 300 MB there)."""

import atexit
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from typing import Any

import pytest

if "BLKC_CACHE_DIR" not in os.environ:
    _SESSION_CACHE = tempfile.mkdtemp(prefix="blkc-test-cache-")
    os.environ["BLKC_CACHE_DIR"] = _SESSION_CACHE
    _OWNER = os.getpid()

    @atexit.register
    def _remove_session_cache() -> None:
        if os.getpid() == _OWNER:  # not in a forked child that exits normally
            shutil.rmtree(_SESSION_CACHE, ignore_errors=True)


def _in_threads(count: int, work: Callable[[int], Any]) -> list[Any]:
    """`work(i)` for each i below `count` on a thread of its own, the threads started
    together; their results in order, or the first failure re-raised."""
    start = threading.Barrier(count)
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            start.wait()
            results[i] = work(i)
        except BaseException as err:  # noqa: BLE001 - re-raised by the calling thread
            errors.append(err)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def _put_result(queue: Any, work: Callable[[], Any]) -> None:
    queue.put(work())


def _in_forked_child(work: Callable[[], Any]) -> Any:
    """`work()` in a child process forked from this one (so that it inherits this one's
    state: its LLVM workers, its native pool); its result (picklable), once the child
    ended normally."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_put_result, args=(queue, work))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0
    return queue.get(timeout=5)


def _launch_on(kernel: Any, target: str, grid: tuple[int, ...], *args: Any, **meta: Any) -> None:
    """`kernel[grid](*args, **meta)` compiled for `target`, or, for "interpreter", its
    loose IR made strict and run by the reference interpreter."""
    if target != "interpreter":
        kernel[grid](*args, target=target, **meta)
        return
    import blkc
    from blkc.runtime import interpreter

    loose = kernel.warmup(*args, **meta).asm["loose"]
    module = blkc.run_pipeline(blkc.parse(loose, "kernel.mlir"), "to-strict{warn=false}")
    interpreter.run(module, None, grid, list(args))


@pytest.fixture
def launch_on() -> Callable[..., None]:
    """``launch_on(kernel, target, grid, *args, **meta)``: a `@blkc.jit` launch on a
    compiled target or the reference interpreter (see `_launch_on`)."""
    return _launch_on


@pytest.fixture
def marker_line(request: pytest.FixtureRequest) -> Callable[[str], int]:
    """``marker_line(marker)``: the 1-based line of the test's own file that ends with the
    comment ``# <marker>`` (where a located error must point)."""
    lines = request.path.read_text().splitlines()

    def find(marker: str) -> int:
        return next(i for i, text in enumerate(lines, 1) if text.rstrip().endswith(f"# {marker}"))

    return find


@pytest.fixture
def in_threads() -> Callable[[int, Callable[[int], Any]], list[Any]]:
    """``in_threads(count, work)``: `work(i)` on `count` threads started together (see
    `_in_threads`)."""
    return _in_threads


@pytest.fixture
def in_forked_child() -> Callable[[Callable[[], Any]], Any]:
    """``in_forked_child(work)``: `work()` in a forked child process, its result (see
    `_in_forked_child`)."""
    return _in_forked_child


@pytest.fixture
def count_calls(monkeypatch: pytest.MonkeyPatch) -> Callable[[Any, str], list[int]]:
    """``count_calls(owner, name)``: `owner.name` patched for the test to count its calls
    (still calling through); the count is the returned list's one item."""

    def patch(owner: Any, name: str) -> list[int]:
        count = [0]
        original = getattr(owner, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            count[0] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)
        return count

    return patch
