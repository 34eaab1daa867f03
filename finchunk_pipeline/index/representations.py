"""Retrieval representations of an enriched chunk set: what a query is matched against.

Every representation ranks the same rows (chunks.parquet order); a hit is always scored and
delivered as the chunk (its spans, its indexed text), whatever text it was found by:

| representation | what is searched | index |
|---|---|---|
| ``source`` | the chunk's indexed text (``embedding_text``: header + source), as without enrichment | the chunk set's own (``<index>/bm25``, ``/dense``) |
| ``enrichment`` | the enrichment text alone | ``<index>/rep-enrichment/{bm25,dense}`` |
| ``fused`` | both, as two rankings fused by reciprocal rank (RRF, k = 60) | none of its own |
| ``concat`` | one text: enrichment, blank line, indexed text ("contextual retrieval") | ``<index>/rep-concat/{bm25,dense}`` |

Each retriever (bm25, dense, hybrid) works over each representation; the files are built by
the bm25_index / faiss_index assets next to the chunk set's own index.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pandas as pd

from .hybrid import rrf_fuse

REPRESENTATIONS = ("source", "enrichment", "fused", "concat")
INDEXED = ("enrichment", "concat")  # representations with indexes of their own
CONCAT_JOINER = "\n\n"
REPRESENTATION_VERSION = "1"


def rep_dir(index_dir: str | Path, rep: str) -> Path:
    if rep not in INDEXED:
        raise ValueError(f"representation {rep!r} has no index of its own; indexed: {INDEXED}")
    return Path(index_dir) / f"rep-{rep}"


def representation_texts(chunks: pd.DataFrame, enrichment: pd.DataFrame) -> dict[str, list[str]]:
    """The texts of the indexed representations, in chunks.parquet order. ``enrichment``
    rows must be in the same order (checked by chunk id)."""
    if chunks["chunk_id"].tolist() != enrichment["chunk_id"].tolist():
        raise ValueError("enrichment rows do not match the chunk set's rows (rebuild the enrichment)")
    enrich = enrichment["enrichment_text"].fillna("").tolist()
    body = chunks["embedding_text"].tolist()
    return {"enrichment": enrich,
            "concat": [f"{e}{CONCAT_JOINER}{b}" if e else b for e, b in zip(enrich, body)]}


class FusedRetriever:
    """Two rankings of the same rows fused by reciprocal rank. A BM25 hit scoring exactly 0
    matched no query term and is not a candidate (as in hybrid.py)."""

    def __init__(self, a, b, rrf_k: int = 60, depth: int = 50):
        self.a, self.b, self.rrf_k, self.depth = a, b, rrf_k, depth
        self.name = getattr(a, "name", "fused")

    def question_language(self, doc_ids):
        return getattr(self.a, "question_language", lambda d: None)(doc_ids)

    def search_many(self, queries, k, allowed=None, languages=None):
        depth = max(self.depth, k)
        lists = []
        for r in (self.a, self.b):
            hits = r.search_many(queries, depth, allowed, **({"languages": languages} if languages is not None else {}))
            if getattr(r, "name", "") == "bm25":
                hits = [[h for h in q if h[1] != 0.0] for q in hits]
            lists.append(hits)
        return [rrf_fuse([x, y], k, self.rrf_k) for x, y in zip(*lists)]


def representation_exists(rep: str, name: str, index_dir: str | Path) -> bool:
    from .registry import index_exists

    if rep == "source":
        return index_exists(name, index_dir)
    if rep == "fused":
        return index_exists(name, index_dir) and index_exists(name, rep_dir(index_dir, "enrichment"))
    return index_exists(name, rep_dir(index_dir, rep))


def load_representation(rep: str, name: str, index_dir: str | Path, chunks: pd.DataFrame | None = None,
                        model_path: str | None = None, cache_dir: str | Path | None = None):
    """Retriever ``name`` (bm25, dense, hybrid) over representation ``rep`` of a chunk set."""
    from .registry import LoadRequest, load_retriever

    if rep not in REPRESENTATIONS:
        raise ValueError(f"unknown representation {rep!r}; known: {REPRESENTATIONS}")
    if rep == "source":
        return load_retriever(name, index_dir, LoadRequest(chunks, model_path, cache_dir))
    if rep == "fused":
        return FusedRetriever(load_representation("source", name, index_dir, chunks, model_path, cache_dir),
                              load_representation("enrichment", name, index_dir, chunks, model_path, cache_dir))
    return load_retriever(name, rep_dir(index_dir, rep), LoadRequest(chunks, model_path, cache_dir))


def build_representation_bm25(texts: dict[str, Sequence[str]], index_dir: str | Path, analyzer: str | None = None,
                              doc_ids: Sequence[str] | None = None, doc_texts: dict[str, str] | None = None,
                              doc_prior: float = 0.0, doc_languages: dict[str, str] | None = None,
                              language_override: str | None = None,
                              documents_dir: str | Path | None = None) -> dict[str, int]:
    """BM25 over each indexed representation, with the same analyzer and document prior as the
    chunk set's own index (so with / without enrichment differ by the text alone); returns the
    vocabulary size of each."""
    from .analyzer import DEFAULT_ANALYZER
    from .bm25_retriever import BM25Retriever

    out = {}
    for rep in INDEXED:
        retriever = BM25Retriever.build(list(texts[rep]), analyzer or DEFAULT_ANALYZER, doc_ids, doc_texts, doc_prior,
                                        doc_languages, language_override, documents_dir=documents_dir)
        retriever.save(rep_dir(index_dir, rep) / "bm25")
        out[rep] = len(retriever.index.vocab)
    return out


def build_representation_dense(texts: dict[str, Sequence[str]], chunk_ids: Sequence[str], index_dir: str | Path,
                               model_path: str | None, cache_dir: str | Path | None, kind: str = "flat",
                               progress=None, backend: str | None = None) -> dict[str, dict]:
    """A FAISS index over each indexed representation (embeddings through the shared cache);
    returns the embedding stats of each."""
    from .entries.dense import build_retriever as build_dense

    out = {}
    for rep in INDEXED:
        frame = pd.DataFrame({"chunk_id": list(chunk_ids), "embedding_text": list(texts[rep])})
        _, stats = build_dense(frame, rep_dir(index_dir, rep), model_path, cache_dir, kind, progress, backend)
        out[rep] = stats.as_dict()
    return out
