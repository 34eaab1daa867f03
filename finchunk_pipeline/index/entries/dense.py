"""The ``dense`` retriever: FAISS over normalised sentence embeddings (dense.py), embedded
through the shared cache (embed.py). Its index: ``<index dir>/dense/`` (index.faiss, row ids,
dense.json with the model id)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..files import Parts, Traversable
from ..registry import BuiltIndex, IndexSettings, IndexSpec, LoadRequest, RetrieverSpec

NAME = "dense"


def _embedder(model_path: str | None, cache_dir, backend: str | None):
    """The shared embedder; the backend passed only when one is asked for (the default is the
    Settings', embed.py), so stand-in embedders taking (model_path, cache_dir) fit too."""
    from ...models.embed import get_embedder

    return get_embedder(model_path, cache_dir, **({"backend": backend} if backend else {}))


def build_retriever(chunks: pd.DataFrame, model_path: str | None = None,
                    cache_dir: str | Path | None = None, kind: str = "flat", progress=None,
                    backend: str | None = None, vectors: str = "chunk", views=None):
    """Embed ``chunks.embedding_text`` (through the embedding cache) into a FAISS index (its
    files: ``dense_files``, stored as ``<index dir>/dense``); ``vectors="pooled"``: each chunk's
    vector pooled from its document's units instead (pooled_vectors.py; needs the columns
    doc_id, source_text, view_spans too; ``views``: {doc_id: view text}, the documents the units
    are cut from). Returns (DenseRetriever, EmbedStats)."""
    from ..dense import DenseIndex, DenseRetriever
    from ..pooled_vectors import check_vectors, pooled_vectors

    embedder = _embedder(model_path, cache_dir, backend)
    if check_vectors(vectors) == "pooled":
        vectors, stats = pooled_vectors(chunks, embedder, progress, views)
    else:
        vectors, stats = embedder.embed(chunks["embedding_text"].tolist(), progress=progress)
    index = DenseIndex.build(vectors, chunks["chunk_id"].tolist(), kind=kind)
    return DenseRetriever(index, embedder), stats


def dense_files(retriever) -> Parts:
    """A dense retriever's index files, with the model it embeds with (checked at load)."""
    embedder = retriever.embedder
    return retriever.index.to_files(extra={"model_id": embedder.model_id, "model_path": embedder.model_path})


def model_id(settings: IndexSettings) -> str:
    """The embedder's model id: the model, and the backend when it is not torch."""
    return _embedder(settings.model_path, settings.embeddings_dir, settings.embed_backend).model_id


def _build(chunks: pd.DataFrame, settings: IndexSettings) -> BuiltIndex:
    retriever, stats = build_retriever(chunks, settings.model_path, settings.embeddings_dir,
                                       settings.dense_kind, settings.progress, settings.embed_backend,
                                       settings.dense_vectors, views_for(chunks, settings))
    return BuiltIndex(dense_files(retriever),
                      {"model_id": retriever.embedder.model_id, "kind": settings.dense_kind, "chunks": len(chunks),
                       "vectors": settings.dense_vectors, "dim": retriever.index.dim, "embed": stats.as_dict()})


def _config(settings: IndexSettings) -> dict:
    from ..pooled_vectors import check_vectors

    config = {"model": model_id(settings), "kind": settings.dense_kind}
    if check_vectors(settings.dense_vectors) == "pooled":  # the default adds nothing to the key
        config["vectors"] = "pooled"
    return config


def _pooled_columns(settings: IndexSettings) -> tuple[str, ...]:
    """Pooled vectors also read where each chunk lies in its document."""
    from ..pooled_vectors import COLUMNS

    return COLUMNS if settings.dense_vectors == "pooled" else ()


def views_for(chunks: pd.DataFrame, settings: IndexSettings):
    """The view texts of the chunks' documents pooled vectors cut units from (None: not pooled,
    or no block store to read them from)."""
    if settings.dense_vectors != "pooled" or settings.views is None:
        return None
    return settings.views(list(dict.fromkeys(chunks["doc_id"])))


def load_dense(index_dir: Traversable, request: LoadRequest):
    """The dense retriever over ``index_dir/dense``, its queries embedded by the model it was
    built with (checked against the chunk set's rows and the model id)."""
    from ..dense import DenseIndex, DenseRetriever

    folder = index_dir / NAME
    index = DenseIndex.from_files(folder)
    chunks = request.chunks
    if chunks is not None and "chunk_id" in chunks and chunks["chunk_id"].tolist() != index.row_ids:
        raise ValueError(f"{folder}: row ids differ from the chunk set's rows; rebuild the index")
    meta = DenseIndex.meta(folder)
    built_with = meta.get("model_path")
    model_path = request.model_path or (built_with if built_with and Path(built_with).exists() else None)
    embedder = _embedder(model_path, request.cache_dir, request.embed_backend)
    if meta.get("model_id") and meta["model_id"] != embedder.model_id:
        raise ValueError(f"{folder} was built with model {meta['model_id']}, queries would use {embedder.model_id}")
    return DenseRetriever(index, embedder)


RETRIEVER = RetrieverSpec(
    name=NAME, load=load_dense,
    index=IndexSpec(columns=("chunk_id", "embedding_text"), build=_build, required=("index.faiss", "dense.json"),
                    config=_config, embeds=True, more_columns=_pooled_columns,
                    modules=(__name__, "finchunk_pipeline.index.dense", "finchunk_pipeline.models.embed",
                             "finchunk_pipeline.models.backends",
                             "finchunk_pipeline.models.onnx_backend", "finchunk_pipeline.models.static_backend",
                             "finchunk_pipeline.index.pooled_vectors")),
)
