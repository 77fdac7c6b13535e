"""`python -m blkc.as_triton` and `pytest -p blkc.as_triton`: programs and test suites
written for Triton run on blkc unchanged."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

PROGRAM = """
import sys
import numpy
import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.runtime.errors import OutOfResources


@triton.jit
def gelu_tanh(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tl.store(out_ptr + offsets, 0.5 * x * (1 + libdevice.tanh(inner)), mask=mask)


if __name__ == "__main__":
    x = numpy.linspace(-4, 4, 1000, dtype=numpy.float32)
    out = numpy.empty_like(x)
    gelu_tanh[(triton.cdiv(1000, 256),)](x, out, 1000, BLOCK=256)
    inner = 0.7978845608028654 * (x + 0.044715 * x**3)
    expected = 0.5 * x * (1 + numpy.tanh(inner))
    assert numpy.allclose(out, expected, atol=1e-6), abs(out - expected).max()
    device = triton.runtime.driver.active.get_active_torch_device()
    print(triton.__version__, sys.argv[1:], str(device), triton.testing.do_bench is not None)
"""


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=dict(os.environ)
    )


def test_a_triton_program_runs_unchanged(tmp_path: Path) -> None:
    script = tmp_path / "gelu.py"
    script.write_text(PROGRAM)
    result = run("-m", "blkc.as_triton", str(script), "--size", "7")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["3.9.0", "['--size',", "'7']", "cpu", "True"]
    (tmp_path / "gelu_module.py").write_text(PROGRAM)
    result = run("-m", "blkc.as_triton", "-m", "gelu_module", "x", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.split()[1] == "['x']", result.stderr


def test_a_triton_test_suite_runs_as_a_pytest_plugin(tmp_path: Path) -> None:
    (tmp_path / "test_gelu.py").write_text(
        PROGRAM.split('if __name__ == "__main__":')[0]
        + "\n\ndef test_gelu():\n"
        + "    import numpy\n"
        + "    x = numpy.ones(8, numpy.float32)\n"
        + "    out = numpy.zeros_like(x)\n"
        + "    gelu_tanh[(1,)](x, out, 8, BLOCK=8)\n"
        + "    assert abs(out[0] - 0.8411920) < 1e-6\n"
    )
    result = run("-m", "pytest", "-q", "-p", "blkc.as_triton", "-p", "no:cacheprovider",
                 str(tmp_path / "test_gelu.py"))  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_modules_without_a_counterpart_and_the_real_triton_are_refused(tmp_path: Path) -> None:
    script = tmp_path / "tools.py"
    script.write_text("import triton.tools.tensor_descriptor\nimport triton.tools.mxfp\n")
    result = run("-m", "blkc.as_triton", str(script))
    assert result.returncode == 1
    assert "triton.tools.mxfp has no blkc counterpart" in result.stderr
    assert run("-m", "blkc.as_triton").returncode == 2  # no script: the usage


def test_install_refuses_when_triton_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    from blkc import as_triton

    monkeypatch.setitem(sys.modules, "triton", types.ModuleType("triton"))
    with pytest.raises(RuntimeError, match="the real Triton is already imported"):
        as_triton.install()


def test_asm_answers_to_tritons_stage_names() -> None:
    import numpy

    import blkc
    import blkc.language as tl

    @blkc.jit
    def copy(x_ptr, y_ptr):
        tl.store(y_ptr + tl.arange(0, 8), tl.load(x_ptr + tl.arange(0, 8)))

    x = numpy.zeros(8, numpy.float32)
    asm = copy.warmup(x, x).asm
    assert asm["ttir"] == asm["strict"] and "blk.load" in asm["ttir"]
    assert asm["llir"] == asm["llvm"] and "define" in asm["llir"]


DIVISION = """
import numpy, triton, triton.language as tl, blkc


@triton.jit
def divide(x_ptr, y_ptr, out_ptr):
    o = tl.arange(0, 4)
    q = tl.load(x_ptr + o) / tl.load(y_ptr + o)
    tl.static_assert(q.dtype == tl.float32)  # Triton 3.9: float16 division in float32
    tl.store(out_ptr + o, q)


out = numpy.zeros(4, numpy.float32)
x, y = numpy.float16([1, 2, 100, 7]), numpy.float16([3, 3, 7, 9])
divide[(1,)](x, y, out)
assert (out == x.astype(numpy.float32) / y.astype(numpy.float32)).all(), out
from blkc.promotion import default_policy
print(default_policy())
"""


def test_code_written_for_triton_follows_triton_compat(tmp_path: Path) -> None:
    """Under `as_triton` the default policy is `triton-compat` (Triton 3.9's front end: the
    quotient of float16 blocks is float32, not float16 as under the semantics page's
    `triton`); `BLKC_POLICY` still chooses another."""
    script = tmp_path / "divide.py"
    script.write_text(DIVISION)
    result = run("-m", "blkc.as_triton", str(script))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["triton-compat"]
    env = {**os.environ, "BLKC_POLICY": "triton"}
    result = subprocess.run([sys.executable, "-m", "blkc.as_triton", str(script)],
                            capture_output=True, text=True, env=env)  # fmt: skip
    assert result.returncode != 0 and "static_assert" in result.stderr


LIBRARY_IMPORTS = """
import numpy, triton, triton.language as tl
from triton.language.extra.cuda import libdevice
from triton.runtime.autotuner import Autotuner, Heuristics
from triton.runtime.jit import constexpr_function
from triton.language.target_info import is_cuda, is_hip
from triton.language.standard import _get_int_dtype, _is_power_of_two, _log2


@constexpr_function
def lanes(n):
    return triton.next_power_of_2(n)


@tl.constexpr
def doubling(dtype):  # Triton's constexpr.__call__ runs it while the kernel compiles
    return dtype.value if _is_power_of_two(2) else None


@triton.jit
def rsqrt(x_ptr, out_ptr, N: tl.constexpr, BITS: tl.constexpr):
    o = tl.arange(0, lanes(N))
    y = libdevice.rsqrt(tl.load(x_ptr + o, mask=o < N))
    if is_cuda() or is_hip():  # decided while it compiles: neither on the CPU
        y = y * 2
    shifts: tl.constexpr = _log2(BITS)  # 5
    y = y + (tl.full([lanes(N)], 1, _get_int_dtype(BITS, False)) << shifts).to(doubling(tl.float32))
    tl.store(out_ptr + o, y, mask=o < N)


x = numpy.full(4, 4.0, numpy.float32)
out = numpy.zeros_like(x)
rsqrt.run(x, out, 3, 32, grid=(1,), warmup=False)
compiled = rsqrt.run(x, out, 3, 32, grid=(1,), warmup=True)
classes = isinstance(Autotuner, type), isinstance(Heuristics, type)
print(out.tolist(), "llvm" in compiled.asm, *classes)
names = (triton.KernelInterface, triton.runtime.Autotuner, triton.runtime.Heuristics)
print(all(isinstance(c, type) for c in names), rsqrt.__globals__ is globals())
key = rsqrt.cache_key
print(isinstance(key, str) and len(key) > 16, key == rsqrt.cache_key)
"""


def test_the_import_paths_and_run_signature_kernel_libraries_use(tmp_path: Path) -> None:
    """`triton.language.extra.cuda.libdevice`, `triton.runtime.autotuner`,
    `triton.runtime.jit.constexpr_function`, `triton.language.target_info`, the helpers of
    `triton.language.standard`, a function decorated with `@tl.constexpr`, `dtype.value`,
    `kernel.run(..., grid=..., warmup=...)`, `kernel.cache_key` and `kernel.__globals__`,
    as Triton kernel libraries write them."""
    script = tmp_path / "library.py"
    script.write_text(LIBRARY_IMPORTS)
    result = run("-m", "blkc.as_triton", str(script))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        *["[32.5,", "32.5,", "32.5,", "0.0]", "True", "True", "True"],
        *["True", "True", "True", "True"],
    ]


TORCH_INTEGRATION = """
import torch, triton, triton.language as tl
from torch.library import triton_op, wrap_triton


@triton.jit
def add_one(X, N, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(X + o, tl.load(X + o, mask=o < N) + 1, mask=o < N)


@triton_op("blkc_test::add_one", mutates_args={"x"})
def add_one_op(x: torch.Tensor) -> None:
    wrap_triton(add_one)[(1,)](x, x.numel(), BLOCK=16)


@torch.compiler.disable
def doubled(t):
    return t * 2


x = torch.zeros(10)
wrap_triton(add_one)[(1,)](x, 10, BLOCK=16)
add_one_op(x)
torch.ops.blkc_test.add_one(x)
print(doubled(x).tolist())
"""


def test_torchs_triton_integration_runs_on_blkc(tmp_path: Path) -> None:
    """`torch.library.wrap_triton`, `triton_op` and `torch.compiler.disable`, as
    flash-attention and flash-linear-attention call them: torch, finding `triton`,
    imports `triton.backends.compiler`, `triton.compiler.compiler` (`triton_key`),
    `triton.runtime.autotuner.OutOfResources` and `triton.runtime.jit.KernelInterface`."""
    script = tmp_path / "torch_integration.py"
    script.write_text(TORCH_INTEGRATION)
    result = run("-m", "blkc.as_triton", str(script))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[6.0,"] + ["6.0,"] * 8 + ["6.0]"]


SUBMODULE_ATTRIBUTES = """
import numpy, triton, triton.language as tl


@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.arange(0, BLOCK).to(tl.float32))


source = triton.compiler.ASTSource(fn=kernel, signature={"x_ptr": "*fp32"}, constexprs={"BLOCK": 8})
compiled = triton.compile(source)
x = numpy.zeros(8, numpy.float32)
compiled[(1, 1, 1)](x)
print(x.tolist())
print(triton.compiler.errors.CompilationError is triton.CompilationError)
print(triton.backends.compiler.GPUTarget.__name__)
try:
    triton.compile(triton.compiler.ASTSource(kernel, {"x_ptr": "*fp32"}, {"BLOCK": 6}))
except triton.compiler.errors.CompilationError as err:
    print("refused:", "must be a power of two" in str(err))
"""


def test_triton_compile_and_the_compiler_packages_submodules(tmp_path: Path) -> None:
    """`triton.compiler.errors` and `triton.backends.compiler` as attributes (Triton's
    packages import them), and `triton.compile(triton.compiler.ASTSource(...))`."""
    script = tmp_path / "compile_source.py"
    script.write_text(SUBMODULE_ATTRIBUTES)
    result = run("-m", "blkc.as_triton", str(script))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        str([float(i) for i in range(8)]),
        "True",
        "Target",
        "refused: True",
    ]
