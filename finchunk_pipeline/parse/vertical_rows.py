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
from bisect import bisect_left
from collections import Counter
from itertools import accumulate, compress, count
from operator import and_, itemgetter, not_

from .line_kinds import YEAR_CELL
from .shifted_rows import Row   # a row re-cut out of its lines: span and cells, as for shifted tables

_FIGURE_LINE = re.compile(r"\(?[$€£¥]?\s?(?:\d[\d,]*(?:\.\d+)?|[—–-])\s?\)?%?")
_SIGN_CHARS = "$€£¥()%"
_LETTERS = re.compile(r"[^\W\d_]")
_FIRST = itemgetter(slice(1))   # a string's first character ("" for "")
_LABEL = "label"
_BLANK = "blank"
_FIGURE = "figure"
_NOT_CELL = frozenset((_LABEL, _BLANK))   # kinds of line that are no cell
# the first character of a sign line (``_SIGN_CHARS``) or of a ``_FIGURE_LINE`` besides a decimal digit
_OPENS = frozenset("$€£¥()%—–-")
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
    if not s.strip(_SIGN_CHARS):   # every character a sign
        return "sign"
    if _FIGURE_LINE.fullmatch(s):
        return "figure"
    return "label"


def _kinds(texts: list[str]) -> list[str]:
    """``line_kind`` of every line, told by its first non-blank character where that decides
    (decided once per distinct character): none is a blank line; one that neither a sign nor
    a figure starts with (``_OPENS``, a decimal digit) a label; only the others are read."""
    firsts = list(map(_FIRST, map(str.lstrip, texts)))
    told = {c: _BLANK if not c else None if c in _OPENS or c.isdecimal() else _LABEL for c in set(firsts)}
    kinds = list(map(told.__getitem__, firsts))
    for j in compress(count(), map(not_, kinds)):
        kinds[j] = line_kind(texts[j])
    return kinds


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
    label_lines = list(compress(range(n), map(_LABEL.__eq__, kinds)))
    # a table needs MIN_ROWS rows with two figures: a document with fewer has none (most
    # have none at all)
    rank = list(accumulate(map(_LABEL.__eq__, kinds), initial=0))   # label lines before each line
    fulls = _full_rows(kinds, texts, label_lines, rank)
    if len(fulls) < MIN_ROWS:
        return {}
    # a lone figure or sign is a cell here, even where page layout took it for page furniture
    stop = list(map(and_, stop, map(_NOT_CELL.__contains__, kinds)))
    busy = [False] * n
    for h, (_, last) in taken.items():
        for k in range(h, last + 1):
            busy[k] = True
    out: dict[int, tuple[int, int]] = {}
    memo: dict[int, tuple[int, int] | None] = {}   # the rows read (line -> _row_at)
    # a run reaches a row with two figures only across at most MAX_LABELS label lines (its
    # first included): a label line with more before the next such row starts no table
    k = 0
    while k < n:
        if busy[k] or stop[k] or kinds[k] != _LABEL:
            k += 1
            continue
        f = bisect_left(fulls, k)
        if f == len(fulls):   # no row with two figures at or after k
            break
        if rank[fulls[f]] - rank[k] > MAX_LABELS:
            k = label_lines[rank[fulls[f]] - MAX_LABELS]
            continue
        full, last, resume = _run_from(k, kinds, texts, busy, stop, memo)
        if full >= MIN_ROWS and last is not None:
            out[_header_start(texts, k, busy)] = (k, last)
            k = last + 1
        else:   # no run starting before ``resume`` holds MIN_ROWS rows either (``_run_from``)
            k = max(k + 1, resume)
    return out


def _run_from(k: int, kinds: list[str], texts: list[str], busy: list[bool], stop: list[bool],
              memo: dict[int, tuple[int, int] | None]) -> tuple[int, int | None, int]:
    """The run of rows from label line ``k``: (its rows with two or more figures, the last line
    of the last of them, ``resume``). The run meets every label line from k on and ends at a
    busy or stop line, a line that is no row label, a stop line inside a row, or the
    ``MAX_LABELS + 1``-th label line in a row without two figures. A run starting at a label
    line after k and before ``resume`` follows the same lines, ends there too and has no more
    rows: the line where the run ended, or, when it ended at too many labels, the line after
    the first of those labels (a run from a later one starts with fewer labels in a row).
    ``memo``: the rows read so far (line -> ``_row_at``), added to."""
    n = len(kinds)
    last, full, labels, j, first_label = None, 0, 0, k, k
    while j < n and not busy[j] and not stop[j]:
        if kinds[j] != _LABEL:
            j += 1
            continue
        row = memo[j] if j in memo else memo.setdefault(j, _row_at(kinds, texts, j, n))
        if row is None:
            return full, last, j
        row_last, figures = row
        if figures >= 2:
            full, labels, last = full + 1, 0, row_last
        else:  # a group label ("Current assets:") or a label that wraps around a figure
            labels += 1   # ("... allowance for doubtful accounts of $ 650 and $ 633 ...")
            if labels == 1:
                first_label = j
            if labels > MAX_LABELS:
                return full, last, first_label + 1
        if row_last > j and any(stop[x] for x in range(j + 1, row_last + 1)):   # stop[j] is False
            return full, last, j
        j = row_last + 1
    return full, last, j


def _full_rows(kinds: list[str], texts: list[str], label_lines: list[int], rank: list[int]) -> list[int]:
    """The label lines whose row (``_row_at``) has two or more figures, in order. A row runs
    from its label to the next label line, so each figure line that is no year counts for
    the last label line above it (``label_lines[rank[j] - 1]``; ``rank[j]``: the label lines
    before line j)."""
    count_of = Counter(rank[j] for j in compress(range(len(kinds)), map(_FIGURE.__eq__, kinds))
                       if not YEAR_CELL.fullmatch(texts[j].strip()))
    labels = [label_lines[r - 1] for r in sorted(count_of) if r > 0 and count_of[r] >= 2]
    return [k for k in labels if len(texts[k].strip()) <= MAX_LABEL_CHARS]


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
        kind = line_kind(t)
        if kind == "sign" and t[0] in "$€£¥(":
            pending += t
        elif kind == "sign" and cells:
            cells[-1] += t
        elif kind == "figure":
            cells.append((pending + " " + t if pending.endswith(tuple("$€£¥")) else pending + t).strip())
            pending = ""
    stripped = lines[-1][2].rstrip()
    start = lines[0][0] + len(lines[0][2]) - len(lines[0][2].lstrip())
    return Row(start, lines[-1][0] + len(stripped), [label] + cells)
