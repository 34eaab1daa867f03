"""The Summary against every plain chunk set: "best plain" over all libraries and sizes, and the
neutral view (rows of a neutral retriever apart, no recommendation from it)."""
from __future__ import annotations

from finchunk_pipeline.evaluation.compare import family_comparison, recommendations
from finchunk_pipeline import build_report, render_markdown


def _entry(name, family, recalls, retriever="bm25", budget=1500, mode="global"):
    ids = [f"q{i}" for i in range(len(recalls))]
    return {"name": name, "family": family, "retriever": retriever, "mode": mode, "over_limit_fraction": 0.0,
            "strategy": name, "header": False, "chunks": 1, "mean_chars": 1.0,
            "per_question": {"ids": ids, "recall": {str(budget): recalls}}}


def _entries(retriever):
    # a peer at 1,000 characters beats the 500-character baselines: it is the bar
    return [_entry("evidence", "evidence", [1.0] * 30 + [0.0] * 10, retriever),
            _entry("fixed", "plain", [0.5] * 40, retriever),
            _entry("langchain-recursive", "plain", [0.5] * 36 + [0.0] * 4, retriever),
            _entry("semchunk-1000", "plain", [1.0] * 28 + [0.0] * 12, retriever),
            _entry("llamaindex-md-256t-h", "plain", [1.0] * 27 + [0.0] * 13, retriever)]


def test_best_plain_is_the_best_of_every_plain_set():
    rows = family_comparison(_entries("bm25"), [1500])
    assert [(r["evidence"], r["plain"], r["plain_sets"]) for r in rows] == [("evidence", "semchunk-1000", 4)]
    assert abs(rows[0]["gain"] - 0.05) < 1e-9 and "neutral" not in rows[0]


def test_neutral_rows_are_flagged_and_recommend_nothing():
    entries = _entries("bm25") + _entries("bm25-plain")
    rows = family_comparison(entries, [1500])
    assert {(r["retriever"], bool(r.get("neutral"))) for r in rows} == {("bm25", False), ("bm25-plain", True)}
    recs = recommendations(entries, 1500, {})
    assert [(r["retriever"], r["recommended"], r["best_plain"]) for r in recs] == [("bm25", "evidence", "semchunk-1000")]


def test_the_summary_shows_the_neutral_view_apart():
    entries = _entries("bm25") + _entries("bm25-plain")
    md = render_markdown(build_report("c", 40, entries, budgets=[1500]))
    summary = md.split("## Summary", 1)[1]
    main, neutral = summary.split("**Neutral view: what chunking alone contributes**", 1)
    assert "| bm25 | global | 1,500 | evidence |" in main and "bm25-plain" not in main
    assert "| bm25-plain | global | 1,500 | evidence | 75.0 | semchunk-1000 | 70.0 |" in neutral
    assert "fixed, langchain-recursive, llamaindex-md-256t-h, semchunk-1000" in main  # the sets compared
