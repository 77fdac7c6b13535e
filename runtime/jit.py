"""LLVM IR text to native code in this process, through llvmlite's MCJIT.

One target machine per engine (an engine owns it), the host CPU's name and features, the
new pass manager at O3 with the loop and SLP vectorizers on. Before code is handed to the
engine, every external symbol it calls must resolve in this process: MCJIT does not report
a missing one, and calling it would crash the process.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import llvmlite.binding as llvm

context_lock = threading.Lock()
"""Held by every use of LLVM's global context in this process (parsing, optimizing and
compiling modules in it, here and in `runtime.ptx`), which is not thread-safe, and by
every request to the compile worker (`compile_isolated`) and its retirement."""


def _runtime_symbols() -> None:
    """The symbols blkc's runtime registered before LLVM was loaded (`elf_loader`), and the
    C math library, which LLVM searches only when loaded through it."""
    from blkc.runtime.elf_loader import runtime_symbols

    add_symbols(runtime_symbols())
    load_libm()


@cache
def initialize() -> None:
    """Initialize LLVM's native target, its assembly printer and parser (once)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()


def host_triple() -> str:
    initialize()
    return llvm.get_process_triple()


@cache
def streaming_stores_supported() -> bool:
    """Whether the host has non-temporal vector stores (x86 with SSE2; other hosts keep
    plain stores)."""
    initialize()
    triple = llvm.get_process_triple()
    x86 = triple.startswith(("x86_64", "i686", "i386"))
    return x86 and bool(llvm.get_host_cpu_features().get("sse2"))


_STREAM_SCOPE = re.compile(r'^(![0-9]+) = !\{!"blkc\.nontemporal", ![0-9]+\}$', re.MULTILINE)
_VECTOR_STORE = re.compile(
    r"^(\s+store <(\d+) x (float|double|half|i8|i16|i32|i64)> .*, align (\d+)), "
    r"(.*!alias\.scope (![0-9]+).*)$",
    re.MULTILINE,
)
_BYTES = {"float": 4, "double": 8, "half": 2, "i8": 1, "i16": 2, "i32": 4, "i64": 8}
NONTEMPORAL_ALIGNMENT = 16
"""The alignment a marked vector store needs to become non-temporal: x86's narrowest
non-temporal vector store (`movntps`, 16 bytes) needs it, and the code generator splits a
wider store that has only this alignment into such stores. So arrays at any 16-byte
boundary stream (NumPy's large arrays start 16 bytes past a page), not only those on a
cache line."""


def mark_nontemporal(llvm_ir: str) -> str:
    """Make the vector stores the code generator marked (an alias scope named
    "blkc.nontemporal") non-temporal where they are `NONTEMPORAL_ALIGNMENT`-aligned (or
    aligned to their whole width, where that is less).

    This happens after optimization because the loop vectorizer refuses a loop whose
    scalar stores are non-temporal and less aligned than two elements, and scalar
    non-temporal stores (SSE4A's movntss) are slower than plain ones."""
    scope = _STREAM_SCOPE.search(llvm_ir)
    if scope is None:
        return llvm_ir
    lists = {
        m.group(1)
        for m in re.finditer(r"^(![0-9]+) = !\{([^}\n]*)\}$", llvm_ir, re.MULTILINE)
        if scope.group(1) in re.findall(r"![0-9]+", m.group(2))
    }
    numbers = [int(n) for n in re.findall(r"^!([0-9]+) =", llvm_ir, re.MULTILINE)]
    node = f"!{max(numbers) + 1}"

    def mark(store: re.Match[str]) -> str:
        count, element, align = int(store.group(2)), store.group(3), int(store.group(4))
        needed = min(NONTEMPORAL_ALIGNMENT, count * _BYTES[element])
        if store.group(6) not in lists or align < needed:
            return store.group(0)
        return f"{store.group(1)}, !nontemporal {node}, {store.group(5)}"

    marked = _VECTOR_STORE.sub(mark, llvm_ir)
    return marked if marked == llvm_ir else f"{marked}\n{node} = !{{i32 1}}\n"


def _target_machine(opt: int) -> llvm.TargetMachine:
    from blkc.runtime.cpu_target import host

    initialize()
    cpu = host()
    target = llvm.Target.from_triple(cpu.triple)
    return target.create_target_machine(
        cpu=cpu.cpu,
        features=cpu.llvm_features,
        opt=opt,
        reloc="default",
        codemodel="jitdefault",
    )


def optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine, opt: int) -> None:
    """Run LLVM's O`opt` pipeline with loop and SLP vectorization."""
    tuning = llvm.create_pipeline_tuning_options(speed_level=opt)
    tuning.loop_vectorization = opt >= 2
    tuning.slp_vectorization = opt >= 2
    tuning.loop_unrolling = opt >= 2
    builder = llvm.create_pass_builder(tm, tuning)
    builder.getModulePassManager().run(module, builder)


class UnresolvedSymbolError(RuntimeError):
    """Generated code calls a function that exists neither in it nor in this process."""


@dataclass
class CompiledModule:
    """A module JIT-compiled into this process; keep it alive while its code runs."""

    engine: llvm.ExecutionEngine
    llvm_ir: str
    """The optimized LLVM IR."""
    object_code: bytes | None = None
    """The machine code MCJIT produced (or was given), for the on-disk cache."""

    def address(self, name: str) -> int:
        address = self.engine.get_function_address(name)
        if not address:
            raise KeyError(f"no function '{name}' in the compiled module")
        return address

    def assembly(self) -> str:
        return assembly(self.llvm_ir)


def assembly(llvm_ir: str) -> str:
    """The host assembly of (optimized) LLVM IR text."""
    with context_lock:
        tm = _target_machine(3)
        return tm.emit_assembly(llvm.parse_assembly(llvm_ir))


def add_symbols(symbols: dict[str, int]) -> None:
    """Make each name resolve to its address in the code LLVM loads from now on."""
    for name, address in symbols.items():
        llvm.add_symbol(name, address)


def _check_symbols(module: llvm.ModuleRef) -> None:
    missing = []
    for function in module.functions:
        if function.is_declaration and not function.name.startswith("llvm."):
            if not llvm.address_of_symbol(function.name):
                missing.append(function.name)
    if missing:
        raise UnresolvedSymbolError(
            "generated code calls functions this process does not have: " + ", ".join(missing)
        )


def compile_ir(
    llvm_ir: str, opt: int = 3, *, optimized: bool = False, object_code: bytes | None = None
) -> CompiledModule:
    """Parse, optimize (unless `optimized`) and JIT-compile LLVM IR text.

    With `object_code` (from an earlier compilation of the same optimized IR, on this
    machine), MCJIT loads it instead of generating code again.
    """
    with context_lock:
        module, tm, optimized_ir = _optimized(llvm_ir, opt, passes=not optimized)
        _check_symbols(module)
        engine = llvm.create_mcjit_compiler(module, tm)
        produced: list[bytes] = []
        engine.set_object_cache(
            lambda _module, data: produced.append(bytes(data)), lambda _module: object_code
        )
        engine.finalize_object()
        engine.run_static_constructors()
        return CompiledModule(engine, optimized_ir, produced[0] if produced else object_code)


def _optimized(
    llvm_ir: str, opt: int, passes: bool = True
) -> tuple[llvm.ModuleRef, llvm.TargetMachine, str]:
    """`llvm_ir` parsed and, with `passes` and `opt` not 0, optimized at O`opt` with its
    marked stores made non-temporal (`mark_nontemporal`); the target machine at O`opt`;
    and the module's text (under `context_lock`, or in the worker process)."""
    module, tm = _parsed(llvm_ir, opt)
    if not (opt and passes):
        return module, tm, str(module)
    optimize(module, tm, opt)
    text = str(module)
    marked = mark_nontemporal(text)
    if marked != text:
        module = llvm.parse_assembly(marked)
        module.verify()
    return module, tm, marked


def object_code(llvm_ir: str, opt: int) -> bytes:
    """Optimize LLVM IR text at O`opt` and compile it to an object file for the host, to be
    loaded by `elf_loader` (no engine: its symbols are resolved there)."""
    with context_lock:
        module, tm = _parsed(llvm_ir, opt)
        if opt:
            optimize(module, tm, opt)
        return bytes(tm.emit_object(module))


ISOLATE_SETTING = "BLKC_ISOLATE_LLVM"
"""The environment variable that, set to 0, has LLVM compile kernels in this process."""


class CodeGeneratorCrash(RuntimeError):
    """LLVM ended the child process that compiled a kernel (one of its assertions failed,
    or it crashed): a bug of blkc's code generation, which this process survives."""


def isolated() -> bool:
    """Whether kernels compile in a child process (`compile_isolated`): where the platform
    forks (Linux), unless `BLKC_ISOLATE_LLVM` is 0."""
    import sys

    setting = os.environ.get(ISOLATE_SETTING, "").strip()
    return setting != "0" and sys.platform.startswith("linux") and hasattr(os, "fork")


def _optimized_object(llvm_ir: str, opt: int, check: bool = True) -> tuple[str, bytes]:
    """`compile_ir`'s work without the engine (under `context_lock`, or in the worker
    process): the optimized IR and its object code; `check`: that the symbols it calls
    exist here (the worker leaves that to the loader: symbols registered after its fork
    are not in it)."""
    module, tm, text = _optimized(llvm_ir, opt)
    if check:
        _check_symbols(module)
    return text, bytes(tm.emit_object(module))


def compile_isolated(llvm_ir: str, opt: int, what: str) -> tuple[str, bytes]:
    """The optimized IR and object code of LLVM IR text (as `compile_ir` makes them, to be
    loaded by `elf_loader.load_module`), made in a worker process: the LLVM that llvmlite
    bundles is built with assertions, and one that fails aborts the process it runs in.
    Here it ends the worker, and this process raises `CodeGeneratorCrash` naming `what`
    (the kernel) and LLVM's message; the next compilation starts a new worker. Errors LLVM
    reports (invalid IR) are raised here as they were there, and what it prints reaches
    stderr; a missing symbol is the loader's to find.

    Workers are forked from this process as compilations need them, one per compilation
    running at once (threads compiling kernels together, as an autotuned kernel's configs
    do: `compile_in_parallel`), at most one per core (`launch.cores`); each serves the
    compilations that follow within `WORKER_IDLE` seconds of each other (a fork for each
    cost 10 ms: the child's first writes copy the pages it shares); then it ends, so that
    the memory it shares with this process is this process's alone again (an array freed
    here stays in memory while a worker that forked with it lives). Where fork fails, the
    compilation runs here."""
    for _ in range(2):
        worker = _Worker.take()
        if worker is None:
            with context_lock:
                return _optimized_object(llvm_ir, opt)
        try:
            result = worker.compile(llvm_ir, opt, what)
        except BrokenPipeError:
            worker._stop(None)  # it had ended (killed) before this request: start again
            continue
        finally:
            if worker.alive:
                _Worker.give_back(worker)
        return result
    raise CodeGeneratorCrash(f"the worker compiling {what} ended at once, twice")


def compile_in_parallel(jobs: Sequence[Callable[[], object]]) -> None:
    """Run `jobs` (each compiling a kernel's native code) on as many threads as there are
    workers to compile in (`compile_isolated`): while one thread waits for its worker,
    another prepares the next request. Where only one compilation can run at a time (one
    core, or kernels compiled in this process), nothing runs here: each kernel compiles at
    its first launch, as it would have. An exception of a job is dropped: the launch that
    needs that kernel meets it again, where it belongs."""
    threads = min(len(jobs), parallel_compilations())
    if threads <= 1:
        return
    from concurrent.futures import ThreadPoolExecutor

    def run(job: Callable[[], object]) -> None:
        try:
            job()
        except Exception:  # noqa: BLE001, S110 - met again at the launch that needs it
            pass

    with ThreadPoolExecutor(threads, thread_name_prefix="blkc-compile") as pool:
        list(pool.map(run, jobs))


def parallel_compilations() -> int:
    """How many compilations can run side by side: one per worker process allowed (one per
    core), or one where kernels compile in this process."""
    return _Worker.limit() if isolated() else 1


WORKER_IDLE = 2.0
"""Seconds after its last compilation that an idle worker process ends (`compile_isolated`)."""


class _Worker:
    """A process forked from this one that compiles LLVM IR on request, for one compilation
    at a time: requests and results are pickled tuples, each after its length (8 bytes),
    through two pipes; its stderr goes to a temporary file, read after each request."""

    idle: list[_Worker] = []  # noqa: RUF012 - the pool's state, shared
    """Workers waiting for a compilation, the most recently used last."""
    started: list[_Worker] = []  # noqa: RUF012
    """Every worker of this process that has not ended."""
    available = threading.Condition()
    """Held to change the pool; notified when a worker is given back or ends."""
    used = 0.0
    """When the last compilation ended (`time.monotonic`)."""
    timer: threading.Timer | None = None

    def __init__(self, pid: int, requests: int, results: int, messages: Any) -> None:
        self.pid, self.requests, self.results, self.messages = pid, requests, results, messages
        self.alive = True

    @staticmethod
    def limit() -> int:
        """How many workers may run at once: one per core this process may use."""
        from blkc.runtime.launch import cores

        return max(1, cores())

    @classmethod
    def take(cls) -> _Worker | None:
        """A worker for one compilation, started if none is idle and fewer than `limit`
        run (else the next one given back); None where fork fails."""
        with cls.available:
            while not cls.idle and len(cls.started) >= cls.limit():
                cls.available.wait()
            if cls.idle:
                return cls.idle.pop()
            with context_lock:  # no thread of this process runs LLVM while it forks
                worker = cls._start()
            if worker is not None:
                cls.started.append(worker)
            return worker

    @classmethod
    def give_back(cls, worker: _Worker) -> None:
        """`worker` is idle again; it ends `WORKER_IDLE` seconds after the pool's last use."""
        import time

        with cls.available:
            cls.used = time.monotonic()
            cls.idle.append(worker)
            cls.available.notify()
            if cls.timer is None:
                cls.timer = threading.Timer(WORKER_IDLE, cls._retire)
                cls.timer.daemon = True
                cls.timer.start()

    @classmethod
    def _retire(cls) -> None:
        import signal
        import time

        with cls.available:
            cls.timer = None
            idle = time.monotonic() - cls.used
            if idle < WORKER_IDLE and cls.started:  # used since: wait for the rest
                cls.timer = threading.Timer(WORKER_IDLE - idle, cls._retire)
                cls.timer.daemon = True
                cls.timer.start()
                return
            retired, cls.idle = cls.idle, []
        for worker in retired:
            worker._stop(signal.SIGTERM)

    @classmethod
    def _forget_inherited(cls) -> None:
        """In a process forked from this one: the workers are the parent's (their pipes are
        closed here), and the pool starts empty."""
        for worker in cls.started:
            for fd in (worker.requests, worker.results):
                try:
                    os.close(fd)
                except OSError:
                    pass
        cls.idle, cls.started = [], []
        cls.available = threading.Condition()
        cls.timer = None  # the parent's timer thread is not in this process

    @classmethod
    def _start(cls) -> _Worker | None:
        import tempfile
        import warnings

        messages = tempfile.TemporaryFile()
        to_worker, from_parent = os.pipe()[::-1]
        from_worker, to_parent = os.pipe()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # forking with threads
                pid = os.fork()
        except OSError:
            for fd in (to_worker, from_parent, from_worker, to_parent):
                os.close(fd)
            messages.close()
            return None
        if pid == 0:
            try:
                os.close(to_worker)
                os.close(from_worker)
                _serve(from_parent, to_parent, messages.fileno())
            finally:
                os._exit(0)
        os.close(from_parent)
        os.close(to_parent)
        return cls(pid, to_worker, from_worker, messages)

    def compile(self, llvm_ir: str, opt: int, what: str) -> tuple[str, bytes]:
        import pickle
        import signal
        import sys

        start = self.messages.seek(0, 2)
        _send(self.requests, pickle.dumps((llvm_ir, opt)))  # BrokenPipeError: it had ended
        try:
            answer = _receive(self.results)
        except BaseException:
            self._stop(signal.SIGKILL)  # a Ctrl-C: its answer would answer the next request
            raise
        self.messages.seek(start)
        printed = self.messages.read().decode(errors="replace")
        if answer is None:  # the worker ended before it answered
            status = self._stop(None)
            if os.WIFSIGNALED(status):
                ending = f"signal {signal.Signals(os.WTERMSIG(status)).name}"
            else:
                ending = f"exit status {os.WEXITSTATUS(status)}"
            said = [line.strip() for line in printed.splitlines() if line.strip()]
            raise CodeGeneratorCrash(
                f"LLVM crashed compiling {what} ({ending}"
                + (f": {said[-1]}" if said else "")
                + "). This is a bug of blkc's code generation: please report it with the "
                f"kernel. This process goes on (LLVM ran in a worker process; "
                f"{ISOLATE_SETTING}=0 runs it here)."
            )
        if printed:
            sys.stderr.write(printed)
        kind, value = pickle.loads(answer)
        if kind == "error":
            raise value
        return value  # type: ignore[no-any-return]

    def _stop(self, kill: int | None) -> int:
        """End the worker (sending `kill` first, if given) and wait for it; its status.

        It leaves the pool before its pipes close: a worker forked after that reuses
        their numbers for its own pipes, which it would close as the pipes of a worker
        of the pool it inherits (`_forget_inherited`) while this one was still there."""
        with _Worker.available:
            if self in _Worker.started:
                _Worker.started.remove(self)
            _Worker.available.notify()
        self.alive = False
        if kill is not None:
            try:
                os.kill(self.pid, kill)
            except ProcessLookupError:
                pass
        os.close(self.requests)
        os.close(self.results)
        self.messages.close()
        _, status = os.waitpid(self.pid, 0)
        return status


if hasattr(os, "register_at_fork"):  # where processes fork (not on Windows)
    os.register_at_fork(after_in_child=_Worker._forget_inherited)


def _send(fd: int, data: bytes) -> None:
    view = memoryview(len(data).to_bytes(8, "little") + data)
    while view:
        view = view[os.write(fd, view) :]


def _receive(fd: int) -> bytes | None:
    """The next message from `fd`; None at the end of the stream."""
    head = _read(fd, 8)
    return None if head is None else _read(fd, int.from_bytes(head, "little"))


def _read(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _serve(requests: int, results: int, messages: int) -> None:
    """The worker: compile each request until the parent closes its end (it exited)."""
    import faulthandler
    import pickle

    os.dup2(messages, 2)
    faulthandler.disable()  # its report of a crash would reach the terminal
    # The parent's other files stay theirs: a pipe it closes must reach its end of file.
    low, high = sorted((requests, results))
    os.closerange(3, low)
    os.closerange(low + 1, high)
    os.closerange(high + 1, 1 << 20)
    while (request := _receive(requests)) is not None:
        llvm_ir, opt = pickle.loads(request)
        try:
            result: tuple[str, object] = ("ok", _optimized_object(llvm_ir, opt, False))
        except Exception as exc:  # noqa: BLE001 - sent to the parent, raised there
            result = ("error", exc)
        try:
            data = pickle.dumps(result)
        except Exception as exc:  # noqa: BLE001 - an exception that does not pickle
            data = pickle.dumps(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))
        _send(results, data)


def _parsed(llvm_ir: str, opt: int) -> tuple[llvm.ModuleRef, llvm.TargetMachine]:
    """`llvm_ir` parsed and verified, and the host's target machine at O`opt`, the module
    set to its triple and data layout (under `context_lock`)."""
    initialize()
    module = llvm.parse_assembly(llvm_ir)
    module.verify()
    tm = _target_machine(opt)
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    return module, tm


_DECLARED = re.compile(r'[^@\n]*@("[^"\n]+"|[-\w$.]+)\(')
"""The name of the function a `declare` line of LLVM IR declares (after ``declare``)."""


def load_object(llvm_ir: str, object_code: bytes) -> CompiledModule:
    """Load the object code `compile_ir` made for `llvm_ir` (its optimized IR, compiled on
    this machine: the disk cache's key holds the host CPU) without parsing or optimizing
    the IR: no LLVM pass, no code generation.

    The functions the IR declares must exist in this process first (MCJIT would not
    report a missing one), as `compile_ir` checks; else UnresolvedSymbolError."""
    declared = (_DECLARED.match(line) for line in llvm_ir.split("\ndeclare ")[1:])
    missing = [
        name
        for name in (m.group(1).strip('"') for m in declared if m)
        if not name.startswith("llvm.") and not llvm.address_of_symbol(name)
    ]
    if missing:
        raise UnresolvedSymbolError(
            "cached code calls functions this process does not have: " + ", ".join(missing)
        )
    initialize()
    # The engine needs a module: an empty one, in a context of its own (the global one
    # belongs to `compile_ir`, under its lock). The object brings the code.
    module = llvm.parse_assembly("", llvm.create_context())
    module.triple = host_triple()
    machine = llvm.Target.from_triple(module.triple).create_target_machine(codemodel="jitdefault")
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
    engine.finalize_object()
    return CompiledModule(engine, llvm_ir, object_code)


@cache
def load_libm() -> None:
    """Make the C math library's symbols visible to generated code. LLVM searches only
    the libraries loaded through it (a `ctypes.CDLL(..., RTLD_GLOBAL)` is not enough:
    `erff` stayed unresolved). The usual names come first: `ctypes.util.find_library`
    imports subprocess and runs ldconfig (about 10 ms of a warm start's first launch)."""
    for name in ("libm.so.6", "libm.so"):
        if _load_library(name):
            return
    import ctypes.util

    found = ctypes.util.find_library("m")
    if found is not None:
        _load_library(found)


def _load_library(name: str) -> bool:
    try:
        llvm.load_library_permanently(name)
    except RuntimeError:
        return False
    return True


_runtime_symbols()
