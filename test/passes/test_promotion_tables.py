"""Every cell of every policy against the tables measured from the real libraries.

A cell agrees with the library, or a departure in `tables/departures.json` covers it and
says why. A departure that covers no cell is stale and fails too.
"""

from __future__ import annotations

import pytest
from promotion_cases import SECTIONS, Case, cases, departures, expected, load

from blkc import dtypes
from blkc.passes.promotion import get_policy
from blkc.passes.promotion.base import PromotionError

POLICY_LIBRARIES = {
    "triton": "triton",
    "triton-compat": "triton",
    "numpy": "numpy",
    "jax": "jax",
    "torch": "torch",
    "array_api": "array_api",
}


def answer(policy: str, case: Case) -> str | None:
    try:
        return case.answer(get_policy(policy)).name
    except PromotionError:
        return None


@pytest.mark.parametrize("section", SECTIONS)
@pytest.mark.parametrize("policy", POLICY_LIBRARIES)
def test_every_cell_matches_the_library(policy: str, section: str) -> None:
    wrong = []
    for case in cases(POLICY_LIBRARIES[policy], section):
        want, _ = expected(policy, case)
        got = answer(policy, case)
        if got != want:
            library = case.expected or "error"
            wrong.append(f"{case}: library {library}, want {want or 'error'}, got {got or 'error'}")
    assert not wrong, f"{len(wrong)} cells differ:\n" + "\n".join(wrong[:40])


@pytest.mark.parametrize("policy", POLICY_LIBRARIES)
def test_every_departure_is_used(policy: str) -> None:
    library = POLICY_LIBRARIES[policy]
    for departure in departures(policy):
        assert any(departure.covers(c) for s in SECTIONS for c in cases(library, s)), departure.why


@pytest.mark.parametrize("policy", ["triton", "triton-compat"])
def test_triton_dot_accumulates_in_float32_by_default(policy: str) -> None:
    """``tl.dot``'s ``out_dtype`` defaults to None: float32 without an accumulator."""
    assert load("triton")["dot_out_dtype_default"] == "None"
    decision = get_policy(policy).dot_dtype(dtypes.float16, dtypes.float16)
    assert (decision.compute, decision.result) == (dtypes.float16, dtypes.float32)
