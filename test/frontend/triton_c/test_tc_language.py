"""Each Triton-C construct, compiled and run on real data, against NumPy."""

from __future__ import annotations

import numpy
import pytest

import blkc.triton_c as tc
from blkc.triton_c.tuning import TritonCKernel

rng = numpy.random.default_rng(7)


def kernel(source: str, **defines: object) -> TritonCKernel:
    """The one kernel of `source`."""
    (compiled,) = tc.compile(source, defines=defines).values()  # type: ignore[arg-type]
    return compiled


def floats(*shape: int) -> numpy.ndarray:
    return rng.standard_normal(shape).astype(numpy.float32)


def test_ranges_and_precedence() -> None:
    # `pid * TM + 0 ... TM` is (pid * TM) + (0 ... TM); `0...8` lexes without spaces.
    k = kernel("""
    __global__ void ranges(int *Y) {
      int pid = get_program_id(0);
      *(Y + pid * 8 + 0...8) = pid * 8 + 0 ... 8;
    }""")
    y = numpy.zeros(32, numpy.int32)
    k[(4,)](y)
    numpy.testing.assert_array_equal(y, numpy.arange(32))


def test_newaxis_broadcasting_and_transpose() -> None:
    k = kernel("""
    #define R 8
    #define C 4
    __global__ void outer(float *X, float *Y, float *Out, float *OutT) {
      int r[R] = 0 ... R;
      int c[C] = 0 ... C;
      float x[R] = *(X + r);
      float y[C] = *(Y + c);
      float prod[R, C] = x[:, newaxis] * y[newaxis, :];
      *(Out + r[:, newaxis] * C + c[newaxis, :]) = prod;
      *(OutT + c[:, newaxis] * R + r[newaxis, :]) = ^prod;
    }""")
    x, y = floats(8), floats(4)
    out, out_t = numpy.zeros((8, 4), numpy.float32), numpy.zeros((4, 8), numpy.float32)
    k[(1,)](x, y, out, out_t)
    numpy.testing.assert_allclose(out, numpy.outer(x, y), rtol=1e-6)
    numpy.testing.assert_allclose(out_t, numpy.outer(x, y).T, rtol=1e-6)


def test_declaration_broadcasts_scalars_and_rows() -> None:
    k = kernel("""
    __global__ void fill(int *Y, int v) {
      int rows[4, 8] = v;
      int cols[4, 8] = 0 ... 8;
      *(Y + (0 ... 4)[:, newaxis] * 8 + (0 ... 8)[newaxis, :]) = rows + cols;
    }""")
    y = numpy.zeros((4, 8), numpy.int32)
    k[(1,)](y, 100)
    numpy.testing.assert_array_equal(y, 100 + numpy.arange(8)[None, :].repeat(4, 0))


@pytest.mark.parametrize(
    ("subscript", "reference"),
    [
        ("[:, +]", lambda m: m.sum(1)),
        ("[:, max]", lambda m: m.max(1)),
        ("[:, min]", lambda m: m.min(1)),
    ],
)
def test_row_reductions(subscript: str, reference) -> None:  # type: ignore[no-untyped-def]
    k = kernel(f"""
    __global__ void reduce(float *X, float *Y) {{
      float m[4, 16] = *(X + (0 ... 4)[:, newaxis] * 16 + (0 ... 16)[newaxis, :]);
      *(Y + (0 ... 4)) = m{subscript};
    }}""")
    x, y = floats(4, 16), numpy.zeros(4, numpy.float32)
    k[(1,)](x, y)
    numpy.testing.assert_allclose(y, reference(x), rtol=1e-5)


@pytest.mark.parametrize(
    ("subscript", "reference"),
    [
        ("[+, :]", lambda m: m.sum(0)),
        ("[max, :]", lambda m: m.max(0)),
        ("[min]", lambda m: m.min(0)),
    ],
)
def test_column_reductions(subscript: str, reference) -> None:  # type: ignore[no-untyped-def]
    # `m[min]` on a 2-D block reduces the first axis, the missing subscripts being ':'.
    k = kernel(f"""
    __global__ void reduce(float *X, float *Y) {{
      float m[4, 16] = *(X + (0 ... 4)[:, newaxis] * 16 + (0 ... 16)[newaxis, :]);
      *(Y + (0 ... 16)) = m{subscript};
    }}""")
    x, y = floats(4, 16), numpy.zeros(16, numpy.float32)
    k[(1,)](x, y)
    numpy.testing.assert_allclose(y, reference(x), rtol=1e-5)


def test_full_reductions_to_scalars() -> None:
    k = kernel("""
    __global__ void total(float *X, float *Y) {
      float v[32] = *(X + (0 ... 32));
      *Y = v[+];
      *(Y + 1) = v[max];
      *(Y + 2) = v[min];
    }""")
    x, y = floats(32), numpy.zeros(3, numpy.float32)
    k[(1,)](x, y)
    numpy.testing.assert_allclose(y, [x.sum(), x.max(), x.min()], rtol=1e-5)


def test_masked_loads_and_stores() -> None:
    k = kernel("""
    __global__ void masked(float *X, float *Fill, float *Zero, float *Store, int N) {
      int i[16] = 0 ... 16;
      bool m[16] = i < N;
      float *px[16] = X + i;
      *(Fill + i) = m ? *px : -1.5f;
      *(Zero + i) = *?(m)px;
      *?(m)(Store + i) = *px * 2;
    }""")
    x = floats(16)
    fill, zero = numpy.full(16, 9, numpy.float32), numpy.full(16, 9, numpy.float32)
    store = numpy.full(16, 9, numpy.float32)
    k[(1,)](x, fill, zero, store, 10)
    numpy.testing.assert_array_equal(fill, numpy.where(numpy.arange(16) < 10, x, -1.5))
    numpy.testing.assert_array_equal(zero, numpy.where(numpy.arange(16) < 10, x, 0))
    numpy.testing.assert_array_equal(store, numpy.where(numpy.arange(16) < 10, x * 2, 9))


def test_masked_load_with_both_masks_and_reversed_ternary() -> None:
    k = kernel("""
    __global__ void masks(int *X, int *Y) {
      int i[16] = 0 ... 16;
      *(Y + i) = i < 12 ? *?(i >= 4)(X + i) : -1;
      *(Y + 16 + i) = i < 8 ? 7 : *(X + i);
    }""")
    x = numpy.arange(100, 116, dtype=numpy.int32)
    y = numpy.zeros(32, numpy.int32)
    k[(1,)](x, y)
    i = numpy.arange(16)
    numpy.testing.assert_array_equal(y[:16], numpy.where((i < 12) & (i >= 4), x, -1))
    numpy.testing.assert_array_equal(y[16:], numpy.where(i < 8, 7, x))


def test_scalar_dereference_and_compound_store() -> None:
    k = kernel("""
    __global__ void scalars(float *X) {
      float first = *X;
      *(X + 1) += first;
      *X = 0;
    }""")
    x = numpy.array([2.5, 1.0], numpy.float32)
    k[(1,)](x)
    numpy.testing.assert_array_equal(x, [0.0, 3.5])


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float16])
def test_matrix_product(dtype: type) -> None:
    k = kernel("""
    __global__ void dot(TYPE *A, TYPE *B, float *C) {
      int r[16] = 0 ... 16;
      int c[32] = 0 ... 32;
      TYPE a[16, 32] = *(A + r[:, newaxis] * 32 + c[newaxis, :]);
      TYPE b[32, 16] = *(B + c[:, newaxis] * 16 + r[newaxis, :]);
      float acc[16, 16] = 1;
      acc += a @ b;
      *(C + r[:, newaxis] * 16 + r[newaxis, :]) = acc + 2 * a @ b;
    }""", TYPE="half" if dtype is numpy.float16 else "float")
    a, b = floats(16, 32).astype(dtype), floats(32, 16).astype(dtype)
    c = numpy.zeros((16, 16), numpy.float32)
    k[(1,)](a, b, c)
    product = a.astype(numpy.float32) @ b.astype(numpy.float32)
    numpy.testing.assert_allclose(c, 1 + 3 * product, rtol=1e-4, atol=1e-3)


def test_atomics() -> None:
    k = kernel("""
    __global__ void atomics(int *Count, int *Masked, int *Swap, int *Cas, int *Old) {
      int i[16] = 0 ... 16;
      atomic_add(Count + i % 4, 1);
      atomic_add(Masked + i % 4, 1, i < 6);
      *(Old + i) = atomic_xchg(Swap + i, i * 10);
      atomic_cas(Cas + i, i % 2, 5);
    }""")
    count, masked = numpy.zeros(4, numpy.int32), numpy.zeros(4, numpy.int32)
    swap, cas = numpy.arange(16, dtype=numpy.int32), numpy.zeros(16, numpy.int32)
    old = numpy.zeros(16, numpy.int32)
    k[(3,)](count, masked, swap, cas, old)
    numpy.testing.assert_array_equal(count, [12] * 4)
    numpy.testing.assert_array_equal(masked, [6, 6, 3, 3])
    numpy.testing.assert_array_equal(swap, numpy.arange(16) * 10)
    # The program that wrote Old last saw the original values or another program's.
    assert (old == numpy.arange(16)).all() or (old == numpy.arange(16) * 10).all()
    numpy.testing.assert_array_equal(cas, numpy.where(numpy.arange(16) % 2 == 0, 5, 0))


def test_math_functions_and_selection() -> None:
    k = kernel("""
    __global__ void fns(float *X, float *Y) {
      int i[16] = 0 ... 16;
      float x[16] = *(X + i);
      *(Y + i) = exp(x) + logf(x) + sqrt(x);
      *(Y + 16 + i) = expf(x) * log(x) - sqrtf(x);
      *(Y + 32 + i) = select(x > 1, min(x, 2), max(x, 0.5f));
      *(Y + 48 + i) = x > 1.5 ? INFINITY : -F32_INFINITY;
      *(Y + 64 + i) = NAN + x;
    }""")
    x = rng.uniform(0.1, 3, 16).astype(numpy.float32)
    y = numpy.zeros(80, numpy.float32)
    k[(1,)](x, y)
    numpy.testing.assert_allclose(y[:16], numpy.exp(x) + numpy.log(x) + numpy.sqrt(x), rtol=1e-5)
    numpy.testing.assert_allclose(y[16:32], numpy.exp(x) * numpy.log(x) - numpy.sqrt(x),
                                  rtol=1e-4, atol=1e-5)
    numpy.testing.assert_array_equal(y[32:48], numpy.where(x > 1, numpy.minimum(x, 2),
                                                           numpy.maximum(x, 0.5)))
    numpy.testing.assert_array_equal(y[48:64], numpy.where(x > 1.5, numpy.inf, -numpy.inf))
    assert numpy.isnan(y[64:]).all()


def test_program_ids_and_counts() -> None:
    k = kernel("""
    __global__ void grid(int *Y) {
      int x = get_program_id(0);
      int y = get_program_id(1);
      *(Y + y * get_num_programs(0) + x) = x * 100 + y + get_num_programs(1) * 10000;
    }""")
    y = numpy.zeros((3, 5), numpy.int32)
    k[(5, 3)](y)
    numpy.testing.assert_array_equal(y, numpy.arange(5)[None, :] * 100 + numpy.arange(3)[:, None]
                                     + 30000)


def test_loops_branches_and_steps() -> None:
    k = kernel("""
    __global__ void flow(int *Y, int N) {
      int total = 0;
      for (int i = 0; i <= N; i++)
        total += i;
      int down = 0;
      for (int k = N; k > 0; k -= 3)
        down++;
      int w = 1;
      while (w < N) { w = w * 2; }
      int parity = 0;
      if (N % 2 == 0) parity = 2; else { parity = 1; ++parity; --parity; }
      int blocks[4] = 0;
      for (int j = 0; j < 3; j = j + 1) {
        if (j != 1) blocks = blocks + (0 ... 4);
      }
      *Y = total;
      *(Y + 1) = down;
      *(Y + 2) = w;
      *(Y + 3) = parity;
      *(Y + 4 + (0 ... 4)) = blocks;
    }""")
    for n in (7, 10):
        y = numpy.zeros(8, numpy.int32)
        k[(1,)](y, n)
        assert list(y[:4]) == [n * (n + 1) // 2, -(-n // 3), 8 if n == 7 else 16, 2 - n % 2]
        numpy.testing.assert_array_equal(y[4:], 2 * numpy.arange(4))


def test_c_integer_division_and_remainder_truncate() -> None:
    k = kernel("""
    __global__ void divide(int *X, int *Q, int *R, int d) {
      int i[16] = 0 ... 16;
      int x[16] = *(X + i);
      *(Q + i) = x / d;
      *(R + i) = x % d;
      *(Q + 16) = -7 / 2;
      *(R + 16) = -7 % 2;
    }""")
    x = numpy.arange(-8, 8, dtype=numpy.int32)
    q, r = numpy.zeros(17, numpy.int32), numpy.zeros(17, numpy.int32)
    k[(1,)](x, q, r, 3)
    numpy.testing.assert_array_equal(q[:16], numpy.trunc(x / 3).astype(numpy.int32))
    numpy.testing.assert_array_equal(r[:16], numpy.fmod(x, 3))
    assert (q[16], r[16]) == (-3, -1)


@pytest.mark.parametrize("policy", ["triton", "numpy"])
def test_min_max_and_their_reductions_skip_nan_as_fmin_and_fmax(policy: str) -> None:
    # C's fmin/fmax, under every policy: NaN only where every operand is NaN.
    k = tc.compile(
        """
    __global__ void extrema(float *X, float *Y, float *Lo, float *Hi, float *R) {
      int i[4] = 0 ... 4;
      float x[4] = *(X + i);
      float y[4] = *(Y + i);
      *(Lo + i) = min(x, y);
      *(Hi + i) = max(x, y);
      *R = x[max];
      *(R + 1) = x[min];
    }""",
        policy=policy,
    )["extrema"]
    nan = numpy.nan
    x = numpy.array([nan, 1, nan, -2], numpy.float32)
    y = numpy.array([3, nan, nan, 5], numpy.float32)
    lo, hi, r = (numpy.zeros(n, numpy.float32) for n in (4, 4, 2))
    k[(1,)](x, y, lo, hi, r)
    numpy.testing.assert_array_equal(lo, [3, 1, nan, -2])
    numpy.testing.assert_array_equal(hi, [3, 1, nan, 5])
    numpy.testing.assert_array_equal(r, [1, -2])


def test_assignment_converts_to_the_declared_type() -> None:
    k = kernel("""
    __global__ void convert(float *X, int *I, unsigned char *U, half *H) {
      int i[8] = 0 ... 8;
      int truncated[8] = *(X + i);
      *(I + i) = truncated;
      uint8 wrapped[8] = truncated + 256;
      *(U + i) = wrapped;
      fp16 h[8] = *(X + i);
      *(H + i) = h;
      float f = 2.75;
      int n = f;
      *(I + 8) = n;
    }""")
    x = numpy.array([0.5, -1.7, 2.9, 3.0, -0.2, 7.99, 100.5, -100.5], numpy.float32)
    i, u = numpy.zeros(9, numpy.int32), numpy.zeros(8, numpy.uint8)
    h = numpy.zeros(8, numpy.float16)
    k[(1,)](x, i, u, h)
    numpy.testing.assert_array_equal(i[:8], numpy.trunc(x).astype(numpy.int32))
    numpy.testing.assert_array_equal(u, (numpy.trunc(x).astype(numpy.int32) + 256) % 256)
    numpy.testing.assert_array_equal(h, x.astype(numpy.float16))
    assert i[8] == 2


def test_c_types_and_typedef_names() -> None:
    k = kernel("""
    __global__ void types(char *A, short *B, long *C, unsigned int *D, uint64 *E,
                          int8 *F, int16 *G, int64 *H, double *I, bf16 *J, fp64 *K) {
      int i[4] = 0 ... 4;
      *(A + i) = *(A + i) + 1;
      *(B + i) = *(B + i) + 1;
      *(C + i) = *(C + i) + 1;
      *(D + i) = *(D + i) + 1;
      *(E + i) = *(E + i) + 1;
      *(F + i) = *(F + i) + 1;
      *(G + i) = *(G + i) + 1;
      *(H + i) = *(H + i) + 1;
      *(I + i) = *(I + i) + 1;
      *(J + i) = *(J + i) + 1;
      *(K + i) = *(K + i) + 1;
    }""")
    import ml_dtypes

    kinds = [numpy.int8, numpy.int16, numpy.int64, numpy.uint32, numpy.uint64, numpy.int8,
             numpy.int16, numpy.int64, numpy.float64, ml_dtypes.bfloat16, numpy.float64]
    arrays = [numpy.arange(4).astype(d) for d in kinds]
    k[(1,)](*arrays)
    for array in arrays:
        numpy.testing.assert_array_equal(array.astype(numpy.float64), numpy.arange(1, 5))


def test_scalar_parameters_and_compound_assignments() -> None:
    k = kernel("""
    __global__ void ops(float *Y, float alpha, int n) {
      float v[8] = (float)(0 ... 8);
      v *= alpha;
      v -= 1;
      v /= 2;
      int bits = n;
      bits <<= 2;
      bits |= 1;
      bits ^= 3;
      bits &= 0xff;
      bits >>= 1;
      bits %= 5;
      *(Y + (0 ... 8)) = v;
      *(Y + 8) = bits;
    }""")
    y = numpy.zeros(9, numpy.float32)
    k[(1,)](y, 3.0, 6)
    numpy.testing.assert_allclose(y[:8], (numpy.arange(8) * 3 - 1) / 2)
    assert y[8] == (((((6 << 2) | 1) ^ 3) & 0xFF) >> 1) % 5


def test_logical_and_bitwise_operators() -> None:
    k = kernel("""
    __global__ void logic(int *X, int *Y) {
      int x[16] = *(X + (0 ... 16));
      bool a[16] = x > 3 && x < 10 || !(x != 12);
      *(Y + (0 ... 16)) = a;
      *(Y + 16 + (0 ... 16)) = (~x & 6) | (x ^ 1) << 1 >> 1;
    }""")
    x = numpy.arange(16, dtype=numpy.int32)
    y = numpy.zeros(32, numpy.int32)
    k[(1,)](x, y)
    numpy.testing.assert_array_equal(y[:16], ((x > 3) & (x < 10)) | (x == 12))
    numpy.testing.assert_array_equal(y[16:], (~x & 6) | (((x ^ 1) << 1) >> 1))


def test_preprocessor_macros_conditionals_and_host_defines() -> None:
    source = """
    #define SQUARE(x) ((x) * (x))
    #define TWICE(x) SQUARE(x) + SQUARE(x)
    #if defined(BIG) && BIG > 1
    #define SIZE 32
    #elif defined BIG
    #define SIZE 16
    #else
    #define SIZE 8
    #endif
    __global__ void macros(int *Y) {
      int i[SIZE] = 0 ... SIZE;
      *(Y + i) = TWICE(i) + OFFSET;
    }"""
    for big, size in ((None, 8), (1, 16), (4, 32)):
        defines: dict[str, object] = {"OFFSET": 5}
        if big is not None:
            defines["BIG"] = big
        k = kernel(source, **defines)
        y = numpy.zeros(32, numpy.int32)
        k[(1,)](y)
        i = numpy.arange(size)
        numpy.testing.assert_array_equal(y[:size], 2 * i * i + 5)
        assert not y[size:].any()


def test_global_may_be_omitted_on_the_only_function() -> None:
    k = kernel("void copy(int *X, int *Y) { *(Y + (0 ... 4)) = *(X + (0 ... 4)); }")
    x, y = numpy.arange(4, dtype=numpy.int32), numpy.zeros(4, numpy.int32)
    k[(1,)](x, y)
    numpy.testing.assert_array_equal(x, y)


def test_several_kernels_in_one_file() -> None:
    kernels = tc.compile("""
    __global__ void one(int *X) { *X = 1; }
    __global__ void two(int *X) { *X = 2; }
    """)
    assert sorted(kernels) == ["one", "two"]
    x = numpy.zeros(1, numpy.int32)
    kernels["two"][(1,)](x)
    assert x[0] == 2


@pytest.mark.parametrize(
    ("policy", "dtype", "numpy_dtype"),
    [("triton", "f32", numpy.float32), ("numpy", "f64", numpy.float64)],
)
def test_policy_changes_literal_typing(policy: str, dtype: str, numpy_dtype: type) -> None:
    # int * 0.1: Triton computes in float32, NumPy (NEP 50) in float64; Y holds either.
    source = "__global__ void k(int *X, double *Y) { *(Y + (0 ... 4)) = *(X + (0 ... 4)) * 0.1; }"
    loose = tc.translate(source, policy=policy)["k"]
    assert f'blk.policy = "{policy}"' in str(loose)
    compiled = tc.compile(source, policy=policy)["k"]
    (product,) = [line for line in compiled.asm["strict"].splitlines() if "blk.mul" in line]
    assert product.endswith(f": tensor<4x{dtype}>")
    x, y = numpy.arange(1, 5, dtype=numpy.int32), numpy.zeros(4)
    compiled[(1,)](x, y)
    numpy.testing.assert_array_equal(y, x.astype(numpy_dtype) * numpy_dtype(0.1))


def test_a_broken_multipleof_promise_is_refused_at_launch() -> None:
    source = (
        "__global__ void fill(int *X __aligned(16), int N __multipleof(16)) {\n"
        "  int offs[16] = 0 ... 16;\n"
        "  *?(offs < N)(X + offs) = offs;\n"
        "}\n"
    )
    fill = tc.compile(source)["fill"]
    x = numpy.zeros(16, numpy.int32)
    fill[(1,)](x, 16)
    numpy.testing.assert_array_equal(x, numpy.arange(16))
    with pytest.raises(ValueError, match="is 12, not a multiple of 16"):
        fill[(1,)](x, 12)
