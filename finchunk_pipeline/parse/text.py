"""Plain-text parser (format "text", e.g. text extracted from PDF annual reports).

The view is the raw text (identity offsets): ``raw[block.start:block.end] == block.text``.

- lines are split on ``\\n`` and on form feeds ``\\f`` (page breaks); every block gets
  ``attrs["page"]`` = 1 + number of form feeds before it.
- paragraphs: runs of non-blank lines (blank line, form feed, heading or table end them).
- headings: ``PART I`` (level 1), ``Item 7.`` lines (level 2; a paragraph that starts with an
  Item line is split into heading + paragraph), ALL-CAPS lines (level 3), ``Note 4 - ...``
  lines (level 3) and short title-like one-line paragraphs followed by a blank line (level 4).
  A heading's ``section_path`` includes its own text.
- tables: consecutive lines with 2+ numeric cells separated by 2+ spaces (or tabs); short label
  lines ("Operating expenses:") and single blank lines between such rows stay in the table.
  The header is the directly preceding non-numeric multi-column / year lines (up to 3).
  ``columns`` aligns header cells to the numeric columns by character position. One TABLE
  block + one TABLE_ROW per line (``cells``, ``is_header``); row text is the raw line. A
  statement written by PDF extraction with each row's figures opening the next line is a
  table too, re-cut so each row is its label and its own figures (``shifted_rows.py``); so is
  one written a cell per line, each row from its label to its last figure (``vertical_rows.py``).
- footnotes: superscript digits (``Revenue¹``) and ``(1)`` after a row label or a word are
  cites; a line after a citing block starting with a cited mark (``(1) ...``, ``¹ ...``,
  ``1 ...``, ``* ...``) is a NOTE with ``mark``. Lone page numbers get ``furniture``.
- Spanish documents (``meta["language"]`` "es"; English rules unchanged and first): ``Nota 7 —
  ...`` lines are level-3 headings like ``Note 7``, and the sections of Spanish filings
  (``Informe de gestión``, ``Cuentas anuales``, ``Datos fundamentales para el inversor``,
  ``Memoria`` …, optionally numbered) are level-2 headings that also end a paragraph.

Where each idea lives: what a line is (``line_kinds.py``), tables (``text_tables.py``), the
blocks being built (``builder.py``), pages of extracted text (``pages.py``); this module
reads the lines once and walks them.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from operator import add, itemgetter, not_, or_
from typing import Any

from ..hashing import sha256_text
from ..lang.codes import normalise
from ..lang.current import document_language
from ..types.blocks import ParsedDocument
from ..types.offsets import OffsetMap
from .builder import DocBuilder
from .gcpause import without_gc
from .line_kinds import (
    NOTE_FIRST,
    PAGE_NO,
    PART_ITEM_HEADS,
    is_part_or_item,
    line_heading_level,
    looks_title,
    note_mark,
    spanish,
)
from .lines import line_spans
from .pages import page_layout
from .row_figures import forget_figures
from .table_extent import find_tables
from .text_tables import emit_layout_line, rows
from .vertical_rows import vertical_tables

# 2: pages of extracted text (parse/pages.py): page ends at page-number lines, furniture
#    blocks, page-top title lines as headings; spacer lines inside tables
# 3: rows whose figures follow the label after single spaces (parse/row_figures.py), label
#    lines (wrapped too) between header and rows, column titles by count in extracted text
# 4: statements whose figures open the next line ("3,587 439 Accounts receivable, net") are
#    tables re-cut into rows pairing each label with its own figures (parse/shifted_rows.py)
# 5: statements written one cell per line are tables, each row from its label to its last
#    figure (parse/vertical_rows.py)
VERSION = "5"
LANGUAGES = ("es",)  # languages with rules of their own: their blocks are stored apart (registry.key_for)
FORMATS = ("text",)  # the corpus formats it reads (parse/registry.py)
_FIRST_TWO = itemgetter(slice(2))   # s[:2]


@without_gc
def parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    with document_language(normalise((meta or {}).get("language"), f"document {doc_id}")):
        return _parse(doc_id, text, meta)


def _parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    """Read the lines (pages, blanks, rows), find the tables, then emit each line's block."""
    if text is None or not text.strip():
        raise ValueError(f"{doc_id}: text document is empty")
    forget_figures()
    d = DocBuilder(doc_id, text)
    lines = _read_lines(text)
    d.ff = lines.page_starts()
    tables = find_tables(lines.n, lines.row, lines.blank, lines.L,
                         lambda h: not lines.ff_after[h - 1] and not lines.title[h - 1])
    # statements of one cell per line (parse/vertical_rows.py); no table crosses page furniture,
    # a page title or a form feed
    ends = list(map(or_, map(or_, lines.furniture, lines.title), [False] + lines.ff_after[:-1]))
    tables.update(vertical_tables(lines.texts, ends, tables))
    stops = _stops(lines, tables)
    # an empty line (never furniture, nor a table's first line) emits nothing: skipped
    filled = bytes(map(not_, lines.empty))
    i = filled.find(1)
    while i >= 0:
        i = filled.find(1, _emit_at(d, lines, tables, stops, i))
    if not d.blocks:
        raise ValueError(f"{doc_id}: no text blocks found")
    return ParsedDocument(
        doc_id=doc_id, doc_sha=sha256_text(text), parser="text", parser_version=VERSION,
        view_text=text, offsets=OffsetMap.identity(len(text)), blocks=d.blocks, warnings=[],
    )


@dataclass
class _Lines:
    """Per line of the text (split on ``\\n`` and ``\\f``): its span and text, a form feed
    after it, its first two non-blank characters, and what the page layout and table rows say."""

    text: str
    spans: list[tuple[int, int]]
    texts: list[str]
    ff_after: list[bool]
    firsts: list[str]
    empty: list[bool]
    page_first: list[int]      # the first line of each page
    furniture: list[bool]
    title: list[bool]
    blank: list[bool]          # empty or furniture: both end a block
    row: list[bool]
    n: int = 0

    def __post_init__(self) -> None:
        self.n = len(self.spans)

    def L(self, k: int) -> str:
        return self.texts[k]

    def page_starts(self) -> list[int]:
        """The offsets where a new page starts (a line's end whose next line is on another page)."""
        return [self.spans[k - 1][1] for k in self.page_first[1:]]


def _read_lines(text: str) -> _Lines:
    # lines split on \n and \f; each (start, end) excludes the separator and a trailing \r
    if "\f" in text or "\r" in text:
        spans = line_spans(text, "\n\f")
        texts = [text[a:b] for a, b in spans]
    else:  # the lines are split once; their spans follow from their lengths
        texts = text.split("\n")
        starts = list(accumulate(map((1).__add__, map(len, texts)), initial=0))
        spans = list(zip(starts, map(add, starts, map(len, texts))))
    n = len(spans)
    # a form feed ends a block like a blank line does
    if "\f" in text:
        ff_after = [spans[k][1] < len(text) and text[spans[k][1]:spans[k][1] + 2].lstrip("\r")[:1] == "\f"
                    for k in range(n)]
    else:
        ff_after = [False] * n
    # first two non-blank characters of each line ("" for a blank line): cheap pre-checks
    firsts = list(map(_FIRST_TWO, map(str.lstrip, texts)))
    empty = list(map(not_, firsts))
    # pages of extracted text: page ends, furniture (page numbers, running headers) and the
    # title lines at a page's top (parse/pages.py); furniture ends blocks like a blank line
    layout = page_layout(texts, ff_after, blank=empty)
    blank = list(map(or_, layout.furniture, empty))
    return _Lines(text, spans, texts, ff_after, firsts, empty, layout.starts, layout.furniture, layout.title,
                  blank, rows(text, texts, blank, layout.title, shifted=True))


def _stops(lines: _Lines, tables: dict[int, tuple[int, int]]) -> tuple[list[bool], list[bool], bytes]:
    """``stop``: a line that ends a paragraph whatever the state (blank, after a form feed, a
    page title, a table's first line); ``maybe``: a line that may start a note or a PART /
    Item heading, by its first two characters (checked exactly when met); ``either``: one byte
    per line, 1 where either holds (``bytes.find`` skips the lines in between)."""
    stop = list(map(or_, lines.blank, lines.title))
    if "\f" in lines.text:
        for k in range(1, lines.n):
            if lines.ff_after[k - 1]:
                stop[k] = True
    for k in tables:
        stop[k] = True
    # decided once per distinct pair of first characters (far fewer than the lines)
    heads = {c: c[:1] in NOTE_FIRST or c[:1].isdecimal() or c in PART_ITEM_HEADS for c in set(lines.firsts)}
    maybe = list(map(heads.__getitem__, lines.firsts))
    if spanish():  # Spanish section titles end a paragraph too: any line may start one
        maybe = list(map(not_, lines.empty))
    return stop, maybe, bytes(map(or_, stop, maybe))


def _emit_at(d: DocBuilder, lines: _Lines, tables: dict[int, tuple[int, int]],
             stops: tuple[list[bool], list[bool], bytes], i: int) -> int:
    """Emit the block starting at line i (a table, furniture, a page title, a note, a
    heading or a paragraph); returns the line after it."""
    after = emit_layout_line(d, lines.text, lines, tables, i, shifted=True)
    if after is not None:
        return after
    s, e = lines.spans[i]
    cur = lines.texts[i]
    if lines.title[i]:
        lvl = line_heading_level(cur)
        d.heading(lvl if lvl in (1, 2) else 3, s, e)
        return i + 1
    stop, maybe, either = stops
    nm = note_mark(cur, d.recent) if maybe[i] else None
    if nm is not None:
        d.note(nm, s, e, d.recent.get(nm))
        return i + 1
    level = _heading_level(lines, tables, i)
    if level:
        d.heading(level, s, e)
        return i + 1
    # paragraph: up to a stop line, a note or a PART / Item heading (lines that are neither
    # a stop nor a maybe are skipped by one bytes.find)
    j = either.find(1, i + 1)
    while j >= 0 and not stop[j]:
        nxt = lines.texts[j]
        if note_mark(nxt, d.recent) is not None or is_part_or_item(nxt):
            break
        j = either.find(1, j + 1)
    if j < 0:
        j = lines.n
    d.paragraph(s, lines.spans[j - 1][1], furniture=j == i + 1 and bool(PAGE_NO.match(cur)))
    return j


def _heading_level(lines: _Lines, tables: dict[int, tuple[int, int]], i: int) -> int:
    """The level of the heading line i is (0: none). A heading line (``line_heading_level``)
    of level 3 counts alone on its line, before another heading or before a table, and
    when short; a one-line title-like paragraph after a blank line is a level-4 heading."""
    cur = lines.texts[i]
    lvl = line_heading_level(cur)
    single = i + 1 >= lines.n or lines.blank[i + 1] or lines.ff_after[i]
    if lvl and (lvl <= 2 or single or line_heading_level(lines.L(i + 1)) or (i + 1) in tables):
        if lvl <= 2 or len(cur.strip()) <= 100:
            return lvl
    if single and (i == 0 or lines.blank[i - 1] or lines.ff_after[i - 1]) and looks_title(cur):
        return 4
    return 0
