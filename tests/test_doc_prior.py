"""BM25 with a document prior, and the documents' text recovered from a chunk set."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from finchunk_pipeline.index.bm25_retriever import BM25Retriever
from finchunk_pipeline.index.documents import document_texts
from finchunk_pipeline.index.entries.bm25 import build_retriever as build_bm25


def _chunks(rows):
    return pd.DataFrame({
        "chunk_id": [f"c{i}" for i in range(len(rows))], "doc_id": [r[0] for r in rows],
        "source_text": [r[1] for r in rows], "embedding_text": [r[1] for r in rows],
        "view_spans": [[{"start": s, "end": e} for s, e in r[2]] for r in rows]})


def test_document_text_from_overlapping_and_multi_span_chunks():
    text = "Alpha beta gamma delta. Epsilon zeta eta theta."
    a = text[0:23]
    b = text[10:35]                                  # overlaps a
    c = text[0:5] + "\n\n" + text[36:]               # two spans joined by the span joiner
    chunks = _chunks([("d", a, [(0, 23)]), ("d", b, [(10, 35)]), ("d", c, [(0, 5), (36, len(text))])])
    assert document_texts(chunks)["d"] == text[0:35] + "\n\n" + text[36:]


def test_the_prior_lifts_a_chunk_in_the_document_about_the_question():
    # two identical chunks about "revenue"; only document B also talks about the company asked for
    rows = [("A", "Revenue was 10 million.", [(0, 23)]), ("A", "Weather report for the harbour.", [(24, 55)]),
            ("B", "Revenue was 10 million.", [(0, 23)]), ("B", "Northwind shipping results.", [(24, 51)]),
            *[(f"X{i}", f"Unrelated text number {i}.", [(0, 24)]) for i in range(6)]]
    chunks = _chunks(rows)
    q = ["Northwind revenue"]
    flat = BM25Retriever.build(chunks["embedding_text"].tolist(), "plain")
    prior = BM25Retriever.build(chunks["embedding_text"].tolist(), "plain", chunks["doc_id"].tolist(),
                                document_texts(chunks), doc_prior=1.0)
    order_flat = [r for r, _ in flat.search_many(q, 4)[0]]
    order_prior = [r for r, _ in prior.search_many(q, 4)[0]]
    # alone, the two revenue chunks tie (the lower row wins the tie); with the prior, B's
    # revenue chunk comes first of the two, thanks to B's text as a whole
    assert order_flat.index(0) < order_flat.index(2)
    assert order_prior.index(2) < order_prior.index(0)
    # within one document (filtered mode) the prior is a constant: same order as without it
    mask = np.array([True, True] + [False] * 8)
    assert [r for r, _ in prior.search_many(q, 2, [mask])[0]] == [r for r, _ in flat.search_many(q, 2, [mask])[0]]


def test_prior_zero_ranks_exactly_as_plain_bm25_and_round_trips(tmp_path):
    rows = [("A", "Revenue rose.", [(0, 13)]), ("B", "Revenue fell sharply.", [(0, 21)]), ("B", "Costs fell.", [(22, 33)])]
    chunks = _chunks(rows)
    r0 = build_bm25(chunks, tmp_path / "zero", "finance", 0.0)
    plain_scores = r0.index.scores_many([r0.analyzer.query_terms("revenue fell")])[0]
    assert np.allclose(r0.scores_many(["revenue fell"])[0], plain_scores)
    r1 = build_bm25(chunks, tmp_path / "one", "finance", 1.0)
    loaded = BM25Retriever.load(tmp_path / "one" / "bm25")
    assert loaded.describe() == r1.describe() == {"analyzer": "finance-" + r1.analyzer.version, "doc_prior": 1.0}
    assert loaded.search_many(["revenue fell"], 3) == r1.search_many(["revenue fell"], 3)


def test_an_index_built_with_another_analyzer_version_is_refused(tmp_path):
    import json

    rows = [("A", "Revenue rose.", [(0, 13)])]
    build_bm25(_chunks(rows), tmp_path, "finance", 1.0)
    meta = tmp_path / "bm25" / "retriever.json"
    data = json.loads(meta.read_text())
    data["analyzer_version"] = "0.old"
    meta.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="rebuild the index"):
        BM25Retriever.load(tmp_path / "bm25")
