"""Frontends: the Python `@blkc.jit` DSL and Triton-C, both building loose blk IR through
`blkc.frontend.builder.IRBuilder`."""
