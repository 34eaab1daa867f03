"""The neutral retriever ``bm25-plain``: BM25Okapi over each chunk's indexed text with the plain
analyzer and no priors, named for the report, evaluated only when asked for."""
from __future__ import annotations

import numpy as np
import pandas as pd
from rank_bm25 import BM25Okapi

from finchunk_pipeline.index import registry
from finchunk_pipeline import get_analyzer
from finchunk_pipeline.index.registry import IndexSettings, LoadRequest
from finchunk_pipeline.storage.indexes import write_index_files

TEXTS = ["Northwind plc > Revenue\nRevenue grew to 1,165.0 million in fiscal 2023.",
         "Total revenues were 1,000 million; revenue per share rose.",
         "The balance sheet: total assets 5,000, total liabilities 3,000.",
         "Consolidated statements of cash flows for the year."]
DOCS = ["a", "a", "b", "b"]


def _chunks():
    return pd.DataFrame({"chunk_id": [f"c{i}" for i in range(4)], "doc_id": DOCS, "embedding_text": TEXTS})


def test_registered_as_a_neutral_retriever_evaluated_only_when_named():
    assert "bm25-plain" in registry.names()
    assert registry.is_neutral("bm25-plain") and not registry.is_neutral("bm25")
    assert not registry.is_neutral("no-such-retriever")
    assert registry.default_names() == ("bm25", "dense", "hybrid")  # the default run is unchanged
    assert registry.indexes_to_build(["bm25"], embeds=False) == ["bm25"]
    assert registry.indexes_to_build(["bm25", "bm25-plain"], embeds=False) == ["bm25", "bm25-plain"]


def test_scores_are_bm25okapi_over_plain_terms_without_priors(tmp_path):
    """Whatever the run's BM25 settings (finance analyzer, document and statement priors), the
    neutral index ranks by rank_bm25's scores of the plain analyzer's terms alone."""
    spec = registry.index_spec("bm25-plain")
    settings = IndexSettings(analyzer="finance", doc_prior=1.0, statement_prior=0.5)
    built = spec.build(_chunks(), settings)
    write_index_files(tmp_path / "bm25-plain", built.parts)
    info = built.info
    assert info["analyzer"] == "plain-1" and info["doc_prior"] == 0.0 and "statement_prior" not in info
    assert registry.index_exists("bm25-plain", tmp_path)
    retriever = registry.load_retriever("bm25-plain", tmp_path, LoadRequest())
    assert retriever.name == "bm25-plain"
    plain = get_analyzer("plain")
    reference = BM25Okapi([plain.terms(t) for t in TEXTS])
    for query in ("What was revenue in fiscal 2023?", "total assets on the balance sheet", "cash flows"):
        expected = reference.get_scores(plain.query_terms(query))
        np.testing.assert_allclose(retriever.scores_many([query])[0], expected, rtol=1e-9, atol=1e-12)
        hits = retriever.search_many([query], 2)[0]
        assert [r for r, _ in hits] == list(np.argsort(-expected, kind="stable")[:2])


def test_its_key_names_the_plain_analyzer_not_the_runs():
    """The index is keyed on what builds it: the plain analyzer's languages, not the finance
    analyzer or the priors of the run's bm25 settings."""
    spec = registry.index_spec("bm25-plain")
    a = spec.config(IndexSettings(analyzer="finance", doc_prior=1.0, languages_key="finance-1.1"))
    b = spec.config(IndexSettings(analyzer="plain", doc_prior=0.0, languages_key="plain-1"))
    assert a == b == {"languages": "plain-1", "forced": ""}
    assert spec.config(IndexSettings(doc_languages={"a": "es"}))["languages"] == get_analyzer("plain", "es").key

