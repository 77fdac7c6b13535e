"""Python control flow in kernels: if/else, loops, while, helpers, early return."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def branches(x_ptr, out_ptr, flag, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if MODE == "double":  # folded at compile time
        x = x * 2
    else:
        x = x * 3
    if flag > 0:  # a runtime branch carrying a block
        y = x + 1
        z = 1
    elif flag == 0:
        y = x
        z = 0
    else:
        y = -x
        z = -1
    tl.store(out_ptr + offs, y * 10 + z)


@pytest.mark.parametrize("flag", [-5, 0, 7])
@pytest.mark.parametrize("mode", ["double", "triple"])
def test_if_elif_else(flag: int, mode: str) -> None:
    x = numpy.arange(16, dtype=numpy.int32)
    out = numpy.zeros(16, numpy.int32)
    branches[(1,)](x, out, flag, MODE=mode, BLOCK=16)
    x = x * (2 if mode == "double" else 3)
    y, z = (x + 1, 1) if flag > 0 else (x, 0) if flag == 0 else (-x, -1)
    numpy.testing.assert_array_equal(out, y * 10 + z)


@blkc.jit
def loops(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = 0.0  # a literal widened to the loop's block of float32
    count = 0
    for i in range(n):
        acc += tl.load(x_ptr + i * BLOCK + offs)
        count += 1
    k = 0
    total = tl.zeros([BLOCK], dtype=tl.float32)
    while k < count:
        total = total + acc
        k += 2
    for j in tl.static_range(1, 4):
        total += j
    for step in tl.range(0, 10, 3, num_stages=2):
        total += step
    tl.store(out_ptr + offs, total)


def test_for_while_static_range() -> None:
    x = numpy.random.default_rng(1).standard_normal((5, 32)).astype(numpy.float32)
    out = numpy.zeros(32, numpy.float32)
    loops[(1,)](x, out, 5, BLOCK=32)
    expected = x.sum(0) * 3 + 6 + (0 + 3 + 6 + 9)
    numpy.testing.assert_allclose(out, expected, rtol=1e-5)


@blkc.jit
def while_condition(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    i = 0
    total = tl.zeros([BLOCK], tl.float32)
    while tl.condition(i < n, disable_licm=True):
        total += tl.load(x_ptr + i * BLOCK + offs)
        i += 1
    # Where the mask holds the values are expected to be zero; they pass through unchanged.
    tl.store(out_ptr + offs, tl.expect_zero(total, offs < 0))


@blkc.jit
def read_only(x_ptr: tl.const, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)


def test_triton_loop_hints_and_annotations() -> None:
    """`while tl.condition(c, disable_licm=...)` loops while `c`; `tl.expect_zero` returns
    its value; a `tl.const` pointer parameter reads as any pointer."""
    x = numpy.random.default_rng(2).standard_normal((5, 16)).astype(numpy.float32)
    out = numpy.zeros(16, numpy.float32)
    while_condition[(1,)](x, out, 3, BLOCK=16)
    numpy.testing.assert_allclose(out, x[:3].sum(0), rtol=1e-6)
    read_only[(1,)](x[0], out, BLOCK=16)
    numpy.testing.assert_array_equal(out, x[0] * 2)
    assert read_only.params[0].annotation.split(".")[-1] == "const"


@blkc.jit
def condition_in_if(out_ptr, n):
    if tl.condition(n > 0):
        tl.store(out_ptr, 1)


def test_a_condition_outside_a_while_is_a_located_error() -> None:
    with pytest.raises(blkc.BlkcError, match="no truth value.*`while` loop only"):
        condition_in_if[(1,)](numpy.zeros(1, numpy.int32), 3)


@blkc.jit
def block_of_before_the_loop(x_ptr, a_ptr, out_ptr, dot_ptr, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    y = tl.load(x_ptr + r)
    other = tl.load(x_ptr + BLOCK) + tl.zeros([BLOCK], tl.int32)  # computed where read
    square = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :]) * 2.0
    acc = tl.zeros([BLOCK, BLOCK], tl.float32)
    for _ in range(0, n):
        y = other  # the loop's new block is one from before the loop
        acc += tl.dot(square, square)  # so is the dot's operand
    tl.store(out_ptr + r, other * 10 + y)
    tl.store(dot_ptr + r[:, None] * BLOCK + r[None, :], acc + square)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize("n", [0, 2])
def test_blocks_from_before_a_loop_are_read_after_a_loop_that_does_not_run(
    target: str, n: int
) -> None:
    """A block defined before a loop and computed inside it (the loop's next carried block,
    a dot's operand) is computed again where code after the loop reads it: the loop may not
    run, and the copy it fills would then hold whatever the stack held."""
    x = numpy.arange(17, dtype=numpy.int32)
    a = numpy.random.default_rng(3).standard_normal((16, 16)).astype(numpy.float32)
    out = numpy.zeros(16, numpy.int32)
    dot = numpy.zeros((16, 16), numpy.float32)
    block_of_before_the_loop[(1,)](x, a, out, dot, n, BLOCK=16, target=target)
    numpy.testing.assert_array_equal(out, 160 + (x[:16] if n == 0 else 16))
    square = a * 2
    expected = n * (square.astype(numpy.float64) @ square) + square
    numpy.testing.assert_allclose(dot, expected, rtol=1e-4, atol=1e-3)


@blkc.jit
def scale_and_shift(x, scale, shift: tl.constexpr = 1):
    return x * scale + shift, scale


@blkc.jit
def nested_helper(x):
    y, s = scale_and_shift(x, 2, shift=3)
    if s > 1:
        return y
    return x


@blkc.jit
def calls(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, nested_helper(x) + scale_and_shift(x, 1)[0])


def test_inlined_helpers_with_tuples_defaults_and_returns() -> None:
    x = numpy.arange(8, dtype=numpy.float32)
    out = numpy.zeros(8, numpy.float32)
    calls[(1,)](x, out, BLOCK=8)
    numpy.testing.assert_array_equal(out, (2 * x + 3) + (x + 1))


@blkc.jit
def early_exit(out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs, mask=offs < n)


def test_early_return_skips_the_rest() -> None:
    out = numpy.full(64, -1, numpy.int32)
    early_exit[(8,)](out, 20, BLOCK=8)
    numpy.testing.assert_array_equal(out[:20], numpy.arange(20))
    assert (out[20:] == -1).all()


@blkc.jit
def ternaries(x_ptr, out_ptr, flag, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    scalar = 5 if flag > 0 else 7  # a runtime scalar condition: scf.if
    block = x if BLOCK > 4 else -x  # a constant condition: folded
    tl.store(out_ptr + offs, block * scalar)


@pytest.mark.parametrize("flag", [1, -1])
def test_conditional_expressions(flag: int) -> None:
    x = numpy.arange(8, dtype=numpy.int32)
    out = numpy.zeros(8, numpy.int32)
    ternaries[(1,)](x, out, flag, BLOCK=8)
    numpy.testing.assert_array_equal(out, x * (5 if flag > 0 else 7))


@blkc.jit
def nested_loops(out_ptr, M: tl.constexpr, N: tl.constexpr):
    acc = tl.zeros([M, N], dtype=tl.int32)
    for i in range(M):
        row = tl.arange(0, M)[:, None] == i
        for j in range(0, N, 1):
            col = tl.arange(0, N)[None, :] == j
            acc = tl.where(row & col, i * 10 + j, acc)
    tl.store(out_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], acc)


def test_nested_loops_carry_blocks() -> None:
    out = numpy.zeros((4, 8), numpy.int32)
    nested_loops[(1,)](out, M=4, N=8)
    numpy.testing.assert_array_equal(out, numpy.arange(4)[:, None] * 10 + numpy.arange(8))


@blkc.jit
def logic(x_ptr, out_ptr, a, b, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    both = (a > 0) and (b > 0)
    either = a > 0 or b > 0
    value = 0
    if both:
        value = 2
    elif either and not (a > 0):
        value = 1
    tl.store(out_ptr + offs, x + value + (10 if -1 < a < 5 else 0))


@pytest.mark.parametrize(
    ("a", "b", "expected"), [(1, 1, 12), (1, -1, 10), (-1, 1, 1), (-2, -2, 0), (7, 7, 2)]
)
def test_boolean_operators_and_chained_comparisons(a: int, b: int, expected: int) -> None:
    out = numpy.zeros(4, numpy.int32)
    logic[(1,)](numpy.zeros(4, numpy.int32), out, a, b, BLOCK=4)
    numpy.testing.assert_array_equal(out, numpy.full(4, expected))


@blkc.jit
def walking_pointers(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    ptrs = x_ptr + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for _ in range(n):
        acc += tl.load(ptrs)
        ptrs += stride  # carried as a running offset (carry-pointer-offsets)
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)
    tl.store(ptrs, acc * 0 - 1)  # the pointers after the loop


def test_pointer_blocks_advanced_in_a_loop() -> None:
    x = numpy.arange(5 * 16, dtype=numpy.float32)
    out = numpy.zeros(16, numpy.float32)
    walking_pointers[(1,)](x, out, 4, 16, BLOCK=16)
    numpy.testing.assert_array_equal(out, x[:64].reshape(4, 16).sum(0))
    numpy.testing.assert_array_equal(x[64:], numpy.full(16, -1, numpy.float32))


@blkc.jit
def count_down(out_ptr, start, stop, STEP: tl.constexpr, RANGE: tl.constexpr):
    seen = 0
    total = tl.zeros([4], tl.int32)
    if RANGE == "range":
        for i in range(start, stop, STEP):
            tl.store(out_ptr + seen, i)
            total += i
            seen += 1
    else:
        for i in tl.range(start, stop, STEP):
            tl.store(out_ptr + seen, i)
            total += i
            seen += 1
    tl.store(out_ptr + 60 + tl.arange(0, 4), total)
    tl.store(out_ptr + 59, seen)


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize("loop", ["range", "tl.range"])
@pytest.mark.parametrize(
    ("start", "stop", "step"),
    [(10, 0, -3), (10, 0, -1), (0, 10, -2), (5, 5, -1), (-3, -20, -4), (10, -1, -10), (7, 0, 2)],
)
def test_a_constant_negative_step_counts_down(
    start: int, stop: int, step: int, loop: str, target: str
) -> None:
    """`range(a, b, -s)` visits a, a - s, ... while above b, as Python's range does (Triton
    3.9 supports a constant negative step; it was refused)."""
    out = numpy.full(64, -99, numpy.int32)
    count_down[(1,)](out, start, stop, step, loop, target=target)
    expected = list(range(start, stop, step))
    assert out[59] == len(expected)
    assert out[: len(expected)].tolist() == expected
    assert (out[60:] == sum(expected)).all()


@blkc.jit
def zero_step(out_ptr, n):
    for i in range(0, n, 0):  # zero-step
        tl.store(out_ptr + i, i)


def test_a_zero_step_is_refused() -> None:
    with pytest.raises(blkc.BlkcError, match="a loop's step must not be zero"):
        zero_step[(1,)](numpy.zeros(4, numpy.int32), 4)


@blkc.jit
def simultaneous(x_ptr, out_ptr, n, KIND: tl.constexpr, R: tl.constexpr):
    r = tl.arange(0, R)
    a = tl.zeros([R], tl.int32) + r
    b = tl.full([R], 1, tl.int32)
    c = tl.full([R], 100, tl.int32)
    p = x_ptr + r
    q = x_ptr + R + r
    if KIND == "fib":
        for _i in range(n):
            a, b = b, a + b
    elif KIND == "swap":
        for _i in range(n):
            a, b = b, a
    elif KIND == "rotate":
        i = 0
        while i < n:
            a, b, c = b, c, a
            i += 1
    elif KIND == "pointers":
        for _i in range(n):
            a += tl.load(p)
            p, q = q, p
    elif KIND == "previous":
        for i in range(n):
            x = tl.load(x_ptr + i * R + r)
            d = x - b  # the previous block
            b = x
            a = a + d
    tl.store(out_ptr + r, a)
    tl.store(out_ptr + R + r, b)
    tl.store(out_ptr + 2 * R + r, c)


def _simultaneous_reference(x: numpy.ndarray, n: int, kind: str) -> numpy.ndarray:
    r = numpy.arange(4)
    a, b, c = r.copy(), numpy.ones(4, int), numpy.full(4, 100)
    p, q = 0, 4
    for i in range(n):
        if kind == "fib":
            a, b = b, a + b
        elif kind == "swap":
            a, b = b, a
        elif kind == "rotate":
            a, b, c = b, c, a
        elif kind == "pointers":
            a = a + x[p + r]
            p, q = q, p
        else:
            xs = x[i * 4 + r]
            a, b = a + (xs - b), xs
    return numpy.concatenate([a, b, c])


@pytest.mark.parametrize("target", ["cpu", "cpu-simt"])
@pytest.mark.parametrize("kind", ["fib", "swap", "rotate", "pointers", "previous"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 10])
def test_blocks_carried_by_a_loop_are_assigned_at_once(kind: str, n: int, target: str) -> None:
    """`a, b = b, a + b` on blocks reads both old blocks before either changes (it wrote the
    new `a` into a's buffer first, so fib(10) gave 256), as do rotations, swapped blocks of
    pointers and a block kept from the previous iteration, in for and while loops."""
    x = numpy.arange(64, dtype=numpy.int32) * 3 % 17
    out = numpy.zeros(12, numpy.int32)
    simultaneous[(1,)](x, out, n, kind, 4, target=target)
    numpy.testing.assert_array_equal(out, _simultaneous_reference(x, n, kind))


@blkc.jit
def rebound_after_return(X, OUT, n, m, B: tl.constexpr):
    pid = tl.program_id(0)
    s = tl.load(X + pid * B)
    if pid * B >= n:
        return
    X = X + pid * B + tl.arange(0, B)  # a pointer becomes a block of pointers
    s = s.to(tl.float16)  # a float32 scalar becomes a float16 one
    if pid == m:
        return
    s = s + tl.zeros((B,), tl.float16)  # and then a block
    tl.store(OUT + pid * B + tl.arange(0, B), tl.load(X) + s.to(tl.float32))


def test_a_name_may_change_its_type_after_an_early_return() -> None:
    """Code after `if ...: return` is straight-line (as in Triton: flash-attention's rotary
    kernel moves its pointers on after one); blkc merged its names as if it were the else
    branch and refused the change."""
    x = numpy.arange(16, dtype=numpy.float32)
    out = numpy.zeros(16, numpy.float32)
    rebound_after_return[(4,)](x, out, 12, 1, B=4)
    rows = x.reshape(4, 4)
    expected = rows + rows[:, :1]
    expected[1] = 0  # returned at pid == m
    expected[3] = 0  # returned at pid * B >= n
    numpy.testing.assert_array_equal(out.reshape(4, 4), expected)


@blkc.jit
def pair(x, n):
    if n > 5:
        return x, x + 1
    return x * 3, x * 3 - 1


@blkc.jit
def pair_sum(X, OUT, n, B: tl.constexpr):
    r = tl.arange(0, B)
    c, d = pair(tl.load(X + r), n)
    tl.store(OUT + r, c + d)


@pytest.mark.parametrize("n", [3, 10])
def test_a_helper_returns_a_tuple_from_a_runtime_if(n: int) -> None:
    x = numpy.arange(4, dtype=numpy.float32)
    out = numpy.zeros(4, numpy.float32)
    pair_sum[(1,)](x, out, n, B=4)
    expected = 2 * x + 1 if n > 5 else 6 * x - 1
    numpy.testing.assert_array_equal(out, expected)


@blkc.jit
def uneven(x, n):
    if n > 5:
        return x, x
    return x


@blkc.jit
def uneven_sum(X, OUT, n):
    c, d = uneven(tl.load(X), n)  # uneven-call
    tl.store(OUT, c + d)


def test_returns_of_different_arity_are_refused() -> None:
    with pytest.raises(blkc.BlkcError, match="returns a tuple of 2, the other a value"):
        uneven_sum[(1,)](numpy.ones(1, numpy.float32), numpy.ones(1, numpy.float32), 3)
