"""Errors in kernels point at the kernel's own source line, with a caret and what to do."""

from __future__ import annotations

from pathlib import Path

import numpy
import pytest

import blkc
import blkc.language as tl

SOURCE = Path(__file__).read_text().splitlines()


def line_of(marker: str) -> int:
    """The 1-based line of this file holding `# <marker>`."""
    return next(i for i, text in enumerate(SOURCE, 1) if text.rstrip().endswith(f"# {marker}"))


def compile_error(kernel: blkc.JITFunction, *args: object, **meta: object) -> str:
    with pytest.raises(blkc.BlkcError) as info:
        kernel.warmup(*args, **meta)
    return str(info.value)


def assert_located(message: str, marker: str, text: str) -> None:
    line = line_of(marker)
    assert f"{__file__}:{line}:" in message, message
    assert text in message, message
    assert SOURCE[line - 1].strip() in message  # the source line is shown
    assert "^" in message  # with a caret


X = numpy.zeros(16, numpy.float32)


@blkc.jit
def broadcast_mismatch(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 8)
    tl.store(x_ptr + a, a + b)  # broadcast-mismatch


def test_broadcast_error_points_at_the_expression() -> None:
    message = compile_error(broadcast_mismatch, X)
    assert_located(message, "broadcast-mismatch", "cannot broadcast")


@blkc.jit
def refused_by_policy(x_ptr, b_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    flags = tl.load(b_ptr + offs)
    tl.store(x_ptr + offs, x + (flags - flags))  # bool-subtraction


def test_promotion_error_from_a_policy_points_at_the_kernel() -> None:
    message = compile_error(refused_by_policy, X, numpy.zeros(16, numpy.bool_), policy="numpy")
    assert_located(message, "bool-subtraction", "numpy")


@blkc.jit
def carried_type_change(x_ptr, n):
    acc = tl.zeros([16], dtype=tl.int32)
    for _ in range(n):
        acc = acc + tl.load(x_ptr + tl.arange(0, 16)).to(tl.float16)  # carried-change
    tl.store(x_ptr + tl.arange(0, 16), acc)


def test_loop_carried_type_change() -> None:
    message = compile_error(carried_type_change, X, 4)
    assert "'acc' is tensor<16xi32> before the loop but tensor<16xf16>" in message
    assert f"{__file__}:" in message


@blkc.jit
def uses_lambda(x_ptr):
    f = lambda v: v  # noqa: E731  # lambda
    tl.store(x_ptr, f(1))


@blkc.jit
def uses_break(x_ptr, n):
    for _ in range(n):
        break  # break


@blkc.jit
def calls_python(x_ptr):
    tl.store(x_ptr, numpy.sin(1.0) + tl.load(x_ptr))  # python-call


@blkc.jit
def comprehension(x_ptr):
    tl.store(x_ptr, len({i for i in range(3)}))  # comprehension


@blkc.jit
def return_in_loop(x_ptr, n):
    for _ in range(n):
        return  # return-in-loop


@blkc.jit
def index_with_int(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr, x[3])  # int-index


@blkc.jit
def arange_not_constant(x_ptr, n):
    tl.store(x_ptr + tl.arange(0, n), 1.0)  # arange-runtime


@blkc.jit
def arange_not_power_of_two(x_ptr):
    tl.store(x_ptr + tl.arange(0, 12), 1.0)  # arange-12


@blkc.jit
def arange_of_a_float(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)  # arange-float


@blkc.jit
def reshape_to_a_float(x_ptr, BLOCK: tl.constexpr):
    y = tl.reshape(tl.zeros((16,), tl.float32), BLOCK)  # reshape-float
    tl.store(x_ptr + tl.arange(0, 16), y)


@blkc.jit
def static_range_of_a_float(x_ptr, BLOCK: tl.constexpr):
    for i in tl.static_range(BLOCK):  # static-range-float
        tl.store(x_ptr + i, 1.0)


@blkc.jit
def range_of_a_float(x_ptr, BLOCK: tl.constexpr):
    for i in range(0, BLOCK, 2):  # range-float
        tl.store(x_ptr + i, 1.0)


@blkc.jit
def range_of_a_float_value(x_ptr):
    for i in range(tl.load(x_ptr)):  # range-float-value
        tl.store(x_ptr + i, 1.0)


@blkc.jit
def undefined_name(x_ptr):
    tl.store(x_ptr, missing)  # noqa: F821  # undefined


@blkc.jit
def bad_keyword(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr, maskk=None))  # bad-keyword


@blkc.jit
def failed_static_assert(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of 32")  # static-assert


@blkc.jit
def block_condition(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    if x > 0:  # block-condition
        tl.store(x_ptr, 1.0)


@blkc.jit
def pointer_product(x_ptr):
    tl.store(x_ptr, (x_ptr * 2).dtype)  # pointer-product


@blkc.jit
def other_without_mask(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr, other=0.0))  # other-without-mask


@blkc.jit
def returns_value(x_ptr):
    return tl.load(x_ptr)


@blkc.jit
def bad_axis(x_ptr, CASE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    if CASE == "expand_dims 3":
        y = tl.expand_dims(x, 3)  # expand_dims 3
    elif CASE == "expand_dims -4":
        y = tl.expand_dims(x, -4)  # expand_dims -4
    elif CASE == "expand_dims twice":
        y = tl.expand_dims(x, (1, -3))  # expand_dims twice
    elif CASE == "expand_dims float":
        y = tl.expand_dims(x, 1.5)  # expand_dims float
    elif CASE == "sum":
        y = tl.sum(x, axis=5)  # sum
    elif CASE == "max":
        y = x.max(axis=-3)  # max
    elif CASE == "argmin":
        y = tl.argmin(x, axis=2)  # argmin
    elif CASE == "cumsum":
        y = tl.cumsum(x, axis=2)  # cumsum
    elif CASE == "softmax":
        y = tl.softmax(x, dim=2)  # softmax
    elif CASE == "permute":
        y = tl.permute(x, (0, 2))  # permute
    elif CASE == "trans":
        y = tl.trans(x, 1, 1)  # trans
    elif CASE == "permute nothing":
        y = tl.permute(x)  # permute nothing
    elif CASE == "trans 1-D":
        y = tl.trans(tl.sum(x, axis=0))  # trans 1-D
    elif CASE == "propagate_nan":
        y = tl.maximum(x, x, propagate_nan=True)  # propagate_nan
    tl.store(x_ptr, tl.sum(tl.reshape(y, [y.numel]), axis=0))


@pytest.mark.parametrize(
    ("kernel", "args", "meta", "marker", "text"),
    [
        (uses_lambda, (X,), {}, "lambda", "lambda expressions are not supported in kernels"),
        (uses_break, (X, 3), {}, "break", "'break' is not supported in kernels"),
        (calls_python, (X,), {}, "python-call", "cannot call 'sin' in a kernel"),
        (comprehension, (X,), {}, "comprehension", "set comprehensions are not supported"),
        (return_in_loop, (X, 3), {}, "return-in-loop", "'return' inside a loop"),
        (index_with_int, (X,), {}, "int-index", "indexed with ':' and None"),
        (arange_not_constant, (X, 3), {}, "arange-runtime", "must be a compile-time constant"),
        (arange_not_power_of_two, (X,), {}, "arange-12", "power of two, got 12"),
        (arange_of_a_float, (X,), {"BLOCK": 16.0}, "arange-float", "end must be an int"),
        (reshape_to_a_float, (X,), {"BLOCK": 16.0}, "reshape-float", "tl.reshape: 'float'"),
        (
            static_range_of_a_float,
            (X,),
            {"BLOCK": 4.0},
            "static-range-float",
            "static_range's bounds and step must be integers, got float 4.0",
        ),
        (
            range_of_a_float,
            (X,),
            {"BLOCK": 4.0},
            "range-float",
            "range's bounds and step must be integers, got float 4.0",
        ),
        (
            range_of_a_float_value,
            (X,),
            {},
            "range-float-value",
            "range's bounds and step must be integers, got a fp32 value",
        ),
        (undefined_name, (X,), {}, "undefined", "name 'missing' is not defined"),
        (
            bad_keyword,
            (X,),
            {},
            "bad-keyword",
            "tl.load: got an unexpected keyword argument 'maskk'",
        ),
        (
            failed_static_assert,
            (X,),
            {"BLOCK": 48},
            "static-assert",
            "BLOCK must be a multiple of 32",
        ),
        (block_condition, (X,), {}, "block-condition", "a condition must be a scalar"),
        (pointer_product, (X,), {}, "pointer-product", "not defined on pointers"),
        (other_without_mask, (X,), {}, "other-without-mask", "it needs a mask"),
    ],
)
def test_unsupported_and_invalid_code_is_located(
    kernel: blkc.JITFunction, args: tuple, meta: dict, marker: str, text: str
) -> None:
    assert_located(compile_error(kernel, *args, **meta), marker, text)


@pytest.mark.parametrize(
    ("case", "text"),
    [
        ("expand_dims 3", "axis 3 is out of range for expand_dims's result, of rank 3 "
         "(expected -3 <= axis < 3)"),
        ("expand_dims -4", "axis -4 is out of range for expand_dims's result, of rank 3"),
        ("expand_dims twice", "expand_dims's axes [1, -3] name axis 1 of its result, of rank "
         "4, more than once"),
        ("expand_dims float", "an axis must be an integer, got 1.5"),
        ("sum", "axis 5 is out of range for tensor<4x4xf32>, of rank 2 (expected -2 <= axis < 2)"),
        ("max", "axis -3 is out of range for tensor<4x4xf32>, of rank 2"),
        ("argmin", "axis 2 is out of range for tensor<4x4xf32>, of rank 2"),
        ("cumsum", "axis 2 is out of range for tensor<4x4xf32>, of rank 2"),
        ("softmax", "axis 2 is out of range for tensor<4x4xf32>, of rank 2"),
        ("permute", "[0, 2] is not a permutation of the 2 dimensions of tensor<4x4xf32>"),
        ("permute nothing", "tl.permute needs the order of the dimensions"),
        ("trans 1-D", "tl.trans without dimensions swaps the last two, but its input has 1 "
         "dimension: give the order of the dimensions"),
        ("trans", "[1, 1] is not a permutation of the 2 dimensions of tensor<4x4xf32>"),
        ("propagate_nan", "propagate_nan must be tl.PropagateNan.NONE or "
         "tl.PropagateNan.ALL, got True"),
    ],
)  # fmt: skip
def test_bad_axes_name_the_axis_and_the_rank(case: str, text: str) -> None:
    assert_located(compile_error(bad_axis, X, CASE=case), case, text)


def test_kernel_returning_a_value() -> None:
    assert "returns a value" in compile_error(returns_value, X)


def test_calling_a_kernel_directly_says_how_to_launch() -> None:
    with pytest.raises(RuntimeError, match=r"launch it with returns_value\[grid\]"):
        returns_value(X)


def test_tl_functions_outside_kernels() -> None:
    with pytest.raises(RuntimeError, match="only be called inside a @blkc.jit kernel"):
        tl.arange(0, 16)


def test_bad_arguments_at_launch() -> None:
    with pytest.raises(TypeError, match="cannot pass str"):
        uses_break[(1,)](X, "three")
    missing = "kernel 'uses_break': missing 1 required positional argument: 'n'"
    with pytest.raises(TypeError, match=missing):
        uses_break[(1,)](X)


@blkc.jit
def hinted(
    X, C: tl.constexpr, E: tl.constexpr, SC: tl.constexpr, S: tl.constexpr, SCOPE: tl.constexpr
):
    o = tl.arange(0, 16)
    v = tl.load(X + o, cache_modifier=C, eviction_policy=E)  # load-hints
    tl.store(X + o, v + 1, cache_modifier=SC)  # store-hints
    tl.atomic_add(X, 1.0, sem=S, scope=SCOPE)  # atomic-hints


@pytest.mark.parametrize(
    ("hints", "marker", "text"),
    [
        ((".zz", "", "", None, None), "load-hints", "load's cache_modifier '.zz' is not supported"),
        (("", "evict_normal", "", None, None), "load-hints", "eviction_policy 'evict_normal'"),
        (("", "", ".ca", None, None), "store-hints", "store's cache_modifier '.ca'"),
        (("", "", "", "seq_cst", None), "atomic-hints", "atomic_add's sem 'seq_cst'"),
        (("", "", "", None, "block"), "atomic-hints", "atomic_add's scope 'block'"),
    ],
)
def test_a_hint_triton_refuses_is_refused(
    hints: tuple[object, ...], marker: str, text: str
) -> None:
    """Cache, eviction and memory-order hints are ignored on the CPU but checked as Triton
    checks them: a misspelt one is an error at its line, not silently dropped."""
    message = compile_error(hinted, numpy.zeros(16, numpy.float32), *hints)
    assert_located(message, marker, text)
    assert "use one of" in message


def test_every_hint_triton_accepts_is_accepted() -> None:
    x = numpy.zeros(16, numpy.float32)
    for hints in [
        (".ca", "evict_last", ".wb", "acquire", "gpu"),
        (".cg", "evict_first", ".cg", "release", "cta"),
        (".cs", "", ".cs", "acq_rel", "sys"),
        (".cv", None, ".wt", "relaxed", None),
    ]:
        x[:] = 0
        hinted[(1,)](x, *hints)
        assert x[0] == 2 and (x[1:] == 1).all()
