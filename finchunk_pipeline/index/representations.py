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

from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

import pandas as pd

from .files import Parts, SharedIndexes, Traversable, folder_of
from .hybrid import rrf_fuse

if TYPE_CHECKING:
    from .bm25_retriever import BM25Retriever

REPRESENTATIONS = ("source", "enrichment", "fused", "concat")
INDEXED = ("enrichment", "concat")  # representations with indexes of their own
CONCAT_JOINER = "\n\n"
REPRESENTATION_VERSION = "1"


def rep_dir(index_dir: str | PathLike | Traversable, rep: str) -> Traversable:
    if rep not in INDEXED:
        raise ValueError(f"representation {rep!r} has no index of its own; indexed: {INDEXED}")
    return folder_of(index_dir) / f"rep-{rep}"


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


def representation_exists(rep: str, name: str, index_dir: str | PathLike | Traversable) -> bool:
    from .registry import index_exists

    if rep == "source":
        return index_exists(name, index_dir)
    if rep == "fused":
        return index_exists(name, index_dir) and index_exists(name, rep_dir(index_dir, "enrichment"))
    return index_exists(name, rep_dir(index_dir, rep))


def load_representation(rep: str, name: str, index_dir: str | PathLike | Traversable,
                        chunks: pd.DataFrame | None = None, model_path: str | None = None,
                        cache_dir: str | Path | None = None, catalog=None):
    """Retriever ``name`` (bm25, dense, hybrid) over representation ``rep`` of a chunk set;
    ``catalog``: the corpus's routing catalog (registry.LoadRequest)."""
    from .registry import LoadRequest, load_retriever

    if rep not in REPRESENTATIONS:
        raise ValueError(f"unknown representation {rep!r}; known: {REPRESENTATIONS}")
    request = LoadRequest(chunks, model_path, cache_dir, catalog=catalog)
    if rep == "source":
        return load_retriever(name, index_dir, request)
    if rep == "fused":
        return FusedRetriever(load_representation("source", name, index_dir, chunks, model_path, cache_dir, catalog),
                              load_representation("enrichment", name, index_dir, chunks, model_path, cache_dir,
                                                  catalog))
    return load_retriever(name, rep_dir(index_dir, rep), request)


def representation_bm25(texts: dict[str, Sequence[str]], analyzer: str | None = None,
                        doc_ids: Sequence[str] | None = None, doc_texts: dict[str, str] | None = None,
                        doc_prior: float = 0.0, doc_languages: dict[str, str] | None = None,
                        language_override: str | None = None,
                        documents: SharedIndexes | None = None) -> Iterator[tuple[str, BM25Retriever]]:
    """(representation, BM25 retriever) for each indexed representation in turn, with the same
    analyzer and document prior as the chunk set's own index (so with / without enrichment
    differ by the text alone); stored as ``rep_dir(index dir, rep) / "bm25"``."""
    from .analyzer import DEFAULT_ANALYZER
    from .bm25_retriever import BM25Retriever

    for rep in INDEXED:
        yield rep, BM25Retriever.build(list(texts[rep]), analyzer or DEFAULT_ANALYZER, doc_ids, doc_texts, doc_prior,
                                       doc_languages, language_override, documents=documents)


def representation_dense(texts: dict[str, Sequence[str]], chunk_ids: Sequence[str], model_path: str | None,
                         cache_dir: str | Path | None, kind: str = "flat", progress=None,
                         backend: str | None = None, vectors: str = "chunk", chunks: pd.DataFrame | None = None,
                         views=None) -> Iterator[tuple[str, Parts, dict]]:
    """(representation, its FAISS index's files, the embedding stats) for each indexed
    representation in turn (embeddings through the shared cache); stored as
    ``rep_dir(index dir, rep) / "dense"``. ``vectors="pooled"`` (pooled_vectors.py; ``chunks``
    with doc_id, source_text, view_spans in the same order, ``views`` the documents' texts):
    concat is its chunk's units pooled with the enrichment as its prefix; the enrichment alone is
    embedded as it is."""
    from .entries.dense import build_retriever as build_dense
    from .entries.dense import dense_files

    for rep in INDEXED:
        frame = pd.DataFrame({"chunk_id": list(chunk_ids), "embedding_text": list(texts[rep])})
        how = vectors if rep == "concat" else "chunk"
        if how == "pooled":
            from .pooled_vectors import COLUMNS

            frame = frame.assign(**{c: chunks[c].tolist() for c in COLUMNS if c in chunks})
        retriever, stats = build_dense(frame, model_path, cache_dir, kind, progress, backend, how, views)
        yield rep, dense_files(retriever), stats.as_dict()
