"""Autotuning that knows the CPU: the host's cache sizes (`cpu_target.cache_sizes`, read
from a fake sysfs here), and `blkc.autotune` pruning configs by their working set before
compiling them (`autotuning.prune_by_working_set`), Triton's `prune_configs_by`, and the
switches that turn the pruning off. The cache sizes are patched, so small kernels with tiny
blocks exercise the pruning."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc import autotuning
from blkc.jitfunction import _working_set
from blkc.runtime import cpu_target
from blkc.runtime.cpu_target import DEFAULT_CACHE_SIZES, CacheSizes, cache_sizes

KIB = 1024


def fake_sysfs(root: Path, caches: list[tuple[str, str, str]]) -> Path:
    """A sysfs cache folder with one `index<i>` per (level, type, size)."""
    for index, (level, kind, size) in enumerate(caches):
        entry = root / f"index{index}"
        entry.mkdir(parents=True)
        (entry / "level").write_text(level + "\n")
        (entry / "type").write_text(kind + "\n")
        (entry / "size").write_text(size + "\n")
    return root


def no_sysconf(name: str) -> int:
    return 0


def test_cache_sizes_read_sysfs_data_and_unified_caches(tmp_path: Path) -> None:
    root = fake_sysfs(
        tmp_path,
        [("1", "Data", "48K"), ("1", "Instruction", "32K"), ("2", "Unified", "2048K"),
         ("3", "Unified", "32M")],
    )  # fmt: skip
    assert cache_sizes(root, no_sysconf) == CacheSizes(48 * KIB, 2048 * KIB, 32768 * KIB)
    assert cache_sizes(root, no_sysconf).describe() == "L1d 48 KiB, L2 2048 KiB, L3 32768 KiB"


def test_cache_sizes_fall_back_to_sysconf_then_defaults(tmp_path: Path) -> None:
    # No L3 in sysfs, an L2 whose size is not a size, an L1 that only holds instructions.
    root = fake_sysfs(
        tmp_path, [("1", "Instruction", "32K"), ("2", "Unified", "lots"), ("3", "Data", "")]
    )
    sysconf = {"SC_LEVEL2_CACHE_SIZE": 1 << 20}.get
    sizes = cache_sizes(root, lambda name: sysconf(name, 0))
    assert sizes == CacheSizes(DEFAULT_CACHE_SIZES.l1d, 1 << 20, DEFAULT_CACHE_SIZES.l3)
    assert cache_sizes(tmp_path / "missing", no_sysconf) == DEFAULT_CACHE_SIZES


def test_prune_by_working_set_drops_oversized_and_keeps_the_largest_that_fit() -> None:
    caches = CacheSizes(32 * KIB, 100 * KIB, 1024 * KIB)
    names = ["a", "b", "c", "d", "e", "f", "g"]
    sizes = [10, 200, 50, 50, 90, 20, 150]
    kept, dropped = autotuning.prune_by_working_set(names, [s * KIB for s in sizes], caches)
    assert kept == ["c", "d", "e", "f"]  # five fit; a, the smallest, makes way
    assert [name for name, _ in dropped] == ["a", "b", "g"]
    reasons = dict(dropped)
    assert reasons["b"] == "working set 200 KiB exceeds the L2 cache (100 KiB a core)"
    assert reasons["a"] == (
        "working set 10 KiB: smaller than the 4 largest that fit the L2 cache (100 KiB a core)"
    )


def test_prune_by_working_set_breaks_ties_by_order_and_keeps_one_when_none_fit() -> None:
    caches = CacheSizes(32 * KIB, 64 * KIB, 1024 * KIB)
    kept, _ = autotuning.prune_by_working_set(list("abcdef"), [8, 16, 16, 16, 16, 16], caches)
    assert kept == list("bcde")
    # Sizes that do not tell the configs apart (no buffers at all): every one is timed.
    assert autotuning.prune_by_working_set(list("abcdef"), [0] * 6, caches)[0] == list("abcdef")
    kept, dropped = autotuning.prune_by_working_set(list("abc"), [900_000, 70_000, 80_000], caches)
    assert kept == ["b"] and [name for name, _ in dropped] == ["a", "c"]
    with pytest.raises(ValueError, match="3 candidates but 2 working sets"):
        autotuning.prune_by_working_set(list("abc"), [1, 2], caches)


@blkc.jit
def small_matmul(a_ptr, b_ptr, c_ptr, M, N, K,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):  # fmt: skip
    """C = A @ B for row-major M x K and K x N float32 matrices, one BLOCK_M x BLOCK_N tile
    of C a program."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)  # fmt: skip
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)  # fmt: skip
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


SHAPES = [(16, 16, 16), (16, 32, 16), (32, 32, 16), (32, 32, 32), (64, 32, 32)]
CONFIGS = [blkc.Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k}) for m, n, k in SHAPES]
SIZE = 40


def operands() -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    rng = numpy.random.default_rng(0)
    a = rng.standard_normal((SIZE, SIZE)).astype(numpy.float32)
    b = rng.standard_normal((SIZE, SIZE)).astype(numpy.float32)
    return a, b, numpy.zeros((SIZE, SIZE), numpy.float32)


def launch(tuned: blkc.Autotuner) -> numpy.ndarray:
    """Run `tuned` on SIZE x SIZE matrices; check it computed NumPy's product."""
    a, b, c = operands()
    grid = lambda meta: (blkc.cdiv(SIZE, meta["BLOCK_M"]), blkc.cdiv(SIZE, meta["BLOCK_N"]))  # noqa: E731
    tuned[grid](a, b, c, SIZE, SIZE, SIZE)
    numpy.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)
    return c


def working_sets() -> list[int]:
    a, b, c = operands()
    args = (a, b, c, SIZE, SIZE, SIZE)
    return [_working_set(small_matmul, args, dict(config.kwargs)) for config in CONFIGS]


def tune(**options: object) -> blkc.Autotuner:
    return blkc.autotune(CONFIGS, key=["M", "N", "K"], **options)(small_matmul)  # type: ignore[arg-type]


def timed(tuned: blkc.Autotuner) -> list[str]:
    return list(tuned.timings[(SIZE, SIZE, SIZE)])


@pytest.fixture
def l2(monkeypatch: pytest.MonkeyPatch) -> callable:
    """`l2(n)`: make the host's L2 cache `n` bytes for the autotuner."""
    monkeypatch.delenv(autotuning.PRUNE_ENV, raising=False)
    monkeypatch.delenv("BLKC_QUIET_AUTOTUNE", raising=False)

    def set_l2(size: int) -> None:
        monkeypatch.setattr(cpu_target, "cache_sizes", lambda: CacheSizes(32 * KIB, size, 8 << 20))

    return set_l2


def label(index: int) -> str:
    return str(CONFIGS[index])


def test_autotune_drops_configs_whose_working_set_exceeds_l2(
    l2: callable, capsys: pytest.CaptureFixture[str]
) -> None:
    sizes = working_sets()
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    l2(sizes[3])
    tuned = tune()
    launch(tuned)
    assert timed(tuned) == [label(i) for i in range(4)]
    err = capsys.readouterr().err
    assert (
        f"blkc: autotuning small_matmul: pruned {label(4)}: working set "
        f"{sizes[4] // KIB} KiB exceeds the L2 cache ({sizes[3] // KIB} KiB a core)"
    ) in err
    assert err.count("pruned") == 1
    assert len(tuned.warmup(*operands(), SIZE, SIZE, SIZE, grid=(1, 1))) == 4  # the kept ones


def test_autotune_keeps_the_largest_configs_that_fit(
    l2: callable, capsys: pytest.CaptureFixture[str]
) -> None:
    l2(1 << 20)  # all five fit: the four largest are timed
    tuned = tune()
    launch(tuned)
    assert timed(tuned) == [label(i) for i in range(1, 5)]
    err = capsys.readouterr().err
    assert f"pruned {label(0)}: working set 3 KiB: smaller than the 4 largest" in err


def test_autotune_keeps_the_smallest_config_when_none_fits(
    l2: callable, capsys: pytest.CaptureFixture[str]
) -> None:
    l2(1000)
    tuned = tune()
    launch(tuned)
    assert tuned.best_config is CONFIGS[0]
    assert tuned.timings == {}  # one config left: nothing to time
    assert capsys.readouterr().err.count("exceeds the L2 cache") == 4


def test_autotune_prunes_through_heuristics(l2: callable) -> None:
    sizes = working_sets()
    l2(sizes[1])
    configs = [blkc.Config({"BLOCK_M": m, "BLOCK_N": n}) for m, n, _ in SHAPES[:3]]
    tuned = blkc.autotune(configs, key=["M"])(
        blkc.heuristics({"BLOCK_K": lambda args: 16})(small_matmul)
    )
    launch(tuned)
    assert list(tuned.timings[(SIZE,)]) == [str(configs[0]), str(configs[1])]


def test_prune_configs_by_replaces_the_cache_pruning(l2: callable) -> None:
    l2(1000)  # would leave one config
    seen: list[int] = []

    def early(configs: list[blkc.Config], named: dict[str, object], **kwargs: object) -> list:
        seen.append(named["M"])  # type: ignore[arg-type]
        return configs[2:]

    def perf_model(**values: int) -> float:
        return -values["BLOCK_M"] * values["BLOCK_N"] * values["BLOCK_K"]

    tuned = tune(prune_configs_by={"early_config_prune": early})
    launch(tuned)
    assert seen == [SIZE] and timed(tuned) == [label(2), label(3), label(4)]
    tuned = tune(
        prune_configs_by={"early_config_prune": early, "perf_model": perf_model, "top_k": 2}
    )
    launch(tuned)
    assert timed(tuned) == [label(4), label(3)]  # the least estimated times, in that order
    tuned = tune(prune_configs_by={"perf_model": perf_model, "top_k": 0.4})  # 2 of 5
    launch(tuned)
    assert timed(tuned) == [label(4), label(3)]


def test_prune_by_cache_true_runs_after_prune_configs_by(l2: callable) -> None:
    l2(working_sets()[2])
    tuned = tune(
        prune_configs_by={"early_config_prune": lambda cs, named: cs[1:]}, prune_by_cache=True
    )
    launch(tuned)
    assert timed(tuned) == [label(1), label(2)]


def test_early_config_prune_must_leave_a_config(l2: callable) -> None:
    tuned = tune(prune_configs_by={"early_config_prune": lambda configs, named: []})
    with pytest.raises(ValueError, match="no config left after early_config_prune"):
        launch(tuned)


def test_the_cache_pruning_can_be_turned_off(
    l2: callable, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    l2(1000)
    tuned = tune(prune_by_cache=False)
    launch(tuned)
    assert timed(tuned) == [label(i) for i in range(5)]
    monkeypatch.setenv(autotuning.PRUNE_ENV, "0")
    tuned = tune()
    launch(tuned)
    assert timed(tuned) == [label(i) for i in range(5)]
    assert "pruned" not in capsys.readouterr().err
    tuned = tune(prune_by_cache=True)  # the keyword wins over the environment
    launch(tuned)
    assert tuned.best_config is CONFIGS[0]


def test_quiet_autotune_silences_the_pruning_report(
    l2: callable, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BLKC_QUIET_AUTOTUNE", "1")
    l2(1000)
    tuned = tune()
    launch(tuned)
    assert tuned.best_config is CONFIGS[0]
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("prune", "error", "message"),
    [
        ({"top_k": 3, "perf_mdl": len}, ValueError, "unknown key 'perf_mdl'; the keys are"),
        ([len], TypeError, "prune_configs_by must be a dict"),
        ({"perf_model": 3}, TypeError, "perf_model must be callable"),
        ({"top_k": 0}, TypeError, "top_k must be a positive int or a float in"),
        ({"top_k": 1.5}, TypeError, "top_k must be a positive int or a float in"),
    ],
)
def test_bad_prune_configs_by_is_refused(prune: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        tune(prune_configs_by=prune)


def test_only_cpu_kernels_are_pruned(l2: callable, monkeypatch: pytest.MonkeyPatch) -> None:
    """Other targets have no working set here: nothing is lowered to find one."""
    args = (*operands(), SIZE, SIZE, SIZE)
    assert _working_set(small_matmul, args, {**CONFIGS[0].kwargs, "target": "cpu-simt"}) is None
    monkeypatch.setenv("BLKC_TARGET", "ptx")
    assert _working_set(small_matmul, args, dict(CONFIGS[0].kwargs)) is None
    l2(1000)
    assert tune().prune_configs(args, {}) == CONFIGS


@pytest.mark.parametrize("side_by_side", [2, 1])
def test_the_configs_compile_in_parallel_before_any_is_timed(
    monkeypatch: pytest.MonkeyPatch, count_calls: Callable[[Any, str], list[int]], side_by_side: int
) -> None:
    """Each config kept is lowered, then all are compiled at once
    (`jit.compile_in_parallel`); the timed runs compile nothing more. Where compilations
    cannot run side by side (one core), each config compiles where it is first timed."""
    from blkc.backends.cpu import CpuProgram
    from blkc.runtime import jit

    monkeypatch.setenv(autotuning.PRUNE_ENV, "0")
    monkeypatch.setenv("BLKC_CACHE", "0")
    compiled = count_calls(CpuProgram, "_load_or_compile")
    batches: list[int] = []
    parallel = jit.compile_in_parallel

    def counted(jobs: list[Callable[[], object]]) -> None:
        batches.append(len(jobs))
        before = compiled[0]
        parallel(jobs)
        assert compiled[0] == before + len(jobs)

    monkeypatch.setattr(jit, "compile_in_parallel", counted)
    monkeypatch.setattr(jit, "parallel_compilations", lambda: side_by_side)
    tuned = blkc.autotune(CONFIGS, key=["M", "N", "K"])(blkc.jit(small_matmul.fn))
    size = 48  # a multiple of 16, and a dtype for each case: kernels no other test compiled
    dtype = numpy.float32 if side_by_side > 1 else numpy.float64
    batches_expected = [len(CONFIGS)] if side_by_side > 1 else []
    rng = numpy.random.default_rng(1)
    a, b = (rng.standard_normal((size, size)).astype(dtype) for _ in range(2))
    for _ in range(2):  # the second launch takes the best config: no tuning, no compiling
        c = numpy.zeros((size, size), dtype)
        grid = lambda meta: (blkc.cdiv(size, meta["BLOCK_M"]), blkc.cdiv(size, meta["BLOCK_N"]))  # noqa: E731
        tuned[grid](a, b, c, size, size, size)
        numpy.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)
        assert batches == batches_expected and compiled[0] == len(CONFIGS)


def test_warmup_compiles_the_configs_in_parallel(
    monkeypatch: pytest.MonkeyPatch, count_calls: Callable[[Any, str], list[int]]
) -> None:
    from blkc.backends.cpu import CpuProgram
    from blkc.runtime import jit

    monkeypatch.setenv(autotuning.PRUNE_ENV, "0")
    monkeypatch.setenv("BLKC_CACHE", "0")
    monkeypatch.setattr(jit, "parallel_compilations", lambda: 2)
    compiled = count_calls(CpuProgram, "_load_or_compile")
    batches = count_calls(jit, "compile_in_parallel")
    tuned = blkc.autotune(CONFIGS, key=["M", "N", "K"])(blkc.jit(small_matmul.fn))
    size = 32  # float16 operands: kernels of their own
    a = numpy.ones((size, size), numpy.float16)
    c = numpy.zeros((size, size), numpy.float32)
    kernels = tuned.warmup(a, a, c, size, size, size, grid=(1,))  # a twice: they overlap
    assert len(kernels) == len(CONFIGS) and batches[0] == 1
    assert compiled[0] == len(CONFIGS)  # each once, in the batch; warmup found them
