"""Load a corpus folder and validate it against the corpus format.

Two kinds of problems:
- the corpus is broken (missing file or column, duplicate ids, a passage outside its
  document, overlapping passages, a question naming an unknown passage): ``CorpusError``,
  whose message names the file, the row and the problem;
- one document is unusable (empty, binary, unknown doc_type or format, a ``path`` that is
  missing or leaves the corpus folder, a pdf that is not a PDF): the corpus loads, and the
  problem is recorded in ``Corpus.document_problems`` so that stage can skip that document
  with a clear error while the rest of the run goes on.

A document is its ``text`` or, when ``text`` is null, the file at ``path`` (relative to the
corpus folder; required for format pdf). ``document_bytes`` reads either.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..parse.content import binary_problem
from ..parse.registry import binary_formats, formats
from . import schema


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


def _null(v) -> bool:
    return v is None or (isinstance(v, float) and pd.isna(v)) or v is pd.NA


def document_file(root: Path, path: str) -> tuple[Path | None, str | None]:
    """The file a document's ``path`` names, or the reason it is not usable: it must be
    relative, stay inside the corpus folder and exist."""
    if not isinstance(path, str) or not path.strip():
        return None, f"path is empty or not a string ({path!r})"
    rel = Path(path)
    if rel.is_absolute() or path.startswith(("/", "\\")):
        return None, f"path {path!r} must be relative to the corpus folder"
    base = Path(root).resolve()
    full = (base / rel).resolve()
    if full != base and base not in full.parents:
        return None, f"path {path!r} leaves the corpus folder {str(base)!r}"
    if not full.is_file():
        return None, f"file {path!r} not found in the corpus folder {str(base)!r}"
    return full, None


def _file_problem(root: Path, row) -> str | None:
    fmt, path = row.get("format"), row.get("path")
    if not _null(row.get("text")) and fmt in binary_formats():
        return f"format {fmt} is given as a file in 'path' (relative to the corpus folder); text must be null"
    if _null(path):
        if fmt in binary_formats():
            return f"format {fmt} needs 'path': the file, relative to the corpus folder"
        return "text is null (and no path)"
    full, why = document_file(root, path)
    if why:
        return why
    if fmt in binary_formats():
        with open(full, "rb") as fh:
            head = fh.read(1024)
        if b"%PDF-" not in head:
            return f"file {path!r} is not a PDF (starts with {head[:8]!r})"
        return None
    try:
        text = full.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"file {path!r} is not UTF-8 text ({exc})"
    if not text.strip():
        return f"file {path!r} is empty"
    return binary_problem(text)


def document_bytes(root: Path, row) -> bytes:
    """The document exactly as stored: its text (UTF-8) or its file's bytes."""
    if not _null(row.get("text")):
        return row["text"].encode("utf-8")
    full, why = document_file(root, row.get("path"))
    if why:
        raise ValueError(f"document {row.get('doc_id')!r}: {why}")
    return full.read_bytes()


def document_problem(row, root: Path | None = None) -> str | None:
    """The reason one document cannot be processed, or None. ``root``: the corpus folder
    (needed for documents given by ``path``)."""
    text = row.get("text")
    if _null(text) or row.get("format") in binary_formats():
        if root is None and not _null(row.get("path")):
            return "document given by path, but no corpus folder to resolve it in"
        why = _file_problem(root, row) if root is not None else "text is null"
        if why:
            return why
    else:
        if not isinstance(text, str):
            return f"text is {type(text).__name__}, not a string"
        if not text.strip():
            return "text is empty"
        binary = binary_problem(text)
        if binary:
            return binary
    if row.get("doc_type") not in schema.DOC_TYPES:
        return f"unknown doc_type {row.get('doc_type')!r} (expected one of {sorted(schema.DOC_TYPES)})"
    if row.get("format") not in formats():
        return f"unknown format {row.get('format')!r} (expected one of {sorted(formats())})"
    return None


def load_corpus(path: str | Path) -> Corpus:
    """Read and validate a corpus folder: every problem found is reported at once (a
    ``CorpusError`` listing them), except that a table missing required columns stops there.
    A document that cannot be used (``document_problem``) is recorded, not an error."""
    path = Path(path)
    if not path.is_dir():
        raise CorpusError([f"{path}: not a folder"])
    docs_file = path / "documents.parquet"
    if not docs_file.exists():
        raise CorpusError([f"{docs_file}: required file missing"])
    docs = _read_documents(docs_file)
    problems = _doc_id_problems(docs["doc_id"], docs)
    doc_problems: dict[str, str] = {}
    for row in docs.to_dict("records"):
        why = document_problem(row, path)
        if why and isinstance(row["doc_id"], str):
            doc_problems[row["doc_id"]] = why
    passages = _read_optional(path / "passages.parquet", schema.PASSAGES.names, schema.PASSAGES_OPTIONAL.names,
                              problems)
    if passages is not None:
        problems += _validate_passages(passages, docs, path, doc_problems)
    questions = _read_optional(path / "questions.parquet", schema.QUESTIONS_REQUIRED, ("answer", "as_of"), problems)
    if questions is not None:
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


def _read_documents(docs_file: Path) -> pd.DataFrame:
    """documents.parquet with every schema column (missing optional ones as None); missing
    required columns raise."""
    docs_table = _read(docs_file)
    problems = _missing_columns(docs_table, schema.DOCUMENTS_REQUIRED, "documents.parquet")
    if "text" not in docs_table.column_names and "path" not in docs_table.column_names:
        problems.append("documents.parquet: missing required column 'text' (or 'path', the files)")
    if problems:
        raise CorpusError(problems)
    docs = docs_table.to_pandas()
    for col in (*schema.DOCUMENTS.names, *schema.DOCUMENTS_OPTIONAL.names):
        if col not in docs.columns:
            docs[col] = None
    return docs


def _doc_id_problems(ids: pd.Series, docs: pd.DataFrame) -> list[str]:
    """Empty, non-string and duplicate doc_ids."""
    problems = []
    for i, doc_id in enumerate(ids):
        if not isinstance(doc_id, str) or not doc_id:
            problems.append(f"documents.parquet row {i}: doc_id is empty or not a string ({doc_id!r})")
    for doc_id in ids[ids.duplicated()].unique():
        rows = list(docs.index[ids == doc_id])
        problems.append(f"documents.parquet rows {rows}: duplicate doc_id {doc_id!r}")
    return problems


def _read_optional(file: Path, required, optional, problems: list[str]) -> pd.DataFrame | None:
    """An optional table (None when absent) with its optional columns added as None; missing
    required columns raise, with the problems found so far."""
    if not file.exists():
        return None
    table = _read(file)
    missing = _missing_columns(table, required, file.name)
    if missing:
        raise CorpusError(problems + missing)
    frame = table.to_pandas()
    for col in optional:
        if col not in frame.columns:
            frame[col] = None
    return frame


def _lengths(docs: pd.DataFrame, root: Path, doc_problems: dict[str, str]) -> dict[str, int | None]:
    """Characters of each document's text (None for pdf: no text offsets; -1 for a
    document given by a path that is unusable: its passages are not checked, the document
    is reported in document_problems and its questions are left out of scoring)."""
    out: dict[str, int | None] = {}
    for rec in docs.to_dict("records"):
        d = rec["doc_id"]
        if rec.get("format") in binary_formats():
            out[d] = None
        elif isinstance(rec.get("text"), str):
            out[d] = len(rec["text"])
        elif d in doc_problems:
            out[d] = -1 if not _null(rec.get("path")) else 0
        else:  # given by path: the file's text
            out[d] = len(document_bytes(root, rec).decode("utf-8"))
    return out


def _validate_passages(passages: pd.DataFrame, docs: pd.DataFrame, root: Path,
                       doc_problems: dict[str, str]) -> list[str]:
    problems: list[str] = []
    lengths = _lengths(docs, root, doc_problems)
    pid = passages["passage_id"]
    for p in pid[pid.duplicated()].unique():
        problems.append(f"passages.parquet: duplicate passage_id {p!r}")
    spanned = []
    for i, row in enumerate(passages.itertuples(index=False)):
        where = f"passages.parquet row {i} (passage_id={row.passage_id!r})"
        if row.doc_id not in lengths:
            problems.append(f"{where}: unknown doc_id {row.doc_id!r}")
            continue
        if row.kind not in schema.PASSAGE_KINDS:
            problems.append(f"{where}: unknown kind {row.kind!r}")
        if lengths[row.doc_id] is None:  # pdf: page + quote, resolved after parsing
            if not (_null(row.start) and _null(row.end)):
                problems.append(f"{where}: a passage of pdf document {row.doc_id!r} gives page + quote, "
                                f"not start/end ({row.start!r}, {row.end!r})")
            try:
                page = int(row.page)
            except (TypeError, ValueError):
                problems.append(f"{where}: pdf passage needs a page number (got {row.page!r})")
                continue
            if page < 1:
                problems.append(f"{where}: page {page} is not a 1-based page number")
            if not isinstance(row.quote, str) or not row.quote.strip():
                problems.append(f"{where}: pdf passage needs a non-empty quote")
            continue
        if lengths[row.doc_id] == -1:
            continue
        try:
            start, end = int(row.start), int(row.end)
        except (TypeError, ValueError):
            problems.append(f"{where}: start/end not integers ({row.start!r}, {row.end!r})")
            continue
        if not 0 <= start < end <= lengths[row.doc_id]:
            problems.append(
                f"{where}: span [{start}, {end}) outside document of length {lengths[row.doc_id]}"
            )
        spanned.append((row.doc_id, start, end, row.passage_id))
    if not problems:
        prev_doc, prev_end, prev_id = None, -1, None
        for doc_id, start, end, passage_id in sorted(spanned):
            if doc_id == prev_doc and start < prev_end:
                problems.append(
                    f"passages.parquet: passages {prev_id!r} and {passage_id!r} of {doc_id!r} overlap"
                )
            if doc_id != prev_doc or end > prev_end:
                prev_end = end
            prev_doc, prev_id = doc_id, passage_id
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
