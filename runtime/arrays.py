"""Kernel arguments as NumPy arrays, without copying: what a pointer parameter accepts.

- NumPy arrays, as they are;
- PyTorch CPU tensors of every dtype blkc has (bfloat16, float8, uint16 ... which DLPack
  refuses), whether or not they require grad: by their data pointer, shape and strides,
  as Triton takes them. Torch is recognised by the tensor's class, never imported;
- `reinterpret(x, dtype)`: the memory of an array or tensor seen as another dtype of the
  same item size (Triton's `triton.reinterpret`);
- anything else with `__array_interface__` or DLPack, through NumPy.

A tensor on another device (`meta`, `cuda`) is refused with a TypeError naming the
argument and the device.
"""

from __future__ import annotations

from typing import Any

import numpy

from blkc import dtypes

_is_torch_type: dict[type, bool] = {}
"""Per class seen, whether it is `torch.Tensor` or a subclass (`nn.Parameter`)."""
_torch_dtypes: dict[Any, numpy.dtype[Any]] = {}
"""Each torch dtype met so far, as its NumPy (or ml_dtypes) dtype."""


def is_torch_tensor(value: object) -> bool:
    """Whether `value` is a torch tensor (`torch.Tensor` or a subclass; torch is never
    imported to tell)."""
    cls = type(value)
    known = _is_torch_type.get(cls)
    if known is None:
        known = _is_torch_type[cls] = any(
            base.__module__ == "torch" and base.__name__ == "Tensor" for base in cls.__mro__
        )
    return known


def _from_torch_dtype(torch_dtype: Any) -> numpy.dtype[Any]:
    """The NumPy dtype of a torch dtype (``torch.bfloat16`` is ml_dtypes' bfloat16)."""
    found = _torch_dtypes.get(torch_dtype)
    if found is None:
        name = str(torch_dtype).removeprefix("torch.")
        try:
            found = _torch_dtypes[torch_dtype] = dtypes.dtype(name).numpy
        except dtypes.UnknownDTypeError:
            raise dtypes.UnknownDTypeError(
                f"{torch_dtype} has no blkc equivalent (blkc's dtypes: "
                f"{', '.join(d.name for d in dtypes.ALL)})"
            ) from None
    return found


class _TensorMemory:
    """A tensor's memory described to NumPy; the view made from it keeps the tensor alive."""

    __slots__ = ("__array_interface__", "tensor")

    def __init__(self, tensor: Any, dtype: numpy.dtype[Any]):
        self.tensor = tensor
        size = dtype.itemsize
        self.__array_interface__ = {
            "data": (tensor.data_ptr(), False),
            "shape": tensor.shape,
            "strides": tuple([s * size for s in tensor.stride()]),
            # ml_dtypes' dtypes (not built in: isbuiltin 2) travel as raw bytes.
            "typestr": dtype.str if dtype.isbuiltin == 1 else f"|V{size}",
            "version": 3,
        }


def _torch_view(tensor: Any, where: str) -> numpy.ndarray:
    if not tensor.is_cpu:  # `.device` alone costs more than the rest of the view
        raise TypeError(
            f"{where} is a tensor on device '{tensor.device}': kernels launched on the CPU "
            "read host memory; pass a CPU tensor (tensor.cpu())"
        )
    dtype = _from_torch_dtype(tensor.dtype)
    array = numpy.asarray(_TensorMemory(tensor, dtype))
    return array if array.dtype == dtype else array.view(dtype)


class Reinterpreted:
    """The memory of `base` (an array or tensor) seen as `dtype`, of the same item size:
    what `reinterpret` returns. Kernels take it as an array of `dtype`."""

    def __init__(self, base: Any, dtype: dtypes.DType, shown: Any = None):
        self.base = base
        self.blkc_dtype = dtype
        self.dtype = dtype if shown is None else shown
        """The dtype as `reinterpret` was given it (a `tl` dtype stays one, as in Triton's
        `TensorWrapper`)."""
        self._numpy = dtype.numpy
        self.data = getattr(base, "data", None)
        """The base's `data` (a tensor's alias of itself), as Triton's `TensorWrapper` has
        it: a plain attribute, which assigning to changes nothing else."""

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.base.shape)

    @property
    def device(self) -> Any:
        return getattr(self.base, "device", "cpu")

    def stride(self, *dim: int) -> Any:
        """The base's strides in elements (torch's ``stride()``; NumPy arrays' byte strides
        divided by the item size)."""
        strides = (
            tuple(self.base.stride())
            if callable(getattr(self.base, "stride", None))
            else tuple(s // self.base.itemsize for s in self.base.strides)
        )
        return strides[dim[0]] if dim else strides

    def data_ptr(self) -> int:
        """The address of the first element."""
        data_ptr = getattr(self.base, "data_ptr", None)
        if callable(data_ptr):
            return int(data_ptr())
        return int(self.base.__array_interface__["data"][0])

    def element_size(self) -> int:
        return int(self._numpy.itemsize)

    def numel(self) -> int:
        return int(numpy.prod(self.shape, dtype=numpy.int64))

    def cpu(self) -> Reinterpreted:
        """This view of the base's CPU copy (itself for a NumPy array or a CPU tensor)."""
        cpu = getattr(self.base, "cpu", None)
        return self if cpu is None else Reinterpreted(cpu(), self.blkc_dtype, self.dtype)

    def copy_(self, other: Any) -> Reinterpreted:
        """Copies `other`'s elements (a view or an array of the same dtype) into this one."""
        numpy.copyto(numpy.asarray(self), numpy.asarray(other), casting="no")
        return self

    def clone(self) -> Reinterpreted:
        base = self.base.clone() if hasattr(self.base, "clone") else self.base.copy()
        return Reinterpreted(base, self.blkc_dtype, self.dtype)

    def to(self, device: Any) -> Reinterpreted:
        return Reinterpreted(self.base.to(device), self.blkc_dtype, self.dtype)

    def new_empty(self, sizes: Any) -> Reinterpreted:
        """An uninitialised view of `sizes` elements of the same dtype and kind of base."""
        if hasattr(self.base, "new_empty"):
            return Reinterpreted(self.base.new_empty(sizes), self.blkc_dtype, self.dtype)
        return Reinterpreted(numpy.empty(sizes, self.base.dtype), self.blkc_dtype, self.dtype)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> numpy.ndarray:
        view = as_array(self)
        assert view is not None
        return view if dtype is None else view.astype(dtype, copy=bool(copy))

    def __repr__(self) -> str:
        return f"blkc.reinterpret({self.base!r}, {self.blkc_dtype.name})"


def _as_blkc_dtype(spec: Any) -> dtypes.DType:
    """`spec` as a blkc dtype: one of blkc's, a `tl` dtype, a NumPy or torch dtype, a name."""
    if hasattr(spec, "blkc_dtype"):  # a `tl` dtype
        if spec.blkc_dtype is None:
            raise dtypes.UnknownDTypeError(
                f"blkc has no {spec!r} ({spec}): no kernel reads it (blkc's fp8 dtypes are "
                "float8e4nv and float8e5)"
            )
        return spec.blkc_dtype
    if type(spec).__module__ == "torch":
        return dtypes.dtype(str(spec).removeprefix("torch."))
    return dtypes.dtype(spec)


def reinterpret(value: Any, dtype: Any) -> Any:
    """The memory of `value` (an array, a tensor, or another `reinterpret` view) seen as
    `dtype`, without copying: ``blkc.reinterpret(x, tl.uint8)`` passes an int8 array to a
    kernel that reads uint8. `dtype` is a `tl` dtype, a blkc, NumPy or torch dtype or a
    name, of the same item size as `value`'s (a ValueError otherwise). Reinterpreting as
    the original dtype gives the original object back."""
    base = value.base if isinstance(value, Reinterpreted) else value
    found = dtype_and_shape(base)
    if found is None:
        raise TypeError(f"cannot reinterpret {type(base).__name__}: pass an array or a tensor")
    wanted = _as_blkc_dtype(dtype)
    if wanted.numpy == found[0]:
        return base
    have, want = found[0].itemsize, wanted.numpy.itemsize
    if have != want:
        raise ValueError(
            f"cannot reinterpret {found[0]} ({have}-byte items) as {wanted.name} "
            f"({want}-byte items): the item sizes must be equal"
        )
    return Reinterpreted(base, wanted, dtype if hasattr(dtype, "blkc_dtype") else None)


def as_array(value: object, where: str = "an argument") -> numpy.ndarray | None:
    """`value` as a NumPy array without copying, or None when it is not array-like. `where`
    names the argument in errors."""
    if isinstance(value, numpy.ndarray):
        return value
    if is_torch_tensor(value):
        return _torch_view(value, where)
    if isinstance(value, Reinterpreted):
        base = as_array(value.base, where)
        assert base is not None
        return base.view(value._numpy)
    if hasattr(value, "__array_interface__"):
        return numpy.asarray(value)
    if hasattr(value, "__dlpack__"):
        return numpy.from_dlpack(value)
    return None


def dtype_and_shape(value: object) -> tuple[numpy.dtype[Any], tuple[int, ...]] | None:
    """The element dtype and shape of an array-like `value` (None for anything else),
    without reading its memory: a tensor on any device has them."""
    if isinstance(value, numpy.ndarray):
        return value.dtype, value.shape
    if is_torch_tensor(value):
        return _from_torch_dtype(value.dtype), tuple(value.shape)  # type: ignore[attr-defined]
    if isinstance(value, Reinterpreted):
        return value._numpy, value.shape
    array = as_array(value)
    return None if array is None else (array.dtype, array.shape)


__all__ = ["Reinterpreted", "as_array", "dtype_and_shape", "reinterpret"]
