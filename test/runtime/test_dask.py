"""`blkc.dask.map_blocks`: blkc kernels over dask.array chunks, on Dask's threaded
scheduler and on a `distributed.LocalCluster` of two worker processes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
blkc_dask = pytest.importorskip("blkc.dask")

EXAMPLES = Path(__file__).parents[2] / "examples"


@blkc.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@blkc.jit
def softmax(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + c, mask=c < cols, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * cols + c, e / tl.sum(e, axis=0), mask=c < cols)


@blkc.jit
def row_max(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + c, mask=c < cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


@blkc.jit
def off_by_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets + 1, mask=offsets < n), mask=offsets < n)


@blkc.jit
def in_place(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    tl.store(x_ptr + offsets, x * 2, mask=offsets < n)
    tl.store(out_ptr + offsets, x, mask=offsets < n)


@blkc.jit
def misspelt(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tl.store(out_ptr, tl.lod(x_ptr))  # reported at this line, from the worker


def vector_sum(x: Any, y: Any) -> Any:
    return blkc_dask.map_blocks(
        add, x, y, out_dtype="float32", grid=lambda out: (blkc.cdiv(out.size, 256),),
        args=lambda out: (out.size,), BLOCK=256,
    )  # fmt: skip


def row_softmax(x: Any) -> Any:
    return blkc_dask.map_blocks(
        softmax, x, out_dtype="float32", grid=lambda out: (out.shape[0],),
        args=lambda out: (out.shape[1],), BLOCK=blkc.next_power_of_2(x.shape[1]),
    )  # fmt: skip


def reference_softmax(x: numpy.ndarray) -> numpy.ndarray:
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def random(shape: tuple[int, ...], seed: int = 0) -> numpy.ndarray:
    return numpy.random.default_rng(seed).standard_normal(shape).astype(numpy.float32)


# ------------------------------------------------------------------------------------
# The threaded scheduler (in this process)
# ------------------------------------------------------------------------------------


def test_vectors_with_unaligned_chunks_are_rechunked_to_a_common_grid() -> None:
    x, y = random((3000,), 1), random((3000,), 2)
    z = vector_sum(da.from_array(x, chunks=700), da.from_array(y, chunks=1100))
    assert z.chunks == ((700, 400, 300, 700, 100, 600, 200),)
    numpy.testing.assert_array_equal(z.compute(scheduler="threads"), x + y)


def test_rows_of_a_multi_chunk_array_with_broadcast_shapes() -> None:
    x, bias = random((300, 40), 3), random((40,), 4)
    z = vector_sum(da.from_array(x, chunks=(64, 40)), da.from_array(numpy.tile(bias, (300, 1))))
    numpy.testing.assert_array_equal(z.compute(scheduler="threads"), x + bias)
    softmax_rows = row_softmax(da.from_array(x, chunks=(64, 40))).compute(scheduler="threads")
    numpy.testing.assert_allclose(softmax_rows, reference_softmax(x), rtol=1e-5)


def test_a_row_reduction_gets_whole_rows_and_its_own_output_shape() -> None:
    x = random((200, 90), 5)
    maxima = blkc_dask.map_blocks(
        row_max, da.from_array(x, chunks=(50, 30)), out_dtype="float32",
        out_shape=lambda shape: shape[:1], grid=lambda out: (out.shape[0],),
        args=(90,), BLOCK=128,
    )  # fmt: skip
    assert maxima.shape == (200,) and maxima.chunks == ((50, 50, 50, 50),)
    numpy.testing.assert_array_equal(maxima.compute(scheduler="threads"), x.max(axis=1))


def test_chunks_of_fewer_axes_make_a_reduction_too() -> None:
    x = random((64, 40), 20)
    maxima = blkc_dask.map_blocks(
        row_max, da.from_array(x, chunks=(16, 10)), out_dtype="float32",
        chunks=((16, 16, 16, 16),), grid=lambda out: (out.shape[0],), args=(40,), BLOCK=64,
    )  # fmt: skip
    numpy.testing.assert_array_equal(maxima.compute(scheduler="threads"), x.max(axis=1))
    with pytest.raises(ValueError, match="may drop the inputs' trailing axes, not add axes"):
        blkc_dask.map_blocks(row_max, da.from_array(x), out_dtype="f4", grid=(1,),
                             chunks=((64,), (40,), (1,)))  # fmt: skip


def test_without_dask_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dask.array", None)  # an import of it fails
    with pytest.raises(ImportError, match=r"pip install 'blkc\[dask\]'"):
        blkc_dask.map_blocks(add, numpy.zeros(4, numpy.float32), out_dtype="f4", grid=(1,))


def test_strided_blocks_are_made_contiguous() -> None:
    x = random((64, 48), 6)
    transposed = da.from_array(x, chunks=(64, 16)).T  # each block a transposed view
    computed = row_softmax(transposed).compute(scheduler="threads")
    numpy.testing.assert_allclose(computed, reference_softmax(x.T.copy()), rtol=1e-5)


def test_several_threads_launch_at_once() -> None:
    x, y = random((40_000,), 7), random((40_000,), 8)
    z = vector_sum(da.from_array(x, chunks=1000), da.from_array(y, chunks=1000))
    numpy.testing.assert_array_equal(z.compute(scheduler="threads", num_workers=8), x + y)


def test_a_nan_stays_in_its_row_and_an_empty_chunk_is_empty() -> None:
    x = random((8, 16), 9)
    x[3, 5] = numpy.nan
    z = row_softmax(da.from_array(x, chunks=((2, 0, 4, 2), (16,)))).compute(scheduler="threads")
    assert numpy.isnan(z[3]).all() and not numpy.isnan(numpy.delete(z, 3, axis=0)).any()
    numpy.testing.assert_allclose(numpy.delete(z, 3, 0), numpy.delete(reference_softmax(x), 3, 0),
                                  rtol=1e-5)  # fmt: skip
    empty = vector_sum(da.zeros((0,), "float32", chunks=1), da.zeros((0,), "float32", chunks=1))
    assert empty.compute(scheduler="threads").shape == (0,)


def test_a_kernel_that_stores_into_an_input_is_refused() -> None:
    x = da.from_array(random((100,), 10), chunks=50)
    z = blkc_dask.map_blocks(in_place, x, out_dtype="float32", grid=(1,), args=(50,), BLOCK=64)
    with pytest.raises(TypeError, match=r"\('x_ptr'\) of kernel 'in_place' is read-only"):
        z.compute(scheduler="threads")


def test_out_dtype_is_the_output_s_and_a_jit_kernel_specialises_on_it() -> None:
    x = random((100,), 10)
    wide = blkc_dask.map_blocks(add, da.from_array(x, chunks=50), da.from_array(x, chunks=50),
                                out_dtype="float64", grid=(1,), args=(50,), BLOCK=64)  # fmt: skip
    assert wide.dtype == numpy.float64
    computed = wide.compute(scheduler="threads")
    assert computed.dtype == numpy.float64
    numpy.testing.assert_array_equal(computed, (x + x).astype(numpy.float64))


def test_two_graphs_of_one_kernel_have_their_own_tasks() -> None:
    import dask

    x, y = random((1000,), 18), random((1000,), 19)
    first = vector_sum(da.from_array(x, chunks=500), da.from_array(x, chunks=500))
    second = vector_sum(da.from_array(y, chunks=500), da.from_array(y, chunks=500))
    assert first.name != second.name and first.name.startswith("blkc-add-")
    computed = dask.compute(first, second, scheduler="threads")
    numpy.testing.assert_array_equal(computed[0], 2 * x)
    numpy.testing.assert_array_equal(computed[1], 2 * y)


def _local_kernel() -> Any:
    @blkc.jit
    def triple(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 3,
                 mask=offsets < n)  # fmt: skip

    return triple


def test_a_process_unpickles_a_kernel_once_for_all_its_tasks() -> None:
    """A kernel no module names travels by value; each task's copy of it is the one the
    process unpickled first, with its compiled variants and launch stubs."""
    import pickle

    kernel = _local_kernel()
    payload = pickle.dumps(blkc_dask._Shipped(kernel))
    first, second = pickle.loads(payload), pickle.loads(payload)
    assert first.kernel is second.kernel and first.kernel is not kernel
    x = random((1000,), 21)
    tripled = blkc_dask.map_blocks(kernel, da.from_array(x, chunks=300), out_dtype="float32",
                                   grid=(4,), args=lambda out: (out.size,), BLOCK=256)  # fmt: skip
    numpy.testing.assert_array_equal(tripled.compute(scheduler="threads"), x * 3)


def test_bad_arguments_are_named() -> None:
    x = da.ones((4,), chunks=2)
    with pytest.raises(TypeError, match="must be launchable as kernel"):
        blkc_dask.map_blocks(len, x, out_dtype="float32", grid=(1,))
    with pytest.raises(TypeError, match="out_shape"):
        blkc_dask.map_blocks(add, x, out_dtype="f4", grid=(1,), out_shape=lambda s: "rows")
    with pytest.raises(TypeError, match="needs at least one input array"):
        blkc_dask.map_blocks(add, out_dtype="float32", grid=(1,))


def test_importing_blkc_imports_no_dask() -> None:
    code = "import sys, blkc, blkc.language; print(any(m.split('.')[0] in ('dask', 'distributed') for m in sys.modules))"  # noqa: E501
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


# ------------------------------------------------------------------------------------
# A LocalCluster of two worker processes
# ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Two single-threaded worker processes sharing a fresh disk cache, with this
    process's path and the examples folder on theirs: they import the kernels defined in
    modules by name, as they import any function Dask sends them."""
    cache = tmp_path_factory.mktemp("blkc-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BLKC_CACHE_DIR", str(cache))
        patch.syspath_prepend(str(EXAMPLES))  # workers start with this process's path
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster, distributed.Client(cluster) as connected:  # fmt: skip
            yield connected


def computed(client: Any, array: Any) -> Any:
    """`array` computed on the cluster (a hang fails the test instead of the suite)."""
    return client.compute(array).result(timeout=120)


def _builds() -> int:
    import blkc.kernel

    return blkc.kernel.builds


def test_each_worker_compiles_a_kernel_at_most_once(client: Any) -> None:
    import blkc.kernel

    before, on_workers = blkc.kernel.builds, client.run(_builds)
    x, y = random((8 * 4096,), 11), random((8 * 4096,), 12)
    z = vector_sum(da.from_array(x, chunks=4096), da.from_array(y, chunks=4096))
    numpy.testing.assert_array_equal(computed(client, z), x + y)
    assert blkc.kernel.builds == before  # the client builds a graph, and compiles nothing
    after = client.run(_builds)
    builds = {worker: after[worker] - on_workers[worker] for worker in after}
    # The second worker may find the first's kernel in the shared disk cache.
    assert len(builds) == 2 and all(count <= 1 for count in builds.values()), builds
    assert sum(builds.values()) >= 1, builds
    # Another graph, on other data: both workers have the kernel already.
    z = vector_sum(da.from_array(y, chunks=4096), da.from_array(x, chunks=4096))
    numpy.testing.assert_array_equal(computed(client, z), x + y)
    assert client.run(_builds) == after


def test_row_softmax_on_the_cluster_equals_numpy(client: Any) -> None:
    x = random((1000, 100), 13)
    z = row_softmax(da.from_array(x, chunks=(128, 100)))
    numpy.testing.assert_allclose(computed(client, z), reference_softmax(x), rtol=1e-5, atol=1e-7)


def test_worker_threads_follow_dask_s_nanny(client: Any) -> None:
    tasks = [client.submit(blkc_dask.worker_threads, pure=False) for _ in range(4)]
    assert client.gather(tasks) == [1] * 4  # OMP_NUM_THREADS=1: Dask fills the cores with tasks
    assert blkc_dask.worker_threads() == blkc.get_num_threads()  # not in a worker


def test_an_error_in_a_worker_reaches_the_client(client: Any) -> None:
    x = da.from_array(random((512,), 14), chunks=256)
    z = blkc_dask.map_blocks(off_by_one, x, out_dtype="float32", grid=(1,), args=(256,),
                             BLOCK=256)  # fmt: skip
    with pytest.raises(IndexError, match="outside the arrays it was given, at .*test_dask.py:"):
        computed(client, z)
    typo = blkc_dask.map_blocks(misspelt, x, out_dtype="float32", grid=(1,), args=(256,),
                                BLOCK=256)  # fmt: skip
    with pytest.raises(blkc.BlkcError, match=r"test_dask.py:\d+:\d+: error: .*has no attribute 'lod'"):  # noqa: E501
        computed(client, typo)


def test_compiled_and_triton_c_kernels_run_on_the_cluster(client: Any) -> None:
    """They travel as their IR text: the workers generate native code, never IR."""
    import blkc.triton_c

    examples = EXAMPLES
    before = client.run(_builds)
    x, y = random((5000,), 15), random((5000,), 16)
    vector_add = blkc.compile((examples / "vector_add.mlir").read_text())
    z = blkc_dask.map_blocks(
        vector_add, da.from_array(x, chunks=2048), da.from_array(y, chunks=2048),
        out_dtype="float32", grid=lambda out: (blkc.cdiv(out.size, 1024),),
        args=lambda out: (out.size,),
    )  # fmt: skip
    numpy.testing.assert_array_equal(computed(client, z), x + y)
    row_sum = blkc.triton_c.compile(examples / "triton_c" / "row_sum.tc")["row_sum"]
    m = random((300, 70), 17)
    sums = blkc_dask.map_blocks(
        row_sum, da.from_array(m, chunks=(64, 35)), out_dtype="float32",
        out_shape=lambda shape: shape[:1], grid=lambda out: (blkc.cdiv(out.shape[0], 8),),
        args=lambda out: (out.shape[0], 70, 70),
    )  # fmt: skip
    numpy.testing.assert_allclose(computed(client, sums), m.sum(axis=1), rtol=1e-5, atol=1e-5)
    assert client.run(_builds) == before


def test_the_example_runs_on_the_cluster(client: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import dask_softmax  # on the path while the cluster runs

    dask_softmax.run(client, rows=512, cols=100, chunk_rows=128, runs=2)
    printed = capsys.readouterr().out
    assert "512 x 100 float32 in 4 chunks" in printed and "results equal NumPy's" in printed
