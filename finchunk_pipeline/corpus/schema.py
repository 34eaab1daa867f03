"""The corpus format (../shared/corpus-format.md) as Arrow schemas and allowed values.

The document formats accepted (and those given as a file, never as ``text``) are the parser
registry's: ``parse.registry.formats()`` / ``binary_formats()`` — a registered parser's
format is accepted by the corpus loader.
"""
from __future__ import annotations

import pyarrow as pa

DOC_TYPES = frozenset({
    "annual_report", "10-K", "10-Q", "8-K", "earnings_call", "prospectus", "kid", "proxy",
    "research", "other",
    # amendments are filed with their own form name; they are parsed like the original form
    "10-K/A", "10-Q/A",
})
PASSAGE_KINDS = frozenset({"heading", "text", "table", "table_row", "note", "list", "turn"})

DOCUMENTS = pa.schema([
    ("doc_id", pa.string()),
    ("title", pa.string()),
    ("doc_type", pa.string()),
    ("issuer", pa.string()),
    ("ticker", pa.string()),
    ("fiscal_year", pa.int64()),
    ("period_end", pa.date32()),
    ("filed_at", pa.timestamp("us", tz="UTC")),
    ("language", pa.string()),
    ("format", pa.string()),
    ("source_uri", pa.string()),
    ("text", pa.string()),
])
DOCUMENTS_REQUIRED = ("doc_id", "title", "doc_type", "issuer", "language", "format")  # + text or path
# optional: the document's file relative to the corpus folder (pdf; any format instead of text)
DOCUMENTS_OPTIONAL = pa.schema([("path", pa.string())])

PASSAGES = pa.schema([
    ("passage_id", pa.string()),
    ("doc_id", pa.string()),
    ("section", pa.string()),
    ("kind", pa.string()),
    ("start", pa.int64()),
    ("end", pa.int64()),
])
# optional: passages of documents without text offsets (pdf) give page (1-based) + quote
PASSAGES_OPTIONAL = pa.schema([("page", pa.int64()), ("quote", pa.string())])

QUESTIONS = pa.schema([
    ("question_id", pa.string()),
    ("question", pa.string()),
    ("question_type", pa.string()),
    ("doc_ids", pa.list_(pa.string())),
    ("gold_passages", pa.list_(pa.string())),
    ("answer", pa.string()),
    ("as_of", pa.date32()),
])
QUESTIONS_REQUIRED = ("question_id", "question", "question_type", "doc_ids", "gold_passages")

XBRL_FACTS = pa.schema([
    ("cik", pa.string()),
    ("ticker", pa.string()),
    ("concept", pa.string()),
    ("unit", pa.string()),
    ("value", pa.float64()),
    ("period_start", pa.date32()),
    ("period_end", pa.date32()),
    ("form", pa.string()),
    ("accession", pa.string()),
    ("filed_at", pa.timestamp("us", tz="UTC")),
    ("fy", pa.int64()),
    ("fp", pa.string()),
])

