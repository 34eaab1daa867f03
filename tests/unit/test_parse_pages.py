"""Pages of PDF-extracted text: page ends, furniture, page-top titles (parse/pages.py, text parser v2)."""
from __future__ import annotations

from finchunk_pipeline.parse import text as T
from finchunk_pipeline import BlockKind
from finchunk_pipeline.parse.pages import page_layout

# three pages as pypdf leaves them: a running header, the company line, the statement title
# and unit line at the top, a page number at the bottom, pages joined by a blank line
PAGE = """Table of Contents
ACME HOLDINGS, INC. AND SUBSIDIARIES
{title}
(Amounts in millions, except per share data)
 2019  2018  2017
Net revenues      
Product sales $ 1,975  $ 2,255  $ 2,110
Services 4,514  5,245  4,907
      
Cost of revenues—subscription, licensing, and other revenues of the segments:      
Game operations 965  1,028  984
Total net revenues {n},489  7,500  7,017
The accompanying notes are an integral part of these statements.
F-{n}"""
TEXT = "\n\n".join(PAGE.format(title=t, n=n) for n, t in enumerate(
    ["CONSOLIDATED BALANCE SHEETS", "CONSOLIDATED STATEMENTS OF OPERATIONS",
     "Notes to Consolidated Financial Statements (continued)"], start=4)) + "\n"


def test_page_layout_flags():
    lines = TEXT.split("\n")
    lay = page_layout(lines)
    assert lay.pages == 4  # three page ends at F-4, F-5, F-6 (the trailing empty line opens a 4th)
    furn = [ln for ln, f in zip(lines, lay.furniture) if f]
    assert furn.count("Table of Contents") == 3 and "F-5" in furn
    assert furn.count("ACME HOLDINGS, INC. AND SUBSIDIARIES") == 3     # a running header
    titles = [ln for ln, t in zip(lines, lay.title) if t]
    assert titles == ["CONSOLIDATED BALANCE SHEETS", "CONSOLIDATED STATEMENTS OF OPERATIONS",
                      "Notes to Consolidated Financial Statements (continued)"]


def test_text_parser_v2_statement_pages():
    doc = T.parse("d", TEXT, {})
    headings = [b for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert [h.text for h in headings] == ["CONSOLIDATED BALANCE SHEETS", "CONSOLIDATED STATEMENTS OF OPERATIONS",
                                          "Notes to Consolidated Financial Statements (continued)"]
    assert [h.attrs["page"] for h in headings] == [1, 2, 3]
    furniture = [b for b in doc.blocks if b.attrs.get("furniture")]
    assert {b.text for b in furniture} == {"Table of Contents", "ACME HOLDINGS, INC. AND SUBSIDIARIES",
                                           "The accompanying notes are an integral part of these statements.",
                                           "F-4", "F-5", "F-6"}
    # a statement's rows sit in one table under its title, the long ':' label and spacer included
    tables = [b for b in doc.blocks if b.kind == BlockKind.TABLE]
    assert len(tables) == 3
    ops = tables[1]
    assert ops.section_path[-1] == "CONSOLIDATED STATEMENTS OF OPERATIONS"
    assert "Game operations 965" in ops.text and "Product sales" in ops.text
    # no paragraph glues furniture to content
    for b in doc.blocks:
        if b.kind == BlockKind.PARAGRAPH and not b.attrs.get("furniture"):
            assert "Table of Contents" not in b.text and "F-5" not in b.text.split("\n")
    # offsets stay exact
    assert all(TEXT[b.start:b.end] == b.text for b in doc.blocks)


def test_a_lone_number_line_inside_prose_is_not_a_page_end():
    text = "Revenue grew in the year.\n42\nmore prose follows on the same page.\n"
    lay = page_layout(text.split("\n"))
    assert lay.pages == 1 and not any(lay.furniture)
