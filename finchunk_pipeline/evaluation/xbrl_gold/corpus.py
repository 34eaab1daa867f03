"""The filings of a corpus folder for ``finchunk corpus gold-from-xbrl`` (written by
builders/xbrl_gold.gold_from_xbrl), and generated gold as tables in the corpus format.

Documents are parsed here, in this process, by the same parser the pipeline runs (its
blocks and located facts are the same), one at a time; documents that are not HTML, or
carry no tagged facts, are listed and left without questions.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pyarrow as pa

from ...corpus import schema
from ...corpus.loader import document_bytes, load_corpus
from ...parse.content import controls_as_spaces
from ...parse.registry import UnsupportedDocument, select_parser
from . import FilingInput, GeneratedGold


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


def gold_tables(gold: GeneratedGold) -> tuple[pa.Table, pa.Table]:
    """(questions, passages) of generated gold as tables of the corpus schema."""
    q, p = gold.frames()
    return (pa.Table.from_pandas(q, schema=schema.QUESTIONS, preserve_index=False),
            pa.Table.from_pandas(p, schema=schema.PASSAGES, preserve_index=False))
