"""Asset checks as gates, run per chunk-set partition.

Dagster 1.13 supports partitioned asset checks (``@asset_check(partitions_def=...)``, a
preview feature: see dagster/_core/definitions/decorators/asset_check_decorator.py and
asset_check_result.py, which scopes the target materialization and the evaluation to the
step's partition). With the same partitions definition as the asset, ``materialize([...],
partition_key=k)`` runs each check for partition k after the asset, and the UI shows check
results per partition. The checks are ``blocking``: an ERROR-severity failure on chunk_sets
stops the downstream index and evaluation steps of that run.

- chunk_sets: spans sound: every gold passage covered (>= 50%) by the union of its document's
  chunks; gold passages no single chunk can cover are reported alongside;
- chunk_sets: no over-limit chunks for token-packed policies (strategy "packed" / "fixed_tokens"
  or a ``budget`` parameter); other policies pass as "not applicable";
- retrieval_evaluation: recall@5 (every retriever/mode) has not dropped more than
  RECALL_TOLERANCE against the previous materialization of the same partition on the same
  corpus (read from the instance's materialization metadata, whose ``corpus`` entry names
  the corpus; the corpus's evaluations/history/<name>/ records are the fallback when the
  instance has no previous event, e.g. a fresh DAGSTER_HOME).
"""
import warnings

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetCheckSeverity,
    AssetRecordsFilter,
    MetadataValue,
    asset_check,
)

from ..builders.evaluation import scored_scope
from ..evaluation.coverage import coverage_fraction, merge_spans
from ..evaluation.gold_resolution import scorable as resolved_only
from ..storage.history import load_history
from ..types.chunks import spans_of
from .chunks import chunk_sets
from .evaluation import retrieval_evaluation
from .partitions import chunk_set_partitions
from .resources import PipelineResource

# partitioned asset checks are a preview feature in Dagster 1.13 (checked against the source)
warnings.filterwarnings("ignore", message="Specifying a partitions_def on an AssetCheckSpec")

COVERABLE_FRACTION = 0.5
RECALL_TOLERANCE = 0.05
TOKEN_PACKED_STRATEGIES = ("packed", "fixed_tokens")


def uncoverable_passages(chunks, passages, gold_ids) -> list[str]:
    """Gold passages no single chunk covers to COVERABLE_FRACTION of their characters
    (reported, not a failure: a passage longer than a size-bounded chunk can't be)."""
    by_doc: dict[str, list[list[tuple[int, int]]]] = {}
    for d, sp in zip(chunks["doc_id"], chunks["spans"]):
        by_doc.setdefault(d, []).append(merge_spans(spans_of(sp)))
    bad = []
    gold = passages[passages["passage_id"].isin(gold_ids)]
    for pid, d, s, e in zip(gold["passage_id"], gold["doc_id"], gold["start"], gold["end"]):
        if not any(coverage_fraction(int(s), int(e), m) >= COVERABLE_FRACTION for m in by_doc.get(d, [])):
            bad.append(pid)
    return bad


def unreachable_passages(chunks, passages, gold_ids) -> list[str]:
    """Gold passages that even the union of all chunks of their document does not cover to
    COVERABLE_FRACTION: text the chunk set lost, so no retriever can ever score them."""
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for d, sp in zip(chunks["doc_id"], chunks["spans"]):
        by_doc.setdefault(d, []).extend(spans_of(sp))
    merged = {d: merge_spans(v) for d, v in by_doc.items()}
    gold = passages[passages["passage_id"].isin(gold_ids)]
    return [pid for pid, d, s, e in zip(gold["passage_id"], gold["doc_id"], gold["start"], gold["end"])
            if coverage_fraction(int(s), int(e), merged.get(d, [])) < COVERABLE_FRACTION]


@asset_check(asset=chunk_sets, partitions_def=chunk_set_partitions, blocking=True,
             description="Spans are sound: the chunks of each document cover every gold passage "
                         "(>= 50% of its characters), so recall is reachable. Also reports how many "
                         "gold passages no single chunk can cover.")
def gold_passages_coverable(context: AssetCheckExecutionContext, pipeline: PipelineResource) -> AssetCheckResult:
    config = pipeline.chunker_config(context.partition_key)
    ws, corpus = pipeline.workspace(), pipeline.corpus()
    if not corpus.labelled:
        return AssetCheckResult(passed=True, metadata={"note": "corpus has no labelled questions"})
    pipeline.pull(ws.manifest_path, ws.gold_passages_path, ws.chunks.dir(config.chunks_version_name))
    # only documents that were chunked are judged: questions on rejected documents are left
    # out of scoring (evaluation/scope.py), so their passages cannot fail the gate; pdf quotes
    # the extraction could not place (unresolved) are reported, not a chunking failure
    passages, scope = scored_scope(ws, corpus.questions)
    gold_ids = {p for v in scope.questions["gold_passages"] if v is not None for p in v}
    unresolved = sorted(gold_ids - set(resolved_only(passages)["passage_id"]))
    passages = resolved_only(passages)
    chunks = ws.chunks.read(config.chunks_version_name, columns=["doc_id", "spans"])
    lost = unreachable_passages(chunks, passages, gold_ids)
    split = uncoverable_passages(chunks, passages, gold_ids)
    return AssetCheckResult(
        passed=not lost, severity=AssetCheckSeverity.ERROR,
        metadata={"gold_passages": len(gold_ids), "unreachable": len(lost),
                  "questions_on_rejected_documents": len(scope.excluded_ids),
                  "rejected_documents": MetadataValue.json(scope.missing_documents),
                  "uncoverable": len(split),  # no single chunk covers >= 50% of them
                  "unresolved_quotes": len(unresolved),  # pdf page + quote not found in our text
                  "unresolved_examples": MetadataValue.json(unresolved[:20]),
                  "unreachable_examples": MetadataValue.json(sorted(lost)[:20]),
                  "uncoverable_examples": MetadataValue.json(sorted(split)[:20])},
        description=None if not lost else f"{len(lost)} gold passages not covered by the chunk set at all")


def token_packed(config) -> bool:
    return config.strategy in TOKEN_PACKED_STRATEGIES or config.params.get("budget") is not None


@asset_check(asset=chunk_sets, partitions_def=chunk_set_partitions, blocking=True,
             description="Token-packed policies (strategy packed / fixed_tokens, or a budget parameter) "
                         "produce no chunk over the token limit.")
def no_over_limit_chunks(context: AssetCheckExecutionContext, pipeline: PipelineResource) -> AssetCheckResult:
    config = pipeline.chunker_config(context.partition_key)
    ws = pipeline.workspace()
    pipeline.pull(ws.chunks.dir(config.chunks_version_name))
    chunks = ws.chunks.read(config.chunks_version_name, columns=["chunk_id", "over_limit", "n_tokens"])
    over = chunks[chunks["over_limit"]]
    if not token_packed(config):
        return AssetCheckResult(passed=True, metadata={"applicable": False, "over_limit": len(over)})
    return AssetCheckResult(
        passed=len(over) == 0, severity=AssetCheckSeverity.ERROR,
        metadata={"applicable": True, "over_limit": len(over), "chunks": len(chunks),
                  "max_tokens": int(chunks["n_tokens"].max()) if len(chunks) else 0,
                  "examples": MetadataValue.json(over["chunk_id"].head(20).tolist())})


def _recall_metadata(metadata: dict) -> dict[str, float]:
    out = {}
    for key, value in metadata.items():
        if key.startswith("recall@5 "):
            out[key[len("recall@5 "):]] = float(getattr(value, "value", value))
    return out


def recall_drops(previous: dict[str, float], current: dict[str, float], tolerance: float = RECALL_TOLERANCE) -> dict:
    return {k: {"previous": previous[k], "current": v, "drop": round(previous[k] - v, 4)}
            for k, v in current.items()
            if k in previous and previous[k] is not None and v is not None and previous[k] - v > tolerance}


def _materializations_of_corpus(instance, partition: str, corpus: str, wanted: int = 2,
                                max_records: int = 1000) -> list:
    """The newest ``wanted`` materializations of this partition made on ``corpus`` (the
    ``corpus`` metadata of retrieval_evaluation), newest first: a chunk-set name evaluated
    on another corpus is never compared with this one."""
    found, cursor, seen = [], None, 0
    while len(found) < wanted and seen < max_records:
        result = instance.fetch_materializations(
            AssetRecordsFilter(asset_key=retrieval_evaluation.key, asset_partitions=[partition]),
            limit=50, cursor=cursor)
        for record in result.records:
            seen += 1
            value = record.asset_materialization.metadata.get("corpus")
            if getattr(value, "value", value) == corpus:
                found.append(record)
                if len(found) == wanted:
                    break
        if not result.has_more:
            break
        cursor = result.cursor
    return found


@asset_check(asset=retrieval_evaluation, partitions_def=chunk_set_partitions,
             description=f"recall@5 of this chunk set (each retriever / mode) has not dropped more than "
                         f"{RECALL_TOLERANCE} against its previous materialization on the same corpus.")
def recall_not_regressed(context: AssetCheckExecutionContext, pipeline: PipelineResource) -> AssetCheckResult:
    key = context.partition_key
    ws = pipeline.workspace()
    corpus = ws.root.name  # the corpus key: name + path hash
    records = _materializations_of_corpus(context.instance, key, corpus)
    current = _recall_metadata(records[0].asset_materialization.metadata) if records else {}
    previous, source, problems = None, "instance", []
    if len(records) > 1:
        previous = _recall_metadata(records[1].asset_materialization.metadata)
    else:
        # the history file lives under this corpus's folder of the data root
        pipeline.pull(ws.root / "evaluations" / "history")
        history, problems = load_history(ws.root / "evaluations", key)
        for p in problems:
            context.log.warning(f"recall history: {p}")
        if len(history) > 1:
            previous, source = history[-2]["recall@5"], "history file"
            if not current:
                current = history[-1]["recall@5"]
    extra = {"corpus": corpus}
    if problems:
        extra["history_problems"] = MetadataValue.json(problems[:20])
    if not previous:
        return AssetCheckResult(passed=True, metadata={"note": "no previous materialization on this corpus: "
                                                               "baseline recorded",
                                                       "current": MetadataValue.json(current), **extra})
    drops = recall_drops(previous, current)
    return AssetCheckResult(
        passed=not drops, severity=AssetCheckSeverity.WARN,
        metadata={"tolerance": RECALL_TOLERANCE, "source": source, "previous": MetadataValue.json(previous),
                  "current": MetadataValue.json(current), "drops": MetadataValue.json(drops), **extra})


ASSET_CHECKS = [gold_passages_coverable, no_over_limit_chunks, recall_not_regressed]
