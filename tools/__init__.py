"""blkc."""
