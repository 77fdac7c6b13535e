"""Launching compiled kernels on NumPy arrays: `kernel[grid](*args)`.

Arrays (NumPy arrays, torch CPU tensors, anything with `__array_interface__` or DLPack:
`blkc.runtime.arrays`) become pointers after a check that their dtype is the pointee
type; Python numbers become scalars of the parameter's type. The grid (1 to 3 axes) is
split into chunks of consecutive program ids that the calling thread and one pool thread
per other core (or `num_cpu_threads` threads in all) take in turn, each chunk run through
ctypes, which releases the GIL during the call. A failed `blk.assert` raises
`AssertionError` after the launch; the process never dies.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy

from blkc import dtypes
from blkc.runtime.arrays import as_array
from blkc.runtime.grid import check_num_cpu_threads

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

_CTYPES = {
    "bool": ctypes.c_bool,
    "int8": ctypes.c_int8,
    "int16": ctypes.c_int16,
    "int32": ctypes.c_int32,
    "int64": ctypes.c_int64,
    "uint8": ctypes.c_int8,
    "uint16": ctypes.c_int16,
    "uint32": ctypes.c_int32,
    "uint64": ctypes.c_int64,
    "float16": ctypes.c_double,
    "bfloat16": ctypes.c_double,
    "float8_e4m3fn": ctypes.c_double,
    "float8_e5m2": ctypes.c_double,
    "float32": ctypes.c_float,
    "float64": ctypes.c_double,
}
"""How each scalar dtype travels to a kernel: integers as the signed C type of their width
(the bits; the kernel knows the signedness), small floats as doubles (the kernel rounds
them once, to nearest even)."""

# ------------------------------------------------------------------------------------
# Assertions raised inside kernels
# ------------------------------------------------------------------------------------

_record = threading.local()
"""Each thread's failed-assertion messages (`failures`): a launch's threads all append to
the record of the thread that launched it, so concurrent launches from several threads
each raise their own failures and no other's."""
_failures_lock = threading.Lock()
failure_count = ctypes.c_int32(0)
"""How many assertions have failed in this process: a launch stub (`fast_launch`) compares
it before and after its launch."""


def _failures() -> list[str]:
    """The failure record the current thread appends to (its own, unless it runs chunks of
    another thread's launch)."""
    failures = getattr(_record, "failures", None)
    if failures is None:
        failures = _record.failures = []
    return failures


@ctypes.CFUNCTYPE(None, ctypes.c_char_p)
def _assert_fail(message: bytes) -> None:
    failures = _failures()
    with _failures_lock:
        failure_count.value += 1
        if len(failures) < 16:
            failures.append(message.decode(errors="replace"))


def raise_failures() -> None:
    """Raise the first assertion that failed in the calling thread's last launch, as
    AssertionError."""
    failures = _failures()
    with _failures_lock:
        failed = list(failures)
        failures.clear()
    if failed:
        raise AssertionError(failed[0])


_cancel = ctypes.c_int32(0)
"""`blkc_cancel`: set while a launch is being interrupted (Ctrl-C); every `while` loop of a
running kernel checks it at each iteration and stops."""


def cancel_requested() -> bool:
    """Whether a Ctrl-C is stopping the running launch's kernels now (`blkc_cancel`)."""
    return bool(_cancel.value)


@cache
def register_runtime_symbols() -> None:
    """Symbols generated code uses besides libm: `blkc_assert_fail`, `blkc_cancel`."""
    from blkc.runtime.elf_loader import register_symbol

    address = ctypes.cast(_assert_fail, ctypes.c_void_p).value
    assert address is not None
    register_symbol("blkc_assert_fail", address)
    register_symbol("blkc_cancel", ctypes.addressof(_cancel))


# ------------------------------------------------------------------------------------
# Arguments
# ------------------------------------------------------------------------------------


ParamType = Any
"""A parameter's blk type: the xDSL attribute, or its text (``!blk.ptr<f32>``, ``i32``,
``si32``), as a kernel from the disk cache keeps it: launching reads either without xDSL."""


def type_text(t: ParamType) -> str:
    return t if isinstance(t, str) else str(t)


def pointee_text(t: ParamType) -> str | None:
    """The pointee's type of a pointer parameter (``f32`` of ``!blk.ptr<f32>``), else None."""
    text = type_text(t)
    return text[len("!blk.ptr<") : -1] if text.startswith("!blk.ptr<") else None


def _param_dtype(t: ParamType) -> dtypes.DType:
    text = type_text(t)
    if text.startswith("si"):  # a signed integer, as a frontend types its parameters
        return dtypes.dtype(f"int{text[2:]}")
    return dtypes.dtype(text)


def abi_ctype(t: ParamType) -> type:
    """How a value of parameter type `t` travels through ctypes (pointers as addresses)."""
    return ctypes.c_void_p if pointee_text(t) is not None else _CTYPES[_param_dtype(t).name]


def launcher_ctypes(abi: Sequence[ParamType]) -> list[type]:
    """The parameters of a CPU kernel's grid launcher: the kernel's own (of types `abi`),
    the bounds table (`array_bounds`), the first and end program of the chunk, and the
    grid's three sizes."""
    return [
        *(abi_ctype(t) for t in abi),
        ctypes.c_void_p,
        ctypes.c_int64,
        ctypes.c_int64,
        *([ctypes.c_int32] * 3),
    ]


@dataclass
class _Converted:
    values: list[object]
    arrays: list[numpy.ndarray]
    spans: list[tuple[int, int]]
    """The first and end byte of each array (contiguous: its address and its size)."""


@dataclass(frozen=True)
class Slot:
    """How a launch checks and passes the argument of one parameter (see `slots`)."""

    pointer: bool
    dtype: dtypes.DType
    """The pointee's dtype for a pointer, the value's for a scalar."""
    array_dtype: numpy.dtype[Any]
    ctype: type | None
    """How a scalar travels (`_CTYPES`)."""


def slots(params: Sequence[ParamType]) -> list[Slot]:
    """The launch plan of parameters of types `params` (computed once per kernel)."""
    plan = []
    for t in params:
        pointee = pointee_text(t)
        if pointee is not None:
            d = dtypes.dtype(pointee)
            plan.append(Slot(True, d, d.numpy, None))
        else:
            d = _param_dtype(t)
            plan.append(Slot(False, d, d.numpy, abi_ctype(t)))
    return plan


def _where(name: str, index: int, names: Sequence[str | None]) -> str:
    if index < len(names) and names[index]:
        return f"argument {index} ('{names[index]}') of kernel '{name}'"
    return f"argument {index} of kernel '{name}'"


def convert_args(
    name: str,
    params: Sequence[ParamType],
    args: Sequence[object],
    writes: Sequence[bool] = (),
    names: Sequence[str | None] = (),
    plan: Sequence[Slot] | None = None,
) -> _Converted:
    """The launch values of `args` for parameters of types `params` (named `names`, where
    known; `plan`: their `slots`, when the caller keeps them), checked: an array for each
    pointer (of its pointee dtype, and writeable where `writes` says the kernel may write
    through it), a number in range for each scalar. A strided view passes its first
    element's address, as Triton passes a tensor's data pointer (the kernel indexes it
    with the strides it is given); its bounds span its elements and the gaps between."""
    if len(args) != len(params):
        raise TypeError(f"kernel '{name}' takes {len(params)} arguments, got {len(args)}")
    values: list[object] = []
    arrays: list[numpy.ndarray] = []
    spans: list[tuple[int, int]] = []
    for index, (slot, arg) in enumerate(zip(plan or slots(params), args, strict=True)):
        if slot.pointer:
            if type(arg) is numpy.ndarray:
                array = arg
            else:
                array = as_array(arg, _where(name, index, names))
                if array is None:
                    where = _where(name, index, names)
                    raise TypeError(
                        f"{where} is a pointer: pass an array, not {type(arg).__name__}"
                    )
            flags = array.flags
            if array.dtype != slot.array_dtype:
                raise TypeError(
                    f"{_where(name, index, names)} points to {slot.dtype.name}, but the array "
                    f"holds {array.dtype}"
                )
            if not flags.writeable and index < len(writes) and writes[index]:
                raise TypeError(
                    f"{_where(name, index, names)} is read-only (a read-only view, memory map "
                    "or buffer), but the kernel stores through it: pass a writeable array "
                    "(numpy.array(x) copies)"
                )
            address = array.ctypes.data
            arrays.append(array)
            spans.append(
                (address, address + array.nbytes)
                if flags.c_contiguous or flags.f_contiguous
                else array_span(array)
            )
            values.append(ctypes.c_void_p(address))
            continue
        d = slot.dtype
        if isinstance(arg, numpy.generic):
            arg = arg.item()
        if not isinstance(arg, bool | int | float):
            raise TypeError(
                f"{_where(name, index, names)} is a {d.name} scalar: pass a number, not "
                f"{type(arg).__name__}"
            )
        if d.is_int:
            if isinstance(arg, float):
                raise TypeError(
                    f"{_where(name, index, names)} is {d.name}: pass an int, not the float {arg!r}"
                )
            lo, hi = d.int_range
            if not lo <= int(arg) <= hi:
                raise OverflowError(
                    f"{_where(name, index, names)}: {arg} is out of range for {d.name} [{lo}, {hi}]"
                )
            if not d.signed:
                arg = int(arg) - (1 << d.width) if int(arg) >> (d.width - 1) else int(arg)
        values.append(slot.ctype(arg))  # type: ignore[misc]
    return _Converted(values, arrays, spans)


def array_span(array: numpy.ndarray) -> tuple[int, int]:
    """The first and end byte of the memory `array`'s elements lie in (a strided view's
    elements and the gaps between them; nothing for an empty array)."""
    first = end = array.__array_interface__["data"][0]
    if array.size == 0:
        return first, first
    for extent, stride in zip(array.shape, array.strides, strict=True):
        reach = (extent - 1) * stride
        if reach < 0:
            first += reach
        else:
            end += reach
    return first, end + array.itemsize


def array_bounds(plan: Sequence[Slot], spans: Sequence[tuple[int, int]]) -> ctypes.c_void_p:
    """The first and end byte of each pointer argument's array (`spans`, in the order of
    the pointer parameters, whose `slots` are `plan`), as the kernel reads them: int64
    pairs indexed by parameter position, then `stream_threshold()`, then the launch's
    out-of-bounds record (0; the kernel sets it to 1 when it skipped an access outside the
    arrays: `accessed_outside`). The arrays are kept alive by the caller."""
    entries = [0] * (2 * len(plan) + 2)
    pointers = iter(spans)
    for index, slot in enumerate(plan):
        if slot.pointer:
            entries[2 * index], entries[2 * index + 1] = next(pointers)
    entries[-2] = stream_threshold()
    table = numpy.array(entries, numpy.int64)
    _keep_alive.table = table
    return ctypes.c_void_p(table.ctypes.data)


def accessed_outside() -> bool:
    """Whether the calling thread's last launch (through `array_bounds`' table) skipped an
    access outside its arrays."""
    return bool(_keep_alive.table[-1])


def out_of_bounds(name: str, accesses: Sequence[str]) -> IndexError:
    """The error of a launch of kernel `name` that skipped an access outside its arrays,
    naming the source locations of the accesses it checks."""
    where = accesses[0] if len(accesses) == 1 else "one of " + ", ".join(accesses)
    return IndexError(
        f"kernel '{name}' accessed memory outside the arrays it was given, at {where} "
        "(the access was skipped; check the offsets and the mask)"
    )


_keep_alive = threading.local()


STREAM_COPIES = "blkc.stream_copies"
"""The constant of a kernel's LLVM module that keeps its streaming copies (true; see
`llvm_codegen.CpuKernelEmitter._stream_wanted`)."""

_KEPT = f'@"{STREAM_COPIES}" = internal constant i1 1'


def has_stream_copies(llvm_ir: str) -> bool:
    """Whether the kernel in `llvm_ir` has nests with copies that stream their stores."""
    return _KEPT in llvm_ir


def without_stream_copies(llvm_ir: str) -> str:
    """`llvm_ir` with its streaming copies never taken, so that LLVM drops them before any
    costly pass (about a sixth of a row softmax's compile time): the lean form of a kernel,
    for launches whose arrays span less than `stream_threshold()` bytes in all
    (`backends.cpu.CpuProgram.binary`)."""
    return llvm_ir.replace(_KEPT, f'@"{STREAM_COPIES}" = internal constant i1 0', 1)


def stream_threshold() -> int:
    """How many bytes a launch must store for non-temporal stores (they bypass the cache):
    `BLKC_STREAM_BYTES` when set and not empty (0: always, -1: never), else half the last-level
    cache.
    Below it the output may still be cached when the next kernel reads it; above it, it
    would be evicted anyway (its inputs compete for the cache too), and streaming saves the
    read-for-ownership of each written line."""
    setting = os.environ.get("BLKC_STREAM_BYTES", "").strip()
    if not setting:
        return _last_level_cache() // 2
    try:
        value = int(setting)
    except ValueError:
        raise ValueError(
            f"BLKC_STREAM_BYTES must be an integer (bytes; 0: always stream, -1: never), "
            f"got {setting!r}"
        ) from None
    return 2**63 - 1 if value < 0 else value


@cache
def _last_level_cache() -> int:
    """The size of the largest cache the kernel's core sees (32 MiB when Linux's sysfs
    does not say)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    sizes = []
    for entry in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*/size"):
        text = entry.read_text().strip()
        if text[-1:] in units and text[:-1].isdigit():
            sizes.append(int(text[:-1]) * units[text[-1]])
    return max(sizes, default=32 << 20)


def no_overlap(spans: Sequence[tuple[int, int]]) -> bool:
    """True when no two arrays (their first and end bytes, `spans`) share bytes (then
    pointers may be marked noalias)."""
    ordered = sorted(spans)
    return all(ordered[i][1] <= ordered[i + 1][0] for i in range(len(ordered) - 1))


# ------------------------------------------------------------------------------------
# The grid
# ------------------------------------------------------------------------------------


@cache
def cores() -> int:
    """The cores this process may run on (asking the OS costs microseconds: ask once)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_thread_limit: int | None = None


def set_num_threads(count: int | None) -> None:
    """Cap the threads one launch uses, and the chunks of programs that run at once in this
    process, at `count` (never above the cores: `cores()`); None goes back to the
    environment's `BLKC_NUM_THREADS`, else every core."""
    global _thread_limit
    _thread_limit = None if count is None else check_num_cpu_threads(count)
    sync_stub_threads()


def thread_limit() -> int | None:
    """The cap the user set (`set_num_threads`, else `BLKC_NUM_THREADS`), or None."""
    if _thread_limit is not None:
        return _thread_limit
    setting = os.environ.get("BLKC_NUM_THREADS", "").strip()
    if not setting:
        return None
    if not setting.isdigit() or int(setting) < 1:
        raise ValueError(f"BLKC_NUM_THREADS must be a positive integer, got {setting!r}")
    return int(setting)


def process_threads() -> int:
    """How many chunks of programs may run at once in this process: `thread_limit()`, at
    most `cores()`."""
    limit = thread_limit()
    return cores() if limit is None else min(limit, cores())


def get_num_threads() -> int:
    """How many threads a launch from the calling thread may use: `process_threads()`, or
    fewer inside `threads_per_launch`."""
    share = getattr(_record, "share", None)
    return process_threads() if share is None else min(share, process_threads())


@contextmanager
def threads_per_launch(count: int) -> Iterator[None]:
    """Within the block, each launch from the calling thread uses at most `count` threads
    (a task's share of the cores where others run beside it: `blkc.dask`)."""
    global _shares
    previous = getattr(_record, "share", None)
    _record.share = check_num_cpu_threads(count)
    with _failures_lock:
        _shares += 1
    sync_stub_threads()
    try:
        yield
    finally:
        _record.share = previous
        with _failures_lock:
            _shares -= 1
        sync_stub_threads()


stub_threads = ctypes.c_int32(0)
"""The threads a launch stub may run a large grid on (`fast_launch.Pooled`):
`process_threads()`, or 0 while any thread holds a share (`threads_per_launch`), whose
launches then go through Python, which reads the share of the thread launching."""
_shares = 0


def sync_stub_threads() -> None:
    """Update `stub_threads` (after a change of the cap or of the shares); 0 while
    `BLKC_NUM_THREADS` is malformed, so that launches go through Python, which names it."""
    try:
        stub_threads.value = 0 if _shares else process_threads()
    except ValueError:
        stub_threads.value = 0


@cache
def _pool() -> ThreadPoolExecutor:
    # Imported here, not with this module: small launches (a warm start's first) never
    # reach the pool.
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=cores(), thread_name_prefix="blkc")


def _run_interruptibly(work: Callable[[], None], workers: int) -> None:
    """Run `work` on `workers` of the pool's threads and wait where Python sees a Ctrl-C:
    then `blkc_cancel` stops the kernel's loops, the launch waits for every task it
    started (a Ctrl-C between two submissions included) and re-raises."""
    tasks: list[Future[None]] = []
    try:
        for _ in range(workers):
            tasks.append(_pool().submit(work))
        for task in tasks:
            task.result()  # a lock wait: a signal interrupts it
    except KeyboardInterrupt:
        _cancel.value = 1
        try:
            _join(tasks)
        finally:
            _cancel.value = 0
        raise


def _join(tasks: Sequence[Future[None]]) -> None:
    """Wait until every one of `tasks` has finished, however many Ctrl-Cs arrive meanwhile
    (the first is raised after): a task still running may write into arrays the caller
    frees once the launch returns. A task's own exception is raised too."""
    from concurrent.futures import wait

    interrupted = False
    while True:
        try:
            wait(tasks)
            break
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        raise KeyboardInterrupt
    for task in tasks:
        task.result()


def _running() -> threading.BoundedSemaphore:
    """One permit per thread launches may use (`process_threads()`), held while a chunk of
    programs runs: however many Python threads launch at once, at most that many chunks
    run (kernels whose loops may wait on another program excepted, and the small launches
    a launch stub runs inline), so launches from several threads share the cores instead
    of oversubscribing them."""
    return _permits(process_threads())


@cache
def _permits(count: int) -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(count)


def shared_pool() -> Any:
    """The native pool launches share (`runtime.native_pool`: a worker per core beside the
    launching thread), or None where the platform has none or the process one core."""
    from blkc.runtime import native_pool

    if not native_pool.available() or cores() < 2:
        return None
    return native_pool.pool(cores() - 1)


def _run_native(
    packed: int,
    values: Sequence[object],
    grid: tuple[int, int, int],
    total: int,
    workers: int,
    work_bytes: int | None,
) -> bool:
    """Run the grid on the native pool with the calling thread and `workers - 1` of the
    pool's (one launch at a time: a launch from another thread waits for it, the GIL
    released); False where this platform has no native pool."""
    from blkc.runtime import native_pool

    pool = shared_pool()
    if pool is None:
        return False
    argv = native_pool.pack_arguments(values[:-1])  # type: ignore[arg-type]
    chunks = chunk_count(total, workers, work_bytes)
    pool.run(packed, ctypes.addressof(argv), values[-1], total, chunks, *grid, workers - 1)
    return True


INLINE_BYTES = 1 << 15
"""Launches whose arrays hold at most this many bytes in all run on the calling thread
(`run_grid`; launch stubs use the same bound). With the native pool a job starts in about
2 us, so little work already pays for a second core: on a 2-core Zen 4, a 16K-element
vector add (192 KiB) took 3.5 us on two threads and 5.4 on one, a 64 x 512 softmax 14 us
and 23 (with Python's pool, whose hand-offs cost 70-150 us, the bound was 256 KiB)."""

CHUNKS_PER_WORKER = 4
"""Workers take chunks of consecutive programs from a shared counter until none is left: a
core slowed by other work takes fewer chunks, where a static split waits for its share."""

CONTIGUOUS_BYTES = 16 << 20
"""Launches whose arrays hold fewer bytes than this in all take one chunk per thread, not
`CHUNKS_PER_WORKER`: each thread then runs one stream of consecutive programs, which the
core's prefetchers follow, and a launch this short has little to rebalance. On a 2-core
Zen 4, vector adds from cold caches (quantile 0.25 of twelve `do_bench` medians, the
splits alternating in one process, three runs): 64K elements 7.9-9.7 us with one chunk
per thread against 9.0-9.8 with four, 256K 24.9-25.8 against 25.7-26.8; at 1M and 4M
they were equal. On a 2-core Zen 5 (medians of five `do_bench` medians, seven runs
alternating), a 1M-element add (12 MiB) took 0.93-1.04 of torch's time with one chunk
per thread and 0.99-1.10 with four; at 16M the four chunks were as fast or faster."""


def chunk_count(total: int, workers: int, work_bytes: int | None) -> int:
    """How many chunks a launch of `total` programs on `workers` threads takes, given the
    bytes its arrays hold (`CONTIGUOUS_BYTES`)."""
    small = work_bytes is not None and work_bytes < CONTIGUOUS_BYTES
    return min(total, workers * (1 if small else CHUNKS_PER_WORKER))


def run_grid(
    function: Callable[..., None],
    values: Sequence[object],
    grid: tuple[int, int, int],
    num_cpu_threads: int | None = None,
    interruptible: bool = False,
    work_bytes: int | None = None,
    packed: int = 0,
) -> None:
    """Call the compiled launcher over every program of `grid` on `num_cpu_threads`
    threads (by default, and at most, `get_num_threads()`: one per core unless capped):
    the calling thread and the pool's.
    A launch whose arrays hold at most `INLINE_BYTES` in all (`work_bytes`) runs on the
    calling thread alone: waking the pool would cost more than it saves.

    An `interruptible` kernel (one with a loop that may run forever) runs on the pool's
    threads only, while the calling thread waits where Python sees a Ctrl-C: then
    `blkc_cancel` stops the kernel's loops, the launch waits for its threads and raises
    KeyboardInterrupt, and blkc stays usable.

    Given the address of the launcher's `packed` form (`<launcher>_args`), a launch on
    several threads runs on the native pool (`runtime.native_pool`), whose waiting workers
    start in microseconds where Python's pool takes a hundred (launches from several
    threads take turns there); where the platform has none, on Python's."""
    limit = get_num_threads()
    threads = limit if num_cpu_threads is None else check_num_cpu_threads(num_cpu_threads)
    total = grid[0] * grid[1] * grid[2]
    if total == 0:
        return
    workers = min(threads, limit, total)
    if work_bytes is not None and work_bytes <= INLINE_BYTES:
        workers = 1
    failures = _failures()
    with _failures_lock:
        failures.clear()
    if workers == 1 and not interruptible:
        with _running():
            function(*values, 0, total, *grid)
    elif (
        packed
        and not interruptible
        and _run_native(packed, values, grid, total, workers, work_bytes)
    ):
        pass
    else:
        chunks = chunk_count(total, workers, work_bytes)
        bounds = [total * i // chunks for i in range(chunks + 1)]
        taken = itertools.count()  # next() on it is atomic under the GIL

        def work() -> None:
            own = getattr(_record, "failures", None)
            _record.failures = failures  # this launch's record, on whichever thread runs it
            try:
                while (i := next(taken)) < chunks:
                    if interruptible:  # may wait on another program: never made to queue
                        function(*values, bounds[i], bounds[i + 1], *grid)
                        continue
                    with _running():
                        function(*values, bounds[i], bounds[i + 1], *grid)
            finally:
                _record.failures = own

        if interruptible:
            _run_interruptibly(work, workers)
        else:
            helpers: list[Future[None]] = []
            try:
                for _ in range(workers - 1):
                    helpers.append(_pool().submit(work))
                work()
            finally:
                # A helper that has not started has nothing left; one that has must end
                # before the launch does, even on a Ctrl-C.
                _join([helper for helper in helpers if not helper.cancel()])
    raise_failures()
