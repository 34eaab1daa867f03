"""OCR'd words into the PDF parser's lines: rows, table cells, sizes, block breaks.

An OCR engine reads a page into words with boxes, grouped into its own blocks and lines
(parse/ocr_engine.py). Tesseract's layout analysis puts each column of a table in a block of
its own, so its reading order gives the labels, then each column of figures. Here the page
becomes ``PdfLine``s, as PDFium's text layer gives them for a text page (parse/pdf_layout.py),
so the same heading, paragraph and table rules read both:

- regions: the engine's blocks, where a block of figures (mostly numbers, years, currency
  signs) joins the blocks beside it at the same height — a table's label column and its
  figure columns become one region; prose blocks side by side (two text columns) stay apart;
- rows: within a region, lines at the same height (vertical overlap >= ``ROW_OVERLAP`` of the
  lower one) are one row, its words in x order; regions in the engine's reading order, rows
  top to bottom;
- cells: a gap wider than ``CELL_GAP_EM`` x the row's font size separates table cells (joined
  by CELL_SEP in the view, positions kept on the line), as on a text page; a lone currency
  sign stays with the figure after it;
- baseline and font size (points) from the engine; the page's block breaks then follow the
  text pages' rule (``pdf_layout.mark_breaks``: a wider gap, a size change, a new column);
- words the engine barely believes (confidence below ``MIN_CONF``) and marks without a
  letter or digit below ``MIN_MARK_CONF`` (rules and specks read as "—" or "|") are dropped.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median

from .line_kinds import NUM_CELL, YEAR_CELL
from .pdf_layout import CELL_GAP_EM, CELL_SEP, PdfLine, mark_breaks

ROW_OVERLAP = 0.5
FIGURE_BLOCK = 0.6       # share of a block's words that are figures for it to be a figure column
MIN_CONF = 20.0
MIN_MARK_CONF = 60.0
_CURRENCY = frozenset("$€£¥")


@dataclass
class _Line:
    words: list = field(default_factory=list)
    block: int = 0

    @property
    def top(self) -> int:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> int:
        return max(w.bottom for w in self.words)

    @property
    def left(self) -> int:
        return min(w.left for w in self.words)

    @property
    def right(self) -> int:
        return max(w.right for w in self.words)


def _kept(word) -> bool:
    if word.conf < MIN_CONF:
        return False
    return any(c.isalnum() for c in word.text) or word.conf >= MIN_MARK_CONF


def _figure(text: str) -> bool:
    return bool(NUM_CELL.match(text)) or bool(YEAR_CELL.fullmatch(text)) or text in _CURRENCY


def _engine_lines(words) -> list[_Line]:
    lines: dict[int, _Line] = {}
    for w in words:
        if _kept(w):
            lines.setdefault(w.line, _Line(block=w.block)).words.append(w)
    return [lines[k] for k in sorted(lines)]


def _overlap(a0: int, a1: int, b0: int, b1: int) -> int:
    return min(a1, b1) - max(a0, b0)


def _regions(lines: list[_Line]) -> list[list[_Line]]:
    """The engine's blocks, a figure block joined with the blocks beside it (union-find)."""
    blocks: dict[int, list[_Line]] = {}
    for ln in lines:
        blocks.setdefault(ln.block, []).append(ln)
    ids = sorted(blocks)
    box = {b: (min(x.left for x in blocks[b]), max(x.right for x in blocks[b]),
               min(x.top for x in blocks[b]), max(x.bottom for x in blocks[b])) for b in ids}
    figures = {b for b in ids
               if sum(_figure(w.text) for x in blocks[b] for w in x.words)
               >= FIGURE_BLOCK * sum(len(x.words) for x in blocks[b])}
    parent = {b: b for b in ids}

    def root(b: int) -> int:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            if a not in figures and b not in figures:
                continue
            (al, ar, at, ab), (bl, br, bt, bb) = box[a], box[b]
            if _overlap(al, ar, bl, br) <= 0 and _overlap(at, ab, bt, bb) > 0:
                parent[root(b)] = root(a)
    groups: dict[int, list[_Line]] = {}
    for b in ids:   # ids ascending: each group keyed (and ordered) by its first block
        groups.setdefault(root(b), []).extend(blocks[b])
    return [groups[k] for k in sorted(groups)]


def _rows(region: list[_Line]) -> list[list]:
    """The region's lines merged into rows at the same height; each row's words in x order."""
    rows: list[list[_Line]] = []
    for ln in sorted(region, key=lambda x: (x.bottom, x.left)):
        for row in rows[-3:]:   # rows are formed top-down: a line can only join a recent one
            ref = row[-1]
            low = min(ln.bottom - ln.top, ref.bottom - ref.top)
            if _overlap(ln.top, ln.bottom, ref.top, ref.bottom) >= ROW_OVERLAP * max(1, low) \
                    and all(_overlap(ln.left, ln.right, x.left, x.right) <= 0 for x in row):
                row.append(ln)
                break
        else:
            rows.append([ln])
    return [sorted((w for ln in row for w in ln.words), key=lambda w: w.left) for row in rows]


def _cells(words: list, em: float) -> list[list]:
    cells: list[list] = [[words[0]]]
    for prev, w in zip(words, words[1:]):
        lone_currency = len(cells[-1]) == 1 and cells[-1][0].text in _CURRENCY
        if w.left - prev.right >= CELL_GAP_EM * em and not lone_currency:
            cells.append([w])
        else:
            cells[-1].append(w)
    return cells


def page_lines(words, height: int, dpi: int) -> list[PdfLine]:
    """The page's PdfLines (text, x positions and baseline in points, font size, cells) from
    the engine's words of a ``height``-pixel image at ``dpi``; block breaks marked."""
    px = dpi / 72.0
    rows = [r for region in _regions(_engine_lines(words)) for r in _rows(region)]
    if not rows:
        return []
    left = min(r[0].left for r in rows)
    out: list[PdfLine] = []
    for words_ in rows:
        sizes = [w.size for w in words_ if w.size > 0]
        size = median(sizes) if sizes else (max(w.bottom for w in words_) - min(w.top for w in words_)) / px
        cells = _cells(words_, size * px)
        spans = [((c[0].left - left) / px, (c[-1].right - left) / px) for c in cells]
        out.append(PdfLine(CELL_SEP.join(" ".join(w.text for w in c) for c in cells), spans[0][0], spans[-1][1],
                           (height - median(w.baseline for w in words_)) / px, float(size), False, cells=spans))
    mark_breaks(out)
    return out
