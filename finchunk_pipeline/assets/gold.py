"""Group "documents": generated_gold — questions with exact evidence, generated from the
inline-XBRL facts the HTML parser located in each filing (evaluation/xbrl_gold). The asset
only wires: the generation, its key and its reuse live in builders/xbrl_gold.py."""

import pyarrow.parquet as pq
from dagster import AssetExecutionContext, DataVersion, MaterializeResult, MetadataValue, asset

from ..builders.xbrl_gold import build_generated_gold
from ..code_versions import code_version
from ..evaluation.xbrl_gold.options import CODE, GoldOptions
from ..storage.gold import GoldFiles
from .documents import parsed_blocks
from .resources import PipelineResource


@asset(
    group_name="documents",
    deps=[parsed_blocks],
    code_version=code_version(*CODE),
    description="Questions generated from the filings' own inline-XBRL facts (every figure is tagged in "
                "place: concept, period, entity, unit), each with its exact evidence as gold — the row with "
                "its table's column headers, the sentence, the note — so a corpus of iXBRL filings is "
                "evaluated without anyone writing a question. Reported beside the corpus's own questions, "
                "or alone when it has none. FINCHUNK_GENERATED_GOLD=off turns it off.",
    kinds={"parquet"},
)
def generated_gold(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    ws = pipeline.workspace()
    options = GoldOptions.from_settings(pipeline.settings())
    files = GoldFiles(ws.generated_gold_dir)
    pipeline.pull(ws.manifest_path, ws.settings.blocks_dir)
    manifest = pq.read_table(ws.manifest_path).to_pandas()
    outcome = build_generated_gold(manifest, ws.blocks, files, options, transfer=pipeline)
    if outcome is None:
        why = "switched off (FINCHUNK_GENERATED_GOLD=off)" if not options.enabled else "no filing carries inline-XBRL facts"
        context.log.info(f"generated gold: none — {why}")
        return MaterializeResult(metadata={"questions": 0, "why": why}, data_version=DataVersion("none"))
    report = outcome.info
    for f in report["filings"]:
        if f["located_share"] is not None and f["located_share"] < 0.95:
            context.log.warning(f"{f['doc_id']}: only {f['located']} of {f['to_locate']} tagged figures located "
                                f"in the parsed text")
    return MaterializeResult(
        metadata={
            "questions": report["questions"],
            "by_type": MetadataValue.json(report["by_type"]),
            "filings": len(report["filings"]),
            "evidence": report["evidence"],
            "per_filing": report["per_document"] or "all",
            "reused": not outcome.built,
            "located": MetadataValue.md(_located_table(report["filings"])),
            "path": MetadataValue.path(str(files.folder)),
        },
        data_version=DataVersion(outcome.info["inputs"]),
    )


def _located_table(filings: list[dict]) -> str:
    rows = ["| filing | tagged figures | located | questions | rejected |", "|---|---:|---:|---:|---|"]
    for f in filings:
        rejected = ", ".join(f"{k} {v}" for k, v in list(f["rejected"].items())[:4]) or "–"
        rows.append(f"| {f['doc_id']} | {f['to_locate']} | {f['located']} | {sum(f['questions'].values())} | {rejected} |")
    return "\n".join(rows)
