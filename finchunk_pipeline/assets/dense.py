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
    pipeline.pull(ws.chunks.dir(config.version_name), index_folder / "dense", index_folder / "dense.json")
    chunks_manifest = ws.chunks.manifest(config.version_name)
    if chunks_manifest is None:
        raise RuntimeError(f"chunk set {config.version_name} is missing: materialize chunk_sets first")
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
        chunks = ws.chunks.read(config.version_name, columns=["chunk_id", "embedding_text"])

        progress = Progress(f"chunk set {config.name}", "new texts embedded", context.log.info)
        retriever, stats = build_dense(chunks, folder, model_path, ws.settings.embeddings_dir, kind, progress)
        write_json(marker, {"inputs": key, "model_id": mid, "kind": kind, "chunks": len(chunks),
                            "dim": retriever.index.dim, "embed": stats.as_dict()})
        built = True
        pipeline.push(ws.settings.embeddings_dir, folder / "dense", marker)
        context.log.info(f"{config.version_name}: {stats.embedded} texts embedded, {stats.cache_hits} from the cache")
    info = read_json(marker)
    emb = info["embed"]
    return MaterializeResult(
        metadata={
            "version": config.version_name, "built": built, "chunks": info["chunks"], "dim": info["dim"],
            "model_id": mid, "kind": info["kind"],
            "embedded_now": emb["embedded"] if built else 0,
            "cache_hits": emb["cache_hits"] if built else 0,  # unchanged index: nothing looked up
            "seconds": round(time.perf_counter() - t0, 3),
            "texts_per_second": emb["texts_per_second"] if built else 0.0,
            "path": MetadataValue.path(str(folder / "dense")),
        },
        data_version=DataVersion(key),
    )


@asset(
    group_name="dense_indexing",
    deps=[chunk_sets],
    partitions_def=chunk_set_partitions,
    code_version=DENSE_VERSION,
    description="FAISS IndexFlatIP over normalised sentence embeddings (all-MiniLM-L6-v2 by default, "
                "offline) of each chunk's embedding_text; embeddings cached by text hash. Skipped for "
                "chunk sets declared with dense: false, and when no evaluated retriever (dense, hybrid) needs it.",
    kinds={"faiss"},
)
def faiss_index(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    config = pipeline.chunker_config(context.partition_key)
    with pipeline.claim(f"dense/{config.version_name}", context.log):  # built once, however many runs ask
        return _faiss_index(context, pipeline, config)


DENSE_ASSETS = [faiss_index]
