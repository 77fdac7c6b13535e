"""`tl.atomic_poll`: a wait on memory, with a timeout read from `blk.global_timer`."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc import targets
from blkc.runtime import ptx

TARGETS = ["cpu", "cpu-simt", "interpreter"]


@blkc.jit
def poll_once(flag, out, timeout_ns):
    tl.store(out, tl.atomic_poll(flag, 1, timeout_ns=timeout_ns))


@pytest.mark.parametrize("target", TARGETS)
def test_a_timeout_ends_the_wait(target: str, launch_on: Callable[..., None]) -> None:
    for initial, budget, seen in ((1, 0, True), (0, 0, False), (0, 3_000_000, False)):
        flag, out = numpy.array([initial], numpy.int32), numpy.zeros(1, numpy.bool_)
        start = time.perf_counter()
        launch_on(poll_once, target, (1,), flag, out, budget)
        assert out[0] == seen
        if not seen:
            assert time.perf_counter() - start >= budget * 1e-9
        assert flag[0] == initial  # the poll only reads


@blkc.jit
def poll_block(flags, out, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(out + o, tl.atomic_poll(flags + o, o.to(tl.int64), sem="relaxed", timeout_ns=1000))


@pytest.mark.parametrize("target", TARGETS)
def test_each_element_is_polled(target: str, launch_on: Callable[..., None]) -> None:
    flags = numpy.array([0, 5, 2, 3, -1, 5, 6, 0], numpy.int64)
    out = numpy.zeros(8, numpy.bool_)
    launch_on(poll_block, target, (1,), flags, out, N=8)
    assert out.tolist() == (flags == numpy.arange(8)).tolist()


@blkc.jit
def handshake(flag, data, out):
    # Program 1 waits for program 0, which a launch starts no later than program 1.
    if tl.program_id(0) == 0:
        tl.store(data, 42)
        tl.atomic_xchg(flag, 1)
    else:
        tl.atomic_poll(flag, 1)
        tl.store(out, tl.load(data))


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
def test_a_program_waits_for_another(target: str) -> None:
    flag, data, out = (numpy.zeros(1, numpy.int32) for _ in range(3))
    handshake[(2,)](flag, data, out, target=target)
    assert out[0] == 42


@blkc.jit
def bad_poll(flag, CASE: tl.constexpr):
    if CASE == "sem":
        tl.atomic_poll(flag, 1, sem="release")
    elif CASE == "timeout":
        tl.atomic_poll(flag, 1, timeout_ns=-1)
    else:
        tl.atomic_poll(flag, 1)


@pytest.mark.parametrize(
    ("case", "dtype", "message"),
    [
        ("sem", numpy.int32, "atomic_poll only supports acquire and relaxed semantics"),
        ("timeout", numpy.int32, "atomic_poll timeout_ns must be non-negative"),
        ("width", numpy.int8, "atomic_poll only supports integer elements with width"),
        ("float", numpy.float32, "atomic_poll only supports integer elements with width"),
    ],
)
def test_refusals_carry_tritons_words(case: str, dtype: type, message: str) -> None:
    with pytest.raises(blkc.BlkcError, match=message) as info:
        bad_poll.warmup(numpy.zeros(1, dtype), CASE=case)
    assert f"{__file__}:" in str(info.value)


def test_the_timer_reads_a_clock_each_time() -> None:
    text = """
    func.func @k(%out : !blk.ptr<i64>) {
      %a = blk.global_timer : i64
      %b = blk.global_timer : i64
      %d = blk.sub %b, %a : i64
      blk.store %out, %d : !blk.ptr<i64>, i64
      func.return
    }
    """
    stripped = blkc.run_pipeline(blkc.parse(text, "timer.mlir"), "to-strict{warn=false}")
    assert str(stripped).count("blk.global_timer") == 2  # not merged into one read


@pytest.mark.skipif(not ptx.ptxas_available(), reason="ptxas is not installed")
@pytest.mark.parametrize("arch", targets.ARCHES)
def test_the_gpu_reads_its_global_timer(arch: str) -> None:
    kernel = poll_once.warmup(
        numpy.zeros(1, numpy.int32), numpy.zeros(1, numpy.bool_), 5, target="ptx", arch=arch
    )
    text = kernel.asm["ptx"]
    assert "%globaltimer" in text and "atom" in text


def test_sixteen_bit_flags_under_triton_compat() -> None:
    """atomic_poll takes 16-bit integers under every policy, triton-compat included (which
    refuses 16-bit read-modify-writes: the poll's reads are not the user's)."""
    flag, out = numpy.array([1], numpy.int16), numpy.zeros(1, numpy.bool_)
    poll_once[(1,)](flag, out, 0, policy="triton-compat")
    assert out[0]
