"""Hybrid retrieval: BM25 and dense candidates fused into one ranking.

``rrf`` (default): reciprocal-rank fusion, score(row) = sum over lists of 1 / (rrf_k + rank),
rank counted from 1, rrf_k = 60 (Cormack et al. 2009). ``weighted``: each list's scores
min-max normalised over its candidates (a row missing from a list gets 0 there), then
``weight`` x dense + (1 - weight) x bm25. Each retriever contributes its top ``depth``
candidates among the allowed rows, so filters apply before fusion too (BM25 rows scoring
exactly 0 matched no query term and are not candidates). Ties break by lower row index.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

METHODS = ("rrf", "weighted")


def rrf_fuse(lists: Sequence[Sequence[tuple[int, float]]], k: int, rrf_k: int = 60) -> list[tuple[int, float]]:
    scores: dict[int, float] = {}
    for hits in lists:
        for rank, (row, _) in enumerate(hits, 1):
            scores[row] = scores.get(row, 0.0) + 1.0 / (rrf_k + rank)
    return sorted(scores.items(), key=lambda rs: (-rs[1], rs[0]))[:k]


def _minmax(hits: Sequence[tuple[int, float]]) -> dict[int, float]:
    if not hits:
        return {}
    s = np.array([h[1] for h in hits], dtype=np.float64)
    lo, hi = s.min(), s.max()
    norm = (s - lo) / (hi - lo) if hi > lo else np.ones_like(s)
    return {int(r): float(v) for (r, _), v in zip(hits, norm)}


def weighted_fuse(bm25_hits, dense_hits, k: int, weight: float = 0.5) -> list[tuple[int, float]]:
    """weight = share of the dense score."""
    b, d = _minmax(bm25_hits), _minmax(dense_hits)
    scores = {r: (1 - weight) * b.get(r, 0.0) + weight * d.get(r, 0.0) for r in set(b) | set(d)}
    return sorted(scores.items(), key=lambda rs: (-rs[1], rs[0]))[:k]


class HybridRetriever:
    name = "hybrid"

    def __init__(self, bm25, dense, method: str = "rrf", rrf_k: int = 60, depth: int = 50, weight: float = 0.5):
        if method not in METHODS:
            raise ValueError(f"unknown fusion method {method!r}; known: {METHODS}")
        self.bm25, self.dense = bm25, dense
        self.method, self.rrf_k, self.depth, self.weight = method, rrf_k, depth, weight

    def question_language(self, doc_ids):
        return getattr(self.bm25, "question_language", lambda d: None)(doc_ids)

    def search_many(self, queries, k, allowed=None, languages=None):
        """``languages``: each query's language for BM25 (the dense model reads text as it is)."""
        depth = max(self.depth, k)
        # a BM25 score of exactly 0 means no query term matched: not a lexical candidate
        lang_kw = {"languages": languages} if languages is not None else {}
        lex = [[h for h in hits if h[1] != 0.0] for hits in self.bm25.search_many(queries, depth, allowed, **lang_kw)]
        sem = self.dense.search_many(queries, depth, allowed)
        if self.method == "rrf":
            return [rrf_fuse([a, b], k, self.rrf_k) for a, b in zip(lex, sem)]
        return [weighted_fuse(a, b, k, self.weight) for a, b in zip(lex, sem)]
