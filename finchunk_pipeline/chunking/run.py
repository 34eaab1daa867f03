"""Build one chunk set from the persisted blocks of a corpus (never from the parser).

Chunks are stored under the configuration's chunking-only version (``chunks_version_name``):
a chunk set that differs from a stored one only by its enricher reuses its chunks. A chunk
set whose chunking equals a stored chunk set of another name (same strategy, parameters,
header, code and inputs: e.g. ``structure-h-e`` declared beside ``structure-h`` with an
enricher added) is copied from that set's Parquet instead of being chunked again.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from ..parse.store import BlockStore
from ..storage import stable_hash
from .bound import SPLIT_NOTE, span_chars
from .chunker import chunk_document
from .config import ChunkerConfig
from .model import Chunk
from .notes import collecting
from .registry import STRATEGIES
from .stats import chunk_set_stats
from .store import ChunkStore, chunks_to_table
from .tokens import token_counter

# documents a strategy that prepares in bulk (semantic: one batched embedding call) gets at once
PREPARE_GROUP = 256
META_FIELDS = ("doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end", "filed_at", "language")


@dataclass
class ChunkSetResult:
    version_name: str
    built: bool          # False: an identical chunk set existed and was reused
    manifest: dict
    derived_from: str | None = None  # copied from this stored chunk set (same chunking), not chunked


def _meta_value(v):
    """A metadata value as the hash sees it: missing values (None, NaN, NaT) are one value."""
    try:
        if v is None or pd.isna(v):
            return None
    except (TypeError, ValueError):  # list-like
        pass
    return str(v)


def inputs_hash(config: ChunkerConfig, parsed: pd.DataFrame, model_path: str | None) -> str:
    """Everything a chunk set is built from: the configuration, each document's blocks
    (content hash + parser) and the metadata strategies and context headers read
    (META_FIELDS: title, issuer, fiscal_year, period_end, doc_type, ... — a changed title
    changes the headers, a changed doc_type what ``auto`` does), and the tokenizer."""
    fields = [f for f in META_FIELDS if f in parsed.columns]
    docs = sorted(
        (d, sha, key, [_meta_value(v) for v in meta])
        for d, sha, key, *meta in zip(parsed["doc_id"], parsed["sha"], parsed["parser_key"],
                                      *(parsed[f] for f in fields)))
    key = {"config": config.chunks_version_name, "docs": docs, "meta_fields": fields,
           "tokenizer": model_path or "default"}
    if STRATEGIES[config.strategy].embeds:  # semantic: its cuts follow the backend's vectors
        from ..index.onnx_backend import backend_from_env

        key["embedding_backend"] = backend_from_env()
    return stable_hash(key)


def build_chunk_set(config: ChunkerConfig, parsed: pd.DataFrame, blocks: BlockStore, store: ChunkStore,
                    model_path: str | None = None, progress: Callable[[int, int], None] | None = None,
                    force: bool = False, embeddings_dir: str | Path | None = None) -> ChunkSetResult:
    """``parsed``: the parsed-blocks manifest (document metadata + sha + parser_key);
    ``embeddings_dir``: the embedding cache a strategy that embeds (semantic) uses.

    Documents are read and chunked one at a time (memory stays flat in the corpus size); a
    strategy with a bulk ``prepare`` step gets ``PREPARE_GROUP`` documents at a time."""
    from .semantic import embedding_cache

    key = inputs_hash(config, parsed, model_path)
    version = config.chunks_version_name
    existing = store.manifest(version)
    if existing and existing.get("inputs") == key and not force:
        return ChunkSetResult(version, False, existing)
    if not force:
        twin = stored_twin(config, parsed, store, model_path)
        if twin is not None:
            return _copy_twin(config, twin, key, store)
    counter = token_counter(model_path)
    chunks: list[Chunk] = []
    source_chars = 0
    over_bound: list[str] = []
    records = parsed.to_dict("records")
    strategy = STRATEGIES[config.strategy]
    group = PREPARE_GROUP if strategy.prepares() else 1
    done = 0
    with collecting() as notes, embedding_cache(embeddings_dir):
        for start in range(0, len(records), group):
            batch = []
            for rec in records[start:start + group]:
                doc = blocks.read(rec["parser_key"], rec["sha"], doc_id=rec["doc_id"])
                batch.append((doc, {k: rec.get(k) for k in META_FIELDS}))
            if len(batch) > 1:  # one document: pieces does the same work itself
                strategy.prepare(batch, config.params)
            for doc, meta in batch:
                source_chars += len(doc.view_text)
                doc_chunks = chunk_document(config, doc, meta, counter)
                bound = strategy.char_bound(config.params, doc, meta)
                if bound:  # enforced by chunk_document: any chunk over it is a bug to surface
                    over_bound.extend(c.chunk_id for c in doc_chunks if span_chars(c.view_spans) > bound)
                chunks.extend(doc_chunks)
                done += 1
                if progress:
                    progress(done, len(records))
            del batch
    table = chunks_to_table(chunks)
    df = table.select(["embedding_text", "source_text", "n_tokens", "over_limit"]).to_pandas()
    manifest = {
        "chunk_set": config.name, "version": version, "strategy": config.strategy,
        "params": config.params, "header": config.header, "context_fields": list(config.context_fields),
        "inputs": key, "documents": len(records), "source_chars": source_chars,
        "model_max_tokens": counter.max_tokens, **chunk_set_stats(df, source_chars),
        # the strategy's declared bound on a chunk's characters of document text, the chunks
        # over it (0 unless enforcement failed), and the pieces split by characters to meet it
        "char_bound": strategy.char_bound(config.params),
        "max_span_chars": max((span_chars(c.view_spans) for c in chunks), default=0),
        "over_bound": len(over_bound), "over_bound_examples": over_bound[:20],
        "split_to_bound": notes.counts.get(SPLIT_NOTE, 0),
        "notes": notes.as_dict(),
    }
    store.write(version, table, manifest)
    return ChunkSetResult(version, True, manifest)


def stored_twin(config: ChunkerConfig, parsed: pd.DataFrame, store: ChunkStore,
                model_path: str | None = None) -> str | None:
    """The version name of a complete stored chunk set of another name whose chunks this
    configuration would reproduce exactly: same chunking hash (strategy, parameters, header,
    code) and same inputs (documents, metadata, tokenizer). None when there is none."""
    suffix = f"-{config.chunking_hash}"
    if not store.root.is_dir():
        return None
    for folder in sorted(store.root.glob(f"*{suffix}")):
        name = folder.name[:-len(suffix)]
        if name == config.name or not folder.is_dir():
            continue
        manifest = store.manifest(folder.name)
        twin = dataclasses.replace(config, name=name, enrich=None, description="")
        if manifest and manifest.get("inputs") == inputs_hash(twin, parsed, model_path):
            return folder.name
    return None


def _copy_twin(config: ChunkerConfig, twin: str, key: str, store: ChunkStore) -> ChunkSetResult:
    """This configuration's chunk set from the stored Parquet of ``twin`` (no parsing, no
    chunking): the same rows, ``chunk_set`` renamed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(store.path(twin))
    i = table.schema.get_field_index("chunk_set")
    table = table.set_column(i, table.schema.field(i), pa.array([config.name] * table.num_rows, pa.string()))
    manifest = {k: v for k, v in (store.manifest(twin) or {}).items() if k != "data_bytes"}
    manifest.update({"chunk_set": config.name, "version": config.chunks_version_name, "inputs": key,
                     "derived_from": twin})
    store.write(config.chunks_version_name, table, manifest)
    return ChunkSetResult(config.chunks_version_name, True, manifest, derived_from=twin)
