"""Launch stubs (`blkc.runtime.fast_launch`): after two launches of a variant, later ones
are checked and run in native code, and every launch the stub does not take (another
specialization, a bad argument, a large grid) goes through Python as before."""

from __future__ import annotations

import ctypes
import gc
import subprocess
import sys
import textwrap
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.jitfunction import JITFunction
from blkc.runtime import fast_launch

pytestmark = pytest.mark.skipif(not fast_launch.available(), reason="no launch stubs here")


@pytest.fixture
def python_launches(count_calls: Callable[[Any, str], list[int]]) -> list[int]:
    """How many launches went through Python (`JITFunction._run`)."""
    return count_calls(JITFunction, "_run")


@blkc.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(out_ptr + o, a * tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)


def fresh(kernel: JITFunction) -> JITFunction:
    """The same kernel with no stubs yet (its variants come from the compile cache)."""
    return blkc.jit(kernel.fn)


def test_the_third_launch_runs_through_the_stub(python_launches: list[int]) -> None:
    kernel = fresh(axpy)
    x, y = numpy.arange(100, dtype=numpy.float32), numpy.ones(100, numpy.float32)
    for _ in range(6):
        out = numpy.zeros(100, numpy.float32)
        kernel[(4,)](x, y, out, 2.0, 100, BLOCK=32)
        assert out.tolist() == (2 * x + y).tolist()
        x = x + 1  # a new array each time
    assert python_launches[0] == 2


def test_other_specializations_go_through_python(python_launches: list[int]) -> None:
    kernel = fresh(axpy)
    x, y = numpy.arange(64, dtype=numpy.float32), numpy.ones(64, numpy.float32)
    out = numpy.zeros(64, numpy.float32)
    for _ in range(3):
        kernel[(2,)](x, y, out, 3.0, 48, BLOCK=32)  # 48: a multiple of 16
    assert python_launches[0] == 2
    for n in (47, 1, 2**33):  # not a multiple of 16; 1 (compiled in); int64
        out[:] = 0
        kernel[(2,)](x, y, out, 3.0, n, BLOCK=32)
        used = min(n, 64)
        assert out[:used].tolist() == (3 * x + y)[:used].tolist() and not out[used:].any()
    assert python_launches[0] == 5
    kernel[(2,)](x, y, out, 3.0, numpy.int32(48), BLOCK=32)  # a NumPy scalar
    kernel[(2,)](x, y, out, 3.0, 48, BLOCK=64)  # another constant
    assert python_launches[0] == 7


def test_overlapping_arrays_run_the_variant_that_allows_it() -> None:
    x = numpy.arange(64, dtype=numpy.float32)
    for _ in range(4):
        y = numpy.arange(64, dtype=numpy.float32)
        axpy[(2,)](y, y, y, 2.0, 64, BLOCK=32)  # in place: out is x and y
        assert y.tolist() == (3 * x).tolist()


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (lambda x: [1.0] * 64, TypeError, "cannot pass list"),
    ],
)
def test_bad_arguments_get_the_python_launchs_errors(bad, error, message) -> None:  # type: ignore[no-untyped-def]
    x, out = numpy.ones(128, numpy.float32), numpy.zeros(128, numpy.float32)
    for _ in range(3):
        axpy[(2,)](x, x, out, 1.0, 64, BLOCK=32)
    with pytest.raises(error, match=message):
        axpy[(2,)](bad(x), x, out, 1.0, 64, BLOCK=32)
    read_only = out.copy()
    read_only.flags.writeable = False
    with pytest.raises(TypeError, match="read-only"):
        axpy[(2,)](x, x, read_only, 1.0, 64, BLOCK=32)
    with pytest.raises(OverflowError):
        axpy[(2,)](x, x, out, 1.0, 2**64, BLOCK=32)
    wide = numpy.zeros(128, numpy.float64)
    axpy[(2,)](x.astype(numpy.float64), x.astype(numpy.float64), wide, 1.0, 64, BLOCK=32)
    assert wide.tolist() == [2.0] * 64 + [0.0] * 64  # another dtype: another variant


@blkc.jit
def gather(x_ptr, i_ptr, out_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(out_ptr + o, tl.load(x_ptr + tl.load(i_ptr + o)))


@blkc.jit
def checked(x_ptr, LIMIT: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.device_assert(x < LIMIT, "x is too large")


def test_errors_recorded_during_a_stub_launch_are_raised() -> None:
    x, out = numpy.arange(8, dtype=numpy.float32), numpy.zeros(8, numpy.float32)
    inside = numpy.arange(8, dtype=numpy.int32)
    for _ in range(3):
        gather[(1,)](x, inside, out, 8)
    outside = inside + 5
    with pytest.raises(IndexError, match="outside the arrays"):
        gather[(1,)](x, outside, out, 8)
    gather[(1,)](x, inside, out, 8)  # the record is reset
    small = numpy.zeros(4, numpy.int32)
    for _ in range(3):
        checked[(1,)](small, 10)
    with pytest.raises(AssertionError, match="x is too large"):
        checked[(1,)](small + 20, 10)
    checked[(1,)](small, 10)


SCALE = tl.constexpr(2)


@blkc.jit
def scaled(x_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(x_ptr + o, tl.load(x_ptr + o) * SCALE)


def test_a_changed_global_is_seen() -> None:
    global SCALE
    for _ in range(3):
        x = numpy.ones(4, numpy.int32)
        scaled[(1,)](x, 4)
        assert x.tolist() == [2] * 4
    SCALE = tl.constexpr(5)
    try:
        x = numpy.ones(4, numpy.int32)
        scaled[(1,)](x, 4)
        assert x.tolist() == [5] * 4
    finally:
        SCALE = tl.constexpr(2)


@blkc.jit
def filled(out_ptr, N: tl.constexpr, VALUE: tl.constexpr, SIGN: tl.constexpr = 1):
    o = tl.arange(0, N)
    tl.store(out_ptr + o, tl.full([N], VALUE, tl.float32) * SIGN)


def test_a_stub_takes_only_the_keywords_it_was_built_for(python_launches: list[int]) -> None:
    kernel = fresh(filled)
    out = numpy.zeros(4, numpy.float32)
    for _ in range(3):
        kernel[(1,)](out, 4, VALUE=2)
    assert python_launches[0] == 2
    # Equal values of another type, another value, a keyword left to its default, a
    # keyword more: each is another variant, so Python launches it.
    launches = [
        ({"VALUE": 2.0}, 2.0),
        ({"VALUE": True}, 1.0),
        ({"VALUE": 3}, 3.0),
        ({"VALUE": 2, "SIGN": -1}, -2.0),
        ({"VALUE": 2, "SIGN": 1}, 2.0),
    ]
    for count, (keywords, expected) in enumerate(launches, start=3):
        out[:] = 0
        kernel[(1,)](out, 4, **keywords)
        assert out.tolist() == [expected] * 4, keywords
        assert python_launches[0] == count, keywords
    kernel[(1,)](out, 4, VALUE=2)  # the first stub still takes its own
    assert python_launches[0] == len(launches) + 2


def test_a_nan_keyword_takes_its_stub(python_launches: list[int]) -> None:
    """The same NaN object is the same keyword, as dictionaries compare values."""
    kernel, nan = fresh(filled), float("nan")
    out = numpy.zeros(4, numpy.float32)
    for _ in range(4):
        kernel[(1,)](out, 4, VALUE=nan)
    assert numpy.isnan(out).all()
    assert python_launches[0] == 2


def test_a_changed_environment_variable_is_seen(
    python_launches: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    kernel = fresh(filled)
    out = numpy.zeros(4, numpy.float32)
    for _ in range(3):
        kernel[(1,)](out, 4, VALUE=5)
    assert python_launches[0] == 2
    for variable, value in [("BLKC_CHECK_BOUNDS", "0"), ("BLKC_STREAM_BYTES", "0")]:
        monkeypatch.setenv(variable, value)
        before = python_launches[0]
        kernel[(1,)](out, 4, VALUE=5)
        assert python_launches[0] == before + 1, variable
        monkeypatch.delenv(variable)
    before = python_launches[0]
    kernel[(1,)](out, 4, VALUE=5)
    assert python_launches[0] == before  # the stub again
    assert out.tolist() == [5.0] * 4


@blkc.jit
def divide(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(out_ptr + o, tl.load(x_ptr + o) / tl.load(y_ptr + o))


def test_the_default_policy_is_read_at_each_launch() -> None:
    x, y = numpy.array([7, -7], numpy.int32), numpy.array([2, 2], numpy.uint32)
    out = numpy.zeros(2, numpy.float32)
    for _ in range(3):
        divide[(1,)](x, y, out, 2)
    blkc.set_default_policy("triton-compat")
    try:
        with pytest.raises(blkc.BlkcError, match="different signedness"):
            divide[(1,)](x, y, out, 2)
    finally:
        blkc.set_default_policy(None)
    divide[(1,)](x, y, out, 2)


def test_large_grids_run_on_the_pool_and_empty_grids_do_nothing() -> None:
    n = 1 << 20
    x, y = numpy.ones(n, numpy.float32), numpy.arange(n, dtype=numpy.float32)
    for _ in range(3):
        out = numpy.zeros(n, numpy.float32)
        axpy[(n // 1024,)](x, y, out, 1.0, n, BLOCK=1024)
        assert numpy.array_equal(out, y + 1)
    out = numpy.zeros(n, numpy.float32)
    axpy[(0,)](x, y, out, 1.0, n, BLOCK=1024)
    assert not out.any()


def test_threads_launching_at_once_get_their_own_results(in_threads: Any) -> None:
    def work(seed: int) -> None:
        rng = numpy.random.default_rng(seed)
        for _ in range(200):
            x = rng.random(96, dtype=numpy.float32)
            y = rng.random(96, dtype=numpy.float32)
            out = numpy.zeros(96, numpy.float32)
            axpy[(3,)](x, y, out, 0.5, 96, BLOCK=32)
            numpy.testing.assert_allclose(out, 0.5 * x + y, rtol=1e-6)

    in_threads(4, work)


@blkc.jit
def flags(out_ptr, b, f, N: tl.constexpr, MODE: tl.constexpr):
    o = tl.arange(0, N)
    value = tl.where(b, f, -f) if MODE == "sign" else f * 0
    tl.store(out_ptr + o, value + tl.zeros([N], tl.float32))


def test_bools_floats_and_string_constants() -> None:
    out = numpy.zeros(4, numpy.float32)
    for b, f in [(True, 1.5), (False, 2.5), (True, 3.0), (False, 0.25), (True, -1.0)]:
        flags[(1,)](out, b, f, 4, "sign")
        assert out.tolist() == [f if b else -f] * 4
    flags[(1,)](out, True, 7.0, 4, "zero")
    assert out.tolist() == [0.0] * 4


def test_grid_functions_and_launch_options(python_launches: list[int]) -> None:
    kernel = fresh(axpy)
    x, y = numpy.arange(80, dtype=numpy.float32), numpy.ones(80, numpy.float32)
    for n in (80, 80, 80, 64, 16):
        out = numpy.zeros(80, numpy.float32)
        grid = lambda meta: (blkc.cdiv(n, meta["BLOCK"]),)  # noqa: E731, B023
        kernel[grid](x, y, out, 2.0, n, BLOCK=32, policy="numpy", num_warps=4)
        assert out[:n].tolist() == (2 * x + y)[:n].tolist() and not out[n:].any()
    assert python_launches[0] == 2  # 80, 64 and 16 are all multiples of 16


def test_torch_tensors_launch_through_stubs(python_launches: list[int]) -> None:
    import torch

    kernel = fresh(axpy)
    x, y = torch.arange(64, dtype=torch.float32), torch.ones(64)
    for _ in range(5):
        out = torch.zeros(64)
        kernel[(2,)](x, y, out, 2.0, 64, BLOCK=32)
        assert torch.equal(out, 2 * x + y)
    assert python_launches[0] == 2
    base = torch.zeros(128)
    wide = base[::2]  # not contiguous: through Python; the kernel indexes from its start
    kernel[(2,)](x, y, wide, 2.0, 64, BLOCK=32)
    assert torch.equal(base[:64], 2 * x + y) and python_launches[0] == 3
    half = torch.zeros(64, dtype=torch.float64)  # another dtype: another variant
    kernel[(2,)](x.double(), y.double(), half, 2.0, 64, BLOCK=32)
    assert torch.equal(half, (2 * x + y).double()) and python_launches[0] == 4
    numpy_out = numpy.zeros(64, numpy.float32)  # arrays next to tensors: their own stub
    for _ in range(3):
        kernel[(2,)](x.numpy(), y.numpy(), numpy_out, 2.0, 64, BLOCK=32)
    assert numpy_out.tolist() == (2 * x + y).tolist() and python_launches[0] == 6


def test_tensor_subclasses_launch_through_stubs(python_launches: list[int]) -> None:
    import torch

    kernel = fresh(axpy)
    x = torch.nn.Parameter(torch.arange(64, dtype=torch.float32), requires_grad=False)
    y = torch.nn.Parameter(torch.ones(64), requires_grad=False)
    for _ in range(4):
        out = torch.zeros(64)
        kernel[(2,)](x, y, out, 2.0, 64, BLOCK=32)
        assert torch.equal(out, 2 * x.detach() + y.detach())
    assert python_launches[0] == 2


class Strided(NamedTuple):
    ptr: Any
    shape: tuple[int, int]
    stride: tuple[int, int]


@blkc.jit
def scaled_transpose(src, dst, scale, BM: tl.constexpr, BN: tl.constexpr):
    om = tl.arange(0, BM)[:, None]
    on = tl.arange(0, BN)[None, :]
    inside = (om < src.shape[0]) & (on < src.shape[1])
    v = tl.load(src.ptr + om * src.stride[0] + on * src.stride[1], mask=inside, other=0)
    out = dst.ptr + on * dst.stride[0] + om * dst.stride[1]
    tl.store(out, v * scale[0] + scale[1], mask=inside)


def transposed(a: numpy.ndarray, scale: tuple[Any, ...], kernel: JITFunction) -> numpy.ndarray:
    rows, cols = a.shape
    b = numpy.zeros((cols, rows), a.dtype)
    kernel[(1,)](Strided(a, a.shape, (cols, 1)), Strided(b, (cols, rows), (rows, 1)), scale, 16, 16)
    return b


def test_tuple_arguments_launch_through_stubs(python_launches: list[int]) -> None:
    """NamedTuples of an array and tuples of ints, and a pair of floats: each element is
    checked as its own argument would be."""
    kernel = fresh(scaled_transpose)
    rng = numpy.random.default_rng(0)
    for rows, cols in [(5, 7), (6, 7), (5, 9), (7, 5), (3, 11)]:
        a = rng.random((rows, cols), dtype=numpy.float32)
        numpy.testing.assert_array_equal(transposed(a, (2.0, 0.5), kernel), (a * 2 + 0.5).T)
    assert python_launches[0] == 2
    a = rng.random((4, 6), dtype=numpy.float32)
    expected = (a * 3 + 1).T
    # What the stub does not take goes through Python, which specializes as before.
    numpy.testing.assert_array_equal(transposed(a, (3.0, 1), kernel), expected)  # an int
    numpy.testing.assert_array_equal(transposed(a, (3.0, 1.0, 0.0), kernel), expected)
    wide = transposed(a.astype(numpy.float64), (3.0, 1.0), kernel)
    numpy.testing.assert_array_equal(wide, (a.astype(numpy.float64) * 3 + 1).T)
    for bad in ([3.0, 1.0], (3.0, "1")):
        with pytest.raises(TypeError, match="cannot pass"):
            transposed(a, bad, kernel)
    assert python_launches[0] == 7
    numpy.testing.assert_array_equal(transposed(a, (3.0, 1.0), kernel), expected)
    assert python_launches[0] == 7  # the first stub again


def test_a_stub_takes_tuples_of_its_own_class_and_length_only(python_launches: list[int]) -> None:
    kernel = fresh(first_times_second)
    out = numpy.zeros(1, numpy.int32)
    for a, b in [(6, 7), (8, 9), (10, 11)]:
        kernel[(1,)](out, (a, b))
        assert out[0] == a * b
    assert python_launches[0] == 2

    class Pair(NamedTuple):
        a: int
        b: int

    for pair, product in [(Pair(3, 5), 15), ((3, 5, 7), 15), ((3, (5,)), None), ((3, 5), 15)]:
        if product is None:
            with pytest.raises(blkc.BlkcError):
                kernel[(1,)](out, pair)
        else:
            kernel[(1,)](out, pair)
            assert out[0] == product
    assert python_launches[0] == 5  # the plain pair of ints took the stub


@blkc.jit
def first_times_second(out, pair):
    tl.store(out, pair[0] * pair[1])


def test_the_stubs_abi_is_the_code_generators() -> None:
    """`fast_launch.abi_type` reads a parameter's type from its text (no xDSL at launch);
    it must give what the code generator's `abi_type` gives for every parameter type."""
    from blkc import dtypes
    from blkc.pipeline import parse_attributes
    from blkc.runtime.llvm_emitter import abi_type

    texts = [d.mlir for d in dtypes.ALL if not d.is_complex]
    texts += [f"si{w}" for w in (8, 16, 32, 64)] + ["!blk.ptr<f32>", "!blk.ptr<ui8>"]
    for text, attribute in zip(texts, parse_attributes(texts), strict=True):
        assert str(fast_launch.abi_type(text)) == str(abi_type(attribute)), text


@blkc.jit
def with_defaults(x_ptr, out_ptr, n, factor=2.0, num_warps=1, BLOCK: tl.constexpr = 16):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * factor * num_warps, mask=mask)


def test_grid_functions_get_the_arguments_by_name_defaults_included() -> None:
    x = numpy.arange(40, dtype=numpy.float32)
    seen: list[dict[str, object]] = []

    def grid(meta: dict[str, object]) -> tuple[int]:
        seen.append({k: v for k, v in meta.items() if k not in ("x_ptr", "out_ptr")})
        return (blkc.cdiv(40, meta["BLOCK"]),)  # type: ignore[operator]

    for _ in range(3):  # through Python, then through the launch stub
        out = numpy.zeros(40, numpy.float32)
        with_defaults[grid](x, out, 40, BLOCK=8)
        assert out.tolist() == (2 * x).tolist()
    out = numpy.zeros(40, numpy.float32)
    # A launch option the kernel has a parameter for reaches it; others do not.
    with_defaults[grid](x, out, 40, 0.5, num_warps=4, num_stages=3, num_cpu_threads=1)
    assert out.tolist() == (2 * x).tolist()
    defaults = {"n": 40, "factor": 2.0, "num_warps": 1, "BLOCK": 8}
    assert seen == [defaults] * 3 + [{**defaults, "factor": 0.5, "num_warps": 4, "BLOCK": 16}]
    with pytest.raises(TypeError, match="kernel 'with_defaults'.*'n'"):
        with_defaults[grid](x, out)


@pytest.mark.parametrize(
    ("grid", "error", "message"),
    [
        (lambda meta: "x", TypeError, "a grid function must return a tuple of 1 to 3 ints"),
        (lambda meta: (1.5,), TypeError, "a grid function must return a tuple of 1 to 3 ints"),
        (lambda meta: (-1,), ValueError, "must not be negative"),
        (lambda meta: (2**31,), ValueError, "must be below 2\\*\\*31"),
    ],
)
def test_a_grid_function_s_bad_result_is_an_error_with_stubs_built(grid, error, message) -> None:  # type: ignore[no-untyped-def]
    kernel = fresh(axpy)
    x = numpy.ones(64, numpy.float32)
    out = numpy.zeros(64, numpy.float32)
    for _ in range(3):
        kernel[lambda meta: (2,)](x, x, out, 1.0, 64, BLOCK=32)
    assert kernel._fast  # the launches above built a stub
    with pytest.raises(error, match=message):
        kernel[grid](x, x, out, 1.0, 64, BLOCK=32)


def test_a_stub_function_keeps_its_code_alive(tmp_path: Path) -> None:
    """A stub's builtin function may outlive the stub it came from (a launch function
    holds it) and the kernel's variants: it keeps its own object code and the kernel's
    alive itself. Run in a process of its own: where it did not, the call ran freed
    memory and crashed."""
    script = textwrap.dedent(
        """
        import gc, numpy, blkc
        import blkc.language as tl

        @blkc.jit
        def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
            o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = o < n
            x = tl.load(x_ptr + o, mask=m)
            tl.store(out_ptr + o, a * x + tl.load(y_ptr + o, mask=m), mask=m)

        x, y = numpy.arange(64, dtype=numpy.float32), numpy.ones(64, numpy.float32)
        out = numpy.zeros(64, numpy.float32)
        for _ in range(3):
            axpy[(2,)](x, y, out, 2.0, 64, BLOCK=32)
        call = axpy._fast[0].stub.call
        axpy._unsafe_update_src(axpy.src)  # drops every variant, stub and launcher
        gc.collect()
        junk = [10**30 + i for i in range(200000)]  # reuses what was freed
        out[:] = 0
        print(call(2, 1, 1, x, y, out, 2.0, 64), (out == 2 * x + y).all())
        """
    )
    (tmp_path / "outlive.py").write_text(script)
    done = subprocess.run(
        [sys.executable, str(tmp_path / "outlive.py")], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["None", "True"]


def test_a_stub_function_collected_in_a_cycle_frees_no_memory_it_reads() -> None:
    """CPython reads a builtin function's method definition when it frees the function.
    The garbage collector breaks a cycle through the function by clearing its objects in
    no set order: the definition must outlive the function whichever is cleared first.
    Where a list the function held was the definition's only owner, the collector freed
    it first and the function's deallocation read freed memory (which crashed the test
    suite, at random, in a collection minutes later)."""
    keep: list[Any] = []
    function = fast_launch._builtin(0x1000, "probe", keep)  # never called
    # The definition is what the function's `m_ml` (after the object header) points to.
    definition_address = ctypes.c_void_p.from_address(id(function) + 16).value
    [definition] = [
        o
        for o in gc.get_objects()
        if issubclass(type(o), ctypes.Structure) and ctypes.addressof(o) == definition_address
    ]
    alive = weakref.ref(definition)
    del definition
    holder: dict[str, Any] = {"call": function}
    other = [holder]
    holder["other"] = other
    keep.append(holder)  # keep -> holder -> function -> keep (its self); other <-> holder
    del function, holder, other, keep
    gc.collect()  # clears keep first; the holder, alive through other, frees the function
    assert alive() is not None


@blkc.jit
def times_scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr = 2):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * SCALE, mask=mask)


def test_grid_functions_get_the_same_arguments_through_stubs(
    python_launches: list[int],
) -> None:
    """The launch function a stub runs builds the grid function's arguments itself: the
    same names, in the parameters' order, with the launch's own objects and the defaults."""
    kernel = fresh(times_scale)
    x = numpy.arange(40, dtype=numpy.float32)
    seen: list[dict[str, object]] = []

    def grid(meta: dict[str, object]) -> tuple[int]:
        assert meta["x_ptr"] is x and meta["out_ptr"] is out
        seen.append({k: v for k, v in meta.items() if k not in ("x_ptr", "out_ptr")})
        assert list(meta) == ["x_ptr", "out_ptr", *seen[-1]]
        return (blkc.cdiv(40, meta["BLOCK"]),)  # type: ignore[operator]

    for _ in range(4):  # through Python twice, then through the stub
        out = numpy.zeros(40, numpy.float32)
        kernel[grid](x, out, 40, BLOCK=8)
        assert out.tolist() == (2 * x).tolist()
    for _ in range(4):  # an ignored Triton option and a launch option: not arguments
        out = numpy.zeros(40, numpy.float32)
        kernel[grid](x, out, 40, BLOCK=16, SCALE=3, num_stages=3, num_cpu_threads=1)
        assert out.tolist() == (3 * x).tolist()
    assert python_launches[0] == 4
    first, second = {"n": 40, "BLOCK": 8, "SCALE": 2}, {"n": 40, "BLOCK": 16, "SCALE": 3}
    assert seen == [first] * 4 + [second] * 4


def test_a_grid_launcher_tries_each_stub_in_turn(python_launches: list[int]) -> None:
    """`kernel[grid_function]`'s launcher has the guards of the kernel's stubs inline: each
    launch takes the stub built for its keywords and arguments, whichever was built last."""
    kernel = fresh(axpy)
    x, y = numpy.arange(96, dtype=numpy.float32), numpy.ones(96, numpy.float32)
    first, second = (32, 2.0, 96), (16, 3.0, 80)
    # Two of each in a row through Python (the second builds its stub), then by the stubs.
    for block, a, n in [first, first, second, second] + [first, second] * 4:
        out = numpy.zeros(96, numpy.float32)
        kernel[lambda meta: (blkc.cdiv(meta["n"], meta["BLOCK"]),)](  # noqa: B023
            x, y, out, a, n, BLOCK=block
        )
        assert out[:n].tolist() == (a * x + y)[:n].tolist() and not out[n:].any()
    assert python_launches[0] == 4 and len(kernel._fast) == 2


def test_an_error_in_a_grid_function_is_the_users() -> None:
    kernel = fresh(axpy)
    x = numpy.ones(32, numpy.float32)
    for _ in range(3):  # the third through the stub's launch code
        with pytest.raises(KeyError, match="BLOCK_SIZE") as caught:
            kernel[lambda meta: (meta["BLOCK_SIZE"],)](x, x, x, 1.0, 32, BLOCK=32)
        assert caught.traceback[-1].name == "<lambda>"
        kernel[lambda meta: (1,)](x, x, x, 1.0, 32, BLOCK=32)


@blkc.jit
def in_place_axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(out_ptr + o, a * tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)


def test_a_stub_is_rebuilt_once_the_other_variant_is_compiled(
    python_launches: list[int],
) -> None:
    """The first launches wrote in place (the variant for overlapping arrays); launches on
    separate arrays compile the other variant and then build a stub that has both."""
    kernel = in_place_axpy  # its own: no other test compiles its variants
    x, y = numpy.arange(64, dtype=numpy.float32), numpy.ones(64, numpy.float32)
    for _ in range(3):
        kernel[(2,)](x, y, y, 2.0, 64, BLOCK=32)
    assert python_launches[0] == 2
    for _ in range(5):
        out = numpy.zeros(64, numpy.float32)
        kernel[lambda meta: (2,)](x, y, out, 1.0, 64, BLOCK=32)
        assert out.tolist() == (x + y).tolist()
    kernel[(2,)](x, y, y, 2.0, 64, BLOCK=32)
    assert y.tolist() == (1 + 8 * x).tolist()
    assert python_launches[0] == 3  # the first on separate arrays compiled theirs
