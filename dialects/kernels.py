"""Finding kernels in a module: a kernel is a `func.func` with the `blk.kernel` attribute."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from blkc.dialects.blk import KERNEL_ATTR


def kernel_functions(module: ModuleOp) -> list[func.FuncOp]:
    """Every kernel of `module`, in order."""
    return [
        op for op in module.walk() if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes
    ]


def find_kernel(module: ModuleOp, name: str | None) -> func.FuncOp:
    """The kernel named `name`, or the only kernel when `name` is None; a ValueError that
    lists the kernels otherwise."""
    kernels = kernel_functions(module)
    names = ", ".join(k.sym_name.data for k in kernels) or "none"
    if name is None:
        if len(kernels) != 1:
            many = f"several kernels ({names}): name one" if kernels else "no kernel"
            raise ValueError(
                f"the module has {many} (a kernel is a func.func with the blk.kernel attribute)"
            )
        return kernels[0]
    for kernel in kernels:
        if kernel.sym_name.data == name:
            return kernel
    raise ValueError(f"no kernel '{name}' (kernels: {names})")


__all__ = ["find_kernel", "kernel_functions"]
