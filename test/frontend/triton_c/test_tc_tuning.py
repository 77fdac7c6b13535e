"""List-valued defines: every combination is compiled, timed on the first launch for a
set of argument shapes, and the fastest kept, with progress on stderr."""

from __future__ import annotations

import numpy
import pytest

import blkc.triton_c as tc
from blkc.triton_c.frontend import candidates

SOURCE = """
__global__ void accumulate(float *X, float *Out, int N) {
  int offs[TM] = get_program_id(0) * TM + 0 ... TM;
  bool check[TM] = offs < N;
  atomic_add(Out + offs % WIDTH, *?(check)(X + offs), check);
}
"""


def test_candidates_are_every_combination() -> None:
    assert candidates({"TM": [1, 2], "TN": 3, "K": (4, 5)}) == [
        {"TM": 1, "TN": 3, "K": 4},
        {"TM": 1, "TN": 3, "K": 5},
        {"TM": 2, "TN": 3, "K": 4},
        {"TM": 2, "TN": 3, "K": 5},
    ]
    with pytest.raises(ValueError, match="define 'TM' has an empty list of values"):
        candidates({"TM": []})


def test_tuning_picks_one_candidate_and_keeps_results_exact(
    capsys: pytest.CaptureFixture[str],
) -> None:
    kernel = tc.compile(SOURCE, defines={"TM": [64, 256], "WIDTH": [16, 32]})["accumulate"]
    assert [c.defines for c in kernel.candidates] == [
        {"TM": 64, "WIDTH": 16}, {"TM": 64, "WIDTH": 32},
        {"TM": 256, "WIDTH": 16}, {"TM": 256, "WIDTH": 32},
    ]
    n = 3000
    x = numpy.ones(n, numpy.float32)

    def launch(out: numpy.ndarray) -> None:
        kernel[lambda meta: ((n + meta["TM"] - 1) // meta["TM"],)](x, out, n)

    out = numpy.zeros(32, numpy.float32)
    launch(out)
    err = capsys.readouterr().err
    assert "blkc: autotuning accumulate [1/4]" in err and "[4/4]" in err
    for label in ("TM=64 WIDTH=16", "TM=64 WIDTH=32", "TM=256 WIDTH=16", "TM=256 WIDTH=32"):
        assert f"] {label}: " in err
    assert "chose " in err
    # The timed runs accumulated into copies: the result is one launch's.
    (chosen,) = kernel.chosen.values()
    width = chosen.defines["WIDTH"]
    expected = numpy.bincount(numpy.arange(n) % width, minlength=32).astype(numpy.float32)
    numpy.testing.assert_array_equal(out, expected)
    assert kernel.kernel is chosen.kernel

    # The same shapes again: no tuning, the choice is reused.
    again = numpy.zeros(32, numpy.float32)
    launch(again)
    assert capsys.readouterr().err == ""
    numpy.testing.assert_array_equal(again, expected)

    # New shapes: tuned again, under a new key.
    launch(numpy.zeros(64, numpy.float32))
    assert "tuning" in capsys.readouterr().err
    assert len(kernel.chosen) == 2


def test_candidates_that_reject_the_arguments_are_skipped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = "__global__ void copy(TYPE *X, TYPE *Y) { *(Y + (0 ... 16)) = *(X + (0 ... 16)); }"
    kernel = tc.compile(source, defines={"TYPE": ["double", "float"]})["copy"]
    x, y = numpy.arange(16, dtype=numpy.float32), numpy.zeros(16, numpy.float32)
    kernel[(1,)](x, y)
    numpy.testing.assert_array_equal(x, y)
    err = capsys.readouterr().err
    assert "TYPE=double: skipped (argument 0 ('X') of kernel 'copy' points to float64" in err
    assert "chose TYPE=float" in err


def test_no_candidate_fits_raises_the_error() -> None:
    source = "__global__ void copy(TYPE *X) { *X = 1; }"
    kernel = tc.compile(source, defines={"TYPE": ["double", "int"]})["copy"]
    with pytest.raises(TypeError, match="points to int32"):
        kernel[(1,)](numpy.zeros(1, numpy.float32))
