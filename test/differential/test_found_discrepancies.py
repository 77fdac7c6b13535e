"""The disagreements the differential tests found, each as its smallest kernel.

Fixed ones stay as regression tests. An open one is a strict xfail naming its bug: when
the fix lands, the case passes, pytest reports the XPASS as a failure, and the marker,
with the generator's matching avoidance in `kernels.py`, can go.
"""

from __future__ import annotations

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import blkc
import blkc.language as tl
from blkc import dtypes

from .harness import TARGETS, Argument, assert_same, run_both


def one_in_one_out(source: str, result: str, body: str) -> str:
    """A kernel reading ``%x`` (a scalar of `source`; ``%x1`` is the next element) and
    storing ``%y`` (a scalar of `result`)."""
    return f"""
    func.func @k(%x_ptr: !blk.ptr<{source}>, %y_ptr: !blk.ptr<{result}>)
        attributes {{blk.kernel}} {{
      %x = blk.load %x_ptr : !blk.ptr<{source}>
      %one = blk.constant 1 : i32
      %x1_ptr = blk.addptr %x_ptr, %one : !blk.ptr<{source}>, i32 -> !blk.ptr<{source}>
      %x1 = blk.load %x1_ptr : !blk.ptr<{source}>
      {body}
      blk.store %y_ptr, %y : !blk.ptr<{result}>
      func.return
    }}
    """


def check(text: str, args: list[Argument]) -> None:
    """Run the kernel of `text` both ways, compiled for every target, on `args`; every
    array bit for bit."""
    for target in TARGETS:
        interpreted, compiled = run_both(text, (1,), args, target=target)
        for position, (i, c) in enumerate(zip(interpreted, compiled, strict=True)):
            assert_same(f"array {position} ({target})", i, c)


# --------------------------------------------------------------------------------------
# Fixed
# --------------------------------------------------------------------------------------


def test_float64_to_float16_conversion_does_not_crash() -> None:
    # The compiled code called __truncdfhf2, which the process lacks: SIGSEGV. In a
    # subprocess, so that a regression fails this test rather than the session.
    program = f"""
import numpy, blkc
text = {one_in_one_out("f64", "f16", "%y = blk.cast %x : f64 -> f16")!r}
y = numpy.zeros(1, numpy.float16)
blkc.compile(text)[(1,)](numpy.array([1 + 2**-11 + 2**-40, 0.0]), y)
assert y[0] == 1 + 2**-10, y
"""
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, timeout=120)
    assert run.returncode == 0, f"exit status {run.returncode}: {run.stderr.decode()[-500:]}"


def test_float_floor_remainder_of_zero_takes_the_divisor_sign() -> None:
    # -4.0 % 2.0 was -0.0 (fmod's sign) compiled, 0.0 (NumPy's) interpreted.
    body = "%y = blk.mod %x, %x1 rounding = floor : f32"
    check(
        one_in_one_out("f32", "f32", body),
        [np.array([-4.0, 2.0], np.float32), np.ones(1, np.float32)],
    )


@pytest.mark.parametrize("dtype", ["bf16", "f8E4M3FN", "f8E5M2"])
def test_small_float_remainder_compiles(dtype: str) -> None:
    # 'frem i16' (bf16) and 'frem i8' (fp8): invalid LLVM IR.
    numpy_dtype = dtypes.dtype(dtype).numpy
    body = f"%y = blk.mod %x, %x1 rounding = trunc : {dtype}"
    check(
        one_in_one_out(dtype, dtype, body),
        [np.array([5.0, 1.5], numpy_dtype), np.ones(1, numpy_dtype)],
    )


@pytest.mark.parametrize(
    ("dtype", "a", "b"), [("bf16", 253.0, 1.5), ("f8E4M3FN", 1.0, 0.1015625), ("f16", 2047.0, 1.25)]
)
def test_small_float_floordiv_floors_the_exact_quotient(dtype: str, a: float, b: float) -> None:
    # 253 // 1.5 was 169 compiled (the quotient rounded to bfloat16 first), 168 interpreted.
    numpy_dtype = dtypes.dtype(dtype).numpy
    body = f"%y = blk.floordiv %x, %x1 rounding = floor : {dtype}"
    check(
        one_in_one_out(dtype, dtype, body), [np.array([a, b], numpy_dtype), np.ones(1, numpy_dtype)]
    )


@pytest.mark.parametrize("kind", ["argmin", "argmax"])
def test_float8_e4m3fn_arg_reductions(kind: str) -> None:
    # Always 0: the search started from +-inf, which float8_e4m3fn (no infinities) makes NaN.
    t = "f8E4M3FN"
    text = f"""
    func.func @k(%x_ptr: !blk.ptr<{t}>, %y_ptr: !blk.ptr<i32>) attributes {{blk.kernel}} {{
      %i = blk.arange 0, 4 : tensor<4xi32>
      %p = blk.addptr %x_ptr, %i : !blk.ptr<{t}>, tensor<4xi32> -> tensor<4x!blk.ptr<{t}>>
      %x = blk.load %p : tensor<4x!blk.ptr<{t}>>
      %y = blk.reduce {kind}, %x : tensor<4x{t}> -> i32
      blk.store %y_ptr, %y : !blk.ptr<i32>
      func.return
    }}
    """
    x = np.array([2.0, 1.0, 3.0, 1.0], ml_dtypes.float8_e4m3fn)
    check(text, [x, np.full(1, -1, np.int32)])


def test_where_whose_condition_is_also_a_value() -> None:
    # promote-types cast the first use of the value, the condition, instead of the value.
    text = """
    module attributes {blk.policy = "triton"} {
      func.func @k(%c_ptr: !blk.ptr<i1>, %v_ptr: !blk.ptr<i8>, %y_ptr: !blk.ptr<i8>)
          attributes {blk.kernel} {
        %c = blk.load %c_ptr : !blk.ptr<i1>
        %v = blk.load %v_ptr : !blk.ptr<i8>
        %y = blk.where %c, %v, %c : i1, i8, i1 -> i8
        blk.store %y_ptr, %y : !blk.ptr<i8>
        func.return
      }
    }
    """
    check(text, [np.array([False]), np.array([5], np.int8), np.full(1, 9, np.int8)])


@pytest.mark.parametrize("dtype", ["ui8", "ui16", "ui32", "ui64"])
def test_unsigned_scalar_arguments(dtype: str) -> None:
    # ctypes.ArgumentError: unsigned ctypes values for a launcher taking signed ones.
    text = f"""
    func.func @k(%s: {dtype}, %y_ptr: !blk.ptr<{dtype}>) attributes {{blk.kernel}} {{
      blk.store %y_ptr, %s : !blk.ptr<{dtype}>
      func.return
    }}
    """
    high = (1 << int(dtype[2:])) - 1
    check(text, [high, np.zeros(1, dtypes.dtype(dtype).numpy)])


@pytest.mark.parametrize(
    ("dtype", "value"), [("f16", 1 + 2**-11 + 2**-30), ("f8E4M3FN", 1.5), ("f8E5M2", 1.5)]
)
def test_small_float_scalar_arguments(dtype: str, value: float) -> None:
    # float16 arguments went through float32 and rounded twice (1.0 instead of
    # 1 + 2**-10); fp8 ones raised KeyError.
    numpy_dtype = dtypes.dtype(dtype).numpy
    text = f"""
    func.func @k(%s: {dtype}, %y_ptr: !blk.ptr<{dtype}>) attributes {{blk.kernel}} {{
      blk.store %y_ptr, %s : !blk.ptr<{dtype}>
      func.return
    }}
    """
    check(text, [value, np.zeros(1, numpy_dtype)])


# --------------------------------------------------------------------------------------
# Fixed after the first report (regression tests too)
# --------------------------------------------------------------------------------------


def test_interpreter_bool_scalar_arithmetic() -> None:
    body = "%d = blk.xor %x, %x1 : i1\n      %y = blk.xor %d, %x : i1"
    check(one_in_one_out("i1", "i1", body), [np.array([True, False]), np.zeros(1, bool)])


def test_value_loaded_before_a_store_is_not_reloaded_after_it() -> None:
    text = """
    func.func @k(%a: !blk.ptr<f32>, %b: !blk.ptr<f32>) attributes {blk.kernel} {
      %i = blk.arange 0, 4 : tensor<4xi32>
      %pa = blk.addptr %a, %i : !blk.ptr<f32>, tensor<4xi32> -> tensor<4x!blk.ptr<f32>>
      %pb = blk.addptr %b, %i : !blk.ptr<f32>, tensor<4xi32> -> tensor<4x!blk.ptr<f32>>
      %x = blk.load %pa : tensor<4x!blk.ptr<f32>>
      %y = blk.add %x, %x : tensor<4xf32>
      %zero = blk.constant dense<0.0> : tensor<4xf32>
      blk.store %pa, %zero : tensor<4x!blk.ptr<f32>>
      blk.store %pb, %y : tensor<4x!blk.ptr<f32>>
      func.return
    }
    """
    check(text, [np.arange(1, 5, dtype=np.float32), np.zeros(4, np.float32)])


# --------------------------------------------------------------------------------------
# Found against Triton 3.9's interpreter (triton_fuzz.py); Triton's values recorded
# --------------------------------------------------------------------------------------


@blkc.jit
def sine_and_cosine(X, S, C):  # noqa: N803 - Triton's naming
    offsets = tl.arange(0, 8)
    x = tl.load(X + offsets)
    tl.store(S + offsets, tl.sin(x))
    tl.store(C + offsets, tl.cos(x))


def test_float32_sin_and_cos_of_large_arguments() -> None:
    # The reduction by pi/2 in three float32 parts gave inf, NaN and |sin| > 1 beyond
    # |x| = 71476, where Triton is within an ulp.
    x = np.array([1e30, 1e10, 71477, 3e38, -1e30, 1e20, 123456.7, 2**24], np.float32)
    sine, cosine = np.zeros(8, np.float32), np.zeros(8, np.float32)
    sine_and_cosine[(1,)](x, sine, cosine)
    triton_sine = [-0.79116344, -0.48750603, -0.49345225, 0.8749049, 0.79116344, 0.6565767]
    triton_sine += [-0.99941593, -0.77956367]
    triton_cosine = [-0.6116048, 0.87311965, 0.86977285, -0.48429477, -0.6116048, 0.7542593]
    triton_cosine += [-0.034172792, 0.626323]
    ulp = np.spacing(np.float32(1))
    np.testing.assert_allclose(sine, np.float32(triton_sine), rtol=0, atol=2 * ulp)
    np.testing.assert_allclose(cosine, np.float32(triton_cosine), rtol=0, atol=2 * ulp)


@blkc.jit
def full_of(OUT, VALUE: tl.constexpr):  # noqa: N803 - Triton's naming
    tl.store(OUT + tl.arange(0, 2), tl.full([2], VALUE, tl.uint32))


def test_full_of_a_negative_number_and_an_unsigned_dtype_is_refused() -> None:
    # Triton refuses it (its builder's get_uint32 takes no negative number); blkc wrapped.
    out = np.zeros(2, np.uint32)
    full_of[(1,)](out, VALUE=4294967295)
    assert out.tolist() == [4294967295] * 2
    with pytest.raises(blkc.BlkcError, match="full's value -128 is negative") as caught:
        full_of[(1,)](out, VALUE=-128)
    assert "test_found_discrepancies.py" in str(caught.value)
    assert "tl.full([2], VALUE, tl.uint32)" in str(caught.value)


@blkc.jit
def full_int8(OUT, VALUE: tl.constexpr):  # noqa: N803 - Triton's naming
    tl.store(OUT + tl.arange(0, 2), tl.full([2], VALUE, tl.int8))


@pytest.mark.parametrize(
    ("value", "words"),
    [(300, r"300 is out of range for int8 \(-128 to 127\)"), (-129, "out of range"),
     (2.5, "2.5 is not an integer")],
)  # fmt: skip
def test_full_of_a_value_its_int_dtype_cannot_hold_is_refused(value: object, words: str) -> None:
    # Triton refuses it (its builder's get_int8 takes no 300, nor a float); blkc wrapped 300
    # to 44 and truncated 2.5.
    out = np.zeros(2, np.int8)
    for fits in (127, -128, 3.0):
        full_int8[(1,)](out, VALUE=fits)
        assert out.tolist() == [int(fits)] * 2
    with pytest.raises(blkc.BlkcError, match=words) as caught:
        full_int8[(1,)](out, VALUE=value)
    assert "tl.full([2], VALUE, tl.int8)" in str(caught.value)


@blkc.jit
def times_assigned(X, OUT, MODE: tl.constexpr):  # noqa: N803 - Triton's naming
    x = tl.load(X + tl.arange(0, 2))
    if MODE == 0:
        t = 255
        y = x * t
    elif MODE == 1:
        t = -1 <= 0
        y = t.to(tl.int32) + x
    else:
        t: tl.constexpr = 255
        y = x * t
    tl.store(OUT + tl.arange(0, 2), y)


def test_number_assigned_to_a_name_is_a_scalar_under_triton_compat() -> None:
    # Triton makes `t = 255` an int32 scalar (int8 * int32 is int32) and `t = -1 <= 0` a
    # bool scalar, whose .to works; blkc kept the numbers, and refused both.
    x = np.array([1, 2], np.int8)
    out = np.zeros(2, np.int32)
    times_assigned[(1,)](x, out, MODE=0, policy="triton-compat")
    assert out.tolist() == [255, 510]
    times_assigned[(1,)](x, out, MODE=1, policy="triton-compat")
    assert out.tolist() == [2, 3]
    for policy, mode in [("triton-compat", 2), ("triton", 0)]:
        with pytest.raises(blkc.BlkcError, match="Scalar 255 is out of range for type int8"):
            times_assigned[(1,)](x, out, MODE=mode, policy=policy)


@blkc.jit
def full_of_block(X, OUT, ONE: tl.constexpr):  # noqa: N803 - Triton's naming
    x = tl.load(X + tl.arange(0, 2))
    value = tl.max(x, axis=0)[None] if ONE else x
    tl.store(OUT + tl.arange(0, 2), tl.full([2], value, tl.int32))


def test_full_of_a_block_of_more_than_one_element_is_refused() -> None:
    # Triton refuses it ("only accepts size-1 tensor"); blkc broadcast the block.
    out = np.zeros(2, np.int32)
    full_of_block[(1,)](np.array([3, 5], np.int32), out, ONE=True)
    assert out.tolist() == [5, 5]
    with pytest.raises(blkc.BlkcError, match="only accepts size-1 tensor") as caught:
        full_of_block[(1,)](np.array([3, 5], np.int32), out, ONE=False)
    assert "tl.full([2], value, tl.int32)" in str(caught.value)


@blkc.jit
def through_one_pointer(X, OUT, MODE: tl.constexpr):  # noqa: N803 - Triton's naming
    r = tl.arange(0, 8)
    x = tl.load(X + r)
    if MODE == "store":
        tl.store(OUT, x)  # a forgotten tl.sum
    elif MODE == "atomic":
        tl.atomic_add(OUT, x)
    elif MODE == "mask":
        tl.store(OUT, 1.0, mask=x > 0)
    elif MODE == "load":
        tl.store(OUT, tl.load(X, mask=x > 0, other=0.0))
    elif MODE == "wider":
        tl.store(OUT + r[:, None], x[:, None] + x[None, :])
    else:
        tl.store(OUT + r[:, None] + 8 * r[None, :], x[:, None] + x[None, :])


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("store", "store's value is a block of shape [8] but its pointer is a scalar"),
        ("atomic", "atomic_add's value is a block of shape [8] but its pointer is a scalar"),
        ("mask", "store's mask is a block of shape [8] but its pointer is a scalar"),
        ("load", "load's mask is a block of shape [8] but its pointer is a scalar"),
        ("wider", "store's value has shape [8, 8], which does not broadcast to its pointers' "
                  "shape [8, 1]"),
    ],
)  # fmt: skip
def test_a_block_through_fewer_pointers_is_refused(mode: str, words: str) -> None:
    # Triton refuses it ("Value argument cannot be block type if pointer argument is not a
    # block"); blkc broadcast the pointers: a block stored through one pointer kept its last
    # element, an atomic added them all.
    x = np.arange(1, 9, dtype=np.float32)
    out = np.zeros(64, np.float32)
    with pytest.raises(blkc.BlkcError) as caught:
        through_one_pointer[(1,)](x, out, MODE=mode)
    assert words in str(caught.value)
    assert "test_found_discrepancies.py" in str(caught.value)
    through_one_pointer[(1,)](x, out, MODE="square")  # pointers of the value's shape
    np.testing.assert_array_equal(out.reshape(8, 8), (x[:, None] + x[None, :]).T)


@blkc.jit
def table_lookup(TABLE, CODES, OUT, base, B: tl.constexpr):  # noqa: N803 - Triton's naming
    r = tl.arange(0, B)
    c = tl.load(CODES + r)
    tl.store(OUT + r, tl.load(TABLE + base + c))
    tl.store(OUT + B + r, tl.load(TABLE + base + 70000 - c))


@pytest.mark.parametrize(
    "codes",
    [np.array([0, 1, 127, 128, 200, 255, 44, 254], np.uint8),
     np.array([0, 1, 127, 128, 32767, 32768, 40000, 65535], np.uint16),
     np.array([0, 1, 2**31 - 1, 2**31, 5, 6, 7, 8], np.uint32) % 60000],
)  # fmt: skip
def test_an_unsigned_pointer_offset_is_zero_extended(codes: np.ndarray) -> None:
    # Triton zero-extends an unsigned offset narrower than 64 bits; blkc sign-extended it,
    # so a uint8 code of 200 read 56 elements before the base.
    table = np.arange(200000, dtype=np.float32)
    out = np.zeros(16, np.float32)
    table_lookup[(1,)](table, codes, out, 50000, B=8)
    wide = codes.astype(np.int64)
    np.testing.assert_array_equal(out, np.concatenate([table[50000 + wide], table[120000 - wide]]))


@blkc.jit
def add_offsets(x, offs: tl.constexpr, n: tl.constexpr):
    return x * n + offs


@blkc.jit
def through_a_helper(X, OUT, n, B: tl.constexpr):  # noqa: N803 - Triton's naming
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(OUT + offs, add_offsets(tl.load(X + offs), offs, n))


def test_a_helpers_constexpr_parameter_takes_a_kernel_value() -> None:
    # Triton binds a helper's arguments whatever its annotations (its tutorial attention
    # passes blocks to `offs_m: tl.constexpr`); blkc refused them.
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    through_a_helper[(2,)](x, out, 3, B=4)
    np.testing.assert_array_equal(out, x * 3 + np.arange(8))
