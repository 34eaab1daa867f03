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
  block + one TABLE_ROW per line (``cells``, ``is_header``); row text is the raw line.
- footnotes: superscript digits (``Revenue¹``) and ``(1)`` after a row label or a word are
  cites; a line after a citing block starting with a cited mark (``(1) ...``, ``¹ ...``,
  ``1 ...``, ``* ...``) is a NOTE with ``mark``. Lone page numbers get ``furniture``.
- Spanish documents (``meta["language"]`` "es"; English rules unchanged and first): ``Nota 7 —
  ...`` lines are level-3 headings like ``Note 7``, and the sections of Spanish filings
  (``Informe de gestión``, ``Cuentas anuales``, ``Datos fundamentales para el inversor``,
  ``Memoria`` …, optionally numbered) are level-2 headings that also end a paragraph.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any

from ..storage import sha256_text
from .footnotes import SUPERSCRIPTS, cited_marks, sup_to_digits
from .gcpause import without_gc
from .lines import UNIT, line_spans
from .model import Block, BlockKind, ParsedDocument
from .offsets import OffsetMap
from .pages import page_layout

# 2: pages of extracted text (parse/pages.py): page ends at page-number lines, furniture
#    blocks, page-top title lines as headings; spacer lines inside tables
VERSION = "2"
LANGUAGES = ("es",)  # languages with rules of their own: their blocks are stored apart (registry.key_for)

_CELL_SPLIT = re.compile(r"\s{2,}|\t+")
_NUM = re.compile(
    r"^[$€£¥]?\s*[(\-–—+]?\s*[$€£¥]?\s*\d[\d,]*(?:\.\d+)?\s*\)?\s*(?:%|x|pts|bps)?\)?$|^[—–-]{1,3}$|^n/?[ma]$",
    re.I,
)
_YEAR = re.compile(r"\b(?:FY\s?)?(?:19|20)\d\d\b")
_PART = re.compile(r"^\s*part\s+(?:i{1,3}|iv|v)\b", re.I)
_ITEM = re.compile(r"^\s*item\s*\d{1,2}[a-z]?\s*[.:\-–—]", re.I)
_NOTE_HEAD = re.compile(r"^\s*note\s+\d{1,2}\s*[.:\-–—]\s*\S", re.I)
_NOTE_LINE = re.compile(rf"^\s*(?:\(\s*(\d{{1,2}}|[a-z])\s*\)|([{SUPERSCRIPTS}]+)|(\d{{1,2}})(?=\s)|([*†‡]+))\s*\S")
_PAREN_CITE = re.compile(r"(?<=[A-Za-z)\]])\s?\(\s*(\d{1,2}|[a-z])\s*\)(?=\s|$|[,.;:])")
_RULE = re.compile(r"^[-=_—–\s]+$")
_PAGE_NO = re.compile(r"^\s*(?:page\s+)?\d{1,3}(?:\s+of\s+\d{1,3})?\s*$|^\s*-\s*\d{1,3}\s*-\s*$", re.I)


_YEAR_CELL = re.compile(r"(?:19|20)\d\d")


def _is_num(cell: str) -> bool:
    c = cell.strip()
    return bool(_NUM.match(c)) and not _YEAR_CELL.fullmatch(c)


def _cells(line: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of the cells of a line, positions relative to the line."""
    out = []
    pos = 0
    stripped_start = len(line) - len(line.lstrip())
    for m in _CELL_SPLIT.finditer(line):
        if m.start() > pos and line[pos:m.start()].strip():
            out.append((pos, m.start(), line[pos:m.start()]))
        pos = m.end()
    if line[pos:].strip():
        out.append((pos, len(line.rstrip()), line[pos:].rstrip()))
    if out and stripped_start and out[0][0] == 0:
        s, e, t = out[0]
        out[0] = (stripped_start, e, t.lstrip())
    return out


def _is_row(line: str) -> bool:
    """Two or more cells (``_cells``), two or more of them numeric."""
    # the cell texts of _cells are the non-blank pieces between separators (edges aside,
    # which _is_num strips; a blank piece is never numeric)
    pieces = _CELL_SPLIT.split(line)
    if len(pieces) < 2:  # no separator: one cell at most
        return False
    n_num = 0
    num, year = _NUM.match, _YEAR_CELL.fullmatch
    for c in pieces:
        c = c.strip()
        if c and num(c) and not year(c):  # _is_num(c)
            n_num += 1
            if n_num == 2:
                return True
    return False


# whitespace str.isspace() knows besides " ", "\t" and the line breaks "\n", "\f"
_OTHER_SPACE = re.compile("[\r\x0b\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
# the first non-blank character of a line _NOTE_LINE or a PART / Item heading can match
# (besides decimal digits); re.I lets "İ" and "ı" match "i"
_NOTE_OR_PART_FIRST = frozenset("(*†‡" + SUPERSCRIPTS + "pPiIİı")


def _rows(lines: list[tuple[int, int]], text: str, texts: list[str], blank: list[bool],
          title: list[bool]) -> list[bool]:
    """``[not blank and not title and _is_row(line)]`` per line. A row has two cells, so a
    separator inside the line: two whitespace characters in a row, or a tab. With every
    other whitespace character read as a space, that is "  " or "\t" in the line, found
    without a regex; only such lines are split into cells."""
    if _OTHER_SPACE.search(text) is None:
        spaced = texts
    else:
        norm = text.replace("\xa0", " ")
        if _OTHER_SPACE.search(norm) is not None:
            norm = _OTHER_SPACE.sub(" ", norm)
        # same lines: only characters other than the line breaks were replaced (a trailing
        # "\r" read as a space can only add a candidate, which _is_row then rejects)
        spaced = norm.split("\n") if "\f" not in text else [norm[a:b] for a, b in lines]
    return [not b and not t and ("  " in y or "\t" in y) and _is_row(x)
            for x, y, b, t in zip(texts, spaced, blank, title)]


def _is_header_line(line: str) -> bool:
    if not line.strip() or _is_row(line):
        return False
    cells = _cells(line)
    if len(cells) >= 2 and all(len(c) <= 40 for _, _, c in cells):
        return True
    return len(_YEAR.findall(line)) >= 2 and len(line.strip()) <= 120


class _Doc:
    def __init__(self, doc_id: str, text: str):
        self.doc_id, self.text = doc_id, text
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []
        self.ff = [m.start() for m in re.finditer("\f", text)] if "\f" in text else []
        self.recent: dict[str, str] = {}
        self._path: tuple[list, tuple[str, ...]] | None = None

    def page(self, pos: int) -> int:
        return 1 + bisect_right(self.ff, pos)

    @property
    def path(self) -> tuple[str, ...]:
        cached = self._path
        if cached is None or cached[0] != self.headings:  # recomputed only after a heading change
            cached = self._path = (list(self.headings), tuple(h for _, h in self.headings))
        return cached[1]

    def add(self, kind: str, start: int, end: int, attrs: dict[str, Any] | None = None,
            parent: str | None = None) -> Block:
        t = self.text
        while start < end and t[start].isspace():
            start += 1
        while end > start and t[end - 1].isspace():
            end -= 1
        attrs = dict(attrs or {})
        attrs.setdefault("page", self.page(start))
        seq = len(self.blocks)
        b = Block(self.doc_id, f"{self.doc_id}#b{seq:05d}", seq, kind, start, end, start, end, t[start:end],
                  self.path, parent, attrs)
        self.blocks.append(b)
        return b

    def heading(self, level: int, start: int, end: int) -> None:
        title = " ".join(self.text[start:end].split())
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, title))
        self.add(BlockKind.HEADING, start, end, {"level": level})
        self.recent = {}


def _cites(text: str) -> list[str]:
    marks = cited_marks(text)
    if "(" in text:
        for m in _PAREN_MARK.finditer(text):
            if m.group(1) not in marks and _paren_cite_at(text, m.start()):
                marks.append(m.group(1))
    return marks


# _PAREN_CITE without its look-behind, so the search starts at a literal "(" (fast); the
# look-behind is checked per match (_paren_cite_at): the same matches, in the same order
_PAREN_MARK = re.compile(r"\(\s*(\d{1,2}|[a-z])\s*\)(?=\s|$|[,.;:])")
_CITE_BEFORE = re.compile(r"[A-Za-z)\]]")


def _paren_cite_at(text: str, p: int) -> bool:
    """_PAREN_CITE matches at the "(" at p: a letter, ")" or "]" before it, directly or
    across one whitespace character."""
    if p >= 1 and _CITE_BEFORE.match(text, p - 1):
        return True
    return p >= 2 and text[p - 1].isspace() and _CITE_BEFORE.match(text, p - 2) is not None


_ES_NOTE_HEAD = re.compile(r"^\s*nota\s+(?:n[.º°]\s*)?\d{1,2}\s*[.:\-–—]\s*\S", re.I)
_ES_SECTION = re.compile(
    r"^\s*(?:(?:\d{1,2}|[ivx]{1,4})[.)]\s+)?(?:informe de gesti[oó]n(?: consolidado)?|cuentas anuales(?: consolidadas)?|"
    r"memoria(?: consolidada)?|informe de auditor[ií]a|estados financieros(?: consolidados)?|"
    r"datos fundamentales para el inversor|documento de datos fundamentales|objetivos? y pol[ií]tica de inversi[oó]n|"
    r"perfil de riesgo y remuneraci[oó]n|gastos|rentabilidad hist[oó]rica|informaci[oó]n pr[aá]ctica|"
    r"informe anual de gobierno corporativo|estado de informaci[oó]n no financiera|folleto)\s*[.:]?\s*$", re.I)


def _spanish() -> bool:
    from ..lang.current import current_language

    return current_language() == "es"


def _line_heading_level(line: str) -> int:
    level = _english_heading_level(line)
    if level or not _spanish():
        return level
    s = line.strip()
    if _ES_SECTION.match(s):
        return 2
    if _ES_NOTE_HEAD.match(s) and len(s) <= 120:
        return 3
    return 0


def _english_heading_level(line: str) -> int:
    s = line.strip()
    if not s or len(s) > 200:
        return 0
    if _PART.match(s) and len(s) <= 120:
        return 1
    if _ITEM.match(s):
        return 2
    if _NOTE_HEAD.match(s) and len(s) <= 120:
        return 3
    if len(s) > 100 or s.endswith((",", ";")):
        return 0
    if s.isascii() and not s.isupper():
        return 0  # an ASCII line with a lower-case letter (or none at all): not ALL CAPS
    letters = [c for c in s if c.isalpha()]
    if len(letters) >= 4 and all(c.isupper() for c in letters):
        return 3
    return 0


def _heading_level_1_2(line: str) -> bool:
    """``_line_heading_level(line) in (1, 2)``: PART and Item lines only."""
    s = line.strip()
    if not s or len(s) > 200:
        return False
    return bool((_PART.match(s) and len(s) <= 120) or _ITEM.match(s) or (_spanish() and _ES_SECTION.match(s)))


@without_gc
def parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    from ..lang.codes import normalise
    from ..lang.current import document_language

    with document_language(normalise((meta or {}).get("language"), f"document {doc_id}")):
        return _parse(doc_id, text, meta)


def _parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    if text is None or not text.strip():
        raise ValueError(f"{doc_id}: text document is empty")
    d = _Doc(doc_id, text)
    warnings: list[str] = []
    # lines split on \n and \f; each (start, end) excludes the separator and a trailing \r
    lines = line_spans(text, "\n\f")
    n = len(lines)
    texts = [text[a:b] for a, b in lines]
    L = texts.__getitem__

    # a form feed ends a block like a blank line does
    if "\f" in text:
        ff_after = [lines[k][1] < len(text) and text[lines[k][1]:lines[k][1] + 2].lstrip("\r")[:1] == "\f"
                    for k in range(n)]
    else:
        ff_after = [False] * n
    # first non-blank character of each line ("" for a blank line): cheap pre-checks below
    firsts = [t.lstrip()[:1] for t in texts]
    empty = [not c for c in firsts]
    # pages of extracted text: page ends, furniture (page numbers, running headers) and the
    # title lines at a page's top (parse/pages.py); furniture ends blocks like a blank line
    layout = page_layout(texts, ff_after, blank=empty)
    furniture, title = layout.furniture, layout.title
    page = layout.page
    d.ff = [lines[k][1] for k in range(n - 1) if page[k + 1] != page[k]]
    blank = [f or e for f, e in zip(furniture, empty)]
    row = _rows(lines, text, texts, blank, title)

    # pass 1: table extents (header start line h, first row i, last row)
    tables: dict[int, tuple[int, int]] = {}
    prev_end = 0
    for k in [k for k in range(n) if row[k]]:
        if k < prev_end or not _table_follows(k, n, row, blank, L):
            continue
        last = _table_extent(k, n, row, blank, L)
        h = k
        while h > prev_end and k - h < 3 and not blank[h - 1] and not ff_after[h - 1] \
                and not title[h - 1] and _is_header_line(L(h - 1)):
            h -= 1
        tables[h] = (k, last)
        prev_end = last + 1

    # a line that may end a paragraph whatever the state: blank, after a form feed, a page
    # title, a table's first line; and a line that may start a note or a PART / Item heading
    # (by its first character; checked exactly when met)
    stop = [b or t for b, t in zip(blank, title)]
    for k in range(1, n):
        if ff_after[k - 1]:
            stop[k] = True
    for k in tables:
        stop[k] = True
    maybe = [c in _NOTE_OR_PART_FIRST or c.isdecimal() for c in firsts]
    if _spanish():  # Spanish section titles end a paragraph too: any line may start one
        maybe = [not e for e in empty]

    i = 0
    while i < n:
        if i in tables:
            first, last = tables[i]
            _table(d, text, lines, i, first, last, row, blank, L)
            i = last + 1
            continue
        if furniture[i]:
            d.add(BlockKind.PARAGRAPH, *lines[i], {"furniture": True})
            i += 1
            continue
        if blank[i]:
            i += 1
            continue
        s, e = lines[i]
        cur = texts[i]
        if title[i]:
            lvl = _line_heading_level(cur)
            d.heading(lvl if lvl in (1, 2) else 3, s, e)
            i += 1
            continue
        # notes
        nm = _note_mark(cur, d.recent) if maybe[i] else None
        if nm is not None:
            attrs = {"mark": nm}
            if nm in d.recent:
                attrs["refers_to"] = d.recent[nm]
            d.add(BlockKind.NOTE, s, e, attrs)
            i += 1
            continue
        lvl = _line_heading_level(cur)
        single = (i + 1 >= n or blank[i + 1] or ff_after[i])
        if lvl and (lvl <= 2 or single or _line_heading_level(L(i + 1)) or (i + 1) in tables):
            if lvl <= 2 or len(cur.strip()) <= 100:
                d.heading(lvl, s, e)
                i += 1
                continue
        if single and _looks_title(cur) and (i == 0 or blank[i - 1] or ff_after[i - 1]):
            d.heading(4, s, e)
            i += 1
            continue
        # paragraph
        j = i + 1
        while j < n and not stop[j]:
            if maybe[j]:
                nxt = texts[j]
                if _note_mark(nxt, d.recent) is not None or _heading_level_1_2(nxt):
                    break
            j += 1
        end = lines[j - 1][1]
        body = text[s:end]
        attrs: dict[str, Any] = {}
        marks = _cites(body)
        if marks:
            attrs["cites"] = marks
        if j == i + 1 and _PAGE_NO.match(cur):
            attrs["furniture"] = True
        b = d.add(BlockKind.PARAGRAPH, s, end, attrs)
        for m in marks:
            d.recent[m] = b.block_id
        i = j

    if not d.blocks:
        raise ValueError(f"{doc_id}: no text blocks found")
    return ParsedDocument(
        doc_id=doc_id, doc_sha=sha256_text(text), parser="text", parser_version=VERSION,
        view_text=text, offsets=OffsetMap.identity(len(text)), blocks=d.blocks, warnings=warnings,
    )


def _looks_title(line: str) -> bool:
    s = line.strip()
    if not s or len(s) > 80 or s.endswith((".", ",", ";", ":")) or not s[0].isupper():
        return False
    if _is_num(s) or _PAGE_NO.match(s) or len(s.split()) > 12:
        return False
    return sum(c.isalpha() for c in s) >= 3


def _note_mark(line: str, recent: dict[str, str]) -> str | None:
    m = _NOTE_LINE.match(line)
    if not m:
        return None
    if m.group(2):
        return sup_to_digits(m.group(2))
    mark = m.group(1) or m.group(3) or m.group(4)
    return mark if mark in recent else None


def _table_follows(i: int, n: int, row: list[bool], blank: list[bool], L) -> bool:
    """Line i is a numeric row; is it part of a table (another numeric row nearby)?"""
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
    return i > 0 and _is_header_line(L(i - 1))


def _table_extent(i: int, n: int, row: list[bool], blank: list[bool], L) -> int:
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
        s = L(j).strip()
        if _label_line(s):
            if nxt < n and (row[nxt] or (nxt + 1 < n and not blank[nxt] and _label_line(L(nxt).strip())
                                          and row[nxt + 1])):
                j = nxt
                continue
        break
    return last


def _label_line(s: str) -> bool:
    """A row label without figures inside a table ("Operating expenses:", "Current assets")."""
    limit = 100 if s.endswith(":") else 60
    return 0 < len(s) <= limit and _note_mark(s, {}) is None and not _line_heading_level(s)


def _label_then_row(j: int, n: int, row: list[bool], blank: list[bool], L) -> bool:
    """Lines j.. are up to two short label lines and then a numeric row."""
    for k in range(j, min(n, j + 3)):
        if row[k]:
            return True
        if blank[k] or not _label_line(L(k).strip()):
            return False
    return False


def _table(d: _Doc, text: str, lines, h: int, i: int, last: int, row: list[bool], blank: list[bool], L) -> None:
    """Emit the table: header lines h..i-1, rows i..last."""
    data_lines = [k for k in range(i, last + 1) if not blank[k]]
    header_lines = list(range(h, i))
    cells_of = {k: _cells(L(k)) for k in header_lines + data_lines}  # each line split once
    # column anchors from the widest data row
    widest = max((k for k in data_lines if row[k]), key=lambda k: len(cells_of[k]))
    anchors = [(s, e) for s, e, _ in cells_of[widest]]
    columns: list[list[str]] = [[] for _ in anchors]
    for k in header_lines:
        cells = cells_of[k]
        # right-align numeric headers to the rightmost anchors when they are fewer
        for s, e, c in cells:
            best = min(range(len(anchors)), key=lambda a: abs((anchors[a][0] + anchors[a][1]) / 2 - (s + e) / 2))
            if best == 0 and len(anchors) > 1 and s > anchors[0][1]:
                best = 1
            if not _RULE.match(c.strip()):
                columns[best].append(c.strip())
    attrs: dict[str, Any] = {"columns": [" ".join(c) for c in columns], "n_rows": len(data_lines) + len(header_lines)}
    start = lines[h][0]
    end = lines[last][1]
    if header_lines:
        hs, he = lines[h][0], lines[i - 1][1]
        hs += len(text[hs:he]) - len(text[hs:he].lstrip())
        attrs["header"] = text[hs:he].rstrip()
        attrs["header_vspan"] = [hs, hs + len(attrs["header"])]
    prev = d.blocks[-1] if d.blocks else None
    if prev is not None and prev.kind in (BlockKind.HEADING, BlockKind.PARAGRAPH) and len(prev.text) <= 200:
        if prev.kind == BlockKind.HEADING or prev.text.rstrip().endswith(":") or UNIT.search(prev.text):
            attrs["caption"] = prev.text
    for src in (attrs.get("header", ""), attrs.get("caption", "")):
        m = UNIT.search(src)
        if m:
            attrs["unit"] = m.group(0)
            break
    table = d.add(BlockKind.TABLE, start, end, attrs)
    cites: list[str] = []
    for k in header_lines + data_lines:
        s, e = lines[k]
        cells = [c.strip() for _, _, c in cells_of[k]]
        rattrs: dict[str, Any] = {"cells": cells, "is_header": k < i}
        marks = _cites(cells[0]) if cells else []
        marks += [m for m in cited_marks(L(k)) if m not in marks]
        if marks:
            rattrs["cites"] = marks
            cites += [m for m in marks if m not in cites]
        d.add(BlockKind.TABLE_ROW, s, e, rattrs, parent=table.block_id)
    if cites:
        table.attrs["cites"] = cites
        for m in cites:
            d.recent[m] = table.block_id
