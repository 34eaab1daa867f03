"""PDF parser (format "pdf"): the PDF's bytes into blocks over an extracted text view.

A PDF has no text to index into, so its text view *is* its raw text: the view is the
extraction (parse/pdf_layout.py) and offsets are the identity; gold passages given as page +
quote are resolved into the same view (evaluation/gold_resolution.py). The view:

- pages in order, joined by ``"\\n\\f"`` (every block's ``attrs["page"]`` = 1 + form feeds
  before it; ``pdf_layout.page_ranges`` gives each page's range);
- one line per PDF line, table cells separated by two spaces (their x positions kept on
  the line: a table's header cells are assigned to its columns by position);
- a blank line wherever the layout starts a new block (vertical gap, new column, font
  change) and around running headers / footers.

Blocks reuse the plain-text parser's table, heading and footnote logic (``text_tables.py``, ``line_kinds.py``), with
what the layout adds:

- running headers / footers and page numbers: PARAGRAPH blocks with ``furniture: True``,
  never glued into a paragraph and never headings (they do not enter section paths);
- headings also by font: a one-line block at >= 1.15x the body font size (level 3, level 2
  at >= 1.4x) or in bold (level 4), when it reads like a title;
- paragraphs are the layout's blocks of lines: a paragraph's block spans its lines (a word
  hyphenated at a line end comes back from PDFium joined on one line);
- a small-print block starting with a footnote mark is a NOTE even when the mark was not seen
  cited (superscripts are plain digits in PDF text).

Hostile input: an empty user password is opened; a password, a broken or truncated file
raise a ValueError naming the document; a page with content but no text (a scan) gets the
warning "page N: no text layer — OCR not configured", an empty page "page N: blank (no
content)"; no text on any page is an error. Pages are read one at a
time (flat memory in the page count).

OCR (``parse(..., ocr=OcrConfig)``, parse/ocr.py): the pages with content but no text layer
are rendered and read by the OCR engine into the same lines, so they give the same blocks;
every block on such a page carries ``attrs["ocr"] = {"engine", "version"}``, the document's
``parser_version`` gains the OCR key, and the warnings say which pages were read (or why one
was not). Without OCR, or with no such page, the output is what it was.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from ..hashing import sha256_bytes
from ..types.blocks import Block, BlockKind, ParsedDocument
from ..types.offsets import OffsetMap
from .builder import DocBuilder
from .gcpause import without_gc
from .line_kinds import NOTE_LINE, is_num, line_heading_level, note_mark
from .lines import line_spans
from .ocr import NO_TEXT, OcrConfig, ocr_warnings, read_pages
from .pdf_layout import (
    CELL_SEP,
    PdfError,
    PdfLine,
    PdfPage,
    iter_pages,
    mark_furniture,
    open_pdf,
)
from .row_figures import forget_figures
from .table_extent import find_tables
from .text_tables import emit_layout_line, is_row

# 2: the text parser's table rules of its version 3 (row_figures.py, labels under headers)
VERSION = "2"
INPUT = "bytes"           # corpus_parse hands this parser the raw bytes, not decoded text
FORMATS = ("pdf",)        # the corpus formats it reads (parse/registry.py)
OCR = True                # reads image-only pages when given an OcrConfig (parse/ocr.py)

HEADING_SIZE = 1.15       # x body font size: a one-line block this large is a heading
HEADING_SIZE_2 = 1.4
SMALL_PRINT = 0.9         # x body font size: footnote-sized


def extract(data: bytes, name: str = "document", ocr: OcrConfig | None = None) -> tuple[list[PdfPage], list[str]]:
    """Every page's lines (furniture marked) and the per-page warnings; with ``ocr``, the
    pages with content but no text layer read by OCR (their ``read_by`` set)."""
    pdf = open_pdf(data, name)
    try:
        pages = []
        for page in iter_pages(pdf):
            pages.append(page)
    except PdfError:
        raise
    except Exception as exc:  # a page PDFium cannot read
        raise PdfError(f"{name}: page {len(pages) + 1} could not be read ({type(exc).__name__}: {exc})") from exc
    finally:
        pdf.close()
    images = [p.number for p in pages if not p.has_text and p.objects]
    if ocr is not None and images:
        return pages, _read_images(data, name, pages, images, ocr)
    mark_furniture(pages)
    warnings = [f"page {p.number}: {NO_TEXT}" if p.objects else f"page {p.number}: blank (no content)"
                for p in pages if not p.has_text]
    return pages, warnings


def _read_images(data: bytes, name: str, pages: list[PdfPage], images: list[int], ocr: OcrConfig) -> list[str]:
    """OCR of the image-only pages ``images`` into their lines; the warnings of the document."""
    read = read_pages(data, name, images, ocr)
    label = {"engine": ocr.engine, "version": ocr.label.split(" ", 1)[1]}
    for p in pages:
        if p.number in read:
            p.lines = read[p.number].lines
            p.read_by = label
    mark_furniture(pages)
    return ocr_warnings(read, ocr) + [f"page {p.number}: blank (no content)" for p in pages
                                      if not p.has_text and not p.objects]


def build_view(pages: list[PdfPage]) -> tuple[str, list[PdfLine | None]]:
    """The text view and, for each of its lines (split on ``\n`` and ``\f``), the PDF
    line it holds (None for blank lines)."""
    parts: list[str] = []
    starts: dict[int, PdfLine] = {}
    pos = 0

    def put(s: str) -> None:
        nonlocal pos
        parts.append(s)
        pos += len(s)

    for k, page in enumerate(pages):
        if k:
            put("\n\f")
        prev: PdfLine | None = None
        for line in page.lines:
            if prev is not None:
                put("\n\n" if line.para_break or line.furniture or prev.furniture else "\n")
            starts[pos] = line
            put(line.text)
            prev = line
    view = "".join(parts)
    meta = [starts.get(s) if e > s else None for s, e in line_spans(view, "\n\f")]
    return view, meta


def _body_size(pages: list[PdfPage]) -> float:
    sizes: Counter[float] = Counter()
    for p in pages:
        for line in p.lines:
            if not line.furniture:
                sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _title_like(s: str) -> bool:
    s = s.strip()
    if not s or len(s) > 120 or s.endswith((",", ";")) or is_num(s):
        return False
    if not (s[0].isupper() or s[0].isdigit() or s[0] in "(“\""):
        return False
    return sum(c.isalpha() for c in s) >= 3 and len(s.split()) <= 16


@without_gc
def parse(doc_id: str, data: bytes, meta: dict[str, Any] | None = None,
          ocr: OcrConfig | None = None) -> ParsedDocument:
    """Extract the pages (image-only ones read by ``ocr`` when given), build the text view,
    find its tables, then emit each line's block."""
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError(f"{doc_id}: the pdf parser takes the file's bytes, got {type(data).__name__}")
    pages, warnings = extract(bytes(data), doc_id, ocr)
    if not pages:
        raise PdfError(f"{doc_id}: the PDF has no pages")
    ocr_read = {p.number: p.read_by for p in pages if p.read_by}
    if not any(p.has_text for p in pages):
        if ocr_read:
            raise PdfError(f"{doc_id}: none of its {len(pages)} pages has a text layer, and OCR "
                           f"({ocr.label}) read no text: {'; '.join(warnings[:3])}")
        raise PdfError(f"{doc_id}: none of its {len(pages)} pages has a text layer — OCR not configured")
    view, line_meta = build_view(pages)
    forget_figures()
    lines = _ViewLines.of(view, line_meta, _body_size(pages))
    d = DocBuilder(doc_id, view)
    tables = find_tables(lines.n, lines.row, lines.blank, lines.L, lambda h: not line_meta[h].para_break)
    i = 0
    while i < lines.n:
        i = _emit_at(d, lines, tables, i)
    if not d.blocks:
        raise PdfError(f"{doc_id}: no text blocks found in {len(pages)} pages")
    if ocr_read:
        _mark_ocr_blocks(d, ocr_read)
    return ParsedDocument(
        doc_id=doc_id, doc_sha=sha256_bytes(bytes(data)), parser="pdf",
        parser_version=f"{VERSION}_{ocr.key}" if ocr_read else VERSION,
        view_text=view, offsets=OffsetMap.identity(len(view)), blocks=d.blocks, warnings=warnings,
    )


def _mark_ocr_blocks(d: DocBuilder, read_by: dict[int, dict]) -> None:
    """Every block with text on a page read by OCR says so (``attrs["ocr"]``: engine, version)."""
    for b in d.blocks:
        first, last = d.page(b.start), d.page(max(b.start, b.end - 1))
        by = next((read_by[n] for n in range(first, last + 1) if n in read_by), None)
        if by is not None:
            b.attrs["ocr"] = dict(by)


@dataclass
class _ViewLines:
    """The view's lines (split on ``\\n`` and ``\\f``) with the PDF line each holds (None:
    blank), furniture, blank (furniture ends blocks like a blank line), table rows, and the
    body font size (headings and small print are relative to it)."""

    view: str
    spans: list[tuple[int, int]]
    meta: list[PdfLine | None]
    furniture: list[bool]
    blank: list[bool]
    row: list[bool]
    body: float

    @classmethod
    def of(cls, view: str, line_meta: list[PdfLine | None], body: float) -> _ViewLines:
        spans = line_spans(view, "\n\f")
        furniture = [m is not None and m.furniture for m in line_meta]
        blank = [m is None or f for m, f in zip(line_meta, furniture)]
        row = [(not blank[k]) and is_row(view[spans[k][0]:spans[k][1]]) for k in range(len(spans))]
        return cls(view, spans, line_meta, furniture, blank, row, body)

    @property
    def n(self) -> int:
        return len(self.spans)

    def L(self, k: int) -> str:
        return self.view[self.spans[k][0]:self.spans[k][1]]

    def single(self, i: int) -> bool:
        """Line i is alone in its block (the next is blank or starts a new layout block)."""
        return i + 1 >= self.n or self.blank[i + 1] or self.meta[i + 1].para_break

    def block_end(self, i: int, tables: dict[int, tuple[int, int]], ends: Callable[[str], bool]) -> int:
        """The line after the layout block starting at i: up to a blank, a new layout block, a
        table, or a line for which ``ends`` holds."""
        j = i + 1
        while j < self.n and not self.blank[j] and not self.meta[j].para_break and j not in tables \
                and not ends(self.L(j)):
            j += 1
        return j


def _emit_at(d: DocBuilder, lines: _ViewLines, tables: dict[int, tuple[int, int]], i: int) -> int:
    """Emit the block starting at line i (a table, furniture, a note, a heading by its words
    or by its font, a paragraph); returns the line after it."""
    def columns(table: Block, start: int, first: int, last: int) -> None:
        _columns_by_position(table, range(start, first), range(first, last + 1), lines.meta, lines.L)

    after = emit_layout_line(d, lines.view, lines, tables, i, columns)
    if after is not None:
        return after
    s, e = lines.spans[i]
    nm = _note_mark_at(lines, i, d.recent)
    if nm is not None:
        j = lines.block_end(i, tables, lambda t: note_mark(t, d.recent) is not None)
        d.note(nm, s, lines.spans[j - 1][1], d.recent.get(nm))
        return j
    level = _heading_level(lines, i)
    if level:
        d.heading(level, s, e)
        return i + 1
    # paragraph: the layout's block of lines
    j = lines.block_end(i, tables, lambda t: line_heading_level(t) in (1, 2))
    d.paragraph(s, lines.spans[j - 1][1])
    return j


def _note_mark_at(lines: _ViewLines, i: int, recent: dict[str, str]) -> str | None:
    """The footnote mark line i starts with: one cited before, or any mark in small print
    (superscripts are plain digits in PDF text)."""
    cur = lines.L(i)
    nm = note_mark(cur, recent)
    if nm is None and lines.meta[i].size <= SMALL_PRINT * lines.body and NOTE_LINE.match(cur):
        nm = note_mark(cur, {m: "" for m in _mark_candidates(cur)})
    return nm


def _heading_level(lines: _ViewLines, i: int) -> int:
    """The heading level of line i (0: none): by its words (``line_heading_level``), else a
    title-like line alone in its block by its font: large (3, or 2 when larger still) or bold (4)."""
    cur, lm = lines.L(i), lines.meta[i]
    lvl = line_heading_level(cur)
    one = lines.single(i)
    if lvl and (lvl <= 2 or one or line_heading_level(lines.L(i + 1) if i + 1 < lines.n else "")):
        if lvl <= 2 or len(cur.strip()) <= 100:
            return lvl
    if one and _title_like(cur):
        if lm.size >= HEADING_SIZE * lines.body:
            return 2 if lm.size >= HEADING_SIZE_2 * lines.body else 3
        if lm.bold and not cur.rstrip().endswith("."):
            return 4
    return 0


def _columns_by_position(table, header_lines, data_lines, line_meta, L) -> None:
    """``columns``: each header cell goes to the data column whose x centre is nearest its own
    (the view joins cells by two spaces, so character positions do not align them)."""
    data = [k for k in data_lines if line_meta[k] is not None and line_meta[k].cells]
    if not data or table.kind != BlockKind.TABLE:
        return
    widest = max(data, key=lambda k: len(line_meta[k].cells))
    anchors = [(x0 + x1) / 2 for x0, x1 in line_meta[widest].cells]
    columns: list[list[str]] = [[] for _ in anchors]
    for k in header_lines:
        meta = line_meta[k]
        texts = [c.strip() for c in L(k).split(CELL_SEP) if c.strip()]
        if meta is None or len(texts) != len(meta.cells):
            continue
        for text, (x0, x1) in zip(texts, meta.cells):
            best = min(range(len(anchors)), key=lambda a: abs(anchors[a] - (x0 + x1) / 2))
            columns[best].append(text)
    table.attrs["columns"] = [" ".join(c) for c in columns]


def _mark_candidates(line: str) -> list[str]:
    m = NOTE_LINE.match(line)
    return [g for g in m.groups() if g] if m else []
