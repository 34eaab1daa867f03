"""The enricher declaration (chunkers.yaml ``enrich:``) and its version, and the structural
enricher's text from the parsed blocks."""
from __future__ import annotations

import pytest

from finchunk_pipeline import chunk_document
from finchunk_pipeline import ChunkerConfig, parse_chunker_configs
from finchunk_pipeline.enrichment.model import EnrichSpec, chunk_hash, parse_enrich
from finchunk_pipeline.enrichment.structural import ChunkRef, enrich_document, fit
from finchunk_pipeline.parse import markdown

REPORT = """# Acme plc — Annual report 2024

## Financial review

Revenue grew on volumes in all regions. The table below sets out the key figures of the group. All amounts are in € million.

### Key figures

| € million | 2024 | 2023 |
|---|---|---|
| Revenue | 1,165.0 | 1,061.7 |
| Operating profit | 165.8 | 71.1 |

Operating profit includes a restructuring charge, see Note 4.

## Notes to the financial statements

### Note 4 — Operating profit

Operating profit is stated after restructuring costs of €12.0 million for the closure of the Leeds plant.
"""
META = {"title": "Acme plc — Annual report 2024", "issuer": "Acme plc", "ticker": "ACME", "fiscal_year": 2024,
        "period_end": "2024-12-31", "doc_type": "annual_report"}


def chunks_of(text: str, meta: dict, params=None):
    doc = markdown.parse("acme", text, meta)
    chunks = chunk_document(ChunkerConfig("s", "structure", params or {"max_chars": 400}).chunker, doc, meta)
    return doc, chunks, [ChunkRef(c.chunk_id, c.view_spans, c.section_path, c.source_text, c.block_ids) for c in chunks]


def test_enrich_declaration_is_validated_and_names_what_is_wrong():
    assert parse_enrich(None, "x") is None
    spec = parse_enrich("structural", "x")
    assert spec == EnrichSpec("structural", {"max_chars": 600, "key_terms": 8})
    assert parse_enrich({"enricher": "structural", "max_chars": 300}, "x").params["max_chars"] == 300
    with pytest.raises(ValueError, match="enrich.enricher 'magic' is not known"):
        parse_enrich({"enricher": "magic"}, "x")
    with pytest.raises(ValueError, match="unknown enrich parameter 'colour'"):
        parse_enrich({"enricher": "structural", "colour": "red"}, "x")
    with pytest.raises(ValueError, match="'max_chars' must be int"):
        parse_enrich({"enricher": "structural", "max_chars": "many"}, "x")
    with pytest.raises(ValueError, match="must be > 0"):
        parse_enrich({"enricher": "llm", "max_tokens": 0}, "x")


def test_the_enricher_joins_the_version_but_not_the_chunks_version(monkeypatch):
    raw = {"chunk_sets": [
        {"name": "s", "strategy": "structure", "params": {"max_chars": 800}},
        {"name": "e", "strategy": "structure", "params": {"max_chars": 800}, "enrich": {"enricher": "structural"}},
        {"name": "f", "strategy": "structure", "params": {"max_chars": 800},
         "enrich": {"enricher": "structural", "key_terms": 4}},
        {"name": "l", "strategy": "structure", "params": {"max_chars": 800}, "enrich": {"enricher": "llm"}},
    ]}
    s, e, f, llm = parse_chunker_configs(raw)
    # without an enricher nothing changes: the version names stored chunk sets already have
    assert s.config_hash == s.chunking_hash and s.version_name == s.chunks_version_name
    assert e.chunking_hash == s.chunking_hash, "same chunking"
    assert e.config_hash != e.chunking_hash and e.version_name != e.chunks_version_name
    assert e.chunks_version_name == f"e-{s.chunking_hash}"
    assert f.config_hash != e.config_hash, "an enricher parameter is a new version"
    monkeypatch.setenv("FINCHUNK_LLM_MODEL", "model-a")
    a = llm.config_hash
    monkeypatch.setenv("FINCHUNK_LLM_MODEL", "model-b")
    assert llm.config_hash != a, "another model is another version"
    assert "model-b" in llm.enrich.version_id
    monkeypatch.delenv("FINCHUNK_LLM_MODEL")
    assert "unset" in llm.enrich.version_id  # loading the config never needs the endpoint


def test_structural_enrichment_lines_from_the_blocks():
    doc, chunks, refs = chunks_of(REPORT, META)
    texts = enrich_document(doc, META, refs, max_chars=2000)
    table = next(t for c, t in zip(chunks, texts) if "| Revenue |" in c.source_text)
    lines = table.splitlines()
    assert lines[0] == "Document: Acme plc — Annual report 2024 (annual_report)"
    assert "Issuer: Acme plc (ACME)" in lines
    assert "Period: fiscal year 2024, period ended 2024-12-31" in lines
    assert "Section: Financial review > Key figures" in lines
    assert "Columns: € million | 2024 | 2023" in lines
    assert "Unit: € million" in lines
    assert "Introduced by: All amounts are in € million." in lines
    assert any(line.startswith("Key terms: ") for line in lines)
    note_ref = next(t for c, t in zip(chunks, texts) if "see Note 4" in c.source_text)
    assert "Notes: Note 4 — Operating profit" in note_ref.splitlines()
    note = next(t for c, t in zip(chunks, texts) if c.section_path and c.section_path[-1].startswith("Note 4"))
    assert "Section: Notes to the financial statements > Note 4 — Operating profit" in note.splitlines()
    # deterministic, and never the chunk's own text rewritten
    assert enrich_document(doc, META, refs, max_chars=2000) == texts
    assert all(c.source_text not in t for c, t in zip(chunks, texts))


def test_tatqa_style_table_header_rows_and_unit_and_following_intro():
    text = ("|  |  | Fiscal |  |\n|---|---|---|---|\n|  | 2019 | 2018 | 2017 |\n|  |  | (in millions) |  |\n"
            "| Automotive | $ 5,686 | $ 6,092 | $ 5,228 |\n| Sensors | 914 | 918 | 814 |\n\n"
            "Net sales by segment and industry end market were as follows:\n")
    meta = {"title": "TAT-QA excerpt", "issuer": "unknown", "fiscal_year": None, "doc_type": "annual_report"}
    doc, chunks, refs = chunks_of(text, meta)
    out = enrich_document(doc, meta, refs)[0].splitlines()
    assert "Columns: Fiscal | 2019 | 2018 | 2017 | (in millions)" in out
    assert "Unit: (in millions)" in out
    assert "Introduced by: Net sales by segment and industry end market were as follows:" in out
    assert not any(line.startswith(("Issuer:", "Period:")) for line in out), "unknown issuer / period are left out"


def test_enrichment_is_bounded_and_cut_at_a_word():
    doc, chunks, refs = chunks_of(REPORT, META)
    for text in enrich_document(doc, META, refs, max_chars=120):
        assert len(text) <= 120
    assert fit(["a" * 50, "b " * 60], 100).endswith(" …")
    assert fit(["x" * 30, "y" * 90], 60) == "x" * 30  # too little room left to cut a line


def test_chunk_hash_covers_what_the_enricher_reads():
    base = dict(doc_sha="d", parser_key="markdown-1", view_spans=[{"start": 0, "end": 5}], source_text="hello",
                section_path=["A"], meta=META)
    h = chunk_hash(**base)
    assert h == chunk_hash(**{**base, "view_spans": [(0, 5)]})
    for change in ({"doc_sha": "e"}, {"parser_key": "markdown-2"}, {"view_spans": [(0, 6)]}, {"source_text": "hullo"},
                   {"section_path": ["B"]}, {"meta": {**META, "issuer": "Other plc"}}):
        assert chunk_hash(**{**base, **change}) != h, change
