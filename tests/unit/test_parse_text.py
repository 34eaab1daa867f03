import pytest

from finchunk_pipeline.parse import text as T
from finchunk_pipeline import BlockKind

SAMPLE = """ACME CORP ANNUAL REPORT 2024

PART II

Item 7. Management's Discussion and Analysis
Revenue grew strongly in 2024 thanks to new products¹ and pricing.
Margins were stable.

Results of Operations

The following table summarises results (in millions):
                          2024        2023
                      --------    --------
Revenue (1)            $ 1,234     $ 1,100
Operating expenses:
  Cost of sales            600         550
  SG&A                     200         190
Operating income           434         360
(1) Revenue includes licensing.
¹ New products launched in Q3.
12
\fPage two text starts here.
More text on page two.

SEGMENT DATA

                 Q1 2025    Q1 2024
Segment A          10.5%      12.1%
Segment B          (3.2)        4.0

Closing paragraph with a single number 42 in it.
"""


def _doc(raw=SAMPLE):
    doc = T.parse("t1", raw, {"format": "text"})
    for b in doc.blocks:
        assert b.text == raw[b.start:b.end] == doc.view_text[b.vstart:b.vend]
        assert (b.start, b.end) == (b.vstart, b.vend) == doc.offsets.to_raw(b.vstart, b.vend)
        assert b.block_id == f"t1#b{b.seq:05d}"
    assert doc.offsets.is_identity and doc.view_text == raw
    return doc


def test_headings_and_sections():
    doc = _doc()
    heads = [(b.text, b.attrs["level"]) for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads == [("ACME CORP ANNUAL REPORT 2024", 3), ("PART II", 1),
                     ("Item 7. Management's Discussion and Analysis", 2), ("Results of Operations", 4),
                     ("SEGMENT DATA", 3)]
    para = next(b for b in doc.blocks if b.text.startswith("Revenue grew"))
    assert para.kind == BlockKind.PARAGRAPH
    assert para.section_path == ("PART II", "Item 7. Management's Discussion and Analysis")
    assert para.attrs["cites"] == ["1"]


def test_aligned_numeric_table():
    doc = _doc()
    table = next(b for b in doc.blocks if b.kind == BlockKind.TABLE)
    rows = [b for b in doc.blocks if b.parent_id == table.block_id]
    assert table.attrs["columns"] == ["", "2024", "2023"]
    assert table.attrs["unit"] == "(in millions)"
    assert table.attrs["caption"].startswith("The following table")
    vs, ve = table.attrs["header_vspan"]
    assert doc.view_text[vs:ve] == table.attrs["header"] and table.attrs["header"].startswith("2024")
    assert [r.attrs["is_header"] for r in rows] == [True, True, False, False, False, False, False]
    assert rows[2].attrs["cells"] == ["Revenue (1)", "$ 1,234", "$ 1,100"]
    assert rows[2].attrs["cites"] == ["1"]
    assert rows[3].attrs["cells"] == ["Operating expenses:"]
    assert rows[-1].attrs["cells"] == ["Operating income", "434", "360"]
    assert table.text.endswith("Operating income           434         360")
    assert table.attrs["cites"] == ["1"]


def test_notes_and_pages():
    doc = _doc()
    notes = [b for b in doc.blocks if b.kind == BlockKind.NOTE]
    assert [(n.text, n.attrs["mark"]) for n in notes] == [("(1) Revenue includes licensing.", "1"),
                                                          ("¹ New products launched in Q3.", "1")]
    page_no = next(b for b in doc.blocks if b.text == "12")
    assert page_no.attrs.get("furniture") and page_no.attrs["page"] == 1
    p2 = next(b for b in doc.blocks if b.text.startswith("Page two"))
    assert p2.attrs["page"] == 2 and p2.text == "Page two text starts here.\nMore text on page two."
    seg = [b for b in doc.blocks if b.kind == BlockKind.TABLE][1]
    assert seg.attrs["page"] == 2 and seg.attrs["columns"] == ["", "Q1 2025", "Q1 2024"]
    assert seg.section_path[-1] == "SEGMENT DATA"
    last = doc.blocks[-1]
    assert last.kind == BlockKind.PARAGRAPH and "42" in last.text


def test_plain_prose_and_errors():
    raw = "Just one paragraph of prose.\nIt has two lines.\n\nAnd a second one, also prose."
    doc = _doc(raw)
    assert [b.kind for b in doc.blocks] == [BlockKind.PARAGRAPH, BlockKind.PARAGRAPH]
    with pytest.raises(ValueError):
        T.parse("e", " \n\f ", {})
