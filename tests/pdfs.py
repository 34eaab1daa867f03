"""Small PDFs written by the tests themselves (fpdf2): a filing with headings, paragraphs,
a table, a footnote and running headers / footers; encrypted, scanned-like, broken and
long variants."""
from __future__ import annotations

import pytest

fpdf = pytest.importorskip("fpdf", reason="fpdf2 (the test extra) writes the test PDFs")

PARAGRAPH = ("Revenue grew in every region during the year, driven by higher volumes and the pricing "
             "actions taken in the first half. Operating margin improved as the restructuring programme "
             "delivered its planned savings, and we expect further progress next year.")
ROWS = [("Revenue", "1,234.5", "1,100.2"), ("Cost of sales", "(700.1)", "(650.0)"),
        ("Gross profit (1)", "534.4", "450.2"), ("Operating profit", "210.9", "180.3")]


def _pdf(**kw):
    pdf = fpdf.FPDF(format="A4", **kw)
    pdf.set_auto_page_break(False)
    return pdf


def _furniture(pdf, page_no: int) -> None:
    pdf.set_font("Helvetica", size=8)
    pdf.text(20, 12, "Example Holdings plc - Annual Report 2024")
    pdf.text(100, 287, f"Page {page_no}")


def _paragraph(pdf, y: float, text: str, size: int = 10) -> float:
    pdf.set_font("Helvetica", size=size)
    pdf.set_xy(20, y)
    pdf.multi_cell(170, size * 0.5, text)
    return pdf.get_y()


def filing_pdf(pages: int = 3) -> bytes:
    """A small annual report: page 1 a title, an Item heading, a bold heading, paragraphs;
    page 2 a table with header, unit line and a footnote; every page a running header and a
    page number; further pages: more paragraphs."""
    pdf = _pdf()
    for n in range(1, pages + 1):
        pdf.add_page()
        _furniture(pdf, n)
        if n == 1:
            pdf.set_font("Helvetica", style="B", size=18)
            pdf.text(20, 30, "Example Holdings plc")
            pdf.set_font("Helvetica", size=10)
            pdf.text(20, 45, "Item 7. Management's Discussion and Analysis")
            y = _paragraph(pdf, 52, PARAGRAPH)
            pdf.set_font("Helvetica", style="B", size=10)
            pdf.text(20, y + 10, "Results of operations")
            y = _paragraph(pdf, y + 14, "Our results of operations were strong. " + PARAGRAPH)
            _paragraph(pdf, y + 8, "Cash generation remained solid throughout the year and the balance sheet "
                                   "stayed conservative, with net debt below one times earnings.")
        elif n == 2:
            pdf.set_font("Helvetica", style="B", size=10)
            pdf.text(20, 30, "Note 7 - Segment results")
            pdf.set_font("Helvetica", size=10)
            pdf.text(20, 40, "(in millions)")
            pdf.text(120, 48, "2024")
            pdf.text(160, 48, "2023")
            for k, (label, a, b) in enumerate(ROWS):
                y = 56 + 7 * k
                pdf.text(20, y, label)
                pdf.text(120, y, a)
                pdf.text(160, y, b)
            pdf.set_font("Helvetica", size=8)
            pdf.text(20, 90, "(1) Gross profit excludes the disposed packaging business.")
            _paragraph(pdf, 100, "The segment table above reconciles to the group income statement. " + PARAGRAPH)
        else:
            _paragraph(pdf, 30, f"Page {n} discusses risk factor number {n}. " + PARAGRAPH)
    return bytes(pdf.output())


def encrypted_pdf(user_password: str = "") -> bytes:
    pdf = _pdf()
    pdf.set_encryption(owner_password="owner-secret", user_password=user_password)
    pdf.add_page()
    _paragraph(pdf, 30, "Encrypted report. " + PARAGRAPH)
    return bytes(pdf.output())


def scanned_page_pdf() -> bytes:
    """Page 1 has text; page 2 only a drawing (like a scanned image: no text layer); page 3
    is empty."""
    pdf = _pdf()
    pdf.add_page()
    _paragraph(pdf, 30, "First page with text. " + PARAGRAPH)
    pdf.add_page()
    pdf.set_fill_color(80, 80, 80)
    pdf.rect(20, 20, 150, 200, style="F")
    pdf.add_page()
    return bytes(pdf.output())


def image_only_pdf() -> bytes:
    pdf = _pdf()
    pdf.add_page()
    pdf.rect(20, 20, 150, 200, style="F")
    return bytes(pdf.output())


def long_pdf(pages: int) -> bytes:
    pdf = _pdf()
    pdf.set_font("Helvetica", size=10)
    for n in range(1, pages + 1):
        pdf.add_page()
        pdf.text(20, 30, f"Page {n} of the long report mentions item number {n}.")
    return bytes(pdf.output())
