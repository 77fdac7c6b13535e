"""A kernel whose use decides the type of neither `value` (only stored) nor `unused`:
`blkc examples/errors/needs_signature.py -DBLOCK=64` names both and the `--signature` to
give; with `--signature 'value=fp32,unused=i32'` it compiles."""

import blkc
import blkc.language as tl


@blkc.jit
def fill(out_ptr, value, unused, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, value)
