"""Group "evaluation": per chunk set retrieval scores, then the side-by-side report."""

from dagster import (AssetExecutionContext, AutomationCondition, DataVersion, MaterializeResult,
                     MetadataValue, asset)

from ..evaluation.report import build_report, render_markdown, write_report
from ..evaluation.retrieval import MODES, evaluate_retriever
from ..index.retrievers import load_retriever
from ..storage import read_json, stable_hash, write_json
from .indexes import bm25_index
from .partitions import chunk_set_partitions
from .resources import PipelineResource

EVALUATION_VERSION = "1"


@asset(
    group_name="evaluation",
    deps=[bm25_index],
    partitions_def=chunk_set_partitions,
    code_version=EVALUATION_VERSION,
    description="recall@k (k = 1..10), full coverage and characters delivered for one chunk set, per "
                "retriever, globally and filtered to the question's documents, overall and by question type.",
)
def retrieval_evaluation(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    config = pipeline.chunker_config(context.partition_key)
    ws = pipeline.workspace()
    corpus = pipeline.corpus()
    manifest = ws.chunks.manifest(config.version_name)
    if manifest is None:
        raise RuntimeError(f"chunk set {config.version_name} is missing: materialize chunk_sets first")
    base = {"name": config.name, "version": config.version_name, "strategy": config.strategy,
            "params": config.params, "header": config.header,
            **{k: manifest[k] for k in ("chunks", "mean_chars", "mean_tokens", "max_tokens",
                                        "over_limit_fraction", "duplication")}}
    entries = []
    if corpus.labelled:
        chunks = ws.chunks.read(config.version_name, columns=["chunk_id", "doc_id", "spans", "embedding_text"])
        for name in pipeline.retriever_names():
            retriever = load_retriever(name, ws.index_dir(config.version_name), chunks, pipeline.model())
            for mode in MODES:
                result = evaluate_retriever(retriever, chunks, corpus.passages, corpus.questions, mode)
                entries.append({**base, **result.summary()})
                r3 = result.summary()["curve"][2]["recall"]
                context.log.info(f"{config.name} {name} {mode}: recall@3 = {r3:.3f}")
    else:
        context.log.warning(f"corpus {corpus.name} has no labelled questions: nothing to score")
    payload = {"corpus": corpus.name, "labelled": corpus.labelled,
               "questions": 0 if corpus.questions is None else len(corpus.questions),
               "chunk_set": base, "entries": entries}
    path = write_json(ws.evaluation_dir(config.version_name) / "evaluation.json", payload)
    md = {f"recall@3 {e['retriever']}/{e['mode']}": round(e["curve"][2]["recall"] or 0, 4) for e in entries}
    return MaterializeResult(
        metadata={"version": config.version_name, "labelled": corpus.labelled, "path": MetadataValue.path(str(path)), **md},
        data_version=DataVersion(stable_hash(payload)),
    )


@asset(
    group_name="evaluation",
    deps=[retrieval_evaluation],
    automation_condition=AutomationCondition.eager(),
    description="Every declared chunk set side by side: evaluation.json and evaluation.md in the "
                "run output folder, the table shown here.",
)
def evaluation_report(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    ws = pipeline.workspace()
    corpus = pipeline.corpus()
    entries, missing = [], []
    for config in pipeline.chunker_configs():
        path = ws.evaluation_dir(config.version_name) / "evaluation.json"
        if not path.exists():
            missing.append(config.name)
            continue
        data = read_json(path)
        entries.extend(data["entries"] or [{**data["chunk_set"]}])
    if missing:
        context.log.warning(f"chunk sets not evaluated yet (materialize their partitions): {missing}")
    questions = 0 if corpus.questions is None else len(corpus.questions)
    report = build_report(corpus.name, questions, entries)
    js, md_path = write_report(report, ws.settings.out_dir)
    write_json(ws.root / "last_report.json", report)
    return MaterializeResult(metadata={
        "report": MetadataValue.md(render_markdown(report)),
        "evaluation_json": MetadataValue.path(str(js)),
        "evaluation_md": MetadataValue.path(str(md_path)),
        "chunk_sets": len({e["name"] for e in entries}),
        "not_evaluated": MetadataValue.json(missing),
    })
