"""Persistent loops (`for row in tl.range(pid, n, tl.num_programs(0))`) on the CPU: the
`contiguous-persistent-loops` pass gives each program consecutive rows, and every row is
still done once, whatever the grid, the row count, a start offset or a step that is not
the number of programs; a kernel that uses its program id again keeps Triton's
assignment of rows to programs."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def scale_rows(x_ptr, out_ptr, n_rows, start, step, COLS: tl.constexpr, STEP: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, COLS)
    step = tl.num_programs(0) if STEP == "programs" else step
    for row in tl.range(pid + start, n_rows, step):
        x = tl.load(x_ptr + row * COLS + cols)
        tl.store(out_ptr + row * COLS + cols, x * 2 + row)


def expected_rows(x: numpy.ndarray, programs: int, start: int, step: int) -> numpy.ndarray:
    """What the kernel computes, row by row as Triton assigns them."""
    out = numpy.full_like(x, -1)
    for pid in range(programs):
        for row in range(pid + start, x.shape[0], step):
            out[row] = x[row] * 2 + row
    return out


@pytest.mark.parametrize(
    ("rows", "programs", "start"),
    [
        (0, 4, 0),
        (1, 4, 0),
        (5, 8, 0),
        (64, 64, 0),
        (100, 7, 0),
        (1000, 64, 0),
        (37, 5, 3),
        (10, 4, 12),
        (9, 1, 0),
    ],  # fmt: skip
)
def test_every_row_is_done_once(rows: int, programs: int, start: int) -> None:
    x = numpy.random.default_rng(rows).random((rows, 16), dtype=numpy.float32)
    out = numpy.full_like(x, -1)
    scale_rows[(programs,)](x, out, rows, start, 0, COLS=16, STEP="programs")
    numpy.testing.assert_array_equal(out, expected_rows(x, programs, start, programs))


@pytest.mark.parametrize("factor", [1, 2, 3])
def test_a_step_given_as_an_argument(factor: int) -> None:
    """A step equal to the number of programs at run time takes the contiguous split; any
    other step runs the loop as written (rows no program reaches stay untouched)."""
    rows, programs = 90, 6
    step = programs * factor
    x = numpy.random.default_rng(factor).random((rows, 16), dtype=numpy.float32)
    out = numpy.full_like(x, -1)
    scale_rows[(programs,)](x, out, rows, 1, step, COLS=16, STEP="argument")
    numpy.testing.assert_array_equal(out, expected_rows(x, programs, 1, step))


@blkc.jit
def owner_of_rows(out_ptr, n_rows):
    pid = tl.program_id(0)
    for row in tl.range(pid, n_rows, tl.num_programs(0)):
        tl.store(out_ptr + row, pid)


def test_a_kernel_that_uses_its_program_id_keeps_tritons_assignment() -> None:
    out = numpy.full(50, -1, numpy.int32)
    owner_of_rows[(8,)](out, 50)
    assert out.tolist() == [row % 8 for row in range(50)]


def test_the_cpu_lowering_gives_programs_consecutive_rows() -> None:
    x = numpy.zeros((8, 16), numpy.float32)
    compiled = scale_rows.warmup(x, x, 8, 0, 0, COLS=16, STEP="programs", grid=(4,))
    loops = compiled.asm["loops"]
    # the run of rows: ceil(count / num_programs), then each program's first and last row
    assert loops.count("arith.divsi") == 1 and loops.count("arith.minsi") == 2


@blkc.jit
def chained_rows(x_ptr, out_ptr, n_rows, B: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    r = tl.arange(0, B)
    for row in tl.range(pid, n_rows, nprog):  # program pid owns rows pid, pid + nprog, ...
        x = tl.load(x_ptr + row * B + r)
        prev = tl.load(out_ptr + (row - nprog) * B + r, mask=(row >= nprog) & (r >= 0), other=0.0)
        tl.store(out_ptr + row * B + r, prev + x)


def test_rows_that_read_what_an_earlier_iteration_wrote_keep_their_program() -> None:
    """Row `row` reads what row `row - nprog`, an earlier iteration of the same program,
    stored: Triton orders them. Given consecutive rows, that row belonged to another
    program running at the same time (about one launch in ten read zeros), so such a loop
    keeps Triton's assignment."""
    rows, programs, b = 4000, 4, 16
    x = numpy.ones((rows, b), numpy.float32)
    expected = (numpy.arange(rows) // programs + 1).astype(numpy.float32)[:, None] + 0 * x
    for _ in range(30):
        out = numpy.zeros_like(x)
        chained_rows[(programs,)](x, out, rows, B=b)
        numpy.testing.assert_array_equal(out, expected)
    loops = chained_rows.warmup(x, out, rows, B=b, grid=(programs,)).asm["loops"]
    assert "arith.divsi" not in loops  # no runs of consecutive rows
