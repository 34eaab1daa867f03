"""``finchunk corpus gold-from-xbrl CORPUS --out CORPUS2``: a corpus whose questions and
passages are generated from its inline-XBRL filings, written in the corpus format beside a
copy of its documents (and files, and XBRL facts), so any tool that reads the format — this
pipeline's ``finchunk run`` first — evaluates on it.

Documents are parsed here, in this process, by the same parser the pipeline runs (its
blocks and located facts are the same), one at a time; documents that are not HTML, or
carry no tagged facts, are listed and left without questions.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator

import pyarrow as pa

from ...corpus import schema
from ...corpus.loader import document_bytes, load_corpus
from ...parse.content import controls_as_spaces
from ...parse.registry import UnsupportedDocument, select_parser
from ...storage.files import write_json, write_parquet
from . import FilingInput, GeneratedGold, generate

COPIED = ("documents.parquet", "xbrl_facts.parquet")
REPORT = "gold_report.json"


def parsed_filings(src: Path, skipped: dict[str, str]) -> Iterator[FilingInput]:
    corpus = load_corpus(src)
    for row in corpus.documents.to_dict("records"):
        doc_id = row["doc_id"]
        if doc_id in corpus.document_problems:
            skipped[doc_id] = corpus.document_problems[doc_id]
            continue
        try:
            spec = select_parser(row.get("doc_type"), row.get("format"))
        except UnsupportedDocument as exc:
            skipped[doc_id] = str(exc)
            continue
        if spec.input == "bytes":
            skipped[doc_id] = f"format {row.get('format')!r} carries no inline XBRL"
            continue
        text, _ = controls_as_spaces(document_bytes(src, row).decode("utf-8", errors="replace"))
        try:
            doc = spec.fn(doc_id, text, row)
        except ValueError as exc:
            skipped[doc_id] = f"could not be parsed: {exc}"
            continue
        if not doc.facts:
            skipped[doc_id] = "no inline-XBRL facts"
            continue
        yield FilingInput({k: row.get(k) for k in ("doc_id", "doc_type", "issuer", "fiscal_year", "period_end")},
                          doc, doc.facts)


def gold_from_xbrl(src: str | Path, out: str | Path, *, seed: int = 0, per_document: int | None = 150,
                   evidence: str = "row+header") -> GeneratedGold:
    """Write ``out``: ``src``'s documents (and files, XBRL facts) with generated questions and
    passages, and ``gold_report.json`` (what was generated, rejected and skipped)."""
    src, out = Path(src), Path(out)
    if out.resolve() == src.resolve():
        raise ValueError(f"--out {out} is the source corpus: choose another folder (the source is never changed)")
    skipped: dict[str, str] = {}
    gold = generate(parsed_filings(src, skipped), seed=seed, per_document=per_document, evidence=evidence)
    out.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        if (src / name).exists():
            shutil.copy2(src / name, out / name)
    if (src / "files").is_dir():
        shutil.copytree(src / "files", out / "files", dirs_exist_ok=True)
    q, p = gold.frames()
    write_parquet(out / "passages.parquet", pa.Table.from_pandas(p, schema=schema.PASSAGES, preserve_index=False))
    write_parquet(out / "questions.parquet", pa.Table.from_pandas(q, schema=schema.QUESTIONS, preserve_index=False))
    gold.report["skipped"] = skipped
    gold.report["source"] = str(src)
    write_json(out / REPORT, gold.report)
    return gold
