"""blkc.testing (Triton's `triton.testing`) and blkc.runtime.driver (its `driver.active`)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy
import pytest

import blkc
from blkc import testing
from blkc.runtime import driver


def sleep_ms(ms: float) -> None:
    time.sleep(ms / 1e3)


def test_do_bench_times_a_sleep_in_milliseconds() -> None:
    # A sleep lasts at least what it asks; a loaded machine may add (tens of milliseconds
    # to a few calls here), not take away: the fastest call tells milliseconds from seconds.
    times = testing.do_bench(lambda: sleep_ms(2), warmup=5, rep=40, return_mode="all")
    assert 2.0 <= min(times) < 100.0
    assert testing.do_bench(lambda: sleep_ms(2), warmup=1, rep=10) >= 2.0


def test_do_bench_quantiles_are_ordered_and_one_quantile_is_a_number() -> None:
    low, mid, high = testing.do_bench(lambda: sleep_ms(1), warmup=2, rep=30, quantiles=[0, 0.5, 1])
    assert 1.0 <= low <= mid <= high
    median = testing.do_bench(lambda: sleep_ms(1), warmup=2, rep=10, quantiles=[0.5])
    assert isinstance(median, float) and median >= 1.0


def test_do_bench_return_modes() -> None:
    times = testing.do_bench(lambda: sleep_ms(1), warmup=1, rep=20, return_mode="all")
    assert isinstance(times, list) and len(times) >= 1 and min(times) >= 1.0
    assert testing.do_bench(lambda: None, warmup=1, rep=1, return_mode="min") >= 0.0
    with pytest.raises(ValueError, match="return_mode must be one of .*'average'"):
        testing.do_bench(lambda: None, return_mode="average")
    with pytest.raises(ValueError, match=r"quantiles must lie in \[0, 1\]; got 1.5"):
        testing.do_bench(lambda: None, quantiles=[0.5, 1.5])


def test_do_bench_calls_the_function_and_drops_gradients() -> None:
    class Tensor:
        grad: object = "stale"

    tensor = Tensor()
    calls = []
    testing.do_bench(lambda: calls.append(tensor.grad), warmup=1, rep=5, grad_to_none=[tensor])
    # The first calls (the first run, the estimate, the warm-up) see the old gradient; every
    # timed call sees it dropped.
    assert calls[0] == "stale" and calls[-1] is None


def test_summary_statistics_of_known_times() -> None:
    times = [4.0, 1.0, 3.0, 2.0]
    assert testing.summarize(times, None, "mean") == 2.5
    assert testing.summarize(times, None, "median") == 2.5
    assert testing.summarize(times, None, "min") == 1.0
    assert testing.summarize(times, None, "max") == 4.0
    assert testing.summarize(times, [0.0, 0.25, 1.0], "mean") == pytest.approx([1.0, 1.75, 4.0])
    assert testing.summarize(times, [0.25], "mean") == pytest.approx(numpy.quantile(times, 0.25))


def test_assert_close_tolerances() -> None:
    testing.assert_close(numpy.array([1.0, 2.0]), numpy.array([1.005, 2.0]))
    testing.assert_close([1.0, float("nan")], [1.0, float("nan")])
    testing.assert_close(100.0, 101.0, atol=0, rtol=0.02)
    testing.assert_close([1.0, 2.0], [1.1, 2.0], atol=lambda dtype: 0.2)
    with pytest.raises(AssertionError, match="rows differ"):
        testing.assert_close(
            numpy.array([1.0, 2.0]), numpy.array([1.0, 2.1]), err_msg="rows differ"
        )
    with pytest.raises(AssertionError, match=r"1.0 is not close to 1.5 \(atol=0.01, rtol=0.0\)"):
        testing.assert_close(1.0, 1.5)


def test_assert_close_takes_torch_tensors_and_bfloat16() -> None:
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16)
    testing.assert_close(x, numpy.array([1.0, 2.0, 3.0], numpy.float32), atol=0)
    seen = []
    testing.assert_close(x, x, atol=lambda dtype: seen.append(dtype) or 0.0)
    assert seen == [torch.bfloat16]
    with pytest.raises(AssertionError):
        testing.assert_close(torch.ones(4), torch.zeros(4))


def test_driver_answers_for_the_host_cpu() -> None:
    target = driver.active.get_current_target()
    assert (target.backend, target.warp_size) == ("cpu", 1)
    assert isinstance(target.arch, str) and target.arch
    assert driver.active.get_current_device() == 0
    with pytest.raises(ValueError, match="one device, the CPU"):
        driver.active.set_current_device(1)
    # Triton programs reach it as an attribute, without importing it.
    assert blkc.runtime.driver.active is driver.active
    assert blkc.testing is testing


def test_driver_gives_the_torch_cpu_device() -> None:
    torch = pytest.importorskip("torch")
    assert driver.active.get_active_torch_device() == torch.device("cpu")


def test_cache_flush_buffer_is_written() -> None:
    flush = driver.active.get_empty_cache_for_benchmark()
    assert 1 << 20 <= flush.nbytes <= driver.FLUSH_BYTES_MAX
    flush[::4096] = 7
    driver.active.clear_cache(flush)
    assert not flush.any()


def squares_benchmark(**extra: object) -> testing.Mark:
    @testing.perf_report(
        testing.Benchmark(
            x_names=["n"],
            x_vals=[2, 8],
            line_arg="provider",
            line_vals=["square", "cube"],
            line_names=["Square", "Cube"],
            plot_name="powers",
            args={"scale": 10},
            ylabel="value",
            x_log=True,
            **extra,
        )
    )
    def powers(n: int, provider: str, scale: int) -> float | tuple[float, float, float]:
        value = float(scale * n ** (2 if provider == "square" else 3))
        return value if provider == "square" else (value, value - 1, value + 1)

    return powers


def test_perf_report_runs_every_x_and_line_and_saves_csv_and_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    table = squares_benchmark().run(print_data=True, save_path=str(tmp_path), return_df=True)
    assert list(table.columns) == ["n", "Square (value)", "Cube (value)"]
    printed = capsys.readouterr().out
    assert printed.startswith("powers:\n") and "5120.000000" in printed
    csv = (tmp_path / "powers.csv").read_text().splitlines()
    assert csv == [
        "n,Square (value),Cube (value)",
        "2,40.000000,80.000000",
        "8,640.000000,5120.000000",
    ]
    assert (tmp_path / "powers.png").read_bytes().startswith(b"\x89PNG")
    assert 'src="powers.png"' in (tmp_path / "results.html").read_text()


def test_perf_report_without_matplotlib_prints_the_table_and_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    squares_benchmark().run(print_data=True, save_path=str(tmp_path))
    captured = capsys.readouterr()
    assert "matplotlib is not installed, so 'powers' is not plotted" in captured.err
    assert captured.err.count("\n") == 1
    assert captured.out.splitlines()[-1].split() == ["8", "640.000000", "5120.000000"]
    assert (tmp_path / "powers.csv").exists() and not (tmp_path / "powers.png").exists()


def test_perf_report_x_values_per_name_and_kwargs_for_the_function() -> None:
    @testing.perf_report(
        [
            testing.Benchmark(
                x_names=["m", "n"],
                x_vals=[(2, 3), 4],
                line_arg="op",
                line_vals=["add", "mul"],
                line_names=["add", "mul"],
                plot_name="pairs",
                args={},
            )
        ]
    )
    def pairs(m: int, n: int, op: str, offset: int) -> float:
        return float((m + n if op == "add" else m * n) + offset)

    (table,) = pairs.run(return_df=True, offset=100)
    assert [list(row) for row in table.rows] == [[2, 3, 105.0, 106.0], [4, 4, 108.0, 116.0]]


def test_perf_report_refuses_an_x_value_of_the_wrong_length() -> None:
    bench = testing.Benchmark(
        x_names=["m", "n"],
        x_vals=[(1, 2, 3)],
        line_arg="p",
        line_vals=[0],
        line_names=["p"],
        plot_name="bad",
        args={},
    )
    mark = testing.perf_report(bench)(lambda m, n, p: 0.0)
    with pytest.raises(ValueError, match=r"x value \(1, 2, 3\) has 3 values for the 2 x names"):
        mark.run()
