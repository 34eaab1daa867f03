"""Chunk vectors pooled from the document's units, each unit embedded once for every chunk set.

``dense_vectors: chunk`` (the default) embeds each chunk's indexed text. Its cost grows with the
chunk sets: every set re-embeds the documents in its own cuts. ``dense_vectors: pooled`` embeds
each document once, for every chunk set:

* **Units.** Each document's view text (the parse's, read from the block store; without it,
  the ranges the chunk set covers: index/documents.py ``runs``) is cut into units: the lines of
  a paragraph merged up to ``UNIT_CHARS`` (a table's rows with their neighbours), a longer line
  cut into its sentences merged up to ``UNIT_CHARS`` (a longer sentence at a space). A unit
  never crosses a blank line. Units depend on the document, not on where a chunk set cut it:
  every chunk set over the same parse asks for the same units, and the embedding cache
  (namespace ``units``) embeds each once.
* **A chunk's vector** is the mean of the unit vectors it overlaps, each weighted by the
  characters the chunk shares with it, plus its context prefix (the part of its indexed text
  before its source text: a header, a table's header rows) as one more text weighted by its
  length; normalised. A chunk over the model's token limit keeps its own vector (``plan``).

Queries are embedded as they are. The index key names the setting (``vectors: pooled``) and
this module's code. Against ``chunk`` (docs/embeddings.md): dense recall within a few points
either way (better on FinQA and TAT-QA pages, up to 4.4 points worse on complete filings'
1,000-character chunks), so ``chunk`` stays the default and ``pooled`` is what makes a wide grid
of chunk sets affordable.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..models.embed import EmbedStats
from ..types.chunks import spans_of
from .documents import runs

VECTORS = ("chunk", "pooled")
DEFAULT_VECTORS = "chunk"
UNIT_CHARS = 300           # the evidence units' size (data/chunkers.yaml: structure max_chars 300)
NAMESPACE = "units"        # the embedding cache's folder for unit and prefix vectors (models/embed.py)
COLUMNS = ("doc_id", "source_text", "view_spans", "over_limit")  # what pooling reads beside the indexed text

_LINE = re.compile(r"[^\n]+")
_PARAGRAPH = re.compile(r"[^\n]+(?:\n[^\n]+)*")  # lines up to a blank line
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


def check_vectors(value: str | None) -> str:
    v = (value or DEFAULT_VECTORS).strip().lower() or DEFAULT_VECTORS
    if v not in VECTORS:
        raise ValueError(f"FINCHUNK_DENSE_VECTORS={value!r}: expected one of {', '.join(VECTORS)}")
    return v


def line_units(line: str, limit: int = UNIT_CHARS) -> list[tuple[int, int]]:
    """(start, end) of a line's units, relative to the line: the line itself when it fits, else
    its sentences merged from its start up to ``limit`` (a longer sentence cut at a space)."""
    if len(line) <= limit:
        return [(0, len(line))]
    cuts = [m.end() for m in _SENTENCE_END.finditer(line)] + [len(line)]
    out: list[tuple[int, int]] = []
    start = prev = 0
    for cut in cuts:
        if cut - start > limit and prev > start:   # the sentences so far make a unit
            out.append((start, prev))
            start = prev
        while cut - start > limit:                  # one sentence longer than the limit
            space = line.rfind(" ", start + 1, start + limit)
            end = space + 1 if space > start else start + limit
            out.append((start, end))
            start = end
        prev = cut
    if prev > start:
        out.append((start, prev))
    return out


@dataclass(frozen=True)
class Units:
    """The units of one document: view offsets and texts, in reading order."""

    starts: np.ndarray
    ends: np.ndarray
    texts: list[str]


def document_units(doc_runs: Sequence[tuple[int, str]], limit: int = UNIT_CHARS) -> Units:
    """The units of a document's text, given as runs ((view start, text) each: the whole view
    text as one run, or the ranges a chunk set covers): consecutive lines of a paragraph merged
    up to ``limit`` characters (a table's rows with their neighbours), a longer line cut by
    ``line_units``; a unit never crosses a blank line; whitespace-only pieces are not units."""
    starts: list[int] = []
    ends: list[int] = []
    texts: list[str] = []

    def add(s: int, e: int, piece: str) -> None:
        if piece.strip():
            starts.append(s)
            ends.append(e)
            texts.append(piece.strip())

    for run_start, text in doc_runs:
        for para in _PARAGRAPH.finditer(text):
            cur: list[int] | None = None  # [start, end] of the lines merged so far
            for m in _LINE.finditer(text, para.start(), para.end()):
                if m.end() - m.start() > limit:
                    if cur:
                        add(run_start + cur[0], run_start + cur[1], text[cur[0]:cur[1]])
                        cur = None
                    line = m.group()
                    for s, e in line_units(line, limit):
                        add(run_start + m.start() + s, run_start + m.start() + e, line[s:e])
                elif cur and m.end() - cur[0] <= limit:
                    cur[1] = m.end()
                else:
                    if cur:
                        add(run_start + cur[0], run_start + cur[1], text[cur[0]:cur[1]])
                    cur = [m.start(), m.end()]
            if cur:
                add(run_start + cur[0], run_start + cur[1], text[cur[0]:cur[1]])
    return Units(np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64), texts)


def prefix_of(embedding_text: str, source_text: str) -> str:
    """What a chunk's indexed text adds before its source text (context header, table header
    rows), stripped; "" when it adds nothing."""
    if embedding_text == source_text or not embedding_text.endswith(source_text):
        return ""
    return embedding_text[:len(embedding_text) - len(source_text)].strip()


@dataclass
class PooledPlan:
    """What pooling a chunk set needs: the texts to embed (units and prefixes; ``whole``: the
    indices of texts that are a chunk's whole indexed text) and each chunk's weights over them
    (a sparse (chunks x texts) matrix)."""

    texts: list[str]
    weights: object  # scipy.sparse.csr_matrix
    whole: frozenset[int] = frozenset()

    def pool(self, vectors: np.ndarray) -> np.ndarray:
        """(chunks, dim) normalised vectors from the texts' vectors."""
        out = np.asarray(self.weights @ vectors, dtype=np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def plan(chunks: pd.DataFrame, views: Mapping[str, str] | None = None, limit: int = UNIT_CHARS) -> PooledPlan:
    """The pooling plan of a chunk set (columns doc_id, source_text, view_spans, embedding_text,
    and over_limit when present; rows in chunks.parquet order). ``views``: {doc_id: the parse's
    view text}, the text units are cut from (the same units for every chunk set); a document not
    in it is cut from the ranges the chunks cover. A chunk over the model's token limit
    (``over_limit``: the model reads only its start) is embedded as it is: pooled, its many units
    would blur into one average (financebench_dev's 2,000-character chunks: dense recall at 5,000
    halved, docs/embeddings.md). So is a chunk that overlaps no unit (whitespace only) and has no
    prefix."""
    from scipy.sparse import csr_matrix

    texts: dict[str, int] = {}  # text -> its column

    def col(text: str) -> int:
        return texts.setdefault(text, len(texts))

    views = views or {}
    covered = runs(chunks) if not all(d in views for d in set(chunks["doc_id"])) else {}
    units = {doc: document_units([(0, views[doc])] if doc in views else covered[doc], limit)
             for doc in dict.fromkeys(chunks["doc_id"])}
    unit_cols = {doc: [col(t) for t in u.texts] for doc, u in units.items()}
    rows: list[int] = []
    cols: list[int] = []
    weights: list[float] = []
    whole: set[int] = set()
    over = chunks["over_limit"].tolist() if "over_limit" in chunks else [False] * len(chunks)
    for row, (doc, source, vspans, embedding) in enumerate(zip(chunks["doc_id"], chunks["source_text"],
                                                               chunks["view_spans"], chunks["embedding_text"])):
        parts: list[tuple[int, float]] = []
        if not over[row]:  # over the limit: the chunk's own text, as the model reads it
            parts = [(unit_cols[doc][k], w) for k, w in _overlaps(units[doc], spans_of(vspans))]
            prefix = prefix_of(embedding, source)
            if prefix:
                parts.append((col(prefix), float(len(prefix))))
        if not parts:  # (or nothing to pool)
            parts = [(col(embedding or source or " "), 1.0)]
            whole.add(parts[0][0])
        rows += [row] * len(parts)
        cols += [c for c, _ in parts]
        weights += [w for _, w in parts]
    matrix = csr_matrix((np.asarray(weights, dtype=np.float32), (np.asarray(rows), np.asarray(cols))),
                        shape=(len(chunks), len(texts)), dtype=np.float32)
    return PooledPlan(list(texts), matrix, frozenset(whole))


def _overlaps(u: Units, spans: Sequence[tuple[int, int]]) -> list[tuple[int, float]]:
    """(unit index, characters shared) of each unit the spans overlap."""
    out = []
    for s, e in spans:
        lo = int(np.searchsorted(u.ends, s, side="right"))   # first unit ending after s
        hi = int(np.searchsorted(u.starts, e, side="left"))  # units starting before e
        for k in range(lo, hi):
            overlap = min(e, int(u.ends[k])) - max(s, int(u.starts[k]))
            if overlap > 0:
                out.append((k, float(overlap)))
    return out


def pooled_vectors(chunks: pd.DataFrame, embedder, progress=None, views: Mapping[str, str] | None = None,
                   limit: int = UNIT_CHARS):
    """(chunks, dim) vectors pooled from the units (through ``embedder``'s cache, namespace
    ``units``), and the EmbedStats of embedding the units and prefixes."""
    p = plan(chunks, views, limit)
    # units and prefixes in their own cache folder; whole chunk texts in the chunk texts' (shared
    # with dense_vectors: chunk)
    parts = [(sorted(set(range(len(p.texts))) - p.whole), NAMESPACE), (sorted(p.whole), "")]
    vectors: np.ndarray | None = None
    total = EmbedStats()
    for idx, namespace in parts:
        if not idx:
            continue
        v, stats = embedder.embed([p.texts[i] for i in idx], progress=progress, namespace=namespace)
        if vectors is None:
            vectors = np.zeros((len(p.texts), v.shape[1]), dtype=np.float32)
        vectors[idx] = v
        total = total + stats
    if vectors is None:  # no chunks: nothing to embed, only the model's dimension to learn
        v, stats = embedder.embed([], progress=progress, namespace=NAMESPACE)
        return np.zeros((0, v.shape[1]), dtype=np.float32), total + stats
    return p.pool(vectors), total
