"""Tables in extracted text: rows of figures separated by runs of spaces, their header lines,
and the TABLE / TABLE_ROW blocks they become (their extent: ``table_extent.py``).

A row is a line with two or more cells (split at 2+ spaces or tabs), two or more of them
figures; or a label followed by two or more figures separated by single spaces, as PDF text
extraction writes two-column statements ("Inventories, net 32  43", "Goodwill 9,764 9,762":
the figures are cells of their own). A table runs over consecutive rows, keeping short label lines ("Operating
expenses:") and single blank lines between rows; up to 3 multi-column / year lines directly
above are its header. Used by the plain-text parser (``text.py``) and the PDF parser
(``pdf.py``), whose view separates cells by two spaces for this reason.
"""
from __future__ import annotations

import re
from collections import Counter
from itertools import compress, count, repeat
from operator import and_, itemgetter, not_, or_
from typing import Any, Callable

from ..types.blocks import Block, BlockKind
from .builder import DocBuilder
from .footnotes import cited_marks
from .line_kinds import NUM_CELL, YEAR_CELL, cites
from .lines import UNIT
from .row_figures import FIG_END, is_label_figures_row, label_and_figures, may_end_with_figures, trailing_figures
from .shifted_rows import is_shifted_line, recut_if_shifted
from .vertical_rows import vertical_rows

LineText = Callable[[int], str]   # line number -> the line's text

_CELL_SPLIT = re.compile(r"\s{2,}|\t+")
_YEAR = re.compile(r"\b(?:FY\s?)?(?:19|20)\d\d\b")
_RULE = re.compile(r"^[-=_—–\s]+$")
# whitespace str.isspace() knows besides " ", "\t" and the line breaks "\n", "\f"
# the first character of a figure NUM_CELL matches, besides a decimal digit (re.I: "n/a", "N/M")
_FIGURE_FIRST = frozenset("$€£¥(-–—+nN")
_OTHER_WS = "\t\r\x0b\x1c\x1d\x1e\x1f\x85\u1680" + "".join(map(chr, range(0x2000, 0x200b))) + "\u2028\u2029\u202f\u205f\u3000"
_LAST = itemgetter(slice(-1, None))   # a string's last character ("" for "")
_FIRST = itemgetter(slice(1))      # a string's first character
_FIGURE_FIRST_CHARS = frozenset("$€£¥(0123456789—–-")   # a line may open with a figure
_OTHER_SPACE = re.compile("[\r\x0b\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


def cells(line: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of the cells of a line, positions relative to the line; a leading
    "label fig fig" cell is split into the label and its figures."""
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
    if out and out[0][2][-1:] in FIG_END:
        if _is_spaced_row(line):  # "Product sales $ 1,975  $ 2,255": the label's figure
            first = label_and_figures(out[0][0], out[0][2])
            return (first or out[:1]) + out[1:]
        figs = trailing_figures(line)  # "Goodwill 9,764 9,762": label and figures
        if figs is not None:
            label = line[out[0][0]:figs[0][0]].rstrip()
            return [(out[0][0], out[0][0] + len(label), label)] + [(a, b, line[a:b]) for a, b in figs]
    return out


def is_row(line: str) -> bool:
    """Two or more cells (``cells``), two or more of them numeric; or a label followed by two
    or more figures (``_trailing_figures``)."""
    return _is_spaced_row(line) or is_label_figures_row(line)


def _is_spaced_row(line: str) -> bool:
    # the cell texts of cells() are the non-blank pieces between separators (edges aside,
    # which is_num strips; a blank piece is never numeric)
    pieces = _pieces(line)
    if len(pieces) < 2:  # no separator: one cell at most
        return False
    n_num = 0
    num, year = NUM_CELL.match, YEAR_CELL.fullmatch
    for c in pieces:
        c = c.strip()
        if c and num(c) and not year(c):  # is_num(c)
            n_num += 1
            if n_num == 2:
                return True
    return False


def rows(text: str, lines: list[str], blank: list[bool], title: list[bool],
         shifted: bool = False) -> list[bool]:
    """``[not blank and not title and is_row(line)]`` per line (``lines``: the line texts of
    ``text``). A row has two cells, so a separator inside the line: two whitespace characters
    in a row, or a tab. With "\xa0" read as a space, that is "  " in the line, or a
    whitespace character other than " " (a tab, a thin space…; only where ``text`` holds one:
    then a line that is not ``isprintable`` is tried). Only those lines are split into cells
    (``_row_spaced``, other whitespace made spaces). A line whose last non-blank character
    may end a figure (``FIG_END``) may be a label followed by figures with single spaces
    (``row_figures.py``): those lines are tried for that too. The candidates are flagged per
    line by C-level maps and picked by ``itertools.compress``. With ``shifted``, a line that
    opens with figures and ends with the next row's label (``shifted_rows.py``) is a row too."""
    if "\xa0" in text:
        lines = list(map(str.replace, lines, repeat("\xa0"), repeat(" ")))
    row = [False] * len(lines)
    free = bytes(map(not_, map(or_, blank, title)))
    spaced = map(str.__contains__, lines, repeat("  "))
    if any(c in text for c in _OTHER_WS):
        spaced = map(or_, spaced, map(not_, map(str.isprintable, lines)))
    for k in compress(count(), map(and_, spaced, free)):
        y = lines[k]
        if not y.isprintable():  # whitespace other than " " (or a control character)
            y = _OTHER_SPACE.sub(" ", y)
        if "  " in y or "\t" in y:
            row[k] = _row_spaced(y)
    ends = map(FIG_END.__contains__, map(_LAST, map(str.rstrip, lines)))
    for k in compress(count(), map(and_, ends, free)):
        if not row[k] and may_end_with_figures(lines[k]):
            row[k] = is_label_figures_row(lines[k])
    if shifted:
        opens = map(_FIGURE_FIRST_CHARS.__contains__, map(_FIRST, map(str.lstrip, lines)))
        for k in compress(count(), map(and_, opens, free)):
            if not row[k]:
                row[k] = is_shifted_line(lines[k])
    return row


def _row_spaced(line: str) -> bool:
    """``is_row(line)`` for a line whose only whitespace characters are spaces and tabs:
    a separator is then a run of 2+ spaces or one holding a tab, so with tabs doubled the
    cells are the non-blank pieces of ``str.split("  ")`` (stripped), without a regex; a
    piece is tried as a figure only when it starts like one (``_FIGURE_FIRST``)."""
    n_num = 0
    num, year, first = NUM_CELL.match, YEAR_CELL.fullmatch, _FIGURE_FIRST
    for c in line.replace("\t", "  ").split("  "):
        c = c.strip()
        if c and (c[0] in first or c[0].isdecimal()) and num(c) and not year(c):  # is_num(c)
            n_num += 1
            if n_num == 2:
                return True
    return False


def is_header_line(line: str) -> bool:
    if not line.strip() or is_row(line):
        return False
    line_cells = cells(line)
    if len(line_cells) >= 2 and all(len(c) <= 40 for _, _, c in line_cells):
        return True
    return len(_YEAR.findall(line)) >= 2 and len(line.strip()) <= 120


def cell_texts(line: str) -> list[str]:
    """``[c.strip() for _, _, c in cells(line)]`` without positions: the pieces between
    separators by one regex split. When the first piece ends in a figure it is split as
    ``cells`` splits it: in a spaced row (two figure pieces, counted on these pieces) into
    the label and its figures, else the line's trailing figures are cells of their own."""
    pieces = [c for c in map(str.strip, _pieces(line)) if c]
    if not pieces or pieces[0][-1] not in FIG_END:
        return pieces
    if _figure_pieces(pieces) >= 2:  # _is_spaced_row(line)
        first = label_and_figures(0, pieces[0])
        return ([c.strip() for _, _, c in first] if first else pieces[:1]) + pieces[1:]
    figs = trailing_figures(line)
    if figs is None:
        return pieces
    return [line[:figs[0][0]].strip()] + [line[a:b].strip() for a, b in figs]


def _pieces(line: str) -> list[str]:
    """``_CELL_SPLIT.split(line)`` up to blank pieces and the pieces' surrounding spaces: in
    a printable line the only whitespace is " ", so a separator is a run of 2+ spaces and
    ``str.split("  ")`` cuts the same places (no regex)."""
    return line.split("  ") if line.isprintable() else _CELL_SPLIT.split(line)


def _figure_pieces(pieces: list[str]) -> int:
    """How many of the (stripped, non-blank) pieces are figures (``is_num``)."""
    num, year = NUM_CELL.match, YEAR_CELL.fullmatch
    return sum(1 for c in pieces if num(c) and not year(c))


def emit_table(d: DocBuilder, text: str, lines, h: int, i: int, last: int, row: list[bool], blank: list[bool],
               L: LineText, shifted: bool = False) -> None:
    """Emit the table: header lines h..i-1, rows i..last (a TABLE, then one TABLE_ROW per line).
    With ``shifted``, a body whose lines open with the previous row's figures
    (``shifted_rows.py``) is re-cut into rows pairing each label with its own figures, and a
    body of one cell per line (``vertical_rows.py``) into rows from each label to its figures."""
    data_lines = [k for k in range(i, last + 1) if not blank[k]]
    header_lines = list(range(h, i))
    recut = recut_if_shifted([(lines[k][0], lines[k][1], L(k)) for k in data_lines]) if shifted else None
    if shifted and recut is None and not any(row[k] for k in data_lines):   # no row line: a table vertical_tables found
        data_lines = [k for k in range(i, last + 1) if L(k).strip()]   # lone figures taken for page numbers too
        recut = vertical_rows([(lines[k][0], lines[k][1], L(k)) for k in data_lines])
        header_lines = [k for k in header_lines if L(k).strip()]
    texts_of = {k: cell_texts(L(k)) for k in header_lines + (data_lines if recut is None else [])}
    columns = _columns(header_lines, data_lines, row, texts_of, L) if recut is None \
        else _shifted_columns(header_lines, recut, texts_of)
    attrs: dict[str, Any] = {"columns": columns,
                             "n_rows": (len(data_lines) if recut is None else len(recut)) + len(header_lines)}
    if header_lines:
        hs, he = lines[h][0], lines[i - 1][1]
        hs += len(text[hs:he]) - len(text[hs:he].lstrip())
        attrs["header"] = text[hs:he].rstrip()
        attrs["header_vspan"] = [hs, hs + len(attrs["header"])]
    _caption_and_unit(d.blocks[-1] if d.blocks else None, attrs)
    table = d.add(BlockKind.TABLE, lines[h][0], lines[last][1], attrs)
    table_id = table.block_id
    table_cites: list[str] = []
    add = d.add_owned
    body = [(lines[k][0], lines[k][1], texts_of[k], k < i) for k in header_lines + data_lines] if recut is None \
        else [(lines[k][0], lines[k][1], texts_of[k], True) for k in header_lines] + \
        [(r.start, r.end, r.cells, False) for r in recut]
    for s, e, row_cells, is_header in body:
        rattrs: dict[str, Any] = {"cells": row_cells, "is_header": is_header}
        marked = d.may_cite(s, e)  # the row's text is text[s:e]
        marks = cites(row_cells[0], marked) if row_cells else []
        if marked:
            marks += [m for m in cited_marks(text[s:e]) if m not in marks]
        if marks:
            rattrs["cites"] = marks
            table_cites += [m for m in marks if m not in table_cites]
        add(BlockKind.TABLE_ROW, s, e, rattrs, table_id)
    if table_cites:
        table.attrs["cites"] = table_cites
        for m in table_cites:
            d.recent[m] = table_id


def _columns(header_lines: list[int], data_lines: list[int], row: list[bool],
             texts_of: dict[int, list[str]], L: LineText) -> list[str]:
    """Column titles: each header cell goes to the column of the widest data row whose
    character centre is nearest (a cell right of the first column never goes to it)."""
    widths = Counter(len(texts_of[k]) for k in data_lines if row[k])
    by_count = _figure_columns(header_lines, max(widths, key=lambda w: (widths[w], w)), texts_of)
    if by_count is not None:
        return by_count
    widest = max((k for k in data_lines if row[k]), key=lambda k: len(texts_of[k]))
    anchors = [(s, e) for s, e, _ in cells(L(widest))]
    columns: list[list[str]] = [[] for _ in anchors]
    centres = [(s + e) / 2 for s, e in anchors]
    for k in header_lines:
        for s, e, c in cells(L(k)):
            mid = (s + e) / 2
            gaps = [abs(x - mid) for x in centres]
            best = gaps.index(min(gaps))  # the first nearest, as min() by key picks it
            if best == 0 and len(anchors) > 1 and s > anchors[0][1]:
                best = 1
            if not _RULE.match(c.strip()):
                columns[best].append(c.strip())
    return [" ".join(c) for c in columns]


def _shifted_columns(header_lines: list[int], recut, texts_of: dict[int, list[str]]) -> list[str]:
    """Column titles of a re-cut shifted table: by count (``_figure_columns``), else the
    years of its header lines when there is one per figure column, else untitled."""
    widths = Counter(len(r.cells) for r in recut if len(r.cells) > 1)
    if not widths:
        return [""]
    width = max(widths, key=lambda w: (widths[w], w))
    by_count = _figure_columns(header_lines, width, texts_of)
    if by_count is not None:
        return by_count
    years = [y for k in header_lines for c in texts_of[k] for y in _YEAR.findall(c)]
    return [""] + (years if len(years) == width - 1 else [""] * (width - 1))


def _figure_columns(header_lines: list[int], anchors: int, texts_of: dict[int, list[str]]) -> list[str] | None:
    """Column titles when every header line has one cell per figure column (as many as most
    rows' cells but their label): the titles go right to left, whatever their
    positions (extracted text does not keep the page's alignment)."""
    lines = [[c for c in texts_of[k] if not _RULE.match(c)] for k in header_lines]
    lines = [x for x in lines if x]
    if not lines or anchors < 2 or any(len(x) != anchors - 1 for x in lines):
        return None
    return [""] + [" ".join(x[col] for x in lines) for col in range(anchors - 1)]


def _caption_and_unit(prev: Block | None, attrs: dict[str, Any]) -> None:
    """``caption``: the block just before, when it is a heading or a short paragraph ending
    in ":" or naming a unit; ``unit``: from the header, else the caption."""
    if prev is not None and prev.kind in (BlockKind.HEADING, BlockKind.PARAGRAPH) and len(prev.text) <= 200:
        if prev.kind == BlockKind.HEADING or prev.text.rstrip().endswith(":") or UNIT.search(prev.text):
            attrs["caption"] = prev.text
    for src in (attrs.get("header", ""), attrs.get("caption", "")):
        m = UNIT.search(src)
        if m:
            attrs["unit"] = m.group(0)
            break


def emit_layout_line(d: DocBuilder, text: str, lines, tables: dict[int, tuple[int, int]], i: int,
                     on_table: Callable[[Block, int, int, int], None] | None = None,
                     shifted: bool = False) -> int | None:
    """What every line-based parser (text, pdf) reads the same way at line ``i``: a table
    starting there (emitted whole; ``on_table(block, i, first, last)`` adds what the parser
    knows beyond the text), page furniture, a blank line. Returns the line after it, or None
    when line ``i`` starts none of these. ``lines``: spans, row, blank, furniture, L;
    ``shifted``: re-cut tables of shifted lines (``emit_table``)."""
    if i in tables:
        first, last = tables[i]
        at = len(d.blocks)
        emit_table(d, text, lines.spans, i, first, last, lines.row, lines.blank, lines.L, shifted)
        if on_table is not None:
            on_table(d.blocks[at], i, first, last)
        return last + 1
    if lines.furniture[i]:
        s, e = lines.spans[i]
        d.add_owned(BlockKind.PARAGRAPH, s, e, {"furniture": True})
        return i + 1
    if lines.blank[i]:
        return i + 1
    return None
