"""Launch stubs: a launch of a compiled kernel checked and run in native code.

A launch through Python (`launch.convert_args`, `run_grid`) costs tens of microseconds:
it looks at every argument through NumPy's Python API, builds ctypes values, a bounds
table and a thread plan. Once a kernel variant has been launched, a *stub* does the same
for later launches of that variant in about a microsecond: a function JIT-compiled for
the variant's arguments, called with the grid and the launch's positional arguments
(``stub(g0, g1, g2, *args)``, as a builtin function through CPython's vectorcall, so no
ctypes conversion runs). It reads each argument where CPython and NumPy keep it (the
object's type, an array's data pointer, dimensions, dtype descriptor and flags, an int's
value through the C API) and checks that the argument is what the variant was compiled
for and what `convert_args` would accept:

- an array: exactly a `numpy.ndarray`, of the pointee's dtype (its descriptor is the
  dtype's own), contiguous, writeable where the kernel stores through it;
- an int: exactly an `int` in the range and with the divisibility by 16 the variant's
  specialization says (and not 1, which specializes, unless the parameter does not);
- a bool or a float: exactly a `bool` or a `float`;
- a compiled-in constant: equal to the variant's value, of the same type;
- a tuple (`x.shape`, a NamedTuple of arrays): exactly the variant's class, of its length,
  each element checked as the one it flattens into (nested tuples too).

Then it fills the bounds table (on its stack), picks the variant whose arrays may or may
not overlap, and, when the work is small (one program, or arrays of at most
`INLINE_BYTES` bytes in all), runs the grid on the calling thread; larger grids run on the
native pool (`Pooled`), or, where one thread is allowed, on the calling thread with the
GIL released. It returns None when the launch ran, True when it ran and recorded a failed
assertion, 2 when it skipped an access outside the arrays (the caller raises these as a
Python launch does: the out-of-bounds record is the launch's own, in its bounds table), and
False when it did nothing: any argument it does not recognise, a large launch while a
share of the cores is active (`launch.threads_per_launch`) or without a native pool, or a
variant not compiled yet. The caller then takes the Python path, which raises the same
errors as always. A stub never raises and never runs a launch the Python path would
refuse.

The object layouts read here are CPython's (64-bit, 3.11 and later: `ob_type` at 8) and
NumPy's `PyArrayObject_fields`; `available()` checks them on a probe array once, and
without them no stub is built.
"""

from __future__ import annotations

import ctypes
import itertools
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy

from blkc.runtime import elf_loader
from blkc.runtime.launch import CHUNKS_PER_WORKER, CONTIGUOUS_BYTES, INLINE_BYTES
from blkc.runtime.llvm_ir import ir

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType()
DOUBLE = ir.DoubleType()

# CPython and NumPy object layouts (64-bit).
_OB_TYPE = 8
_ARRAY_DATA, _ARRAY_ND, _ARRAY_DIMS, _ARRAY_DESCR, _ARRAY_FLAGS = 16, 24, 32, 56, 64
_TUPLE_SIZE, _TUPLE_ITEMS = 16, 24
_C_CONTIGUOUS, _F_CONTIGUOUS, _WRITEABLE = 0x1, 0x2, 0x400

_FALLBACK, _DONE, _FAILED, OUT_OF_BOUNDS = False, None, True, 2
"""What a stub returns: nothing ran / the launch ran / it ran and an assertion failed / it
ran and skipped an access outside the arrays."""


@cache
def available() -> bool:
    """Whether this interpreter lays its objects out as the stubs read them."""
    if sys.implementation.name != "cpython" or ctypes.sizeof(ctypes.c_void_p) != 8:
        return False
    probe = numpy.zeros((3, 5), numpy.float32)[:, :4]

    def word(offset: int, kind: type = ctypes.c_uint64) -> int:
        return kind.from_address(id(probe) + offset).value  # type: ignore[attr-defined,no-any-return]

    dims = word(_ARRAY_DIMS)
    pair = (probe, dims)
    return (
        ctypes.c_int64.from_address(id(pair) + _TUPLE_SIZE).value == 2
        and ctypes.c_uint64.from_address(id(pair) + _TUPLE_ITEMS + 8).value == id(dims)
        and word(_OB_TYPE) == id(numpy.ndarray)
        and word(_ARRAY_DATA) == probe.__array_interface__["data"][0]
        and word(_ARRAY_ND, ctypes.c_int32) == 2
        and ctypes.c_int64.from_address(dims).value == 3
        and ctypes.c_int64.from_address(dims + 8).value == 4
        and word(_ARRAY_DESCR) == id(probe.dtype)
        and not word(_ARRAY_FLAGS, ctypes.c_int32) & (_C_CONTIGUOUS | _F_CONTIGUOUS)
        and bool(word(_ARRAY_FLAGS, ctypes.c_int32) & _WRITEABLE)
    )


def abi_type(text: str) -> ir.Type:
    """The LLVM type a launcher takes a parameter of blk type `text` as (what
    `llvm_emitter.abi_type` gives, read from the type's text: no xDSL needed)."""
    if text.startswith("!blk.ptr<"):
        return PTR
    if text in ("f32",):
        return ir.FloatType()
    if text.startswith(("f", "bf")):  # f64, and small floats, which travel as doubles
        return DOUBLE
    digits = text.lstrip("sui")
    if not digits.isdigit():
        raise ValueError(f"no launch ABI for parameter type {text}")
    return ir.IntType(int(digits))


@dataclass(frozen=True)
class Arg:
    """What a stub accepts for one positional argument, and where it goes."""

    kind: str
    """``array``, ``tensor`` (torch's), ``int``, ``bool``, ``float``, ``constant`` or
    ``tuple``."""
    runtime: int | None = None
    """The launcher parameter it becomes (None: a compiled-in constant)."""
    dtype: Any = None
    """An array's NumPy dtype, a tensor's torch dtype."""
    written: bool = False
    """Whether the kernel may store through the array."""
    bounds: tuple[int, int] = (0, 0)
    """An int's accepted range, inclusive."""
    excluded: tuple[int, int] = (0, -1)
    """A range inside `bounds` it must not be in (a narrower specialization's)."""
    not_one: bool = False
    """An int equal to 1 specializes: the stub leaves it to the Python path."""
    multiple_of_16: bool | None = None
    """An int's divisibility by 16, where the specialization depends on it."""
    value: Any = None
    """A constant's value; for a tensor or a tuple, its class (`torch.Tensor`, `tuple`, a
    NamedTuple)."""
    parts: tuple[Arg, ...] = ()
    """A tuple's elements."""


def runtime_arg(t: str, value: Any, at: int, written: bool, **int_fields: Any) -> Arg | None:
    """What a stub accepts for `value`, passed as launcher parameter `at` of blk type `t`
    (IR text), as it came: an exact NumPy array or a torch CPU tensor of its dtype for a
    pointer (`written`: the kernel may store through it), an exact bool, an exact int in
    the type's range (`int_fields`: the other `Arg` fields of a specialization) or an exact
    float; None for anything else."""
    from blkc.runtime.arrays import is_torch_tensor

    if t.startswith("!blk.ptr"):
        if type(value) is numpy.ndarray:
            return Arg("array", at, dtype=value.dtype, written=written)
        if is_torch_tensor(value) and value.is_cpu:
            return Arg("tensor", at, dtype=value.dtype, value=type(value))
        return None
    if t == "i1" and type(value) is bool:
        return Arg("bool", at)
    if t in ("i32", "i64") and type(value) is int:
        top = 2 ** (int(t[1:]) - 1)
        return Arg("int", at, bounds=(-top, top - 1), **int_fields)
    if t in ("f32", "f64") and type(value) is float:
        return Arg("float", at)
    return None


@dataclass
class Stub:
    """A compiled stub; `call(g0, g1, g2, *args)` as the module's docstring says."""

    call: Any
    keep: list[Any]
    """What the stub's code refers to: its compiled module and the objects whose addresses
    it compares."""
    variants: frozenset[bool] = frozenset()
    """The compiled variants it launches (True: the one for arrays that do not overlap);
    a launch needing another is left to Python."""


_METH_FASTCALL = 0x0080


class _MethodDef(ctypes.Structure):
    _fields_ = [  # noqa: RUF012 - ctypes' declaration
        ("ml_name", ctypes.c_char_p),
        ("ml_meth", ctypes.c_void_p),
        ("ml_flags", ctypes.c_int),
        ("ml_doc", ctypes.c_char_p),
    ]


def _builtin(address: int, name: str, keep: list[Any]) -> Any:
    """A builtin function object whose C implementation is at `address`
    (``PyObject *f(PyObject *self, PyObject *const *args, Py_ssize_t nargs)``). Its `self`
    is `keep`, which holds whatever the code needs alive (its object code): the function
    keeps it alive as long as it lives.

    Its method definition is never freed (a few dozen bytes per stub): a builtin function
    does not own the definition it points to, and CPython reads it whenever it traverses
    or frees the function. A definition owned by anything else could be freed first: by
    the garbage collector, which breaks a cycle through the function by clearing its
    objects in no set order (the function's deallocation then read freed memory, which
    crashed the process), or at interpreter exit, where module dictionaries are cleared
    before the last collection traverses the functions still alive."""
    definition = _MethodDef(name.encode(), address, _METH_FASTCALL, None)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(definition))  # a reference never released
    new = ctypes.pythonapi.PyCFunction_NewEx
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.POINTER(_MethodDef), ctypes.py_object, ctypes.py_object]
    return new(ctypes.byref(definition), keep, None)


def _c_api(name: str) -> int:
    return ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value or 0


_serial = itertools.count()
_lock = threading.Lock()


class _Emitter:
    """Emits one stub's LLVM IR (see the module's docstring)."""

    def __init__(
        self,
        args: Sequence[Arg],
        abi: Sequence[ir.Type],
        launchers: dict[bool, int],
        failures_address: int,
        threshold: int,
        inline_always: bool,
        pool: Pooled | None = None,
        suffix: str = "",
        lean: bool = False,
    ):
        self.args = list(args)
        self.lean = lean
        self.pool = pool
        self.abi = list(abi)
        self.module = ir.Module(name="blkc_stub")
        self.suffix = suffix
        self.name = f"blkc_stub{suffix}"
        self.linked: dict[str, int] = {}
        """The external symbols the stub refers to, and their addresses in this process:
        everything process-specific is one, so that the IR text is the same in every
        process (`build` caches the stub's object code under it)."""
        self._names: dict[int, ir.GlobalValue] = {}
        launcher_type = ir.FunctionType(ir.VoidType(), [*self.abi, PTR, I64, I64, I32, I32, I32])
        self.launchers = {}
        for noalias, address in launchers.items():
            symbol = f"blkc.launcher.{'noalias' if noalias else 'alias'}{suffix}"
            self.launchers[noalias] = ir.Function(self.module, launcher_type, name=symbol)
            self.linked[symbol] = address
        self.failures_address = failures_address
        self.threshold = threshold
        self.inline_always = inline_always
        self.keep: list[Any] = []
        signature = ir.FunctionType(PTR, [PTR, PTR, I64])
        self.function = ir.Function(self.module, signature, name=self.name)
        self.b = ir.IRBuilder(self.function.append_basic_block("entry"))
        self.fallback = self.function.append_basic_block("fallback")

    # -- helpers -----------------------------------------------------------------------

    def api(self, name: str, result: ir.Type, params: Sequence[ir.Type]) -> ir.Function:
        """A C API function, called by its address (bound as an LLVM symbol)."""
        symbol = f"blkc.capi.{name}"  # one symbol per function, shared by every stub
        existing = self.module.globals.get(symbol)
        if isinstance(existing, ir.Function):
            return existing
        if symbol not in _symbols:
            _symbols[symbol] = _c_api(name)
        return ir.Function(self.module, ir.FunctionType(result, list(params)), name=symbol)

    def address(self, value: object) -> ir.Constant:
        """`value`'s address (the object is kept alive with the stub)."""
        self.keep.append(value)
        return self.link(id(value))

    def link(self, address: int) -> ir.Constant:
        """`address` as an i64: an external symbol of the stub's, bound to it."""
        if address not in self._names:
            symbol = f"blkc.linked.{len(self._names)}{self.suffix}"
            self._names[address] = ir.GlobalVariable(self.module, I8, name=symbol)
            self.linked[symbol] = address
        return self._names[address].ptrtoint(I64)  # type: ignore[no-any-return]

    def word(self, obj: ir.Value, offset: int, kind: ir.Type = I64) -> ir.Value:
        b = self.b
        return b.load(b.gep(obj, [ir.Constant(I64, offset)], source_etype=I8), typ=kind)

    def check(self, ok: ir.Value, label: str) -> None:
        """Go on where `ok`, else to the fallback."""
        go_on = self.function.append_basic_block(label)
        self.b.cbranch(ok, go_on, self.fallback)
        self.b.position_at_end(go_on)

    def give(self, value: object) -> None:
        """Return `value` (None, True or False), a new reference."""
        incref = self.api("Py_IncRef", ir.VoidType(), [PTR])
        obj = self.b.inttoptr(self.address(value), PTR)
        self.b.call(incref, [obj])
        self.b.ret(obj)

    def long(self, obj: ir.Value) -> ir.Value:
        """An exact int's value (the fallback where it does not fit 64 bits)."""
        b = self.b
        self.check(b.icmp_unsigned("==", self.word(obj, _OB_TYPE), self.address(int)), "int")
        overflow = b.alloca(I32)
        as_long = self.api("PyLong_AsLongLongAndOverflow", I64, [PTR, PTR])
        value = b.call(as_long, [obj, overflow])
        self.check(b.icmp_signed("==", b.load(overflow), ir.Constant(I32, 0)), "fits")
        return value

    # -- the stub ----------------------------------------------------------------------

    def emit(self) -> str:
        b = self.b
        count = ir.Constant(I64, 3 + len(self.args))
        self.check(b.icmp_signed("==", self.function.args[2], count), "counted")
        items = self.function.args[1]

        def item(index: int) -> ir.Value:
            return b.load(b.gep(items, [ir.Constant(I64, index)], source_etype=PTR), typ=PTR)

        grid = [self.long(item(axis)) for axis in range(3)]
        runtime: dict[int, ir.Value] = {}
        spans: list[tuple[int, ir.Value, ir.Value]] = []
        for position, arg in enumerate(self.args):
            self.read(item(3 + position), arg, runtime, spans)
        total = b.mul(b.mul(grid[0], grid[1]), grid[2])
        empty = self.function.append_basic_block("empty")
        work = self.function.append_basic_block("work")
        b.cbranch(b.icmp_signed("==", total, ir.Constant(I64, 0)), empty, work)
        b.position_at_end(empty)
        self.give(_DONE)
        b.position_at_end(work)
        disjoint = self.pick_launcher(spans)
        inline = ir.Constant(I1, 1)
        size = ir.Constant(I64, 0)
        for _, start, end in spans:
            size = b.add(size, b.sub(end, start))
        if self.lean:  # a launch that could stream needs the whole kernel: Python compiles it
            self.check(b.icmp_unsigned("<", size, ir.Constant(I64, self.threshold)), "lean")
        if not self.inline_always:
            small = b.icmp_unsigned("<=", size, ir.Constant(I64, INLINE_BYTES))
            inline = b.or_(small, b.icmp_signed("==", total, ir.Constant(I64, 1)))
            if self.pool is None:
                self.check(inline, "inline")
        table_type = ir.ArrayType(I64, 2 * len(self.abi) + 2)
        table = b.alloca(table_type)
        for index, start, end in spans:
            for offset, value in ((2 * index, start), (2 * index + 1, end)):
                slot = b.gep(table, [ir.Constant(I32, 0), ir.Constant(I32, offset)])
                b.store(value, slot)
        last = b.gep(table, [ir.Constant(I32, 0), ir.Constant(I32, 2 * len(self.abi))])
        b.store(ir.Constant(I64, self.threshold), last)
        record = b.gep(table, [ir.Constant(I32, 0), ir.Constant(I32, 2 * len(self.abi) + 1)])
        b.store(ir.Constant(I64, 0), record)
        failures = b.inttoptr(self.link(self.failures_address), PTR)
        before = b.load(failures, typ=I32)
        values = [runtime[i] for i in range(len(self.abi))]
        grid32 = [b.trunc(g, I32) for g in grid]
        if self.pool is None or self.inline_always:
            self.call_launcher(disjoint, [*values, table, ir.Constant(I64, 0), total, *grid32])
        else:
            here, pooled, after = (
                self.function.append_basic_block(n) for n in ("here", "pooled", "launched")
            )
            b.cbranch(inline, here, pooled)
            b.position_at_end(here)
            self.call_launcher(disjoint, [*values, table, ir.Constant(I64, 0), total, *grid32])
            b.branch(after)
            b.position_at_end(pooled)
            self.run_pooled(disjoint, values, table, total, grid32, size)
            b.branch(after)
            b.position_at_end(after)
        inside = b.icmp_unsigned("==", b.load(record, typ=I64), ir.Constant(I64, 0))
        asserted = b.icmp_unsigned("!=", before, b.load(failures, typ=I32))
        ok, outside, checked, failed = (
            self.function.append_basic_block(n) for n in ("ok", "outside", "checked", "failed")
        )
        b.cbranch(inside, checked, outside)
        b.position_at_end(outside)
        self.give(OUT_OF_BOUNDS)
        b.position_at_end(checked)
        b.cbranch(asserted, failed, ok)
        b.position_at_end(ok)
        self.give(_DONE)
        b.position_at_end(failed)
        self.give(_FAILED)
        b.position_at_end(self.fallback)
        self.give(_FALLBACK)
        return str(self.module)

    def read(
        self,
        obj: ir.Value,
        arg: Arg,
        runtime: dict[int, ir.Value],
        spans: list[tuple[int, ir.Value, ir.Value]],
    ) -> None:
        """Check argument `obj` against `arg`; the launcher parameters it gives go into
        `runtime` (by position), the bytes an array spans into `spans`."""
        if arg.kind in ("array", "tensor"):
            read = self.array if arg.kind == "array" else self.tensor
            runtime[arg.runtime], start, end = read(obj, arg)  # type: ignore[index]
            spans.append((arg.runtime, start, end))  # type: ignore[arg-type]
        elif arg.kind == "int":
            runtime[arg.runtime] = self.integer(obj, arg)  # type: ignore[index]
        elif arg.kind == "bool":
            runtime[arg.runtime] = self.boolean(obj)  # type: ignore[index]
        elif arg.kind == "float":
            runtime[arg.runtime] = self.real(obj, self.abi[arg.runtime])  # type: ignore[index]
        elif arg.kind == "tuple":
            for element, part in zip(self.tuple_items(obj, arg), arg.parts, strict=True):
                self.read(element, part, runtime, spans)
        else:
            self.constant(obj, arg.value)

    def tuple_items(self, obj: ir.Value, arg: Arg) -> list[ir.Value]:
        """The elements of a tuple of exactly `arg`'s class and length (borrowed: the
        tuple holds them for the launch)."""
        b = self.b
        self.check(
            b.icmp_unsigned("==", self.word(obj, _OB_TYPE), self.address(arg.value)), "tuple"
        )
        size = self.word(obj, _TUPLE_SIZE)
        self.check(b.icmp_signed("==", size, ir.Constant(I64, len(arg.parts))), "length")
        return [self.word(obj, _TUPLE_ITEMS + 8 * index, PTR) for index in range(len(arg.parts))]

    def array(self, obj: ir.Value, arg: Arg) -> tuple[ir.Value, ir.Value, ir.Value]:
        b = self.b
        self.check(
            b.icmp_unsigned("==", self.word(obj, _OB_TYPE), self.address(numpy.ndarray)), "array"
        )
        descr = numpy.dtype(arg.dtype)
        self.check(
            b.icmp_unsigned("==", self.word(obj, _ARRAY_DESCR), self.address(descr)), "dtype"
        )
        flags = self.word(obj, _ARRAY_FLAGS, I32)
        contiguous = b.and_(flags, ir.Constant(I32, _C_CONTIGUOUS | _F_CONTIGUOUS))
        self.check(b.icmp_unsigned("!=", contiguous, ir.Constant(I32, 0)), "contiguous")
        if arg.written:
            writeable = b.and_(flags, ir.Constant(I32, _WRITEABLE))
            self.check(b.icmp_unsigned("!=", writeable, ir.Constant(I32, 0)), "writeable")
        data = self.word(obj, _ARRAY_DATA)
        rank = b.sext(self.word(obj, _ARRAY_ND, I32), I64)
        dims = self.word(obj, _ARRAY_DIMS, PTR)
        # The element count: the product of the dimensions.
        head = b.block
        loop, body, done = (self.function.append_basic_block(n) for n in ("dims", "dim", "sized"))
        b.branch(loop)
        b.position_at_end(loop)
        k = b.phi(I64)
        product = b.phi(I64)
        k.add_incoming(ir.Constant(I64, 0), head)
        product.add_incoming(ir.Constant(I64, 1), head)
        b.cbranch(b.icmp_signed("<", k, rank), body, done)
        b.position_at_end(body)
        extent = b.load(b.gep(dims, [k], source_etype=I64), typ=I64)
        k.add_incoming(b.add(k, ir.Constant(I64, 1)), body)
        product.add_incoming(b.mul(product, extent), body)
        b.branch(loop)
        b.position_at_end(done)
        size = b.mul(product, ir.Constant(I64, descr.itemsize))
        return b.inttoptr(data, PTR), data, b.add(data, size)

    def attribute(self, obj: ir.Value, name: str, call: bool = False) -> ir.Value:
        """`obj.name` (or `obj.name()`), a new reference; the fallback where Python raised
        (the exception cleared)."""
        b = self.b
        get = self.api("PyObject_GetAttr", PTR, [PTR, PTR])
        value = b.call(get, [obj, b.inttoptr(self.address(name), PTR)])
        if call:
            bound = value
            self.check_not_null(bound, f"has_{name}")
            value = b.call(self.api("PyObject_CallNoArgs", PTR, [PTR]), [bound])
            self.release(bound)
        self.check_not_null(value, name)
        return value

    def check_not_null(self, value: ir.Value, label: str) -> None:
        b = self.b
        ok, failed = (self.function.append_basic_block(f"{label}_{n}") for n in ("ok", "raised"))
        b.cbranch(b.icmp_unsigned("!=", b.ptrtoint(value, I64), ir.Constant(I64, 0)), ok, failed)
        b.position_at_end(failed)
        b.call(self.api("PyErr_Clear", ir.VoidType(), []), [])
        b.branch(self.fallback)
        b.position_at_end(ok)

    def release(self, value: ir.Value) -> None:
        self.b.call(self.api("Py_DecRef", ir.VoidType(), [PTR]), [value])

    def tensor(self, obj: ir.Value, arg: Arg) -> tuple[ir.Value, ir.Value, ir.Value]:
        """A torch CPU tensor, of exactly the class the stub was built for (`torch.Tensor`,
        `nn.Parameter`), of the variant's dtype, contiguous:
        its data pointer and the bytes it spans (through its Python attributes)."""
        b = self.b
        kind = self.word(obj, _OB_TYPE)
        self.check(b.icmp_unsigned("==", kind, self.address(arg.value)), "tensor")

        def same(value: ir.Value, expected: object, label: str) -> None:
            matches = b.icmp_unsigned("==", b.ptrtoint(value, I64), self.address(expected))
            self.release(value)
            self.check(matches, label)

        same(self.attribute(obj, "dtype"), arg.dtype, "tensor_dtype")
        same(self.attribute(obj, "is_cpu"), True, "on_cpu")
        same(self.attribute(obj, "is_contiguous", call=True), True, "tensor_contiguous")
        pointer = self.attribute(obj, "data_ptr", call=True)
        data = self.long(pointer)
        self.release(pointer)
        size = self.attribute(obj, "nbytes")
        nbytes = self.long(size)
        self.release(size)
        return b.inttoptr(data, PTR), data, b.add(data, nbytes)

    def integer(self, obj: ir.Value, arg: Arg) -> ir.Value:
        b = self.b
        value = self.long(obj)
        lo, hi = (ir.Constant(I64, v) for v in arg.bounds)
        inside = b.and_(b.icmp_signed(">=", value, lo), b.icmp_signed("<=", value, hi))
        if arg.excluded[0] <= arg.excluded[1]:
            x_lo, x_hi = (ir.Constant(I64, v) for v in arg.excluded)
            narrower = b.and_(b.icmp_signed(">=", value, x_lo), b.icmp_signed("<=", value, x_hi))
            inside = b.and_(inside, b.not_(narrower))
        if arg.not_one:
            inside = b.and_(inside, b.icmp_signed("!=", value, ir.Constant(I64, 1)))
        if arg.multiple_of_16 is not None:
            low_bits = b.and_(value, ir.Constant(I64, 15))
            divisible = b.icmp_signed("==", low_bits, ir.Constant(I64, 0))
            inside = b.and_(inside, divisible if arg.multiple_of_16 else b.not_(divisible))
        self.check(inside, "in_range")
        wanted = self.abi[arg.runtime]  # type: ignore[index]
        return value if wanted == I64 else b.trunc(value, wanted)

    def boolean(self, obj: ir.Value) -> ir.Value:
        b = self.b
        address = b.ptrtoint(obj, I64)
        true = b.icmp_unsigned("==", address, self.address(True))
        false = b.icmp_unsigned("==", address, self.address(False))
        self.check(b.or_(true, false), "bool")
        return true

    def real(self, obj: ir.Value, wanted: ir.Type) -> ir.Value:
        b = self.b
        self.check(b.icmp_unsigned("==", self.word(obj, _OB_TYPE), self.address(float)), "float")
        as_double = self.api("PyFloat_AsDouble", DOUBLE, [PTR])
        value = b.call(as_double, [obj])
        return value if wanted == DOUBLE else b.fptrunc(value, wanted)

    def constant(self, obj: ir.Value, value: Any) -> None:
        b = self.b
        if type(value) is int and -(2**63) <= value < 2**63:
            self.check(b.icmp_signed("==", self.long(obj), ir.Constant(I64, value)), "same")
            return
        if type(value) is float and value == value:
            self.check(b.icmp_unsigned("==", self.word(obj, _OB_TYPE), self.address(float)), "f")
            as_double = self.api("PyFloat_AsDouble", DOUBLE, [PTR])
            same = b.fcmp_ordered("==", b.call(as_double, [obj]), ir.Constant(DOUBLE, value))
            self.check(same, "same")
            return
        if type(value) is str:
            self.check(b.icmp_unsigned("==", self.word(obj, _OB_TYPE), self.address(str)), "s")
            compare = self.api("PyUnicode_Compare", I32, [PTR, PTR])
            text = b.inttoptr(self.address(value), PTR)
            self.check(b.icmp_signed("==", b.call(compare, [obj, text]), ir.Constant(I32, 0)), "s")
            return
        # None, bools, dtypes: the very object.
        same = b.icmp_unsigned("==", b.ptrtoint(obj, I64), self.address(value))
        self.check(same, "same")

    def pick_launcher(self, spans: list[tuple[int, ir.Value, ir.Value]]) -> ir.Value:
        """Whether no two arrays share bytes (then the noalias variant runs); the fallback
        where the variant needed is not compiled."""
        b = self.b
        disjoint = ir.Constant(I1, 1)
        for (_, a0, a1), (_, b0, b1) in itertools.combinations(spans, 2):
            overlap = b.and_(b.icmp_unsigned("<", a0, b1), b.icmp_unsigned("<", b0, a1))
            disjoint = b.and_(disjoint, b.not_(overlap))
        if True not in self.launchers:
            self.check(b.not_(disjoint), "aliased")
        if False not in self.launchers:
            self.check(disjoint, "disjoint")
        return disjoint

    def run_pooled(
        self,
        disjoint: ir.Value,
        values: list[ir.Value],
        table: ir.Value,
        total: ir.Value,
        grid32: list[ir.Value],
        size: ir.Value,
    ) -> None:
        """Run the grid on the native pool (`runtime.native_pool`), the GIL released, on
        as many threads as the launch may use (`launch.stub_threads`, the variant's
        `num_cpu_threads`, the programs), in chunks as `launch.chunk_count` says for
        arrays of `size` bytes in all; on the calling thread, the GIL released, where
        that is one; the fallback where the cap is 0 (a share of the cores is active, or
        `BLKC_NUM_THREADS` is malformed: the Python path decides)."""
        b, pool = self.b, self.pool
        assert pool is not None
        allowed = b.sext(b.load(b.inttoptr(self.link(pool.cap_address), PTR), typ=I32), I64)
        self.check(b.icmp_signed(">=", allowed, ir.Constant(I64, 1)), "threads")
        threads = ir.Constant(I64, pool.threads)
        for bound in (allowed, total):
            threads = b.select(b.icmp_signed("<", bound, threads), bound, threads)
        save = self.api("PyEval_SaveThread", PTR, [])
        restore = self.api("PyEval_RestoreThread", ir.VoidType(), [PTR])
        alone, shared, done = (
            self.function.append_basic_block(n) for n in ("alone", "shared", "pooled_done")
        )
        b.cbranch(b.icmp_signed("<", threads, ir.Constant(I64, 2)), alone, shared)
        b.position_at_end(alone)
        state = b.call(save, [])
        self.call_launcher(disjoint, [*values, table, ir.Constant(I64, 0), total, *grid32])
        b.call(restore, [state])
        b.branch(done)
        b.position_at_end(shared)
        argv = b.alloca(ir.ArrayType(I64, max(1, len(values))))
        for index, value in enumerate(values):  # 8-byte slots, as `_args` reads them
            slot = b.gep(argv, [ir.Constant(I32, 0), ir.Constant(I32, index)])
            b.store(_slot_bits(b, value), slot)
        contiguous = b.icmp_unsigned("<", size, ir.Constant(I64, CONTIGUOUS_BYTES))
        per_worker = b.select(contiguous, ir.Constant(I64, 1), ir.Constant(I64, CHUNKS_PER_WORKER))
        per_thread = b.mul(threads, per_worker)  # as `launch.chunk_count`
        chunks = b.select(b.icmp_signed("<", total, per_thread), total, per_thread)
        seats = b.trunc(b.sub(threads, ir.Constant(I64, 1)), I32)
        run_type = ir.FunctionType(ir.VoidType(), [PTR, PTR, PTR, I64, I64, I32, I32, I32, I32])
        run = b.inttoptr(self.link(pool.run_address), run_type.as_pointer())
        packed = [self.link(pool.packed[noalias]) for noalias in (True, False)
                  if noalias in pool.packed]  # fmt: skip
        target = packed[0]
        if len(packed) == 2:
            target = b.select(disjoint, packed[0], packed[1])
        state = b.call(save, [])
        b.call(run, [b.inttoptr(target, PTR), argv, table, total, chunks, *grid32, seats])
        b.call(restore, [state])
        b.branch(done)
        b.position_at_end(done)

    def call_launcher(self, disjoint: ir.Value, args: list[ir.Value]) -> None:
        b = self.b
        if len(self.launchers) == 1:
            b.call(next(iter(self.launchers.values())), args)
            return
        with b.if_else(disjoint) as (noalias, aliased):
            with noalias:
                b.call(self.launchers[True], args)
            with aliased:
                b.call(self.launchers[False], args)


_symbols: dict[str, int] = {}


def _slot_bits(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    """`value` as the i64 of its 8-byte slot (`native_pool.pack_arguments`): addresses and
    integers sign-extended, a float in the low 4 bytes, a double's bits."""
    t = value.type
    if isinstance(t, ir.PointerType):
        return b.ptrtoint(value, I64)
    if isinstance(t, ir.FloatType):
        return b.zext(b.bitcast(value, I32), I64)
    if isinstance(t, ir.DoubleType):
        return b.bitcast(value, I64)
    return value if t == I64 else b.sext(value, I64)


@dataclass(frozen=True)
class Pooled:
    """What a stub needs to run large grids on the native pool: the packed launcher of
    each variant (`<launcher>_args`), `blkc_pool_run`'s address, the address of the int32
    thread cap stubs read (`launch.stub_threads`), and the variant's own thread count."""

    packed: dict[bool, int]
    run_address: int
    cap_address: int
    threads: int


def build(
    args: Sequence[Arg],
    abi: Sequence[ir.Type],
    launchers: dict[bool, int],
    failures_address: int,
    threshold: int,
    inline_always: bool = False,
    pool: Pooled | None = None,
    owners: Sequence[object] = (),
    lean: bool = False,
) -> Stub:
    """Compile the stub of one kernel variant: `args` describe the positional arguments,
    `abi` the launcher's own parameters, `launchers` the address of each compiled variant
    (True: the one for arrays that do not overlap), `failures_address` the count of failed
    assertions (int32); `owners` hold the code at those addresses, and the stub's function
    keeps them alive (it may outlive whatever else held them). With `lean` (the launchers
    are a kernel's lean form, `launch.without_stream_copies`), launches whose arrays span
    `threshold` bytes or more in all are left to Python.

    Where `elf_loader` loads objects, the stub's object code is kept in the disk cache
    under its IR text, which names every address it uses by a symbol (`_Emitter.link`):
    a new process builds the stubs of its cached kernels without LLVM."""
    options = (args, abi, launchers, failures_address, threshold, inline_always, pool)
    if elf_loader.supported():
        emitter = _Emitter(*options, lean=lean)
        text = emitter.emit()
        try:
            code = _object_code(text)
            resolve = _resolver(emitter.linked)
            loaded = elf_loader.load(code, resolve)
        except (elf_loader.UnsupportedObject, elf_loader.DamagedObject):
            pass  # loaded through LLVM below
        else:
            keep: list[Any] = [loaded, *emitter.keep, *owners]
            call = _builtin(loaded.address(emitter.name), "blkc_launch_stub", keep)
            return Stub(call, keep, frozenset(launchers))
    from blkc.runtime.jit import add_symbols, compile_ir

    with _lock:  # LLVM's symbols are the process's: each stub's are its own
        emitter = _Emitter(*options, suffix=f".{next(_serial)}", lean=lean)
        text = emitter.emit()
        add_symbols({**emitter.linked, **_symbols})
        # O1 runs these checks as fast as O2 does and builds in half the time (tens of
        # milliseconds, paid by the second launch); O0 builds faster still, but its stubs
        # take about 20 ns longer per launch.
        compiled = compile_ir(text, opt=_OPT)
    keep = [compiled, *emitter.keep, *owners]
    call = _builtin(compiled.address(emitter.name), "blkc_launch_stub", keep)
    return Stub(call, keep, frozenset(launchers))


_OPT = 1
"""The LLVM optimization level of stubs (see `build`)."""


def _resolver(linked: dict[str, int]) -> Any:
    def resolve(name: str) -> int | None:
        found = linked.get(name) or _symbols.get(name)
        return found if found is not None else elf_loader.symbol_address(name)

    return resolve


def _object_code(text: str) -> bytes:
    """The object code of a stub's IR: from the disk cache, else compiled and stored."""
    import hashlib

    from blkc.runtime import cache

    key = cache.key("launch-stub", hashlib.sha256(text.encode()).hexdigest(), _OPT)
    found = cache.load_binary(key, "stub")
    if found is not None:
        return found[1]
    from blkc.runtime.jit import object_code

    code = object_code(text, _OPT)
    cache.store_binary(key, "stub", text, code)
    return code
