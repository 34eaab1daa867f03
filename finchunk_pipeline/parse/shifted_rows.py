"""Statements whose figures pypdf wrote at the start of the *next* line.

Text extracted from some 10-K PDFs (Nike 2021, Block 2016/2020, Boeing 2018, Best Buy 2017,
CVS 2018 …) puts a statement row's label at the end of one line and its figures at the start
of the next, before the next row's label::

    Cash and equivalents
    $ 9,889 $ 8,348 Short-term investments
    3,587 439 Accounts receivable, net
    ...
    1,498 1,653 Total current assets

Read line by line, "3,587 439 Accounts receivable, net" pairs Short-term investments' figures
with the next label: a row unit would tell a reader that accounts receivable were 3,587, and
without a run of two spaces such lines are no table at all. Here such a *shifted* line is
recognised (``lead_figures``), and a table whose body is mostly shifted lines is re-cut into
rows that pair each label with its own figures (``shifted_rows``): the row runs from the
label (the end of one line, or a whole label line) to the end of the figures that open the
next line — one contiguous span of the raw text, so offsets stay exact.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .line_kinds import YEAR_CELL
from .row_figures import FIGURE, is_label_figures_row

# one figure (row_figures' figure, or a negative amount written "($7,622 )")
_LEAD_FIGURE = rf"\([$€£¥]\s?\d[\d,]*(?:\.\d+)?\s?\)|{FIGURE}"
# a run of figures opening a line, then a label with a letter (the next row's label)
_LEAD = re.compile(rf"[^\S\n]*((?:{_LEAD_FIGURE})(?:[^\S\n]+(?:{_LEAD_FIGURE}))*)(?:[^\S\n]+(?=\S)|[^\S\n]*$)")
_ONE = re.compile(_LEAD_FIGURE)
_SPAN = re.Match.span
_LETTER = re.compile(r"[^\W\d_]")
_OPENS = frozenset("$€£¥(0123456789—–-")   # the first character of a figure
_CONTINUES = _OPENS | {")"}                # ... or of what follows a space inside one ("$ 5", "(425 )")
SHIFTED_SHARE = 0.6   # a table is read as shifted when this share of its figure lines open with figures
MIN_SHIFTED = 3       # ... and at least this many do


@dataclass(frozen=True)
class LeadFigures:
    """The figures opening a line (positions relative to the line) and where its label
    starts (``label_start`` = the line's length when nothing follows the figures)."""

    figures: tuple[tuple[int, int], ...]
    label_start: int


def lead_figures(line: str) -> LeadFigures | None:
    """The run of two or more figures (not all years) that opens ``line``, followed by a
    label with a letter that is not itself a row ("label fig fig"), or by nothing; else None."""
    if not may_open_with_figures(line):
        return None
    m = _LEAD.match(line)
    if m is None:
        return None
    figs = tuple(map(_SPAN, _ONE.finditer(line, m.start(1), m.end(1))))
    years = sum(1 for a, b in figs if b - a == 4 and YEAR_CELL.fullmatch(line, a, b))   # a year has 4 characters
    if len(figs) - years < 2:
        return None
    rest = line[m.end():].rstrip()
    if rest and (not _LETTER.search(rest) or is_label_figures_row(rest)):
        return None   # "12 34 Notes 56 78": a label with figures of its own after it
    return LeadFigures(figs, m.end() if rest else len(line))


def may_open_with_figures(line: str) -> bool:
    """What ``lead_figures`` needs, without a regex: the line's first two whitespace-separated
    pieces start like a figure ("3,587 439 …") or like its rest ("$ 9,889 …", "(425 ) 12 …")."""
    parts = line.split(None, 2)
    return len(parts) >= 2 and parts[0][:1] in _OPENS and parts[1][:1] in _CONTINUES


def is_shifted_line(line: str) -> bool:
    """Figures opening the line, followed by the next row's label."""
    lead = lead_figures(line)
    return lead is not None and lead.label_start < len(line.rstrip())


@dataclass(frozen=True)
class Row:
    """One re-cut row: its span (absolute offsets), label and figure texts."""

    start: int
    end: int
    cells: list[str]


def is_shifted_table(body: list[str], leads: list[LeadFigures | None] | None = None) -> bool:
    """Most of the table's lines with figures open with them (``MIN_SHIFTED`` at least).
    ``leads``: ``lead_figures`` of each line of ``body``, when the caller has read them."""
    if leads is None:
        leads = list(map(lead_figures, body))
    opening = sum(1 for lead in leads if lead is not None)
    if opening < MIN_SHIFTED:
        return False
    with_figures = sum(1 for t in body if _ONE.search(t))
    return opening >= SHIFTED_SHARE * with_figures


def recut_if_shifted(body: list[tuple[int, int, str]]) -> list[Row] | None:
    """``shifted_rows(body)`` when the body's texts are a shifted table (``is_shifted_table``),
    else None. Each line's lead figures are read once, and only where the line may open with
    figures (``may_open_with_figures``): a body with fewer such lines than ``MIN_SHIFTED`` is
    no shifted table, told without a regex."""
    texts = [t for _, _, t in body]
    may = list(map(may_open_with_figures, texts))
    if sum(may) < MIN_SHIFTED:
        return None
    leads = [lead_figures(t) if m else None for t, m in zip(texts, may)]
    return shifted_rows(body, leads) if is_shifted_table(texts, leads) else None


def shifted_rows(body: list[tuple[int, int, str]], leads: list[LeadFigures | None] | None = None) -> list[Row]:
    """Rows of a shifted table body (``(start, end, text)`` of each non-blank line, in order):
    each label (a whole label line, or what follows a line's opening figures) with the
    figures that open the next line; a label with no figures below it is a row of its own,
    and figures with no label above them (the table's first line) a row without a label.
    ``leads``: ``lead_figures`` of each line's text, when the caller has read them."""
    if leads is None:
        leads = [lead_figures(text) for _, _, text in body]
    out: list[Row] = []
    label: tuple[int, int, str] | None = None   # the pending label: absolute span, text
    for (s, e, text), lead in zip(body, leads):
        if lead is None:   # a label line (or a line that is no statement row: kept whole)
            if label is not None:
                out.append(Row(label[0], label[1], [label[2]]))
            label = _label(s, text, 0)
            continue
        figs = [text[a:b] for a, b in lead.figures]
        fig_end = s + lead.figures[-1][1]
        if label is not None:
            out.append(Row(label[0], fig_end, [label[2]] + figs))
        else:
            out.append(Row(s + lead.figures[0][0], fig_end, [""] + figs))
        label = _label(s, text, lead.label_start)
    if label is not None:
        out.append(Row(label[0], label[1], [label[2]]))
    return out


def _label(s: int, text: str, at: int) -> tuple[int, int, str] | None:
    """The label of ``text`` from ``at`` (absolute span, text with its spaces collapsed), or None."""
    part = text[at:].rstrip()
    lead = len(part) - len(part.lstrip())
    if not part.strip():
        return None
    return s + at + lead, s + at + len(part), " ".join(part.split())
