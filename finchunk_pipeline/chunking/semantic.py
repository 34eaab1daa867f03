"""Semantic chunking: cut where neighbouring sentence windows stop talking about the same thing.

Units are sentences of text blocks and rows of tables (sentence.sentence_units). Each unit
is embedded once with the embedding model (cached per process by text); the embedding of a
window is the normalised mean of its units'. At each gap between units, the cosine
similarity of the ``window`` units before and after is computed; gaps whose similarity is
below the ``percentile``-th percentile of the document's similarities become cuts. Section
changes always cut; a chunk never exceeds ``max_chars`` (extra cuts at the lowest
similarities inside it) and a chunk under ``min_chars`` merges with its neighbour.

Cost is bounded: table rows are not embedded (a table's rows are grouped by position up to
``max_chars``, with the text around the table — its caption, its notes — when it fits), and at
most ``max_sentences`` sentences per document are embedded (the rest is grouped by position).
Both are counted in the chunk set's notes (chunking/notes.py): a 60,000-row table costs no
embedding at all.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
from pydantic import Field, model_validator

from ..types.blocks import BlockKind, ParsedDocument
from .context import Piece
from .notes import note
from .options import StrategyParams, field_error
from .sentence import sentence_units
from .strategy import Strategy
from .strategy_context import ChunkingContext, or_default

_CACHE: dict[tuple[str, str], np.ndarray] = {}  # (model id, text sha256) -> vector, this process
_CACHE_MAX = 200_000


def _embedder(context: ChunkingContext | None):
    """The context's embedder over its embedding cache (the default context without one)."""
    return or_default(context).embedder()


def embed(texts: list[str], context: ChunkingContext | None = None) -> np.ndarray:
    """Normalised embeddings: from this process's memo, else through the pipeline's Embedder
    (models/embed.py: the embedding cache by text hash on disk — its own "sentences" folder
    beside the chunk embeddings' —, duplicates embedded once, length-sorted batches; its
    backend, the context's ``embed_backend``)."""
    from ..hashing import sha256_text

    embedder = _embedder(context)
    mid = embedder.model_id
    keys = [sha256_text(t) for t in texts]
    found: dict[str, np.ndarray] = {}
    missing: dict[str, str] = {}
    for k, t in zip(keys, texts):
        v = _CACHE.get((mid, k))
        if v is not None:
            found[k] = v
        else:
            missing.setdefault(k, t)
    if missing:
        vecs, _ = embedder.embed(list(missing.values()), namespace="sentences")
        if len(_CACHE) + len(missing) > _CACHE_MAX:
            _CACHE.clear()
        for k, v in zip(missing, vecs):
            _CACHE[(mid, k)] = found[k] = v
    if not keys:
        return np.zeros((0, embedder.dim), np.float32)
    return np.stack([found[k] for k in keys])


def gap_similarities(vecs: np.ndarray, window: int) -> np.ndarray:
    """Cosine similarity between the windows before and after each gap (len(vecs) - 1)."""
    n = len(vecs)
    out = np.ones(max(0, n - 1), dtype=np.float32)
    csum = np.vstack([np.zeros((1, vecs.shape[1]), np.float32), np.cumsum(vecs, axis=0)])
    for g in range(n - 1):  # gap after unit g
        a = csum[g + 1] - csum[max(0, g + 1 - window)]
        b = csum[min(n, g + 1 + window)] - csum[g + 1]
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        out[g] = float(a @ b / (na * nb)) if na and nb else 1.0
    return out


TABLE_NOTE = "table rows not embedded (grouped by position)"
CAP_NOTE = "sentences past max_sentences per document not embedded (grouped by position)"


class SemanticParams(StrategyParams):
    window: int = Field(2, ge=1)               # units on each side of a gap
    percentile: float = Field(25.0, gt=0, lt=100)  # gaps below this percentile of similarities cut
    min_chars: int = Field(200, ge=0)
    max_chars: int = Field(1200, gt=0)
    max_sentences: int = Field(5000, ge=1)     # sentences embedded per document (the rest by position)

    @model_validator(mode="after")
    def _min_below_max(self) -> "SemanticParams":
        if self.min_chars >= self.max_chars:
            raise field_error("min_chars", f"expected >= 0 and < max_chars ({self.max_chars})", self.min_chars)
        return self


class Semantic(Strategy):
    name = "semantic"
    # 2: table rows are not embedded (grouped by position); at most max_sentences sentences
    #    per document are embedded
    # 3: a table is no longer cut from the text around it (v2 lost 8 points of recall at
    #    1,500 characters on the default corpus): a short caption or heading starts its
    #    first piece, its notes may close its last
    version = "3"
    Params = SemanticParams
    bound_param = "max_chars"
    embeds = True

    @staticmethod
    def _units(doc: ParsedDocument, p: SemanticParams):
        """(units, is_row, text units, embedded mask): what ``pieces`` embeds."""
        units = sentence_units(doc, include_headings=True)
        n = len(units)
        is_row = [u[1].kind == BlockKind.TABLE_ROW for u in units]
        text_units = [i for i in range(n) if not is_row[i]]
        embedded = np.zeros(n, bool)
        embedded[text_units[:p.max_sentences]] = True
        return units, is_row, text_units, embedded

    def prepare(self, docs: Iterable[tuple[ParsedDocument, dict[str, Any]]], params: dict[str, Any],
                context: ChunkingContext | None = None) -> None:
        """Embed the sentences of many documents in one call (one length-sorted sequence of
        batches through the embedding cache) before ``pieces`` reads them one document at a
        time from the process memo."""
        from ..lang.codes import normalise
        from ..lang.current import document_language

        p = self.resolve(params)
        texts: list[str] = []
        for doc, meta in docs:
            with document_language(normalise((meta or {}).get("language"), f"document {doc.doc_id}")):
                units, _, _, embedded = self._units(doc, p)
            view = doc.view_text
            texts.extend(view[s:e] for ((s, e), _), keep in zip(units, embedded) if keep)
        if texts:
            embed(texts, context)

    @staticmethod
    def _gap_similarities(doc: ParsedDocument, units, embedded: np.ndarray, window: int,
                          context: ChunkingContext | None) -> np.ndarray:
        """Similarity at each gap between two embedded neighbours (NaN elsewhere); windows
        stay within a run of embedded units, never across a table."""
        view = doc.view_text
        sims = np.full(max(0, len(units) - 1), np.nan, np.float32)
        idx = np.flatnonzero(embedded)
        if len(idx):
            vecs = embed([view[s:e] for (s, e), _ in (units[i] for i in idx)], context)
            run_start = 0
            for j in range(1, len(idx) + 1):
                if j == len(idx) or idx[j] != idx[j - 1] + 1:
                    run = idx[run_start:j]
                    if len(run) > 1:
                        sims[run[0]:run[-1]] = gap_similarities(vecs[run_start:j], window)
                    run_start = j
        return sims

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        """Cost bounded: table rows are never embedded (they are grouped by position, with
        the text around a table when it fits), and at most ``max_sentences`` sentences of a
        document are; the rest is grouped by position. Both are counted in the chunk set's
        notes."""
        p = self.resolve(params)
        units, is_row, text_units, embedded = self._units(doc, p)
        if not units:
            return []
        note(TABLE_NOTE, sum(is_row), doc.doc_id)
        note(CAP_NOTE, len(text_units) - int(embedded.sum()), doc.doc_id)

        sims = self._gap_similarities(doc, units, embedded, p.window, context)
        segs = _segments(units, is_row, sims, p.percentile)
        sizer = _Sizer(units, embedded, is_row, sims, p.max_chars, p.min_chars)
        merged = sizer.merge_small([piece for a, b in segs for piece in sizer.bounded(a, b)])
        out: list[Piece] = []
        for a, b in merged:
            group = units[a:b]
            kinds = {u[1].kind for u in group}
            kind = "table_rows" if kinds == {"table_row"} else ("sentences" if "table_row" not in kinds else "mixed")
            out.append(Piece([u[0] for u in group], kind, group[0][1].section_path, None,
                             list(dict.fromkeys(u[1].block_id for u in group))))
        return out


def _segments(units, is_row: list[bool], sims: np.ndarray, percentile: float) -> list[tuple[int, int]]:
    """Cuts: low similarity between embedded neighbours (under the document's
    ``percentile``), a section change, two different tables back to back; a table is not
    cut from the text around it (its caption, its notes)."""
    n = len(units)
    valid = sims[~np.isnan(sims)]
    thr = float(np.percentile(valid, percentile)) if len(valid) else 1.0
    cuts = {g + 1 for g in range(n - 1)
            if (not np.isnan(sims[g]) and sims[g] < thr)
            or units[g][1].section_path != units[g + 1][1].section_path
            or (is_row[g] and is_row[g + 1] and units[g][1].parent_id != units[g + 1][1].parent_id)}
    bounds = sorted(cuts | {0, n})
    return [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]


class _Sizer:
    """Holds segments (unit ranges) to ``max_chars``: embedded text is cut at its lowest
    similarity gaps, then those pieces, table rows and text past the cap are packed by
    position up to max_chars (linear: a 60,000-row table is one pass); a segment under
    ``min_chars`` joins the previous one of its section."""

    def __init__(self, units, embedded: np.ndarray, is_row: list[bool], sims: np.ndarray,
                 max_chars: int, min_chars: int):
        self.units, self.embedded, self.is_row, self.sims = units, embedded, is_row, sims
        self.max_chars, self.min_chars = max_chars, min_chars

    def chars(self, a: int, b: int) -> int:
        return self.units[b - 1][0][1] - self.units[a][0][0]

    def split_text(self, a: int, b: int) -> list[tuple[int, int]]:
        """Embedded text over max_chars: cut at its lowest similarity gaps."""
        out, stack = [], [(a, b)]
        while stack:
            x, y = stack.pop()
            if self.chars(x, y) <= self.max_chars or y - x == 1:
                out.append((x, y))
            else:
                g = x + int(np.argmin(self.sims[x:y - 1])) + 1
                stack.extend([(g, y), (x, g)])
        return out

    def bounded(self, a: int, b: int) -> list[tuple[int, int]]:
        """One segment as ranges of at most max_chars (a single unit may exceed it)."""
        if self.chars(a, b) <= self.max_chars or b - a == 1:
            return [(a, b)]
        embedded, atoms = self.embedded, []
        i = a
        while i < b:
            j = i + 1
            while j < b and embedded[j] and embedded[i]:
                j += 1
            atoms.extend(self.split_text(i, j) if embedded[i] else [(i, j)])
            i = j
        out: list[tuple[int, int]] = []
        start, end = atoms[0]
        for x, y in atoms[1:]:
            # a table starts a new piece unless what precedes it is short (a heading, a
            # caption): its header rows stay with its first rows
            table_starts = self.is_row[x] and not self.is_row[x - 1] and self.chars(start, end) >= self.min_chars
            if self.chars(start, y) <= self.max_chars and not table_starts:
                end = y
            else:
                out.append((start, end))
                start, end = x, y
        out.append((start, end))
        return out

    def merge_small(self, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """A range under min_chars joins the previous one of the same section if the two stay
        under max_chars."""
        merged: list[tuple[int, int]] = []
        units = self.units
        for a, b in ranges:
            if merged and self.chars(a, b) < self.min_chars:
                pa, _ = merged[-1]
                if units[pa][1].section_path == units[a][1].section_path and self.chars(pa, b) <= self.max_chars:
                    merged[-1] = (pa, b)
                    continue
            merged.append((a, b))
        return merged
