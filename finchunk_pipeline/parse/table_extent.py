"""Where a table of extracted text starts and ends: its first row, the header lines above
it, and the label lines, spacer lines and single blank lines it keeps between rows (the rows
and header lines themselves: ``text_tables.py``)."""
from __future__ import annotations

from typing import Callable

from .line_kinds import line_heading_level, note_mark
from .text_tables import LineText, is_header_line


def find_tables(n: int, row: list[bool], blank: list[bool], L: LineText,
                joins_above: Callable[[int], bool]) -> dict[int, tuple[int, int]]:
    """Table extents: header start line -> (first row, last line). ``joins_above(h)``: line
    h-1 belongs to the same block as line h (a header line may only be taken from there)."""
    tables: dict[int, tuple[int, int]] = {}
    known: dict[int, bool] = {}

    def header(j: int) -> bool:   # is_header_line(L(j)), read once per line (asked up to four times)
        if j not in known:
            known[j] = is_header_line(L(j))
        return known[j]
    prev_end = 0
    for k in [k for k in range(n) if row[k]]:
        if k < prev_end or not _table_follows(k, n, row, blank, L, header):
            continue
        last = _table_extent(k, n, row, blank, L)
        h = k
        while h > prev_end and k - h < 3 and not blank[h - 1] and joins_above(h) and header(h - 1):
            h -= 1
        first = k
        if h == k:  # "2019  2018" / "Assets" / "Current assets:" / first row: labels under the header
            h, first = _header_over_labels(k, prev_end, blank, L, joins_above, header)
        tables[h] = (first, last)
        prev_end = last + 1
    return tables


def _header_over_labels(k: int, prev_end: int, blank: list[bool], L: LineText,
                        joins_above: Callable[[int], bool], header: Callable[[int], bool]) -> tuple[int, int]:
    """(header start, first body line) when up to two short label lines ("Assets", "Current
    assets:") separate the first row ``k`` from header lines above them; else (k, k). The
    label lines are the table's first body lines. ``header(j)``: ``is_header_line(L(j))``."""
    j = k
    while j > prev_end and k - j < 2 and not blank[j - 1] and joins_above(j) and _label_line(L(j - 1).strip()) \
            and not header(j - 1):
        j -= 1
    h = j
    while h > prev_end and j - h < 3 and not blank[h - 1] and joins_above(h) and header(h - 1):
        h -= 1
    return (h, j) if h < j < k else (k, k)


def _table_follows(i: int, n: int, row: list[bool], blank: list[bool], L: LineText,
                   header: Callable[[int], bool]) -> bool:
    """Line i is a numeric row; is it part of a table (another numeric row nearby, or a header
    line above: ``header(j)`` is ``is_header_line(L(j))``)?"""
    j = i + 1
    gap = 0
    while j < n and gap <= 1:
        if row[j]:
            return True
        if blank[j] or len(L(j).strip()) <= 60:
            gap += 1
            j += 1
            continue
        break
    # or a multi-column header line directly above
    return i > 0 and header(i - 1)


def _table_extent(i: int, n: int, row: list[bool], blank: list[bool], L: LineText) -> int:
    """Last line of the table whose first numeric row is i: rows, plus short label lines and
    single blank lines that are followed by another row."""
    last = i
    j = i + 1
    while j < n:
        if row[j]:
            last = j
            j += 1
            continue
        nxt = j + 1
        if blank[j]:
            if nxt < n and row[nxt]:
                j = nxt
                continue
            # a spacer (whitespace-only line, as PDF text extraction leaves between a
            # statement's groups) followed by a label line and more rows stays in the table
            if L(j) and not L(j).strip() and _label_then_row(nxt, n, row, blank, L):
                j = nxt
                continue
            break
        if _labels_then_row(j, n, row, blank, L):
            j = nxt
            continue
        break
    return last


def _labels_then_row(j: int, n: int, row: list[bool], blank: list[bool], L: LineText) -> bool:
    """Lines j.. are up to three label lines without figures and then a numeric row; the
    line right above the row may be the first half of a wrapped label."""
    for k in range(j, min(n - 1, j + 3)):
        if blank[k] or not _label_line(L(k).strip(), wrapped=row[k + 1]):
            return False
        if row[k + 1]:
            return True
    return False


def _label_line(s: str, wrapped: bool = False) -> bool:
    """A row label without figures inside a table ("Operating expenses:", "Current assets");
    ``wrapped``: the first line of a label that wraps onto the next row (up to 160
    characters, not ending a sentence: "Common stock, $0.000001 par value, ... issued at")."""
    limit = 100 if s.endswith(":") else 60
    if wrapped and not s.endswith("."):
        limit = 160
    return 0 < len(s) <= limit and note_mark(s, {}) is None and not line_heading_level(s)


def _label_then_row(j: int, n: int, row: list[bool], blank: list[bool], L: LineText) -> bool:
    """Lines j.. are up to two short label lines and then a numeric row."""
    for k in range(j, min(n, j + 3)):
        if row[k]:
            return True
        if blank[k] or not _label_line(L(k).strip()):
            return False
    return False
