"""Load a corpus folder and validate it against the corpus format.

Two kinds of problems:
- the corpus is broken (missing file or column, duplicate ids, a passage outside its
  document, overlapping passages, a question naming an unknown passage): ``CorpusError``,
  whose message names the file, the row and the problem;
- one document is unusable (empty, binary, unknown doc_type or format): the corpus loads,
  and the problem is recorded in ``Corpus.document_problems`` so that stage can skip that
  document with a clear error while the rest of the run goes on.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import schema
from .content import binary_problem


class CorpusError(ValueError):
    """A corpus folder that does not follow the corpus format."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = "\n  ".join(problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"invalid corpus ({len(problems)} problem(s)):\n  {shown}{more}")


@dataclass
class Corpus:
    path: Path
    documents: pd.DataFrame
    passages: pd.DataFrame | None = None
    questions: pd.DataFrame | None = None
    xbrl_facts_path: Path | None = None
    document_problems: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def labelled(self) -> bool:
        return self.questions is not None and len(self.questions) > 0 and self.passages is not None


def _read(path: Path) -> pa.Table:
    try:
        return pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for broken files
        raise CorpusError([f"{path.name}: not a readable Parquet file ({exc.__class__.__name__}: {exc})"]) from exc


def _missing_columns(table: pa.Table, required, fname: str) -> list[str]:
    return [f"{fname}: missing required column {c!r}" for c in required if c not in table.column_names]


def document_problem(row) -> str | None:
    """The reason one document cannot be processed, or None."""
    text = row.get("text")
    if text is None or (isinstance(text, float) and pd.isna(text)):
        return "text is null"
    if not isinstance(text, str):
        return f"text is {type(text).__name__}, not a string"
    if not text.strip():
        return "text is empty"
    binary = binary_problem(text)
    if binary:
        return binary
    if row.get("doc_type") not in schema.DOC_TYPES:
        return f"unknown doc_type {row.get('doc_type')!r} (expected one of {sorted(schema.DOC_TYPES)})"
    if row.get("format") not in schema.FORMATS:
        return f"unknown format {row.get('format')!r} (expected one of {sorted(schema.FORMATS)})"
    return None


def load_corpus(path: str | Path) -> Corpus:
    path = Path(path)
    if not path.is_dir():
        raise CorpusError([f"{path}: not a folder"])
    docs_file = path / "documents.parquet"
    if not docs_file.exists():
        raise CorpusError([f"{docs_file}: required file missing"])

    problems: list[str] = []
    docs_table = _read(docs_file)
    problems += _missing_columns(docs_table, schema.DOCUMENTS_REQUIRED, "documents.parquet")
    if problems:
        raise CorpusError(problems)
    docs = docs_table.to_pandas()
    for col in schema.DOCUMENTS.names:
        if col not in docs.columns:
            docs[col] = None

    ids = docs["doc_id"]
    for i, doc_id in enumerate(ids):
        if not isinstance(doc_id, str) or not doc_id:
            problems.append(f"documents.parquet row {i}: doc_id is empty or not a string ({doc_id!r})")
    for doc_id in ids[ids.duplicated()].unique():
        rows = list(docs.index[ids == doc_id])
        problems.append(f"documents.parquet rows {rows}: duplicate doc_id {doc_id!r}")

    doc_problems: dict[str, str] = {}
    for i, row in enumerate(docs.to_dict("records")):
        why = document_problem(row)
        if why and isinstance(row["doc_id"], str):
            doc_problems[row["doc_id"]] = why

    passages = questions = None
    pass_file = path / "passages.parquet"
    if pass_file.exists():
        table = _read(pass_file)
        missing = _missing_columns(table, schema.PASSAGES.names, "passages.parquet")
        if missing:
            raise CorpusError(problems + missing)
        passages = table.to_pandas()
        problems += _validate_passages(passages, docs)

    q_file = path / "questions.parquet"
    if q_file.exists():
        table = _read(q_file)
        missing = _missing_columns(table, schema.QUESTIONS_REQUIRED, "questions.parquet")
        if missing:
            raise CorpusError(problems + missing)
        questions = table.to_pandas()
        for col in ("answer", "as_of"):
            if col not in questions.columns:
                questions[col] = None
        problems += _validate_questions(questions, docs, passages)

    if problems:
        raise CorpusError(problems)

    xbrl = path / "xbrl_facts.parquet"
    return Corpus(
        path=path.resolve(),
        documents=docs.reset_index(drop=True),
        passages=passages,
        questions=questions,
        xbrl_facts_path=xbrl if xbrl.exists() else None,
        document_problems=doc_problems,
    )


def _validate_passages(passages: pd.DataFrame, docs: pd.DataFrame) -> list[str]:
    problems: list[str] = []
    lengths = {d: len(t) if isinstance(t, str) else 0 for d, t in zip(docs["doc_id"], docs["text"])}
    pid = passages["passage_id"]
    for p in pid[pid.duplicated()].unique():
        problems.append(f"passages.parquet: duplicate passage_id {p!r}")
    for i, row in enumerate(passages.itertuples(index=False)):
        where = f"passages.parquet row {i} (passage_id={row.passage_id!r})"
        if row.doc_id not in lengths:
            problems.append(f"{where}: unknown doc_id {row.doc_id!r}")
            continue
        if row.kind not in schema.PASSAGE_KINDS:
            problems.append(f"{where}: unknown kind {row.kind!r}")
        try:
            start, end = int(row.start), int(row.end)
        except (TypeError, ValueError):
            problems.append(f"{where}: start/end not integers ({row.start!r}, {row.end!r})")
            continue
        if not 0 <= start < end <= lengths[row.doc_id]:
            problems.append(
                f"{where}: span [{start}, {end}) outside document of length {lengths[row.doc_id]}"
            )
    if not problems:
        ordered = passages.sort_values(["doc_id", "start"])
        prev_doc, prev_end, prev_id = None, -1, None
        for row in ordered.itertuples(index=False):
            if row.doc_id == prev_doc and row.start < prev_end:
                problems.append(
                    f"passages.parquet: passages {prev_id!r} and {row.passage_id!r} of {row.doc_id!r} overlap"
                )
            if row.doc_id != prev_doc or row.end > prev_end:
                prev_end = row.end
            prev_doc, prev_id = row.doc_id, row.passage_id
    return problems


def _validate_questions(questions: pd.DataFrame, docs: pd.DataFrame, passages: pd.DataFrame | None) -> list[str]:
    problems: list[str] = []
    known_docs = set(docs["doc_id"])
    known_passages = set(passages["passage_id"]) if passages is not None else set()
    qid = questions["question_id"]
    for q in qid[qid.duplicated()].unique():
        problems.append(f"questions.parquet: duplicate question_id {q!r}")
    for i, row in enumerate(questions.itertuples(index=False)):
        where = f"questions.parquet row {i} (question_id={row.question_id!r})"
        if not isinstance(row.question, str) or not row.question.strip():
            problems.append(f"{where}: empty question")
        doc_ids = list(row.doc_ids) if row.doc_ids is not None else []
        for d in doc_ids:
            if d not in known_docs:
                problems.append(f"{where}: unknown doc_id {d!r}")
        gold = list(row.gold_passages) if row.gold_passages is not None else []
        for p in gold:
            if p not in known_passages:
                problems.append(f"{where}: unknown gold passage {p!r}")
        if not gold and row.question_type != "unanswerable":
            problems.append(f"{where}: no gold passages but question_type is {row.question_type!r}")
    return problems
