"""Statements whose every cell PDF extraction wrote on a line of its own (Microsoft's 2023 10-K
in financebench_dev): the text parser reads them as tables whose rows run from each label to its
last figure (``parse/vertical_rows.py``)."""
import random

from finchunk_pipeline.parse import text as T
from finchunk_pipeline import BlockKind
from finchunk_pipeline.parse.vertical_rows import line_kind, vertical_rows

from tests.statement_tables import only_table

# Microsoft's 2023 balance sheet and comprehensive income as pypdf wrote them (shortened)
VERTICAL = "\n".join([
    "PART II", "Item 8", " ", "BALANCE", " SHEETS", " ", " ", "(In millions)", " ", " ", " ",
    "June 30,", " ", "2023", " ", " ", "2022", " ", " ", " ", "Assets", " ", " ", " ",
    "Current assets:", " ", " ",
    "Cash and cash equivalents", " ", "$", "34,704", " ", " ", "$", "13,931", " ",
    "Short-term investments", " ", " ", "76,558", " ", " ", " ", "90,826", " ",
    "Accounts receivable, net of allowance for doubtful accounts of ", "$", "650", " and $", "633",
    " ", " ", "48,688", " ", " ", " ", "44,261", " ",
    "Net change related to investments", " ", " ", "(", "1,444", ")", " ", " ", "(", "5,360", ")",
    "Total assets", " ", "$", "411,976", " ", " ", "$", "364,840", " ", " ",
    "Refer to accompanying notes.", " ", "59", "",
    "The Company's revenue grew in fiscal 2023, as described in Item 7.", ""])


def test_line_kinds():
    assert [line_kind(x) for x in ["", " ", "$", "(", ")", "34,704", "(1,444", "2023", "—", "Goodwill", " and $"]] == \
        ["blank", "blank", "sign", "sign", "sign", "figure", "figure", "figure", "figure", "label", "label"]


def test_a_statement_of_one_cell_per_line_is_one_table():
    doc, table = only_table("msft", VERTICAL)
    rows = [b for b in doc.blocks if b.kind == BlockKind.TABLE_ROW]
    header = [r.attrs["cells"] for r in rows if r.attrs["is_header"]]
    body = [r.attrs["cells"] for r in rows if not r.attrs["is_header"]]
    assert header == [["June 30,"], ["2023"], ["2022"]]
    assert table.attrs["columns"] == ["", "2023", "2022"]
    assert body == [
        ["Assets"], ["Current assets:"],
        ["Cash and cash equivalents", "$ 34,704", "$ 13,931"],
        ["Short-term investments", "76,558", "90,826"],
        ["Accounts receivable, net of allowance for doubtful accounts of", "$ 650"],
        ["and $", "633", "48,688", "44,261"],
        ["Net change related to investments", "(1,444)", "(5,360)"],
        ["Total assets", "$ 411,976", "$ 364,840"]]
    assert table.text.startswith("June 30,") and table.text.endswith("364,840")
    # the prose after it stays a paragraph; rows never overlap and stay inside the table
    assert any(b.kind == BlockKind.PARAGRAPH and b.text.startswith("The Company's revenue") for b in doc.blocks)
    for a, b in zip(rows, rows[1:]):
        assert table.start <= a.start < a.end <= b.start < b.end <= table.end


def test_lone_numbers_in_prose_are_no_table():
    text = "\n".join(["Item 1. Business", "", "We employ people in", "2023", "across", "12",
                      "countries and", "3", "continents.", "", "Page", "14", ""])
    doc = T.parse("prose", text, {"format": "text"})
    assert not [b for b in doc.blocks if b.kind == BlockKind.TABLE]


def test_vertical_rows_keep_every_figure_once_in_order():
    """Randomised: label lines, each followed by figures with signs and blank lines; every
    figure lands in its own label's row, in order, once."""
    rng = random.Random(5)
    for _ in range(300):
        lines, want = [], []
        for r in range(rng.randint(1, 6)):
            label = f"Label {r} net"
            figs = [f"{rng.randint(1, 99_999):,}" for _ in range(rng.randint(0, 3))]
            lines.append(label)
            cells = []
            for f in figs:
                lines += [" "] * rng.randint(0, 2)
                form = rng.choice(["plain", "dollar", "paren"])
                if form == "dollar":
                    lines += ["$", f]
                    cells.append("$ " + f)
                elif form == "paren":
                    lines += ["(", f, ")"]
                    cells.append(f"({f})")
                else:
                    lines.append(f)
                    cells.append(f)
            want.append([label] + cells)
        text = "\n".join(lines)
        body, pos = [], 0
        for line in lines:
            if line.strip():
                body.append((pos, pos + len(line), line))
            pos += len(line) + 1
        got = vertical_rows(body)
        assert [r.cells for r in got] == want
        for r in got:
            assert text[r.start:r.end].startswith(r.cells[0])
        assert all(a.end < b.start for a, b in zip(got, got[1:]))
