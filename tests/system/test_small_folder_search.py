"""A user's first folder holds two or three filings: BM25 must still rank the document a
question names first. Okapi's idf is not positive there (a word in one of two documents has idf
0, a word in both a negative one), which ranked the *other* filing first with scores near
-1e11 until the index took the smoothed idf on such corpora (index/bm25.py)."""
from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from finchunk_pipeline import DEFAULT_CORPUS
from finchunk_pipeline.cli import main
from finchunk_pipeline.corpus import schema

CHUNKERS = """
chunk_sets:
  - name: fixed-h
    strategy: fixed
    params: {size: 500, overlap: 50}
    header: true
    dense: false
"""
DOCS = {"ar-northwind-holdings-2024": "Northwind revenue by segment",
        "10k-granite-peak-technologies-2024": "Granite Peak operating income"}


def test_two_filings_answer_with_the_named_one_without_routing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    docs = pd.read_parquet(DEFAULT_CORPUS / "documents.parquet")
    docs = docs[docs["doc_id"].isin(DOCS)]
    pq.write_table(pa.Table.from_pandas(docs, schema=schema.DOCUMENTS, preserve_index=False),
                   corpus / "documents.parquet")
    (tmp_path / "chunkers.yaml").write_text(CHUNKERS)
    store = ["--corpus", str(corpus), "--data", str(tmp_path / "store"), "--chunkers", str(tmp_path / "chunkers.yaml")]
    assert main(["run", *store, "--out", str(tmp_path / "out"), "--retrievers", "bm25"]) == 0
    capsys.readouterr()
    for doc_id, question in DOCS.items():
        assert main(["search", question, "--chunk-set", "fixed-h", "--no-route", "-k", "3", "--json", *store]) == 0
        hits = json.loads(capsys.readouterr().out)
        assert [h["doc_id"] for h in hits] == [doc_id] * 3, (question, hits)
        assert all(0.0 <= h["score"] <= 2.0 for h in hits), hits
