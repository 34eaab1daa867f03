"""Group "indexing": per chunk set, a BM25 index (and dense / hybrid where configured)."""

import time

from dagster import AssetExecutionContext, DataVersion, MaterializeResult, MetadataValue, asset

import pyarrow.parquet as pq

from ..index.documents import document_texts
from ..index.languages import document_languages, languages_key
from ..index.retrievers import build_bm25
from ..storage import read_json, write_json
from .chunks import chunk_sets
from .enrichment import chunk_enrichment, enrichment_store
from .partitions import chunk_set_partitions
from .resources import PipelineResource

# 2: the analyzer (index/analyzer.py) and the document prior (index/retriever.py) join the key
BM25_VERSION = "2"


def bm25_languages(pipeline: PipelineResource, ws) -> tuple[dict[str, str], str | None, str]:
    """({doc_id: analysis language} from the parsed documents' ``language`` column, the
    forced language or None, the key part naming the analyzers: index/languages.py)."""
    analyzer, _ = pipeline.bm25_settings()
    override = pipeline.bm25_forced_language()
    cols = pq.read_schema(ws.manifest_path).names
    table = pq.read_table(ws.manifest_path, columns=[c for c in ("doc_id", "language") if c in cols])
    doc_ids = table.column("doc_id").to_pylist()
    values = table.column("language").to_pylist() if "language" in cols else [None] * len(doc_ids)
    langs = document_languages(doc_ids, values, override)
    key = languages_key(analyzer, set(langs.values()))
    return langs, override, key + (f":forced={override}" if override else "")


def _representations_bm25(context, pipeline: PipelineResource, config, ws, folder, chunks_manifest) -> dict:
    """BM25 over the enrichment and concat representations of an enriched chunk set
    (index/representations.py), rebuilt when the chunks or the enrichment change."""
    from ..index.representations import INDEXED, REPRESENTATION_VERSION, build_representation_bm25, \
        representation_texts, rep_dir

    store = enrichment_store(ws)
    marker = folder / "rep-bm25.json"
    pipeline.pull(store.dir(config.version_name), marker, *(rep_dir(folder, r) / "bm25" for r in INDEXED))
    em = store.manifest(config.version_name)
    if em is None:
        raise RuntimeError(f"enrichment of {config.version_name} is missing: materialize chunk_enrichment first")
    analyzer, prior = pipeline.bm25_settings()
    langs, override, lang_key = bm25_languages(pipeline, ws)
    key = (f"{chunks_manifest['inputs']}:{em['inputs']}:{BM25_VERSION}:{REPRESENTATION_VERSION}:"
           f"{lang_key}:prior={prior:g}")
    if marker.exists() and read_json(marker).get("inputs") == key:
        return {"built": False, **read_json(marker)}
    chunks = ws.chunks.read(config.chunks_version_name, columns=["chunk_id", "doc_id", "embedding_text",
                                                                  "source_text", "view_spans"])
    texts = representation_texts(chunks, store.read(config.version_name, columns=["chunk_id", "enrichment_text"]))
    vocab = build_representation_bm25(texts, folder, analyzer, chunks["doc_id"].tolist(),
                                      document_texts(chunks) if prior else None, prior, langs, override)
    write_json(marker, {"inputs": key, "enricher_version": em["enricher_version"], "vocabulary": vocab})
    pipeline.push(*(rep_dir(folder, r) / "bm25" for r in INDEXED), marker)
    context.log.info(f"{config.version_name}: BM25 over the representations {list(vocab)} built")
    return {"built": True, **read_json(marker)}


def _bm25_index(context: AssetExecutionContext, pipeline: PipelineResource, config) -> MaterializeResult:
    ws = pipeline.workspace()
    folder = ws.index_dir(config.version_name)
    marker = folder / "bm25.json"
    pipeline.pull(ws.chunks.dir(config.chunks_version_name), ws.manifest_path, folder / "bm25", marker)
    chunks_manifest = ws.chunks.manifest(config.chunks_version_name)
    if chunks_manifest is None:
        raise RuntimeError(f"chunk set {config.chunks_version_name} is missing: materialize chunk_sets first")
    analyzer, prior = pipeline.bm25_settings()
    langs, override, lang_key = bm25_languages(pipeline, ws)
    key = f"{chunks_manifest['inputs']}:{BM25_VERSION}:{lang_key}:prior={prior:g}"
    built = False
    t0 = time.perf_counter()
    if not (marker.exists() and read_json(marker).get("inputs") == key):
        chunks = ws.chunks.read(config.chunks_version_name, columns=["chunk_id", "doc_id", "embedding_text",
                                                                "source_text", "view_spans"])
        retriever = build_bm25(chunks, folder, analyzer, prior, langs, override)
        write_json(marker, {"inputs": key, "chunks": len(chunks), "vocabulary": len(retriever.index.vocab),
                            **retriever.describe()})
        built = True
        pipeline.push(folder / "bm25", marker)
    info = read_json(marker)
    reps = _representations_bm25(context, pipeline, config, ws, folder, chunks_manifest) if config.enrich else None
    return MaterializeResult(
        metadata={
            "version": config.version_name, "built": built, "chunks": info["chunks"],
            "vocabulary": info["vocabulary"], "seconds": round(time.perf_counter() - t0, 3),
            "analyzer": info.get("analyzer", "plain"), "doc_prior": info.get("doc_prior", 0.0),
            "path": MetadataValue.path(str(folder / "bm25")),
            **({"representations": MetadataValue.json({k: reps[k] for k in ("built", "vocabulary", "enricher_version")})}
               if reps else {}),
        },
        data_version=DataVersion(key if reps is None else f"{key}:{reps['inputs']}"),
    )


@asset(
    group_name="indexing",
    deps=[chunk_sets, chunk_enrichment],
    partitions_def=chunk_set_partitions,
    code_version=BM25_VERSION,
    description="BM25Okapi (rank-bm25 scores, sparse matrices) over each chunk's embedding_text, "
                "terms from the configured analyzer (default 'finance': stems, phrases, fiscal years, "
                "accounting concepts), plus a document-level index for the document prior. For an enriched chunk set also over the enrichment text and over "
                "enrichment + text (index/representations.py).",
)
def bm25_index(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    config = pipeline.chunker_config(context.partition_key)
    with pipeline.claim(f"bm25/{config.version_name}", context.log):  # built once, however many runs ask
        return _bm25_index(context, pipeline, config)
