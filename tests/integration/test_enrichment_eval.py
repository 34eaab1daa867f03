"""Retrieval with and without enrichment: the enrichment only ranks (never evidence, spans
scoring unchanged), is charged to the budget when delivered, and the short-ambiguous slice."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from finchunk_pipeline.evaluation.enrichment import (CHARGED, EVIDENCE, SLICE, ambiguous_slice, evaluate_enrichment,
                                                     short_ambiguous)
from finchunk_pipeline.index.representations import FusedRetriever, representation_texts

META = {"d": {"issuer": "Acme Holdings plc", "ticker": "ACM", "fiscal_year": 2024, "period_end": None},
        "u": {"issuer": "unknown", "ticker": None, "fiscal_year": None, "period_end": None}}


class Fixed:
    """A retriever returning the same rows for every query."""

    def __init__(self, rows, name="bm25"):
        self.rows, self.name = list(rows), name

    def search_many(self, queries, k, allowed=None):
        out = []
        for i, _ in enumerate(queries):
            rows = [r for r in self.rows if allowed is None or allowed[i][r]]
            out.append([(r, 1.0 / (j + 1)) for j, r in enumerate(rows[:k])])
        return out


def frame(rows):
    return pd.DataFrame([{"chunk_id": f"c{i}", "doc_id": d, "spans": [{"start": s, "end": e}],
                          "embedding_text": t, "source_text": t} for i, (d, s, e, t) in enumerate(rows)])


def test_short_ambiguous_chunks():
    chunks = frame([
        ("d", 0, 10, "Revenue was 10."),                         # short, names neither
        ("d", 0, 10, "Acme revenue in 2024 was 10."),            # names both
        ("d", 0, 10, "Acme revenue was 10."),                    # issuer only: still ambiguous
        ("d", 0, 10, "FY24 revenue at ACM was 10."),             # ticker + FY24
        ("d", 0, 10, "Revenue was 10. " * 30),                   # long
        ("u", 0, 10, "Unknown issuer 2019."),                    # cannot be named
        ("d", 0, 10, "Holdings rose in 2024."),                  # a generic company word is not the issuer
    ])
    assert short_ambiguous(chunks, META).tolist() == [True, False, True, False, False, True, True]


def test_ambiguous_slice_keeps_passages_only_short_ambiguous_chunks_cover():
    chunks = frame([("d", 0, 100, "x"), ("d", 0, 100, "y"), ("d", 200, 300, "z")])
    mask = np.array([True, False, True])
    passages = pd.DataFrame({"passage_id": ["p1", "p2"], "doc_id": ["d", "d"], "start": [0, 200], "end": [100, 300]})
    questions = pd.DataFrame({"question_id": ["q1", "q2"], "question": ["a", "b"], "question_type": ["text", "text"],
                              "doc_ids": [["d"], ["d"]], "gold_passages": [["p1", "p2"], ["p1"]], "answer": [None, None]})
    out, n = ambiguous_slice(questions, passages, chunks, mask)
    assert out["question_id"].tolist() == ["q1"] and list(out["gold_passages"][0]) == ["p2"] and n == 1


def _corpus():
    gold_text = "G" * 400
    chunks = frame([("d", 0, 400, gold_text), ("d", 1000, 1400, "W" * 400)])
    passages = pd.DataFrame({"passage_id": ["p"], "doc_id": ["d"], "start": [0], "end": [400]})
    questions = pd.DataFrame({"question_id": ["q"], "question": ["where is 4242?"], "question_type": ["text"],
                              "doc_ids": [["d"]], "gold_passages": [["p"]], "answer": ["4242"]})
    return chunks, passages, questions


def _budget(entry, chars):
    return next(p["recall"] for p in entry["budget"] if p["chars"] == chars)


def _entry(result, rep, delivery=EVIDENCE, scope="all", mode="global"):
    return next(e for e in result["entries"] if e["representation"] == rep and e["delivery"] == delivery
                and e["scope"] == scope and e["mode"] == mode)


def test_enrichment_is_never_evidence():
    """The wrong chunk's enrichment quotes the gold text and the answer: retrieving it scores
    nothing and contains nothing — only the chunk's own spans and text count."""
    chunks, passages, questions = _corpus()
    enrichment = pd.DataFrame({"chunk_id": ["c0", "c1"], "enrichment_text": ["", "answer 4242: " + "G" * 400]})
    result = evaluate_enrichment(lambda rep, name: Fixed([1]), ["bm25"], chunks, enrichment, passages, questions, META)
    for rep in ("source", "enrichment", "fused", "concat"):
        e = _entry(result, rep)
        assert all(p["recall"] == 0 for p in e["budget"]), rep
        assert e["answer_containment"]["value_at_budget"] == 0.0 and e["answer_containment"]["value"] == 0.0
    charged = _entry(result, "fused", CHARGED)
    assert all(p["recall"] == 0 for p in charged["budget"])
    assert "answer_containment" not in charged, "containment over delivered enrichment would quote it"


def test_delivered_enrichment_is_charged_to_the_budget():
    chunks, passages, questions = _corpus()
    enrichment = pd.DataFrame({"chunk_id": ["c0", "c1"], "enrichment_text": ["E" * 300, ""]})
    result = evaluate_enrichment(lambda rep, name: Fixed([0, 1]), ["bm25"], chunks, enrichment, passages, questions, META)
    evidence, charged = _entry(result, "source"), _entry(result, "source", CHARGED)
    # 400 characters of evidence fit in 500; with the 300-character enrichment (+ joiner) first,
    # only 198 of the chunk's 400 characters are credited at 500: under half of the passage
    assert _budget(evidence, 500) == 1.0 and _budget(charged, 500) == 0.0
    assert _budget(charged, 1000) == 1.0
    delivered = {p["chars"]: p["delivered"] for p in charged["budget"]}
    assert delivered[500] == 500 and delivered[1000] == 1000


def test_representations_are_evaluated_per_mode_with_the_slice():
    chunks, passages, questions = _corpus()
    enrichment = pd.DataFrame({"chunk_id": ["c0", "c1"], "enrichment_text": ["a", "b"]})
    loaders = {"source": Fixed([1, 0]), "enrichment": Fixed([0, 1]), "fused": Fixed([0]), "concat": None}
    result = evaluate_enrichment(lambda rep, name: loaders[rep], ["bm25"], chunks, enrichment, passages,
                                 questions, {"d": {"issuer": "unknown"}})
    reps = {(e["representation"], e["mode"], e["delivery"], e["scope"]) for e in result["entries"]}
    assert ("concat", "global", EVIDENCE, "all") not in reps, "a missing index is left out, not invented"
    assert {("enrichment", m, EVIDENCE, "all") for m in ("global", "filtered")} <= reps
    assert result["ambiguous_chunks"] == 0 and result["slice_questions"] == 0  # 400-character chunks are not short
    assert _budget(_entry(result, "source"), 500) == 0.0 and _budget(_entry(result, "enrichment"), 500) == 1.0


def test_fused_retriever_is_reciprocal_rank_fusion_without_unmatched_bm25_rows():
    class Scored:
        name = "bm25"

        def __init__(self, hits):
            self.hits = hits

        def search_many(self, queries, k, allowed=None):
            return [self.hits[:k] for _ in queries]

    fused = FusedRetriever(Scored([(0, 3.0), (1, 2.0), (2, 0.0)]), Scored([(1, 5.0), (3, 1.0), (2, 0.0)]))
    rows = [r for r, _ in fused.search_many(["q"], 10)[0]]
    assert rows[0] == 1 and 2 not in rows and set(rows) == {0, 1, 3}


def test_representation_texts_check_row_order():
    chunks = pd.DataFrame({"chunk_id": ["a", "b"], "embedding_text": ["A text", "B text"]})
    enrichment = pd.DataFrame({"chunk_id": ["a", "b"], "enrichment_text": ["ctx a", ""]})
    texts = representation_texts(chunks, enrichment)
    assert texts == {"enrichment": ["ctx a", ""], "concat": ["ctx a\n\nA text", "B text"]}
    with pytest.raises(ValueError, match="do not match"):
        representation_texts(chunks, enrichment.iloc[::-1])


def test_dense_and_hybrid_over_the_representations(tmp_path, monkeypatch):
    """FAISS over enrichment and concat (a fake embedder stands in for the model): every
    retriever loads over every representation and ranks the same rows."""
    from finchunk_pipeline.models import embed as embed_mod
    from finchunk_pipeline.index.entries.bm25 import build_retriever as build_bm25
    from finchunk_pipeline.index.entries.dense import build_retriever as build_dense
    from finchunk_pipeline.index.entries.dense import dense_files
    from finchunk_pipeline.index.representations import (REPRESENTATIONS, load_representation, rep_dir,
                                                         representation_bm25, representation_dense,
                                                         representation_exists)
    from finchunk_pipeline.storage.indexes import save_index, write_index_files

    from tests.integration.test_index_dense import fake_embedder

    fake = fake_embedder(tmp_path)
    monkeypatch.setattr(embed_mod, "get_embedder", lambda model_path=None, cache_dir=None, backend=None: fake)
    chunks = pd.DataFrame({"chunk_id": ["a", "b", "c"],
                           "embedding_text": ["revenue grew", "dividend paid", "cash flow strong"]})
    enrichment = pd.DataFrame({"chunk_id": ["a", "b", "c"],
                               "enrichment_text": ["Issuer: Acme", "Issuer: Borealis dividend policy", ""]})
    save_index(build_bm25(chunks, doc_prior=0.0), tmp_path / "idx" / "bm25")  # no documents here: chunk scores alone
    write_index_files(tmp_path / "idx" / "dense", dense_files(build_dense(chunks, "fake-model", tmp_path / "emb")[0]))
    texts = representation_texts(chunks, enrichment)
    for rep, retriever in representation_bm25(texts):
        save_index(retriever, rep_dir(tmp_path / "idx", rep) / "bm25")
    stats = {}
    for rep, parts, stats[rep] in representation_dense(texts, chunks["chunk_id"].tolist(), "fake-model", tmp_path / "emb"):
        write_index_files(rep_dir(tmp_path / "idx", rep) / "dense", parts)
    assert set(stats) == {"enrichment", "concat"} and stats["concat"]["texts"] == 3
    for name in ("bm25", "dense", "hybrid"):
        for rep in REPRESENTATIONS:
            assert representation_exists(rep, name, tmp_path / "idx")
            r = load_representation(rep, name, tmp_path / "idx", chunks, "fake-model", tmp_path / "emb")
            hits = r.search_many(["Borealis dividend"], 3)[0]
            assert hits and hits[0][0] == 1, (name, rep)
    assert not representation_exists("enrichment", "bm25", tmp_path / "other")
