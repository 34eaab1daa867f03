"""Group "indexing": per chunk set, the BM25 index and every registered index that needs no
embedding model (index/registry.py), each built or reused through builders/indexes.py."""

import time

import pyarrow.parquet as pq
from dagster import (
    AssetExecutionContext,
    DataVersion,
    MaterializeResult,
    MetadataValue,
    asset,
)

from ..builders.indexes import build_index, build_representations_bm25
from ..hashing import stable_hash
from ..index.keys import index_code_version
from ..index.languages import document_languages, languages_key
from ..index.registry import IndexSettings, indexes_to_build
from ..storage.indexes import DocumentIndexFolder
from .chunks import chunk_sets
from .enrichment import chunk_enrichment, enrichment_store
from .partitions import chunk_set_partitions
from .resources import PipelineResource


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


def lexical_settings(pipeline: PipelineResource, ws) -> IndexSettings:
    """The run's settings for indexes built without an embedding model."""
    analyzer, prior = pipeline.bm25_settings()
    langs, override, lang_key = bm25_languages(pipeline, ws)
    return IndexSettings(analyzer=analyzer, doc_prior=prior, statement_prior=pipeline.statement_prior_weight(),
                         doc_languages=langs, language_override=override,
                         languages_key=lang_key, documents=DocumentIndexFolder(ws.bm25_documents_dir))


def reader(ws, config):
    return lambda columns: ws.chunks.read(config.chunks_version_name, columns=list(columns))


def _representations_bm25(context, pipeline: PipelineResource, config, ws, folder, chunks_manifest,
                          settings: IndexSettings) -> dict:
    """BM25 over the enrichment and concat representations of an enriched chunk set
    (builders/indexes.py), rebuilt when the chunks, the enrichment or their code change."""
    store = enrichment_store(ws)
    outcome = build_representations_bm25(
        folder, reader(ws, config), lambda: store.read(config.version_name, columns=["chunk_id", "enrichment_text"]),
        chunks_manifest["inputs"], pipeline.stored_enrichment(ws, config), settings, pipeline,
        log=lambda message: context.log.info(f"{config.version_name}: {message}"))
    return {"built": outcome.built, **outcome.info}


def _bm25_index(context: AssetExecutionContext, pipeline: PipelineResource, config) -> MaterializeResult:
    ws = pipeline.workspace()
    folder = ws.index_dir(config.version_name)
    chunks_manifest = pipeline.stored_chunks(ws, config)
    settings = lexical_settings(pipeline, ws)
    t0 = time.perf_counter()
    outcomes = {name: build_index(name, folder, reader(ws, config), chunks_manifest["inputs"], settings, pipeline)
                for name in indexes_to_build(pipeline.retriever_names(), embeds=False)}
    (bm25, key), others = outcomes.pop("bm25"), outcomes
    info = bm25.info
    reps = _representations_bm25(context, pipeline, config, ws, folder, chunks_manifest, settings) \
        if config.enrich else None
    keys = [key] + [k for _, k in others.values()] + ([reps["inputs"]] if reps else [])
    return MaterializeResult(
        metadata={
            "version": config.version_name, "built": bm25.built, "chunks": info["chunks"],
            "vocabulary": info["vocabulary"], "seconds": round(time.perf_counter() - t0, 3),
            "analyzer": info.get("analyzer", "plain"), "doc_prior": info.get("doc_prior", 0.0),
            "path": MetadataValue.path(str(folder / "bm25")),
            **({"representations": MetadataValue.json({k: reps[k] for k in ("built", "vocabulary", "enricher_version")})}
               if reps else {}),
            **({"other_indexes": MetadataValue.json({n: {"built": o.built} for n, (o, _) in others.items()})}
               if others else {}),
        },
        data_version=DataVersion(key if len(keys) == 1 else stable_hash({"indexes": keys}, n=16)),
    )


@asset(
    group_name="indexing",
    deps=[chunk_sets, chunk_enrichment],
    partitions_def=chunk_set_partitions,
    code_version=index_code_version("bm25"),
    description="BM25Okapi (rank-bm25 scores, sparse matrices) over each chunk's embedding_text, "
                "terms from the configured analyzer (default 'finance': stems, phrases, fiscal years, "
                "accounting concepts), plus a document-level index for the document prior. For an enriched chunk set also over the enrichment text and over "
                "enrichment + text (index/representations.py). Also every registered index that needs no "
                "embedding model and that a configured retriever reads (index/registry.py).",
)
def bm25_index(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    return pipeline.claimed(context, "bm25", _bm25_index)
