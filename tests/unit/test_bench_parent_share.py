"""bench/bench_parent_share.py: parents sized to the budget, and the share chosen on the other corpora."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_parent_share as bench  # noqa: E402

pytestmark = pytest.mark.unit


def cell(**means: float) -> dict:
    """{share: {question: recall}} whose mean recall per share is the given value (two questions)."""
    return {float(k.replace("s", "").replace("_", ".")): {"q1": v, "q2": v} for k, v in means.items()}


def test_a_share_splits_the_budget():
    """The bench measures shares with the product's own rule (expander.parent_bound): capped at
    the set's bound, or uncapped (bounded by the budget only)."""
    assert bench.parent_bound(1500, 1500, 3) == 500 and bench.parent_bound(5000, 5000, 2.5) == 2000
    assert bench.parent_bound(2000, 2000, 3) == 666 and bench.parent_bound(1, 1, 4) == 1
    assert bench.variant("evidence", 3.0) == "evidence @budget/3" and bench.variant("evidence", None) == "evidence"
    assert bench.variant("evidence", 3.0, capped=True) == "evidence @min(own, budget/3)"
    assert bench.parent_bound(800, 5000, 3) == 800 and bench.parent_bound(800, 1500, 3) == 500


def test_ranks_per_cell_and_the_share_with_the_best_mean_rank_over_the_other_corpora():
    shares = [2.0, 3.0, 4.0]
    a = {("global", 1500): cell(s2=0.8, s3=0.7, s4=0.6), ("filtered", 2000): cell(s2=0.5, s3=0.6, s4=0.6)}
    ranks = bench.mean_ranks(a, shares)
    assert ranks == {2.0: 2.0, 3.0: 1.75, 4.0: 2.25}        # tied shares share their mean rank (1.5)
    # as bench_policy ranks its candidates: one rule for both votes
    assert bench.mean_ranks({"c": cell(s2=0.5, s3=0.6, s4=0.6)}, shares) == {2.0: 3.0, 3.0: 1.5, 4.0: 1.5}
    b = {("global", 5000): cell(s2=0.1, s3=0.3, s4=0.2)}
    assert bench.choose_share([ranks, bench.mean_ranks(b, shares)], shares) == 3.0
    # each corpus is one vote however many cells it has; a tie goes to the smaller share
    c = {("global", 1500): cell(s2=0.9, s3=0.1, s4=0.5)}   # mean ranks 2, 2, 2 with b
    assert bench.choose_share([bench.mean_ranks(c, shares), bench.mean_ranks(b, shares)], shares) == 2.0


def test_a_cell_names_its_retriever_only_when_it_is_not_bm25():
    assert bench.cell_name("bm25", "filtered", 2000) == "filtered @2,000"   # the page as it was
    assert bench.cell_name("hybrid", "global", 1500) == "hybrid/global @1,500"
