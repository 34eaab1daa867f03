"""The ``hybrid`` retriever: BM25 and dense candidates fused by rank (hybrid.py). No index
of its own: it reads the bm25 and dense indexes."""
from __future__ import annotations

from ..bm25_retriever import BM25Retriever
from ..files import Traversable
from ..registry import LoadRequest, RetrieverSpec
from .dense import load_dense


def _load(index_dir: Traversable, request: LoadRequest):
    """``request.options`` go to HybridRetriever (method, rrf_k, depth, weight)."""
    from ..hybrid import HybridRetriever

    dense = load_dense(index_dir, request)
    return HybridRetriever(BM25Retriever.from_files(index_dir / "bm25"), dense, **request.options)


RETRIEVER = RetrieverSpec(name="hybrid", load=_load, needs=("bm25", "dense"))
