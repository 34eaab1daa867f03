"""Figures written after a row's label with single spaces, as PDF text extraction writes
statements: "Inventories, net 32  43", "Goodwill 9,764 9,762", "Cash $ 5,794  $ 4,225".

Such a line has no run of two spaces between its label and its first figure, so splitting
cells at runs of spaces (``text_tables.cells``) leaves label and figure in one cell, and a
two-column statement would not read as a table at all. Here a line's *trailing run of
figures* is found: the figures after the last word of the label, each a cell of its own.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .line_kinds import YEAR_CELL

# one figure: "$ 1,569", "(491)", "(425 )", "6.3%", "12.5", "—"; never followed by a letter,
# a comma or a dot (so "31," of "December 31, 2019" is a figure only at a line's end)
FIGURE = r"(?:[$€£¥]\s?)?\(?[-–—]?\d(?:[\d,]*\d)?(?:\.\d+)?(?:\s?\))?%?(?![\w,.])|(?:[$€£¥]\s?)?[—–-]{1,3}(?!\S)"
_TRAILING = re.compile(rf"(?<=\S)[^\S\n]+((?:{FIGURE})(?:[^\S\n]+(?:{FIGURE}))*)\s*$")
_ONE = re.compile(FIGURE)
_LETTER = re.compile(r"[^\W\d_]")
# a figure written as an amount: currency, grouping, decimals, parentheses, percent or a dash
_FORMATTED = re.compile(r"[$€£¥,.()%]|^[—–-]{1,3}$")
_NOTE_MARK = re.compile(r"\(\d\)")
_FIG_CHARS = "0123456789,.$€£¥()%—–- \t\r\x0b\x0c\xa0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
FIG_END = frozenset("0123456789)%—–-")   # the last character of any figure
_FIG_SPACES = "".join(c for c in _FIG_CHARS if c.isspace())
_FIG_MARKS = "".join(c for c in _FIG_CHARS if not c.isspace())
_FIG_MARK_SET = frozenset(_FIG_MARKS)


def trailing_figures(line: str, min_figures: int = 2) -> list[tuple[int, int]] | None:
    """Positions of the figures that end ``line`` after a label with a letter, when there are
    at least ``min_figures`` of them that are not years; else None."""
    figs = _trailing_figures(line, min_figures)
    return None if figs is None else list(figs)


def forget_figures() -> None:
    """Drop the remembered answers: a parser calls it as it starts a document, so each
    document pays for its own lines (a pass over a corpus costs what parsing it once does)."""
    _trailing_figures.cache_clear()


@lru_cache(maxsize=1 << 16)
def _trailing_figures(line: str, min_figures: int) -> tuple[tuple[int, int], ...] | None:
    """``trailing_figures``, remembered for the document being parsed (``forget_figures``):
    the row test (``text_tables.rows``), the header test and the cells of a table's lines
    ask it of the same lines."""
    tail = line.rstrip()
    if not tail or tail[-1] not in FIG_END:
        return None
    # the run can only start where the line's suffix of figure characters starts; a line
    # of figure characters only has no letter for a label
    cut = len(tail.rstrip(_FIG_CHARS))
    if cut == 0:
        return None
    m = _TRAILING.search(tail, cut - 1)
    if m is None or not _LETTER.search(tail, 0, m.start()):
        return None
    figs = [f.span() for f in _ONE.finditer(tail, m.start(1), m.end(1))]
    keep = min_figures if min_figures > 1 else 0   # "Gross profit (1)" alone: a mark too
    while len(figs) > keep and (_NOTE_MARK.fullmatch(tail, *figs[0]) or YEAR_CELL.fullmatch(tail, *figs[0])):
        figs.pop(0)  # "Net income (1) 805 1,048", "shares at December 31, 2018 (5,563)  (5,563)":
        # a note mark or a year before the figures is the label's
    if not figs or sum(1 for a, b in figs if not YEAR_CELL.fullmatch(tail, a, b)) < min_figures:
        return None
    return tuple(figs)


def may_end_with_figures(line: str) -> bool:
    """What ``is_label_figures_row`` needs, without a regex: the line's trailing run of figure
    characters (``_FIG_CHARS``, where ``_trailing_figures`` looks for its figures) holds two
    pieces apart by whitespace — the line's last piece is figure characters only and the piece
    before it ends in one."""
    return line.rstrip().rstrip(_FIG_MARKS).rstrip(_FIG_SPACES)[-1:] in _FIG_MARK_SET


def is_label_figures_row(line: str) -> bool:
    """A label followed by two or more figures (not years), single spaces allowed."""
    return _trailing_figures(line, 2) is not None


def label_and_figures(start: int, text: str) -> list[tuple[int, int, str]] | None:
    """A cell "label fig ..." at ``start`` split into the label and one cell per figure, when
    its trailing figures are amounts as written (``_FORMATTED``: "Level 3" stays whole)."""
    figs = trailing_figures(text, 1)
    if figs is None or not any(_FORMATTED.search(text[a:b]) for a, b in figs):
        return None
    label = text[:figs[0][0]].rstrip()
    return [(start, start + len(label), label)] + [(start + a, start + b, text[a:b]) for a, b in figs]
