"""A kernel never writes memory its caller handed it read-only: a launch that passes a
read-only array (a read-only view, memory map or buffer) where the kernel stores is a
TypeError naming the argument and the kernel, and the memory stays as it was."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.passes.written_arguments import written_arguments

TARGETS = pytest.mark.parametrize("target", ["cpu", "cpu-simt"])


@blkc.jit
def doubled(X, Y, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(Y + o, tl.load(X + o) * 2)


@blkc.jit
def accumulate(X, Total, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.atomic_add(Total + o * 0, tl.load(X + o))


@blkc.jit
def rows_in_a_loop(X, Y, ROWS: tl.constexpr, N: tl.constexpr):
    o = tl.arange(0, N)
    out = Y
    for _ in range(ROWS):
        tl.store(out + o, tl.load(X + o))
        out += N


def read_only(values: numpy.ndarray) -> numpy.ndarray:
    values = values.copy()
    values.setflags(write=False)
    return values


@TARGETS
def test_a_read_only_output_is_refused_and_left_alone(target: str) -> None:
    x = numpy.arange(8, dtype=numpy.float32)
    y = read_only(numpy.zeros(8, numpy.float32))
    with pytest.raises(TypeError, match=r"argument 1 \('Y'\) of kernel 'doubled' is read-only"):
        doubled[(1,)](x, y, 8, target=target)
    assert not y.any()


@TARGETS
def test_a_read_only_input_is_fine(target: str) -> None:
    x = read_only(numpy.arange(8, dtype=numpy.float32))
    y = numpy.zeros(8, numpy.float32)
    doubled[(1,)](x, y, 8, target=target)
    numpy.testing.assert_array_equal(y, x * 2)


def test_an_array_over_immutable_bytes_is_refused() -> None:
    data = bytes(32)
    y = numpy.frombuffer(data, numpy.float32)
    with pytest.raises(TypeError, match="read-only"):
        doubled[(1,)](numpy.ones(8, numpy.float32), y, 8)
    assert data == bytes(32)


def test_atomics_write_too() -> None:
    total = read_only(numpy.zeros(1, numpy.float32))
    with pytest.raises(TypeError, match=r"\('Total'\) of kernel 'accumulate' is read-only"):
        accumulate[(1,)](numpy.ones(4, numpy.float32), total, 4)


def test_a_pointer_carried_by_a_loop_is_traced_to_its_argument() -> None:
    x = read_only(numpy.arange(4, dtype=numpy.float32))  # only read: accepted
    y = numpy.zeros(12, numpy.float32)
    rows_in_a_loop[(1,)](x, y, 3, 4)
    numpy.testing.assert_array_equal(y, numpy.tile(x, 3))
    with pytest.raises(TypeError, match=r"\('Y'\) of kernel 'rows_in_a_loop'"):
        rows_in_a_loop[(1,)](x, read_only(y), 3, 4)


def test_a_read_only_memory_map_in_a_child_process(tmp_path: Path) -> None:
    """A read-only memory map killed the process with SIGSEGV when a kernel stored into it."""
    path = tmp_path / "data.bin"
    numpy.arange(8, dtype=numpy.float32).tofile(path)
    program = textwrap.dedent(
        f"""
        import numpy, blkc, blkc.language as tl

        @blkc.jit
        def fill(Y, N: tl.constexpr):
            tl.store(Y + tl.arange(0, N), tl.zeros([N], tl.float32))

        y = numpy.memmap({str(path)!r}, numpy.float32, mode="r")
        try:
            fill[(1,)](y, 8)
        except TypeError as err:
            print("refused:", err)
        print("alive", y.tolist())
        """
    )
    script = tmp_path / "fill.py"
    script.write_text(program)
    done = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "refused: argument 0 ('Y') of kernel 'fill' is read-only" in done.stdout
    assert "alive [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]" in done.stdout


def test_the_ir_says_which_arguments_are_written() -> None:
    module = blkc.parse(
        """
        func.func @k(%a: !blk.ptr<f32>, %b: !blk.ptr<f32>, %c: !blk.ptr<f32>, %n: i32,
                     %flag: i1) attributes {blk.kernel} {
          %x = blk.load %a : !blk.ptr<f32>
          %p = blk.where %flag, %b, %c : i1, !blk.ptr<f32>, !blk.ptr<f32> -> !blk.ptr<f32>
          blk.store %p, %x : !blk.ptr<f32>
          func.return
        }
        """
    )
    kernel = next(op for op in module.walk() if op.name == "func.func")
    assert written_arguments(kernel) == [False, True, True, False, False]


BAD_LAUNCHES = """
import numpy, blkc, blkc.language as tl

@blkc.jit
def doubled(X, Y, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(Y + o, tl.load(X + o) * 2)

@blkc.jit
def masked(X, n, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(X + o, tl.load(X + o, mask=o < n, other=0.0), mask=o < n)

x = numpy.ones(8, numpy.float32)
frozen = x.copy()
frozen.setflags(write=False)
cases = {
    "read-only view": lambda: doubled[(1,)](x, frozen, 8),
    "bytes": lambda: doubled[(1,)](x, numpy.frombuffer(bytes(32), numpy.float32), 8),
    "array for a number": lambda: masked[(1,)](x, x, 8),
    "number for an array": lambda: doubled[(1,)](1.5, x, 8),
    "wrong dtype": lambda: blkc.compile(
        open(EXAMPLE).read())[(1,)](x.astype(numpy.float64), x, x, 8),
}
for name, launch in cases.items():
    try:
        launch()
        print(name, "-> no error")
    except (TypeError, ValueError, blkc.BlkcError) as err:
        print(name, "->", type(err).__name__, str(err).splitlines()[0])
print("alive", frozen.tolist() == [1.0] * 8)
"""


def test_bad_launches_in_a_child_process_leave_it_alive(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "vector_add.mlir"
    script = tmp_path / "bad.py"
    script.write_text(f"EXAMPLE = {str(example)!r}\n" + BAD_LAUNCHES)
    done = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "alive True"
    outcome = dict(line.split(" -> ", 1) for line in lines[:-1])
    assert outcome["read-only view"].startswith("TypeError argument 1 ('Y')")
    assert outcome["bytes"].startswith("TypeError") and "read-only" in outcome["bytes"]
    assert "parameter 'n' is a pointer" in outcome["array for a number"]
    assert outcome["number for an array"].startswith("BlkcError")  # located at the load
    assert "bad.py:" in outcome["number for an array"]
    assert "expected a pointer" in outcome["number for an array"]
    assert "points to float32, but the array holds float64" in outcome["wrong dtype"]
