"""Shortcuts of the text parser's figure tests (issue 16) against the plain definitions, on
generated lines: the pre-check of a label followed by figures (``may_end_with_figures`` never
refuses a line ``is_label_figures_row`` takes), the figures that open a line (a year told by its
length) and the re-cut of a shifted table reading each line's lead figures once
(``recut_if_shifted``)."""
import random

from finchunk_pipeline.parse import row_figures as rf
from finchunk_pipeline.parse import shifted_rows as sr

FIGURES = ["1", "12", "2019", "1999", "1,234", "(5)", "(425 )", "6.3%", "$ 1,569", "$9,889", "($2,223 )", "—", "-",
           "$ —", "–", "(1)", "3.", "31,", "12.5", "5%)", "1)(2)", "1-", "٣٤", "(7", "8)", "%", ")", "$", "("]
WORDS = ["Goodwill", "net", "Cash and equivalents", "(Note 18)", "and", ":", "€", "x", "Total"]
SPACES = [" ", " ", "  ", "   ", "\t", "\xa0", " \xa0 ", "\u2009", "\u3000", "\x1f", "\u2028", "\r", ""]


def _line(rng: random.Random) -> str:
    pieces = [rng.choice(FIGURES if rng.random() < 0.6 else WORDS) for _ in range(rng.randint(1, 7))]
    return rng.choice(["", " ", "\xa0"]) + "".join(p + rng.choice(SPACES) for p in pieces)[:-1] + rng.choice(["", " ", "\t"])


def test_may_end_with_figures_never_refuses_a_row():
    rng = random.Random(21)
    taken = 0
    for _ in range(40000):
        line = _line(rng)
        if rf.is_label_figures_row(line):
            taken += 1
            assert rf.may_end_with_figures(line), repr(line)
    assert taken > 1500


def _plain_lead_figures(line: str):
    """shifted_rows.lead_figures with every figure tried as a year (no length shortcut)."""
    if not sr.may_open_with_figures(line):
        return None
    m = sr._LEAD.match(line)
    if m is None:
        return None
    figs = tuple((f.start(), f.end()) for f in sr._ONE.finditer(line, m.start(1), m.end(1)))
    if sum(1 for a, b in figs if not sr.YEAR_CELL.fullmatch(line, a, b)) < 2:
        return None
    rest = line[m.end():].rstrip()
    if rest and (not sr._LETTER.search(rest) or rf.is_label_figures_row(rest)):
        return None
    return sr.LeadFigures(figs, m.end() if rest else len(line))


def test_lead_figures_match_the_plain_definition():
    rng = random.Random(22)
    for _ in range(20000):
        line = _line(rng)
        assert sr.lead_figures(line) == _plain_lead_figures(line), repr(line)


def test_recut_if_shifted_matches_the_test_then_the_recut():
    rng = random.Random(23)
    recut = 0
    for _ in range(3000):
        texts = [_line(rng) if rng.random() < 0.5 else " ".join(rng.choice(FIGURES[:12]) for _ in range(rng.randint(1, 3)))
                 + rng.choice(["", " Inventories", " Total current assets"]) for _ in range(rng.randint(1, 12))]
        body, pos = [], 0
        for t in texts:
            body.append((pos, pos + len(t), t))
            pos += len(t) + 1
        want = sr.shifted_rows(body) if sr.is_shifted_table(texts) else None
        assert sr.recut_if_shifted(body) == want, texts
        recut += want is not None
    assert recut > 150
