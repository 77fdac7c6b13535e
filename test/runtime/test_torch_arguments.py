"""Torch CPU tensors of every dtype blkc has as kernel arguments (by their data pointer, as
Triton takes them), `blkc.reinterpret` views, and tensors that cannot be passed."""

from __future__ import annotations

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.runtime.arrays import as_array

torch = pytest.importorskip("torch")


@blkc.jit
def convert_both_ways(x_ptr, x_as_f32_ptr, f32_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Reads `x` (any dtype) into float32, and writes float32 values into `out`'s dtype."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(x_as_f32_ptr + offs, x.to(tl.float32), mask=mask)
    values = tl.load(f32_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, values.to(out_ptr.dtype.element_ty), mask=mask)


@blkc.jit
def add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


N = 100
TORCH_DTYPES = [
    "bfloat16",
    "float8_e4m3fn",
    "float8_e5m2",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "float32",
]


@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_tensors_of_every_dtype_are_read_and_written_in_place(name: str) -> None:
    dtype = getattr(torch, name)
    # Small integers: exact in every dtype, so torch's conversions and blkc's agree.
    values = (torch.arange(N) % 7).to(torch.float32)
    x = values.to(dtype)
    x_as_f32 = torch.zeros(N)
    out = torch.zeros(N, dtype=dtype)
    convert_both_ways[(blkc.cdiv(N, 32),)](x, x_as_f32, values, out, N, BLOCK=32)
    assert torch.equal(x_as_f32, x.to(torch.float32))
    assert torch.equal(out, values.to(dtype))


def test_tensors_specialise_the_kernel_by_their_dtype() -> None:
    x = torch.zeros(4, dtype=torch.bfloat16)
    kernel = add_one.warmup(x, torch.zeros(4, dtype=torch.uint16), 4, BLOCK=16)
    assert [str(t) for t in kernel.params] == ["!blk.ptr<bf16>", "!blk.ptr<ui16>", "i32"]


def test_a_tensor_that_requires_grad_is_passed_by_its_data() -> None:
    x = torch.arange(N, dtype=torch.float32, requires_grad=True)
    parameter = torch.nn.Parameter(torch.ones(N))
    out = torch.zeros(N)
    add_one[(4,)](x, out, N, BLOCK=32)
    assert torch.equal(out, x.detach() + 1)
    add_one[(4,)](parameter, out, N, BLOCK=32)
    assert torch.equal(out, torch.full((N,), 2.0))


def test_a_view_is_passed_without_copying() -> None:
    base = torch.zeros(2, N, dtype=torch.bfloat16)
    add_one[(4,)](base[0], base[1], N, BLOCK=32)
    assert torch.equal(base[1], torch.ones(N, dtype=torch.bfloat16))
    view = as_array(base[1])
    assert view.ctypes.data == base[1].data_ptr()
    assert view.dtype == blkc.dtypes.bfloat16.numpy


def test_a_tensor_on_another_device_is_refused_naming_it() -> None:
    x = torch.empty(N, device="meta")
    with pytest.raises(
        TypeError, match=r"argument 0 \('x_ptr'\) of kernel 'add_one' is a tensor on device 'meta'"
    ):
        add_one[(4,)](x, torch.zeros(N), N, BLOCK=32)


def test_a_tensor_of_a_dtype_blkc_lacks_is_refused_naming_it() -> None:
    x = torch.zeros(4, dtype=torch.float8_e4m3fnuz)
    with pytest.raises(TypeError, match=r"argument 'x_ptr'.*torch.float8_e4m3fnuz has no blkc"):
        add_one[(1,)](x, x, 4, BLOCK=16)


def test_reinterpret_int8_as_uint8() -> None:
    x = numpy.array([-1, -128, 0, 127], numpy.int8)
    out = numpy.zeros(4, numpy.uint8)
    add_one[(1,)](blkc.reinterpret(x, tl.uint8), out, 4, BLOCK=16)
    numpy.testing.assert_array_equal(out, [0, 129, 1, 128])  # 255 + 1 wraps in uint8


def test_reinterpret_uint8_bits_as_fp8() -> None:
    bits = numpy.array([0x38, 0x40, 0xB8, 0x7E], numpy.uint8)  # e4m3fn: 1, 2, -1, 448
    out = numpy.zeros(4, numpy.float32)
    kernel_in = blkc.reinterpret(bits, tl.float8e4nv)
    convert_both_ways[(1,)](kernel_in, out, out.copy(), numpy.zeros(4, numpy.float32), 4, BLOCK=16)
    numpy.testing.assert_array_equal(out, [1.0, 2.0, -1.0, 448.0])
    assert numpy.asarray(kernel_in).dtype == blkc.dtypes.float8_e4m3fn.numpy


def test_reinterpret_a_tensor_and_back() -> None:
    x = torch.tensor([0x3F80, 0x4000], dtype=torch.int16)
    as_bf16 = blkc.reinterpret(x, torch.bfloat16)
    assert numpy.asarray(as_bf16).tolist() == [1.0, 2.0]
    assert blkc.reinterpret(as_bf16, "int16") is x  # the original dtype: the original tensor


def test_reinterpret_refuses_another_item_size() -> None:
    with pytest.raises(ValueError, match=r"cannot reinterpret int8 \(1-byte items\) as float32"):
        blkc.reinterpret(numpy.zeros(4, numpy.int8), tl.float32)
    with pytest.raises(TypeError, match="cannot reinterpret list"):
        blkc.reinterpret([1, 2], tl.uint8)
