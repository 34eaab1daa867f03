"""Far notes to the financial statements travel with what refers to them (structure v5)."""
from __future__ import annotations

from finchunk_pipeline import chunk_document
from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline.chunking.note_links import note_sections, referenced_notes, title_key
from finchunk_pipeline.parse.markdown import parse

DOC = """# Acme plc — Annual report 2024

## Key figures

| € million | 2024 | 2023 |
|---|---|---|
| Revenue¹ | 1,000 | 900 |
| Operating profit | 120 | 100 |

¹ Revenue excludes disposals.

## Business review

In 2024 the group acquired Widget Ltd. The consideration is set out in Note 6.

## Notes to the financial statements

### Note 4 — Operating profit

Operating profit includes a one-off gain of €8.5 million. It is stated before amortisation.

### Note 6 — Acquisitions

The consideration for Widget Ltd was €76.6 million, paid in cash.
"""


def _chunks(**params):
    doc = parse("d", DOC, {})
    return doc, chunk_document(ChunkerConfig("s", "structure", params).chunker, doc, {"title": "Acme plc — Annual report 2024"})


def test_reference_by_number_links_the_note():
    _, chunks = _chunks()
    review = next(c for c in chunks if "acquired Widget" in c.source_text)
    assert "The consideration for Widget Ltd was €76.6 million" in review.source_text
    assert "### Note 6 — Acquisitions" in review.source_text and len(review.spans) == 2
    assert DOC[review.spans[1][0]:review.spans[1][1]].startswith("### Note 6")


def test_row_titled_like_a_note_links_it_to_the_table():
    _, chunks = _chunks()
    table = next(c for c in chunks if c.kind == "table")
    assert "¹ Revenue excludes disposals." in table.source_text          # the footnote below
    assert "Operating profit includes a one-off gain" in table.source_text  # the far note
    assert "Acquisitions" not in table.source_text


def test_note_never_links_itself_and_links_are_bounded():
    doc, chunks = _chunks()
    note4 = next(c for c in chunks if c.kind != "table" and "### Note 4" in c.source_text)
    assert note4.source_text.count("Operating profit includes") == 1
    by_number, by_title = note_sections(doc, 88)  # note 4's first sentence fits, note 6's does not
    assert len(by_number[4].spans) == 2 and len(by_number[6].spans) == 1
    assert referenced_notes("see Note 4 and Note 6", (), by_number, by_title, max_chars=600) == [by_number[4]]
    by_number, by_title = note_sections(doc, 600)  # 120 and 90 characters of linked text
    assert referenced_notes("see Note 4 and Note 6", (), by_number, by_title, max_chars=150) == [by_number[4]]
    assert title_key("Operating profit²") == title_key("operating  PROFIT") == "operating profit"


def test_links_can_be_switched_off():
    _, chunks = _chunks(link_notes_chars=0)
    review = next(c for c in chunks if "acquired Widget" in c.source_text)
    assert len(review.spans) == 1
