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

Blocks reuse the plain-text parser's table, heading and footnote logic (parse/text.py), with
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
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from ..storage import sha256_bytes
from .gcpause import without_gc
from .lines import line_spans
from .model import BlockKind, ParsedDocument
from .offsets import OffsetMap
from .pdf_layout import CELL_SEP, PdfError, PdfLine, PdfPage, iter_pages, mark_furniture, open_pdf
from .text import (_NOTE_LINE, _Doc, _cites, _is_header_line, _is_num, _is_row, _line_heading_level,
                   _note_mark, _table, _table_extent, _table_follows)

VERSION = "1"
INPUT = "bytes"           # the runner hands this parser the raw bytes, not decoded text

HEADING_SIZE = 1.15       # x body font size: a one-line block this large is a heading
HEADING_SIZE_2 = 1.4
SMALL_PRINT = 0.9         # x body font size: footnote-sized
NO_TEXT = "no text layer — OCR not configured"


def extract(data: bytes, name: str = "document") -> tuple[list[PdfPage], list[str]]:
    """Every page's lines (furniture marked) and the per-page warnings."""
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
    mark_furniture(pages)
    warnings = [f"page {p.number}: {NO_TEXT}" if p.objects else f"page {p.number}: blank (no content)"
                for p in pages if not p.has_text]
    return pages, warnings


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
    if not s or len(s) > 120 or s.endswith((",", ";")) or _is_num(s):
        return False
    if not (s[0].isupper() or s[0].isdigit() or s[0] in "(“\""):
        return False
    return sum(c.isalpha() for c in s) >= 3 and len(s.split()) <= 16


@without_gc
def parse(doc_id: str, data: bytes, meta: dict[str, Any] | None = None) -> ParsedDocument:
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError(f"{doc_id}: the pdf parser takes the file's bytes, got {type(data).__name__}")
    pages, warnings = extract(bytes(data), doc_id)
    if not pages:
        raise PdfError(f"{doc_id}: the PDF has no pages")
    if not any(p.has_text for p in pages):
        raise PdfError(f"{doc_id}: none of its {len(pages)} pages has a text layer — OCR not configured")
    view, line_meta = build_view(pages)
    body = _body_size(pages)
    d = _Doc(doc_id, view)
    lines = line_spans(view, "\n\f")
    n = len(lines)

    def L(k: int) -> str:
        return view[lines[k][0]:lines[k][1]]

    furniture = [m is not None and m.furniture for m in line_meta]
    blank = [m is None or f for m, f in zip(line_meta, furniture)]   # furniture ends blocks like a blank
    row = [(not blank[k]) and _is_row(L(k)) for k in range(n)]

    # pass 1: tables (header lines: up to 3 multi-column lines directly above, same block)
    tables: dict[int, tuple[int, int]] = {}
    k, prev_end = 0, 0
    while k < n:
        if row[k] and _table_follows(k, n, row, blank, L):
            last = _table_extent(k, n, row, blank, L)
            h = k
            while h > prev_end and k - h < 3 and not blank[h - 1] and _is_header_line(L(h - 1)) \
                    and not line_meta[h].para_break:
                h -= 1
            tables[h] = (k, last)
            prev_end = k = last + 1
            continue
        k += 1

    def single(i: int) -> bool:
        return i + 1 >= n or blank[i + 1] or line_meta[i + 1].para_break

    i = 0
    while i < n:
        if i in tables:
            first, last = tables[i]
            at = len(d.blocks)
            _table(d, view, lines, i, first, last, row, blank, L)
            _columns_by_position(d.blocks[at], range(i, first), range(first, last + 1), line_meta, L)
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
        cur = L(i)
        lm = line_meta[i]
        small = lm.size <= SMALL_PRINT * body
        nm = _note_mark(cur, d.recent)
        if nm is None and small and _NOTE_LINE.match(cur):
            nm = _note_mark(cur, {m: "" for m in _mark_candidates(cur)})
        if nm is not None:
            j = i + 1
            while j < n and not blank[j] and not line_meta[j].para_break and j not in tables \
                    and _note_mark(L(j), d.recent) is None:
                j += 1
            attrs = {"mark": nm}
            if d.recent.get(nm):
                attrs["refers_to"] = d.recent[nm]
            d.add(BlockKind.NOTE, s, lines[j - 1][1], attrs)
            i = j
            continue
        lvl = _line_heading_level(cur)
        one = single(i)
        if lvl and (lvl <= 2 or one or _line_heading_level(L(i + 1) if i + 1 < n else "")):
            if lvl <= 2 or len(cur.strip()) <= 100:
                d.heading(lvl, s, e)
                i += 1
                continue
        if one and _title_like(cur):
            if lm.size >= HEADING_SIZE * body:
                d.heading(2 if lm.size >= HEADING_SIZE_2 * body else 3, s, e)
                i += 1
                continue
            if lm.bold and not cur.rstrip().endswith("."):
                d.heading(4, s, e)
                i += 1
                continue
        # paragraph: the layout's block of lines
        j = i + 1
        while j < n and not blank[j] and not line_meta[j].para_break and j not in tables \
                and _line_heading_level(L(j)) not in (1, 2):
            j += 1
        body_text = view[s:lines[j - 1][1]]
        attrs: dict[str, Any] = {}
        marks = _cites(body_text)
        if marks:
            attrs["cites"] = marks
        b = d.add(BlockKind.PARAGRAPH, s, lines[j - 1][1], attrs)
        for m in marks:
            d.recent[m] = b.block_id
        i = j

    if not d.blocks:
        raise PdfError(f"{doc_id}: no text blocks found in {len(pages)} pages")
    return ParsedDocument(
        doc_id=doc_id, doc_sha=sha256_bytes(bytes(data)), parser="pdf", parser_version=VERSION,
        view_text=view, offsets=OffsetMap.identity(len(view)), blocks=d.blocks, warnings=warnings,
    )


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
    m = _NOTE_LINE.match(line)
    return [g for g in m.groups() if g] if m else []
