"""Paired bootstrap gains, best evidence-aware vs best plain, recommendations."""
from __future__ import annotations

from finchunk_pipeline.evaluation.compare import (family_comparison, gain, paired_bootstrap, recommend_budget,
                                                  recommendations)


def _entry(name, family, recalls, budget=1500, mode="global", over=0.0):
    ids = [f"q{i}" for i in range(len(recalls))]
    return {"name": name, "family": family, "retriever": "bm25", "mode": mode, "over_limit_fraction": over,
            "per_question": {"ids": ids, "recall": {str(budget): recalls}}}


def test_paired_bootstrap_interval():
    same = paired_bootstrap([0.5, 1.0, 0.0, 1.0], [0.5, 1.0, 0.0, 1.0])
    assert same == (0.0, 0.0, 0.0)
    d, lo, hi = paired_bootstrap([1.0] * 40 + [0.0] * 10, [0.0] * 40 + [1.0] * 10)
    assert d == 0.6 and 0 < lo < d < hi
    # a noisy small difference: the interval includes 0, so it is not a win
    d, lo, hi = paired_bootstrap([1, 0, 1, 0, 1, 1], [0, 1, 1, 0, 1, 0])
    assert lo < 0 < hi
    # deterministic (seeded)
    assert paired_bootstrap([1, 0, 1], [0, 0, 1]) == paired_bootstrap([1, 0, 1], [0, 0, 1])


def test_family_comparison_picks_the_best_of_each_family():
    ev = [_entry("structure", "evidence", [1.0] * 30 + [0.0] * 10), _entry("packed", "evidence", [0.5] * 40)]
    pl = [_entry("recursive", "plain", [0.5] * 30 + [0.0] * 10), _entry("fixed", "plain", [0.25] * 40)]
    other = [_entry("semantic", "other", [1.0] * 40)]      # neither family: not compared
    rows = family_comparison(ev + pl + other, [1500])
    assert len(rows) == 1
    r = rows[0]
    assert (r["evidence"], r["plain"]) == ("structure", "recursive")
    assert abs(r["gain"] - (0.75 - 0.375)) < 1e-9 and r["win"] and r["ci_low"] > 0


def test_gain_needs_the_same_questions():
    a, b = _entry("a", "evidence", [1.0, 0.0]), _entry("b", "plain", [0.0, 0.0, 1.0])
    assert gain(a, b, 1500) is None


def test_recommendation_is_token_safe_and_per_document_type():
    unsafe = _entry("structure", "evidence", [1.0] * 4, over=0.05)
    safe = _entry("packed", "evidence", [1.0, 1.0, 0.0, 1.0])
    plain = _entry("recursive", "plain", [0.0, 1.0, 0.0, 0.0])
    doc_types = {"q0": "10-K", "q1": "10-K", "q2": "earnings_call", "q3": "earnings_call"}
    rows = {r["doc_type"]: r for r in recommendations([unsafe, safe, plain], 1500, doc_types)}
    assert set(rows) == {"all", "10-K", "earnings_call"}
    assert all(r["recommended"] == "packed" and r["token_safe"] for r in rows.values())
    assert rows["10-K"]["questions"] == 2 and rows["10-K"]["gain"] == 0.5


def test_recommendation_budget_follows_the_gold_sizes():
    budgets = [500, 1000, 1500, 2000, 3000, 5000, 8000]
    assert recommend_budget(budgets, [120, 130, 110]) == 1500        # sentences and rows
    assert recommend_budget(budgets, [1100, 1300, 3400]) == 5000     # whole statement pages
    assert recommend_budget(budgets, [9000]) == 8000                 # nothing larger: the largest
