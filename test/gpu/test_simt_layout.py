"""The blocked layout gives every element of a block exactly one owning thread, in
contiguous chunks along the last dimension, coalesced across a warp."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from blkc.passes.convert_blk_to_simt import Layout


def owners(layout: Layout) -> np.ndarray:
    """The owning thread of each element, by walking what each thread visits."""
    owner = np.full(layout.shape, -1)
    for tid, rep, j in product(range(layout.threads), range(layout.reps), range(layout.vec)):
        chunk = tid + rep * layout.threads
        if chunk >= layout.chunks:
            continue
        index = np.unravel_index(chunk * layout.vec + j, layout.shape)
        assert owner[index] == -1, f"element {index} owned twice"
        owner[index] = tid
    return owner


@pytest.mark.parametrize(
    "shape", [(1024,), (4096,), (32, 32), (16, 8), (3,), (1, 6), (2, 3, 5), (64, 1)]
)
@pytest.mark.parametrize("threads", [32, 128])
def test_every_element_has_one_owner(shape: tuple[int, ...], threads: int) -> None:
    owner = owners(Layout(shape, threads))
    assert (owner >= 0).all()


def test_vector_add_block_matches_tritons_blocked_layout() -> None:
    # sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]: 2 repetitions.
    layout = Layout((1024,), 128)
    assert (layout.vec, layout.reps, layout.local_size, layout.guarded) == (4, 2, 8, False)
    owner = owners(layout)
    assert list(owner[:8]) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert owner[512] == 0 and owner[1023] == 127


def test_matmul_tile_matches_tritons_blocked_layout() -> None:
    # sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1].
    owner = owners(Layout((32, 32), 128))
    assert list(owner[0, :8]) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert owner[1, 0] == 8 and owner[16, 0] == 0 and owner[31, 31] == 127


def test_small_blocks_leave_threads_idle() -> None:
    layout = Layout((6,), 128)
    assert (layout.vec, layout.chunks, layout.reps, layout.guarded) == (2, 3, 1, True)
    assert list(owners(layout)) == [0, 0, 1, 1, 2, 2]
