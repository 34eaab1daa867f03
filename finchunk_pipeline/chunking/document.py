"""Chunk documents with one chunker configuration: the strategy's pieces, bounded, made chunks."""
from __future__ import annotations

from typing import Any, Iterable

from ..parse.gcpause import gc_paused
from ..types.blocks import ParsedDocument
from ..types.chunks import Chunk
from .bound import SPLIT_NOTE, enforce_char_bound
from .chunker import Chunker, require_chunker
from .context import build_chunks
from .notes import note
from .registry import STRATEGIES
from .strategy_context import ChunkingContext
from .token_bound import SPLIT_NOTE as TOKEN_SPLIT_NOTE
from .token_bound import fit_to_tokens


def chunk_document(chunker: Chunker, doc: ParsedDocument, meta: dict[str, Any], counter=None,
                   context: ChunkingContext | None = None) -> list[Chunk]:
    """The strategy's pieces, held to the strategy's declared character bound (bound.py:
    a piece with no structural split point is cut by characters as a last resort, and
    noted; a table piece to the strategy's table allowance when it declares one), then
    turned into chunks. The document's language (``meta["language"]``, English
    without) is the current language meanwhile (lang/current.py: sentences, note words).
    ``counter``: counts the chunks' tokens (none counted without); ``context``: the run's
    model and embedder the strategy uses (chunking/strategy_context.py). The cyclic garbage
    collector is paused meanwhile (parse/gcpause.py: a chunk set's objects form no cycles,
    and each automatic collection would scan every parsed block still alive), and what was
    built joins the oldest generation unscanned on resume (else re-enabling starts a
    collection scanning every chunk just built: ~0.14 s of a packed pass on financebench_dev)."""
    from ..lang.codes import normalise
    from ..lang.current import document_language

    require_chunker(chunker, "chunk_document")
    language = normalise(meta.get("language"), f"document {doc.doc_id}")
    with document_language(language), gc_paused(age_on_resume=True):
        return _chunk_document(chunker, doc, meta, counter, context)


def _chunk_document(chunker: Chunker, doc: ParsedDocument, meta: dict[str, Any], counter,
                    context: ChunkingContext | None) -> list[Chunk]:
    strategy = STRATEGIES[chunker.strategy]
    pieces = strategy.pieces(doc, chunker.params, meta, context=context)
    pieces, split = enforce_char_bound(doc, pieces, strategy.char_bound(chunker.params, doc, meta),
                                       strategy.table_char_bound(chunker.params, doc, meta))
    note(SPLIT_NOTE, split, doc.doc_id)

    def build(ps):
        return build_chunks(doc, meta, ps, chunk_set=chunker.name, header=chunker.header,
                            context_fields=chunker.context_fields, counter=counter)

    if chunker.token_safe and counter is not None:
        chunks, split_tokens = fit_to_tokens(doc, pieces, build, counter)
        note(TOKEN_SPLIT_NOTE, split_tokens, doc.doc_id)
        return chunks
    return build(pieces)


def chunk_documents(chunker: Chunker, docs: Iterable[tuple[ParsedDocument, dict[str, Any]]],
                    counter=None, context: ChunkingContext | None = None) -> list[Chunk]:
    """Chunks of many documents (the strategy prepares them together first, e.g. semantic
    embeds all their sentences in one batched call)."""
    require_chunker(chunker, "chunk_documents")
    docs = list(docs)
    STRATEGIES[chunker.strategy].prepare(docs, chunker.params, context=context)
    out: list[Chunk] = []
    for doc, meta in docs:
        out.extend(chunk_document(chunker, doc, meta, counter, context))
    return out
