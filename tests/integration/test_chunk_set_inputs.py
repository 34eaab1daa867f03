"""A chunk set is rebuilt when anything it reads changes: the document metadata its headers
and the ``auto`` policy read included; unchanged inputs reuse it."""
from __future__ import annotations

import pandas as pd
import pytest

from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline import build_chunk_set
from finchunk_pipeline import ChunkStore
from finchunk_pipeline.parse import markdown
from finchunk_pipeline import BlockStore

TEXT = "# Results\n\nRevenue grew to 120 million in the year.\n\n## Outlook\n\nWe expect growth.\n"


@pytest.fixture
def stores(tmp_path):
    blocks = BlockStore(tmp_path / "blocks")
    doc = markdown.parse("d1", TEXT, {})
    doc.doc_sha = "a" * 64
    blocks.write("markdown-test", doc)
    parsed = pd.DataFrame([{"doc_id": "d1", "sha": doc.doc_sha, "parser_key": "markdown-test",
                            "title": "Northwind annual report 2023", "doc_type": "annual_report",
                            "issuer": "Northwind plc", "ticker": "NWD", "fiscal_year": 2023,
                            "period_end": pd.Timestamp("2023-12-31"), "filed_at": pd.NaT}])
    return blocks, ChunkStore(tmp_path / "chunks"), parsed


HEADER = ChunkerConfig("structure-h", "structure", {"max_chars": 800}, header=True,
                       context_fields=("title", "issuer", "period", "section"))


def _build(stores, parsed, config=HEADER):
    blocks, chunks, _ = stores
    return build_chunk_set(config.chunker, parsed, blocks, chunks, None)


@pytest.mark.parametrize("field,value", [
    ("title", "Northwind annual report 2024"), ("issuer", "Southwind plc"), ("fiscal_year", 2024),
    ("period_end", pd.Timestamp("2024-12-31")), ("doc_type", "10-K"), ("ticker", "SWD"),
    ("filed_at", pd.Timestamp("2024-03-01", tz="UTC")),
])
def test_changed_metadata_rebuilds_the_chunk_set(stores, field, value):
    _, chunk_store, parsed = stores
    first = _build(stores, parsed)
    assert first.built
    assert not _build(stores, parsed.copy()).built  # unchanged: reused
    changed = parsed.copy()
    changed[field] = [value]
    again = _build(stores, changed)
    assert again.built and again.manifest["inputs"] != first.manifest["inputs"]
    if field in ("title", "issuer", "fiscal_year", "period_end"):
        text = chunk_store.read(HEADER.version_name, columns=["embedding_text"])["embedding_text"].iloc[0]
        assert str(value)[:4] in text  # the header shows the new value, not the stale one


def test_missing_values_hash_alike(stores):
    _, _, parsed = stores
    a = parsed.copy()
    a["filed_at"] = [None]
    first = _build(stores, parsed)
    assert first.built and not _build(stores, a).built  # NaT and None are the same missing value
