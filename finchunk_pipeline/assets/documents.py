"""Group "documents": raw_documents -> parsed_blocks."""

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from dagster import (
    AssetExecutionContext,
    DataVersion,
    MaterializeResult,
    MetadataValue,
    asset,
)

from ..builders.blocks import parse_documents
from ..evaluation.gold_resolution import resolve_from_blocks, summary, to_table
from ..fetch.local import ingest_corpus
from ..hashing import stable_hash
from ..parse.ocr import from_settings as ocr_settings
from ..parse.registry import parsers_version
from ..progress import Progress
from ..storage.files import clean_stale_temp_files, write_json, write_parquet
from ..storage.raw import RawStore
from .resources import PipelineResource


def raw_manifest_path(pipeline: PipelineResource):
    return pipeline.workspace().root / "raw_manifest.parquet"


@asset(
    group_name="documents",
    description="Reads the corpus folder's documents.parquet into the raw store (one file per "
                "content hash). Unusable documents are listed with their problem, not fatal.",
    kinds={"parquet"},
)
def raw_documents(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    corpus = pipeline.corpus()
    ws = pipeline.workspace()
    # a run starts by removing what crashed writers left (temporary files older than an hour)
    stale = clean_stale_temp_files(ws.settings.data_root, ws.settings.out_dir)
    if stale:
        context.log.warning(f"removed {len(stale)} temporary files left by interrupted writes, e.g. {stale[0]}")
    result = ingest_corpus(corpus, RawStore(ws.settings.raw_dir))
    manifest = result.manifest.copy()
    manifest["rejected"] = None
    rejected = pd.DataFrame([{"doc_id": d, "rejected": why} for d, why in result.rejected.items()])
    full = pd.concat([manifest, rejected], ignore_index=True) if len(rejected) else manifest
    write_parquet(raw_manifest_path(pipeline), pa.Table.from_pandas(full, preserve_index=False))
    pipeline.push(ws.settings.raw_dir, raw_manifest_path(pipeline))
    for doc_id, why in result.rejected.items():
        context.log.warning(f"document {doc_id!r} rejected: {why}")
    version = stable_hash(sorted(zip(manifest["doc_id"], manifest["sha"])))
    return MaterializeResult(
        metadata={
            "corpus": str(corpus.path),
            "documents": len(manifest),
            "stale_temp_files_removed": len(stale),
            "new_in_raw_store": result.new,
            "already_stored": result.existing,
            "rejected": MetadataValue.json(result.rejected),
            "by_doc_type": MetadataValue.json(manifest["doc_type"].value_counts().to_dict()),
            "preview": MetadataValue.md(manifest[["doc_id", "doc_type", "format", "n_chars"]].head(20).to_markdown(index=False)),
        },
        data_version=DataVersion(version),
    )


def _parsed_blocks(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    ws = pipeline.workspace()
    pipeline.pull(raw_manifest_path(pipeline), ws.settings.raw_dir, ws.settings.blocks_dir)
    full = pq.read_table(raw_manifest_path(pipeline)).to_pandas()
    docs = full[full["rejected"].isna()].drop(columns=["rejected"])
    rejected = dict(zip(full.loc[full["rejected"].notna(), "doc_id"], full.loc[full["rejected"].notna(), "rejected"]))

    progress = Progress("parsing", "documents", context.log.info)
    ocr = ocr_settings(ws.settings)  # FINCHUNK_OCR (docs/ocr.md); None: off
    report = parse_documents(docs, RawStore(ws.settings.raw_dir), ws.blocks, rejected, progress,
                             workers=pipeline.parse_worker_count(), ocr=ocr)
    ok = pd.DataFrame([r for r in report.rows if r["error"] is None])
    meta_cols = [c for c in docs.columns if c not in ("sha",)]
    manifest = docs[meta_cols].merge(ok[["doc_id", "sha", "parser_key"]], on="doc_id") if len(ok) else docs.iloc[0:0]
    write_parquet(ws.manifest_path, pa.Table.from_pandas(manifest, preserve_index=False))
    gold = None
    passages = pipeline.corpus().passages
    if passages is not None:
        gold = resolve_from_blocks(passages, manifest, ws.blocks)
        write_parquet(ws.gold_passages_path, to_table(gold))
        resolution = summary(gold)
        if resolution["unresolved"]:
            context.log.warning(f"{resolution['unresolved']} of {resolution['passages']} quoted gold passages "
                                f"unresolved: {resolution['problems']}")
    elif ws.gold_passages_path.exists():
        ws.gold_passages_path.unlink()
    pipeline.push(ws.settings.blocks_dir, ws.manifest_path, *([ws.gold_passages_path] if gold is not None else []))
    write_json(ws.settings.out_dir / "parse_report.json", {
        "parsers": parsers_version(), "parsed": report.parsed, "reused": report.reused,
        "failed": report.failed, "workers": report.workers,
        **({"ocr": ocr.describe()} if ocr is not None else {}), "documents": report.rows,
    })
    for r in report.rows:
        if r["error"]:
            context.log.error(f"document {r['doc_id']!r}: {r['error']}")
    counts: dict[str, int] = {}
    for r in report.rows:
        for kind, n in r["blocks"].items():
            counts[kind] = counts.get(kind, 0) + n
    version = stable_hash(sorted(zip(manifest["doc_id"], manifest["sha"], manifest["parser_key"]))) if len(manifest) else "empty"
    return MaterializeResult(
        metadata={
            "documents": len(manifest),
            "parsed_now": report.parsed,
            "reused": report.reused,
            "failed": report.failed,
            "parsers": parsers_version(),
            "blocks_by_kind": MetadataValue.json(counts),
            "seconds": round(report.seconds, 2),
            "parse_workers": report.workers,
            "errors": MetadataValue.json({r["doc_id"]: r["error"] for r in report.rows if r["error"]}),
            "gold_resolution": MetadataValue.json(summary(gold)),
        },
        data_version=DataVersion(version),
    )


@asset(
    group_name="documents",
    deps=[raw_documents],
    code_version=parsers_version(),
    description="Parses every raw document once per (content hash, parser version) into blocks "
                "with offsets into the raw text, stored as Parquet under blocks/parser=<version>/. "
                "Writes parse_report.json to the run output folder, and the corpus's gold passages "
                "resolved into the parsed text (pdf page + quote) as gold_passages.parquet.",
    kinds={"parquet"},
)
def parsed_blocks(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    with pipeline.claim("parse", context.log):  # one parse of a corpus at a time on a data root
        return _parsed_blocks(context, pipeline)
