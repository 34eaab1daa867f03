"""Markdown blocks: exact offsets, tables with header and rows, footnotes, lists, sections."""
from __future__ import annotations

import pandas as pd

from finchunk_pipeline.parse.markdown import parse
from finchunk_pipeline import BlockKind
from finchunk_pipeline import DEFAULT_CORPUS


DOC = """# Acme — Annual report 2024

## Key figures

In € million:

| Metric | 2024 | 2023 |
|---|---|---|
| Revenue¹ | 1,234 | 1,100 |
| EBIT² | 200 | 180 |

¹ Revenue excludes discontinued operations.
² EBIT is adjusted for one-off items.

## Risks

- Currency
- Energy prices
  and supply

Plain paragraph
over two lines.
"""


def test_blocks_are_exact_and_typed():
    doc = parse("d", DOC, {})
    for b in doc.blocks:
        assert DOC[b.start:b.end] == b.text == doc.view_text[b.vstart:b.vend]
        assert b.text == b.text.strip()
    kinds = [b.kind for b in doc.blocks]
    assert kinds == ["heading", "heading", "paragraph", "table", "table_row", "table_row", "table_row",
                     "note", "note", "heading", "list", "paragraph"]


def test_table_header_rows_and_citations():
    doc = parse("d", DOC, {})
    table = next(b for b in doc.blocks if b.kind == BlockKind.TABLE)
    rows = [b for b in doc.blocks if b.parent_id == table.block_id]
    assert table.attrs["columns"] == ["Metric", "2024", "2023"]
    assert table.attrs["caption"] == "In € million:"
    assert DOC[slice(*table.attrs["header_vspan"])] == "| Metric | 2024 | 2023 |"
    assert [r.attrs["is_header"] for r in rows] == [True, False, False]
    assert rows[1].attrs["cites"] == ["1"] and rows[2].attrs["cites"] == ["2"]
    assert table.attrs["cites"] == ["1", "2"]
    notes = [b for b in doc.blocks if b.kind == BlockKind.NOTE]
    assert [n.attrs["mark"] for n in notes] == ["1", "2"]


def test_section_paths():
    doc = parse("d", DOC, {})
    lst = next(b for b in doc.blocks if b.kind == BlockKind.LIST)
    assert lst.section_path == ("Acme — Annual report 2024", "Risks")
    assert lst.attrs["items"] == 2


def _check_corpus(folder):
    docs = pd.read_parquet(folder / "documents.parquet")
    docs = docs[docs["format"] == "markdown"]
    for rec in docs.to_dict("records"):
        doc = parse(rec["doc_id"], rec["text"], rec)
        assert doc.blocks, rec["doc_id"]
        for b in doc.blocks:
            assert rec["text"][b.start:b.end] == b.text


def test_default_corpus_markdown_parses_exactly():
    _check_corpus(DEFAULT_CORPUS)
