"""Launching PTX kernels through the CUDA driver API (`cuda-python`), where a GPU exists.

Arguments: objects exposing `__cuda_array_interface__` (CuPy, Numba, PyTorch CUDA
tensors) are device arrays, passed as pointers; NumPy arrays are copied to the device
before the launch and back after it (a convenience for tests, not for speed); numbers
are scalars of the parameter's type (small floats travel as float64, as on the CPU).
Every pointer must be 16-byte aligned (the driver's allocations are), which the PTX may
assume. `available()` says whether a launch can work here; without `cuda-python`, a
driver or a device, a launch raises RuntimeError.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy
from xdsl.ir import Attribute

from blkc.dialects.types import PtrType
from blkc.runtime import launch as host_launch

if TYPE_CHECKING:
    from blkc.runtime.gpu_kernel import GpuKernel

_lock = threading.Lock()
_functions: dict[tuple[int, str], Any] = {}


@cache
def _driver() -> Any:
    """`cuda.bindings.driver`, initialized, with the primary context of device 0 current."""
    try:
        from cuda.bindings import driver
    except ImportError as err:
        raise RuntimeError(
            "launching on the GPU needs cuda-python (pip install cuda-python)"
        ) from err
    _check(driver, driver.cuInit(0))
    (count,) = _check(driver, driver.cuDeviceGetCount())
    if count == 0:
        raise RuntimeError("no CUDA device")
    (device,) = _check(driver, driver.cuDeviceGet(0))
    (context,) = _check(driver, driver.cuDevicePrimaryCtxRetain(device))
    _check(driver, driver.cuCtxSetCurrent(context))
    return driver


def _check(driver: Any, result: tuple[Any, ...]) -> tuple[Any, ...]:
    status, *values = result
    if status != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error: {status}")
    return tuple(values)


def available() -> bool:
    """Whether kernels can be launched here (cuda-python, a driver and a device)."""
    try:
        _driver()
    except RuntimeError:
        return False
    return True


def _function(program: GpuKernel) -> Any:
    driver = _driver()
    key = (id(program), program.name)
    with _lock:
        if key not in _functions:
            (module,) = _check(driver, driver.cuModuleLoadData(program.ptx.encode() + b"\0"))
            (fn,) = _check(driver, driver.cuModuleGetFunction(module, program.name.encode()))
            _functions[key] = fn
        return _functions[key]


def _device_pointer(
    driver: Any,
    value: object,
    copies: list[tuple[Any, int, int]],
    written: bool,
    where: str,
) -> int:
    """The device address of `value`: its own, or that of a copy of a host array (copied
    back after the launch, so one the kernel writes must be writeable)."""
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        address = int(interface["data"][0])
    else:
        array = host_launch.as_array(value)
        assert array is not None
        if written and not array.flags.writeable:
            raise TypeError(
                f"{where} is read-only, but the kernel stores through it: pass a writeable array"
            )
        # The bytes the elements span (a strided view's gaps too), at the same offsets.
        first, end = host_launch.array_span(array)
        (address,) = _check(driver, driver.cuMemAlloc(max(end - first, 1)))
        _check(driver, driver.cuMemcpyHtoD(address, first, end - first))
        copies.append((address, first, end))
        address = int(address) + (array.ctypes.data - first)
    if address % 16:
        raise ValueError("device arrays passed to blkc kernels must be 16-byte aligned")
    return address


def launch(
    program: GpuKernel,
    params: Sequence[Attribute],
    grid: tuple[int, int, int],
    args: Sequence[object],
    writes: Sequence[bool] = (),
) -> None:
    """Run `program` (whose parameters have types `params`) over `grid` (one CTA per
    program) and wait for it. A host array for a parameter the kernel writes (`writes`)
    must be writeable: it is copied back after the launch."""
    name = program.name
    if len(args) != len(params):
        raise TypeError(f"kernel '{name}' takes {len(params)} arguments, got {len(args)}")
    driver = _driver()
    fn = _function(program)
    scalar_params = [t for t in params if not isinstance(t, PtrType)]
    scalar_args = [a for a, t in zip(args, params, strict=True) if not isinstance(t, PtrType)]
    scalars = iter(host_launch.convert_args(name, scalar_params, scalar_args).values)
    copies: list[tuple[Any, int, int]] = []
    values: list[Any] = []
    for index, (arg, t) in enumerate(zip(args, params, strict=True)):
        if isinstance(t, PtrType):
            _check_dtype(name, index, arg, t)
            written = index < len(writes) and writes[index]
            where = f"argument {index} of kernel '{name}'"
            values.append(ctypes.c_void_p(_device_pointer(driver, arg, copies, written, where)))
        else:
            values.append(next(scalars))
    pointers = numpy.array([ctypes.addressof(v) for v in values], dtype=numpy.uint64)
    try:
        if all(grid):
            _check(
                driver,
                driver.cuLaunchKernel(
                    fn, *grid, program.threads, 1, 1, 0, 0, pointers.ctypes.data, 0
                ),
            )
            _check(driver, driver.cuCtxSynchronize())
    finally:
        for address, first, end in copies:
            _check(driver, driver.cuMemcpyDtoH(first, address, end - first))
            _check(driver, driver.cuMemFree(address))


def _check_dtype(name: str, index: int, arg: object, t: PtrType) -> None:
    from blkc import dtypes

    interface = getattr(arg, "__cuda_array_interface__", None)
    array = host_launch.as_array(arg) if interface is None else None
    if interface is None and array is None:
        raise TypeError(f"argument {index} of kernel '{name}' is a pointer: pass an array")
    found = numpy.dtype(interface["typestr"]) if interface is not None else array.dtype  # type: ignore[union-attr]
    want = dtypes.from_xdsl(t.pointee).numpy
    if found != want:
        raise TypeError(
            f"argument {index} of kernel '{name}' points to {want}, but the array holds {found}"
        )
