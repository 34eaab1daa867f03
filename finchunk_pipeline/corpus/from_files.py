"""A corpus folder from a folder of files: ``finchunk corpus from-files DIR --out CORPUS``.

Each file (PDF, HTML, Markdown or plain text; other files are listed as skipped) is copied
to ``CORPUS/files/`` and becomes one row of documents.parquet with ``path`` set. A folder is
its own files: symbolic links (to a file or a folder, inside the folder or out of it) are
not followed but listed as skipped with what they point to, unless ``follow_links``
(``--follow-links``) says to read them; a link that points nowhere, or to a folder already
read (a cycle), is skipped either way. Its format
is decided by content, not by name: the ``%PDF-`` signature, HTML markup, Markdown headings /
tables / emphasis, else text (binary content is skipped). Metadata, first found wins:

1. the ``--metadata`` CSV (column ``file``: the file name relative to DIR; any documents
   column: doc_id, title, doc_type, issuer, ticker, fiscal_year, period_end, filed_at,
   language, source_uri);
2. the file itself (corpus/filing_metadata.py): inline-XBRL ``dei:`` facts of an HTML filing (registrant, document type,
   fiscal year, period end, ticker); a PDF's document information (Title, Author) and its
   first page (``FORM 10-K``, "for the fiscal year ended ...", the line above "(Exact name
   of registrant ...)"); the first heading / line of Markdown and text;
3. the file name (``ACME_2023_10K.pdf``: fiscal year 2023, doc_type 10-K, issuer ACME).

``--questions`` CSV: question_id, question, file (or doc_id; several separated by ";"),
optional question_type, answer, and the evidence: ``quote`` with ``page`` for a PDF (a
page + quote passage, resolved after parsing) or ``quote`` alone for a text document (found
in its text ignoring case, whitespace and punctuation). A question without evidence is
skipped with a note unless its question_type is ``unanswerable``.
"""
from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pyarrow as pa

from ..parse.content import binary_problem, signature_of
from ..storage.files import write_bytes, write_parquet
from . import schema
from .filing_metadata import filename_metadata, html_metadata, parse_date, pdf_metadata, text_metadata

FORMAT_EXT = {"pdf": ".pdf", "html": ".html", "markdown": ".md", "text": ".txt"}
_MD = re.compile(r"^(?:#{1,6}\s+\S|\|.*\|\s*$|\s*[-*+]\s+\S|\*\*\S)", re.M)
_HTML = re.compile(r"<(?:!doctype\s+html|html|body|div|p|table|span|h[1-6])\b", re.I)


class FromFilesError(ValueError):
    pass


def detect_format(data: bytes) -> tuple[str | None, str | None]:
    """(format, None) or (None, why the file is not a document we read)."""
    if b"%PDF-" in data[:1024]:
        return "pdf", None
    what = signature_of(data[:16].decode("latin-1"))
    if what:
        return None, f"content is {what}"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            return None, "neither a PDF nor UTF-8 / cp1252 text"
    why = binary_problem(text)
    if why:
        return None, why
    if not text.strip():
        return None, "empty"
    head = text[:20000]
    if _HTML.search(head) and head.count("<") >= 3:
        return "html", None
    if len(_MD.findall(head)) >= 2:
        return "markdown", None
    return "text", None


def _doc_type(value) -> str:
    v = str(value or "").strip()
    if v in schema.DOC_TYPES:
        return v
    upper = v.upper().replace(" ", "")
    return upper if upper in schema.DOC_TYPES else "other"


@dataclass
class FromFilesResult:
    documents: int
    questions: int = 0
    passages: int = 0
    skipped: dict[str, str] = field(default_factory=dict)   # file -> why
    notes: list[str] = field(default_factory=list)


def _read_csv(path: str | Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return [{k.strip(): (v.strip() if isinstance(v, str) else v) for k, v in row.items() if k}
                for row in csv.DictReader(fh)]


def _slug(stem: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("_.") or "document"
    name, k = base, 2
    while name in taken:
        name, k = f"{base}-{k}", k + 1
    taken.add(name)
    return name


def build_corpus(src: str | Path, out: str | Path, metadata_csv: str | Path | None = None,
                 questions_csv: str | Path | None = None, follow_links: bool = False) -> FromFilesResult:
    """Every readable file under ``src`` becomes a document of a corpus folder ``out``: its
    format detected, its metadata read from the file name and the file (overridden by the
    metadata CSV), its bytes stored under ``files/``; then the questions CSV, if given.
    Symbolic links are followed only with ``follow_links``."""
    src, out = Path(src), Path(out)
    if not src.is_dir():
        raise FromFilesError(f"{src}: not a folder")
    if out.resolve() == src.resolve() or src.resolve() in out.resolve().parents:
        raise FromFilesError(f"--out {out} must not be inside the source folder {src}")
    meta_rows = _metadata_rows(metadata_csv) if metadata_csv else {}
    result = FromFilesResult(0)
    docs, taken = [], set()
    texts: dict[str, str] = {}
    by_file: dict[str, str] = {}
    for f in _source_files(src, follow_links, result.skipped):
        rel = f.relative_to(src).as_posix()
        data = f.read_bytes()
        fmt, why = detect_format(data)
        if fmt is None:
            result.skipped[rel] = why
            continue
        found, name_title, data = _found_metadata(f, rel, fmt, data, result)
        row = _document_row(f, fmt, found, name_title, meta_rows.get(rel, {}), taken)
        taken.add(row["doc_id"])
        row["path"] = _stored_name(f.stem, fmt, docs)
        write_bytes(out / row["path"], data)
        docs.append(row)
        by_file[rel] = row["doc_id"]
        if fmt != "pdf":
            texts[row["doc_id"]] = data.decode("utf-8")
    if not docs:
        raise FromFilesError(f"{src}: no PDF, HTML, Markdown or text files found "
                             f"({len(result.skipped)} skipped: {dict(list(result.skipped.items())[:5])})")
    doc_schema = schema.DOCUMENTS.append(schema.DOCUMENTS_OPTIONAL.field("path"))
    write_parquet(out / "documents.parquet", pa.Table.from_pylist(docs, schema=doc_schema))
    result.documents = len(docs)
    if questions_csv:
        _questions(questions_csv, out, docs, by_file, texts, result)
    return result


def _metadata_rows(metadata_csv: str | Path) -> dict[str, dict]:
    """The metadata CSV's rows by their ``file`` (relative to the source folder)."""
    meta_rows = {}
    for i, row in enumerate(_read_csv(metadata_csv)):
        if not row.get("file"):
            raise FromFilesError(f"{metadata_csv} row {i + 1}: column 'file' is empty")
        meta_rows[row["file"]] = row
    return meta_rows


def _source_files(src: Path, follow_links: bool, skipped: dict[str, str]) -> list[Path]:
    """The files under ``src`` in name order; hidden files and folders are not documents
    (e.g. finchunk fetch's .http-cache). A symbolic link is followed only with
    ``follow_links``; each one not followed goes to ``skipped`` saying where it points."""
    root = src.resolve()
    files: list[Path] = []
    for folder, dirs, names in os.walk(src, followlinks=follow_links):
        here = Path(folder)
        for d in list(dirs):
            path = here / d
            why = None
            if d.startswith("."):
                dirs.remove(d)
                continue
            if path.is_symlink():
                why = _link_problem(path, root, follow_links, is_dir=True)
                if why is None and path.resolve() in _real_folders_above(path, src):
                    why = (f"symbolic link to the folder {_shown(path.resolve(), root)}, which holds "
                           "the link (a cycle): not followed")
            if why is not None:
                skipped[path.relative_to(src).as_posix()] = why
                dirs.remove(d)
        for name in names:
            path = here / name
            if name.startswith("."):
                continue
            if path.is_symlink():
                why = _link_problem(path, root, follow_links, is_dir=False)
                if why is not None:
                    skipped[path.relative_to(src).as_posix()] = why
                    continue
            if path.is_file():
                files.append(path)
    return sorted(files)


def _link_problem(path: Path, root: Path, follow_links: bool, is_dir: bool) -> str | None:
    """Why the symbolic link ``path`` is not followed, or None when it is."""
    target = Path(os.readlink(path))
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):  # nothing there, or links in a loop
        return f"symbolic link to {target}, which does not exist"
    if follow_links:
        return None
    what = "the folder " if is_dir else ""
    where = "inside the folder" if _is_within(root, real) else "outside the folder"
    return (f"symbolic link to {what}{_shown(real, root)} ({where}): not followed "
            "(--follow-links reads links)")


def _is_within(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


def _real_folders_above(path: Path, src: Path) -> set[Path]:
    """The real folders from ``src`` down to the one holding ``path`` (a link to one of them
    is a cycle)."""
    out, p = set(), path.parent
    while True:
        out.add(p.resolve())
        if p == src or p == p.parent:
            return out
        p = p.parent


def _shown(real: Path, root: Path) -> str:
    return real.relative_to(root).as_posix() if _is_within(root, real) and real != root else str(real)


def _found_metadata(f: Path, rel: str, fmt: str, data: bytes,
                    result: FromFilesResult) -> tuple[dict, str | None, bytes]:
    """(metadata read from the file name and the file, the title the file name alone gave,
    the bytes to store: cp1252 text is stored as UTF-8)."""
    found = filename_metadata(f.stem)
    name_title = found["title"]
    if fmt != "pdf":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:  # cp1252 text: stored as UTF-8, the encoding documents use
            text = data.decode("cp1252")
            data = text.encode("utf-8")
            result.notes.append(f"{rel}: read as cp1252, stored as UTF-8")
        found.update(html_metadata(text) if fmt == "html" else text_metadata(text[:6000]))
        if fmt != "html":
            first = next((ln.strip("#* ").strip() for ln in text.splitlines() if ln.strip()), "")
            if first and len(first) <= 120:
                found["title"] = first
    else:
        try:
            found.update(pdf_metadata(data, rel))
        except ValueError as exc:  # PDFium cannot open it: still a document, the parser reports why
            result.notes.append(f"{rel}: no metadata from the file ({exc})")
    return found, name_title, data


def _document_row(f: Path, fmt: str, found: dict, name_title: str | None, meta_row: dict,
                  taken: set[str]) -> dict:
    """The documents.parquet row: found metadata, overridden by the metadata CSV's non-empty
    values, with a unique doc_id, a doc_type of the schema and a title when none was found."""
    row = {c: None for c in schema.DOCUMENTS.names}
    row.update(language="en", format=fmt, source_uri=f.resolve().as_uri())
    row.update({k: v for k, v in found.items() if k in row})
    for k, v in meta_row.items():
        if k in row and v not in (None, ""):
            row[k] = v
    row["doc_id"] = row["doc_id"] or _slug(f.stem, taken)
    row["doc_type"] = _doc_type(row["doc_type"])
    row["issuer"] = row["issuer"] or f.stem
    if not row["title"] or row["title"] == name_title:
        row["title"] = " ".join(str(v) for v in (row["issuer"], row["fiscal_year"], row["doc_type"]) if v)
    row["fiscal_year"] = int(row["fiscal_year"]) if row["fiscal_year"] not in (None, "") else None
    if isinstance(row["period_end"], str):
        row["period_end"] = parse_date(row["period_end"])
    if isinstance(row["filed_at"], str):
        row["filed_at"] = datetime.fromisoformat(row["filed_at"].replace("Z", "+00:00"))
    return row


def _stored_name(stem: str, fmt: str, docs: list[dict]) -> str:
    """``files/<slug><ext>``, numbered when another document took that name."""
    name = f"files/{_slug(stem, set())}{FORMAT_EXT[fmt]}"
    k = 2
    while any(d["path"] == name for d in docs):
        name = f"files/{_slug(stem, set())}-{k}{FORMAT_EXT[fmt]}"
        k += 1
    return name


def _questions(path, out: Path, docs: list[dict], by_file: dict[str, str], texts: dict[str, str],
               result: FromFilesResult) -> None:
    from ..lang.fold import normalize

    fmt = {d["doc_id"]: d["format"] for d in docs}
    questions, passages = [], []
    for i, row in enumerate(_read_csv(path)):
        where = f"{path} row {i + 1}"
        qid = row.get("question_id") or f"q{i + 1}"
        refs = [r.strip() for r in (row.get("file") or row.get("doc_id") or row.get("doc_ids") or "").split(";") if r.strip()]
        doc_ids = []
        for r in refs:
            d = by_file.get(r) or (r if r in fmt else None)
            if d is None:
                raise FromFilesError(f"{where} (question {qid!r}): unknown file or doc_id {r!r}")
            doc_ids.append(d)
        if not row.get("question") or not doc_ids:
            raise FromFilesError(f"{where} (question {qid!r}): needs 'question' and 'file' (or 'doc_id')")
        qtype = row.get("question_type") or "text"
        quote = row.get("quote") or row.get("evidence")
        gold = []
        if quote:
            doc_id = doc_ids[0]
            pid = f"{doc_id}#q{len(passages) + 1}"
            base = {"passage_id": pid, "doc_id": doc_id, "section": "", "kind": "text",
                    "start": None, "end": None, "page": None, "quote": None}
            if fmt[doc_id] == "pdf":
                if not str(row.get("page") or "").isdigit():
                    raise FromFilesError(f"{where} (question {qid!r}): a quote in a PDF needs its page number")
                base.update(page=int(row["page"]), quote=quote, section=f"page {row['page']}")
            else:
                text_norm, at = normalize(texts[doc_id])
                q, _ = normalize(quote)
                k = text_norm.find(q) if q else -1
                if k < 0:
                    raise FromFilesError(f"{where} (question {qid!r}): quote not found in {doc_id!r}")
                base.update(start=at[k], end=at[k + len(q) - 1] + 1)
            passages.append(base)
            gold = [pid]
        elif qtype != "unanswerable":
            result.notes.append(f"question {qid!r} skipped: no evidence (quote, and page for a PDF)")
            continue
        questions.append({"question_id": qid, "question": row["question"], "question_type": qtype,
                          "doc_ids": doc_ids, "gold_passages": gold, "answer": row.get("answer") or None,
                          "as_of": None})
    p_schema = pa.schema(list(schema.PASSAGES) + list(schema.PASSAGES_OPTIONAL))
    write_parquet(out / "passages.parquet", pa.Table.from_pylist(passages, schema=p_schema))
    write_parquet(out / "questions.parquet", pa.Table.from_pylist(questions, schema=schema.QUESTIONS))
    result.questions, result.passages = len(questions), len(passages)
