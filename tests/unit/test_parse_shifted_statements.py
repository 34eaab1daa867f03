"""Statements whose figures PDF extraction wrote at the start of the next line, before the
next row's label (Nike 2021, Block 2016, Boeing 2018 in financebench_dev): the text parser
re-cuts them into rows that pair each label with its own figures (``parse/shifted_rows.py``)."""
import random

from finchunk_pipeline.parse import text as T
from finchunk_pipeline import BlockKind
from finchunk_pipeline.parse.shifted_rows import is_shifted_line, is_shifted_table, lead_figures, shifted_rows

from tests.statement_tables import only_table

# Nike's 2021 balance sheet as pypdf wrote it (shortened)
SHIFTED = """NIKE, INC.
CONSOLIDATED BALANCE SHEETS
MAY 31,
(In millions)
2021 2020 ASSETS
Current assets:
Cash and equivalents
$ 9,889 $ 8,348 Short-term investments
3,587 439 Accounts receivable, net
4,463 2,749 Inventories
6,854 7,367 Total current assets
26,291 20,556 Goodwill
242 223 Deferred income taxes and other liabilities
2,955 2,684 Commitments and contingencies (Note 18)
Accrued liabilities
15,292 \xa0 ($2,223 ) \xa0 Advances and progress billings
$ 37,740  $ 31,342
The accompanying Notes to the Consolidated Financial Statements are an integral part of this statement.
"""

EXPECTED_ROWS = [
    ("Cash and equivalents", ["$ 9,889", "$ 8,348"]),
    ("Short-term investments", ["3,587", "439"]),
    ("Accounts receivable, net", ["4,463", "2,749"]),
    ("Inventories", ["6,854", "7,367"]),
    ("Total current assets", ["26,291", "20,556"]),
    ("Goodwill", ["242", "223"]),
    ("Deferred income taxes and other liabilities", ["2,955", "2,684"]),
    ("Commitments and contingencies (Note 18)", []),
    ("Accrued liabilities", ["15,292", "($2,223 )"]),
    ("Advances and progress billings", ["$ 37,740", "$ 31,342"]),
]


def test_lines_opening_with_figures_before_a_label():
    assert lead_figures("3,587 439 Accounts receivable, net").figures == ((0, 5), (6, 9))
    assert is_shifted_line("$ 9,889 $ 8,348 Short-term investments")
    assert is_shifted_line("15,292 \xa0 ($2,223 ) \xa0 13,069 Advances and billings")
    assert is_shifted_line("2,955 2,684 Commitments and contingencies (Note 18)")   # a note mark ends the label
    assert lead_figures("$ 37,740  $ 31,342") is not None and not is_shifted_line("$ 37,740  $ 31,342")
    for line in ["2021 2020 ASSETS",                 # years: a header
                 "10,000 shares were issued in 2019",  # one figure: prose
                 "Goodwill 9,764 9,762",              # an ordinary row
                 "12 34 Notes 56 78",                 # figures on both sides
                 "2018 2017 2016", "Current assets:", ""]:
        assert not is_shifted_line(line), line


def test_a_shifted_statement_is_one_table_of_rows_with_their_own_figures():
    doc, table = only_table("nike", SHIFTED)
    rows = [b for b in doc.blocks if b.kind == BlockKind.TABLE_ROW and b.parent_id == table.block_id]
    body = [(r.attrs["cells"][0], r.attrs["cells"][1:]) for r in rows if not r.attrs["is_header"]]
    assert body[0] == ("Current assets:", [])
    assert body[1:] == EXPECTED_ROWS
    assert table.attrs["columns"] == ["", "2021", "2020"]
    # rows are contiguous spans of the raw text, in order, inside their table, never overlapping
    ends = [table.start]
    for r in rows:
        assert table.start <= r.start < r.end <= table.end and r.start >= ends[-1]
        ends.append(r.end)
    row = next(r for r in rows if r.attrs["cells"][0] == "Short-term investments")
    assert row.text == "Short-term investments\n3,587 439"


def test_ordinary_tables_are_not_re_cut():
    doc = T.parse("bs", "Balance\n\nCash and cash equivalents $ 5,794  $ 4,225\nInventories, net 32  43\n"
                        "Goodwill 9,764 9,762\nTotal assets $ 19,845  $ 17,890\n", {"format": "text"})
    rows = [b for b in doc.blocks if b.kind == BlockKind.TABLE_ROW]
    assert [r.attrs["cells"] for r in rows] == [
        ["Cash and cash equivalents", "$ 5,794", "$ 4,225"], ["Inventories, net", "32", "43"],
        ["Goodwill", "9,764", "9,762"], ["Total assets", "$ 19,845", "$ 17,890"]]
    assert not is_shifted_table([r.text for r in rows])


def _lines(text):
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, pos + len(line), line))
        pos += len(line) + 1
    return out


def test_re_cut_rows_keep_every_label_and_figure_once_in_order():
    """Randomised: statements of label lines and shifted lines; the re-cut rows hold every
    label and every figure exactly once, each label with the figures that open the next line."""
    rng = random.Random(7)
    words = ["Cash", "Goodwill", "Inventories", "Total assets", "Accrued liabilities", "Debt (Note 11)", "Other"]
    for _ in range(300):
        labels = [rng.choice(words) + f" {i}x" for i in range(rng.randint(1, 8))]
        figures = [[f"{rng.randint(1, 99_999):,}" for _ in range(rng.randint(2, 3))] if rng.random() < 0.8 else []
                   for _ in labels]
        lines = [labels[0]]
        for i in range(len(labels)):
            nxt = labels[i + 1] if i + 1 < len(labels) else ""
            if figures[i]:
                lines.append((" ".join(figures[i]) + " " + nxt).rstrip())
            elif nxt:
                lines.append(nxt)
        lines = [x for x in lines if x]
        text = "\n".join(lines)
        got = shifted_rows(_lines(text))
        assert [(r.cells[0], r.cells[1:]) for r in got] == list(zip(labels, figures))
        for r in got:
            assert text[r.start:r.end].startswith(r.cells[0]) and text[r.start:r.end].endswith((r.cells + [""])[-1])
        assert all(a.end < b.start for a, b in zip(got, got[1:]))


def test_the_pre_check_never_refuses_a_line_the_pattern_takes():
    """Randomised: lines of figures in every form the pattern knows, words and spaces; where
    the regex finds an opening run of figures, ``may_open_with_figures`` says so too."""
    from finchunk_pipeline.parse import shifted_rows as S

    rng = random.Random(11)
    pieces = ["3,587", "439", "$ 9,889", "$9,889", "(425 )", "(425)", "($2,223 )", "—", "$ —", "-", "12.5",
              "6.3%", "2021", "Cash", "net", "(Note 18)", "and", ":", ")", "$", "(", "\xa0"]
    taken = 0
    for _ in range(20000):
        line = (rng.choice(["", " ", "\xa0 "]) +
                rng.choice([" ", "  ", " \xa0 "]).join(rng.choice(pieces) for _ in range(rng.randint(1, 6))))
        m = S._LEAD.match(line)
        by_regex = m is not None and sum(
            1 for f in S._ONE.finditer(line, m.start(1), m.end(1)) if not S.YEAR_CELL.fullmatch(f.group())) >= 2
        if by_regex:
            taken += 1
            assert S.may_open_with_figures(line), repr(line)
    assert taken > 1000
