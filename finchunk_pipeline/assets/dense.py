"""Group "dense_indexing": per chunk set, a FAISS index over sentence embeddings.

Embeddings come through the cache under ``<data root>/embeddings/<model id>/``, so a new
chunk-set version embeds only the texts no earlier version had. The index is rebuilt only
when the chunks' inputs hash, the model id or this asset's code version change.
"""

import os
import time

from dagster import AssetExecutionContext, DataVersion, MaterializeResult, MetadataValue, asset

from ..progress import Progress
from ..storage import read_json, write_json
from .chunks import chunk_sets
from .enrichment import chunk_enrichment
from .partitions import chunk_set_partitions
from .resources import PipelineResource

DENSE_VERSION = "1"
DENSE_KIND_ENV = "FINCHUNK_DENSE_INDEX"  # "flat" (default, exact) or "hnsw" (approximate, for large sets)


def _faiss_index(context: AssetExecutionContext, pipeline: PipelineResource, config) -> MaterializeResult:
    from ..chunking.tokens import default_model_path
    from ..index.embed import get_embedder

    if not config.dense:
        context.log.info(f"{config.name}: dense: false in the chunker config, no dense index")
        return MaterializeResult(metadata={"version": config.version_name, "skipped": True,
                                           "reason": "dense: false in the chunker config"},
                                 data_version=DataVersion(f"skipped:{config.version_name}"))
    wanted = [r for r in pipeline.retriever_names() if r in ("dense", "hybrid")]
    if not wanted:
        context.log.info(f"{config.name}: retrievers {pipeline.retriever_names()} use no dense index, not built")
        return MaterializeResult(metadata={"version": config.version_name, "skipped": True,
                                           "reason": f"retrievers {pipeline.retriever_names()} use no dense index"},
                                 data_version=DataVersion(f"skipped:{config.version_name}"))
    ws = pipeline.workspace()
    index_folder = ws.index_dir(config.version_name)
    pipeline.pull(ws.chunks.dir(config.chunks_version_name), index_folder / "dense", index_folder / "dense.json")
    chunks_manifest = ws.chunks.manifest(config.chunks_version_name)
    if chunks_manifest is None:
        raise RuntimeError(f"chunk set {config.chunks_version_name} is missing: materialize chunk_sets first")
    kind = os.environ.get(DENSE_KIND_ENV, "flat").strip().lower() or "flat"
    if kind not in ("flat", "hnsw"):
        raise ValueError(f"{DENSE_KIND_ENV}={kind!r}: expected flat or hnsw")
    model_path = pipeline.model() or default_model_path()
    # the embedder's model id: the model, and the backend when not torch (FINCHUNK_EMBED_BACKEND)
    mid = get_embedder(model_path, ws.settings.embeddings_dir).model_id
    folder = ws.index_dir(config.version_name)
    marker = folder / "dense.json"
    key = f"{chunks_manifest['inputs']}:{mid}:{kind}:{DENSE_VERSION}"
    t0 = time.perf_counter()
    built = False
    if not (marker.exists() and read_json(marker).get("inputs") == key and (folder / "dense" / "index.faiss").exists()):
        from ..index.retrievers import build_dense

        pipeline.pull(ws.settings.embeddings_dir)  # the shared embedding cache
        chunks = ws.chunks.read(config.chunks_version_name, columns=["chunk_id", "embedding_text"])

        progress = Progress(f"chunk set {config.name}", "new texts embedded", context.log.info)
        retriever, stats = build_dense(chunks, folder, model_path, ws.settings.embeddings_dir, kind, progress)
        write_json(marker, {"inputs": key, "model_id": mid, "kind": kind, "chunks": len(chunks),
                            "dim": retriever.index.dim, "embed": stats.as_dict()})
        built = True
        pipeline.push(ws.settings.embeddings_dir, folder / "dense", marker)
        context.log.info(f"{config.version_name}: {stats.embedded} texts embedded, {stats.cache_hits} from the cache")
    info = read_json(marker)
    emb = info["embed"]
    reps = None
    if config.enrich:
        reps = _representations_dense(context, pipeline, config, ws, folder, chunks_manifest, model_path, mid, kind)
        key = f"{key}:{reps['inputs']}"
    return MaterializeResult(
        metadata={
            "version": config.version_name, "built": built, "chunks": info["chunks"], "dim": info["dim"],
            "model_id": mid, "kind": info["kind"],
            "embedded_now": emb["embedded"] if built else 0,
            "cache_hits": emb["cache_hits"] if built else 0,  # unchanged index: nothing looked up
            "seconds": round(time.perf_counter() - t0, 3),
            "texts_per_second": emb["texts_per_second"] if built else 0.0,
            "path": MetadataValue.path(str(folder / "dense")),
            **({"representations": MetadataValue.json({k: reps[k] for k in ("built", "embed", "enricher_version")})}
               if reps else {}),
        },
        data_version=DataVersion(key),
    )


def _representations_dense(context, pipeline: PipelineResource, config, ws, folder, chunks_manifest, model_path,
                           mid: str, kind: str) -> dict:
    """FAISS indexes over the enrichment and concat representations of an enriched chunk set
    (index/representations.py); embeddings through the shared cache."""
    from ..index.representations import INDEXED, REPRESENTATION_VERSION, build_representation_dense, \
        representation_texts, rep_dir
    from .enrichment import enrichment_store

    store = enrichment_store(ws)
    marker = folder / "rep-dense.json"
    pipeline.pull(store.dir(config.version_name), marker, *(rep_dir(folder, r) / "dense" for r in INDEXED))
    em = store.manifest(config.version_name)
    if em is None:
        raise RuntimeError(f"enrichment of {config.version_name} is missing: materialize chunk_enrichment first")
    key = f"{chunks_manifest['inputs']}:{em['inputs']}:{mid}:{kind}:{DENSE_VERSION}:{REPRESENTATION_VERSION}"
    if marker.exists() and read_json(marker).get("inputs") == key and all(
            (rep_dir(folder, r) / "dense" / "index.faiss").exists() for r in INDEXED):
        return {"built": False, **read_json(marker)}
    pipeline.pull(ws.settings.embeddings_dir)
    chunks = ws.chunks.read(config.chunks_version_name, columns=["chunk_id", "embedding_text"])
    texts = representation_texts(chunks, store.read(config.version_name, columns=["chunk_id", "enrichment_text"]))
    progress = Progress(f"chunk set {config.name} representations", "new texts embedded", context.log.info)
    stats = build_representation_dense(texts, chunks["chunk_id"].tolist(), folder, model_path,
                                       ws.settings.embeddings_dir, kind, progress)
    write_json(marker, {"inputs": key, "enricher_version": em["enricher_version"], "embed": stats})
    pipeline.push(ws.settings.embeddings_dir, *(rep_dir(folder, r) / "dense" for r in INDEXED), marker)
    return {"built": True, **read_json(marker)}


@asset(
    group_name="dense_indexing",
    deps=[chunk_sets, chunk_enrichment],
    partitions_def=chunk_set_partitions,
    code_version=DENSE_VERSION,
    description="FAISS IndexFlatIP over normalised sentence embeddings (all-MiniLM-L6-v2 by default, "
                "offline) of each chunk's embedding_text; embeddings cached by text hash. Skipped for "
                "chunk sets declared with dense: false, and when no evaluated retriever (dense, hybrid) needs it. "
                "For an enriched chunk set also over the enrichment text and enrichment + text.",
    kinds={"faiss"},
)
def faiss_index(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    config = pipeline.chunker_config(context.partition_key)
    with pipeline.claim(f"dense/{config.version_name}", context.log):  # built once, however many runs ask
        return _faiss_index(context, pipeline, config)


DENSE_ASSETS = [faiss_index]
