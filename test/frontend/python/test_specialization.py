"""Specialization, the compile caches (memory and disk), launch grids, autotune and
heuristics."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy
import pytest

import blkc
import blkc.kernel
import blkc.language as tl
from blkc.jitfunction import Autotuner  # triton.runtime.autotuner.Autotuner


@blkc.jit
def scaled_copy(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * scale, mask=mask)


def params_of(kernel: blkc.Kernel) -> list[str]:
    return [str(t) for t in kernel.params]


def test_ints_are_typed_by_value_and_one_is_compiled_in() -> None:
    x = numpy.zeros(4, numpy.float32)
    assert params_of(scaled_copy.warmup(x, x, 100, 2.0, BLOCK=16)) == [
        "!blk.ptr<f32>", "!blk.ptr<f32>", "i32", "f32",
    ]  # fmt: skip
    assert params_of(scaled_copy.warmup(x, x, 2**40, 2.0, BLOCK=16))[2] == "i64"
    assert params_of(scaled_copy.warmup(x, x, 2**63 + 5, 2.0, BLOCK=16))[2] == "ui64"
    one = scaled_copy.warmup(x, x, 1, 2.0, BLOCK=16)
    assert params_of(one) == ["!blk.ptr<f32>", "!blk.ptr<f32>", "f32"]
    assert "arith.constant 1" in one.asm["loops"] or "1 : i32" in one.asm["loose"]


def test_each_specialization_compiles_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BLKC_CACHE_DIR", str(tmp_path))  # an empty disk cache: builds happen
    x = numpy.arange(100, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    before, compiled = scaled_copy.builds, blkc.kernel.builds
    for _ in range(3):
        scaled_copy[(4,)](x, out, 100, 3.0, BLOCK=32)
    assert (scaled_copy.builds - before, blkc.kernel.builds - compiled) == (1, 1)
    numpy.testing.assert_array_equal(out, x * 3)
    scaled_copy[(4,)](x, out, 100, 0.5, BLOCK=32)  # another value, same specialization
    assert (scaled_copy.builds - before, blkc.kernel.builds - compiled) == (1, 1)
    numpy.testing.assert_array_equal(out, x * 0.5)


def test_a_multiple_of_16_is_another_specialization(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BLKC_CACHE_DIR", str(tmp_path))
    x = numpy.arange(96, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    scaled_copy[(3,)](x, out, 95, 2.0, BLOCK=32)
    before, compiled = scaled_copy.builds, blkc.kernel.builds
    scaled_copy[(3,)](x, out, 96, 2.0, BLOCK=32)  # same types, divisible by 16: a new key
    assert (scaled_copy.builds - before, blkc.kernel.builds - compiled) == (1, 1)
    numpy.testing.assert_array_equal(out, x * 2)


def test_dtypes_of_arrays_select_variants() -> None:
    for dtype in (numpy.float16, numpy.int8, numpy.float64):
        x = numpy.arange(40).astype(dtype)
        out = numpy.zeros_like(x)
        scaled_copy[(1,)](x, out, 40, 2, BLOCK=64)
        numpy.testing.assert_array_equal(out, (x * 2).astype(dtype))


def test_grid_function_sees_the_meta_parameters() -> None:
    seen: dict[str, object] = {}

    def grid(meta: dict[str, object]) -> tuple[int, ...]:
        seen.update(meta)
        return (blkc.cdiv(1000, meta["BLOCK"]),)  # type: ignore[arg-type]

    x = numpy.arange(1000, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    scaled_copy[grid](x, out, 1000, 2.0, BLOCK=128)
    assert seen["BLOCK"] == 128 and seen["n"] == 1000
    numpy.testing.assert_array_equal(out, x * 2)


def test_triton_launch_options_are_accepted() -> None:
    x = numpy.arange(8, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    scaled_copy[(1,)](x, out, 8, 1.0, BLOCK=8, num_warps=4, num_stages=3)
    numpy.testing.assert_array_equal(out, x)


SCRIPT = textwrap.dedent(
    """
    import numpy, blkc, blkc.kernel
    import blkc.language as tl

    @blkc.jit
    def twice(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    x = numpy.arange(10, dtype=numpy.float32)
    twice[(1,)](x, 10, BLOCK=16)
    assert (x == numpy.arange(10) * 2).all()
    print(twice.builds, blkc.kernel.builds)
    """
)


def test_a_second_process_loads_the_kernel_from_disk(tmp_path: Path) -> None:
    script = tmp_path / "kernel_script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, BLKC_CACHE_DIR=str(tmp_path / "cache"))
    runs = [
        subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0] == ["1", "1"]  # compiled from source
    assert runs[1] == ["0", "0"]  # neither IR built nor compiled: found on disk


@blkc.autotune(
    configs=[blkc.Config({"BLOCK": 16}), blkc.Config({"BLOCK": 256}, num_warps=8)],
    key=["n"],
    restore_value=["out_ptr"],
)
@blkc.jit
def tuned_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


def test_autotune_times_each_config_once_per_key(capsys: pytest.CaptureFixture[str]) -> None:
    x = numpy.arange(5000, dtype=numpy.float32)
    out = numpy.zeros_like(x)
    grid = lambda meta: (blkc.cdiv(5000, meta["BLOCK"]),)  # noqa: E731
    tuned_copy[grid](x, out, 5000)
    progress = capsys.readouterr().err
    assert "autotuning tuned_copy [1/2] BLOCK: 16" in progress
    assert "autotuned tuned_copy" in progress
    numpy.testing.assert_array_equal(out, x + 1)
    assert set(tuned_copy.timings[(5000,)]) == {"BLOCK: 16", "BLOCK: 256"}
    best = tuned_copy.best[(5000,)]
    assert tuned_copy.best_config is best  # Triton's name for the last launch's config
    out[:] = 0
    tuned_copy[grid](x, out, 5000)  # reuses the best config: no progress output
    assert capsys.readouterr().err == ""
    assert tuned_copy.best[(5000,)] is best
    numpy.testing.assert_array_equal(out, x + 1)


class CachedAutotuner(Autotuner):
    """A subclass as kernel libraries write them for Triton (flash-linear-attention's
    loads configs from files): Triton's constructor and attributes, its `run` overridden,
    a config put in `cache` used without tuning."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs):
        super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs)
        self.kernel_name = fn.fn.__name__ if hasattr(fn, "fn") else fn.__name__
        self.runs = 0

    def run(self, *args, **kwargs):
        self.runs += 1
        return super().run(*args, **kwargs)


def _add_one(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(acc_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0), axis=0))


def test_the_autotuner_takes_tritons_constructor_and_hooks() -> None:
    calls: list[str] = []
    kernel = blkc.jit(_add_one)
    tuner = CachedAutotuner(
        kernel,
        kernel.arg_names,
        [blkc.Config({"BLOCK": 16}), blkc.Config({"BLOCK": 64})],
        ["n"],
        ["acc_ptr"],  # reset_to_zero: each timed run starts from zero
        None,
        post_hook=lambda args, exception: calls.append("post"),
        prune_configs_by=None,
        warmup=1,
        rep=2,
        use_cuda_graph=False,
        do_bench=None,
        cache_results=False,
    )
    assert tuner.kernel_name == "_add_one" and tuner.keys == ["n"]
    assert not tuner.user_defined_pre_hook and tuner.user_defined_post_hook
    x = numpy.ones(200, numpy.float32)
    acc = numpy.full(1, 1000.0, numpy.float32)
    grid = lambda meta: (blkc.cdiv(200, meta["BLOCK"]),)  # noqa: E731
    tuner[grid](x, acc, 200)
    assert tuner.runs == 1 and calls.count("post") == 2 * (1 + 2)  # each timed run
    assert acc[0] == 200.0  # zeroed before the launch after tuning, not 1000 + sums
    # a config placed in `cache` under Triton's key (key values, then array dtypes) wins
    tuner.cache[(300, "float32", "float32")] = blkc.Config({"BLOCK": 32})
    acc[0] = 0
    tuner[lambda meta: (blkc.cdiv(300, meta["BLOCK"]),)](numpy.ones(300, numpy.float32), acc, 300)
    assert tuner.best_config.kwargs == {"BLOCK": 32} and acc[0] == 300.0
    assert (300,) not in tuner.best  # not tuned
    with pytest.raises(ValueError, match="not kernel arguments: m"):
        Autotuner(kernel, None, [blkc.Config({"BLOCK": 16})], ["m"], None, None)


@blkc.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@blkc.jit
def maybe_masked(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(x_ptr + offs, 1.0)
    else:
        tl.store(x_ptr + offs, 2.0, mask=offs < n)


@pytest.mark.parametrize(("n", "value"), [(64, 1.0), (50, 2.0)])
def test_heuristics_compute_meta_parameters(n: int, value: float) -> None:
    x = numpy.zeros(n, numpy.float32)
    maybe_masked[(blkc.cdiv(n, 16),)](x, n, BLOCK=16)
    numpy.testing.assert_array_equal(x, numpy.full(n, value, numpy.float32))


def test_host_helpers() -> None:
    assert blkc.cdiv(10, 4) == 3 and blkc.cdiv(8, 4) == 2
    assert [blkc.next_power_of_2(n) for n in (1, 3, 64, 65)] == [1, 4, 64, 128]


@blkc.jit
def parameter_named_like_an_option(out_ptr, num_stages: tl.constexpr, num_warps: tl.constexpr):
    tl.assume(num_stages > 0)
    tl.store(out_ptr + tl.arange(0, 2), tl.arange(0, 2) * 0 + num_stages * 10 + num_warps)


def test_parameters_named_like_launch_options_get_their_values() -> None:
    out = numpy.zeros(2, numpy.int32)
    parameter_named_like_an_option[(1,)](out, num_stages=3, num_warps=2)
    numpy.testing.assert_array_equal(out, [32, 32])


@blkc.jit
def strided_sum(x_ptr, out_ptr, stride, N: tl.constexpr):
    i = tl.arange(0, N)
    values = tl.load(x_ptr + i * stride.to(tl.int64))
    tl.store(out_ptr, tl.sum(values, axis=0) + stride.to(tl.float32))


@pytest.mark.parametrize("stride", [1, 2, 3])
def test_a_number_compiled_in_keeps_its_tensor_methods(stride: int) -> None:
    """An int argument of 1 is compiled in, and `stride.to(tl.int64)` (flash-attn's
    cross-entropy on a row of one column) still reads it as a scalar, as Triton's
    interpreter does (compiled Triton refuses it: triton-lang/triton#2939)."""
    x = numpy.arange(12, dtype=numpy.float32)
    out = numpy.zeros(1, numpy.float32)
    strided_sum[(1,)](x, out, stride, 4)
    assert out[0] == x[::stride][:4].sum() + stride


@blkc.jit
def scaled_sum(x, out, n, BLOCK: tl.constexpr = 64, scale=None):
    offs = tl.arange(0, BLOCK)
    total = tl.sum(tl.load(x + offs, mask=offs < n, other=0.0))
    tl.store(out, total / tl.sum(tl.load(scale + offs, mask=offs < n, other=0.0)))


@pytest.mark.parametrize("library", ["numpy", "torch"])
def test_an_array_passed_by_keyword_launches_again(library: str) -> None:
    """Launches compare their keywords with the last launch's to build a stub: an array
    among them (whose `==` compares elements) keeps the Python path, launch after launch,
    whatever its size."""
    torch = pytest.importorskip("torch") if library == "torch" else None
    for n in (7, 33, 33, 5):
        x = numpy.arange(1, n + 1, dtype=numpy.float32)
        weights = numpy.full(n, 2.0, numpy.float32)
        out = numpy.zeros(1, numpy.float32)
        if torch is not None:
            x, weights, out = map(torch.from_numpy, (x, weights, out))
        scaled_sum[(1,)](x, out, n, scale=weights)
        assert float(out[0]) == pytest.approx(n * (n + 1) / 2 / (2.0 * n))
