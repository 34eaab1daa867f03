"""One chunk set from parsed documents: every document chunked by one Chunker, the chunk set's
inputs key and its manifest. A pure stage: documents come in as (ParsedDocument, meta) pairs,
chunks and the manifest go out; nothing here reads or writes a store (reuse, twins, the block
store and the Parquet: builders/chunks.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Callable, Iterable

import pandas as pd

from ..hashing import meta_value, stable_hash
from ..types.blocks import ParsedDocument
from ..types.chunks import Chunk
from .bound import SPLIT_NOTE, TABLE_KINDS, piece_bound, span_chars
from .chunker import Chunker, require_chunker
from .document import chunk_document
from .notes import Notes, collecting
from .registry import STRATEGIES
from .stats import chunk_set_stats
from .strategy_context import DEFAULT_EMBED_BACKEND, ChunkingContext

# documents a strategy that prepares in bulk (semantic: one batched embedding call) gets at once
PREPARE_GROUP = 256
META_FIELDS = ("doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end", "filed_at", "language")


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


@dataclass
class ChunkedSet:
    """What chunking every document gave: the chunks, and what the manifest reports."""
    chunks: list[Chunk] = field(default_factory=list)
    documents: int = 0
    source_chars: int = 0
    over_bound: list[str] = field(default_factory=list)  # chunk ids over the strategy's bound
    tables_over: int = 0         # table chunks over char_bound, within the table allowance
    largest_table: int = 0       # characters of the largest of them
    notes: Notes = field(default_factory=Notes)  # what the strategies noted (chunking/notes.py)


def chunk_set(chunker: Chunker, documents: Iterable[tuple[ParsedDocument, dict[str, Any]]], total: int,
              context: ChunkingContext, progress: Callable[[int, int], None] | None = None) -> ChunkedSet:
    """Every document chunked by ``chunker``, in order. ``documents`` is read lazily, one
    (ParsedDocument, meta) pair at a time (memory stays flat in the corpus size when it reads
    from a store); a strategy with a bulk ``prepare`` step gets ``PREPARE_GROUP`` documents at
    a time. ``total``: how many there are (for ``progress``)."""
    require_chunker(chunker, "chunk_set")
    strategy = STRATEGIES[chunker.strategy]
    group = PREPARE_GROUP if strategy.prepares() else 1
    built = ChunkedSet(documents=total)
    documents = iter(documents)
    start = 0
    with collecting() as notes:
        while batch := list(islice(documents, group)):
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
                    progress(i, total)
            start += len(batch)
            del batch
    built.notes = notes
    return built


def _check_bound(built: ChunkedSet, chunks: list[Chunk], bound: int, table_bound: int | None) -> None:
    """Count the chunks over their bound (a bug: enforced before) and the tables the table
    allowance lets over ``bound``."""
    for c in chunks:
        n = span_chars(c.view_spans)
        if n > piece_bound(c.kind, bound, table_bound):
            built.over_bound.append(c.chunk_id)
        elif n > bound and c.kind in TABLE_KINDS:
            built.tables_over += 1
            built.largest_table = max(built.largest_table, n)


def manifest(chunker: Chunker, built: ChunkedSet, key: str, model_max_tokens: int) -> dict:
    """The chunk set's manifest: what it is, its statistics and its bound checks (``key``:
    its ``inputs_hash``)."""
    strategy = STRATEGIES[chunker.strategy]
    notes = built.notes
    df = pd.DataFrame({"embedding_text": [c.embedding_text for c in built.chunks],
                       "source_text": [c.source_text for c in built.chunks],
                       "n_tokens": [c.n_tokens for c in built.chunks],
                       "over_limit": [c.over_limit for c in built.chunks]})
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
