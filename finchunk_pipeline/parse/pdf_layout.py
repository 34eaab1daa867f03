"""PDF text with layout, one page at a time (PDFium through pypdfium2; Apache-2.0 / BSD).

Chosen by measurement (bench/bench_pdf.py): PDFium's text page is ~17x faster than pypdf
and gives, per character, its box, origin, font size and weight, which pdfplumber gives at
0.2x pypdf's speed. We ask PDFium for the page text in one call (its own reading order,
line breaks and inter-word spaces; a word hyphenated across lines comes back joined, its
hyphen marked U+FFFE) and for the boxes of the characters around each space only, which
is what turns a line into table cells:

- a space run wider than ``CELL_GAP_EM`` x the font size is a column gap: cells are joined
  by two spaces, as in a plain-text table (parse/text.py's table logic), and their x
  positions are kept on the line (a table's header cells are placed over its columns by
  position, parse/pdf.py);
- a baseline gap larger than ``PARA_GAP`` x the page's usual line spacing, a line above
  the previous one (a new column) or a change of font size or weight starts a new block: a
  blank line in the view;
- font sizes are PDFium's text-space size times the character matrix's scale (some PDFs
  print at "size 416" scaled by 0.02).
- lines among the first / last two of a page that recur on other pages (digits ignored),
  and lone page numbers there ("F-4", "Page 3 of 9"), are running headers / footers
  ("furniture").

Pages are read and closed one by one (memory stays flat in the page count); only the
lines' text and a few numbers per line are kept.
"""
from __future__ import annotations

import ctypes
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator

CELL_GAP_EM = 1.0        # a space wider than this (in font sizes) separates table cells
CELL_SEP = "  "          # how cells are separated in the view (parse/text.py splits cells at 2+ spaces)
PARA_GAP = 1.35          # baseline distance above this x the usual line spacing: a new block
SIZE_CHANGE = 0.15       # relative font-size change that starts a new block
BAND_LINES = 2           # running headers / footers are among the first / last lines of a page
_CURRENCY = frozenset("$€£¥")
_SPACES = re.compile(r" +")
_BREAKS = re.compile(r"\r\n")     # PDFium's line breaks; a lone \r or \n in the content is a space
# U+FFFE: PDFium's mark for a hyphen where it joined a word split across lines
_CLEAN = {0xFFFE: "-", 0x00A0: " ", 0x0C: " ", 0x0B: " ", 0x09: " ", 0x00AD: "-",
          **{c: " " for c in (*range(0, 9), *range(14, 32), 127)}}
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?(?:[A-Z]{1,2}\s?[-–]\s?)?[-–—]?\s*\d{1,4}\s*[-–—]?(?:\s+of\s+\d{1,4})?\s*$"
                          r"|^\s*[ivxlc]{1,6}\s*$", re.I)


class PdfError(ValueError):
    """A PDF that cannot be read (message names the document and the problem)."""


class PdfPasswordError(PdfError):
    pass


@dataclass
class PdfLine:
    text: str            # as written to the view: cells separated by CELL_SEP
    x0: float            # left edge, points from the page's left
    x1: float            # right edge
    y: float             # baseline, points from the page's bottom
    size: float          # font size of its first character
    bold: bool
    para_break: bool = False   # a new block starts here (blank line before it in the view)
    furniture: bool = False    # running header / footer / page number
    cells: list[tuple[float, float]] = field(default_factory=list)   # (x0, x1) of each cell


@dataclass
class PdfPage:
    number: int                 # 1-based
    width: float
    height: float
    lines: list[PdfLine] = field(default_factory=list)
    chars: int = 0              # characters in PDFium's text layer
    objects: int = 0            # page objects (text, images, paths)
    read_by: dict = field(default_factory=dict)   # the OCR that read its lines ({}: the text layer)

    @property
    def has_text(self) -> bool:
        return any(line.text.strip() for line in self.lines)


def _pdfium():
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw
    return pdfium, raw


def open_pdf(data: bytes, name: str = "document"):
    """A pypdfium2 PdfDocument for ``data``; an empty user password is tried implicitly
    (PDFium does); a real password or a broken file raise PdfError naming ``name``."""
    pdfium, raw = _pdfium()
    if not data:
        raise PdfError(f"{name}: the PDF file is empty (0 bytes)")
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code == raw.FPDF_ERR_PASSWORD:
            raise PdfPasswordError(f"{name}: the PDF is encrypted with a password; "
                                   "decrypt it (or give the password-free file) to index it") from exc
        if code == raw.FPDF_ERR_SECURITY:
            raise PdfError(f"{name}: the PDF uses an unsupported security handler") from exc
        head = data[:8]
        what = "not a PDF" if b"%PDF" not in data[:1024] else "a broken or truncated PDF"
        raise PdfError(f"{name}: {what} ({exc}; {len(data)} bytes, starts with {head!r})") from exc


class _Boxes:
    """Character boxes / origins / fonts of one text page, through the raw PDFium API."""

    def __init__(self, raw, textpage):
        self.raw, self.tp = raw, textpage
        self._l, self._r, self._b, self._t = (ctypes.c_double() for _ in range(4))
        self._refs = tuple(ctypes.byref(v) for v in (self._l, self._r, self._b, self._t))
        self._ox, self._oy = ctypes.c_double(), ctypes.c_double()

    def box(self, i: int) -> tuple[float, float]:
        """(left, right) of character i."""
        self.raw.FPDFText_GetCharBox(self.tp, i, *self._refs)
        return self._l.value, self._r.value

    def origin(self, i: int) -> tuple[float, float]:
        self.raw.FPDFText_GetCharOrigin(self.tp, i, ctypes.byref(self._ox), ctypes.byref(self._oy))
        return self._ox.value, self._oy.value

    def size(self, i: int) -> float:
        """Font size in page points: PDFium's size is in text space (some PDFs print at
        size 416 scaled by 0.02), so scale it by the character's matrix."""
        size = float(self.raw.FPDFText_GetFontSize(self.tp, i))
        m = self.raw.FS_MATRIX()
        if self.raw.FPDFText_GetMatrix(self.tp, i, ctypes.byref(m)):
            scale = abs(m.a * m.d - m.b * m.c) ** 0.5
            if scale > 0:
                size *= scale
        return size

    def bold(self, i: int) -> bool:
        w = self.raw.FPDFText_GetFontWeight(self.tp, i)
        if w >= 600:
            return True
        buf = ctypes.create_string_buffer(96)
        n = self.raw.FPDFText_GetFontInfo(self.tp, i, buf, 96, None)
        return n > 0 and b"bold" in buf.value.lower()


def _page_text(raw, tp, n: int) -> str:
    """PDFium's text of the page, one str character per text-page character."""
    buf = ctypes.create_string_buffer(2 * (n + 1))
    got = raw.FPDFText_GetText(tp, 0, n, ctypes.cast(buf, ctypes.POINTER(ctypes.c_ushort)))
    text = buf.raw[:2 * max(0, got - 1)].decode("utf-16-le", errors="replace")
    if len(text) != n:  # characters outside the BMP: index by character, one call each
        text = "".join(chr(raw.FPDFText_GetUnicode(tp, i) or 32) for i in range(n))
    text = text.translate(_CLEAN)
    # keep PDFium's "\r\n" line breaks; any other CR / LF is content: a space
    return re.sub(r"\r(?!\n)|(?<!\r)\n", " ", text)


def extract_page(page, number: int) -> PdfPage:
    """Lines of one pypdfium2 page (the caller closes the page)."""
    _, raw = _pdfium()
    width, height = page.get_size()
    out = PdfPage(number, width, height, objects=raw.FPDFPage_CountObjects(page.raw))
    tp = raw.FPDFText_LoadPage(page.raw)
    if not tp:
        return out
    try:
        n = raw.FPDFText_CountChars(tp)
        out.chars = max(0, n)
        if n <= 0:
            return out
        text = _page_text(raw, tp, n)
        boxes = _Boxes(raw, tp)
        pending: list[tuple[int, int]] = []
        pos = 0
        for m in _BREAKS.finditer(text):
            pending.append((pos, m.start()))
            pos = m.end()
        pending.append((pos, n))
        raw_lines = []
        for a, b in pending:
            seg = text[a:b]
            stripped = seg.strip()
            if not stripped:
                continue
            a += len(seg) - len(seg.lstrip())
            b = a + len(stripped)
            raw_lines.append(_line_cells(text, a, b, boxes))
        if not raw_lines:
            return out
        left = min(c[0][1] for c, *_ in raw_lines)
        for cells, y, size, bold in raw_lines:
            out.lines.append(PdfLine(_render(cells), cells[0][1] - left, cells[-1][2] - left, y, size, bold,
                                     cells=[(x0 - left, x1 - left) for _, x0, x1 in cells]))
        mark_breaks(out.lines)
        return out
    finally:
        raw.FPDFText_ClosePage(tp)


def _line_cells(text: str, a: int, b: int, boxes: _Boxes):
    """One line [a, b) of the page text: its cells [(text, x_left, x_right)], baseline, size,
    bold."""
    size = boxes.size(a) or 10.0
    _, y = boxes.origin(a)
    bold = boxes.bold(a)
    cells: list[tuple[str, float, float]] = []
    cell_start, cell_x = a, boxes.box(a)[0]
    for m in _SPACES.finditer(text, a, b):
        p, q = m.start(), m.end()
        right = boxes.box(p - 1)[1]
        nxt = boxes.box(q)[0]
        if nxt - right >= CELL_GAP_EM * size and text[cell_start:p].strip() not in _CURRENCY:
            cells.append((text[cell_start:p], cell_x, right))
            cell_start, cell_x = q, nxt
    cells.append((text[cell_start:b], cell_x, boxes.box(b - 1)[1]))
    return cells, y, size, bold


def _render(cells: list[tuple[str, float, float]]) -> str:
    """Cells into one line, separated by CELL_SEP (spaces inside a cell become single
    spaces). Column positions are kept in PdfLine.cells, not as padding: padding would cost
    characters of every context budget (17% of the text on financebench_pdf_dev)."""
    return CELL_SEP.join(_SPACES.sub(" ", cell) for cell, _, _ in cells)


def mark_breaks(lines: list[PdfLine]) -> None:
    """A new block starts at a line whose baseline distance to the previous one is more than
    PARA_GAP x the page's usual line spacing (or above it: a new column), or whose font size
    or weight differs."""
    steps = sorted(p.y - q.y for p, q in zip(lines, lines[1:])
                   if p.y - q.y > 0.2 * q.size and abs(p.size - q.size) <= SIZE_CHANGE * p.size)
    usual = steps[len(steps) // 2] if len(steps) >= 3 else None
    prev = None
    for line in lines:
        if prev is None:
            line.para_break = True
        else:
            dy = prev.y - line.y
            height = max(prev.size, line.size)
            limit = PARA_GAP * usual if usual else 1.5 * height
            line.para_break = (
                dy <= 0.2 * height                       # same line again or above: new column / block
                or dy > limit
                or abs(line.size - prev.size) > SIZE_CHANGE * height
                or line.bold != prev.bold
            )
        prev = line


def iter_pages(pdf) -> Iterator[PdfPage]:
    """Each page of an open pypdfium2 document, loaded and closed in turn."""
    for i in range(len(pdf)):
        page = pdf[i]
        try:
            yield extract_page(page, i + 1)
        finally:
            page.close()


def _furniture_key(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.lower())).strip()


def mark_furniture(pages: list[PdfPage]) -> None:
    """Running headers / footers: among the first / last BAND_LINES lines of each page, a
    line whose text (digits ignored) recurs so on other pages, or a lone page number."""
    candidates: list[tuple[PdfLine, str]] = []
    seen: Counter[str] = Counter()
    for p in pages:
        keys = set()
        lines = p.lines
        for k, line in enumerate(lines):
            if BAND_LINES <= k < len(lines) - BAND_LINES:
                continue
            key = _furniture_key(line.text)
            candidates.append((line, key))
            keys.add(key)
        seen.update(keys)
    with_text = sum(1 for p in pages if p.lines)
    need = 2 if with_text <= 6 else max(3, int(0.1 * with_text))
    for line, key in candidates:
        if _PAGE_NUMBER.match(line.text) or (seen[key] >= need and len(key) <= 200):
            line.furniture = True


def page_ranges(view: str) -> list[tuple[int, int]]:
    """(start, end) of each page's text in a PDF text view (pages joined by ``\\n\\f``)."""
    out, pos = [], 0
    for m in re.finditer("\f", view):
        end = m.start() - 1 if m.start() > pos and view[m.start() - 1] == "\n" else m.start()
        out.append((pos, end))
        pos = m.end()
    out.append((pos, len(view)))
    return out
