"""BM25 with a document prior, and the documents' text recovered from a chunk set."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from finchunk_pipeline.index.bm25_retriever import BM25Retriever
from finchunk_pipeline.index.documents import document_texts
from finchunk_pipeline.index.entries.bm25 import build_retriever as build_bm25
from finchunk_pipeline.storage.indexes import DocumentIndexFolder, save_index


def _built(chunks, folder, *args, **kw) -> BM25Retriever:
    """build_bm25's retriever, stored as ``folder/bm25``."""
    retriever = build_bm25(chunks, *args, **kw)
    save_index(retriever, folder / "bm25")
    return retriever


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
    r0 = _built(chunks, tmp_path / "zero", "finance", 0.0)
    plain_scores = r0.index.scores_many([r0.analyzer.query_terms("revenue fell")])[0]
    assert np.allclose(r0.scores_many(["revenue fell"])[0], plain_scores)
    r1 = _built(chunks, tmp_path / "one", "finance", 1.0)
    loaded = BM25Retriever.from_files(tmp_path / "one" / "bm25")
    assert loaded.describe() == r1.describe() == {"analyzer": "finance-" + r1.analyzer.version, "doc_prior": 1.0}
    assert loaded.search_many(["revenue fell"], 3) == r1.search_many(["revenue fell"], 3)


def test_an_index_built_with_another_analyzer_version_is_refused(tmp_path):
    import json

    rows = [("A", "Revenue rose.", [(0, 13)])]
    _built(_chunks(rows), tmp_path, "finance", 1.0)
    meta = tmp_path / "bm25" / "retriever.json"
    data = json.loads(meta.read_text())
    data["analyzer_version"] = "0.old"
    meta.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="rebuild the index"):
        BM25Retriever.from_files(tmp_path / "bm25")


def test_the_document_index_is_built_once_for_the_same_document_texts(tmp_path, monkeypatch):
    """Two chunk sets cut the same documents differently: the document texts they recover are
    the same, so the second loads the first's document index from the documents folder (equal
    to a fresh build, term for term and weight for weight); a changed text, language or
    analyzer builds its own; a damaged copy is built again; the folder keeps the newest."""
    from finchunk_pipeline.index.bm25 import BM25Index
    from finchunk_pipeline.storage import indexes

    text = "Northwind revenue rose. Costs fell."
    coarse = _chunks([("A", text, [(0, len(text))]), ("B", "Weather report.", [(0, 15)])])
    fine = _chunks([("A", text[:24], [(0, 24)]), ("A", text[24:], [(24, len(text))]),
                    ("B", "Weather report.", [(0, 15)])])
    built = []
    real_build = BM25Index.build
    monkeypatch.setattr(BM25Index, "build", classmethod(lambda cls, docs, *a, **k: built.append(len(docs))
                                                         or real_build.__func__(cls, docs, *a, **k)))
    shared = tmp_path / "bm25_documents"

    def retriever(chunks, analyzer="finance", **kw):
        return BM25Retriever.build(chunks["embedding_text"].tolist(), analyzer, chunks["doc_id"].tolist(),
                                   document_texts(chunks), doc_prior=1.0, documents=DocumentIndexFolder(shared), **kw)

    a = retriever(coarse)
    b = retriever(fine)
    assert built == [2, 2, 3]  # chunks, documents, chunks: the second loaded the documents' index
    gapped = _chunks([("A", text[:23], [(0, 23)]), ("A", text[24:], [(24, len(text))]),
                      ("B", "Weather report.", [(0, 15)])])
    assert document_texts(gapped)["A"] != text  # the uncovered space is a blank line there
    retriever(gapped)
    assert built == [2, 2, 3, 3]  # whitespace apart the same text: loaded too
    assert len(list(shared.iterdir())) == 1
    fresh = real_build.__func__(BM25Index, [a.analyzer.terms(t) for t in (text, "Weather report.")])
    for got in (a.doc_index, b.doc_index):
        assert got.vocab == fresh.vocab and np.array_equal(got.idf, fresh.idf)
        assert (got.weights != fresh.weights).nnz == 0
    assert b.search_many(["northwind costs"], 3) == \
        BM25Retriever.build(fine["embedding_text"].tolist(), "finance", fine["doc_id"].tolist(),
                            document_texts(fine), doc_prior=1.0).search_many(["northwind costs"], 3)
    built.clear()
    retriever(fine.assign(source_text=fine["source_text"].str.replace("Weather", "Harbour")))
    retriever(fine, doc_languages={"A": "es", "B": "en"})
    retriever(fine, analyzer="plain")
    assert built == [3, 2, 3, 2, 3, 2]  # each its own document index
    assert len(list(shared.iterdir())) == 4
    # a damaged copy is built again and replaced; beyond the kept number the oldest go
    for f in shared.iterdir():
        (f / "bm25.npz").write_bytes(b"damaged")
    built.clear()
    retriever(coarse)
    assert built == [2, 2] and len(list(shared.iterdir())) == 4
    monkeypatch.setattr(indexes, "DOCUMENT_INDEXES_KEPT", 2)
    retriever(coarse)
    assert len(list(shared.iterdir())) == 4  # loaded: nothing written, nothing forgotten
    # a killed build's temporary folder goes once it is stale, a fresh one (a build in progress) stays
    import os
    import time

    stale, fresh = shared / ".finance-x.aaaa.tmp", shared / ".finance-y.bbbb.tmp"
    for t in (stale, fresh):
        t.mkdir()
        (t / "vocab.parquet").write_bytes(b"half-written")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    retriever(fine.assign(source_text=fine["source_text"].str.replace("rose", "grew")))
    assert sorted(f.name for f in shared.iterdir() if f.name.startswith(".")) == [fresh.name]
    assert len([f for f in shared.iterdir() if not f.name.startswith(".")]) == 2


def test_english_terms_depend_on_the_text_with_whitespace_runs_made_one_space():
    """What the document index's key relies on (bm25_retriever._terms_text_hash): in English and
    the language-neutral analysis, any whitespace run gives the terms of one space; in a
    comma-decimal locale it does not ("13 668" is one number there), so its key is the text."""
    import random
    import sys

    from finchunk_pipeline import get_analyzer
    from finchunk_pipeline.index.bm25_retriever import _terms_text_hash

    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    pieces = ["Revenue", "rose", "13", "668,9", "1,234.5", "FY2019", "balance", "sheet", "l'azienda", "café",
              "x\u0301", "¨", "¹", "’s", "fiscal", "2019", ".", ",", "'", "İ", "ﬁ", "½"]
    rng = random.Random(9)
    for _ in range(1500):
        words = [rng.choice(pieces) for _ in range(rng.randint(1, 12))]
        seps = ["".join(rng.choice(spaces) for _ in range(rng.randint(1, 3))) for _ in words]
        text = "".join(w + s for w, s in zip(words, seps))
        collapsed = " ".join(text.split())
        for lang in ("en", "xx"):
            a = get_analyzer("finance", lang)
            assert a.terms(text) == a.terms(collapsed), (lang, repr(text))
            assert _terms_text_hash(text, lang) == _terms_text_hash(collapsed, lang)
    es = get_analyzer("finance", "es")
    assert es.terms("13 668,9") != es.terms("13\n\n668,9")
    assert _terms_text_hash("13 668,9", "es") != _terms_text_hash("13\n\n668,9", "es")
