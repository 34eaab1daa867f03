"""The pure parse stage (parse/corpus_parse.py): a document parsed from its raw content handed
in through a RawSource, with no store; the report counts what happened to each document."""
from __future__ import annotations

import pytest

from finchunk_pipeline import select_parser
from finchunk_pipeline.parse.corpus_parse import ParseReport, parse_content, report_row


class _Raw:
    """Raw content in memory, by content hash (what the raw store gives)."""

    def __init__(self, content: dict[str, bytes]):
        self.content = content

    def get(self, sha: str, fmt: str) -> str:
        return self.content[sha].decode("utf-8")

    def get_bytes(self, sha: str, fmt: str) -> bytes:
        return self.content[sha]


def test_a_document_parses_from_its_raw_content_alone():
    rec = {"doc_id": "d", "doc_type": "annual_report", "format": "markdown", "sha": "s1"}
    spec = select_parser(rec["doc_type"], rec["format"])
    doc = parse_content(spec, rec, _Raw({"s1": b"# Alpha plc\n\nRevenue\x00 was 10 million.\n"}))
    assert doc.doc_id == "d" and doc.doc_sha == "s1" and doc.blocks
    assert any(w.startswith("1 stray control characters") for w in doc.warnings)
    with pytest.raises(UnicodeError):
        parse_content(spec, dict(rec, sha="s2"), _Raw({"s2": bytes(range(256))}))


def test_the_report_counts_each_document_by_what_happened():
    report = ParseReport()
    report.add(report_row({"doc_id": "gone"}, "binary content"), "failed")
    report.add(dict(report_row({"doc_id": "a", "format": "text", "sha": "s"}), parser_key="text-1"), "parsed")
    report.add(dict(report_row({"doc_id": "b", "format": "text", "sha": "t"}), parser_key="text-1"), "reused")
    assert (report.parsed, report.reused, report.failed) == (1, 1, 1)
    assert report.rows[0] == {"doc_id": "gone", "format": None, "sha": None, "parser_key": None,
                              "parser_version": None, "blocks": {}, "warnings": [], "error": "binary content"}
    assert list(report.manifest()["doc_id"]) == ["a", "b"]
