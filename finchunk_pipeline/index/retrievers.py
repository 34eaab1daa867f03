"""Build, save and load the retrievers of a chunk set by name.

Layout under a chunk set's index folder: ``bm25/`` (sparse BM25), ``dense/`` (FAISS index,
row ids, dense.json with the model id). ``hybrid`` has no files of its own: it fuses the two.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .analyzer import DEFAULT_ANALYZER
from .documents import document_texts
from .retriever import DEFAULT_DOC_PRIOR, BM25Retriever

KNOWN = ("bm25", "dense", "hybrid")
NEEDS = {"bm25": ("bm25",), "dense": ("dense",), "hybrid": ("bm25", "dense")}


def build_bm25(chunks: pd.DataFrame, folder: str | Path, analyzer: str = DEFAULT_ANALYZER,
               doc_prior: float = DEFAULT_DOC_PRIOR, doc_languages: dict[str, str] | None = None,
               language_override: str | None = None) -> BM25Retriever:
    """``chunks``: doc_id, embedding_text, source_text, view_spans (the last two give the
    documents' text for the document prior); ``doc_languages``: {doc_id: analysis language}
    (languages.document_languages), English without."""
    doc_ids = chunks["doc_id"].tolist() if (doc_prior or doc_languages) else None
    doc_texts = document_texts(chunks) if doc_prior else None
    retriever = BM25Retriever.build(chunks["embedding_text"].tolist(), analyzer, doc_ids, doc_texts, doc_prior,
                                    doc_languages, language_override)
    retriever.save(Path(folder) / "bm25")
    return retriever


def build_dense(chunks: pd.DataFrame, folder: str | Path, model_path: str | None = None,
                cache_dir: str | Path | None = None, kind: str = "flat", progress=None):
    """Embed ``chunks.embedding_text`` (through the embedding cache) and save a FAISS index to
    ``folder/dense``. Returns (DenseRetriever, EmbedStats)."""
    from .dense import DenseIndex, DenseRetriever
    from .embed import get_embedder

    embedder = get_embedder(model_path, cache_dir)
    vectors, stats = embedder.embed(chunks["embedding_text"].tolist(), progress=progress)
    index = DenseIndex.build(vectors, chunks["chunk_id"].tolist(), kind=kind)
    index.save(Path(folder) / "dense", extra={"model_id": embedder.model_id, "model_path": embedder.model_path})
    return DenseRetriever(index, embedder), stats


def index_exists(name: str, index_dir: str | Path) -> bool:
    """Whether the files ``name`` needs are present under ``index_dir``."""
    index_dir = Path(index_dir)
    files = {"bm25": index_dir / "bm25" / "bm25.npz", "dense": index_dir / "dense" / "index.faiss"}
    if name not in NEEDS:
        raise ValueError(f"unknown retriever {name!r}; known: {KNOWN}")
    return all(files[n].exists() and (n != "dense" or (index_dir / "dense" / "dense.json").exists())
               for n in NEEDS[name])


def load_retriever(name: str, index_dir: str | Path, chunks: pd.DataFrame | None = None,
                   model_path: str | None = None, cache_dir: str | Path | None = None, **options):
    """``options`` go to HybridRetriever (method, rrf_k, depth, weight)."""
    index_dir = Path(index_dir)
    if name == "bm25":
        return BM25Retriever.load(index_dir / "bm25")
    if name in ("dense", "hybrid"):
        from .dense import DenseIndex, DenseRetriever
        from .embed import get_embedder

        index = DenseIndex.load(index_dir / "dense")
        if chunks is not None and "chunk_id" in chunks and chunks["chunk_id"].tolist() != index.row_ids:
            raise ValueError(f"{index_dir / 'dense'}: row ids differ from the chunk set's rows; rebuild the index")
        meta = DenseIndex.meta(index_dir / "dense")
        built_with = meta.get("model_path")
        embedder = get_embedder(model_path or (built_with if built_with and Path(built_with).exists() else None), cache_dir)
        if meta.get("model_id") and meta["model_id"] != embedder.model_id:
            raise ValueError(f"{index_dir / 'dense'} was built with model {meta['model_id']}, "
                             f"queries would use {embedder.model_id}")
        dense = DenseRetriever(index, embedder)
        if name == "dense":
            return dense
        from .hybrid import HybridRetriever

        return HybridRetriever(BM25Retriever.load(index_dir / "bm25"), dense, **options)
    raise ValueError(f"unknown retriever {name!r}; known: {KNOWN}")
