"""Group "evaluation": per chunk set retrieval scores, then the side-by-side report.

The assets only declare: the evaluation of a chunk set, its key and its reuse live in
builders/evaluation.py over the pure evaluation/chunk_set.py (plain functions, testable without
Dagster); the report in builders/evaluation_report.py over evaluation/corpus_report.py and
evaluation/report.py.
"""

import base64
from pathlib import Path

from dagster import (
    AssetExecutionContext,
    AutomationCondition,
    DataVersion,
    MaterializeResult,
    MetadataValue,
    asset,
)

from ..builders.evaluation import ChunkSetEvaluation, evaluate_chunk_set
from ..builders.evaluation_report import ANSWERS_FILE, corpus_report, stored_evaluations, write_report
from ..evaluation.chunk_set import GENERATED, HUMAN, EvaluationOptions
from ..evaluation.code import EVALUATION_CODE, EVALUATION_VERSION
from ..evaluation.plots import write_plots
from ..evaluation.report import render_markdown
from ..hashing import stable_hash
from ..models.backends import check_backend
from ..storage.files import write_json
from .dense import faiss_index
from .gold import generated_gold
from .indexes import bm25_index
from .partitions import chunk_set_partitions
from .point_in_time import PIT_FILE, point_in_time_evaluation
from .resources import PipelineResource
from .runnable import runnable_configs


def png_data_uri(path) -> str:
    """A PNG as a data: URI, so Markdown metadata shows it in the Dagster UI."""
    return "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")


def chunk_set_evaluation(pipeline: PipelineResource, config, gold: str = HUMAN) -> ChunkSetEvaluation:
    """The evaluation of ``config``'s chunk set on a question set (the corpus's own, or the
    one generated from inline XBRL) as this pipeline instance configures it."""
    options = EvaluationOptions(retrievers=tuple(pipeline.retriever_names()), model=pipeline.model(),
                                budgets=tuple(pipeline.budget_list()),
                                embed_backend=check_backend(pipeline.settings().embed_backend))
    return ChunkSetEvaluation(pipeline.workspace(), pipeline.corpus(), config, options, gold)


def _recall_metadata(payload: dict) -> dict:
    """The headline numbers shown in the UI: recall at 3, 5 and 1500 characters per
    retriever/mode, routing accuracy, and enriched recall with / without enrichment."""
    entries = payload["entries"]
    md = {f"recall@3 {e['retriever']}/{e['mode']}": round(e["curve"][2]["recall"] or 0, 4) for e in entries}
    md.update({f"recall@5 {e['retriever']}/{e['mode']}": round(e["curve"][4]["recall"] or 0, 4) for e in entries})
    md.update({f"recall@1500ch {e['retriever']}/{e['mode']}": round(e["budget"][2]["recall"] or 0, 4)
               for e in entries if e.get("budget")})
    routing_entry = next((e["routing"] for e in entries if e.get("routing")), None)
    if routing_entry and routing_entry.get("accuracy") is not None:
        md["routing accuracy"] = round(routing_entry["accuracy"], 4)
    for e in (payload.get("enrichment") or {}).get("entries") or []:  # with / without enrichment
        if e.get("budget") and e["mode"] == "global":
            tag = "" if e["delivery"] == "evidence" else " +enrichment delivered"
            tag += "" if e["scope"] == "all" else " short-ambiguous"
            md[f"enriched R@1500ch {e['retriever']}/{e['representation']}{tag}"] = round(e["budget"][2]["recall"] or 0, 4)
    return md


def _retrieval_evaluation(context: AssetExecutionContext, pipeline: PipelineResource, config) -> MaterializeResult:
    job = chunk_set_evaluation(pipeline, config)
    ws = job.ws
    pipeline.pull(ws.manifest_path, ws.gold_passages_path, ws.settings.blocks_dir,
                  ws.chunks.dir(config.chunks_version_name), ws.enrichments.dir(config.version_name),
                  job.index_dir, ws.settings.embeddings_dir)
    outcome = evaluate_chunk_set(job, transfer=pipeline, log=context.log, code=EVALUATION_CODE)
    payload = outcome.info
    base = payload["chunk_set"]
    metadata = {"version": config.version_name, "corpus": ws.root.name, "labelled": job.corpus.labelled,
                "reused": not outcome.built, "evaluation_code": EVALUATION_CODE,
                "path": MetadataValue.path(str(job.path)),
                "index_bytes": base["index_bytes"], "duplication": round(base["duplication"], 3),
                **_recall_metadata(payload)}
    versions = [payload]
    generated = chunk_set_evaluation(pipeline, config, GENERATED)
    pipeline.pull(ws.generated_gold_dir)
    if generated.labelled:  # questions generated from the filings' inline XBRL (generated_gold)
        gen = evaluate_chunk_set(generated, transfer=pipeline, log=context.log, code=EVALUATION_CODE).info
        metadata["generated_gold_questions"] = gen["questions"]
        metadata["generated_gold_path"] = MetadataValue.path(str(generated.path))
        metadata.update({f"generated: {k}": v for k, v in _recall_metadata(gen).items() if "1500ch" in k})
        versions.append(gen)
    elif generated.path.exists():
        generated.path.unlink()  # no generated gold any more: its old evaluation must not be reported
    return MaterializeResult(metadata=metadata, data_version=DataVersion(stable_hash(versions)))


@asset(
    group_name="evaluation",
    deps=[bm25_index, faiss_index, generated_gold],
    partitions_def=chunk_set_partitions,
    code_version=f"{EVALUATION_VERSION}-{EVALUATION_CODE}",
    description="recall@k (k = 1..10), full coverage and characters delivered; recall at character budgets "
                "(configurable; default 500..8000, context assembler: repeated evidence sent once); character precision / IoU and answer containment (k = 5 and 1500 chars), for "
                "one chunk set, per retriever, globally / filtered to the question's documents / routed by the query "
                "analyzer, with its routing accuracy (chunk sets declaring expand deliver bounded parents), "
                "overall, by question type and on the table and footnote slices.",
)
def retrieval_evaluation(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    return pipeline.claimed(context, "evaluation", _retrieval_evaluation, key=lambda config: config.name)


@asset(
    group_name="evaluation",
    deps=[retrieval_evaluation, point_in_time_evaluation],
    automation_condition=AutomationCondition.eager(),
    description="Every declared chunk set that can run here side by side: evaluation.json and "
                "evaluation.md in the run output folder, the table shown here. Assembled again when "
                "the sensor retires a chunk set.",
)
def evaluation_report(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    ws = pipeline.workspace()
    # the chunk sets the partitions are (runnable.py): one the sensor retired is not listed
    # with its last evaluation as if it were current
    configs, not_runnable = runnable_configs(pipeline)
    if not_runnable:
        context.log.warning(f"chunk sets left out of the report, not runnable here: {not_runnable}")
    pipeline.pull(ws.evaluations_root, ws.root / PIT_FILE, ws.root / ANSWERS_FILE, ws.generated_gold_dir)
    stored = stored_evaluations(ws, configs)
    if stored.missing:
        context.log.warning(f"chunk sets not evaluated yet (materialize their partitions): {stored.missing}")
    report = corpus_report(ws, pipeline.corpus(), configs, pipeline.budget_list(), stored, ws.root / PIT_FILE)
    plots = {}
    try:
        plots = write_plots(report, ws.settings.out_dir)
    except ImportError as exc:  # matplotlib is a dependency; a broken install must not lose the report
        context.log.warning(f"plots skipped: {exc}")
    # evaluation.md sits next to the PNGs: it references them by file name
    js, md_path = write_report(report, ws.settings.out_dir, {k: Path(v).name for k, v in plots.items()})
    write_json(ws.root / "last_report.json", report)
    pipeline.push(ws.root / "last_report.json")
    return MaterializeResult(metadata={
        # the UI cannot reach local files: the plots are embedded in the Markdown as data: URIs
        "report": MetadataValue.md(render_markdown(report, {k: png_data_uri(v) for k, v in plots.items()})),
        "evaluation_json": MetadataValue.path(str(js)),
        "evaluation_md": MetadataValue.path(str(md_path)),
        **{f"plot_{k}": MetadataValue.path(v) for k, v in plots.items()},
        "chunk_sets": len({e["name"] for e in stored.entries}),
        "not_evaluated": MetadataValue.json(stored.missing),
        "not_runnable": MetadataValue.json(sorted(not_runnable)),
    })
