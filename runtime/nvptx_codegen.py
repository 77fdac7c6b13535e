"""SIMT loop IR to LLVM IR for `nvptx64-nvidia-cuda`.

`llvm_emitter` translates the ops every LLVM target shares (arith, math, scf, memref
buffers, the scalar blk pointer ops); this module adds what the GPU does its own way:

- each kernel is a `ptx_kernel` function taking its arguments only (no grid launcher, no
  bounds table: a launch covers the grid, and the driver gives out-of-range faults);
  pointer arguments live in the global address space (1) and are cast to generic
  pointers once, which LLVM's address-space inference turns back into `ld.global` /
  `st.global` after it has seen every use;
- program ids and grid sizes are `%ctaid` and `%nctaid`, the thread index `%tid.x`
  (`llvm.nvvm.read.ptx.sreg.*`); `.maxntid` tells ptxas the CTA size, which bounds the
  registers it may use;
- `simt.threads` regions are inlined (every thread runs them), `simt.barrier` is
  `bar.sync 0`, `simt.shuffle_xor` is `shfl.sync.bfly.b32` (wider values in 32-bit
  pieces), `simt.alloc_shared` a global in the shared address space (3) and
  `simt.alloc_local` an `alloca` that LLVM promotes to registers once the loops over a
  thread's elements are unrolled;
- `simt.vector_load` and `simt.vector_store` are loads and stores of LLVM vectors at the
  alignment the lowering proved (`ld.global.v4.b32`), branched around where masked;
- float conversions use the target's instructions (`GpuConversions`): `cvt.rn.bf16.f32`
  (sm_80+), the fp8 `cvt`s of sm_89+, float16's own, where the CPU needs software;
- float32 math is `vector_math`'s, as on the CPU (the same polynomials, so `cpu-simt`
  checks them against the interpreter), except `exp` (`ex2.approx`, corrected); float64
  math calls libdevice (`__nv_sin`, ...), which `ptx` links in;
- `blk.print` calls CUDA's `vprintf` (the values packed in a local buffer), a failed
  `blk.assert` calls `__assertfail`, which stops the kernel with its message: both are
  resolved by the driver, as for CUDA C.
"""

from __future__ import annotations

import llvmlite.ir as ir
import numpy
from xdsl.dialects import func, math
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation

from blkc.diagnostics import error_at, op_location
from blkc.dialects import blk
from blkc.dialects.simt import (
    NUM_WARPS_ATTR,
    WARP_SIZE,
    AllocLocalOp,
    AllocSharedOp,
    BarrierOp,
    ShuffleXorOp,
    ThreadsOp,
    VectorLoadOp,
    VectorStoreOp,
)
from blkc.dialects.types import PtrType
from blkc.runtime import llvm_emitter, small_floats
from blkc.runtime.llvm_emitter import I8, I32, I64, PTR, FunctionEmitter, Handler

TRIPLE = "nvptx64-nvidia-cuda"
I16 = ir.IntType(16)
HALF, F32, F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()
GLOBAL, SHARED = 1, 3
"""NVPTX address spaces."""


def emit_module(module: ModuleOp, arch: str) -> tuple[str, dict[str, int]]:
    """Translate every kernel of `module` (SIMT loop IR) to one LLVM module for NVPTX
    `arch` (`sm_80`, ...); return its text and each kernel's CTA size in threads."""
    llvm_module = ir.Module(name="blkc")
    llvm_module.triple = TRIPLE
    threads: dict[str, int] = {}
    for op in module.walk():
        if isinstance(op, func.FuncOp) and not op.is_declaration:
            attr = op.attributes.get(NUM_WARPS_ATTR)
            if not isinstance(attr, IntegerAttr):
                raise error_at(op, "the GPU code generator takes IR from convert-blk-to-simt")
            count = attr.value.data * WARP_SIZE
            name = NvptxKernelEmitter(llvm_module, op, count, arch).emit_kernel()
            threads[name] = count
    return str(llvm_module), threads


class NvptxKernelEmitter(FunctionEmitter):
    """One kernel, for NVPTX `arch`, run by CTAs of `threads` threads (see the module's
    docstring). Its pointer arguments are not `noalias`: a launch may pass one array twice
    (in place), unchecked."""

    target = "GPU"

    def __init__(self, module: ir.Module, function: func.FuncOp, threads: int, arch: str):
        super().__init__(module, function)
        self.threads = threads
        self.conversions = GpuConversions(arch)

    def emit_kernel(self) -> str:
        name = self.function.sym_name.data
        params = list(self.function.function_type.inputs.data)
        abi = [
            ir.PointerType(addrspace=GLOBAL) if isinstance(t, PtrType) else llvm_emitter.abi_type(t)
            for t in params
        ]
        kernel = ir.Function(self.module, ir.FunctionType(ir.VoidType(), abi), name=name)
        kernel.calling_convention = "ptx_kernel"
        self.module.add_named_metadata(
            "nvvm.annotations",
            [kernel, ir.MetaDataString(self.module, "maxntidx"), ir.Constant(I32, self.threads)],
        )
        self.open_function(kernel)
        self.bind_arguments(kernel.args)
        for axis in "xyz":
            self.grid[f"pid_{axis}"] = self._register(f"ctaid.{axis}")
            self.grid[f"nprog_{axis}"] = self._register(f"nctaid.{axis}")
        self.tid = self.builder.zext(self._register("tid.x"), I64)
        self.emit_program()
        return name

    def argument(self, llvm_arg: ir.Value, t: Attribute) -> ir.Value:
        """Pointers arrive in the global address space: generic from here on."""
        if isinstance(t, PtrType):
            return self.builder.addrspacecast(llvm_arg, PTR)
        return super().argument(llvm_arg, t)

    def _register(self, name: str) -> ir.Value:
        fn = self.declare(f"llvm.nvvm.read.ptx.sreg.{name}", I32, [])
        return self.builder.call(fn, [])

    def handler(self, op: Operation) -> Handler | None:
        return _HANDLERS.get(type(op))

    def convert_float(self, value: ir.Value, source: Attribute, target: Attribute) -> ir.Value:
        """With the target's conversion instructions (`GpuConversions`)."""
        return self.conversions.convert(self.builder, value, source, target)

    # -- simt ops ----------------------------------------------------------------------

    def emit_threads(self, op: ThreadsOp) -> None:
        self.values[op.tid] = self.tid
        self.emit_ops(op.body.block)

    def emit_barrier(self, op: BarrierOp) -> None:
        fn = self.declare("llvm.nvvm.barrier.cta.sync.aligned.all", ir.VoidType(), [I32])
        self.builder.call(fn, [ir.Constant(I32, 0)])

    def emit_shuffle(self, op: ShuffleXorOp) -> None:
        b = self.builder
        value = self.get(op.value)
        mask = op.lane_mask.value.data
        bits = _bit_width(value.type)
        as_int = value if isinstance(value.type, ir.IntType) else b.bitcast(value, ir.IntType(bits))
        pieces = []
        for shift in range(0, bits, 32):
            piece = b.lshr(as_int, ir.Constant(as_int.type, shift)) if shift else as_int
            word = b.trunc(piece, I32) if bits > 32 else b.zext(piece, I32) if bits < 32 else piece
            pieces.append(self._shuffle_word(word, mask))
        if bits <= 32:
            result = b.trunc(pieces[0], as_int.type) if bits < 32 else pieces[0]
        else:
            result = ir.Constant(as_int.type, 0)
            for k, piece in enumerate(pieces):
                wide = b.shl(b.zext(piece, as_int.type), ir.Constant(as_int.type, 32 * k))
                result = b.or_(result, wide)
        if not isinstance(value.type, ir.IntType):
            result = b.bitcast(result, value.type)
        self.set(op, result)

    def _shuffle_word(self, word: ir.Value, lane_mask: int) -> ir.Value:
        fn = self.declare("llvm.nvvm.shfl.sync.bfly.i32", I32, [I32, I32, I32, I32])
        full = ir.Constant(I32, -1)
        return self.builder.call(
            fn, [full, word, ir.Constant(I32, lane_mask), ir.Constant(I32, WARP_SIZE - 1)]
        )

    def emit_exp(self, op: math.ExpOp) -> None:
        """float32 exp through the hardware's `ex2.approx` (2 ulp): `2**t` for
        `t = x * log2(e)`, corrected by the rounding error of `t` (recovered with an fma,
        plus the error of log2(e) in float32), so the product's rounding, which Triton's
        `exp` keeps (up to a hundred ulp near the ends of the range), costs nothing
        here. Other types: `emit_wide_math`."""
        x = self.get(op.operand)
        if x.type != ir.FloatType():
            self.emit_wide_math(op, "exp", x)
            return
        b = self.builder

        def c(value: float) -> ir.Constant:
            return ir.Constant(ir.FloatType(), value)

        # Clamped (NaN kept) so that t and its error stay finite: 2**128 is already inf.
        x = self.intrinsic("llvm.maximum", x.type, [x, c(-104.0)])
        x = self.intrinsic("llvm.minimum", x.type, [x, c(89.0)])
        t = b.fmul(x, c(_LOG2E))
        # t - x * log2(e), exactly, then less x times log2(e)'s own error: minus the error
        # of t (negated constants instead of a negation).
        shortfall = self.intrinsic("llvm.fma", x.type, [x, c(-_LOG2E), t])
        shortfall = self.intrinsic("llvm.fma", x.type, [x, c(-_LOG2E_LO), shortfall])
        ex2 = self.declare("llvm.nvvm.ex2.approx.f", x.type, [x.type])
        power = b.call(ex2, [t])
        correction = b.fmul(shortfall, c(-_LN2))
        self.set(op, self.intrinsic("llvm.fma", x.type, [power, correction, power]))

    def emit_wide_math(self, op: Operation, name: str, x: ir.Value) -> None:
        """float64 math through libdevice (correctly rounded or within 1-2 ulp, by
        NVIDIA's documentation)."""
        if x.type != F64:
            super().emit_wide_math(op, name, x)
            return
        fn = self.declare(f"__nv_{name}", F64, [F64])
        self.set(op, self.builder.call(fn, [x]))

    def emit_named_math(self, op: blk.MathFnOp | blk.MathFn2Op) -> None:
        """C math functions through libdevice's `__nv_<name>f` and `__nv_<name>` (1-4 ulp
        in float32 by NVIDIA's documentation, most float64 ones within 2)."""
        name = op.fn.data
        args = [self.get(v) for v in op.operands]
        t = args[0].type
        if name == "ldexp":
            args[1] = self.intrinsic("llvm.fptosi.sat", I32, [args[1]], [I32, t])
        if name in ("jn", "yn"):  # the int order first
            t = args[1].type
            args[0] = self.intrinsic("llvm.fptosi.sat", I32, [args[0]], [I32, t])
        symbol = f"__nv_{name}" + ("f" if t == ir.FloatType() else "")
        self.set(op, self.builder.call(self.declare(symbol, t, [a.type for a in args]), args))

    def emit_print(self, op: blk.PrintOp) -> None:
        """`printf`'s format as on the CPU, through `vprintf(format, packed values)`."""
        b = self.builder
        vprintf = self.declare("vprintf", I32, [PTR, PTR])
        for text, values in self.print_lines(op):
            record = ir.LiteralStructType([v.type for v in values])
            packed = self.allocas.alloca(record)
            for index, value in enumerate(values):
                field = b.gep(packed, [ir.Constant(I32, 0), ir.Constant(I32, index)])
                b.store(value, field)
            b.call(vprintf, [text, b.bitcast(packed, PTR)])

    def emit_assert(self, op: blk.AssertOp) -> None:
        """`__assertfail(message, file, line, function, 1)` where the condition is false."""
        where = op_location(op)
        fail = self.declare("__assertfail", ir.VoidType(), [PTR, PTR, I32, PTR, I64])

        def call() -> None:
            arguments = [
                self.string(op.message.data),
                self.string(where.file if where else "<unknown>"),
                ir.Constant(I32, where.line if where else 0),
                self.string(self.function.sym_name.data),
                ir.Constant(I64, 1),
            ]
            self.builder.call(fail, arguments)

        self.emit_assertion(self.get(op.cond), call)

    def emit_alloc_shared(self, op: AllocSharedOp) -> None:
        array = llvm_emitter.buffer_type(op.memref.type)
        buffer = ir.GlobalVariable(
            self.module, array, name=f"shared{len(self.module.globals)}", addrspace=SHARED
        )
        buffer.linkage = "internal"
        buffer.initializer = ir.Constant(array, ir.Undefined)
        buffer.align = 16
        self.set(op, buffer)

    def emit_alloc_local(self, op: AllocLocalOp) -> None:
        slot = self.allocas.alloca(llvm_emitter.buffer_type(op.memref.type))
        slot.align = 16
        self.set(op, slot)

    def _vector(self, op: VectorLoadOp | VectorStoreOp) -> tuple[ir.VectorType, int]:
        """The LLVM vector `op` moves, and its alignment (its size: the lowering proved it)."""
        element = self.pointee(op.ptr)
        return ir.VectorType(element, op.width), op.width * self.element_size(op.ptr)

    def emit_vector_load(self, op: VectorLoadOp) -> None:
        b = self.builder
        vector, align = self._vector(op)
        ptr = self.get(op.ptr)
        value: ir.Value
        if op.mask is None:
            value = b.load(ptr, typ=vector, align=align)
        else:
            # Where masked off, the elements are `other`: Triton's `mov` then predicated
            # `ld`, after ptxas.
            masked: ir.Value = ir.Constant(vector, None)
            if op.other is not None:
                other = self.get(op.other)
                for lane in range(op.width):
                    masked = b.insert_element(masked, other, ir.Constant(I32, lane))
            start = b.block
            taken = b.function.append_basic_block("vector.load")
            merge = b.function.append_basic_block("vector.loaded")
            b.cbranch(self.get(op.mask), taken, merge)
            b.position_at_end(taken)
            loaded = b.load(ptr, typ=vector, align=align)
            b.branch(merge)
            b.position_at_end(merge)
            phi = b.phi(vector)
            phi.add_incoming(loaded, taken)
            phi.add_incoming(masked, start)
            value = phi
        b.store(value, b.bitcast(self.get(op.buffer), vector.as_pointer()), align=16)

    def emit_vector_store(self, op: VectorStoreOp) -> None:
        b = self.builder
        vector, align = self._vector(op)
        value = b.load(b.bitcast(self.get(op.buffer), vector.as_pointer()), typ=vector, align=16)
        ptr = self.get(op.ptr)

        def store() -> None:
            b.store(value, ptr, align=align)

        if op.mask is None:
            store()
        else:
            self.guarded(self.get(op.mask), store)


class GpuConversions:
    """Float conversions for NVPTX `arch`, rounding as `small_floats` does (to nearest
    even; overflow to infinity, or NaN for float8_e4m3fn, which has none):

    - float16, float32, float64 among themselves: LLVM's `fpext`/`fptrunc`, which NVPTX
      lowers to `cvt` (float64 to float16 too: one rounding, no software);
    - float32 to bfloat16: `cvt.rn.bf16.f32` (sm_80+); bfloat16 to float32 is a shift;
    - float32 to fp8 on sm_89+: `cvt.rn.satfinite.e4m3x2.f32` (`e5m2x2`), which saturates
      to the largest finite value where the format overflows: a compare against the
      rounding threshold puts the overflow encoding back;
    - fp8 to float32: float8_e5m2 is the top byte of a float16 on every arch; float8_e4m3fn
      goes through `cvt.rn.f16x2.e4m3x2` on sm_89+;
    - otherwise `small_floats`' software (float64 sources round to float32 first).
    """

    FP8_CVT = 89

    def __init__(self, arch: str):
        self.capability = int(arch.removeprefix("sm_").rstrip("a"))

    def convert(
        self, b: ir.IRBuilder, value: ir.Value, source: Attribute, target: Attribute
    ) -> ir.Value:
        native = {Float16Type: HALF, Float32Type: F32, Float64Type: F64}
        src, dst = native.get(type(source)), native.get(type(target))
        if src is not None and dst is not None:
            if src == dst:
                return value
            widths = {HALF: 16, F32: 32, F64: 64}
            return (b.fpext if widths[src] < widths[dst] else b.fptrunc)(value, dst)
        wide = self._to_f32(b, value, source)
        if dst is None:
            return self._from_f32(b, wide, target)
        return self.convert(b, wide, Float32Type(), target)

    def _to_f32(self, b: ir.IRBuilder, value: ir.Value, source: Attribute) -> ir.Value:
        if isinstance(source, Float8E5M2Type):
            half = b.bitcast(b.shl(b.zext(value, I16), ir.Constant(I16, 8)), HALF)
            return b.fpext(half, F32)
        if isinstance(source, Float8E4M3FNType) and self.capability >= self.FP8_CVT:
            pair = _asm(b, "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h", I32, [b.zext(value, I16)])
            return b.fpext(b.bitcast(b.trunc(pair, I16), HALF), F32)
        if isinstance(source, Float16Type | Float64Type):
            return (b.fpext if isinstance(source, Float16Type) else b.fptrunc)(value, F32)
        return small_floats.convert(b, value, source, Float32Type())

    def _from_f32(self, b: ir.IRBuilder, value: ir.Value, target: Attribute) -> ir.Value:
        if isinstance(target, BFloat16Type):
            return _asm(b, "cvt.rn.bf16.f32 $0, $1;", "=h,f", I16, [value])
        fmt = small_floats.E4M3FN if isinstance(target, Float8E4M3FNType) else None
        fmt = small_floats.E5M2 if isinstance(target, Float8E5M2Type) else fmt
        if fmt is None or self.capability < self.FP8_CVT:
            return small_floats.convert(b, value, Float32Type(), target)
        # The second source fills the low byte.
        pair = _asm(
            b,
            f"cvt.rn.satfinite.{fmt.name.removesuffix('fn')}x2.f32 $0, $1, $2;",
            "=h,f,f",
            I16,
            [ir.Constant(F32, 0.0), value],
        )
        encoded = b.trunc(pair, I8)
        fabs = b.module.globals.get("llvm.fabs.f32") or ir.Function(
            b.module, ir.FunctionType(F32, [F32]), name="llvm.fabs.f32"
        )
        magnitude = b.call(fabs, [value])
        threshold, inclusive = _OVERFLOW[fmt.name]
        beyond = b.fcmp_ordered(">=" if inclusive else ">", magnitude, ir.Constant(F32, threshold))
        sign = b.and_(b.lshr(b.bitcast(value, I32), ir.Constant(I32, 24)), ir.Constant(I32, 0x80))
        overflow = b.trunc(b.or_(sign, ir.Constant(I32, fmt.overflow)), I8)
        return b.select(beyond, overflow, encoded)


_OVERFLOW = {"e4m3fn": (464.0, False), "e5m2": (61440.0, True)}
"""Where rounding to nearest even leaves the finite range: halfway between the largest
finite value and the next power of the format's step; float8_e4m3fn's halfway case rounds
to even (448, its largest), float8_e5m2's to even (65536: infinity)."""


def _asm(
    b: ir.IRBuilder, text: str, constraints: str, result: ir.Type, args: list[ir.Value]
) -> ir.Value:
    """One PTX instruction, as inline assembly (no NVVM intrinsic in this LLVM's IR
    types: llvmlite has no bfloat); `readnone`, so LLVM may merge and move it."""
    fn = ir.FunctionType(result, [a.type for a in args])
    return b.call(ir.InlineAsm(fn, text, constraints), args, attrs=("readnone",))


def _bit_width(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return t.width
    return {"half": 16, "float": 32, "double": 64}[str(t)]


_LOG2E = float(numpy.float32(1.4426950408889634))
_LOG2E_LO = 1.4426950408889634 - _LOG2E
_LN2 = 0.6931471805599453


def _emit_global_timer(e: NvptxKernelEmitter, op: blk.GlobalTimerOp) -> None:
    timer = e.declare("llvm.nvvm.read.ptx.sreg.globaltimer", I64, [])
    e.set(op, e.builder.call(timer, []))


_HANDLERS: dict[type[Operation], Handler] = {
    **llvm_emitter.HANDLERS,
    blk.GlobalTimerOp: _emit_global_timer,
    ThreadsOp: NvptxKernelEmitter.emit_threads,
    BarrierOp: NvptxKernelEmitter.emit_barrier,
    ShuffleXorOp: NvptxKernelEmitter.emit_shuffle,
    AllocSharedOp: NvptxKernelEmitter.emit_alloc_shared,
    AllocLocalOp: NvptxKernelEmitter.emit_alloc_local,
    VectorLoadOp: NvptxKernelEmitter.emit_vector_load,
    VectorStoreOp: NvptxKernelEmitter.emit_vector_store,
    math.ExpOp: NvptxKernelEmitter.emit_exp,
    blk.PrintOp: NvptxKernelEmitter.emit_print,
    blk.AssertOp: NvptxKernelEmitter.emit_assert,
}
