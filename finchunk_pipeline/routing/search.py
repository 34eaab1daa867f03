"""Routed retrieval: a retriever's ranking with each question's route applied, and how
often the route kept the question's documents.

* ``filter``: the ranking is restricted to the routed documents' chunks before ranking
  (the same boolean row mask the ``filtered`` evaluation mode and ``finchunk search``
  filters use). A filter whose documents have no chunk in this chunk set falls back to
  the whole index.
* ``boost``: two rankings of the same depth — restricted to the routed documents, and over
  the whole index — fused by reciprocal rank (``score = Σ 1 / (BOOST_RRF_K + rank)``, rank
  from 1, ties by lower row). A chunk of a routed document that also ranks globally counts
  twice; a strong global hit elsewhere still competes. Chosen over a fixed score bonus
  because BM25, cosine and RRF scores have no common scale.
* ``none``: the global ranking, unchanged.
* a route's ``preferred`` documents (a subset of its documents, see analyzer.py rule 4) add
  one more ranking, restricted to them, to the same fusion: they come first without the
  others being filtered out.

The router only ever receives question texts (and the row -> document map of the chunk
set); gold documents are used afterwards, by ``routing_summary``, to score the routes.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .analyzer import VERSION, Route, analyze
from .catalog import Catalog

BOOST_RRF_K = 60
Hits = list[tuple[int, float]]
# routes shared by the routers of one process (every chunk set routes the same questions over
# the same metadata): keyed by the catalog's metadata hash and the question
_SHARED: dict[tuple[str, str], Route] = {}
_SHARED_MAX = 500_000


def fuse_boost(routed: Hits, global_: Hits, k: int, rrf_k: int = BOOST_RRF_K) -> Hits:
    return fuse([routed, global_], k, rrf_k)


def fuse(rankings: Sequence[Hits], k: int, rrf_k: int = BOOST_RRF_K) -> Hits:
    """Reciprocal-rank fusion of rankings; ties by lower row."""
    scores: dict[int, float] = {}
    for hits in rankings:
        for rank, (row, _) in enumerate(hits, 1):
            scores[row] = scores.get(row, 0.0) + 1.0 / (rrf_k + rank)
    return sorted(scores.items(), key=lambda rs: (-rs[1], rs[0]))[:k]


class Router:
    """Routes questions over one chunk set. ``chunk_doc_ids[i]`` is the document of row i."""

    def __init__(self, catalog: Catalog, chunk_doc_ids: Sequence[str]):
        self.catalog = catalog
        self.chunk_doc_ids = np.asarray(chunk_doc_ids, dtype=object)
        self._memo: dict[str, Route] = {}
        self.last_routes: list[Route] = []

    @property
    def version(self) -> str:
        return VERSION

    def route(self, question: str) -> Route:
        if question not in self._memo:
            key = (self.catalog.fingerprint, question)
            route = _SHARED.get(key) if self.catalog.fingerprint else None
            if route is None:
                route = analyze(question, self.catalog)
                if self.catalog.fingerprint:
                    if len(_SHARED) >= _SHARED_MAX:
                        _SHARED.clear()
                    _SHARED[key] = route
            self._memo[question] = route
        return self._memo[question]

    def mask(self, route: Route, doc_ids: Sequence[str] | None = None) -> np.ndarray | None:
        """Row mask of the route's documents (or of ``doc_ids``), or None (no route, or none of
        those documents has a chunk here)."""
        if route.action == "none":
            return None
        m = np.isin(self.chunk_doc_ids, list(route.doc_ids if doc_ids is None else doc_ids))
        return m if m.any() else None

    def search_many(self, retriever, questions: Sequence[str], k: int,
                    base: Sequence[np.ndarray | None] | None = None, languages=None) -> list[Hits]:
        """Top-k rows per question with its route applied; ``base`` (optional) are row masks
        that hold regardless of the route (search filters, as_of)."""
        questions = list(questions)
        routes = [self.route(q) for q in questions]
        self.last_routes = routes
        base = list(base) if base is not None else [None] * len(questions)

        def within(m, b):
            if m is None or b is None:
                return m
            m = m & b
            return m if m.any() else None

        masks = [within(self.mask(r), b) for r, b in zip(routes, base)]
        main = [b if m is None else m for m, b in zip(masks, base)]
        lang_kw = {"languages": list(languages)} if languages is not None else {}
        first = retriever.search_many(questions, k, main, **lang_kw)
        # more rankings to fuse: the whole index (boost), the preferred documents (preference)
        extra: list[tuple[int, np.ndarray | None]] = []
        for i, (r, m) in enumerate(zip(routes, masks)):
            if m is None:
                continue            # no route here: the global ranking as it is
            if r.action == "boost":
                extra.append((i, base[i]))
            if r.preferred:
                p = within(self.mask(r, r.preferred), base[i])
                if p is not None:
                    extra.append((i, p))
        if not extra:
            return first
        more_kw = {"languages": [languages[i] for i, _ in extra]} if languages is not None else {}
        more = retriever.search_many([questions[i] for i, _ in extra], k, [m for _, m in extra], **more_kw)
        lists: dict[int, list[Hits]] = {}
        for (i, _), hits in zip(extra, more):
            lists.setdefault(i, [first[i]]).append(hits)
        out = list(first)
        for i, rankings in lists.items():
            out[i] = fuse(rankings, k)
        return out


def routing_summary(routes: Sequence[Route], question_ids: Sequence[str],
                    gold_doc_ids: Sequence[Sequence[str]]) -> dict:
    """How the routes did against the questions' documents (the scorer's side: the router
    never sees ``gold_doc_ids``). A route keeps a question when all its documents are among
    the routed ones; a question without a route keeps everything (the whole index)."""
    if not (len(routes) == len(question_ids) == len(gold_doc_ids)):
        raise ValueError(f"routing_summary: {len(routes)} routes for {len(question_ids)} questions "
                         f"and {len(gold_doc_ids)} gold document lists")
    counts = {"filter": 0, "boost": 0, "none": 0}
    kept = kept_routed = 0
    misses: list[str] = []
    n_docs = []
    for route, qid, gold in zip(routes, question_ids, gold_doc_ids):
        counts[route.action] += 1
        gold = set(gold or ())
        ok = route.action == "none" or gold <= set(route.doc_ids)
        kept += ok
        if route.action != "none":
            kept_routed += ok
            n_docs.append(len(route.doc_ids))
            if not ok:
                misses.append(qid)
    n = len(routes)
    routed = counts["filter"] + counts["boost"]
    return {
        "version": VERSION,
        "questions": n,
        "routed": routed, "filter": counts["filter"], "boost": counts["boost"], "none": counts["none"],
        "accuracy": kept / n if n else None,                     # gold documents kept, every question
        "accuracy_routed": kept_routed / routed if routed else None,   # among routed questions
        "mean_documents": sum(n_docs) / len(n_docs) if n_docs else None,
        "misses": misses,
    }
