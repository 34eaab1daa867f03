"""Statements whose every cell PDF extraction wrote on a line of its own.

Text extracted from some 10-K PDFs (Microsoft's 2023 10-K in financebench_dev) puts each cell
of a statement on its own line, with blank-looking lines (" ") between them and the currency
sign and parentheses apart from the figure::

    Cash and cash equivalents
     
    $
    34,704
     
     
    $
    13,931
    Short-term investments
    ...

Read line by line, every label was a heading and every figure a paragraph. Here a run of
such *vertical rows* — a label line, then only figure, sign and blank lines holding two or
more figures — is found (``vertical_tables``) and each row is one contiguous span from its
label to its last figure (``vertical_rows``), its cells the label and the figures with their
signs ("$ 34,704", "(1,444)").
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter

from .line_kinds import YEAR_CELL

_FIGURE_LINE = re.compile(r"\(?[$€£¥]?\s?(?:\d[\d,]*(?:\.\d+)?|[—–-])\s?\)?%?")
_SIGNS = frozenset("$€£¥()%")
_LETTERS = re.compile(r"[^\W\d_]")
_FIRST = itemgetter(slice(1))   # a string's first character ("" for "")
_LABEL = "label"
MIN_ROWS = 3           # rows with two or more figures a vertical table needs
MAX_LABELS = 2         # label lines without figures in a row inside a table
MAX_LABEL_CHARS = 120  # a longer line is prose, never a row label
MAX_HEADER_LINES = 4   # non-blank header lines (dates, years) above the first row


def line_kind(text: str) -> str:
    """"blank", "sign" ("$", "(", ")"), "figure" ("34,704", "(1,444", "—"), or "label"."""
    s = text.strip()
    if not s:
        return "blank"
    if s[0].isalpha():   # neither a sign nor a figure starts with a letter
        return "label"
    if all(c in _SIGNS for c in s):
        return "sign"
    if _FIGURE_LINE.fullmatch(s):
        return "figure"
    return "label"


def _kinds(texts: list[str]) -> list[str]:
    """``line_kind`` of every line; a line whose first non-blank character is a letter is a
    label without a call (most lines)."""
    firsts = map(_FIRST, map(str.lstrip, texts))
    return [_LABEL if letter else line_kind(t) for t, letter in zip(texts, map(str.isalpha, firsts))]


def _label_then_other(kind: str, nxt: str) -> bool:
    """A label line followed by a line that is no label (where a row's figures may follow)."""
    return kind == _LABEL and nxt != _LABEL


@dataclass(frozen=True)
class Row:
    """One vertical row: its span (absolute offsets) and cells (label, then figures)."""

    start: int
    end: int
    cells: list[str]


def _row_at(kinds: list[str], texts: list[str], k: int, n: int) -> tuple[int, int] | None:
    """The row whose label is line ``k``: (its last figure line, its number of figures), or
    None when line k is no row label. A row ends before the next label line."""
    if kinds[k] != "label" or len(texts[k].strip()) > MAX_LABEL_CHARS:
        return None
    last, figures = k, 0
    j = k + 1
    while j < n and kinds[j] in ("blank", "sign", "figure"):
        if kinds[j] == "figure":
            last = j
            if not YEAR_CELL.fullmatch(texts[j].strip()):
                figures += 1
        elif kinds[j] == "sign" and last > k:
            last = j if texts[j].strip().startswith(")") or texts[j].strip() == "%" else last
        j += 1
    return last, figures


def vertical_tables(texts: list[str], stop: list[bool], taken: dict[int, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """Vertical tables: header start line -> (first row line, last line), for runs of at least
    ``MIN_ROWS`` rows with two or more figures (label lines between them allowed, up to
    ``MAX_LABELS`` in a row); ``stop``: lines no table crosses (furniture, page titles);
    ``taken``: the tables already found (their lines are left alone)."""
    n = len(texts)
    kinds = _kinds(texts)
    # a row with two figures is a label line followed by a line that is no label; a table
    # needs MIN_ROWS of them: a document with fewer has none (most have none at all)
    # (the rows read here are the scan's first memo entries)
    memo: dict[int, tuple[int, int] | None] = {
        k: _row_at(kinds, texts, k, n) for k in compress(range(n - 1), map(_label_then_other, kinds, kinds[1:]))}
    if sum(1 for row in memo.values() if (row or (0, 0))[1] >= 2) < MIN_ROWS:
        return {}
    # a lone figure or sign is a cell here, even where page layout took it for page furniture
    stop = [s and kind not in ("figure", "sign") for s, kind in zip(stop, kinds)]
    busy = [False] * n
    for h, (_, last) in taken.items():
        for k in range(h, last + 1):
            busy[k] = True
    out: dict[int, tuple[int, int]] = {}

    def row_at(j: int) -> tuple[int, int] | None:   # each label line's row read once
        if j not in memo:
            memo[j] = _row_at(kinds, texts, j, n)
        return memo[j]
    k = 0
    while k < n:
        if busy[k] or stop[k] or kinds[k] != "label":
            k += 1
            continue
        first, last, full, labels, j = k, None, 0, 0, k
        while j < n and not busy[j] and not stop[j]:
            if kinds[j] != "label":
                j += 1
                continue
            row = row_at(j)
            if row is None:
                break
            row_last, figures = row
            if figures >= 2:
                full, labels, last = full + 1, 0, row_last
            else:  # a group label ("Current assets:") or a label that wraps around a figure
                labels += 1   # ("... allowance for doubtful accounts of $ 650 and $ 633 ...")
                if labels > MAX_LABELS:
                    break
            if any(stop[x] for x in range(j, row_last + 1)):
                break
            j = row_last + 1
        if full >= MIN_ROWS and last is not None:
            out[_header_start(texts, first, busy)] = (first, last)
            k = last + 1
        else:
            k += 1
    return out


def _header_start(texts: list[str], first: int, busy: list[bool]) -> int:
    """The first line of the dates and years right above the first row ("June 30,", "2023",
    "2022"), blank lines between them allowed; ``first`` when there are none."""
    h, seen, k = first, 0, first - 1
    while k >= 0 and seen < MAX_HEADER_LINES and not busy[k]:
        s = texts[k].strip()
        if not s:
            k -= 1
            continue
        # dates and years (which page layout may have taken for a running header)
        if YEAR_CELL.fullmatch(s) or (len(s) <= 40 and s.endswith(",") and _LETTERS.search(s)):
            h, seen = k, seen + 1
            k -= 1
            continue
        break
    return h


def vertical_rows(body: list[tuple[int, int, str]]) -> list[Row]:
    """Rows of a vertical table body (``(start, end, text)`` of each non-blank line, in
    order): each label line with the figure and sign lines after it, up to the next label;
    a sign joins the figure it belongs to ("$" + "34,704", "(" + "1,444" + ")")."""
    out: list[Row] = []
    cur: list[tuple[int, int, str]] = []

    def flush() -> None:
        if cur:
            out.append(_row(cur))
            cur.clear()
    for s, e, text in body:
        if line_kind(text) == "label":
            flush()
        cur.append((s, e, text))
    flush()
    return out


def _row(lines: list[tuple[int, int, str]]) -> Row:
    label = " ".join(lines[0][2].split()) if line_kind(lines[0][2]) == "label" else ""
    cells: list[str] = []
    pending = ""
    for s, e, text in lines[0 if not label else 1:]:
        t = text.strip()
        if line_kind(t) == "sign" and t[0] in "$€£¥(":
            pending += t
        elif line_kind(t) == "sign" and cells:
            cells[-1] += t
        elif line_kind(t) == "figure":
            cells.append((pending + " " + t if pending.endswith(tuple("$€£¥")) else pending + t).strip())
            pending = ""
    stripped = lines[-1][2].rstrip()
    start = lines[0][0] + len(lines[0][2]) - len(lines[0][2].lstrip())
    return Row(start, lines[-1][0] + len(stripped), [label] + cells)
