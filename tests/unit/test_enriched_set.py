"""The pure enrichment stage (enrichment/enriched_set.py): a chunk set enriched from a chunks
table, its documents read through a function and its enrichments cached in memory, with no
store; a second pass takes every enrichment from the cache and reads no document."""
from __future__ import annotations

import pandas as pd
import pytest

from finchunk_pipeline import EnrichmentError, parse_chunker_configs
from finchunk_pipeline.chunking.chunk_set import chunk_set
from finchunk_pipeline.chunking.strategy_context import ChunkingContext
from finchunk_pipeline.enrichment.enriched_set import CHUNK_COLUMNS, enrich_chunk_set, manifest
from finchunk_pipeline.parse import markdown
from finchunk_pipeline.storage.chunks import chunks_to_table

DOC = "# {name} plc — Annual report 2024\n\n## Results\n\nRevenue was {rev} million.\n\n## Outlook\n\nGrowth ahead.\n"


class _Cache:
    """Enrichments by chunk hash, in memory (what the text cache gives)."""

    def __init__(self):
        self.records: dict[str, dict] = {}

    def get_many(self, keys):
        return {k: self.records[k] for k in keys if k in self.records}

    def put_many(self, records):
        self.records.update({r["key"]: r for r in records})


def _inputs():
    config, = parse_chunker_configs({"chunk_sets": [{"name": "s", "strategy": "structure",
                                                     "params": {"max_chars": 60},
                                                     "enrich": {"enricher": "structural"}}]})
    docs, rows = {}, []
    for doc_id, name in (("a", "Alpha"), ("b", "Beta")):
        meta = {"title": f"{doc_id} report", "issuer": f"{name} plc", "fiscal_year": 2024}
        doc = markdown.parse(doc_id, DOC.format(name=name, rev=10), meta)
        doc.doc_sha = f"sha-{doc_id}"
        docs[doc_id] = doc
        rows.append({"doc_id": doc_id, "sha": doc.doc_sha, "parser_key": "markdown", **meta})
    built = chunk_set(config.chunker, [(docs[r["doc_id"]], r) for r in rows], len(rows), ChunkingContext())
    chunks = chunks_to_table(built.chunks).to_pandas()[CHUNK_COLUMNS]
    return config, chunks, pd.DataFrame(rows), docs


def test_a_chunk_set_is_enriched_in_memory_and_then_from_the_cache():
    config, chunks, parsed, docs = _inputs()
    cache, read = _Cache(), []

    def reader(d):
        read.append(d["doc_id"])
        return docs[d["doc_id"]]

    first = enrich_chunk_set(config, chunks.copy(), parsed, reader, cache)
    n = len(chunks)
    assert (first.chunks, first.enriched_now, first.cache_hits) == (n, n, 0) and sorted(read) == ["a", "b"]
    assert first.table.column("chunk_id").to_pylist() == list(chunks["chunk_id"])
    read.clear()
    again = enrich_chunk_set(config, chunks.copy(), parsed, reader, cache)
    assert (again.enriched_now, again.cache_hits, read) == (0, n, [])
    assert again.table.column("enrichment_text").to_pylist() == first.table.column("enrichment_text").to_pylist()
    m = manifest(config, "key", again, 0.5)
    assert (m["inputs"], m["chunks"], m["cache_hits"], m["seconds"]) == ("key", n, n, 0.5)
    with pytest.raises(EnrichmentError, match=r"documents \['a', 'b'\] are not in the parsed manifest"):
        enrich_chunk_set(config, chunks.copy(), parsed.iloc[0:0], reader, cache)
