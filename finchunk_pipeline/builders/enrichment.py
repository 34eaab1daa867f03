"""Build the enriched set of one chunk-set version over the stores.

``build_enrichment`` reuses the enriched set stored with the same inputs (the chunks' inputs
hash and the enricher's version id: ``enrichment_inputs``); else it reads the chunk set's
Parquet from the chunk store (stored under the chunking-only version, so no strategy runs),
enriches it by the pure stage enrichment/enriched_set.py with each document read from the
block store (so no parser runs) and the text cache by (enricher version, chunk hash), and
writes ``<corpus>/enrichments/<version name>/enrichment.parquet`` (one row per chunk, in
chunks.parquet order) and its manifest, last.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from ..enrichment.enriched_set import (
    CHUNK_COLUMNS,
    DocumentReader,
    EnrichmentError,
    enrich_chunk_set,
    enrichment_inputs,
    manifest,
)
from ..enrichment.model import EnrichSpec
from ..storage.blocks import BlockStore
from ..storage.chunks import ChunkStore
from ..storage.enrichments import EnrichmentStore
from ..storage.text_cache import TextCache


@dataclass
class EnrichmentResult:
    version_name: str
    built: bool
    manifest: dict
    usage: dict = field(default_factory=dict)


def build_enrichment(config, parsed: pd.DataFrame, blocks: BlockStore, chunks: ChunkStore, store: EnrichmentStore,
                     cache_root: str | Path, client_factory: Callable[[], object] | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     log: Callable[[str], None] | None = None) -> EnrichmentResult:
    """Build (or reuse) the enriched set of ``config`` (a ChunkerConfig with ``enrich``).

    ``parsed``: the parsed-blocks manifest (doc_id, sha, parser_key + metadata).
    ``cache_root``: the text cache's folder (the enricher's version id names its namespace).
    ``client_factory``: makes the LLM client (enrichment/client.ChatClient) for ``llm``;
    called only when some chunk is not cached. Raises EnrichmentError when chunks could not
    be enriched (the ones that were are cached: a re-run asks only for the rest)."""
    spec: EnrichSpec = config.enrich
    if spec is None:
        raise ValueError(f"chunk set {config.name} declares no enricher")
    cm = chunks.manifest(config.chunks_version_name)
    if cm is None:
        raise EnrichmentError(f"chunk set {config.chunks_version_name} is missing: materialize chunk_sets first")
    key = enrichment_inputs(spec, cm)
    existing = store.fresh(config.version_name, key)
    if existing is not None:
        return EnrichmentResult(config.version_name, False, existing)
    t0 = time.perf_counter()
    df = chunks.read(config.chunks_version_name, columns=CHUNK_COLUMNS)
    enriched = enrich_chunk_set(config, df, parsed, document_reader(blocks), TextCache(cache_root, spec.version_id),
                                client_factory, progress, log)
    stored = manifest(config, key, enriched, round(time.perf_counter() - t0, 3))
    store.write(config.version_name, enriched.table, stored)
    return EnrichmentResult(config.version_name, True, stored, enriched.usage)


def document_reader(blocks: BlockStore) -> DocumentReader:
    """A document's blocks from ``blocks``, given its record of the parsed-blocks manifest."""
    def read(d: dict):
        return blocks.read(d["parser_key"], d["sha"], doc_id=d["doc_id"])
    return read
