"""Cross-validation by document (evaluation/out_of_fold.py): a set chosen on the questions it
is scored on looks better than it is; chosen on other documents' questions, it does not."""
from __future__ import annotations

import random

from finchunk_pipeline import compare_out_of_fold
from finchunk_pipeline.evaluation.out_of_fold import Side, document_folds, sides


def test_folds_keep_each_document_whole_and_are_seeded():
    qdocs = {f"q{i}": f"d{i % 10}" for i in range(100)}
    folds = document_folds(qdocs, k=4)
    for d in {f"d{i}" for i in range(10)}:
        assert len({folds[q] for q, doc in qdocs.items() if doc == d}) == 1
    assert set(folds.values()) == {0, 1, 2, 3}
    assert folds == document_folds(qdocs, k=4)
    assert folds != document_folds(qdocs, k=4, seed=1)


def test_choosing_among_noise_wins_in_sample_and_not_out_of_fold():
    """20 'evidence-aware' sets that are coin flips against a plain set at exactly 50%: the best
    of 20 on all questions leads by luck (about +9 points); chosen on other documents' questions
    it leads by nothing on average (40 draws, so the averages are not luck either)."""
    qdocs = {f"q{i}": f"d{i // 3}" for i in range(120)}  # 40 documents, 3 questions each
    b = Side("plain", {"p": {q: float(i % 2) for i, q in enumerate(qdocs)}})
    in_sample, oof = [], []
    for seed in range(40):
        rng = random.Random(seed)
        a = Side("evidence", {f"e{j}": {q: float(rng.random() < 0.5) for q in qdocs} for j in range(20)})
        r = compare_out_of_fold(a, b, qdocs, k=4)
        in_sample.append(r["in_sample"]["gain"])
        oof.append(r["out_of_fold"]["gain"])
    assert sum(in_sample) / 40 > 0.06
    assert abs(sum(oof) / 40) < 0.03  # 3 standard errors
    assert len(r["out_of_fold"]["chosen"]) == 4 and r["documents"] == 40


def test_a_real_lead_survives_out_of_fold():
    rng = random.Random(3)
    qdocs = {f"q{i}": f"d{i // 2}" for i in range(200)}
    a = Side("evidence", {"good": {q: float(rng.random() < 0.8) for q in qdocs},
                          "bad": {q: float(rng.random() < 0.3) for q in qdocs}})
    b = Side("plain", {"p": {q: float(rng.random() < 0.5) for q in qdocs}})
    r = compare_out_of_fold(a, b, qdocs)
    assert r["out_of_fold"]["win"] and all(c["a"] == "good" for c in r["out_of_fold"]["chosen"])


def test_sides_from_stored_entries():
    def entry(name, family, mode="global", retriever="bm25"):
        return {"name": name, "family": family, "mode": mode, "retriever": retriever,
                "per_question": {"ids": ["q1", "q2"], "recall": {"1500": [1.0, 0.0]}}}

    entries = [entry("evidence", "evidence"), entry("fixed-h", "plain"), entry("sentence", None),
               entry("fixed", "plain", mode="filtered")]
    ev, pl = sides(entries, "bm25", "global", 1500, lambda e: e["family"])
    assert list(ev.recalls) == ["evidence"] and list(pl.recalls) == ["fixed-h"]
    assert ev.recalls["evidence"] == {"q1": 1.0, "q2": 0.0}


def test_report_rows_and_their_markdown():
    from finchunk_pipeline.evaluation.out_of_fold import markdown, report_rows

    rng = random.Random(5)
    qdocs = {f"q{i}": f"d{i // 2}" for i in range(80)}
    ids = list(qdocs)

    def entry(name, family, p, retriever="bm25"):
        return {"name": name, "family": family, "mode": "global", "retriever": retriever,
                "per_question": {"ids": ids, "recall": {"1500": [float(rng.random() < p) for _ in ids]}}}

    entries = [entry("evidence", "evidence", 0.8), entry("packed", "evidence", 0.5), entry("fixed", "plain", 0.4),
               entry("evidence", "evidence", 0.8, "bm25-plain"), entry("fixed", "plain", 0.4, "bm25-plain")]
    rows = report_rows(entries, qdocs, 1500, modes=("global",), skip_retriever=lambda r: r == "bm25-plain")
    assert [(r["retriever"], r["mode"]) for r in rows] == [("bm25", "global")]
    lines = markdown(rows)
    assert lines[0].startswith("**Out of fold**") and "| bm25 | global | 1,500 | 80 (40) |" in lines[4]
    assert markdown([]) == []


def test_no_out_of_fold_choice_when_every_document_is_in_one_fold():
    """A corpus of one document (or questions about one) has no fold to choose on: no result,
    not a division by zero (the report of test_pipeline_dagster's one-document corpus)."""
    qdocs = {"q1": "d1", "q2": "d1"}
    a = Side("evidence", {"e": {"q1": 1.0, "q2": 0.0}})
    b = Side("plain", {"p": {"q1": 0.0, "q2": 1.0}})
    assert compare_out_of_fold(a, b, qdocs, k=4) is None
