"""The objects of `blkc.language`: dtypes, `constexpr`, `tensor`, and the built-in functions
that `@blkc.jit` kernels call.

A built-in is an ordinary Python function whose parameters are Triton's; the kernel
compiler calls it with the kernel's values (`tensor`s and compile-time Python constants)
and a hidden `_semantic` argument, through which it builds IR. Called outside a kernel, it
says so.
"""

from __future__ import annotations

import builtins as _py
import enum
import functools
import numbers
import types
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from blkc import dtypes as _dtypes
from blkc.broadcasting import BroadcastError, broadcast_shapes

if TYPE_CHECKING:
    from xdsl.ir import SSAValue

    from blkc.frontend.python import CodeGenerator

F = TypeVar("F", bound=Callable[..., Any])


# ---------------------------------------------------------------------------------------
# dtypes


def _is_named(name: str) -> Callable[[dtype], bool]:
    """Triton's ``dtype.is_<name>()``: whether a dtype is the one Triton calls `name`."""

    def predicate(self: dtype) -> bool:
        return self.name == name

    predicate.__name__ = f"is_{name}"
    predicate.__doc__ = f"Whether this dtype is {name}."
    return predicate


class dtype:  # noqa: N801 - Triton's name
    """An element type, as `tl.float32` or `x.dtype`; `str()` gives Triton's short name and
    ``tl.dtype("fp32")`` looks a dtype up by it. The name groups, predicates and
    attributes mean what Triton's do (`void` left out). Triton's fp8 variants fp8e4b15,
    fp8e4b8 and fp8e5b16 exist by name, without a blkc dtype: a kernel using one gets a
    located error."""

    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = [
        "fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64"
    ]  # fmt: skip
    LACKING_FP8 = {"fp8e4b15": (3, 15), "fp8e4b8": (3, 8), "fp8e5b16": (2, 16)}
    """The fp8 variants blkc has no arithmetic for: their fraction bits and exponent bias."""
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES: list[str] = []

    class SIGNEDNESS(enum.Enum):
        SIGNED = 0
        UNSIGNED = 1

    class KIND(enum.Enum):
        BOOLEAN = 0
        INTEGRAL = 1
        FLOATING = 2

    def __init__(self, name: Any, blkc_dtype: _dtypes.DType | None = None):
        lacking = isinstance(name, str) and name in dtype.LACKING_FP8  # no blkc dtype to look up
        if blkc_dtype is None and not isinstance(self, pointer_type) and not lacking:
            name = name.value if isinstance(name, constexpr) else name
            if not dtype.is_dtype(name):
                known = dtype.SINT_TYPES + dtype.UINT_TYPES + dtype.FP_TYPES
                raise ValueError(f"unknown dtype {name!r} (dtypes: {', '.join(known)})")
            blkc_dtype = _BY_NAME[name].blkc_dtype
        self.name = name
        self.blkc_dtype = blkc_dtype

    @staticmethod
    def is_dtype(type_str: str) -> bool:
        """Whether `type_str` is the Triton name of a dtype (``"fp32"``, ``"uint8"``)."""
        groups = (dtype.SINT_TYPES, dtype.UINT_TYPES, dtype.FP_TYPES, dtype.OTHER_TYPES)
        return _py.any(type_str in group for group in groups)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"blkc.language.{_REPR.get(self.name, self.name)}"

    def __eq__(self, other: object) -> bool:
        other = other.value if isinstance(other, constexpr) else other
        return isinstance(other, dtype) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def is_floating(self) -> bool:
        return self.name in dtype.FP_TYPES

    def is_standard_floating(self) -> bool:
        return self.name in dtype.STANDARD_FP_TYPES

    def is_int(self) -> bool:
        """True for every integer, bool (int1) included."""
        return self.is_int_signed() or self.is_int_unsigned()

    def is_int_signed(self) -> bool:
        return self.name in dtype.SINT_TYPES

    def is_int_unsigned(self) -> bool:
        """True for the unsigned integers and bool (int1), as in Triton."""
        return self.name in dtype.UINT_TYPES

    def is_bool(self) -> bool:
        return self.name == "int1"

    def is_ptr(self) -> bool:
        return False

    def is_block(self) -> bool:
        return False

    def is_fp8(self) -> bool:
        return self.name.startswith("fp8")

    is_int1 = _is_named("int1")
    is_int8 = _is_named("int8")
    is_int16 = _is_named("int16")
    is_int32 = _is_named("int32")
    is_int64 = _is_named("int64")
    is_uint8 = _is_named("uint8")
    is_uint16 = _is_named("uint16")
    is_uint32 = _is_named("uint32")
    is_uint64 = _is_named("uint64")
    is_fp8e4nv = _is_named("fp8e4nv")
    is_fp8e5 = _is_named("fp8e5")
    is_fp8e4b8 = _is_named("fp8e4b8")
    is_fp8e4b15 = _is_named("fp8e4b15")
    is_fp8e5b16 = _is_named("fp8e5b16")
    is_fp16 = _is_named("fp16")
    is_bf16 = _is_named("bf16")
    is_fp32 = _is_named("fp32")
    is_fp64 = _is_named("fp64")

    def kind(self) -> dtype.KIND:
        """BOOLEAN < INTEGRAL < FLOATING, as promotion orders kinds."""
        if self.is_bool():
            return dtype.KIND.BOOLEAN
        return dtype.KIND.INTEGRAL if self.is_int() else dtype.KIND.FLOATING

    @property
    def scalar(self) -> dtype:
        return self

    @property
    def value(self) -> dtype:
        """The dtype itself: compiled Triton hands a dtype argument to a kernel or helper
        as a `tl.constexpr`, and library code reads it as ``dtype.value``."""
        return self

    @property
    def primitive_bitwidth(self) -> int:
        if self.name in dtype.LACKING_FP8:
            return 8
        return 64 if self.blkc_dtype is None else self.blkc_dtype.width

    @property
    def itemsize(self) -> int:
        """Bytes per element (Triton's: 0 for int1, whose bitwidth is 1)."""
        return self.primitive_bitwidth // 8

    @property
    def int_bitwidth(self) -> int:
        """Integers only (Triton sets it on those alone)."""
        return self._int().width

    @property
    def int_signedness(self) -> dtype.SIGNEDNESS:
        """Integers only (Triton sets it on those alone)."""
        return dtype.SIGNEDNESS.SIGNED if self._int().signed else dtype.SIGNEDNESS.UNSIGNED

    @property
    def fp_mantissa_width(self) -> int:
        """Floats only: the stored fraction bits (fp32: 23)."""
        if self.name in dtype.LACKING_FP8:
            return dtype.LACKING_FP8[self.name][0]
        return self._float().significand_bits - 1

    @property
    def exponent_bias(self) -> int:
        """Floats only (fp32: 127)."""
        if self.name in dtype.LACKING_FP8:
            return dtype.LACKING_FP8[self.name][1]
        exponent_bits = self.primitive_bitwidth - 1 - self.fp_mantissa_width
        return (1 << (exponent_bits - 1)) - 1

    def get_int_max_value(self) -> int:
        return self._int().int_range[1]

    def get_int_min_value(self) -> int:
        return self._int().int_range[0]

    def _int(self) -> _dtypes.DType:
        if not self.is_int() or self.blkc_dtype is None:
            raise AttributeError(f"{self.name} is not an integer dtype")
        return self.blkc_dtype

    def _float(self) -> _dtypes.DType:
        if not self.is_floating() or self.blkc_dtype is None:
            raise AttributeError(f"{self.name} is not a floating-point dtype")
        return self.blkc_dtype


class pointer_type(dtype):  # noqa: N801 - Triton's name
    """The type of a pointer to `element_ty` (what ``x_ptr.dtype`` gives)."""

    def __init__(self, element_ty: dtype):
        super().__init__(f"pointer<{element_ty.name}>", None)
        self.element_ty = element_ty

    def __repr__(self) -> str:
        return f"blkc.language.pointer_type({self.element_ty!r})"

    def is_ptr(self) -> bool:
        return True


int1 = dtype("int1", _dtypes.bool_)
int8 = dtype("int8", _dtypes.int8)
int16 = dtype("int16", _dtypes.int16)
int32 = dtype("int32", _dtypes.int32)
int64 = dtype("int64", _dtypes.int64)
uint8 = dtype("uint8", _dtypes.uint8)
uint16 = dtype("uint16", _dtypes.uint16)
uint32 = dtype("uint32", _dtypes.uint32)
uint64 = dtype("uint64", _dtypes.uint64)
float16 = dtype("fp16", _dtypes.float16)
bfloat16 = dtype("bf16", _dtypes.bfloat16)
float32 = dtype("fp32", _dtypes.float32)
float64 = dtype("fp64", _dtypes.float64)
float8e4nv = dtype("fp8e4nv", _dtypes.float8_e4m3fn)
float8e5 = dtype("fp8e5", _dtypes.float8_e5m2)
float8e4b15 = dtype("fp8e4b15")
float8e4b8 = dtype("fp8e4b8")
float8e5b16 = dtype("fp8e5b16")
pi32_t = pointer_type(int32)

_ALL_DTYPES = {
    "int1": int1, "int8": int8, "int16": int16, "int32": int32, "int64": int64,
    "uint8": uint8, "uint16": uint16, "uint32": uint32, "uint64": uint64,
    "float16": float16, "bfloat16": bfloat16, "float32": float32, "float64": float64,
    "float8e4nv": float8e4nv, "float8e5": float8e5,
    "float8e4b15": float8e4b15, "float8e4b8": float8e4b8, "float8e5b16": float8e5b16,
}  # fmt: skip
_REPR = {d.name: attr for attr, d in _ALL_DTYPES.items()}
_BY_NAME = {d.name: d for d in _ALL_DTYPES.values()}
_BY_BLKC = {d.blkc_dtype: d for d in _ALL_DTYPES.values() if d.blkc_dtype is not None}


def from_blkc(d: _dtypes.DType) -> dtype:
    """The `tl` dtype of a blkc dtype."""
    return _BY_BLKC[d]


# ---------------------------------------------------------------------------------------
# constexpr and tensor


class constexpr:  # noqa: N801 - Triton's name
    """Marks a kernel parameter as a compile-time constant (``BLOCK: tl.constexpr``): each
    value compiles its own variant. ``tl.constexpr(v)`` wraps a value the same way."""

    def __init__(self, value: Any):
        value = value.value if isinstance(value, constexpr) else value
        if isinstance(value, types.FunctionType):
            # ``@tl.constexpr`` on a function: kernels call it on constants while they
            # compile, as a `blkc.constexpr_function`.
            from blkc.jitfunction import ConstexprFunction

            value = ConstexprFunction(value)
        self.value = value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.value(*args, **kwargs)

    def __eq__(self, other: object) -> constexpr:  # type: ignore[override]
        """Equal values, as a `constexpr` of a bool (Triton's)."""
        return constexpr(self.value == (other.value if isinstance(other, constexpr) else other))

    def __ne__(self, other: object) -> constexpr:  # type: ignore[override]
        return constexpr(self.value != (other.value if isinstance(other, constexpr) else other))

    def __bool__(self) -> bool:
        return bool(self.value)

    def __hash__(self) -> int:
        try:
            return hash(self.value)
        except TypeError:  # a list: unequal to every other constexpr in a set
            return id(self)

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"


class const:  # noqa: N801 - Triton's name
    """Annotates a pointer parameter whose data the kernel only reads
    (``def k(x_ptr: tl.const, ...)``). Accepted as a hint: blkc does not refuse a store
    through such a pointer, which Triton does."""


class condition:  # noqa: N801 - Triton's name
    """A `while` loop's condition with compiler hints: ``while tl.condition(i < n,
    disable_licm=True):`` loops while ``i < n``. The hint (keep loop-invariant code in the
    loop) changes nothing on the CPU."""

    def __init__(self, arg1: Any, disable_licm: Any = False):
        self.condition = arg1
        self.disable_licm = disable_licm

    def __bool__(self) -> bool:
        raise TypeError("tl.condition(...) is the test of a `while` loop only")


class tensor:  # noqa: N801 - Triton's name
    """A value of a kernel: a scalar or a block, as an SSA value of the IR being built.

    Inside a kernel, ``x.dtype``, ``x.shape``, ``x.to(dtype)``, ``x[:, None]``, operators
    and the methods mirroring `tl` functions (``x.sum(axis=0)``) work as in Triton.
    """

    def __init__(self, handle: SSAValue):
        self.handle = handle

    @property
    def shape(self) -> tuple[int, ...]:
        from blkc.dialects.types import shape_of

        return shape_of(self.handle.type)

    @property
    def numel(self) -> int:
        return functools.reduce(lambda a, b: a * b, self.shape, 1)

    @property
    def dtype(self) -> dtype:
        from blkc.dialects.types import PtrType, element_type

        elem = element_type(self.handle.type)
        if isinstance(elem, PtrType):
            return pointer_type(from_blkc(_dtypes.from_xdsl(elem.pointee)))
        return from_blkc(_dtypes.from_xdsl(elem))

    @property
    def type(self) -> dtype:
        return self.dtype

    def __repr__(self) -> str:
        return f"tensor({self.handle.type})"

    def __str__(self) -> str:
        # Triton's spelling, which `static_print` shows: "fp32[constexpr[16], constexpr[32]]"
        return f"{self.dtype}[{', '.join(repr(constexpr(d)) for d in self.shape)}]"

    def __bool__(self) -> bool:
        raise TypeError(
            "a kernel value has no truth value at compile time; `if` on it compiles a "
            "branch, but only in a @blkc.jit kernel"
        )


class PropagateNan(enum.Enum):
    """What `maximum`, `minimum` and `clamp` give where an operand is NaN: ``NONE`` the
    other operand (Triton's default), ``ALL`` NaN. Left out, the policy decides: ``NONE``
    under Triton's, ``ALL`` under NumPy's (docs/semantics.md)."""

    NONE = "num"
    ALL = "propagate"


def _propagate_nan(sem: CodeGenerator, value: Any) -> str | None:
    """`propagate_nan` as the `nan` of a blk minimum or maximum; None when left out."""
    value = sem.constant(value, "propagate_nan")
    if value is None or isinstance(value, PropagateNan):
        return None if value is None else value.value
    raise sem.error(
        f"propagate_nan must be tl.PropagateNan.NONE or tl.PropagateNan.ALL, got {value!r}"
    )


def _dtype_of(sem: CodeGenerator, value: Any, what: str) -> dtype:
    """`value` (a compile-time dtype or its name) as a dtype blkc computes with; else a
    located error saying why."""
    value = sem.constant(value, what)
    if isinstance(value, str) and value in _ALL_DTYPES:
        value = _ALL_DTYPES[value]
    if not isinstance(value, dtype) or isinstance(value, pointer_type):
        raise sem.error(f"{what} must be a dtype such as tl.float32, got {value!r}")
    if value.blkc_dtype is None:
        raise sem.error(
            f"{what}: blkc has no {value!r} ({value.name}); its fp8 dtypes are "
            "tl.float8e4nv and tl.float8e5"
        )
    return value


# ---------------------------------------------------------------------------------------
# Built-ins


def builtin(fn: F) -> F:
    """Mark `fn` as a kernel built-in: called with `_semantic` inside kernels only."""

    @functools.wraps(fn)
    def wrapper(*args: Any, _semantic: CodeGenerator | None = None, **kwargs: Any) -> Any:
        if _semantic is None:
            raise RuntimeError(
                f"blkc.language.{fn.__name__} can only be called inside a @blkc.jit kernel"
            )
        return fn(*args, _semantic=_semantic, **kwargs)

    wrapper.__blkc_builtin__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def _shape(sem: CodeGenerator, shape: Any) -> list[int]:
    shape = sem.constant(shape, "a block shape")
    if isinstance(shape, int):
        shape = [shape]
    dims = [sem.constant(d, "a block dimension") for d in shape]
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool) or d <= 0:
            raise sem.error(f"block dimensions must be positive integers, got {list(dims)}")
    check_block_shape(sem, dims)
    return dims


MAX_BLOCK_ELEMENTS = 1 << 20
"""The most elements a block may have (Triton's `TRITON_MAX_TENSOR_NUMEL`)."""


def check_block_shape(sem: CodeGenerator, dims: Sequence[int]) -> None:
    """Triton's rule for a block's shape: each dimension a power of two, and at most
    `MAX_BLOCK_ELEMENTS` elements (a kernel blkc compiled would not compile for Triton)."""
    for index, d in enumerate(dims):
        if d & (d - 1):
            raise sem.error(
                f"block dimension {index} is {d}, not a power of two, in shape {list(dims)} "
                f"(Shape element {index} must be a power of 2): pad the block to a power of "
                "two and mask the extra elements"
            )
    count = functools.reduce(lambda a, b: a * b, dims, 1)
    if count > MAX_BLOCK_ELEMENTS:
        raise sem.error(
            f"a block of shape {list(dims)} has {count} elements, more than "
            f"{MAX_BLOCK_ELEMENTS} (numel ({count}) exceeds triton maximum tensor numel "
            f"({MAX_BLOCK_ELEMENTS})): split the work over more programs"
        )


def _axis(sem: CodeGenerator, axis: Any) -> int | None:
    axis = sem.constant(axis, "an axis")
    if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
        raise sem.error(f"an axis must be an integer, got {axis!r}")
    return axis


def _int_axis(sem: CodeGenerator, axis: Any) -> int:
    found = _axis(sem, axis)
    if found is None:
        raise sem.error("an axis must be an integer, got None")
    return found


@builtin
def program_id(axis: Any, *, _semantic: CodeGenerator) -> tensor:
    """The index of this program along grid `axis` (0, 1 or 2)."""
    return _semantic.wrap(_semantic.ir.program_id(_semantic.constant(axis, "program_id's axis")))


@builtin
def num_programs(axis: Any, *, _semantic: CodeGenerator) -> tensor:
    """The number of programs along grid `axis` (0, 1 or 2)."""
    return _semantic.wrap(
        _semantic.ir.num_programs(_semantic.constant(axis, "num_programs's axis"))
    )


@builtin
def arange(start: Any, end: Any, *, _semantic: CodeGenerator) -> tensor:
    """The int32 block ``[start, ..., end - 1]`` (constant bounds, power-of-two length)."""
    lo = _semantic.constant(start, "arange's start")
    hi = _semantic.constant(end, "arange's end")
    for bound, what in ((lo, "start"), (hi, "end")):
        if not isinstance(bound, numbers.Integral) or isinstance(bound, bool):
            raise _semantic.error(
                f"arange's {what} must be an int (a literal or a tl.constexpr), got "
                f"{type(bound).__name__} {bound!r}"
            )
    block = _semantic.ir.arange(lo, hi)  # checks the length is a power of two
    check_block_shape(_semantic, [int(hi) - int(lo)])
    return _semantic.wrap(block)


@builtin
def full(shape: Any, value: Any, dtype: Any, *, _semantic: CodeGenerator) -> tensor:
    """A block of `shape` filled with `value` (a constant or a scalar) of `dtype`."""
    d = _dtype_of(_semantic, dtype, "full's dtype")
    dims = _shape(_semantic, shape)
    ir = _semantic.ir
    if isinstance(value, tensor):
        if any(n != 1 for n in value.shape):
            raise _semantic.error(
                f"full's value is a block of shape {list(value.shape)}: only accepts size-1 "
                "tensor (a number, a scalar or a block of one element)"
            )
        return _semantic.wrap(ir.broadcast_to(ir.cast(value.handle, d.blkc_dtype), dims))
    fill = _semantic.constant(value, "full's value")
    target = d.blkc_dtype
    if target.is_int and type(fill) is int:
        # Triton's builder takes no number its dtype cannot hold (it would wrap).
        low, high = target.int_range
        if fill < 0 and low == 0:
            raise _semantic.error(f"full's value {fill} is negative, and its dtype {d} is unsigned")
        if not low <= fill <= high:
            raise _semantic.error(
                f"full's value {fill} is out of range for {target.name} ({low} to {high}): "
                "give a value the dtype holds, or a wider dtype"
            )
    if target.is_int and type(fill) is float and not fill.is_integer():
        raise _semantic.error(
            f"full's value {fill} is not an integer, and its dtype {target.name} is: convert "
            "it first (int(...) truncates)"
        )
    return _semantic.wrap(ir.constant(fill, target, dims))


@builtin
def zeros(shape: Any, dtype: Any, *, _semantic: CodeGenerator) -> tensor:
    """A block of `shape` filled with zeros of `dtype`."""
    return full(shape, 0, dtype, _semantic=_semantic)


@builtin
def zeros_like(input: Any, *, _semantic: CodeGenerator) -> tensor:  # noqa: A002
    """Zeros of the shape and dtype of `input`."""
    x = _semantic.tensor_of(input, "zeros_like's input")
    return full(list(x.shape), 0, x.dtype, _semantic=_semantic)


_NOT_A_BLOCK_POINTER = (
    "`boundary_check` argument is not supported for {what} a tensor of pointers or {what} "
    "a scalar. Because the compiler does not know the boundary; please use block pointers "
    "(defined by `make_block_ptr`) instead (tl.{op}: boundary_check and padding_option "
    "need a block pointer; mask a tensor of pointers with mask=)"
)


LOAD_CACHE_MODIFIERS = (".ca", ".cg", ".cs", ".cv")
STORE_CACHE_MODIFIERS = (".wb", ".cg", ".cs", ".wt")
EVICTION_POLICIES = ("evict_last", "evict_first")
MEMORY_SEMANTICS = ("acquire", "release", "acq_rel", "relaxed")
MEMORY_SCOPES = ("gpu", "cta", "sys")
"""The hints Triton accepts (besides "" or None: the default), checked as Triton checks
them; the CPU backends ignore them (its atomics are sequentially consistent)."""


def _check_hint(sem: CodeGenerator, value: Any, allowed: tuple[str, ...], what: str) -> None:
    """A located error unless `value` is a compile-time "", None or one of `allowed`."""
    found = sem.constant(value, what)
    if found is None or found == "" or (isinstance(found, str) and found in allowed):
        return
    choices = ", ".join(repr(a) for a in allowed)
    raise sem.error(f"{what} {found!r} is not supported: use one of {choices} (or leave it out)")


def _fits_pointer(sem: CodeGenerator, op: str, ptr: SSAValue, operands: dict[str, Any]) -> None:
    """As Triton: an access's value, mask and `other` broadcast to its pointers' shape,
    never the pointers to theirs (a block value through a scalar pointer is an error, not
    a store of one element)."""
    where = sem.shape_of(ptr)
    for name, value in operands.items():
        if value is None:
            continue
        shape = sem.shape_of(value)
        if not where and shape:
            raise sem.error(
                f"{op}'s {name} is a block of shape {list(shape)} but its pointer is a scalar: "
                f"reduce it first (tl.sum, tl.max, ...) or {op} through a block of pointers "
                f"({name.capitalize()} argument cannot be block type if pointer argument is "
                "not a block)"
            )
        try:
            fits = broadcast_shapes(shape, where) == where
        except BroadcastError:
            fits = False
        if where and not fits:
            raise sem.error(
                f"{op}'s {name} has shape {list(shape)}, which does not broadcast to its "
                f"pointers' shape {list(where)}: the pointers are not broadcast to it (Expected "
                f"pointer argument to have shape {list(shape)} but got {list(where)})"
            )


@builtin
def load(
    pointer: Any,
    mask: Any = None,
    other: Any = None,
    boundary_check: Any = (),
    padding_option: Any = "",
    cache_modifier: Any = "",
    eviction_policy: Any = "",
    volatile: Any = False,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """Load where `pointer` points; where `mask` is false the value is `other` (zero).
    Cache and eviction hints are accepted and ignored on the CPU."""
    sem = _semantic
    from blkc.language import block_pointers  # imports this module

    _check_hint(sem, cache_modifier, LOAD_CACHE_MODIFIERS, "load's cache_modifier")
    _check_hint(sem, eviction_policy, EVICTION_POLICIES, "load's eviction_policy")
    if isinstance(sem.unwrap_constexpr(pointer), block_pointers.BlockPointer):
        block = sem.unwrap_constexpr(pointer)
        return block_pointers.load(sem, block, mask, other, boundary_check, padding_option)
    if boundary_check or padding_option:
        raise sem.error(_NOT_A_BLOCK_POINTER.format(what="loading", op="load"))
    ptr = sem.value(pointer, "load's pointer")
    m = None if sem.is_none(mask) else sem.value(mask, "load's mask")
    o = None if sem.is_none(other) else sem.value(other, "load's other")
    _fits_pointer(sem, "load", ptr, {"mask": m, "other": o})
    return sem.wrap(sem.ir.load(ptr, m, o))


@builtin
def store(
    pointer: Any,
    value: Any,
    mask: Any = None,
    boundary_check: Any = (),
    cache_modifier: Any = "",
    eviction_policy: Any = "",
    *,
    _semantic: CodeGenerator,
) -> None:
    """Store `value` where `pointer` points, where `mask` holds (converted to the pointee
    type)."""
    sem = _semantic
    from blkc.language import block_pointers  # imports this module

    _check_hint(sem, cache_modifier, STORE_CACHE_MODIFIERS, "store's cache_modifier")
    _check_hint(sem, eviction_policy, EVICTION_POLICIES, "store's eviction_policy")
    if isinstance(sem.unwrap_constexpr(pointer), block_pointers.BlockPointer):
        block = sem.unwrap_constexpr(pointer)
        return block_pointers.store(sem, block, value, mask, boundary_check)
    if boundary_check:
        raise sem.error(_NOT_A_BLOCK_POINTER.format(what="storing", op="store"))
    m = None if sem.is_none(mask) else sem.value(mask, "store's mask")
    ptr, v = sem.value(pointer, "store's pointer"), sem.value(value, "store's value")
    _fits_pointer(sem, "store", ptr, {"value": v, "mask": m})
    sem.ir.store(ptr, v, m)


def _atomic(kind: str) -> Callable[..., tensor]:
    def atomic(
        pointer: Any,
        val: Any,
        mask: Any = None,
        sem: Any = None,
        scope: Any = None,
        *,
        _semantic: CodeGenerator,
    ) -> tensor:
        s = _semantic
        _check_hint(s, sem, MEMORY_SEMANTICS, f"atomic_{kind}'s sem")
        _check_hint(s, scope, MEMORY_SCOPES, f"atomic_{kind}'s scope")
        m = None if s.is_none(mask) else s.value(mask, "the atomic's mask")
        ptr, v = s.value(pointer, "the pointer"), s.value(val, "val")
        _fits_pointer(s, f"atomic_{kind}", ptr, {"value": v, "mask": m})
        result = s.ir.atomic_rmw(kind, ptr, v, m)
        return s.wrap(result)

    atomic.__name__ = atomic.__qualname__ = f"atomic_{kind}"
    atomic.__doc__ = f"Atomically combine `val` into memory with {kind}; return the old values."
    return builtin(atomic)


atomic_add = _atomic("add")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_xchg = _atomic("xchg")


@builtin
def atomic_cas(
    pointer: Any,
    cmp: Any,
    val: Any,
    sem: Any = None,
    scope: Any = None,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """Where memory equals `cmp`, write `val`; return the old values."""
    s = _semantic
    _check_hint(s, sem, MEMORY_SEMANTICS, "atomic_cas's sem")
    _check_hint(s, scope, MEMORY_SCOPES, "atomic_cas's scope")
    return s.wrap(
        s.ir.atomic_cas(s.value(pointer, "the pointer"), s.value(cmp, "cmp"), s.value(val, "val"))
    )


def _atomic_pointer(s: CodeGenerator, pointer: Any, op: str) -> tuple[SSAValue, Any]:
    """An atomic's pointer (a located error, in Triton's words, for anything else) and its
    element dtype."""
    from blkc.dialects.types import PtrType, element_type

    ptr = s.value(pointer, "the pointer")
    pointee = element_type(ptr.type)
    if not isinstance(pointee, PtrType):
        raise s.error(f"Unsupported ptr type {ptr.type} in `tl.atomic_{op}`")
    return ptr, _dtypes.from_xdsl(pointee.pointee)


def _atomic_access(
    s: CodeGenerator, op: str, pointer: Any, mask: Any, sem: Any, scope: Any, orders: tuple
) -> tuple[SSAValue, Any, SSAValue | None]:
    """`atomic_load`'s and `atomic_store`'s checks, as Triton's: the pointer (a scalar
    pointer takes no block mask), `sem` one of `orders`, `scope` a scope. Returns the
    pointer, its element dtype and the mask."""
    ptr, element = _atomic_pointer(s, pointer, op)
    if not (element.is_int or element.is_float or element.is_bool):
        raise s.error(f"atomic_{op} only supports integer and floating-point elements")
    if s.constant(sem, "sem") not in (None, "", *orders):
        raise s.error(f"atomic_{op} only supports {' and '.join(orders)} semantics")
    _check_hint(s, scope, MEMORY_SCOPES, f"atomic_{op}'s scope")
    m = None if s.is_none(mask) else s.value(mask, "the mask")
    if m is not None and s.shape_of(m) and not s.shape_of(ptr):
        raise s.error("Mask argument cannot be block type if pointer argument is not a block")
    return ptr, element, m


def _as_bits(s: CodeGenerator, ptr: SSAValue, element: Any) -> tuple[SSAValue, Any]:
    """`ptr` viewed as a pointer to unsigned integers of its elements' width (bool as
    uint8), and that dtype: what an atomic `or` and `xchg` take."""
    from blkc.dialects.types import PtrType

    bits = _dtypes.dtype("uint8" if element.width < 8 else f"uint{element.width}")
    return s.ir.cast(ptr, PtrType(bits.xdsl)), bits


@builtin
def atomic_load(
    pointer: Any, mask: Any = None, sem: Any = None, scope: Any = None, *, _semantic: CodeGenerator
) -> tensor:
    """Atomically read memory at `pointer` (where `mask` holds; other lanes are
    unspecified), as an acquire (`sem`: "acquire", the default, or "relaxed"). On the CPU
    an atomic `or` of zero: a read no later load moves before, and that a loop repeats."""
    s = _semantic
    ptr, element, m = _atomic_access(s, "load", pointer, mask, sem, scope, ("acquire", "relaxed"))
    words, bits = _as_bits(s, ptr, element)
    read = s.ir.atomic_rmw("or", words, s.ir.constant(0, bits), m, policy_checked=False)
    if element.is_bool:
        return s.wrap(s.ir.compare("ne", read, s.ir.constant(0, bits, s.shape_of(read))))
    return s.wrap(s.ir.bitcast(read, element))


@builtin
def atomic_store(
    pointer: Any,
    val: Any,
    mask: Any = None,
    sem: Any = None,
    scope: Any = None,
    *,
    _semantic: CodeGenerator,
) -> None:
    """Atomically write `val` (converted to the pointer's element type) to memory at
    `pointer` where `mask` holds, as a release (`sem`: "release", the default, or
    "relaxed"). On the CPU an atomic exchange whose old value is dropped."""
    s = _semantic
    ptr, element, m = _atomic_access(s, "store", pointer, mask, sem, scope, ("release", "relaxed"))
    v = s.ir.cast(s.ir.typed(s.value(val, "val"), element), element)
    _fits_pointer(s, "atomic_store", ptr, {"value": v, "mask": m})
    words, bits = _as_bits(s, ptr, element)
    stored = s.ir.cast(v, bits) if element.is_bool else s.ir.bitcast(v, bits)
    s.ir.atomic_rmw("xchg", words, stored, m, policy_checked=False)


@builtin
def atomic_poll(
    pointer: Any,
    expected_value: Any,
    sem: Any = None,
    scope: Any = None,
    timeout_ns: Any = None,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """Wait until memory at `pointer` (16-, 32- or 64-bit integers) holds `expected_value`,
    or until `timeout_ns` nanoseconds have passed; every element is read at least once.
    Returns, per element, whether its value was seen. A wait without a timeout ends only
    when another program (or thread) writes the value; Ctrl-C interrupts it."""
    s, ir = _semantic, _semantic.ir
    ptr, element = _atomic_pointer(s, pointer, "poll")
    if not element.is_int or element.width not in (16, 32, 64):
        raise s.error("atomic_poll only supports integer elements with width {16, 32, 64}")
    if s.constant(sem, "sem") not in (None, "acquire", "relaxed"):
        raise s.error("atomic_poll only supports acquire and relaxed semantics")
    if s.constant(scope, "scope") not in (None, "gpu", "cta", "sys"):
        raise s.error("atomic_poll's scope must be 'gpu', 'cta' or 'sys'")
    budget = None
    if not s.is_none(timeout_ns):
        known = s.unwrap_constexpr(timeout_ns)
        if isinstance(known, int) and known < 0:
            raise s.error("atomic_poll timeout_ns must be non-negative")
        budget = ir.typed(s.value(timeout_ns, "timeout_ns"))
        if s.shape_of(budget) or not s.dtype_of(budget).is_int:
            raise s.error("atomic_poll timeout_ns must be a scalar integer")
        budget = ir.cast(budget, _dtypes.int64)
    expected = ir.cast(ir.typed(s.value(expected_value, "expected_value"), element), element)
    shape = ir.broadcast_shape(["ptr", "expected_value"], [ptr, expected])
    if shape and s.shape_of(expected) != shape:
        expected = ir.broadcast_to(expected, shape)
    zero = ir.constant(0, element, shape)

    def seen(mask: SSAValue | None) -> SSAValue:
        # An atomic `or` of 0 reads the value without changing it, ordered as an acquire.
        read = ir.atomic_rmw("or", ptr, zero, mask, policy_checked=False)
        return ir.compare("eq", read, expected)

    def pending(matched: SSAValue) -> SSAValue:
        flat = ir.reduce("and", matched) if shape else matched
        return ir.unary("not", flat)

    start = None if budget is None else ir.global_timer()
    first = seen(None)

    def waiting(carried: list[SSAValue]) -> SSAValue:
        waiting = pending(carried[0])
        if budget is None:
            return waiting
        elapsed = ir.binary("sub", ir.global_timer(), start)
        return ir.binary("and", waiting, ir.compare("lt", elapsed, budget))

    def again(carried: list[SSAValue]) -> list[SSAValue]:
        matched = carried[0]
        return [ir.binary("or", matched, seen(ir.unary("not", matched)))]

    return s.wrap(ir.while_loop([first], waiting, again)[0])


@builtin
def where(condition: Any, x: Any, y: Any, *, _semantic: CodeGenerator) -> tensor:
    """`x` where `condition` holds, else `y` (elementwise, broadcasting)."""
    s = _semantic
    return s.wrap(s.ir.where(s.value(condition, "condition"), s.value(x, "x"), s.value(y, "y")))


_INPUT_PRECISIONS = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
"""The values of `dot`'s `input_precision` that Triton accepts."""


@builtin
def dot(
    input: Any,  # noqa: A002
    other: Any,
    acc: Any = None,
    input_precision: Any = None,
    allow_tf32: Any = None,
    max_num_imprecise_acc: Any = None,
    out_dtype: Any = float32,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """The matrix product ``input @ other (+ acc)``, accumulated in `out_dtype` (float32 by
    default). Integer inputs accumulate in int32 and give int32 whatever `out_dtype`
    says, as in Triton. `input_precision` (Triton's `"tf32"`, `"tf32x3"`, `"ieee"`,
    `"bf16x3"`, `"bf16x6"`) and `allow_tf32` are checked and accepted: every product is
    computed from the inputs as they are (IEEE), as Triton's CPU interpreter does, which is
    at least as precise as each of them. `max_num_imprecise_acc` is accepted and has no
    effect, but as in Triton it may not exceed the inner dimension K."""
    s = _semantic
    precision = s.constant(input_precision, "dot's input_precision")
    if precision is not None and not (
        isinstance(precision, str) and precision.lower() in _INPUT_PRECISIONS
    ):
        raise s.error(
            f"dot's input_precision must be one of {', '.join(map(repr, _INPUT_PRECISIONS))}"
            f", got {precision!r}"
        )
    if precision is not None and s.constant(allow_tf32, "dot's allow_tf32") is not None:
        raise s.error("give dot either input_precision or allow_tf32 (deprecated), not both")
    a, b = s.value(input, "dot's input"), s.value(other, "dot's other")
    imprecise = s.constant(max_num_imprecise_acc, "dot's max_num_imprecise_acc")
    depth = (s.shape_of(a) or [None])[-1]
    if imprecise is not None and depth is not None and imprecise > depth:
        raise s.error(
            f"dot's max_num_imprecise_acc ({imprecise}) is larger than the inner dimension "
            f"K ({depth}): max_num_imprecise_acc ({imprecise}) must be <= K ({depth})"
        )
    acc_value = None if s.is_none(acc) else s.value(acc, "dot's acc")
    out = _dtype_of(s, out_dtype, "dot's out_dtype")
    if acc_value is None:
        kinds = {s.dtype_of(a).kind, s.dtype_of(b).kind}
        if kinds <= {_dtypes.Kind.INT, _dtypes.Kind.BOOL}:
            out = int32
        return s.wrap(s.ir.dot(a, b, None, out.blkc_dtype))
    return s.wrap(s.ir.dot(a, b, acc_value))


def _reduction(
    kind: str,
    value: Any,
    axis: Any,
    keep_dims: Any,
    sem: CodeGenerator,
    accumulate: _dtypes.DType | None = None,
) -> tensor:
    x = sem.value(value, f"the {kind}'s input")
    ax = _axis(sem, axis)
    result = sem.ir.reduce(kind, x, ax, accumulate=accumulate)
    if sem.constant(keep_dims, "keep_dims"):
        rank = len(sem.shape_of(x))
        for a in _py.range(rank) if ax is None else [ax % rank]:
            result = sem.ir.expand_dims(result, a)
    return sem.wrap(result)


@builtin
def sum(  # noqa: A001 - Triton's name
    input: Any,
    axis: Any = None,
    keep_dims: Any = False,
    dtype: Any = None,  # noqa: A002
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """The sum along `axis` (all axes when None); with `dtype`, the input is converted to
    it and summed in it (an int8 sum wraps in int8), else summed in the dtype the policy
    gives (Triton's: 32 bits for narrower integers)."""
    acc = _accumulator(_semantic, dtype, "sum's dtype")
    if acc is not None:
        input = _semantic.wrap(_semantic.ir.cast(_semantic.value(input, "x"), acc))  # noqa: A001
    return _reduction("sum", input, axis, keep_dims, _semantic, acc)


def _accumulator(sem: CodeGenerator, dtype: Any, what: str) -> _dtypes.DType | None:
    """The blkc dtype a reduction's or scan's `dtype=` names, or None where not given."""
    if sem.is_none(dtype):
        return None
    return _dtype_of(sem, dtype, what).blkc_dtype


def _extreme(kind: str) -> Callable[..., Any]:
    def extreme(
        input: Any,  # noqa: A002
        axis: Any = None,
        return_indices: Any = False,
        return_indices_tie_break_left: Any = True,
        keep_dims: Any = False,
        *,
        _semantic: CodeGenerator,
    ) -> Any:
        s = _semantic
        value = _reduction(kind, input, axis, keep_dims, s)
        if s.constant(return_indices, "return_indices"):
            # As Triton's: the extreme keeps its input's dtype where it comes with its
            # index, where alone it has a reduction's dtype (32 bits for narrower ones).
            source = s.dtype_of(s.value(input, f"the {kind}'s input"))
            value = s.wrap(s.ir.cast(value.handle, source))
            return value, _reduction(f"arg{kind}", input, axis, keep_dims, s)
        return value

    extreme.__name__ = extreme.__qualname__ = kind
    extreme.__doc__ = (
        f"The {kind}imum along `axis`; with `return_indices`, also its index (int32), the "
        f"{kind}imum then of the input's dtype, as in Triton."
    )
    return builtin(extreme)


max = _extreme("max")  # noqa: A001
min = _extreme("min")  # noqa: A001


def _arg(kind: str) -> Callable[..., tensor]:
    def arg(
        input: Any,
        axis: Any,
        tie_break_left: Any = True,
        keep_dims: Any = False,  # noqa: A002
        *,
        _semantic: CodeGenerator,
    ) -> tensor:
        return _reduction(kind, input, axis, keep_dims, _semantic)

    arg.__name__ = arg.__qualname__ = kind
    arg.__doc__ = f"The index (int32) of the first {kind[3:]}imum along `axis`."
    return builtin(arg)


argmax = _arg("argmax")
argmin = _arg("argmin")


@builtin
def xor_sum(
    input: Any,
    axis: Any = None,
    keep_dims: Any = False,
    *,
    _semantic: CodeGenerator,  # noqa: A002
) -> tensor:
    """The bitwise xor of the elements along `axis`."""
    return _reduction("xor", input, axis, keep_dims, _semantic)


@builtin
def reduce_or(
    input: Any,  # noqa: A002
    axis: Any,
    keep_dims: Any = False,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """The bitwise or of the integer elements along `axis` (all axes when None)."""
    x = _semantic.value(input, "reduce_or's input")
    if not _semantic.dtype_of(x).is_int:
        raise _semantic.error(f"reduce_or only supported for integers, got {x.type}")
    return _reduction("or", input, axis, keep_dims, _semantic)


def _scan(kind: str) -> Callable[..., tensor]:
    def scan(
        input: Any,  # noqa: A002
        axis: Any = 0,
        reverse: Any = False,
        dtype: Any = None,  # noqa: A002
        *,
        _semantic: CodeGenerator,
    ) -> tensor:
        s = _semantic
        x, ax = s.value(input, "the scan's input"), _axis(s, axis) or 0
        acc = _accumulator(s, dtype, f"cum{kind}'s dtype")
        if acc is not None:
            x = s.ir.cast(x, acc)
        return s.wrap(s.ir.scan(kind, x, ax, bool(s.constant(reverse, "reverse")), acc))

    scan.__name__ = scan.__qualname__ = f"cum{kind}"
    scan.__doc__ = (
        f"The inclusive cumulative {kind} along `axis` (from the end: `reverse`); with "
        "`dtype`, of the input converted to it, accumulated in it (as `sum`)."
    )
    return builtin(scan)


cumsum = _scan("sum")
cumprod = _scan("prod")


def _sorted_axis(sem: CodeGenerator, value: SSAValue, dim: Any, what: str) -> int:
    """The axis `what` runs along: `dim`, which must name the last (as in Triton)."""
    rank = len(sem.shape_of(value))
    axis = _axis(sem, dim)
    if axis is not None and rank and axis not in (rank - 1, -1):
        raise sem.error(
            f"{what} runs along the last dimension only (dim={rank - 1} or None), "
            f"got dim={axis} for a block of rank {rank}"
        )
    return rank - 1 if rank else 0


@builtin
def sort(
    x: Any,
    dim: Any = None,
    descending: Any = False,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """`x` sorted along its last dimension, ascending or `descending`, by Triton's bitonic
    network (NaN and signed zeros land where they land in Triton: docs/semantics.md)."""
    s = _semantic
    value = s.value(x, "sort's input")
    axis = _sorted_axis(s, value, dim, "sort")
    return s.wrap(s.ir.sort(value, axis, bool(s.constant(descending, "descending"))))


@builtin
def topk(
    x: Any,
    k: Any,
    dim: Any = None,
    descending: Any = True,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """The `k` largest elements along the last dimension of `x` (smallest: not
    `descending`), in order; `k` a power of two."""
    s = _semantic
    value = s.value(x, "topk's input")
    axis = _sorted_axis(s, value, dim, "topk")
    count = s.constant(k, "topk's k")
    if not isinstance(count, int) or isinstance(count, bool):
        raise s.error(f"topk's k must be an integer, got {count!r}")
    return s.wrap(s.ir.sort(value, axis, bool(s.constant(descending, "descending")), k=count))


@builtin
def bitonic_merge(
    x: Any,
    dim: Any = None,
    descending: Any = False,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """`x`, whose lines along the last dimension are bitonic (ascending then descending,
    or the reverse), merged into ascending (or `descending`) order."""
    s = _semantic
    value = s.value(x, "bitonic_merge's input")
    axis = _sorted_axis(s, value, dim, "bitonic_merge")
    descending = bool(s.constant(descending, "descending"))
    return s.wrap(s.ir.sort(value, axis, descending, merge=True))


def _combiner(
    sem: CodeGenerator, combine_fn: Any
) -> Callable[[list[SSAValue], list[SSAValue]], list[SSAValue]]:
    """The scalar step that calls `combine_fn`, a `@blkc.jit` function, on the accumulated
    scalars then the next ones (inlined), as Triton's combine functions take them."""
    fn = sem.unwrap_constexpr(combine_fn)

    def combine(acc: list[SSAValue], nxt: list[SSAValue]) -> list[SSAValue]:
        result = sem.call(fn, [sem.wrap(v) for v in (*acc, *nxt)], {})
        results = result if isinstance(result, tuple) else (result,)
        return [sem.value(r, "the combine function's result") for r in results]

    return combine


def _combined_inputs(sem: CodeGenerator, input: Any) -> tuple[list[SSAValue], bool]:  # noqa: A002
    """The blocks of a reduction's or scan's `input` (a tensor or a tuple of them), and
    whether it was a tuple."""
    if isinstance(input, tuple):
        return [sem.value(v, "a combined input") for v in input], True
    return [sem.value(input, "the combined input")], False


@builtin
def reduce(
    input: Any,  # noqa: A002
    axis: Any,
    combine_fn: Any,
    keep_dims: Any = False,
    *,
    _semantic: CodeGenerator,
) -> Any:
    """Reduce `input` (a tensor or a tuple of tensors of one shape) along `axis` (all axes
    when None) with `combine_fn`, a `@blkc.jit` function of the accumulated values then
    the next ones, returning the combined values; left to right."""
    s = _semantic
    values, is_tuple = _combined_inputs(s, input)
    ax = _axis(s, axis)
    rank = len(s.shape_of(values[0]))
    if ax is None:
        size = functools.reduce(lambda a, b: a * b, s.shape_of(values[0]), 1)
        values = [s.ir.reshape(v, [size]) for v in values]
    results = s.ir.reduce_with(values, 0 if ax is None else ax, _combiner(s, combine_fn))
    if s.constant(keep_dims, "keep_dims"):
        for a in _py.range(rank) if ax is None else [ax % rank]:
            results = [s.ir.expand_dims(r, a) for r in results]
    wrapped = tuple(s.wrap(r) for r in results)
    return wrapped if is_tuple else wrapped[0]


@builtin
def associative_scan(
    input: Any,  # noqa: A002
    axis: Any,
    combine_fn: Any,
    reverse: Any = False,
    *,
    _semantic: CodeGenerator,
) -> Any:
    """The inclusive scan of `input` (a tensor or a tuple of tensors of one shape) along
    `axis` with `combine_fn`, as `reduce` takes it; from the last element when
    `reverse`."""
    s = _semantic
    values, is_tuple = _combined_inputs(s, input)
    results = s.ir.scan_with(
        values,
        _int_axis(s, axis),
        _combiner(s, combine_fn),
        bool(s.constant(reverse, "reverse")),
    )
    wrapped = tuple(s.wrap(r) for r in results)
    return wrapped if is_tuple else wrapped[0]


def _unary(name: str, doc: str) -> Callable[..., tensor]:
    def unary(x: Any, *, _semantic: CodeGenerator) -> tensor:
        return _semantic.wrap(_semantic.ir.unary(name, _semantic.value(x, "x")))

    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = doc
    return builtin(unary)


exp = _unary("exp", "Elementwise e**x.")
exp2 = _unary("exp2", "Elementwise 2**x.")
log = _unary("log", "Elementwise natural logarithm.")
log2 = _unary("log2", "Elementwise base-2 logarithm.")
sqrt = _unary("sqrt", "Elementwise square root.")
sqrt_rn = _unary("sqrt", "Elementwise square root, correctly rounded.")
rsqrt = _unary("rsqrt", "Elementwise 1 / sqrt(x).")
sin = _unary("sin", "Elementwise sine.")
cos = _unary("cos", "Elementwise cosine.")
erf = _unary("erf", "Elementwise error function.")
floor = _unary("floor", "Elementwise floor.")
ceil = _unary("ceil", "Elementwise ceiling.")
abs = _unary("abs", "Elementwise absolute value.")  # noqa: A001


@builtin
def sigmoid(x: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise ``1 / (1 + exp(-x))``."""
    ir, v = _semantic.ir, _semantic.value(x, "x")
    e = ir.unary("exp", ir.unary("neg", v))
    return _semantic.wrap(ir.binary("truediv", ir.literal(1), ir.binary("add", ir.literal(1), e)))


@builtin
def softmax(
    x: Any,
    dim: Any = None,
    keep_dims: Any = False,
    ieee_rounding: Any = False,
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """The softmax of `x` along `dim` (0 when None), max-subtracted for stability."""
    s = _semantic
    ir, v = s.ir, s.value(x, "x")
    axis = _axis(s, dim) or 0
    high = ir.expand_dims(ir.reduce("max", v, axis), axis)
    num = ir.unary("exp", ir.binary("sub", v, high))
    den = ir.expand_dims(ir.reduce("sum", num, axis), axis)
    result = ir.binary("truediv", num, den)
    if not s.constant(keep_dims, "keep_dims"):
        return s.wrap(result)
    raise s.error("softmax(keep_dims=True) is not supported: the result keeps x's shape")


def _extremum(name: str, doc: str) -> Callable[..., tensor]:
    def extremum(x: Any, y: Any, propagate_nan: Any = None, *, _semantic: CodeGenerator) -> tensor:
        s = _semantic
        nan = _propagate_nan(s, propagate_nan)
        return s.wrap(s.ir.extremum(name, s.value(x, "x"), s.value(y, "y"), nan))

    extremum.__name__ = extremum.__qualname__ = name
    extremum.__doc__ = doc
    return builtin(extremum)


maximum = _extremum(
    "maximum", "Elementwise maximum; `propagate_nan` (`PropagateNan`) says what NaN gives."
)
minimum = _extremum(
    "minimum", "Elementwise minimum; `propagate_nan` (`PropagateNan`) says what NaN gives."
)


@builtin
def fdiv(
    x: Any, y: Any, ieee_rounding: Any = False, approx: Any = False, *, _semantic: CodeGenerator
) -> tensor:
    """Elementwise float division ``x / y``, correctly rounded on the CPU whatever
    `ieee_rounding` and `approx` say (`approx` allows an error Triton bounds by 2 ulp)."""
    s = _semantic
    exact, rough = s.constant(ieee_rounding, "ieee_rounding"), s.constant(approx, "approx")
    if exact and rough:
        raise s.error("approx and ieee_rounding cannot both be True")
    lhs, rhs = s.value(x, "x"), s.value(y, "y")
    if not any(_is_float(s, v) for v in (lhs, rhs)):
        raise s.error(
            "fdiv requires floating-point operands after type promotion: convert integer "
            "operands with .to(tl.float32), or divide with /"
        )
    quotient = s.ir.binary("truediv", lhs, rhs)
    if rough and s.dtype_of(quotient) != _dtypes.float32:
        raise s.error(f"approx division requires float32 operands, got {s.dtype_of(quotient)}")
    return s.wrap(quotient)


def _is_float(sem: CodeGenerator, value: SSAValue) -> bool:
    if sem.ir.is_weak(value):
        return isinstance(sem.ir.literal_value(value), float)
    return sem.dtype_of(value).is_float


@builtin
def div_rn(x: Any, y: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise float32 division ``x / y`` rounded to nearest (IEEE), as the CPU
    divides."""
    s = _semantic
    lhs, rhs = s.value(x, "x"), s.value(y, "y")
    for value in (lhs, rhs):
        if not s.ir.is_weak(value) and s.dtype_of(value) != _dtypes.float32:
            raise s.error(
                f"Expected dtype ['fp32'] but got {from_blkc(s.dtype_of(value))}: div_rn "
                "divides float32 values (convert with .to(tl.float32))"
            )
    return s.wrap(s.ir.binary("truediv", lhs, rhs))


@builtin
def umulhi(x: Any, y: Any, *, _semantic: CodeGenerator) -> tensor:
    """The most significant N bits of the 2N-bit product of the N-bit integers `x` and `y`
    (int32, int64, uint32, uint64), their bits multiplied as unsigned integers."""
    s = _semantic
    lhs, rhs = s.value(x, "x"), s.value(y, "y")
    allowed = ["int32", "int64", "uint32", "uint64"]
    for value in (lhs, rhs):
        name = None if s.ir.is_weak(value) else from_blkc(s.dtype_of(value)).name
        if name is not None and name not in allowed:
            raise s.error(f"Expected dtype {allowed} but got {name}: umulhi multiplies integers")
    return s.wrap(s.ir.umulhi(lhs, rhs))


@builtin
def clamp(
    x: Any, min: Any, max: Any, propagate_nan: Any = None, *, _semantic: CodeGenerator
) -> tensor:  # noqa: A002
    """`x` limited to ``[min, max]``: ``minimum(maximum(x, min), max)``, so a NaN `x` gives
    `min` (``PropagateNan.NONE``) or NaN (``ALL``)."""
    s, ir = _semantic, _semantic.ir
    nan = _propagate_nan(s, propagate_nan)
    low = ir.extremum("maximum", s.value(x, "x"), s.value(min, "min"), nan)
    return s.wrap(ir.extremum("minimum", low, s.value(max, "max"), nan))


@builtin
def fma(x: Any, y: Any, z: Any, *, _semantic: CodeGenerator) -> tensor:
    """Elementwise ``x * y + z`` with one rounding."""
    s = _semantic
    return s.wrap(s.ir.fma(s.value(x, "x"), s.value(y, "y"), s.value(z, "z")))


@builtin
def cdiv(x: Any, div: Any, *, _semantic: CodeGenerator) -> Any:
    """``(x + div - 1) // div``: how many blocks of `div` cover `x`."""
    s = _semantic
    if s.is_constant(x) and s.is_constant(div):
        return -(-s.constant(x, "x") // s.constant(div, "div"))
    ir = s.ir
    top = ir.binary("sub", ir.binary("add", s.value(x, "x"), s.value(div, "div")), ir.literal(1))
    return s.wrap(ir.binary("floordiv", top, s.value(div, "div")))


def _hint(value: Any, amounts: Any, name: str, sem: CodeGenerator) -> Any:
    """`value`, its defining op marked with the hint `name` (the last dimension's amount,
    as the GPU lowering reads it)."""
    amounts = sem.constant(amounts, f"the {name} hint")
    amount = amounts[-1] if isinstance(amounts, list | tuple) else amounts
    if not isinstance(amount, int) or amount <= 0:
        raise sem.error(f"a {name} hint must be a positive integer, got {amounts!r}")
    if isinstance(value, tensor):
        sem.ir.hint(value.handle, name, amount)
    return value


@builtin
def multiple_of(input: Any, values: Any, *, _semantic: CodeGenerator) -> Any:  # noqa: A002
    """A hint that the elements of `input` are multiples of `values`; returns `input`."""
    return _hint(input, values, "divisibility", _semantic)


@builtin
def max_contiguous(input: Any, values: Any, *, _semantic: CodeGenerator) -> Any:  # noqa: A002
    """A hint that `input` holds runs of `values` consecutive elements; returns `input`."""
    return _hint(input, values, "contiguity", _semantic)


@builtin
def max_constancy(input: Any, values: Any, *, _semantic: CodeGenerator) -> Any:  # noqa: A002
    """A hint that `input` holds runs of `values` equal elements; returns `input`."""
    return _hint(input, values, "constancy", _semantic)


@builtin
def assume(cond: Any, *, _semantic: CodeGenerator) -> None:
    """A hint that `cond` holds; checked when it is a compile-time constant, otherwise
    accepted and not used."""
    if _semantic.is_constant(cond) and not _semantic.constant(cond, "the condition"):
        raise _semantic.error("tl.assume of a condition that is false at compile time")


@builtin
def expect_zero(x: Any, mask: Any, *, _semantic: CodeGenerator) -> Any:
    """Marks values of `x` expected to have underflowed to zero where `mask` holds; returns
    `x` unchanged, as Triton does outside its debug and float-sanitizer modes."""
    _semantic.value(mask, "the mask")
    return x


@builtin
def debug_barrier(*, _semantic: CodeGenerator) -> None:
    """Synchronizes the threads of a program; a no-op on the CPU, where a program is one
    thread."""


@builtin
def static_assert(cond: Any, msg: Any = "", *, _semantic: CodeGenerator) -> None:
    """Fail compilation with `msg` when the compile-time `cond` is false."""
    s = _semantic
    if not s.constant(cond, "static_assert's condition"):
        raise s.error(f"static_assert failed: {s.constant(msg, 'the message')}".rstrip(": "))


@builtin
def static_print(
    *values: Any,
    sep: Any = " ",
    end: Any = "\n",
    file: Any = None,  # noqa: A002 - print's name
    flush: Any = False,
    _semantic: CodeGenerator,
) -> None:
    """Print at compile time, as Python's `print` (to stdout unless `file`): values, or
    the dtypes and shapes of kernel values (``int32[constexpr[128]]``, as Triton shows
    them)."""
    print(*values, sep=sep, end=end, file=file, flush=flush)


@builtin
def device_print(prefix: Any, *args: Any, hex: Any = False, _semantic: CodeGenerator) -> None:  # noqa: A002
    """Print `prefix` and the values from every program when the kernel runs, a line per
    element as Triton does (``pid (0, 0, 0) idx ( 3) x: 3``); `hex` prints integers and
    floats in hexadecimal."""
    s = _semantic
    text = str(s.constant(prefix, "the prefix"))
    # Triton's spelling: a prefix before values ends in ": ", and starts with a space
    # where it is longer than that.
    if args and not text.endswith(" "):
        text += " "
    if args and not text.endswith(": "):
        text = text[:-1] + ": "
    if len(text) > 2 and not text.startswith(" "):
        text = " " + text
    values = [s.value(a, "the value") for a in args]
    s.ir.print(text, values, hex=bool(s.constant(hex, "hex")))


@builtin
def device_assert(cond: Any, msg: Any = "", *, _semantic: CodeGenerator) -> None:
    """Fail the launch (AssertionError) with `msg` where `cond` is false."""
    s = _semantic
    s.ir.assert_(s.value(cond, "the condition"), str(s.constant(msg, "the message")))


@builtin
def reshape(
    input: Any,
    *shape: Any,
    can_reorder: Any = False,
    _semantic: CodeGenerator,  # noqa: A002
) -> tensor:
    """`input` with another shape of the same size (row-major)."""
    s = _semantic
    dims = _shape(s, shape[0] if len(shape) == 1 else list(shape))
    return s.wrap(s.ir.reshape(s.value(input, "input"), dims))


view = reshape


@builtin
def item(input: Any, *, _semantic: CodeGenerator) -> tensor:  # noqa: A002
    """The one element of a one-element block, as a scalar (Triton's ``x.item()``)."""
    s = _semantic
    value = s.value(input, "input")
    shape = s.shape_of(value)
    if functools.reduce(lambda a, b: a * b, shape, 1) != 1:
        raise s.error(f"item() needs a block of one element, not of shape {list(shape)}")
    if not shape:
        return s.wrap(value)
    # A scalar is not a block: the one element comes out through a reduction, whose
    # neutral start (-inf, the least integer, false) leaves it as it is, -0.0 and NaN too.
    is_bool = s.dtype_of(value) == _dtypes.bool_
    kind, nan = ("or", None) if is_bool else ("max", "propagate")
    return s.wrap(s.ir.reduce(kind, value, None, nan if _is_float(s, value) else None))


def _logical(name: str) -> Callable[..., tensor]:
    @builtin
    def logical(input: Any, other: Any, *, _semantic: CodeGenerator) -> tensor:  # noqa: A002
        s = _semantic

        def truth(x: Any, what: str) -> SSAValue:
            x = s.ir.typed(s.value(x, what))
            if s.dtype_of(x) == _dtypes.bool_:
                return x
            return s.ir.compare("ne", x, s.ir.literal(0))

        return s.wrap(s.ir.binary(name, truth(input, "input"), truth(other, "other")))

    logical.__name__ = f"logical_{name}"
    logical.__doc__ = f"Elementwise logical {name} of two values' truth (nonzero is true)."
    return logical


logical_and = _logical("and")
logical_or = _logical("or")


@builtin
def expand_dims(input: Any, axis: Any, *, _semantic: CodeGenerator) -> tensor:  # noqa: A002
    """`input` with a dimension of size 1 inserted at `axis` (or at each of several), an
    axis of the result (negative axes count from its end)."""
    s = _semantic
    given = s.constant(axis, "expand_dims's axis")
    v = s.value(input, "input")
    axes = list(given) if isinstance(given, list | tuple) else [given]
    rank = len(s.shape_of(v)) + len(axes)
    normalized = [s.ir.normalize_axis(_int_axis(s, a), rank, "expand_dims's result") for a in axes]
    repeated = next((a for i, a in enumerate(normalized) if a in normalized[:i]), None)
    if repeated is not None:
        raise s.error(
            f"expand_dims's axes {axes} name axis {repeated} of its result, of rank {rank}, "
            "more than once"
        )
    for a in sorted(normalized):
        v = s.ir.expand_dims(v, a)
    return s.wrap(v)


@builtin
def broadcast_to(input: Any, *shape: Any, _semantic: CodeGenerator) -> tensor:  # noqa: A002
    """`input` broadcast to `shape`."""
    s = _semantic
    dims = _shape(s, shape[0] if len(shape) == 1 else list(shape))
    return s.wrap(s.ir.broadcast_to(s.value(input, "input"), dims))


@builtin
def broadcast(input: Any, other: Any, *, _semantic: CodeGenerator) -> tuple[tensor, tensor]:  # noqa: A002
    """`input` and `other` broadcast to their common shape."""
    s = _semantic
    a, b = s.value(input, "input"), s.value(other, "other")
    shape = broadcast_shapes(s.shape_of(a), s.shape_of(b))
    return s.wrap(s.ir.broadcast_to(a, shape)), s.wrap(s.ir.broadcast_to(b, shape))


def _dimension_order(dims: tuple[Any, ...], s: CodeGenerator) -> list[Any]:
    """The order of dimensions `trans` and `permute` take, as a tuple or one by one."""
    order = s.constant(dims[0] if len(dims) == 1 else list(dims), "the dimensions")
    return [order] if isinstance(order, int) else list(order)


@builtin
def trans(input: Any, *dims: Any, _semantic: CodeGenerator) -> tensor:  # noqa: A002
    """`input` with its dimensions permuted; without `dims`, its last two swapped (a
    transpose of each matrix of a batch)."""
    s = _semantic
    v = s.value(input, "input")
    order = _dimension_order(dims, s)
    if not order:
        rank = len(s.shape_of(v))
        if rank < 2:
            raise s.error(
                "tl.trans without dimensions swaps the last two, but its input has "
                f"{rank} dimension{'' if rank == 1 else 's'}: give the order of the dimensions"
            )
        order = [*_py.range(rank - 2), rank - 1, rank - 2]
    return s.wrap(s.ir.permute(v, order))


@builtin
def permute(input: Any, *dims: Any, _semantic: CodeGenerator) -> tensor:  # noqa: A002
    """`input` with its dimensions in the order `dims` (a tuple, or one by one)."""
    s = _semantic
    v = s.value(input, "input")
    order = _dimension_order(dims, s)
    if not order and s.shape_of(v):
        raise s.error("tl.permute needs the order of the dimensions, e.g. permute(x, 1, 0)")
    return s.wrap(s.ir.permute(v, order))


@builtin
def cast(
    input: Any,
    dtype: Any,
    fp_downcast_rounding: Any = None,
    bitcast: Any = False,  # noqa: A002
    *,
    _semantic: CodeGenerator,
) -> tensor:
    """`input` converted to `dtype` (reinterpreting the bits when `bitcast`); a pointer
    to a `pointer_type` (``p.to(tl.pi32_t)``) views its memory as the new element type."""
    s = _semantic
    target = s.constant(dtype, "cast's dtype")
    if isinstance(target, pointer_type):
        return s.wrap(_pointer_cast(s, s.value(input, "input"), target))
    d = _dtype_of(s, dtype, "cast's dtype")
    v = s.value(input, "input")
    if s.constant(bitcast, "bitcast"):
        return s.wrap(s.ir.bitcast(v, d.blkc_dtype))
    rounding = s.constant(fp_downcast_rounding, "fp_downcast_rounding")
    if rounding is None:
        return s.wrap(s.ir.cast(v, d.blkc_dtype))
    if rounding not in ("rtne", "rtz"):
        raise s.error(
            f"fp_downcast_rounding {rounding!r} is not a rounding mode: use 'rtne' (to "
            "nearest, even on ties: the default) or 'rtz' (toward zero)"
        )
    v = s.ir.typed(v)
    source = s.dtype_of(v)
    target = d.blkc_dtype
    if source == target:
        return s.wrap(v)
    if not (source.is_float and target.is_float and target.width < source.width):
        raise s.error(
            "fp_downcast_rounding applies to conversions from a float to a narrower float "
            f"only, not {source.name} to {target.name}: leave it out"
        )
    if rounding == "rtne":
        return s.wrap(s.ir.cast(v, target))
    return s.wrap(s.ir.cast_toward_zero(v, target))


def _pointer_cast(s: CodeGenerator, value: SSAValue, target: pointer_type) -> SSAValue:
    from blkc.dialects.types import PtrType, element_type

    if not isinstance(element_type(value.type), PtrType):
        raise s.error(
            f"cannot cast {value.type} to {target.name}: a pointer comes from an array "
            "argument, never from a number"
        )
    pointee = _dtype_of(s, target.element_ty, "the pointer's element type")
    return s.ir.cast(value, PtrType(pointee.blkc_dtype.xdsl))


@builtin
def to_tensor(x: Any, *, _semantic: CodeGenerator) -> tensor:
    """`x` as a kernel value: kernel values as they are, a number as a scalar of the dtype
    the policy gives it alone (under Triton's: int32, uint32, int64 or uint64, the first
    that holds an int; float32 for a float; int1 for a bool)."""
    s = _semantic
    return s.wrap(s.ir.typed(s.value(x, "x")))


class static_range:  # noqa: N801 - Triton's name
    """``for i in tl.static_range(...)``: a loop unrolled at compile time (constant
    bounds)."""

    def __init__(self, arg1: Any, arg2: Any = None, step: Any = None):
        self.args = (arg1, arg2, step)


class range:  # noqa: A001, N801 - Triton's name
    """``for i in tl.range(...)``: like ``range``, with Triton's pipelining options
    (accepted; the CPU backend does not pipeline)."""

    def __init__(
        self,
        arg1: Any,
        arg2: Any = None,
        step: Any = None,
        num_stages: Any = None,
        loop_unroll_factor: Any = None,
        disallow_acc_multi_buffer: Any = False,
        flatten: Any = False,
        warp_specialize: Any = False,
    ):
        self.args = (arg1, arg2, step)
