"""`blkc FILE.py`: every example builds from its constexpr values alone, `--signature`
types (Triton's spelling, `i32:16` included) and nothing assumed beyond them: no integer is
a multiple of 16, so no vector access, unless the signature says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from blkc.runtime import ptx
from blkc.tools.blkc_main import main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

CONSTEXPR_VALUES = {
    "vector_add.py": ["-DBLOCK_SIZE=1024"],
    "softmax.py": ["-DBLOCK_SIZE=1024"],
    "matmul.py": ["-DBLOCK_SIZE_M=32", "-DBLOCK_SIZE_N=32", "-DBLOCK_SIZE_K=32"],
    "layernorm.py": ["-DBLOCK_SIZE=1024"],
    "mixed_dtypes.py": ["-DBLOCK_SIZE=1024"],
    "int_division.py": ["-DBLOCK_SIZE=1024"],
    "dropout.py": ["-DBLOCK_SIZE=1024"],
}
"""Each Python example with a kernel, and the `-D` values of its constexprs."""

DOCUMENTED_SIGNATURES = {
    "mixed_dtypes.py": "a_ptr=*i32,b_ptr=*fp16,c_ptr=*u8,d_ptr=*i8,e_ptr=*fp32,"
    "sum_ptr=*fp16,prod_ptr=*fp32,bytes_ptr=*u8,scaled_ptr=*fp32",
    "int_division.py": "a_ptr=*i32,b_ptr=*i32,quotient_ptr=*i32,remainder_ptr=*i32",
}
"""The `--signature` docs/python_frontend.md gives for the examples whose arrays are not
float32 (without it they build for float32 arrays)."""


def blkc(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_every_python_example_is_listed() -> None:
    examples = {p.name for p in EXAMPLES.glob("*.py") if "@triton.jit" in p.read_text()}
    assert examples == set(CONSTEXPR_VALUES)


@pytest.mark.parametrize("example", sorted(CONSTEXPR_VALUES))
def test_example_builds_from_its_constexpr_values_alone(
    example: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = blkc(
        str(EXAMPLES / example), *CONSTEXPR_VALUES[example], "--emit=loose", capsys=capsys
    )
    assert status == 0, err
    assert "blk.divisibility" not in out


@pytest.mark.parametrize("example", sorted(DOCUMENTED_SIGNATURES))
def test_example_builds_with_its_documented_signature(
    example: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = blkc(
        str(EXAMPLES / example),
        *CONSTEXPR_VALUES[example],
        "--signature",
        DOCUMENTED_SIGNATURES[example],
        "--emit=loose",
        capsys=capsys,
    )
    assert status == 0, err
    assert "%a_ptr: !blk.ptr<i32>" in out


def test_layernorm_parameters_get_the_types_their_use_decides(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = blkc(
        str(EXAMPLES / "layernorm.py"), "-DBLOCK_SIZE=1024", "--emit=loose", capsys=capsys
    )
    assert status == 0, err
    assert (
        "(%X: !blk.ptr<f32>, %Y: !blk.ptr<f32>, %W: !blk.ptr<f32>, %B: !blk.ptr<f32>, "
        "%Mean: !blk.ptr<f32>, %Rstd: !blk.ptr<f32>, %stride: i32, %N: i32, %eps: f32)"
    ) in out


def vector_add_ptx(capsys: pytest.CaptureFixture[str], *signature: str) -> str:
    status, out, err = blkc(
        str(EXAMPLES / "vector_add.py"), "-DBLOCK_SIZE=1024", "--target=ptx", "--emit=ptx",
        *signature, capsys=capsys,
    )  # fmt: skip
    assert status == 0, err
    if ptx.ptxas_available():
        assert ptx.assemble(out, "sm_90") is not None
    return out


def test_ptx_has_no_vector_access_without_a_multiple_of_16_promise(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = vector_add_ptx(capsys)
    assert ".v4" not in code
    assert "ld.global.b32" in code


def test_ptx_has_vector_accesses_with_i32_16(capsys: pytest.CaptureFixture[str]) -> None:
    code = vector_add_ptx(capsys, "--signature", "n_elements=i32:16")
    assert "ld.global.v4.b32" in code
    assert "st.global.v4.b32" in code


@pytest.mark.parametrize(
    ("signature", "parameter"),
    [
        ("n_elements=i32:16", "%n_elements: i32 {blk.divisibility = 16 : i32}"),
        ("n_elements=i64:16", "%n_elements: i64 {blk.divisibility = 16 : i32}"),
        ("n_elements=u64:16", "%n_elements: ui64 {blk.divisibility = 16 : i32}"),
        ("n_elements=i64", "%n_elements: i64)"),
        ("x_ptr=*fp16:16", "%x_ptr: !blk.ptr<f16>,"),
    ],
)
def test_signature_takes_tritons_divisibility_spelling(
    signature: str, parameter: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = blkc(
        str(EXAMPLES / "vector_add.py"), "-DBLOCK_SIZE=1024", "--signature", signature,
        "--emit=loose", capsys=capsys,
    )  # fmt: skip
    assert status == 0, err
    assert parameter in out


@pytest.mark.parametrize(
    ("signature", "message"),
    [
        ("n_elements=i32:15", "'i32:15': the only divisibility hint is ':16'"),
        ("x_ptr=*fp32:8", "'*fp32:8': the only divisibility hint is ':16'"),
        ("n_elements=i33", "parameter 'n_elements': unknown type 'i33' (known: i1, i8,"),
        ("n_elements=fp32:16", "'fp32:16': ':16' applies to pointers, i32, i64 and u64"),
        ("n_elements=i8:16", "'i8:16': ':16' applies to pointers, i32, i64 and u64"),
        ("count=i32", "'count=i32' is not NAME=TYPE for a parameter of add_kernel"),
    ],
)
def test_a_bad_signature_is_refused(
    signature: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = blkc(
        str(EXAMPLES / "vector_add.py"), "-DBLOCK_SIZE=1024", "--signature", signature,
        capsys=capsys,
    )  # fmt: skip
    assert status == 1
    assert "error: --signature" in err
    assert message in err
