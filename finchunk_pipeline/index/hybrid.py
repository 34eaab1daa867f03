"""Hybrid retrieval: BM25 and dense candidates fused into one ranking.

``wrrf`` (default): weighted reciprocal-rank fusion, score(row) = 2 x [(1 - w) / (rrf_k +
rank_bm25) + w / (rrf_k + rank_dense)], rank counted from 1, rrf_k = 60. The dense weight w is
the query's: ``NAMED_DENSE_WEIGHT`` (0.25) for a query that names a document of the corpus
(``names(query)``: the query analyzer finds an issuer, ticker or document title of the
catalog in it, routing/analyzer.py — its route is not ``none``), ``DENSE_WEIGHT`` (0.05) for the
others. Without ``names`` (no catalog given) every query takes ``DENSE_WEIGHT``; an explicit
``weight`` is every query's unless ``named_weight`` is given too. ``rrf``: plain
reciprocal-rank fusion (Cormack et al. 2009), both lists alike (``wrrf`` with w = 0.5).
``weighted``: each list's scores min-max normalised over its candidates (a row missing from a
list gets 0 there), then ``weight`` x dense + (1 - weight) x bm25. Each retriever contributes
its top ``depth`` candidates among the allowed rows (or its top k when more are asked), so
filters apply before fusion too (BM25 rows scoring exactly 0 matched no query term and are not
candidates). Ties break by lower row index.

The candidate depth does not follow k below ``CANDIDATE_DEPTH`` (100, what an evaluation asks
for): a fused ranking read 5 deep is the first 5 of the one read 100 deep. It used to be
max(50, k), so ``finchunk search -k 5`` fused 50-deep lists while the evaluation fused 100-deep
ones, and a chunk with BM25 rank 4 and dense rank 60 could pass BM25's third in the one and not
in the other (financebench_dev question 00302, mdsplitter-2000, filtered: the evaluated top 3
were not what search answered).

Why two weights (docs/benchmarks/fusion.md, bench/bench_fusion.py): plain RRF lost up to 9.4
points of recall at equal budget to BM25 alone on look-alike pages (TAT-QA's annual-report
tables, where dense pulls in other companies' chunks), while on complete filings asked about by
name (financebench_dev, sec_html_dev's generated gold) dense finds what BM25 misses, and the
single weight 0.05 that served the pages left up to 4.3 points to dense there. Over 18 dev
cells (5 corpora, 2-4 chunk sets each, at equal budget), with constants chosen leave one
dataset out, a weight per question by whether it names a document holds hybrid within one
point of its better half in 15 (the next rule 13; the single weight 0.05 12), and every split
chose (0.25, 0.05). Naming is not the same as "complete filing": in a copy of finqa_dev whose
questions name their company and year (``bench_fusion.py name-questions``), the named weight
lifts evidence 88.0 -> 90.8 (dense alone 94.8) but costs the header-less langchain-1000 3.9
points (76.1 -> 72.2; BM25 74.9): its chunks do not carry the name, so dense cannot use it. The
rule is the best measured, not a law.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

METHODS = ("wrrf", "rrf", "weighted")
CANDIDATE_DEPTH = 100  # each list's candidates, whatever k up to it (the module docstring says why)
DENSE_WEIGHT = 0.05    # wrrf's dense weight for a query that names no document (the module docstring says why)
NAMED_DENSE_WEIGHT = 0.25  # wrrf's dense weight for a query that names a document of the corpus
CONVEX_WEIGHT = 0.5    # weighted's dense share


def rrf_fuse(lists: Sequence[Sequence[tuple[int, float]]], k: int, rrf_k: int = 60,
             weights: Sequence[float] | None = None) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion of ranked ``(row, score)`` lists; ``weights``: one per list
    (None: 1 each, plain RRF)."""
    weights = (1.0,) * len(lists) if weights is None else weights
    scores: dict[int, float] = {}
    for weight, hits in zip(weights, lists):
        for rank, (row, _) in enumerate(hits, 1):
            scores[row] = scores.get(row, 0.0) + weight / (rrf_k + rank)
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

    def __init__(self, bm25, dense, method: str = "wrrf", rrf_k: int = 60, depth: int = CANDIDATE_DEPTH,
                 weight: float | None = None, named_weight: float | None = None,
                 names: Callable[[str], bool] | None = None):
        """``weight``: the dense weight of ``wrrf`` for queries that name no document (default
        DENSE_WEIGHT) or of ``weighted`` (default CONVEX_WEIGHT); ``rrf`` has none.
        ``named_weight``: ``wrrf``'s dense weight for queries that name a document (default
        NAMED_DENSE_WEIGHT, or ``weight`` when only that is given); ``names(query)`` says whether
        a query does (None: none does)."""
        if method not in METHODS:
            raise ValueError(f"unknown fusion method {method!r}; known: {METHODS}")
        if named_weight is None:
            named_weight = weight if weight is not None else NAMED_DENSE_WEIGHT
        if weight is None:
            weight = CONVEX_WEIGHT if method == "weighted" else DENSE_WEIGHT
        for w in (weight, named_weight):
            if not 0.0 <= w <= 1.0:
                raise ValueError(f"hybrid weight must be between 0 and 1, got {w}")
        self.bm25, self.dense = bm25, dense
        self.method, self.rrf_k, self.depth = method, rrf_k, depth
        self.weight, self.named_weight, self.names = weight, named_weight, names

    def question_language(self, doc_ids):
        return getattr(self.bm25, "question_language", lambda d: None)(doc_ids)

    def dense_weights(self, queries: Sequence[str]) -> list[float]:
        """Each query's dense weight under ``wrrf``."""
        if self.names is None or self.named_weight == self.weight:
            return [self.weight] * len(queries)
        return [self.named_weight if self.names(q) else self.weight for q in queries]

    def fusion(self, query: str) -> dict:
        """How ``query`` is fused: ``{"dense_weight": w, "names_a_document": bool}`` (the query
        analyzer read once)."""
        named = self.names is not None and bool(self.names(query))
        return {"dense_weight": self.named_weight if named else self.weight, "names_a_document": named}

    def search_many(self, queries, k, allowed=None, languages=None):
        """``languages``: each query's language for BM25 (the dense model reads text as it is)."""
        depth = max(self.depth, k)
        # a BM25 score of exactly 0 means no query term matched: not a lexical candidate
        lang_kw = {"languages": languages} if languages is not None else {}
        lex = [[h for h in hits if h[1] != 0.0] for hits in self.bm25.search_many(queries, depth, allowed, **lang_kw)]
        sem = self.dense.search_many(queries, depth, allowed)
        if self.method == "rrf":
            return [rrf_fuse([a, b], k, self.rrf_k) for a, b in zip(lex, sem)]
        if self.method == "wrrf":
            return [rrf_fuse([a, b], k, self.rrf_k, (2 * (1 - w), 2 * w))
                    for a, b, w in zip(lex, sem, self.dense_weights(queries))]
        return [weighted_fuse(a, b, k, self.weight) for a, b in zip(lex, sem)]
