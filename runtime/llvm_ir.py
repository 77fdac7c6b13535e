"""llvmlite's IR builder, ready for threads that emit IR at once.

llvmlite fills the table it escapes string constants with on first use, and not
atomically: threads emitting IR at once (kernels compiled from several threads, launch
stubs) read it half filled (a KeyError). Importing this module fills it. It imports no
LLVM binding: a launch stub found in the disk cache is emitted (its text is its key) and
loaded without one.
"""

import llvmlite.ir as ir

str(ir.Constant(ir.ArrayType(ir.IntType(8), 1), bytearray(1)))

__all__ = ["ir"]
