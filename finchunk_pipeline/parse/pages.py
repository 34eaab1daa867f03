"""Pages of text extracted from a PDF: where pages end, what is page furniture, and the
title lines at the top of a page.

Text extracted from a filing's PDF (pypdf, pdftotext, a vendor's export) keeps the page's
furniture inline: a running header ("Table of Contents", the company name, "2021 FORM 10-K"),
the page number at the bottom ("27", "F-43", "-37-", "Page 96"), and the pages are joined by
a blank line or a form feed. Left as text, the furniture glues itself into paragraphs and
headings ("Table of Contents ACTIVISION BLIZZARD, INC. CONSOLIDATED STATEMENTS OF
OPERATIONS" as one paragraph), and a statement's title — the one line that says what the
numbers below it are — is lost from the section path.

``page_layout(lines)`` reads the lines (strings) of such a text and returns, per line:

- ``page``: 1 + the page breaks before it. A page ends at a form feed, or at a page-number
  line followed by a blank line (or the end of the text);
- ``furniture``: page numbers at page ends; "Table of Contents" / "Index to Financial
  Statements" lines next to a page break; and running lines — short lines that recur at page
  tops or bottoms (within ``EDGE`` lines of a break) on at least ``RUNNING_MIN`` pages;
- ``title``: the first lines of a page, after its furniture, that read like a title —
  ALL-CAPS lines and statement/notes titles ("Consolidated Statements of Operations",
  "Notes to Consolidated Financial Statements (continued)") — at most ``MAX_TITLE_LINES``.

Nothing is rewritten: the caller decides what blocks the flags make (offsets stay exact).
"""
from __future__ import annotations

import re
from collections import Counter
from itertools import accumulate, compress
from dataclasses import dataclass, field

EDGE = 3              # lines from a page break where running headers / footers live
RUNNING_MIN = 3       # pages a short line must recur on to be a running header / footer
RUNNING_MAX_CHARS = 70
MAX_TITLE_LINES = 4

PAGE_NUMBER = re.compile(
    r"^\s*(?:page\s+)?(?:[A-Z]{1,2}\s?-\s?)?\d{1,4}(?:\s+of\s+\d{1,4})?\s*$"   # 27, F-43, Page 96, 3 of 40
    r"|^\s*[-–—]\s*\d{1,4}\s*[-–—]\s*$"                                        # -37-
    r"|^\s*[ivxlc]{1,6}\s*$",                                                  # roman page numbers
    re.I)
INDEX_LINE = re.compile(r"^\s*(?:table\s+of\s+contents|index\s+to\s+(?:consolidated\s+)?financial\s+statements)\s*$",
                        re.I)
STATEMENT_TITLE = re.compile(
    r"^\s*(?:(?:consolidated|combined|condensed|consolidating|unaudited)\s+)*"
    r"(?:statements?\s+of\s+\w|balance\s+sheets?\b|notes?\s+to\s+(?:the\s+)?(?:consolidated\s+|condensed\s+)*"
    r"financial\s+statements|schedule\s+[ivx]+\b|report\s+of\s+independent)",
    re.I)


@dataclass
class PageLayout:
    page: list[int]
    furniture: list[bool]
    title: list[bool]
    starts: list[int] = field(default_factory=list)  # the first line of each page

    @property
    def pages(self) -> int:
        return self.page[-1] if self.page else 0


def _norm(line: str) -> str:
    return " ".join(line.split()).lower()


def _all_caps(s: str) -> bool:
    letters = [c for c in s if c.isalpha()]
    return len(letters) >= 4 and all(c.isupper() for c in letters)


def _title_line(s: str) -> bool:
    s = s.strip()
    if not s or len(s) > 120 or s.endswith((",", ";")) or len(s.split()) > 16:
        return False
    if STATEMENT_TITLE.match(s):
        return True
    return _all_caps(s) and not s.endswith(".")


def _form_feed_follows(k: int, blank: list[bool], ff: list[bool]) -> bool:
    """A form feed comes after line k before the next non-blank line (it is the break)."""
    j = k
    while j < len(blank):
        if ff[j]:
            return True
        j += 1
        if j < len(blank) and not blank[j]:
            return False
    return False


def page_layout(lines: list[str], form_feed_after: list[bool] | None = None,
                blank: list[bool] | None = None) -> PageLayout:
    """Per-line page number, furniture and page-title flags (see the module docstring).

    ``form_feed_after[k]``: a form feed follows line k (a hard page break); ``blank[k]``:
    line k is whitespace only (computed when not given)."""
    n = len(lines)
    if blank is None:
        blank = [not ln.strip() for ln in lines]
    ends = _page_ends(lines, form_feed_after or [False] * n, blank)
    page = list(accumulate(ends[:-1], initial=1)) if n else []  # 1 + the page ends before each line
    starts = [0] + [k + 1 for k in compress(range(n - 1), ends)] if n else []
    furniture = _furniture(lines, _edge_lines(starts, ends, blank), ends)
    return PageLayout(page, furniture, _titles(lines, starts, blank, furniture), starts)


def _page_ends(lines: list[str], ff: list[bool], blank: list[bool]) -> list[bool]:
    """Page ends: a form feed, or a page-number line followed by a blank line / the end
    (the cheap conditions first; the regex only on the non-blank lines before a blank line)."""
    n = len(lines)
    any_ff = any(ff)
    ends = list(ff) if any_ff else [False] * n
    match_page_number = PAGE_NUMBER.match
    # the lines before a blank line (compress: the blank lines' numbers, less one), and the last
    before_blank = [k - 1 for k in compress(range(1, n), blank[1:])] + ([n - 1] if n else [])
    for k in before_blank:
        if not ends[k] and not blank[k] and match_page_number(lines[k]) \
                and not (any_ff and _form_feed_follows(k, blank, ff)):
            ends[k] = True
    return ends


def _edge_lines(starts: list[int], ends: list[bool], blank: list[bool]) -> list[int]:
    """The EDGE non-blank lines after a page start / before a page end, in order (a line
    that both starts and ends a page looks forward only)."""
    n = len(blank)
    is_start = set(starts)
    near = set()
    for k in starts:
        j, seen = k, 0
        while j < n and seen < EDGE:
            if not blank[j]:
                near.add(j)
                seen += 1
            j += 1
    for k in compress(range(n), ends):
        if k not in is_start:
            j, seen = k, 0
            while j >= 0 and seen < EDGE:
                if not blank[j]:
                    near.add(j)
                    seen += 1
                j -= 1
    return sorted(near)


def _furniture(lines: list[str], near_lines: list[int], ends: list[bool]) -> list[bool]:
    """Among the lines near a page break: page numbers at page ends, index lines, and short
    lines recurring on at least RUNNING_MIN pages."""
    normed = {k: _norm(lines[k]) for k in near_lines if len(lines[k].strip()) <= RUNNING_MAX_CHARS}
    counts = Counter(normed.values())
    running = {t for t, c in counts.items() if c >= RUNNING_MIN}
    furniture = [False] * len(lines)
    for k in near_lines:
        s = lines[k]
        if (ends[k] and PAGE_NUMBER.match(s)) or INDEX_LINE.match(s) \
                or (running and (normed[k] if k in normed else _norm(s)) in running):
            furniture[k] = True
    return furniture


def _titles(lines: list[str], starts: list[int], blank: list[bool], furniture: list[bool]) -> list[bool]:
    """Page titles: after a page's leading furniture, up to MAX_TITLE_LINES title-like lines."""
    n = len(lines)
    is_start = set(starts)
    title = [False] * n
    for k in starts:
        j = k
        while j < n and (blank[j] or furniture[j]) and not (j > k and j in is_start):
            j += 1
        taken = 0
        while j < n and taken < MAX_TITLE_LINES and not blank[j] and not furniture[j] and _title_line(lines[j]):
            title[j] = True
            taken += 1
            j += 1
    return title
