"""A native thread pool for grids: worker threads that wait in native code, woken in
microseconds.

Handing chunks of a grid to Python's `ThreadPoolExecutor` costs a futex wake-up and a GIL
hand-off each way: 70-150 us on a virtual machine, more than a mid-sized kernel runs. Here
the workers are Python threads that call `blkc_pool_worker` once and stay in it, the GIL
released: between jobs each spins on the job counter for a few milliseconds (`IDLE_SPIN`: a
launch that follows within that time starts at once), then sleeps on a futex. A launch
calls `blkc_pool_run` (through ctypes, so the GIL is released too), which publishes the
job, wakes sleeping workers, takes chunks itself and waits for the workers that joined.

The module is LLVM IR built here and JIT-compiled once (`_module_ir`), its object code kept
in the disk cache beside the kernels' (`compiled_module`). The protocol, all through
seq_cst atomics:

- `ticket` holds the job's generation (high 32 bits) and the next chunk (low 32 bits); a
  thread takes chunk i by a compare-exchange from (g, i) to (g, i + 1), after reading the
  job's fields: a success proves the fields were those of generation g (a dispatcher first
  marks the ticket busy, then writes the fields, then publishes (g + 1, 0)).
- `active` counts the workers inside a job; the dispatcher returns when all chunks are
  taken and `active` is back to zero, so no worker still reads the caller's arguments.
- `seats` caps how many workers join (a launch's thread count).

- `busy` makes launches from several threads take turns: one job runs at a time, on at
  most every core, so concurrent launches never oversubscribe the cores.

Each chunk calls the kernel's packed launcher `<name>__grid_args(argv, bounds, start, end,
gx, gy, gz)`, whose arguments are 8-byte slots (`pack_arguments`); a launch stub fills
them itself (`fast_launch.Pooled`), with the GIL released while the job runs. Kernels that
assert stay off the pool: a failed assertion is recorded for the thread that launched
(`launch._failures`), which a worker does not know. Linux on x86-64 and AArch64 only (the
futex system call); elsewhere launches keep Python's pool. The workers stop at exit. In a
process forked from one with a pool, launches run on the calling thread alone (the
workers do not survive a fork).
"""

from __future__ import annotations

import atexit
import ctypes
import os
import platform
import struct
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from blkc.runtime.elf_loader import NativeModule
    from blkc.runtime.jit import CompiledModule

IDLE_SPIN = 200_000
"""Pause instructions a worker spins for after a job before it sleeps: about 5 ms on Zen 4
(25 ns a pause), 8-10 ms where a pause is about 140 cycles (recent Intel cores), as long as
an OpenMP runtime's workers wait by default. A launch within that time starts at once; a
sleeping worker is woken through the kernel, which on a virtual machine took 15-20 us, more
than a 64K-element vector add runs (`bench/cost_curve.py`, whose cache eviction between
runs takes about half a millisecond)."""

BUSY_SPIN = 2000
"""Pause instructions a launch spins for while another thread's job runs, before it sleeps
(about 50 us on Zen 4)."""

_SYS_FUTEX = {"x86_64": 202, "aarch64": 98}
_FUTEX_WAIT_PRIVATE, _FUTEX_WAKE_PRIVATE = 128, 129


def available() -> bool:
    """Whether this process can run grids on the native pool."""
    return sys.platform.startswith("linux") and platform.machine() in _SYS_FUTEX


def _module_ir(machine: str) -> str:
    import llvmlite.ir as ir

    i32, i64 = ir.IntType(32), ir.IntType(64)
    ptr = ir.PointerType()
    module = ir.Module(name="blkc_pool")
    launcher_type = ir.FunctionType(ir.VoidType(), [ptr, ptr, i64, i64, i32, i32, i32])
    launcher_ptr = launcher_type.as_pointer()  # typed, so that calls through it know it

    def global_(name: str, t: ir.Type) -> ir.GlobalVariable:
        g = ir.GlobalVariable(module, t, name=f"blkc_pool_{name}")
        g.initializer = ir.Constant(t, None)
        g.linkage = "internal"
        return g

    gen, sleepers, active, seats, stop = (
        global_(n, i32) for n in ("gen", "sleepers", "active", "seats", "stopping")
    )
    busy, waiters = global_("busy", i32), global_("waiters", i32)
    ticket, total, chunks = (global_(n, i64) for n in ("ticket", "total", "chunks"))
    fn_g = global_("fn", launcher_ptr)
    argv_g, bounds_g = global_("argv", ptr), global_("bounds", ptr)
    gx_g, gy_g, gz_g = (global_(n, i32) for n in ("gx", "gy", "gz"))
    syscall = ir.Function(module, ir.FunctionType(i64, [i64], var_arg=True), name="syscall")
    if machine == "x86_64":
        pause_fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause")
        pause_args: list[ir.Value] = []
    else:
        pause_fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i32]), "llvm.aarch64.hint")
        pause_args = [ir.Constant(i32, 1)]  # yield
    sys_futex = ir.Constant(i64, _SYS_FUTEX[machine])
    null = ir.Constant(ptr, None)

    def futex(b: ir.IRBuilder, word: ir.GlobalVariable, op: int, value: ir.Value) -> None:
        b.call(syscall, [sys_futex, word, ir.Constant(i32, op), value, null])

    def atomic_load(b: ir.IRBuilder, g: ir.GlobalVariable) -> ir.Value:
        return b.load_atomic(g, "seq_cst", g.value_type.width // 8, typ=g.value_type)

    def atomic_store(b: ir.IRBuilder, value: ir.Value, g: ir.GlobalVariable) -> None:
        b.store_atomic(value, g, "seq_cst", g.value_type.width // 8)

    # take(seen): run chunks of generation `seen` until none is left.
    take = ir.Function(module, ir.FunctionType(ir.VoidType(), [i32]), name="blkc_pool_take")
    take.linkage = "internal"
    entry, again, check, run, leave = (
        take.append_basic_block(n) for n in ("entry", "again", "check", "run", "leave")
    )
    b = ir.IRBuilder(entry)
    b.branch(again)
    b = ir.IRBuilder(again)
    v = atomic_load(b, ticket)
    current = b.trunc(b.lshr(v, ir.Constant(i64, 32)), i32)
    b.cbranch(b.icmp_unsigned("==", current, take.args[0]), check, leave)
    b = ir.IRBuilder(check)
    job = (fn_g, argv_g, bounds_g, total, chunks, gx_g, gy_g, gz_g)
    fields = [b.load(g, typ=g.value_type) for g in job]
    fn, argv, bounds, total_v, chunks_v, gx, gy, gz = fields
    index = b.and_(v, ir.Constant(i64, 0xFFFFFFFF))
    has = b.icmp_unsigned("<", index, chunks_v)
    taken_block = take.append_basic_block("cas")
    b.cbranch(has, taken_block, leave)
    b = ir.IRBuilder(taken_block)
    pair = b.cmpxchg(ticket, v, b.add(v, ir.Constant(i64, 1)), "seq_cst", "seq_cst")
    b.cbranch(b.extract_value(pair, 1), run, again)
    b = ir.IRBuilder(run)
    start = b.udiv(b.mul(total_v, index), chunks_v)
    end = b.udiv(b.mul(total_v, b.add(index, ir.Constant(i64, 1))), chunks_v)
    b.call(fn, [argv, bounds, start, end, gx, gy, gz])
    b.branch(again)
    ir.IRBuilder(leave).ret_void()

    # blkc_pool_worker(): wait for a job, take a seat, take chunks; forever (until stop).
    worker = ir.Function(module, ir.FunctionType(ir.VoidType(), []), name="blkc_pool_worker")
    entry, wait, spin, sleep, woke, got, seat, done = (
        worker.append_basic_block(n)
        for n in ("entry", "wait", "spin", "sleep", "woke", "got", "seat", "done")
    )
    b = ir.IRBuilder(entry)
    seen_slot = b.alloca(i32)
    count_slot = b.alloca(i32)
    b.store(atomic_load(b, gen), seen_slot)
    b.branch(wait)
    b = ir.IRBuilder(wait)
    b.store(ir.Constant(i32, 0), count_slot)
    b.branch(spin)
    b = ir.IRBuilder(spin)
    now = atomic_load(b, gen)
    seen = b.load(seen_slot, typ=i32)
    spun = b.load(count_slot, typ=i32)
    keep_spinning = spin.function.append_basic_block("spin.more")
    changed = b.icmp_unsigned("!=", now, seen)
    b.cbranch(changed, got, keep_spinning)
    b = ir.IRBuilder(keep_spinning)
    b.call(pause_fn, pause_args)
    b.store(b.add(spun, ir.Constant(i32, 1)), count_slot)
    b.cbranch(b.icmp_unsigned("<", spun, ir.Constant(i32, IDLE_SPIN)), spin, sleep)
    b = ir.IRBuilder(sleep)
    b.atomic_rmw("add", sleepers, ir.Constant(i32, 1), "seq_cst")
    still = b.icmp_unsigned("==", atomic_load(b, gen), b.load(seen_slot, typ=i32))
    futex_wait = worker.append_basic_block("futex.wait")
    b.cbranch(still, futex_wait, woke)
    b = ir.IRBuilder(futex_wait)
    null = ir.Constant(ptr, None)
    futex(b, gen, _FUTEX_WAIT_PRIVATE, b.load(seen_slot, typ=i32))
    b.branch(woke)
    b = ir.IRBuilder(woke)
    b.atomic_rmw("sub", sleepers, ir.Constant(i32, 1), "seq_cst")
    b.branch(wait)
    b = ir.IRBuilder(got)
    now = atomic_load(b, gen)
    b.store(now, seen_slot)
    b.cbranch(b.icmp_unsigned("!=", atomic_load(b, stop), ir.Constant(i32, 0)), done, seat)
    b = ir.IRBuilder(seat)
    before = b.atomic_rmw("sub", seats, ir.Constant(i32, 1), "seq_cst")
    join = worker.append_basic_block("join")
    b.cbranch(b.icmp_signed(">", before, ir.Constant(i32, 0)), join, wait)
    b = ir.IRBuilder(join)
    b.atomic_rmw("add", active, ir.Constant(i32, 1), "seq_cst")
    b.call(take, [now])
    b.atomic_rmw("sub", active, ir.Constant(i32, 1), "seq_cst")
    b.branch(wait)
    ir.IRBuilder(done).ret_void()

    # blkc_pool_run(fn, argv, bounds, total, chunks, gx, gy, gz, seats): one job.
    run_fn = ir.Function(
        module,
        ir.FunctionType(ir.VoidType(), [launcher_ptr, ptr, ptr, i64, i64, i32, i32, i32, i32]),
        name="blkc_pool_run",
    )
    fn, argv, bounds, total_v, chunks_v, gx, gy, gz, seats_v = run_fn.args
    entry, acquire, backoff, park, parked, start, wake, own, wait_active, spin_active, finish = (
        run_fn.append_basic_block(n)
        for n in (
            "entry", "acquire", "backoff", "park", "parked", "start", "wake", "own", "wait",
            "spin", "finish",
        )
    )  # fmt: skip
    # One job at a time: a launch from another thread waits (spinning, then on a futex).
    b = ir.IRBuilder(entry)
    tries = b.alloca(i32)
    b.store(ir.Constant(i32, 0), tries)
    b.branch(acquire)
    b = ir.IRBuilder(acquire)
    pair = b.cmpxchg(busy, ir.Constant(i32, 0), ir.Constant(i32, 1), "seq_cst", "seq_cst")
    b.cbranch(b.extract_value(pair, 1), start, backoff)
    b = ir.IRBuilder(backoff)
    count = b.load(tries, typ=i32)
    b.store(b.add(count, ir.Constant(i32, 1)), tries)
    b.call(pause_fn, pause_args)
    b.cbranch(b.icmp_unsigned("<", count, ir.Constant(i32, BUSY_SPIN)), acquire, park)
    b = ir.IRBuilder(park)
    b.atomic_rmw("add", waiters, ir.Constant(i32, 1), "seq_cst")
    held = b.icmp_unsigned("!=", atomic_load(b, busy), ir.Constant(i32, 0))
    sleep_busy = run_fn.append_basic_block("park.wait")
    b.cbranch(held, sleep_busy, parked)
    b = ir.IRBuilder(sleep_busy)
    futex(b, busy, _FUTEX_WAIT_PRIVATE, ir.Constant(i32, 1))
    b.branch(parked)
    b = ir.IRBuilder(parked)
    b.atomic_rmw("sub", waiters, ir.Constant(i32, 1), "seq_cst")
    b.store(ir.Constant(i32, 0), tries)
    b.branch(acquire)
    b = ir.IRBuilder(start)
    next_gen = b.add(atomic_load(b, gen), ir.Constant(i32, 1))
    high = b.shl(b.zext(next_gen, i64), ir.Constant(i64, 32))
    atomic_store(b, b.or_(high, ir.Constant(i64, 0xFFFFFFFF)), ticket)  # busy
    for value, g in (
        (fn, fn_g), (argv, argv_g), (bounds, bounds_g), (total_v, total), (chunks_v, chunks),
        (gx, gx_g), (gy, gy_g), (gz, gz_g),
    ):  # fmt: skip
        b.store(value, g)
    atomic_store(b, seats_v, seats)
    atomic_store(b, high, ticket)
    atomic_store(b, next_gen, gen)
    sleeping = b.icmp_signed(">", atomic_load(b, sleepers), ir.Constant(i32, 0))
    b.cbranch(sleeping, wake, own)
    b = ir.IRBuilder(wake)
    futex(b, gen, _FUTEX_WAKE_PRIVATE, ir.Constant(i32, 2**31 - 1))
    b.branch(own)
    b = ir.IRBuilder(own)
    b.call(take, [next_gen])
    b.branch(wait_active)
    b = ir.IRBuilder(wait_active)
    idle = b.icmp_unsigned("==", atomic_load(b, active), ir.Constant(i32, 0))
    b.cbranch(idle, finish, spin_active)
    b = ir.IRBuilder(spin_active)
    b.call(pause_fn, pause_args)
    b.branch(wait_active)
    b = ir.IRBuilder(finish)
    atomic_store(b, ir.Constant(i32, 0), busy)
    someone = b.icmp_signed(">", atomic_load(b, waiters), ir.Constant(i32, 0))
    wake_one, out = run_fn.append_basic_block("handoff"), run_fn.append_basic_block("out")
    b.cbranch(someone, wake_one, out)
    b = ir.IRBuilder(wake_one)
    futex(b, busy, _FUTEX_WAKE_PRIVATE, ir.Constant(i32, 1))
    b.branch(out)
    ir.IRBuilder(out).ret_void()

    # blkc_pool_stop(): every worker returns (after its current job).
    stop_fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), name="blkc_pool_stop")
    b = ir.IRBuilder(stop_fn.append_basic_block("entry"))
    atomic_store(b, ir.Constant(i32, 1), stop)
    atomic_store(b, b.add(atomic_load(b, gen), ir.Constant(i32, 1)), gen)
    futex(b, gen, _FUTEX_WAKE_PRIVATE, ir.Constant(i32, 2**31 - 1))
    b.ret_void()

    # blkc_pool_sleeping(): how many workers sleep on the futex now.
    sleepers_fn = ir.Function(module, ir.FunctionType(i32, []), name="blkc_pool_sleeping")
    b = ir.IRBuilder(sleepers_fn.append_basic_block("entry"))
    b.ret(atomic_load(b, sleepers))

    # blkc_pool_after_fork(): a forked child has none of the workers; a job that another
    # thread was running when the process forked never ends there: forget it.
    fork_fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), name="blkc_pool_after_fork")
    b = ir.IRBuilder(fork_fn.append_basic_block("entry"))
    for word in (busy, waiters, active, sleepers, seats):
        atomic_store(b, ir.Constant(i32, 0), word)
    b.ret_void()
    return str(module)


_OPT = 2
"""The LLVM optimization level the pool's module is compiled at."""


def compiled_module(machine: str) -> CompiledModule | NativeModule:
    """The pool's module, JIT-compiled for `machine`: its object code from the disk cache
    where a process stored it (keyed as kernels are, so a changed blkc, llvmlite or host
    CPU compiles it again), else compiled (about 30 ms) and stored."""
    from blkc.runtime import cache
    from blkc.runtime.elf_loader import cached_module

    key = cache.key("native-pool", machine, _OPT)
    return cached_module(key, "pool", lambda: _module_ir(machine), _OPT)


class _Pool:
    def __init__(self, workers: int):
        from blkc.runtime.elf_loader import register_symbol

        syscall = ctypes.cast(ctypes.CDLL(None).syscall, ctypes.c_void_p).value
        assert syscall is not None
        register_symbol("syscall", syscall)
        self.module = compiled_module(platform.machine())
        self.run_address = self.module.address("blkc_pool_run")
        self.run = ctypes.CFUNCTYPE(
            None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
            ctypes.c_int64, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
        )(self.module.address("blkc_pool_run"))  # fmt: skip
        self._worker = ctypes.CFUNCTYPE(None)(self.module.address("blkc_pool_worker"))
        self.stop = ctypes.CFUNCTYPE(None)(self.module.address("blkc_pool_stop"))
        self._forget = ctypes.CFUNCTYPE(None)(self.module.address("blkc_pool_after_fork"))
        self.sleeping = ctypes.CFUNCTYPE(ctypes.c_int32)(self.module.address("blkc_pool_sleeping"))
        """How many workers sleep now (the others spin, or run a job)."""
        self.workers = workers
        self.threads = [
            threading.Thread(target=self._serve, name=f"blkc-native-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self.threads:
            thread.start()
        atexit.register(self.close)

    def close(self) -> None:
        """Stop the workers and wait for them (at exit: before the code they run is freed)."""
        self.stop()
        for thread in self.threads:
            thread.join(timeout=1.0)

    def _serve(self) -> None:
        self._worker()

    def after_fork(self) -> None:
        """In a forked child: no worker survived the fork, so launches run on the calling
        thread alone (correct, on one core), and no job is in flight."""
        self._forget()
        self.threads = []


_pools: dict[int, _Pool] = {}
_pools_lock = threading.Lock()


def _after_fork_in_child() -> None:
    global _pools_lock
    _pools_lock = threading.Lock()  # another thread may have held it at the fork
    for found in _pools.values():
        found.after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def pool(workers: int) -> _Pool:
    """The process's native pool of `workers` threads (started at first use, by one thread
    however many launch at once)."""
    found = _pools.get(workers)
    if found is None:
        with _pools_lock:
            found = _pools.get(workers)
            if found is None:
                found = _pools[workers] = _Pool(workers)
    return found


_FORMATS = {
    ctypes.c_void_p: "Q",
    ctypes.c_float: "f4x",
    ctypes.c_double: "d",
}


def pack_arguments(values: Sequence[ctypes._SimpleCData]) -> ctypes.Array[ctypes.c_char]:
    """The launch values (ctypes scalars, as `launch.convert_args` makes them) as the 8-byte
    slots a packed launcher reads: addresses and integers as 64-bit integers (sign-extended:
    the launcher reads the low bytes it needs), float32 in the low 4 bytes, doubles."""
    parts = []
    data: list[object] = []
    for value in values:
        fmt = _FORMATS.get(type(value), "q")
        parts.append(fmt)
        raw = value.value
        data.append((raw or 0) if fmt == "Q" else int(raw) if fmt == "q" else raw)
    layout = "<" + "".join(parts)
    buffer = ctypes.create_string_buffer(struct.calcsize(layout) or 8)
    struct.pack_into(layout, buffer, 0, *data)
    return buffer
