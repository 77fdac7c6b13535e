"""The `triton-compat` policy: what Triton 3.9's front end does, where it departs from its
own semantics page.

People porting Triton kernels need the dtypes Triton gives them. The front end's rules, in
order (facts measured from triton 3.9.0, `tables/triton.json`):

1. float64 wins; then float32; then float16; two bfloat16 give bfloat16 and bfloat16 with
   anything else float32 (the page says bfloat16 with integers gives bfloat16, and
   float16 with bfloat16 float32);
2. two fp8 types give themselves when equal, float16 otherwise;
3. any other mix with a float is refused (fp8 with integers: the page says fp8);
4. integers follow C's usual arithmetic conversions (wider wins; at equal width unsigned
   wins; bool counts as an unsigned 1-bit integer).

Division (``/``, ``//``, ``%``) differs: any float other than float64 computes in float32,
integers of different signedness are refused, and ``//`` on floats is refused. A literal
of a kind not above the other operand's does not take part, except that division of
float16 and bfloat16 still computes in float32.

Float functions (``exp``, ``sqrt``, ``floor``, ...) take float32 and float64 only. Reductions,
scans and ``dot`` are the `triton` policy's, which follows the front end there.

Atomics: read-modify-writes on elements narrower than 32 bits (16-bit floats under
``atomic_add`` excepted) and compare-and-swap on 8-bit elements are refused
(``atomic-width``), as the front end refuses them; the CPU backends have atomics of every
width, which the other policies allow.

Refused, as the front end refuses them: fp8 with integers or bools (``fp8-integer``), ``/``,
``//`` and ``%`` of integers of different signedness (``division-signedness``), ``//`` on
floats (``float-floordiv``), float functions of anything but float32 and float64
(``float-function``), and what the `triton` policy refuses (literal ranges, complex
literals, bitwise operations on floats, ``dot`` operands).

Departures (`tables/departures.json`): ``dot`` with an accumulator gives the accumulator's
dtype, as the ``tt.dot`` the front end emits computes, where the front end's tensor claims
another dtype; an explicit accumulator dtype is honoured (the front end ignores
``out_dtype=float16`` except for float16 and fp8 operands); int8 and fp8 ``dot`` are
accepted whatever K (the front end's K >= 32 check is about the GPU's MMA shapes).
"""

from __future__ import annotations

from blkc import dtypes
from blkc.dtypes import DType
from blkc.promotion.base import Decision, Operand, Promotion
from blkc.promotion.computation import Computation
from blkc.promotion.triton import TritonPolicy

DIVISIONS = (Computation.TRUEDIV, Computation.FLOORDIV, Computation.MOD)

_TRITON_NAMES = {
    dtypes.bool_: "int1",
    dtypes.float16: "fp16",
    dtypes.bfloat16: "bf16",
    dtypes.float32: "fp32",
    dtypes.float64: "fp64",
    dtypes.float8_e4m3fn: "fp8e4nv",
    dtypes.float8_e5m2: "fp8e5",
}


def triton_name(d: DType) -> str:
    """What Triton's messages call `d` (``fp16``, ``int1``)."""
    return _TRITON_NAMES.get(d, d.name)


class TritonCompatPolicy(TritonPolicy):
    name = "triton-compat"

    def join(self, a: DType, b: DType, computation: Computation = Computation.ARITH) -> Promotion:
        divides = computation in DIVISIONS
        pair = {a, b}
        if dtypes.float64 in pair:
            return Promotion(dtypes.float64, "float64")
        if a.is_float or b.is_float:
            if divides:
                return Promotion(dtypes.float32, "division-in-float32")
            if dtypes.float32 in pair:
                return Promotion(dtypes.float32, "float32")
            if dtypes.float16 in pair:
                return Promotion(dtypes.float16, "float16")
            if pair == {dtypes.bfloat16}:
                return Promotion(dtypes.bfloat16, "same")
            if dtypes.bfloat16 in pair:
                return Promotion(dtypes.float32, "bfloat16-mix")
            if a.is_fp8 and b.is_fp8:
                return Promotion(a, "same") if a == b else Promotion(dtypes.float16, "fp8-pair")
            raise self.refuse(
                f"{a.name} and {b.name}: Triton's front end does not mix fp8 with integers",
                "fp8-integer",
            )
        if divides and (a.is_unsigned or a.is_bool) != (b.is_unsigned or b.is_bool):
            raise self.refuse(
                f"Cannot use /, #, or % with {a.name} and {b.name} because they have different "
                "signedness: Triton refuses /, // and % on them; cast them to the same "
                "signedness",
                "division-signedness",
            )
        if a == b:
            return Promotion(a, "same")
        if a.width != b.width:
            return Promotion(a if a.width > b.width else b, "width")
        return Promotion(a if not a.signed else b, "prefer-unsigned")

    def join_literal(
        self, typed: DType, literal: Operand, computation: Computation = Computation.ARITH
    ) -> Promotion:
        lone = self.literal_dtype(literal)
        if literal.kind <= typed.kind:
            if computation in DIVISIONS and typed in (dtypes.float16, dtypes.bfloat16):
                return Promotion(dtypes.float32, "division-in-float32")
            return Promotion(typed, "weak-literal")
        return self.join(typed, lone, computation)

    def math_dtype(self, d: DType) -> Promotion:
        if d in (dtypes.float32, dtypes.float64):
            return Promotion(d, "same")
        raise self.refuse(
            f"Expected dtype ['fp32', 'fp64'] but got {triton_name(d)}: Triton's front end "
            "takes float32 and float64 only in float functions (tl.exp, tl.sqrt, tl.floor, "
            "...); cast it to float32",
            "float-function",
        )

    def check_atomic(self, kind: str, d: DType) -> None:
        name = triton_name(d)
        if kind == "cas":
            if d.width not in (16, 32, 64):
                raise self.refuse(
                    f"atomic_cas only supports elements with width {{16, 32, 64}}, not {name} "
                    "(Triton's front end)",
                    "atomic-width",
                )
            return
        if d in (dtypes.float16, dtypes.bfloat16) and kind != "add":
            raise self.refuse(
                f"atomic_{kind} does not support {name} (Triton's front end); only atomic_add "
                "takes 16-bit floats",
                "atomic-width",
            )
        if d in (dtypes.int16, dtypes.uint16) or d.width < 16:
            raise self.refuse(
                f"atomic_{kind} does not support {name} (Triton's front end refuses atomics "
                "on elements narrower than 32 bits but for 16-bit floats)",
                "atomic-width",
            )

    def decide(self, computation: Computation, operands) -> Decision:  # type: ignore[no-untyped-def]
        decision = super().decide(computation, operands)
        if computation is Computation.FLOORDIV and decision.compute.is_float:
            raise self.refuse(
                f"{' // '.join(str(o) for o in operands)} computes in {decision.compute.name}: "
                "Triton's front end refuses // on floats",
                "float-floordiv",
            )
        return decision
