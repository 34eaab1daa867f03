"""The corpus's report from what is stored: every declared chunk set's evaluation.json, the
resolved gold, the optional answers and the point-in-time evaluation, assembled into the
report evaluation/report.py renders (plain functions; the evaluation_report asset calls them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..storage import read_json
from .chunk_set import gold_passages
from .report import build_report

ANSWERS_FILE = Path("answers") / "answers.json"  # the optional answers asset's output, under the corpus root


@dataclass
class StoredEvaluations:
    """What the chunk sets' stored evaluations hold for the report."""

    entries: list[dict] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)   # declared chunk sets not evaluated yet
    excluded: dict | None = None
    resolution: dict | None = None
    enriched: list[dict] = field(default_factory=list)


def stored_evaluations(ws, configs) -> StoredEvaluations:
    out = StoredEvaluations()
    for config in configs:
        path = ws.evaluation_dir(config.version_name) / "evaluation.json"
        if not path.exists():
            out.missing.append(config.name)
            continue
        data = read_json(path)
        out.entries.extend(data["entries"] or [{**data["chunk_set"]}])
        if data.get("enrichment"):  # retrieval with / without enrichment (evaluation/enrichment.py)
            out.enriched.append({"name": config.name, "version": config.version_name, **data["enrichment"]})
        out.excluded = out.excluded or data.get("excluded")
        out.resolution = out.resolution or data.get("gold_resolution")
    return out


def question_doc_types(corpus) -> dict[str, str]:
    """question id -> the doc_type of its (first) document: the slices of the recommendation."""
    if corpus.questions is None:
        return {}
    types = dict(zip(corpus.documents["doc_id"], corpus.documents["doc_type"]))
    out = {}
    for qid, doc_ids in zip(corpus.questions["question_id"], corpus.questions["doc_ids"]):
        docs = [d for d in (list(doc_ids) if doc_ids is not None else []) if d in types]
        if docs:
            out[qid] = str(types[docs[0]])
    return out


def gold_lengths(corpus, passages) -> list[int]:
    """Characters of every gold passage the questions use (resolved ones)."""
    if corpus.questions is None or passages is None:
        return []
    gold = {p for v in corpus.questions["gold_passages"] if v is not None for p in v}
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


def corpus_report(ws, corpus, configs, budgets, stored: StoredEvaluations, pit_path: Path | None = None) -> dict:
    """The report of every declared chunk set side by side, with what else is stored."""
    questions = 0 if corpus.questions is None else len(corpus.questions)
    report = build_report(corpus.name, questions, stored.entries, stored.excluded, budgets,
                          question_doc_types(corpus), gold_lengths(corpus, gold_passages(ws)))
    if stored.resolution is not None:  # pdf quotes resolved into the parsed text (evaluation/gold_resolution.py)
        report["gold_resolution"] = stored.resolution
    if stored.enriched:
        report["enrichment"] = stored.enriched
    answers_file = ws.root / ANSWERS_FILE
    if answers_file.exists():
        report["answers"] = answers_for_report(read_json(answers_file), configs)
    if pit_path is not None and pit_path.exists():
        pit = read_json(pit_path)
        report["point_in_time"] = {k: pit[k] for k in ("total", "correct", "accuracy", "unparsed")}
    return report
