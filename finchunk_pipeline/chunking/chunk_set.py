"""Build one chunk set from the persisted blocks of a corpus (never from the parser).

Chunks are stored under the configuration's chunking-only version (``chunks_version_name``):
a chunk set that differs from a stored one only by its enricher reuses its chunks. A chunk
set whose chunking equals a stored chunk set of another name (same strategy, parameters,
header, code and inputs: e.g. ``structure-h-e`` declared beside ``structure-h`` with an
enricher added) is copied from that set's Parquet instead of being chunked again.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd
import pyarrow as pa

from ..storage.blocks import BlockStore
from ..hashing import meta_value, stable_hash
from .bound import SPLIT_NOTE, TABLE_KINDS, piece_bound, span_chars
from .chunker import Chunker, require_chunker
from .document import chunk_document
from ..types.chunks import Chunk
from .notes import Notes, collecting
from .registry import STRATEGIES
from .stats import chunk_set_stats
from ..storage.chunks import ChunkStore, chunks_to_table
from .strategy_context import DEFAULT_EMBED_BACKEND, ChunkingContext

# documents a strategy that prepares in bulk (semantic: one batched embedding call) gets at once
PREPARE_GROUP = 256
META_FIELDS = ("doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end", "filed_at", "language")


@dataclass
class ChunkSetResult:
    version_name: str
    built: bool          # False: an identical chunk set existed and was reused
    manifest: dict
    derived_from: str | None = None  # copied from this stored chunk set (same chunking), not chunked


def inputs_hash(chunker: Chunker, parsed: pd.DataFrame, model_path: str | None,
                embed_backend: str = DEFAULT_EMBED_BACKEND) -> str:
    """Everything a chunk set is built from: the configuration, each document's blocks
    (content hash + parser) and the metadata strategies and context headers read
    (META_FIELDS: title, issuer, fiscal_year, period_end, doc_type, ... — a changed title
    changes the headers, a changed doc_type what ``auto`` does), the tokenizer, and for a
    strategy that embeds (semantic: its cuts follow the vectors) the embedding backend."""
    fields = [f for f in META_FIELDS if f in parsed.columns]
    docs = sorted(
        (d, sha, key, [meta_value(v) for v in meta])
        for d, sha, key, *meta in zip(parsed["doc_id"], parsed["sha"], parsed["parser_key"],
                                      *(parsed[f] for f in fields)))
    key = {"config": chunker.chunks_version_name, "docs": docs, "meta_fields": fields,
           "tokenizer": model_path or "default"}
    if STRATEGIES[chunker.strategy].embeds:
        key["embedding_backend"] = embed_backend
    return stable_hash(key)


def build_chunk_set(chunker: Chunker, parsed: pd.DataFrame, blocks: BlockStore, store: ChunkStore,
                    model_path: str | None = None, progress: Callable[[int, int], None] | None = None,
                    force: bool = False, embeddings_dir: str | Path | None = None,
                    embed_backend: str = DEFAULT_EMBED_BACKEND) -> ChunkSetResult:
    """``parsed``: the parsed-blocks manifest (document metadata + sha + parser_key);
    ``model_path``, ``embeddings_dir``, ``embed_backend``: the run's model (None: the
    packaged one), embedding cache and embedding backend, handed to the strategy in a
    ChunkingContext. A stored chunk set with the same inputs is reused (unless ``force``),
    one of another name with the same chunking is copied."""
    require_chunker(chunker, "build_chunk_set")
    key = inputs_hash(chunker, parsed, model_path, embed_backend)
    version = chunker.chunks_version_name
    existing = None if force else store.fresh(version, key, adopt=True)
    if existing is not None:
        return ChunkSetResult(version, False, existing)
    if not force:
        twin = stored_twin(chunker, parsed, store, model_path, embed_backend)
        if twin is not None:
            return _copy_twin(chunker, twin, key, store)
    context = ChunkingContext(model_path, embeddings_dir, embed_backend)
    with collecting() as notes:
        built = _chunk_all(chunker, parsed, blocks, context, progress)
    table = chunks_to_table(built.chunks)
    manifest = _manifest(chunker, built, table, key, context.counter.max_tokens, notes)
    store.write(version, table, manifest)
    return ChunkSetResult(version, True, manifest)


@dataclass
class _Built:
    """What chunking every document gave: the chunks, and what the manifest reports."""
    chunks: list[Chunk] = field(default_factory=list)
    documents: int = 0
    source_chars: int = 0
    over_bound: list[str] = field(default_factory=list)  # chunk ids over the strategy's bound
    tables_over: int = 0         # table chunks over char_bound, within the table allowance
    largest_table: int = 0       # characters of the largest of them


def _chunk_all(chunker: Chunker, parsed: pd.DataFrame, blocks: BlockStore, context: ChunkingContext,
               progress: Callable[[int, int], None] | None) -> _Built:
    """Documents are read and chunked one at a time (memory stays flat in the corpus size); a
    strategy with a bulk ``prepare`` step gets ``PREPARE_GROUP`` documents at a time."""
    strategy = STRATEGIES[chunker.strategy]
    records = parsed.to_dict("records")
    group = PREPARE_GROUP if strategy.prepares() else 1
    built = _Built(documents=len(records))
    for start in range(0, len(records), group):
        batch = [(blocks.read(rec["parser_key"], rec["sha"], doc_id=rec["doc_id"]),
                  {k: rec.get(k) for k in META_FIELDS}) for rec in records[start:start + group]]
        if len(batch) > 1:  # one document: pieces does the same work itself
            strategy.prepare(batch, chunker.params, context=context)
        for i, (doc, meta) in enumerate(batch, start + 1):
            built.source_chars += len(doc.view_text)
            doc_chunks = chunk_document(chunker, doc, meta, context.counter, context)
            bound = strategy.char_bound(chunker.params, doc, meta)
            if bound:  # enforced by chunk_document: any chunk over it is a bug to surface
                _check_bound(built, doc_chunks, bound, strategy.table_char_bound(chunker.params, doc, meta))
            built.chunks.extend(doc_chunks)
            if progress:
                progress(i, len(records))
        del batch
    return built


def _check_bound(built: _Built, chunks: list[Chunk], bound: int, table_bound: int | None) -> None:
    """Count the chunks over their bound (a bug: enforced before) and the tables the table
    allowance lets over ``bound``."""
    for c in chunks:
        n = span_chars(c.view_spans)
        if n > piece_bound(c.kind, bound, table_bound):
            built.over_bound.append(c.chunk_id)
        elif n > bound and c.kind in TABLE_KINDS:
            built.tables_over += 1
            built.largest_table = max(built.largest_table, n)


def _manifest(chunker: Chunker, built: _Built, table: pa.Table, key: str, model_max_tokens: int,
              notes: Notes) -> dict:
    """The stored chunk set's manifest: what it is, its statistics and its bound checks."""
    strategy = STRATEGIES[chunker.strategy]
    df = table.select(["embedding_text", "source_text", "n_tokens", "over_limit"]).to_pandas()
    return {
        "chunk_set": chunker.name, "version": chunker.chunks_version_name, "strategy": chunker.strategy,
        "params": chunker.params, "header": chunker.header, "context_fields": list(chunker.context_fields),
        "inputs": key, "documents": built.documents, "source_chars": built.source_chars,
        "model_max_tokens": model_max_tokens, **chunk_set_stats(df, built.source_chars),
        # the strategy's declared bound on a chunk's characters of document text, the chunks
        # over it (0 unless enforcement failed), and the pieces split by characters to meet it;
        # the table allowance, and the tables it let over char_bound (how many, the largest)
        "char_bound": strategy.char_bound(chunker.params),
        "max_span_chars": max((span_chars(c.view_spans) for c in built.chunks), default=0),
        "over_bound": len(built.over_bound), "over_bound_examples": built.over_bound[:20],
        "table_char_bound": strategy.table_char_bound(chunker.params),
        "tables_over_char_bound": built.tables_over, "largest_table_chars": built.largest_table,
        "split_to_bound": notes.counts.get(SPLIT_NOTE, 0),
        "notes": notes.as_dict(),
    }


def stored_twin(chunker: Chunker, parsed: pd.DataFrame, store: ChunkStore,
                model_path: str | None = None, embed_backend: str = DEFAULT_EMBED_BACKEND) -> str | None:
    """The version name of a complete stored chunk set of another name whose chunks this
    configuration would reproduce exactly: same chunking hash (strategy, parameters, header,
    code) and same inputs (documents, metadata, tokenizer). None when there is none."""
    suffix = f"-{chunker.chunking_hash}"
    if not store.root.is_dir():
        return None
    for folder in sorted(store.root.glob(f"*{suffix}")):
        name = folder.name[:-len(suffix)]
        if name == chunker.name or not folder.is_dir():
            continue
        twin = dataclasses.replace(chunker, name=name)
        if store.fresh(folder.name, inputs_hash(twin, parsed, model_path, embed_backend)) is not None:
            return folder.name
    return None


def _copy_twin(chunker: Chunker, twin: str, key: str, store: ChunkStore) -> ChunkSetResult:
    """This configuration's chunk set from the stored Parquet of ``twin`` (no parsing, no
    chunking): the same rows, ``chunk_set`` renamed."""
    import pyarrow.parquet as pq

    table = pq.read_table(store.path(twin))
    i = table.schema.get_field_index("chunk_set")
    table = table.set_column(i, table.schema.field(i), pa.array([chunker.name] * table.num_rows, pa.string()))
    manifest = {k: v for k, v in (store.manifest(twin) or {}).items() if k != "data_bytes"}
    manifest.update({"chunk_set": chunker.name, "version": chunker.chunks_version_name, "inputs": key,
                     "derived_from": twin})
    store.write(chunker.chunks_version_name, table, manifest)
    return ChunkSetResult(chunker.chunks_version_name, True, manifest, derived_from=twin)
