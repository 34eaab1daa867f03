"""The shortcuts of the text parser's speed work (issue 16) against the definitions they stand
for, on generated lines: the row test by str.split on whitespace-normalised lines and its
candidates flagged per line (``rows``), cell texts by one split (``str.split`` in a printable
line), the offsets where a footnote cite may start, the heading pre-checks by a line's first
two characters, and the trailing figures of a line (a line of figure characters only
skipped, answers remembered)."""
import random
import re

from finchunk_pipeline.parse import row_figures as rf
from finchunk_pipeline.parse.footnotes import _CITE_START, cite_starts
from finchunk_pipeline.parse.line_kinds import (
    _ITEM, _NOTE_HEAD, _PART, NOTE_FIRST, NOTE_LINE, PART_ITEM_HEADS, is_part_or_item, line_heading_level,
)
from finchunk_pipeline.parse.lines import line_spans
from finchunk_pipeline.parse.text_tables import cell_texts, cells, is_row, rows

TOKENS = ["Revenue", "net", "2019", "FY2020", "$", "$1,234", "(12)", "(3.5)%", "—", "-", "–", "n/a", "N/M", "nm",
          "12x", "45 bps", "1", "¹", "[1]", "<sup>2</sup>", "(a)", "Part", "PART II", "Item 7.", "ITEM 1A:",
          "Note 4 -", "İtem 2.", "ıtem 3:", "TOTAL", "(in millions)", "€5", "+7", "*", "†", "x"]
SPACES = [" ", " ", "  ", "   ", "\t", "\xa0", "\xa0 ", " \xa0", "\u2009", "\u2009\u2009", "\u3000 ", "\r", "\x0b "]


def _line(rng: random.Random) -> str:
    out = [rng.choice(SPACES) if rng.random() < 0.2 else ""]
    for _ in range(rng.randint(0, 7)):
        out += [rng.choice(TOKENS), rng.choice(SPACES)]
    if rng.random() < 0.5:
        out.pop()
    return "".join(out)


def _texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        lines = [_line(rng) for _ in range(rng.randint(1, 30))]
        breaks = [rng.choice(["\n", "\n", "\n", "\r\n", "\f", "\n\f"]) for _ in lines]
        texts.append("".join(a + b for a, b in zip(lines, breaks))[:-1])
    return texts


def test_rows_match_is_row():
    for text in _texts(400, 1):
        spans = line_spans(text, "\n\f")
        n = len(spans)
        blank = [not text[a:b].strip() for a, b in spans]
        title = [k % 7 == 3 for k in range(n)]
        want = [not blank[k] and not title[k] and is_row(text[a:b]) for k, (a, b) in enumerate(spans)]
        assert rows(text, [text[a:b] for a, b in spans], blank, title) == want, text


def test_cell_texts_match_cells():
    for text in _texts(200, 2):
        for line in re.split("[\n\f]", text):
            assert cell_texts(line) == [c.strip() for _, _, c in cells(line)], line


def test_cell_pieces_match_the_regex_split():
    from finchunk_pipeline.parse.text_tables import _CELL_SPLIT, _pieces

    for text in _texts(300, 6):
        for line in re.split("[\n\f]", text):
            assert [c.strip() for c in _pieces(line) if c.strip()] == \
                [c.strip() for c in _CELL_SPLIT.split(line) if c.strip()], line


def test_cite_starts_match_the_regex():
    for text in _texts(200, 3):
        assert cite_starts(text) == [m.start() for m in _CITE_START.finditer(text)]


def test_heading_prechecks_cover_the_regexes():
    rng = random.Random(4)
    for _ in range(3000):
        line = _line(rng).strip()
        head = line[:2]
        if _PART.match(line) or _ITEM.match(line):
            assert head in PART_ITEM_HEADS and is_part_or_item(line) == (line_heading_level(line) in (1, 2)), line
        if _NOTE_HEAD.match(line):
            assert line_heading_level(line) == (3 if len(line) <= 120 else 0), line
        if NOTE_LINE.match(line):
            assert line[:1] in NOTE_FIRST or line[:1].isdecimal(), line


def _plain_trailing_figures(line: str, min_figures: int = 2):
    """row_figures.trailing_figures as first written (no shortcut, nothing remembered)."""
    tail = line.rstrip()
    if not tail or tail[-1] not in rf.FIG_END:
        return None
    m = rf._TRAILING.search(tail, max(0, len(tail.rstrip(rf._FIG_CHARS)) - 1))
    if m is None or not rf._LETTER.search(tail, 0, m.start()):
        return None
    figs = [(f.start(), f.end()) for f in rf._ONE.finditer(tail, m.start(1), m.end(1))]
    keep = min_figures if min_figures > 1 else 0
    while len(figs) > keep and (rf._NOTE_MARK.fullmatch(tail, *figs[0]) or rf.YEAR_CELL.fullmatch(tail, *figs[0])):
        figs.pop(0)
    if not figs or sum(1 for a, b in figs if not rf.YEAR_CELL.fullmatch(tail[a:b])) < min_figures:
        return None
    return figs


def test_trailing_figures_match_the_plain_definition():
    rng = random.Random(5)
    figures = ["1", "12", "2019", "1,234", "(5)", "(425 )", "6.3%", "$ 1,569", "—", "-", "(1)", "3.", "31,"]
    for _ in range(20000):
        line = _line(rng) if rng.random() < 0.5 else "".join(
            rng.choice(figures + ["Goodwill", "net", "€"]) + rng.choice(SPACES) for _ in range(rng.randint(1, 6)))
        for min_figures in (1, 2):
            want = _plain_trailing_figures(line, min_figures)
            assert rf.trailing_figures(line, min_figures) == want, (line, min_figures)
            assert rf.trailing_figures(line, min_figures) == want, (line, min_figures)  # remembered
        assert rf.is_label_figures_row(line) == (_plain_trailing_figures(line) is not None), line
