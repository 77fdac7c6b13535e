"""blkc kernels over `dask.array` chunks: `map_blocks`.

    z = blkc.dask.map_blocks(add_kernel, x, y, out_dtype="float32",
                             grid=lambda out: (blkc.cdiv(out.size, 1024),),
                             args=lambda out: (out.size,), BLOCK=1024)

Each task launches ``kernel[grid(out)](*input_blocks, out, *args(out), **meta)`` on its
chunks and a fresh output block, and returns the block. Kernels travel to workers by their
source or IR text (see `blkc.JITFunction.__reduce__`, `blkc.Kernel.__reduce__`); a worker
compiles each kernel once, or loads it from the disk cache. Dask is optional
(``pip install 'blkc[dask]'``): importing blkc, or this module, imports none of it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import numpy

from blkc.runtime import launch

if TYPE_CHECKING:
    import dask.array

Shape = tuple[int, ...]
GridOf = Callable[[numpy.ndarray], Any]
"""The grid of one block's launch, from its output block: a tuple of 1 to 3 ints."""


def map_blocks(
    kernel: Any,
    *arrays: Any,
    out_dtype: Any,
    grid: GridOf | Sequence[int],
    args: Callable[[numpy.ndarray], Sequence[object]] | Sequence[object] = (),
    out_shape: Callable[[Shape], Shape] | None = None,
    chunks: Sequence[Sequence[int]] | None = None,
    token: str | None = None,
    **meta: Any,
) -> dask.array.Array:
    """A lazy `dask.array.Array` whose every block is
    ``kernel[grid(out)](*blocks, out, *args(out), **meta)``'s `out`.

    `kernel`: a `@blkc.jit` function (autotuned or not), a `blkc.Kernel` or a Triton-C
    kernel. `arrays`: dask arrays (NumPy arrays are wrapped in one chunk each); their
    chunks are unified as `dask.array.map_blocks` does (rechunked to a common grid,
    broadcast where their shapes differ), and each task passes its blocks, read-only and
    C-contiguous (a strided block is copied), in that order. `out` is a fresh
    `out_dtype` block of the inputs' broadcast block shape, or of `out_shape(shape)` for
    blocks of shape `shape`, or of the output's `chunks` where given (as
    `dask.array.map_blocks` takes them). An output of fewer axes drops the inputs'
    trailing ones (a row reduction), whose tasks then get them whole (rechunked). `grid`
    and `args` are tuples or functions of `out`. `token` prefixes the output's task names
    (default: `blkc-` and the kernel's name), followed by a hash of the inputs and
    arguments. In a `distributed` worker each launch uses its task's share of the cores
    (see `worker_threads`).
    """
    da = _dask_array()
    if not callable(getattr(kernel, "__getitem__", None)):
        raise TypeError(
            f"blkc.dask.map_blocks: the kernel must be launchable as kernel[grid](...) (a "
            f"@blkc.jit function, blkc.Kernel or Triton-C kernel), not {type(kernel).__name__}"
        )
    if not arrays:
        raise TypeError("blkc.dask.map_blocks needs at least one input array")
    dtype = numpy.dtype(out_dtype)
    inputs = [a if isinstance(a, da.Array) else da.from_array(numpy.asarray(a)) for a in arrays]
    dropped = _dropped_axes(inputs, out_shape, chunks)
    if dropped:
        inputs = [a.rechunk({axis: -1 for axis in range(max(a.ndim - dropped, 0), a.ndim)})
                  for a in inputs]  # fmt: skip
    common, inputs = _unified(da, inputs)
    ndim = len(common)
    if chunks is None:
        chunks = common if out_shape is None else _output_chunks(common, out_shape)
    drop_axis = list(range(ndim - dropped, ndim)) if dropped else None
    task = partial(_run_block, _Shipped(kernel), dtype, grid, args, meta)
    chunks = tuple(tuple(c) for c in chunks)
    label = token or f"blkc-{getattr(kernel, '__name__', None) or getattr(kernel, 'name', '')}"
    # The name in full (Dask's meaning of `token` and `name` changed between releases).
    name = f"{label}-{_tokenize(task, dtype, chunks, drop_axis, *inputs)}"
    return da.map_blocks(
        task,
        *inputs,
        dtype=dtype,
        chunks=chunks,
        drop_axis=drop_axis,
        name=name,
        meta=numpy.empty((0,) * len(chunks), dtype),
    )


def _tokenize(*parts: Any) -> str:
    from dask.base import tokenize

    return tokenize(*parts)


def _dask_array() -> Any:
    try:
        import dask.array as da
    except ImportError as err:
        raise ImportError(
            "blkc.dask needs Dask: pip install 'blkc[dask]' (dask[array] and distributed)"
        ) from err
    return da


def _dropped_axes(
    inputs: list[Any], out_shape: Callable[[Shape], Shape] | None, chunks: Any
) -> int:
    """How many trailing axes of the inputs the output drops (`out_shape` or `chunks`
    with fewer axes: a reduction, whose tasks need those axes whole)."""
    ndim = max(a.ndim for a in inputs)
    if out_shape is not None:
        kept = len(_call_out_shape(out_shape, (1,) * ndim))
    else:
        kept = ndim if chunks is None else len(chunks)
    if kept > ndim:
        raise ValueError(
            f"blkc.dask.map_blocks: the output has {kept} axes, its inputs {ndim}: an output "
            "may drop the inputs' trailing axes, not add axes"
        )
    return ndim - kept


def _unified(da: Any, inputs: list[Any]) -> tuple[tuple[tuple[int, ...], ...], list[Any]]:
    """The inputs' common chunks (their axes aligned from the last, as broadcasting
    aligns them) and the inputs rechunked to them."""
    ndim = max(a.ndim for a in inputs)
    letters = [f"a{axis}" for axis in range(ndim)]
    pairs = [x for a in inputs for x in (a, tuple(letters[ndim - a.ndim :]))]
    common, unified = da.core.unify_chunks(*pairs)
    return tuple(common[letter] for letter in letters), list(unified)


def _output_chunks(
    common: tuple[tuple[int, ...], ...], out_shape: Callable[[Shape], Shape]
) -> tuple[tuple[int, ...], ...]:
    """The output's chunks: along each axis, `out_shape` of the block shape whose extent
    there is each block's (the other axes at their first block's)."""
    first = [c[0] for c in common]
    result = []
    for axis in range(len(_call_out_shape(out_shape, tuple(first)))):
        extents = []
        for extent in common[axis]:
            shape = [*first]
            shape[axis] = extent
            extents.append(_call_out_shape(out_shape, tuple(shape))[axis])
        result.append(tuple(extents))
    return tuple(result)


def _call_out_shape(out_shape: Callable[[Shape], Shape], shape: Shape) -> Shape:
    result = out_shape(shape)
    if not isinstance(result, tuple | list) or not all(
        isinstance(e, int | numpy.integer) and e >= 0 for e in result
    ):
        raise TypeError(
            f"blkc.dask.map_blocks: out_shape{shape} must be a tuple of sizes, got {result!r}"
        )
    return tuple(int(e) for e in result)


class _Shipped:
    """A kernel as tasks carry it: pickled once, when its graph is first pickled (never on
    the threaded scheduler); a process unpickles it once (by its digest) and keeps it for
    the next tasks, which reuse its compiled variants and launch stubs instead of
    rebuilding a kernel per task."""

    _received: ClassVar[dict[str, Any]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, kernel: Any, pickled: tuple[bytes, str] | None = None) -> None:
        self.kernel = kernel
        self.pickled = pickled

    @classmethod
    def receive(cls, payload: bytes, digest: str) -> _Shipped:
        with cls._lock:
            kernel = cls._received.get(digest)
        if kernel is None:
            kernel = pickle.loads(payload)
            with cls._lock:
                kernel = cls._received.setdefault(digest, kernel)
        return cls(kernel, (payload, digest))

    def __reduce__(self) -> tuple[Any, ...]:
        if self.pickled is None:
            import cloudpickle  # a dependency of Dask's: kernels of __main__ travel by value

            payload = cloudpickle.dumps(self.kernel)
            self.pickled = (payload, hashlib.sha256(payload).hexdigest())
        return (_Shipped.receive, self.pickled)


def _run_block(
    shipped: _Shipped,
    dtype: numpy.dtype[Any],
    grid: GridOf | Sequence[int],
    args: Callable[[numpy.ndarray], Sequence[object]] | Sequence[object],
    meta: dict[str, Any],
    *blocks: Any,
    block_info: dict[Any, Any] | None = None,
) -> numpy.ndarray:
    """One task: launch the kernel on `blocks` and a fresh output block, and return it."""
    kernel = shipped.kernel
    shape = tuple(block_info[None]["chunk-shape"]) if block_info else _broadcast_shape(blocks)
    out = numpy.empty(shape, dtype)
    inputs = [_kernel_input(block, index) for index, block in enumerate(blocks)]
    launch_grid = grid(out) if callable(grid) else grid
    extra = args(out) if callable(args) else args
    with launch.threads_per_launch(worker_threads()):
        kernel[launch_grid](*inputs, out, *extra, **meta)
    return out


def _broadcast_shape(blocks: Sequence[Any]) -> Shape:
    return tuple(numpy.broadcast_shapes(*(numpy.shape(b) for b in blocks)))


def _kernel_input(block: Any, index: int) -> numpy.ndarray:
    """A block as a kernel reads it: a read-only, C-contiguous NumPy array (a kernel that
    stores through an input is refused: the block may be another task's data)."""
    if not isinstance(block, numpy.ndarray):
        raise TypeError(
            f"blkc.dask.map_blocks: input {index} has a {type(block).__module__}."
            f"{type(block).__name__} block; blkc kernels run on NumPy blocks"
        )
    view = numpy.ascontiguousarray(block).view()
    view.flags.writeable = False
    return view


def worker_threads() -> int:
    """The threads one launch of a task may use. In a `distributed` worker: the limit set
    there (`blkc.set_num_threads`, `BLKC_NUM_THREADS`), else `OMP_NUM_THREADS` (which
    Dask's nanny sets to 1 in each worker process: Dask fills the cores with tasks, so
    native libraries run one thread per task), else the worker's cores over its threads.
    Elsewhere (Dask's threaded scheduler): every thread the process allows, since launches
    from several threads share the cores (at most `blkc.get_num_threads()` chunks of
    programs run at once)."""
    worker = _current_worker()
    if worker is None:
        return launch.process_threads()
    limit = launch.thread_limit()
    if limit is not None:
        return min(limit, launch.cores())
    hint = os.environ.get("OMP_NUM_THREADS", "").strip()
    if hint.isdigit() and int(hint) > 0:
        return min(int(hint), launch.cores())
    return max(1, launch.cores() // max(1, int(worker.state.nthreads)))


def _current_worker() -> Any:
    try:
        from distributed import get_worker
    except ImportError:
        return None
    try:
        return get_worker()
    except ValueError:
        return None


__all__ = ["map_blocks", "worker_threads"]
