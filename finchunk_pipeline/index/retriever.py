"""Former home of the BM25 retriever, kept so older imports work: the class lives in
``bm25_retriever.py`` and the retriever registry in ``registry.py``."""
from .bm25_retriever import DEFAULT_DOC_PRIOR, BM25Retriever, Hits, Retriever  # noqa: F401
