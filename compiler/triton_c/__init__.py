"""Triton-C, the C-like block language Triton had before its Python DSL, compiled by blkc
through the same loose blk IR, passes and backends as the Python frontend.

    import blkc.triton_c

    kernels = blkc.triton_c.compile("add.tc", defines={"TM": 1024})
    kernels["add"][(triton_cdiv(n, 1024),)](x, y, out, n)

`translate` gives the loose IR of each kernel instead. The language accepted and the
semantic choices are described in docs/triton_c.md.
"""

from blkc.triton_c.frontend import compile, parse_define, translate
from blkc.triton_c.tuning import TritonCKernel

__all__ = ["TritonCKernel", "compile", "parse_define", "translate"]
