"""The corpus's report from what its chunk sets' evaluations hold: every declared chunk set's
evaluation payload, the resolved gold, the optional answers and the point-in-time evaluation,
assembled into the report evaluation/report.py renders. Pure: builders/evaluation_report.py reads
what is stored and hands it here; the evaluation_report asset calls it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..index.registry import is_neutral
from .generated_report import side_by_side
from .out_of_fold import report_rows as out_of_fold_rows
from .report import build_report


@dataclass
class StoredEvaluations:
    """What the chunk sets' stored evaluations hold for the report."""

    entries: list[dict] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)   # declared chunk sets not evaluated yet
    excluded: dict | None = None
    resolution: dict | None = None
    enriched: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class GeneratedGoldEvaluations:
    """The generated gold's questions and passages, its report (``about``) and the chunk sets'
    evaluations on it."""

    questions: object   # DataFrame
    passages: object    # DataFrame
    about: dict
    stored: StoredEvaluations


def collect_evaluations(evaluations: Iterable[tuple[object, dict | None]]) -> StoredEvaluations:
    """The declared chunk sets' evaluations on one question set: (config, its evaluation
    payload, or None when it was not evaluated yet or is damaged)."""
    out = StoredEvaluations()
    for config, data in evaluations:
        if data is None:  # not evaluated yet, or damaged
            out.missing.append(config.name)
            continue
        out.entries.extend(data["entries"] or [{**data["chunk_set"]}])
        if data.get("enrichment"):  # retrieval with / without enrichment (evaluation/enrichment.py)
            out.enriched.append({"name": config.name, "version": config.version_name, **data["enrichment"]})
        out.excluded = out.excluded or data.get("excluded")
        out.resolution = out.resolution or data.get("gold_resolution")
    return out


def question_doc_types(corpus, questions=None) -> dict[str, str]:
    """question id -> the doc_type of its (first) document: the slices of the recommendation
    (``questions``: another question set's, default the corpus's)."""
    questions = corpus.questions if questions is None else questions
    if questions is None:
        return {}
    types = dict(zip(corpus.documents["doc_id"], corpus.documents["doc_type"]))
    out = {}
    for qid, doc_ids in zip(questions["question_id"], questions["doc_ids"]):
        docs = [d for d in (list(doc_ids) if doc_ids is not None else []) if d in types]
        if docs:
            out[qid] = str(types[docs[0]])
    return out


def gold_lengths(corpus, passages, questions=None) -> list[int]:
    """Characters of every gold passage the questions use (resolved ones)."""
    questions = corpus.questions if questions is None else questions
    if questions is None or passages is None:
        return []
    gold = {p for v in questions["gold_passages"] if v is not None for p in v}
    rows = passages[passages["passage_id"].isin(gold)]
    return [int(e) - int(s) for s, e in zip(rows["start"], rows["end"]) if s is not None and e is not None and e > s]


def answers_for_report(data: dict, configs) -> dict:
    """answers.json for the report: contexts shortened, and marked stale when a chunk set it
    compares has changed version (or is no longer declared) since."""
    current = {c.name: c.version_name for c in configs}
    data["stale"] = sorted({c["chunk_set"] for c in data.get("columns", [])
                            if current.get(c["chunk_set"]) != c["version"]})
    for q in data.get("questions", []):
        for cell in q.get("cells", []):
            cell["context"] = (cell.get("context") or "")[:400]
    return data


def corpus_report(corpus, configs, budgets, stored: StoredEvaluations, passages=None, answers: dict | None = None,
                  pit: dict | None = None, generated: GeneratedGoldEvaluations | None = None) -> dict:
    """The report of every declared chunk set side by side, with what else there is: the
    resolved gold ``passages``, the answers, the point-in-time evaluation, the generated gold."""
    questions = 0 if corpus.questions is None else len(corpus.questions)
    report = build_report(corpus.name, questions, stored.entries, stored.excluded, budgets,
                          question_doc_types(corpus), gold_lengths(corpus, passages))
    with_out_of_fold(report, stored.entries, corpus.questions)
    if stored.resolution is not None:  # pdf quotes resolved into the parsed text (evaluation/gold_resolution.py)
        report["gold_resolution"] = stored.resolution
    if stored.enriched:
        report["enrichment"] = stored.enriched
    if answers is not None:
        report["answers"] = answers_for_report(answers, configs)
    if pit is not None:
        report["point_in_time"] = {k: pit[k] for k in ("total", "correct", "accuracy", "unparsed")}
    return with_generated_gold(corpus, budgets, report, generated)


def with_out_of_fold(report: dict, entries: list[dict], questions) -> dict:
    """The Summary's out-of-fold check (evaluation/out_of_fold.py) of its best-vs-best at the
    recommendation budget, when the questions span enough documents for the folds."""
    if questions is None or not len(questions):
        return report
    qdocs = {q: list(d)[0] for q, d in zip(questions["question_id"], questions["doc_ids"])
             if d is not None and len(d)}
    budget = (report.get("summary") or {}).get("recommend_budget")
    if budget:
        report["summary"]["out_of_fold"] = out_of_fold_rows(entries, qdocs, budget, skip_retriever=is_neutral)
    return report


def with_generated_gold(corpus, budgets, report: dict, generated: GeneratedGoldEvaluations | None) -> dict:
    """The report with the generated gold's part (generated_report.py): the report itself when
    the corpus has no scored questions of its own, else a section beside it."""
    if generated is None or not generated.stored.entries:
        return report
    questions, passages, stored = generated.questions, generated.passages, generated.stored
    gen = build_report(corpus.name, len(questions), stored.entries, stored.excluded, budgets,
                       question_doc_types(corpus, questions), gold_lengths(corpus, passages, questions))
    with_out_of_fold(gen, stored.entries, questions)
    about = {k: v for k, v in generated.about.items() if k != "inputs"}
    if not any(e.get("curve") for e in report["chunk_sets"]):  # nothing of its own scored
        keep = {k: report[k] for k in ("point_in_time", "answers", "enrichment") if k in report}
        return {**gen, **keep, "gold": "generated", "generated_gold": {"about": about}}
    rb = (report.get("summary") or {}).get("recommend_budget") or gen["summary"]["recommend_budget"]
    report["generated_gold"] = {
        "about": about,
        "report": {"summary": gen["summary"],
                   "chunk_sets": [{"name": e["name"], "family": e.get("family")} for e in gen["chunk_sets"]]},
        "side_by_side": side_by_side(report["chunk_sets"], gen["chunk_sets"], rb)}
    return report
