"""Build one chunk set from the persisted blocks of a corpus (never from the parser)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pandas as pd

from ..parse.store import BlockStore
from ..storage import stable_hash
from .chunker import chunk_document
from .config import ChunkerConfig
from .model import Chunk
from .stats import chunk_set_stats
from .store import ChunkStore, chunks_to_table
from .tokens import token_counter

META_FIELDS = ("doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end", "filed_at")


@dataclass
class ChunkSetResult:
    version_name: str
    built: bool          # False: an identical chunk set existed and was reused
    manifest: dict


def inputs_hash(config: ChunkerConfig, parsed: pd.DataFrame, model_path: str | None) -> str:
    docs = sorted(zip(parsed["doc_id"], parsed["sha"], parsed["parser_key"]))
    return stable_hash({"config": config.version_name, "docs": docs, "tokenizer": model_path or "default"})


def build_chunk_set(config: ChunkerConfig, parsed: pd.DataFrame, blocks: BlockStore, store: ChunkStore,
                    model_path: str | None = None, progress: Callable[[int, int], None] | None = None,
                    force: bool = False) -> ChunkSetResult:
    """``parsed``: the parsed-blocks manifest (document metadata + sha + parser_key)."""
    key = inputs_hash(config, parsed, model_path)
    existing = store.manifest(config.version_name)
    if existing and existing.get("inputs") == key and not force:
        return ChunkSetResult(config.version_name, False, existing)
    counter = token_counter(model_path)
    chunks: list[Chunk] = []
    source_chars = 0
    records = parsed.to_dict("records")
    for i, rec in enumerate(records):
        doc = blocks.read(rec["parser_key"], rec["sha"], doc_id=rec["doc_id"])
        source_chars += len(doc.view_text)
        meta = {k: rec.get(k) for k in META_FIELDS}
        chunks.extend(chunk_document(config, doc, meta, counter))
        if progress:
            progress(i + 1, len(records))
    table = chunks_to_table(chunks)
    df = table.select(["embedding_text", "source_text", "n_tokens", "over_limit"]).to_pandas()
    manifest = {
        "chunk_set": config.name, "version": config.version_name, "strategy": config.strategy,
        "params": config.params, "header": config.header, "context_fields": list(config.context_fields),
        "inputs": key, "documents": len(records), "source_chars": source_chars,
        "model_max_tokens": counter.max_tokens, **chunk_set_stats(df, source_chars),
    }
    store.write(config.version_name, table, manifest)
    return ChunkSetResult(config.version_name, True, manifest)
