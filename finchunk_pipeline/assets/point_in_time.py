"""Point-in-time questions answered from the XBRL facts as known at each question's as_of."""
from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from ..storage.files import write_json
from .resources import PipelineResource
from .xbrl import FactsStoreResource, xbrl_facts

PIT_FILE = "point_in_time.json"


@asset(
    group_name="xbrl",
    deps=[xbrl_facts],
    description="Answers the corpus's point_in_time questions (as_of set) from the DuckDB facts "
                "store, using only facts filed on or before as_of; exact-match accuracy.",
)
def point_in_time_evaluation(context: AssetExecutionContext, pipeline: PipelineResource,
                             facts_store: FactsStoreResource) -> MaterializeResult:
    from ..xbrl.answer import score_point_in_time

    corpus = pipeline.corpus()
    with facts_store.open() as store:  # names the entities from documents.parquet (a write)
        result = score_point_in_time(corpus.questions, store, corpus.documents)
    path = write_json(pipeline.workspace().root / PIT_FILE, {"corpus": corpus.name, **result})
    pipeline.push(path)
    wrong = [r for r in result["rows"] if not r["correct"]]
    for r in wrong[:20]:
        context.log.warning(f"{r['question_id']}: expected {r['expected']!r}, got {r['predicted']!r} ({r['error']})")
    preview = "\n".join(
        ["| question | as_of | expected | answered | filed | ok |", "|---|---|---|---|---|---|"]
        + [f"| {r['question_id']} | {r['as_of']} | {r['expected']} | {r['predicted']} | {r['filed_at']} | "
           f"{'yes' if r['correct'] else 'no'} |" for r in result["rows"][:25]])
    return MaterializeResult(metadata={
        "questions": result["total"],
        "correct": result["correct"],
        "accuracy": result["accuracy"] if result["accuracy"] is not None else float("nan"),
        "unparsed": result["unparsed"],
        "path": MetadataValue.path(str(path)),
        "answers": MetadataValue.md(preview),
    })
