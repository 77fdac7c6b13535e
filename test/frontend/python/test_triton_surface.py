"""Triton's surface beyond the basics: `tl.umulhi`, the `tl.math` rounding variants, `x[None]`
on a scalar, compared with the results Triton 3.9's interpreter gives for the same kernels
(recorded below), and Triton's wording in the errors where Triton refuses a program."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy
import pytest

import blkc
import blkc.language as tl


@blkc.jit
def umulhi_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(out_ptr + o, tl.umulhi(tl.load(x_ptr + o), tl.load(y_ptr + o)))


def extremes(dtype: str) -> numpy.ndarray:
    info = numpy.iinfo(dtype)
    values = [info.min, info.max, info.max // 3, 0, 1, 5, info.min + 7, info.max - 12345]
    if info.min < 0:
        values += [-1, -2, -(2**20), 2**20 + 1]
    return numpy.array(values, dtype)


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_umulhi_is_the_high_half_of_the_unsigned_product(dtype: str) -> None:
    """Triton's interpreter (and its GPU code) multiply the operands' bits as unsigned
    integers, whatever their signedness, and give the high half in the operands' dtype."""
    rng = numpy.random.default_rng(1)
    info = numpy.iinfo(dtype)
    edges = extremes(dtype)
    x = numpy.concatenate([edges, rng.integers(info.min, info.max, 64 - len(edges), dtype)])
    y = numpy.concatenate([edges[::-1], rng.integers(info.min, info.max, 64 - len(edges), dtype)])
    out = numpy.zeros(64, dtype)
    umulhi_kernel[(1,)](x, y, out, BLOCK=64)
    bits = info.bits
    mask = (1 << bits) - 1
    expected = [((int(a) & mask) * (int(b) & mask)) >> bits for a, b in zip(x, y, strict=True)]
    unsigned = numpy.array(expected, f"uint{bits}")
    numpy.testing.assert_array_equal(out, unsigned.view(dtype))


def test_umulhi_matches_triton_on_recorded_values() -> None:
    """Values from Triton 3.9 (TRITON_INTERPRET=1) for int32 operands of both signs."""
    x = numpy.array([-(2**31), 2**31 - 1, -1, 0, 123456789, -987654321], numpy.int32)
    y = numpy.array([-(2**31), 2**31 - 1, 2**31 - 1, 5, -7, 1000003], numpy.int32)
    triton = numpy.array([1073741824, 1073741823, 2147483646, 0, 123456788, 770046], numpy.int32)
    out = numpy.zeros(8, numpy.int32)
    umulhi_kernel[(1,)](numpy.resize(x, 8), numpy.resize(y, 8), out, BLOCK=8)
    numpy.testing.assert_array_equal(out[:6], triton)


@blkc.jit
def rounding_kernel(x_ptr, y_ptr, z_ptr, out_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x, y, z = tl.load(x_ptr + o), tl.load(y_ptr + o), tl.load(z_ptr + o)
    if FN == "div_rn":
        r = tl.math.div_rn(x, y)
    elif FN == "fdiv_ieee":
        r = tl.math.fdiv(x, y, ieee_rounding=True)
    elif FN == "fdiv_approx":
        r = tl.fdiv(x, y, approx=True)
    elif FN == "sqrt_rn":
        r = tl.math.sqrt_rn(tl.abs(x))
    elif FN == "rsqrt":
        r = tl.math.rsqrt(tl.abs(x))
    else:
        r = tl.math.fma(x, y, z)
    tl.store(out_ptr + o, r)


ROUND_TO_NEAREST = {
    "div_rn": lambda x, y, z: x / y,
    "fdiv_ieee": lambda x, y, z: x / y,
    "fdiv_approx": lambda x, y, z: x / y,
    "sqrt_rn": lambda x, y, z: numpy.sqrt(numpy.abs(x)),
    "rsqrt": lambda x, y, z: 1 / numpy.sqrt(numpy.abs(x).astype(numpy.float64)),
    "fma": lambda x, y, z: x.astype(numpy.float64) * y + z,
}


@pytest.mark.parametrize("fn", sorted(ROUND_TO_NEAREST))
def test_round_to_nearest_math_is_correctly_rounded(fn: str) -> None:
    rng = numpy.random.default_rng(2)
    x, y, z = (rng.standard_normal(64).astype(numpy.float32) for _ in range(3))
    out = numpy.zeros(64, numpy.float32)
    rounding_kernel[(1,)](x, y, z, out, FN=fn, BLOCK=64)
    expected = ROUND_TO_NEAREST[fn](x, y, z).astype(numpy.float32)
    if fn == "rsqrt":  # an approximation in Triton too; within an ulp here
        numpy.testing.assert_allclose(out, expected, rtol=2e-7)
    else:
        numpy.testing.assert_array_equal(out, expected)


@blkc.jit
def scalar_to_block(x_ptr, out_ptr):
    x = tl.load(x_ptr) * 2
    tl.store(out_ptr + tl.arange(0, 1), x[None])
    tl.store(out_ptr + 1 + tl.arange(0, 1)[:, None], x[None, None] + 1)


def test_indexing_a_scalar_with_none_gives_a_one_element_block() -> None:
    out = numpy.zeros(2, numpy.float32)
    scalar_to_block[(1,)](numpy.array([3.0], numpy.float32), out)
    numpy.testing.assert_array_equal(out, [6.0, 7.0])


@blkc.jit
def refused(x_ptr, CASE: tl.constexpr):
    o = tl.arange(0, 4)
    f = tl.load(x_ptr + o)
    i = f.to(tl.int32)
    if CASE == "bitwise-float":
        r = f & f
    elif CASE == "shift-float":
        r = f << 1
    elif CASE == "invert-float":
        r = ~f
    elif CASE == "div-signedness":
        r = i / i.to(tl.uint32)
    elif CASE == "floordiv-signedness":
        r = i // i.to(tl.uint32)
    elif CASE == "mod-signedness":
        r = i % i.to(tl.uint32)
    elif CASE == "umulhi-float":
        r = tl.umulhi(f, f)
    elif CASE == "div_rn-int":
        r = tl.math.div_rn(i, i)
    elif CASE == "fdiv-int":
        r = tl.fdiv(i, i)
    elif CASE == "fdiv-both":
        r = tl.fdiv(f, f, ieee_rounding=True, approx=True)
    else:
        r = f
    tl.store(x_ptr + o, r)


@pytest.mark.parametrize(
    ("case", "triton"),
    [
        ("bitwise-float", "invalid operands of type"),
        ("shift-float", "invalid operands of type"),
        ("invert-float", "wrong type argument to unary invert"),
        ("div-signedness", "Cannot use /, #, or % with int32 and uint32 because they have"),
        ("floordiv-signedness", "Cannot use /, #, or % with int32 and uint32 because they"),
        ("mod-signedness", "Cannot use /, #, or % with int32 and uint32 because they have"),
        ("umulhi-float", "Expected dtype ['int32', 'int64', 'uint32', 'uint64'] but got fp32"),
        ("div_rn-int", "Expected dtype ['fp32'] but got int32"),
        ("fdiv-int", "fdiv requires floating-point operands after type promotion"),
        ("fdiv-both", "approx and ieee_rounding cannot both be True"),
    ],
)
def test_refusals_carry_tritons_words(case: str, triton: str) -> None:
    """Each message holds the words Triton 3.9 raises for the same kernel (checked with its
    interpreter), inside blkc's located error. The policy that refuses `/`, `//` and `%`
    on integers of different signedness, as Triton does, is `triton-compat` (`triton`
    computes `/` in float32)."""
    policy = "triton-compat" if "signedness" in case else "triton"
    with pytest.raises(blkc.BlkcError) as info:
        refused.warmup(numpy.zeros(4, numpy.float32), CASE=case, policy=policy)
    message = str(info.value)
    assert triton in message, message
    assert f"{__file__}:" in message and "^" in message


@blkc.jit
def directed_rounding(x_ptr):
    tl.store(x_ptr, tl.math.div_rz(tl.load(x_ptr), 3.0))


def test_directed_rounding_is_not_in_tl_math() -> None:
    """Triton 3.9's `tl.math` has only round-to-nearest variants; others are located errors."""
    with pytest.raises(blkc.BlkcError) as info:
        directed_rounding.warmup(numpy.zeros(1, numpy.float32))
    assert "has no attribute 'div_rz'" in str(info.value)
    assert f"{__file__}:" in str(info.value)


@blkc.jit
def mistakes(x_ptr, n, CASE: tl.constexpr):
    o = tl.arange(0, 16)
    if CASE == "ptr-add-ptr":
        tl.store(x_ptr + x_ptr, 1.0)
    elif CASE == "ptr-mul":
        tl.store(x_ptr * 2, 1.0)
    elif CASE == "neg-ptr":
        tl.store(-x_ptr, 1.0)
    elif CASE == "other-no-mask":
        tl.store(x_ptr + o, tl.load(x_ptr + o, other=0.0))
    elif CASE == "arange-pow2":
        tl.store(x_ptr + tl.arange(0, 12), 1.0)
    elif CASE == "arange-order":
        tl.store(x_ptr + tl.arange(16, 0), 1.0)
    elif CASE == "program-id":
        tl.store(x_ptr + tl.program_id(3), 1.0)
    elif CASE == "reshape":
        tl.store(x_ptr + o, tl.reshape(tl.load(x_ptr + o), (4, 8)))
    elif CASE == "permute":
        tl.store(x_ptr + o, tl.permute(tl.load(x_ptr + o)[:, None], (0, 0)))
    elif CASE == "broadcast":
        tl.store(x_ptr + o, tl.load(x_ptr + o) + tl.load(x_ptr + tl.arange(0, 8)))
    elif CASE == "dot-inner":
        a = tl.load(x_ptr + o[:, None] * 16 + o[None, :])
        b = tl.load(x_ptr + tl.arange(0, 32)[:, None] * 16 + o[None, :])
        tl.store(x_ptr + o[:, None] * 16 + o[None, :], tl.dot(a, b))
    elif CASE == "dot-rank":
        tl.store(x_ptr + o, tl.dot(tl.load(x_ptr + o), tl.load(x_ptr + o)))
    elif CASE == "load-nonptr":
        tl.store(x_ptr + o, tl.load(n + o))
    elif CASE == "unsigned-negative":
        tl.store(x_ptr + o, tl.load(x_ptr + o).to(tl.uint32) + (-1))
    elif CASE == "literal-range":
        tl.store(x_ptr + o, tl.load(x_ptr + o).to(tl.int8) + 300)
    else:
        tl.store(n + o, 1.0)


@pytest.mark.parametrize(
    ("case", "triton"),
    [
        ("ptr-add-ptr", "cannot add pointers together"),
        ("ptr-mul", "invalid operands of type"),
        ("neg-ptr", "wrong type argument to unary minus"),
        ("other-no-mask", "`other` cannot be provided without `mask`"),
        ("arange-pow2", "arange's range must be a power of 2"),
        ("arange-order", "arange's end argument must be greater than the start argument"),
        ("program-id", "program_id axis must be 0, 1, or 2 but got 3"),
        ("reshape", "reshape() cannot change total number of elements in tensor"),
        ("permute", "permute dims must be a permutation of 0, 1, ..., n-1, but were (0, 0)"),
        ("broadcast", "Cannot make_shape_compatible: incompatible dimensions at index 0: 16 and 8"),
        ("dot-inner", "input and other must have equal reduction dimensions"),
        ("dot-rank", "input and other must have equal ranks >= 2"),
        ("load-nonptr", "in `tl.load`"),
        ("unsigned-negative", "between an unsigned tensor and a negative scalar"),
        ("literal-range", "Scalar 300 is out of range for type int8"),
        ("store-nonptr", "in `tl.store`"),
    ],
)
def test_common_mistakes_carry_tritons_words(case: str, triton: str) -> None:
    """Triton 3.9 refuses each of these kernels with these words (checked with its
    interpreter); blkc's located error keeps its own explanation and holds them too."""
    with pytest.raises(blkc.BlkcError) as info:
        mistakes.warmup(numpy.zeros(1024, numpy.float32), 4, CASE=case)
    message = str(info.value)
    assert triton in message, message
    assert f"{__file__}:" in message and "^" in message


@blkc.jit
def bitwise_on_floats(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr) & 1.0)


def test_tritons_exception_names_catch_blkc_errors() -> None:
    """Programs written for Triton catch `triton.TritonError` / `triton.CompilationError`
    (and import `triton.runtime.errors`): the same located errors reach them."""
    from blkc.runtime.errors import InterpreterError, OutOfResources

    for name in ("TritonError", "CompilationError"):
        with pytest.raises(getattr(blkc, name), match="invalid operands of type"):
            bitwise_on_floats.warmup(numpy.zeros(4, numpy.float32))
    assert blkc.TritonError is blkc.BlkcError and blkc.CompilationError is blkc.BlkcError
    assert "out of resource: shared memory" in str(OutOfResources(99, 64, "shared memory"))
    assert issubclass(InterpreterError, RuntimeError)


def test_set_allocator_takes_a_callable() -> None:
    from blkc.runtime.allocation import get_allocator

    def allocator(size: int, alignment: int, stream: object) -> numpy.ndarray:
        return numpy.empty(size, numpy.int8)

    blkc.set_allocator(allocator)
    try:
        assert get_allocator() is allocator
        with pytest.raises(TypeError, match="set_allocator takes a callable"):
            blkc.set_allocator(42)  # type: ignore[arg-type]
    finally:
        blkc.set_allocator(None)
    assert get_allocator() is None


def test_reinterpreted_views_answer_like_tensor_wrappers() -> None:
    """`blkc.reinterpret` returns Triton's `TensorWrapper` interface: strides in elements,
    data pointer, element size, copies."""
    base = numpy.arange(24, dtype=numpy.int16).reshape(4, 6)[:, ::2]
    view = blkc.reinterpret(base, tl.uint16)
    assert isinstance(view, blkc.TensorWrapper)
    assert view.stride() == (6, 2) and view.stride(0) == 6
    assert view.element_size() == 2 and view.numel() == 12 and view.shape == (4, 3)
    assert view.data_ptr() == base.__array_interface__["data"][0]
    clone = view.clone()
    clone.copy_(blkc.reinterpret(numpy.zeros((4, 3), numpy.int16), tl.uint16))
    assert numpy.asarray(clone).sum() == 0 and base.sum() != 0
    empty = view.new_empty((5,))
    assert empty.shape == (5,) and numpy.asarray(empty).dtype == numpy.uint16
    # Its dtype is the `tl` dtype it was given, as Triton's tests' helpers read it.
    assert view.dtype is tl.uint16 and clone.dtype is tl.uint16 and empty.dtype is tl.uint16
    # `data` is the base's, a plain attribute (Triton's tests assign to it).
    assert view.data == base.data
    view.data = None
    assert view.shape == (4, 3) and view.data_ptr() == base.__array_interface__["data"][0]


def test_constexprs_compare_by_value() -> None:
    """On the host as in Triton: a `constexpr` of a bool, true when the values are equal."""
    five = tl.constexpr(5)
    assert tl.constexpr(tl.constexpr(5)) == five and five == 5 and five != 6
    assert isinstance(five == 5, tl.constexpr) and not (five == 6)
    assert {five: "x"}[tl.constexpr(5)] == "x" and hash(tl.constexpr([1])) is not None


@blkc.jit
def scalar_methods(X, Y, N: tl.constexpr):
    one = 1
    ones = tl.full([N], value=one, dtype=one.dtype)  # a Python int's dtype: int32
    tl.static_assert(one.dtype == tl.int32)
    tl.static_assert((2**40).dtype == tl.int64)
    tl.static_assert((1.5).dtype == tl.float32)
    tl.static_assert(True.dtype == tl.int1)
    o = tl.arange(0, N)
    tl.static_assert(o[None, None:].shape == [1, tl.constexpr(N)])
    tl.static_assert(o[None, :None, None].shape == (1, N, 1))
    x = tl.load(X + o)
    both = (x > 2).logical_and(x < 6)
    either = x.logical_or(0)
    first = tl.load(X + tl.arange(0, 1))
    if first == 0:  # a one-element block tests as its element
        ones += first.item() + 1000
    tl.store(Y + o, ones + both.to(tl.int32) * 10 + either.to(tl.int32) * 100)


def test_triton_tensor_methods_and_scalar_dtypes() -> None:
    x = numpy.arange(8, dtype=numpy.int32)
    y = numpy.zeros(8, numpy.int32)
    scalar_methods[(1,)](x, y, 8)
    expected = 1 + 1000 + ((x > 2) & (x < 6)) * 10 + (x != 0) * 100
    assert y.tolist() == expected.tolist()
    x[0] = 5
    scalar_methods[(1,)](x, y, 8)
    assert y[0] == 1 + 10 + 100


@blkc.jit
def take_item(X, Y):
    tl.store(Y, tl.load(X + tl.arange(0, 1)).item())


@blkc.jit
def item_of_many(X, Y):
    tl.store(Y, tl.load(X + tl.arange(0, 2)).item())


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "uint32", "bool"])
def test_item_keeps_every_bit(dtype: str) -> None:
    """`x.item()` of a one-element block is its element: -0.0 and NaN included."""
    values = [-0.0, numpy.nan, -7.5] if dtype.startswith("float") else [0, 1, -1]
    for value in values:
        x = numpy.array([value]).astype(dtype)
        y = numpy.zeros(1, dtype)
        take_item[(1,)](x, y)
        assert x.tobytes() == y.tobytes()
    with pytest.raises(blkc.BlkcError, match=r"item\(\) needs a block of one element"):
        item_of_many.warmup(numpy.zeros(2, numpy.float32), numpy.zeros(1, numpy.float32))


@blkc.jit
def atomic_kinds(Z, X, KIND: tl.constexpr):
    x = tl.load(X)
    if KIND == "add":
        tl.atomic_add(Z, x)
    elif KIND == "max":
        tl.atomic_max(Z, x)
    else:
        tl.atomic_cas(Z, x, x)


@pytest.mark.parametrize(
    ("dtype", "kind", "refused"),
    [
        ("int8", "add", "atomic_add does not support int8"),
        ("uint16", "add", "atomic_add does not support uint16"),
        ("float16", "max", "atomic_max does not support fp16"),
        ("uint8", "cas", "atomic_cas only supports elements with width {16, 32, 64}"),
        ("float16", "add", None),
        ("int16", "cas", None),
        ("int32", "max", None),
    ],
)
def test_triton_compat_refuses_the_atomics_triton_refuses(
    dtype: str, kind: str, refused: str | None
) -> None:
    """Under `triton-compat`, atomics on elements Triton's front end refuses are refused in
    its words; the other policies compile them (the CPU has atomics of every width)."""
    z, x = numpy.zeros(1, dtype), numpy.ones(1, dtype)
    if refused is not None:
        with pytest.raises(blkc.BlkcError, match=re.escape(refused)):
            atomic_kinds.warmup(z, x, KIND=kind, policy="triton-compat")
    else:
        atomic_kinds.warmup(z, x, KIND=kind, policy="triton-compat")
    atomic_kinds[(1,)](z, x, KIND=kind)  # the default policy takes every width
    assert z[0] == (0 if kind == "cas" else 1)


@blkc.jit
def exp_of(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(X + tl.arange(0, 4), tl.exp(x))


def test_triton_compat_float_functions_carry_tritons_words() -> None:
    with pytest.raises(
        blkc.BlkcError, match=re.escape("Expected dtype ['fp32', 'fp64'] but got fp16")
    ):
        exp_of.warmup(numpy.zeros(4, numpy.float16), policy="triton-compat")
    exp_of.warmup(numpy.zeros(4, numpy.float16))  # computed in float32 by the default policy


@blkc.jit
def void_choice(T, F, Ret, X):
    pid = tl.program_id(0)
    tl.store(Ret + pid, tl.load(T)) if pid % 2 == 0 else tl.store(Ret + pid, tl.load(F))
    x = tl.load(X)
    if hasattr(x, "dtype") and not hasattr(x, "nonsense") and getattr(x, "no", None) is None:
        tl.store(X + 1 + pid, getattr(x, "dtype") == tl.int32)  # noqa: B009 - the query under test


def test_void_conditional_expressions_and_attribute_queries() -> None:
    """A conditional expression of two calls without results is an `if`; hasattr and
    getattr answer for kernel values when the kernel compiles (Triton's test_if and
    test_short_circuiting)."""
    ret, x = numpy.zeros(4, numpy.int32), numpy.zeros(5, numpy.int32)
    void_choice[(4,)](numpy.array([7], numpy.int32), numpy.array([9], numpy.int32), ret, x)
    assert ret.tolist() == [7, 9, 7, 9] and x.tolist() == [0, 1, 1, 1, 1]


@blkc.jit
def half_void(X):
    y = tl.store(X, 1) if tl.program_id(0) == 0 else 5  # noqa: F841


@blkc.jit
def sliced(X):
    tl.load(X + tl.arange(0, 4))[1:]


def test_indexing_and_void_mistakes_are_located() -> None:
    x = numpy.zeros(4, numpy.int32)
    with pytest.raises(blkc.BlkcError, match="one side of the conditional expression gives no"):
        half_void.warmup(x)
    with pytest.raises(blkc.BlkcError, match="unsupported tensor index"):
        sliced.warmup(x)


@blkc.jit
def partial_index(X, Y):
    x = tl.load(X + tl.arange(0, 4))
    tl.static_assert(x[None].shape == [1, 4])  # the dimensions an index leaves out stay
    tl.store(Y + tl.arange(0, 4)[None, :], x[None] * 2)


@blkc.jit
def over_index(X):
    tl.store(X[None, None, :], 1.0)


def test_an_index_may_leave_dimensions_out_but_not_add_them() -> None:
    x, y = numpy.arange(4, dtype=numpy.float32), numpy.zeros(4, numpy.float32)
    partial_index[(1,)](x, y)
    assert y.tolist() == [0, 2, 4, 6]
    with pytest.raises(blkc.BlkcError, match="too many indices for tensor of rank 0"):
        over_index.warmup(numpy.zeros(1, numpy.float32))


# --------------------------------------------------------------------------------------
# blkc.compile(ASTSource(...)), must_use_result, Autotuner.base_fn
# --------------------------------------------------------------------------------------


@blkc.jit
def offset_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, SHIFT: tl.constexpr = 1):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + o, tl.load(x_ptr + o, mask=o < n) + SHIFT, mask=o < n)


def test_an_ast_source_compiles_a_kernel_for_the_types_it_names() -> None:
    from blkc.compiled_kernel import ASTSource

    source = ASTSource(
        offset_copy,
        {"x_ptr": "*fp16", "y_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr"},
        {"BLOCK": 64},
    )
    kernel = blkc.compile(source, options={"num_warps": 2, "num_stages": 3, "debug": True})
    assert "!blk.ptr<f16>" in kernel.asm["loose"] and kernel.constants == {"BLOCK": 64, "SHIFT": 1}
    x = numpy.arange(100, dtype=numpy.float16)
    y = numpy.zeros_like(x)
    kernel[(2, 1, 1)](x, y, 100)
    numpy.testing.assert_array_equal(y, x + 1)
    # Triton's keys by position, tuples of positions, and its divisibility attribute
    by_position = ASTSource(
        offset_copy,
        {0: "*fp32", 1: "*fp32", 2: "i32"},
        {(3,): 32, "SHIFT": 2},
        attrs={(2,): [["tt.divisibility", 16]]},
    )
    text = blkc.compile(by_position).asm["loose"]
    assert "%n: i32 {blk.divisibility = 16 : i32}" in text and "!blk.ptr<f32>" in text


@pytest.mark.parametrize(
    ("signature", "constexprs", "options", "text"),
    [
        ({"x_ptr": "*fp32"}, {"BLOCK": 4}, None, "parameter 'y_ptr' needs a type in signature"),
        ({"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {},
         None, "parameter 'BLOCK' needs a value in constexprs"),
        ({"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}, {"BLOK": 4}, None,
         "'BLOK' names no parameter (x_ptr, y_ptr, n, BLOCK, SHIFT)"),
        ({"x_ptr": "*fq32", "y_ptr": "*fp32", "n": "i32"}, {"BLOCK": 4}, None,
         "parameter 'x_ptr': unknown type 'fq32'"),
        ({"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}, {"BLOCK": 4}, {"num_wraps": 4},
         "unexpected keyword argument 'num_wraps'"),
    ],
)  # fmt: skip
def test_an_ast_source_that_does_not_fit_its_kernel_is_refused(
    signature: dict[str, str], constexprs: dict[str, int], options: dict | None, text: str
) -> None:
    from blkc.compiled_kernel import ASTSource

    with pytest.raises((ValueError, TypeError, blkc.BlkcError)) as info:
        blkc.compile(ASTSource(offset_copy, signature, constexprs), options=options)
    assert text in str(info.value)


@blkc.must_use_result("Assign it.")
@blkc.jit
def cube(x):
    return x * x * x


@blkc.jit
def uses_cube(x_ptr, CASE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    if CASE == "dropped":
        cube(x)  # dropped
    elif CASE == "advance":
        p = tl.make_block_ptr(x_ptr, (4,), (1,), (0,), (4,), (0,))
        tl.advance(p, (1,))  # advance
    else:
        x = cube(x)
    tl.store(x_ptr + tl.arange(0, 4), x)


@pytest.mark.parametrize(
    ("case", "text"),
    [
        ("dropped", "The result of cube is not being used. Assign it."),
        ("advance", "The result of tl.advance is not being used. tl.advance moves nothing"),
    ],
)
def test_a_dropped_result_that_must_be_used_is_a_located_error(
    case: str, text: str, marker_line: Callable[[str], int]
) -> None:
    with pytest.raises(blkc.BlkcError) as info:
        uses_cube.warmup(numpy.zeros(4, numpy.float32), CASE=case, grid=(1,))
    assert f"{__file__}:{marker_line(case)}:9: error: {text}" in str(info.value)
    x = numpy.full(4, 2.0, numpy.float32)
    uses_cube[(1,)](x, CASE="used")
    assert x.tolist() == [8.0] * 4


def test_autotuned_and_heuristic_kernels_name_their_base_function() -> None:
    @blkc.autotune(configs=[blkc.Config({"BLOCK": 4})], key=[])
    @blkc.heuristics({"SHIFT": lambda args: 3})
    @blkc.jit
    def tuned(x_ptr, y_ptr, n, BLOCK: tl.constexpr, SHIFT: tl.constexpr):
        o = tl.arange(0, BLOCK)
        tl.store(y_ptr + o, tl.load(x_ptr + o) + SHIFT)

    assert tuned.base_fn.__name__ == "tuned" and tuned.fn.base_fn is tuned.base_fn
    assert callable(tuned.base_fn) and not isinstance(tuned.base_fn, blkc.JITFunction)


@blkc.jit(do_not_specialize=["N"])
def constant_not_specialized(x_ptr, N: tl.constexpr):  # constexpr-and-dns
    tl.store(x_ptr, N)


@blkc.jit
def imprecise_dot(x_ptr, LIMIT: tl.constexpr):
    a = tl.full((16, 16), 1.0, tl.float16)
    rows = tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :]
    tl.store(x_ptr + rows, tl.dot(a, a, max_num_imprecise_acc=LIMIT))  # imprecise


def test_triton_refusals_of_its_options(marker_line: Callable[[str], int]) -> None:
    x = numpy.zeros(256, numpy.float32)
    with pytest.raises(blkc.BlkcError) as info:
        constant_not_specialized[(1,)](x, N=5)
    line = marker_line("constexpr-and-dns")
    assert (
        f"{__file__}:{line}:37: error: N marked as constexpr and listed in do_not_specialize"
        in str(info.value)
    )
    with pytest.raises(
        blkc.BlkcError, match=re.escape("max_num_imprecise_acc (32) must be <= K (16)")
    ):
        imprecise_dot[(1,)](x, LIMIT=32)
    imprecise_dot[(1,)](x, LIMIT=16)
    assert x.tolist() == [16.0] * 256
