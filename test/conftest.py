"""Test-wide settings: compiled kernels are cached in a folder of this test session, never
in the user's cache."""

import os
import tempfile

os.environ.setdefault("BLKC_CACHE_DIR", tempfile.mkdtemp(prefix="blkc-test-cache-"))
