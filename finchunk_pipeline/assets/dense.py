"""Group "dense_indexing": per chunk set, the registered indexes that need the embedding model
(the FAISS index over sentence embeddings), built or reused through builders/indexes.py.

Embeddings come through the cache under ``<data root>/embeddings/<model id>/``, so a new
chunk-set version embeds only the texts no earlier version had. An index is rebuilt only when
its key changes: the chunks' inputs key, the model id (with the backend), the index kind or
the code that builds it.
"""

import time

from dagster import (
    AssetExecutionContext,
    DataVersion,
    MaterializeResult,
    MetadataValue,
    asset,
)

from ..builders.indexes import build_index, build_representations_dense
from ..index.keys import index_code_version
from ..index.registry import IndexSettings, indexes_to_build
from ..progress import Progress
from .chunks import chunk_sets
from .enrichment import chunk_enrichment
from .indexes import reader
from .partitions import chunk_set_partitions
from .resources import PipelineResource


def dense_settings(pipeline: PipelineResource, ws, progress=None) -> IndexSettings:
    """The run's settings for indexes built with the embedding model: model, cache, backend
    and index kind (flat: exact; hnsw: approximate, for large sets)."""
    from ..index.dense import KINDS
    from ..index.pooled_vectors import check_vectors
    from ..models.tokens import default_model_path

    settings = pipeline.settings()
    kind = (settings.dense_index or "flat").strip().lower() or "flat"
    if kind not in KINDS:
        raise ValueError(f"FINCHUNK_DENSE_INDEX={kind!r}: expected one of {', '.join(KINDS)}")
    vectors = check_vectors(settings.dense_vectors)
    return IndexSettings(model_path=pipeline.model() or default_model_path(), embeddings_dir=ws.settings.embeddings_dir,
                         dense_kind=kind, embed_backend=settings.embed_backend or None, dense_vectors=vectors,
                         views=_views(pipeline, ws) if vectors == "pooled" else None, progress=progress)


def _views(pipeline: PipelineResource, ws):
    """{doc_id: view text} of the parsed documents asked for, read from the block store (pooled
    vectors cut their units from the parse, index/pooled_vectors.py)."""
    def views(doc_ids):
        from ..builders.evaluation import document_reader

        pipeline.pull(ws.manifest_path, ws.settings.blocks_dir)
        read = document_reader(ws.manifest_path, ws.blocks)
        out = {}
        for doc_id in doc_ids:
            try:
                out[doc_id] = read(doc_id).view_text
            except KeyError:  # not in the parsed manifest: its units come from the chunks
                pass
        return out
    return views


def _skipped(context, config, reason: str) -> MaterializeResult:
    context.log.info(f"{config.name}: {reason}, no dense index")
    return MaterializeResult(metadata={"version": config.version_name, "skipped": True, "reason": reason},
                             data_version=DataVersion(f"skipped:{config.version_name}"))


def _faiss_index(context: AssetExecutionContext, pipeline: PipelineResource, config) -> MaterializeResult:
    if not config.dense:
        return _skipped(context, config, "dense: false in the chunker config")
    names = indexes_to_build(pipeline.retriever_names(), embeds=True)
    if not names:
        return _skipped(context, config, f"retrievers {pipeline.retriever_names()} use no dense index")
    ws = pipeline.workspace()
    folder = ws.index_dir(config.version_name)
    chunks_manifest = pipeline.stored_chunks(ws, config)
    progress = Progress(f"chunk set {config.name}", "new texts embedded", context.log.info)
    settings = dense_settings(pipeline, ws, progress)
    t0 = time.perf_counter()
    outcomes = {}
    for name in names:
        # the shared embedding cache: pulled before a build, pushed with the index (builders/indexes.py)
        outcomes[name] = build_index(name, folder, _with_cache(pipeline, ws, reader(ws, config)),
                                     chunks_manifest["inputs"], settings, pipeline)
    outcome, key = outcomes.get("dense") or next(iter(outcomes.values()))
    info, built = outcome.info, outcome.built
    if built:
        pipeline.push(ws.settings.embeddings_dir)
        context.log.info(f"{config.version_name}: {info['embed']['embedded']} texts embedded, "
                         f"{info['embed']['cache_hits']} from the cache")
    reps = None
    if config.enrich:
        reps = _representations_dense(context, pipeline, config, ws, folder, chunks_manifest, settings)
        key = f"{key}:{reps['inputs']}"
    return MaterializeResult(metadata=_metadata(config, folder, info, built, reps, time.perf_counter() - t0),
                             data_version=DataVersion(key))


def _with_cache(pipeline: PipelineResource, ws, read):
    """``read`` that first pulls the shared embedding cache: only a build reads chunks."""
    def read_chunks(columns):
        pipeline.pull(ws.settings.embeddings_dir)
        return read(columns)
    return read_chunks


def _metadata(config, folder, info: dict, built: bool, reps: dict | None, seconds: float) -> dict:
    emb = info["embed"]
    return {
        "version": config.version_name, "built": built, "chunks": info["chunks"], "dim": info["dim"],
        "model_id": info["model_id"], "kind": info["kind"], "vectors": info.get("vectors", "chunk"),
        "embedded_now": emb["embedded"] if built else 0,
        "cache_hits": emb["cache_hits"] if built else 0,  # unchanged index: nothing looked up
        "seconds": round(seconds, 3),
        "texts_per_second": emb["texts_per_second"] if built else 0.0,
        "path": MetadataValue.path(str(folder / "dense")),
        **({"representations": MetadataValue.json({k: reps[k] for k in ("built", "embed", "enricher_version")})}
           if reps else {}),
    }


def _representations_dense(context, pipeline: PipelineResource, config, ws, folder, chunks_manifest,
                           settings: IndexSettings) -> dict:
    """FAISS indexes over the enrichment and concat representations of an enriched chunk set
    (builders/indexes.py); embeddings through the shared cache."""
    from .enrichment import enrichment_store

    store = enrichment_store(ws)
    progress = Progress(f"chunk set {config.name} representations", "new texts embedded", context.log.info)
    outcome = build_representations_dense(
        folder, reader(ws, config), lambda: store.read(config.version_name, columns=["chunk_id", "enrichment_text"]),
        chunks_manifest["inputs"], pipeline.stored_enrichment(ws, config), settings, pipeline, progress)
    return {"built": outcome.built, **outcome.info}


@asset(
    group_name="dense_indexing",
    deps=[chunk_sets, chunk_enrichment],
    partitions_def=chunk_set_partitions,
    code_version=index_code_version("dense"),
    description="FAISS IndexFlatIP over normalised sentence embeddings (all-MiniLM-L6-v2 by default, "
                "offline) of each chunk's embedding_text; embeddings cached by text hash. Skipped for "
                "chunk sets declared with dense: false, and when no evaluated retriever (dense, hybrid) needs it. "
                "For an enriched chunk set also over the enrichment text and enrichment + text.",
    kinds={"faiss"},
)
def faiss_index(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    return pipeline.claimed(context, "dense", _faiss_index)


DENSE_ASSETS = [faiss_index]
