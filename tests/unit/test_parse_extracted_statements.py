"""Statements as PDF text extraction writes them (financebench_dev's filings): figures after
their label with single spaces, label lines between the column header and the first row, labels
that wrap onto the row, column titles that no longer line up with the figures."""
from finchunk_pipeline import BlockKind
from finchunk_pipeline.parse.row_figures import is_label_figures_row, trailing_figures
from finchunk_pipeline.parse.text_tables import cells, is_row

from tests.statement_tables import only_table

BALANCE_SHEET = """CONSOLIDATED BALANCE SHEETS
(Amounts in millions, except share data)
 At December 31, 2019  At December 31, 2018
Assets    
Current assets:    
Cash and cash equivalents $ 5,794  $ 4,225
Inventories, net 32  43
Goodwill 9,764 9,762
Total assets $ 19,845  $ 17,890
Commitments and contingencies (Note 23)  
Shareholders' equity:    
Common stock, $0.000001 par value, 2,400,000,000 shares authorized, 1,197,436,644 and 1,192,093,991 shares issued at
December 31, 2019 and December 31, 2018, respectively —  —
Less: Treasury stock, at cost, 428,676,471 shares at December 31, 2019 and December 31, 2018 (5,563)  (5,563)
Total shareholders' equity 12,805  11,392
The accompanying notes are an integral part of these Consolidated Financial Statements.
"""


def _cells(line):
    return [c for _, _, c in cells(line)]


def test_figures_after_a_label_with_single_spaces_are_cells():
    assert _cells("Inventories, net 32  43") == ["Inventories, net", "32", "43"]
    assert _cells("Goodwill 9,764 9,762") == ["Goodwill", "9,764", "9,762"]
    assert _cells("Cash and cash equivalents $ 5,794  $ 4,225") == ["Cash and cash equivalents", "$ 5,794", "$ 4,225"]
    assert _cells("Net increase in cash $ 1,569 $ (491)  $ 2,060") == ["Net increase in cash", "$ 1,569", "$ (491)", "$ 2,060"]
    # a spaced row keeps its cells; only the label's own amount is split off
    assert _cells("Product sales $ 1,975  $ 2,255  $ 2,110") == ["Product sales", "$ 1,975", "$ 2,255", "$ 2,110"]
    assert _cells("Level 3  1,234  2,345") == ["Level 3", "1,234", "2,345"]   # "3" is no amount
    # a note mark or a year before the figures stays in the label
    assert _cells("Net income (1) 805 1,048") == ["Net income (1)", "805", "1,048"]
    assert _cells("Gross profit (1)  534.4  450.2") == ["Gross profit (1)", "534.4", "450.2"]
    assert _cells("shares at December 31, 2018 (5,563)  (5,563)") == ["shares at December 31, 2018", "(5,563)", "(5,563)"]
    for line in ["Inventories, net 32  43", "Goodwill 9,764 9,762", "Reported Sales $25,530 $24,020 6.3%"]:
        assert is_row(line) and is_label_figures_row(line)


def test_prose_dates_and_headers_are_not_rows():
    for line in ["December 31, 2019 2018", "  2019  2018  2017", "Revenue grew 12% in 2024.",
                 "as described in Note 7", "Closing paragraph with a single number 42",
                 "For the years 2019, 2018 and 2017", "Page 4 of 120"]:
        assert not is_row(line), line
    assert trailing_figures("Figures 2019 2018") is None          # years alone


def test_a_two_column_statement_is_one_table_with_its_header():
    doc, table = only_table("bs", BALANCE_SHEET)
    assert table.attrs["header"] == "At December 31, 2019  At December 31, 2018"
    assert table.attrs["columns"] == ["", "At December 31, 2019", "At December 31, 2018"]
    assert table.attrs["unit"].startswith("(Amounts in millions")
    rows = [b for b in doc.blocks if b.parent_id == table.block_id]
    body = [r.attrs["cells"] for r in rows if not r.attrs["is_header"]]
    assert body[0] == ["Assets"] and body[1] == ["Current assets:"]      # labels under the header
    assert ["Goodwill", "9,764", "9,762"] in body
    assert body[-1] == ["Total shareholders' equity", "12,805", "11,392"]
    # the wrapped "Common stock ..." label and three label lines in a row stay inside the table
    assert any(c[0].startswith("Common stock") for c in body)
    assert table.text.endswith("Total shareholders' equity 12,805  11,392")
    after = doc.blocks[-1]
    assert after.kind == BlockKind.PARAGRAPH and after.text.startswith("The accompanying notes")
