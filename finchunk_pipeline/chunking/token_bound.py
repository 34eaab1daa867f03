"""Token-safe chunk sets: no chunk over the embedding model's limit.

The model silently cuts what is longer than its limit (MiniLM: 256 tokens, special tokens
included), so an over-limit chunk is embedded by its head only. A chunk set declaring
``token_safe: true`` holds every chunk to the limit: a chunk over it is split, its spans
regrouped and cut at a line break (else whitespace) by ``bound.split_spans`` to the share of
its characters that its tokens allow (header tokens reserved), and counted again, until all
fit. Figures and tables tokenise densely, so the same characters can be far more tokens
than prose: the token count, not a character rule, decides.
"""
from __future__ import annotations

from dataclasses import replace

from ..types.blocks import ParsedDocument
from ..types.chunks import Chunk
from .bound import split_spans
from .context import Piece, normalize_spans

TOKEN_BOUND_VERSION = "1"
SPLIT_NOTE = "chunks over the embedding model's token limit, split to fit (token_safe)"
SAFETY = 0.9      # aim a little under the limit: a cut at a line break lands before the target
MAX_ROUNDS = 6


def fit_to_tokens(doc: ParsedDocument, pieces: list[Piece], build, counter) -> tuple[list[Chunk], int]:
    """Chunks of ``pieces`` (``build(pieces) -> chunks``, one chunk per non-empty piece) with
    none over ``counter.max_tokens``; returns (chunks, pieces split)."""
    view = doc.view_text
    pieces = [p for p in pieces if normalize_spans(view, p.view_spans)]  # build keeps one chunk per piece
    chunks = build(pieces)
    split = 0
    for _ in range(MAX_ROUNDS):
        if not any(c.over_limit for c in chunks):
            break
        out: list[Piece] = []
        for piece, chunk in zip(pieces, chunks):
            if not chunk.over_limit:
                out.append(piece)
                continue
            head = chunk.embedding_text[:len(chunk.embedding_text) - len(chunk.source_text)]
            head_tokens = counter.count(head) if head else 2
            room = max(8, counter.max_tokens - head_tokens)
            body_tokens = max(1, chunk.n_tokens - head_tokens)
            chars = max(40, int(len(chunk.source_text) * room / body_tokens * SAFETY))
            spans = normalize_spans(view, piece.view_spans)
            groups = split_spans(view, spans, chars)
            if len(groups) < 2:  # nothing left to cut: keep it (reported as over the limit)
                out.append(piece)
                continue
            split += 1
            out.extend(replace(piece, view_spans=g) for g in groups)
        if len(out) == len(pieces):
            break
        pieces = out
        chunks = build(pieces)
    return chunks, split
