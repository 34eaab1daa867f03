"""The ``hybrid`` retriever: BM25 and dense candidates fused by rank (hybrid.py). No index
of its own: it reads the bm25 and dense indexes."""
from __future__ import annotations

from typing import Callable

from ..bm25_retriever import BM25Retriever
from ..files import Traversable
from ..registry import LoadRequest, RetrieverSpec
from .dense import load_dense


def names_a_document(catalog) -> Callable[[str], bool] | None:
    """Whether a query names a document of ``catalog`` (routing.Catalog): the query analyzer's
    route is not ``none`` (an issuer, ticker or title it finds); None without a catalog."""
    if catalog is None:
        return None
    from ...routing import analyze

    return lambda query: analyze(query, catalog).action != "none"


def _load(index_dir: Traversable, request: LoadRequest):
    """``request.options`` go to HybridRetriever (method, rrf_k, depth, weight, named_weight);
    ``request.catalog`` gives it each query's weight (names_a_document)."""
    from ..hybrid import HybridRetriever

    dense = load_dense(index_dir, request)
    return HybridRetriever(BM25Retriever.from_files(index_dir / "bm25"), dense,
                           names=names_a_document(request.catalog), **request.options)


RETRIEVER = RetrieverSpec(name="hybrid", load=_load, needs=("bm25", "dense"))
