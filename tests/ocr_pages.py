"""Image-only PDFs written by the tests themselves: known text and a table of figures drawn
onto a page image (Pillow), each image wrapped into a PDF page with no text layer (fpdf2) —
what a scanned filing looks like to the PDF parser. Deterministic for a given seed.

``scanned_pdf(pages)`` returns the PDF's bytes and, per page, what was drawn: its heading,
paragraph lines, table rows (label + figures) and everything as one text to score OCR against.
"""
from __future__ import annotations

import io
import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

Image = pytest.importorskip("PIL.Image", reason="Pillow draws the scanned test pages")
from PIL import ImageDraw, ImageFont  # noqa: E402

fpdf = pytest.importorskip("fpdf", reason="fpdf2 (the test extra) writes the test PDFs")

WORDS = ("revenue operating margin improved during the year driven by higher volumes pricing "
         "actions restructuring programme delivered planned savings cash generation remained solid "
         "balance sheet net debt earnings segment results income statement reconciles group "
         "customers products services growth expenses capital expenditure dividends shareholders "
         "liquidity financing activities investments goodwill impairment tax rate currency").split()
LABELS = ("Revenue", "Cost of sales", "Gross profit", "Selling expenses", "Administrative expenses",
          "Operating profit", "Finance costs", "Profit before tax", "Income tax", "Net income",
          "Total assets", "Total liabilities")
FONT_FILES = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
              "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf")
PAGE_W, PAGE_H = 8.5, 11.0   # inches (US Letter)


def font(size: int):
    """A TrueType font at ``size`` pixels: a system sans if present, else Pillow's own."""
    for f in FONT_FILES:
        if Path(f).exists():
            return ImageFont.truetype(f, size)
    return ImageFont.load_default(size=size)


@dataclass
class DrawnPage:
    heading: str
    lines: list[str] = field(default_factory=list)          # paragraph lines, in order
    rows: list[tuple[str, str, str]] = field(default_factory=list)   # table: label, 2024, 2023
    header: tuple[str, str] = ("2024", "2023")
    after: str = ""     # a closing line under the table
    footer: str = ""    # the page number at the bottom

    @property
    def text(self) -> str:
        """Everything drawn, in reading order, one line per drawn line."""
        out = [self.heading, *self.lines]
        if self.rows:
            out.append("  ".join(self.header))
            out += ["  ".join(r) for r in self.rows]
        return "\n".join(out + [t for t in (self.after, self.footer) if t])

    @property
    def figures(self) -> list[str]:
        return [f for r in self.rows for f in r[1:]]


def _figure(rng: random.Random) -> str:
    v = rng.randint(100, 999_999) / 10
    s = f"{v:,.1f}"
    return f"({s})" if rng.random() < 0.25 else s


HEADINGS = ("Results of operations", "Liquidity and capital resources", "Segment information",
            "Critical accounting estimates", "Market risk disclosures", "Income taxes", "Goodwill and intangibles",
            "Debt and financing arrangements", "Commitments and contingencies", "Subsequent events")
LINE_CHARS = 84          # a paragraph line's length at most: 11 pt lines fit the 6.5-inch text width


def page_content(rng: random.Random, k: int, paragraph_lines: int = 8, rows: int = 6) -> DrawnPage:
    page = DrawnPage(heading=f"{HEADINGS[k % len(HEADINGS)]} ({k + 1})",
                     after="Amounts in millions of dollars, except where stated otherwise.", footer=f"Page {k + 1}")
    for _ in range(paragraph_lines):
        words = [rng.choice(WORDS).capitalize()]
        while True:
            w = rng.choice(WORDS)
            if len(" ".join(words)) + len(w) + 2 > LINE_CHARS:
                break
            words.append(w)
        page.lines.append(" ".join(words) + ".")
    for label in rng.sample(LABELS, rows):
        page.rows.append((label, _figure(rng), _figure(rng)))
    return page


def draw_page(page: DrawnPage, dpi: int = 200, noise: float = 0.0, seed: int = 0):
    """The page as a grayscale Pillow image at ``dpi``: heading in a larger font, the
    paragraph lines, then the table (labels left, figures right-aligned in two columns)."""
    px = lambda inches: int(inches * dpi)  # noqa: E731
    img = Image.new("L", (px(PAGE_W), px(PAGE_H)), 255)
    d = ImageDraw.Draw(img)
    body, big = font(max(8, int(dpi * 11 / 72))), font(max(10, int(dpi * 16 / 72)))  # 11 pt, 16 pt
    step = int(dpi * 11 / 72 * 1.45)
    y = px(1.0)
    d.text((px(1.0), y), page.heading, font=big, fill=0)
    y += int(step * 2.2)
    for line in page.lines:
        d.text((px(1.0), y), line, font=body, fill=0)
        y += step
    if page.rows:
        y += step
        cols = (px(5.4), px(7.0))   # right edges of the two figure columns
        for x, h in zip(cols, page.header):
            d.text((x, y), h, font=body, fill=0, anchor="ra")
        y += int(step * 1.3)
        for label, *figs in page.rows:
            d.text((px(1.0), y), label, font=body, fill=0)
            for x, f in zip(cols, figs):
                d.text((x, y), f, font=body, fill=0, anchor="ra")
            y += step
    if page.after:
        d.text((px(1.0), y + step), page.after, font=body, fill=0)
    if page.footer:
        d.text((px(PAGE_W / 2), px(PAGE_H - 0.6)), page.footer, font=body, fill=0, anchor="ma")
    if noise:
        rng = random.Random(seed)
        pix = img.load()
        for _ in range(int(noise * img.width * img.height)):
            pix[rng.randrange(img.width), rng.randrange(img.height)] = rng.choice((0, 128, 255))
    return img


def image_pdf(images, dpi: int = 200, text_pages: dict[int, str] | None = None) -> bytes:
    """One PDF page per image (placed over the whole page, no text layer); ``text_pages``:
    page index -> a paragraph written as real PDF text instead (a mixed document)."""
    pdf = fpdf.FPDF(unit="in", format=(PAGE_W, PAGE_H))
    pdf.set_auto_page_break(False)
    for k, img in enumerate(images):
        pdf.add_page()
        if text_pages and k in text_pages:
            pdf.set_font("Helvetica", size=11)
            pdf.set_xy(1.0, 1.0)
            pdf.multi_cell(6.5, 0.2, text_pages[k])
            continue
        buf = io.BytesIO()
        img.save(buf, format="PNG", optimize=True)
        buf.seek(0)
        pdf.image(buf, x=0, y=0, w=PAGE_W, h=PAGE_H)
    return bytes(pdf.output())


def scanned_pdf(pages: int = 1, seed: int = 7, dpi: int = 200, paragraph_lines: int = 8, rows: int = 6,
                text_pages: dict[int, str] | None = None) -> tuple[bytes, list[DrawnPage]]:
    """An image-only PDF of ``pages`` generated pages and what each shows."""
    rng = random.Random(seed)
    drawn = [page_content(rng, k, paragraph_lines, rows) for k in range(pages)]
    images = [draw_page(p, dpi) if not (text_pages and k in text_pages) else None for k, p in enumerate(drawn)]
    return image_pdf(images, dpi, text_pages), drawn


def char_recall(truth: str, got: str) -> float:
    """The share of ``truth``'s characters (whitespace runs as one space) that ``got``
    reproduces in order (the longest common subsequence's matching blocks)."""
    from difflib import SequenceMatcher

    a, b = " ".join(truth.split()), " ".join(got.split())
    if not a:
        return 1.0
    matched = sum(m.size for m in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    return matched / len(a)
