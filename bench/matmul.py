"""`tl.dot` against torch: matmul in four dtypes and the fused attention forward, with
GFLOP/s and the share of the CPU's FMA peak.

    python bench/matmul.py [--quick] [--threads N] [--sizes 256 512 ...] [--out [DIR]]

- matmul: Triton's tutorial kernel (tiles of C, a K loop of `tl.dot`, grouped program
  order) on squares of 256 to 4096, for float32, float16 and bfloat16 inputs (float32
  accumulation, the result in the input dtype) and int8 inputs (int32 accumulation and
  result); torch computes `a @ b` in the same dtype (int8 wraps to int8 there);
- attention: the forward of Triton's fused-attention tutorial (online softmax over key
  blocks, `tl.dot` for Q K^T and P V), float32, 4 heads of 1024 and 2048 tokens, head
  dimension 64 and 128, causal and not, against torch's `scaled_dot_product_attention`.

Each blkc case tries the block shapes of `CONFIGS` (as `blkc.autotune` would) and keeps
the fastest; every result is checked against torch's first. blkc and torch run on the
same number of threads (--threads, default every core). The FMA peak is measured, not
looked up: a loop of independent float32 FMAs on the widest vectors the code generator
uses (`blkc.runtime.cpu_target`), per core, times the threads. With --out (default
bench/results) it writes matmul.txt and, where matplotlib is installed, matmul.png
(GFLOP/s against size).
"""

from __future__ import annotations

import argparse
import ctypes
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import blkc  # noqa: E402
import blkc.language as tl  # noqa: E402
from blkc.runtime import cpu_target  # noqa: E402

CONFIGS = ((64, 64, 64), (128, 128, 64), (128, 256, 64), (256, 128, 64), (128, 128, 128))
"""Block shapes (M, N, K) each matmul case tries."""


@blkc.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr, ACC: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=ACC)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@blkc.jit
def attention_forward(
    q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, N_CTX,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
):  # fmt: skip
    """One BLOCK_M-row block of one head's output (q, k, v, o: [heads, N_CTX, HEAD_DIM])."""
    start_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # exp(x) = exp2(x * log2(e))
    hi = (start_m + 1) * BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        kv = head + (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :]
        k = tl.load(k_ptr + kv)
        qk = tl.dot(q, tl.trans(k))
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= start_n + offs_n[None, :], qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + kv)
        acc = tl.dot(p, v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc)


# -- the machine ----------------------------------------------------------------------


def fma_peak_per_core() -> float:
    """float32 FLOP/s of one core running independent FMAs on the code generator's vectors
    (12 accumulators: more than the FMA latency times the FMA units of any x86 core)."""
    from blkc.runtime.jit import compile_ir

    lanes, chains = cpu_target.host().lanes(32), 12
    vec = f"<{lanes} x float>"
    fma = f"@llvm.fma.v{lanes}f32"
    phis = "\n".join(
        f"  %a{i} = phi {vec} [ zeroinitializer, %entry ], [ %b{i}, %loop ]" for i in range(chains)
    )
    body = "\n".join(
        f"  %b{i} = call {vec} {fma}({vec} %a{i}, {vec} %x, {vec} %y)" for i in range(chains)
    )
    sums = "\n".join(
        f"  %s{i} = fadd {vec} %b{i}, " + (f"%s{i - 1}" if i else "zeroinitializer")
        for i in range(chains)
    )
    ir = f"""
declare {vec} {fma}({vec}, {vec}, {vec})
define float @peak(i64 %n, float %s) {{
entry:
  %x0 = insertelement {vec} undef, float %s, i32 0
  %x = shufflevector {vec} %x0, {vec} undef, <{lanes} x i32> zeroinitializer
  %y = fadd {vec} %x, %x
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
{phis}
{body}
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %done
done:
{sums}
  %r = extractelement {vec} %s{chains - 1}, i32 0
  ret float %r
}}
"""
    module = compile_ir(ir, 3)
    peak = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_int64, ctypes.c_float)(module.address("peak"))
    steps = 5_000_000
    best = math.inf
    for _ in range(5):
        start = time.perf_counter()
        peak(steps, 1e-9)
        best = min(best, time.perf_counter() - start)
    return steps * chains * lanes * 2 / best


# -- timing ---------------------------------------------------------------------------


def best_seconds(run: Callable[[], object], repeat: int) -> float:
    run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


@dataclass(frozen=True)
class Row:
    case: str
    shape: str
    dtype: str
    flops: float
    blkc_s: float
    torch_s: float
    config: str

    def gflops(self, seconds: float) -> float:
        return self.flops / seconds / 1e9


DTYPES = {
    "float32": (torch.float32, tl.float32, 1e-4),
    "float16": (torch.float16, tl.float32, 2e-2),
    "bfloat16": (torch.bfloat16, tl.float32, 5e-2),
    "int8": (torch.int8, tl.int32, 0),
}


def case_matmul(size: int, dtype: str, threads: int, repeat: int) -> Row:
    torch_dtype, acc, tolerance = DTYPES[dtype]
    generator = torch.Generator().manual_seed(size)
    if dtype == "int8":
        a = torch.randint(-128, 128, (size, size), dtype=torch.int8, generator=generator)
        b = torch.randint(-128, 128, (size, size), dtype=torch.int8, generator=generator)
        c = torch.empty((size, size), dtype=torch.int32)
        expected = a.to(torch.int32) @ b.to(torch.int32)
    else:
        a = torch.randn((size, size), generator=generator).to(torch_dtype)
        b = torch.randn((size, size), generator=generator).to(torch_dtype)
        c = torch.empty((size, size), dtype=torch_dtype)
        expected = (a.float() @ b.float()).to(torch_dtype)
    best, chosen = math.inf, ""
    for bm, bn, bk in CONFIGS:
        if bm > size or bn > size or bk > size:
            continue
        grid = (blkc.cdiv(size, bm) * blkc.cdiv(size, bn),)

        def run(bm: int = bm, bn: int = bn, bk: int = bk, grid: tuple[int] = grid) -> None:
            matmul_kernel[grid](
                a, b, c, size, size, size, size, 1, size, 1, size, 1,
                BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, ACC=acc,
                num_cpu_threads=threads,
            )  # fmt: skip

        run()
        if tolerance:
            torch.testing.assert_close(
                c.float(), expected.float(), rtol=tolerance, atol=tolerance * math.sqrt(size)
            )
        else:
            assert torch.equal(c, expected), "int8 matmul differs from torch"
        seconds = best_seconds(run, repeat)
        if seconds < best:
            best, chosen = seconds, f"{bm}x{bn}x{bk}"
    torch_s = best_seconds(lambda: a @ b, repeat) if dtype != "float16" or size <= 512 else math.nan
    return Row("matmul", f"{size}^3", dtype, 2 * size**3, best, torch_s, chosen)


def case_attention(
    tokens: int, head_dim: int, causal: bool, threads: int, repeat: int, heads: int = 4
) -> Row:
    generator = torch.Generator().manual_seed(tokens + head_dim)
    q, k, v = (torch.randn((heads, tokens, head_dim), generator=generator) for _ in range(3))
    o = torch.empty_like(q)
    scale = 1 / math.sqrt(head_dim)
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    best, chosen = math.inf, ""
    for block_m, block_n in ((64, 64), (128, 64)):
        grid = (tokens // block_m, heads)

        def run(
            block_m: int = block_m, block_n: int = block_n, grid: tuple[int, int] = grid
        ) -> None:
            attention_forward[grid](
                q, k, v, o, scale, tokens, HEAD_DIM=head_dim, BLOCK_M=block_m,
                BLOCK_N=block_n, CAUSAL=causal, num_cpu_threads=threads,
            )  # fmt: skip

        run()
        torch.testing.assert_close(o, expected, rtol=1e-4, atol=1e-4)
        seconds = best_seconds(run, repeat)
        if seconds < best:
            best, chosen = seconds, f"{block_m}x{block_n}"
    torch_s = best_seconds(
        lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal),
        repeat,
    )
    flops = 4 * heads * tokens * tokens * head_dim * (0.5 if causal else 1.0)
    shape = f"{heads}x{tokens}x{head_dim}" + (" causal" if causal else "")
    return Row("attention fwd", shape, "float32", flops, best, torch_s, chosen)


def render(rows: list[Row], peak: float, threads: int) -> str:
    target = cpu_target.host()
    lines = [
        f"CPU: {cpu_target.model_name()} ({target.describe()}), {threads} thread(s); "
        f"measured float32 FMA peak {peak / 1e9:.0f} GFLOP/s",
        "",
        "| case | shape | dtype | blkc ms | blkc GFLOP/s | % of peak | torch ms | torch GFLOP/s "
        "| blkc / torch speed | blocks |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        torch_ms = "n/a" if math.isnan(r.torch_s) else f"{r.torch_s * 1e3:.2f}"
        torch_gf = "n/a" if math.isnan(r.torch_s) else f"{r.gflops(r.torch_s):.0f}"
        ratio = "n/a" if math.isnan(r.torch_s) else f"{r.torch_s / r.blkc_s:.2f}x"
        lines.append(
            f"| {r.case} | {r.shape} | {r.dtype} | {r.blkc_s * 1e3:.2f} | {r.gflops(r.blkc_s):.0f} "
            f"| {100 * r.gflops(r.blkc_s) * 1e9 / peak:.0f}% | {torch_ms} | {torch_gf} | {ratio} "
            f"| {r.config} |"
        )
    return "\n".join(lines)


def plot(rows: list[Row], peak: float, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    figure, axis = plt.subplots(figsize=(8, 5))
    for dtype in DTYPES:
        mine = [r for r in rows if r.case == "matmul" and r.dtype == dtype]
        if not mine:
            continue
        sizes = [int(r.shape.split("^")[0]) for r in mine]
        line = axis.plot(sizes, [r.gflops(r.blkc_s) for r in mine], "o-", label=f"blkc {dtype}")
        theirs = [
            (s, r.gflops(r.torch_s))
            for s, r in zip(sizes, mine, strict=True)
            if not math.isnan(r.torch_s)
        ]
        if theirs:
            axis.plot(
                *zip(*theirs, strict=True), "x--", color=line[0].get_color(), label=f"torch {dtype}"
            )
    axis.axhline(peak / 1e9, color="gray", linestyle=":", label="float32 FMA peak")
    axis.set_xscale("log", base=2)
    axis.set_ylim(bottom=0)
    axis.set_xlabel("matrix size (n x n x n)")
    axis.set_ylabel("GFLOP/s")
    axis.set_title(f"tl.dot matmul on {cpu_target.model_name()}")
    axis.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    parser.add_argument("--sizes", type=int, nargs="*", default=None)
    parser.add_argument("--dtypes", nargs="*", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--no-attention", action="store_true")
    parser.add_argument("--out", nargs="?", const=str(ROOT / "bench" / "results"), default=None)
    args = parser.parse_args(argv)
    from blkc.runtime.launch import cores

    threads = args.threads or cores()
    torch.set_num_threads(threads)
    sizes = args.sizes or ([256, 512] if args.quick else [256, 512, 1024, 2048, 4096])
    peak = fma_peak_per_core() * threads
    rows = []
    for dtype in args.dtypes:
        for size in sizes:
            repeat = 2 if size >= 4096 else 3
            rows.append(case_matmul(size, dtype, threads, repeat))
            print(render(rows[-1:], peak, threads).splitlines()[-1], flush=True)
    if not args.no_attention:
        tokens_list = [256] if args.quick else [1024, 2048]
        for tokens in tokens_list:
            for head_dim in (64, 128):
                for causal in (False, True):
                    rows.append(case_attention(tokens, head_dim, causal, threads, 3))
                    print(render(rows[-1:], peak, threads).splitlines()[-1], flush=True)
    table = render(rows, peak, threads)
    print()
    print(table)
    if args.out is not None:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "matmul.txt").write_text(table + "\n")
        if plot(rows, peak, out / "matmul.png"):
            print(f"wrote {out / 'matmul.txt'} and {out / 'matmul.png'}")


if __name__ == "__main__":
    main()
