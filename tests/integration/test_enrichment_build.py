"""build_enrichment outside Dagster: from stored chunks and blocks, cached by enricher version +
chunk hash, so a changed document re-enriches only its own chunks."""
from __future__ import annotations

import pandas as pd
import pytest

from finchunk_pipeline import parse_chunker_configs
from finchunk_pipeline import build_chunk_set
from finchunk_pipeline import ChunkStore
from finchunk_pipeline import EnrichmentError, build_enrichment
from finchunk_pipeline.storage.enrichments import EnrichmentStore
from finchunk_pipeline.storage.text_cache import TextCache
from finchunk_pipeline.parse import markdown
from finchunk_pipeline import BlockStore

DOC = "# {name} plc — Annual report 2024\n\n## Results\n\nRevenue was {rev} million.\n\n## Outlook\n\nGrowth ahead.\n"


def parse_all(blocks: BlockStore, texts: dict[str, str]) -> pd.DataFrame:
    rows = []
    for doc_id, text in texts.items():
        meta = {"title": f"{doc_id} report", "issuer": f"{doc_id} plc", "fiscal_year": 2024}
        doc = markdown.parse(doc_id, text, meta)
        doc.doc_sha = f"sha-{doc_id}-{abs(hash(text)) % 10**8}"
        blocks.write(f"markdown-{markdown.VERSION}", doc)
        rows.append({"doc_id": doc_id, "sha": doc.doc_sha, "parser_key": f"markdown-{markdown.VERSION}", **meta})
    return pd.DataFrame(rows)


def test_changed_document_re_enriches_only_its_chunks(tmp_path):
    config, = parse_chunker_configs({"chunk_sets": [{"name": "s", "strategy": "structure", "params": {"max_chars": 60},
                                                     "enrich": {"enricher": "structural"}}]})
    blocks, chunks, store = BlockStore(tmp_path / "blocks"), ChunkStore(tmp_path / "chunks"), EnrichmentStore(tmp_path / "e")
    texts = {"a": DOC.format(name="Alpha", rev=10), "b": DOC.format(name="Beta", rev=20)}
    parsed = parse_all(blocks, texts)
    build_chunk_set(config.chunker, parsed, blocks, chunks)
    first = build_enrichment(config, parsed, blocks, chunks, store, tmp_path / "cache")
    n = first.manifest["chunks"]
    assert first.built and first.manifest["enriched_now"] == n and first.manifest["cache_hits"] == 0
    assert not build_enrichment(config, parsed, blocks, chunks, store, tmp_path / "cache").built

    texts["b"] = DOC.format(name="Beta", rev=25)
    parsed = parse_all(blocks, texts)
    build_chunk_set(config.chunker, parsed, blocks, chunks)
    second = build_enrichment(config, parsed, blocks, chunks, store, tmp_path / "cache")
    b_chunks = int((chunks.read(config.chunks_version_name)["doc_id"] == "b").sum())
    # the chunk hash covers the document's content (the structural enricher reads the whole
    # document: key terms, table context), so b's chunks are enriched again and a's come cached
    assert second.built and second.manifest["enriched_now"] == b_chunks and second.manifest["cache_hits"] == n - b_chunks
    assert 0 < b_chunks < n
    table = store.read(config.version_name)
    assert (table["enricher"] == "structural").all() and table["chunk_id"].is_unique


def test_missing_chunks_and_unknown_documents_are_named(tmp_path):
    config, = parse_chunker_configs({"chunk_sets": [{"name": "s", "strategy": "structure",
                                                     "enrich": {"enricher": "structural"}}]})
    blocks, chunks, store = BlockStore(tmp_path / "blocks"), ChunkStore(tmp_path / "chunks"), EnrichmentStore(tmp_path / "e")
    parsed = parse_all(blocks, {"a": DOC.format(name="Alpha", rev=10)})
    with pytest.raises(EnrichmentError, match="materialize chunk_sets first"):
        build_enrichment(config, parsed, blocks, chunks, store, tmp_path / "cache")
    build_chunk_set(config.chunker, parsed, blocks, chunks)
    with pytest.raises(EnrichmentError, match=r"documents \['a'\] are not in the parsed manifest"):
        build_enrichment(config, parsed.iloc[0:0], blocks, chunks, store, tmp_path / "cache")


def test_text_cache_round_trip_and_compaction(tmp_path, monkeypatch):
    import finchunk_pipeline.storage.text_cache as cache_mod

    monkeypatch.setattr(cache_mod, "MAX_SHARDS", 3)
    cache = TextCache(tmp_path, "v1")
    for i in range(5):
        cache.put_many([{"key": f"k{i}", "text": f"t{i}", "prompt_tokens": i, "completion_tokens": 1}])
    assert len(list((tmp_path / "v1").glob("shard-*.parquet"))) <= 3
    got = cache.get_many(["k0", "k4", "missing"])
    assert got == {"k0": {"text": "t0", "prompt_tokens": 0, "completion_tokens": 1},
                   "k4": {"text": "t4", "prompt_tokens": 4, "completion_tokens": 1}}
    assert TextCache(tmp_path, "v2").get_many(["k0"]) == {}, "another enricher version shares nothing"
