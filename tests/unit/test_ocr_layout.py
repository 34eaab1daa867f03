"""OCR settings and layout without an engine (issue 31): the FINCHUNK_OCR values, a missing
engine named with the extra to install, the PDF parser declared OCR-capable, and OCR'd words
rebuilt into rows and table cells (parse/ocr_layout.py) from made-up engine output."""
from __future__ import annotations

import sys

import pytest

from finchunk_pipeline.parse import ocr_engine
from finchunk_pipeline.parse.ocr import needs_ocr, ocr_config, ocr_warnings, page_ranges_text
from finchunk_pipeline.parse.ocr_engine import OcrEngineMissing, OcrWord
from finchunk_pipeline.parse.ocr_layout import page_lines
from finchunk_pipeline.parse.registry import parsers
from finchunk_pipeline import Settings
from finchunk_pipeline.settings import ENV

DPI = 144   # 2 px per point


def test_settings_declare_the_ocr_variables():
    s = Settings.from_env({"FINCHUNK_OCR": "tesseract", "FINCHUNK_OCR_DPI": "300", "FINCHUNK_OCR_TIMEOUT": "20"})
    assert (s.ocr, s.ocr_dpi, s.ocr_timeout) == ("tesseract", "300", "20")
    assert {ENV["ocr"], ENV["ocr_dpi"], ENV["ocr_timeout"]} == {"FINCHUNK_OCR", "FINCHUNK_OCR_DPI", "FINCHUNK_OCR_TIMEOUT"}
    assert Settings.from_env({}).ocr == ""


@pytest.mark.parametrize("value", ["", "off", "OFF", "none", "0"])
def test_ocr_off_values(value):
    assert ocr_config(value) is None


@pytest.mark.parametrize("engine, dpi, timeout, match", [
    ("rapidocr", "", "", r"unknown OCR engine 'rapidocr'; known: off, on, tesseract"),
    ("tesseract", "abc", "", r"FINCHUNK_OCR_DPI: expected a number from 72 to 600, got 'abc'"),
    ("on", "50", "", r"FINCHUNK_OCR_DPI"),
    ("on", "", "0", r"FINCHUNK_OCR_TIMEOUT: expected a number from 1.0 to 3600.0"),
])
def test_bad_ocr_settings_are_clear_errors(engine, dpi, timeout, match):
    with pytest.raises(ValueError, match=match):
        ocr_config(engine, dpi, timeout)


def test_a_missing_engine_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "tesserocr", None)   # import fails as without the extra
    ocr_engine.engine_identity.cache_clear()
    try:
        with pytest.raises(OcrEngineMissing, match=r"pip install 'finchunk_pipeline\[ocr\]'"):
            ocr_config("on")
    finally:
        ocr_engine.engine_identity.cache_clear()


def test_only_the_pdf_parser_reads_image_pages():
    assert {name for name, spec in parsers().items() if spec.ocr} == {"pdf"}


def test_needs_ocr_and_warnings():
    assert needs_ocr(["page 3: no text layer — OCR not configured"])
    assert not needs_ocr(["page 3: blank (no content)", "pages 1-2: no text layer, read by OCR (x 1, 200 dpi)"])
    assert page_ranges_text([9, 3, 4, 5, 12]) == "3-5, 9, 12"


def _w(text, left, top, right, bottom, block, line, size=11.0, conf=95.0):
    return OcrWord(text, left, top, right, bottom, bottom - 4, size, block, line, conf)


def test_figure_columns_join_their_labels_in_rows_with_cells():
    """Tesseract's blocks for a table: the labels (block 1), then each figure column (2, 3)."""
    words = [_w("Note", 100, 80, 160, 110, 0, 0, size=16), _w("7", 170, 80, 185, 110, 0, 0, size=16),
             _w("Revenue", 100, 200, 200, 222, 1, 1), _w("Cost", 100, 240, 150, 262, 1, 2),
             _w("of", 156, 240, 175, 262, 1, 2), _w("sales", 181, 240, 240, 262, 1, 2),
             _w("2024", 520, 160, 580, 182, 2, 3), _w("1,234.5", 500, 200, 580, 222, 2, 4),
             _w("(700.1)", 505, 240, 580, 262, 2, 5),
             _w("2023", 720, 160, 780, 182, 3, 6), _w("$", 690, 200, 700, 222, 3, 7),
             _w("1,100.2", 705, 200, 780, 222, 3, 7), _w("(650.0)", 705, 240, 780, 262, 3, 8),
             _w("|", 900, 300, 905, 400, 4, 9, conf=40.0), _w("~~", 300, 500, 330, 510, 5, 10, conf=12.0)]
    lines = page_lines(words, height=1000, dpi=DPI)
    assert [ln.text for ln in lines] == ["Note 7", "2024  2023", "Revenue  1,234.5  $ 1,100.2",
                                         "Cost of sales  (700.1)  (650.0)"]
    assert lines[2].cells == [(0.0, 50.0), (200.0, 240.0), (295.0, 340.0)]   # points from the left edge
    assert lines[0].size == 16 and lines[2].size == 11
    assert lines[2].y == pytest.approx((1000 - 218) / 2)   # baseline, points from the bottom
    assert lines[0].para_break and lines[1].para_break      # a size change starts a block


def test_prose_columns_side_by_side_stay_apart_in_reading_order():
    left = [_w(f"left{k}", 100, 100 + 30 * k, 400, 122 + 30 * k, 0, k) for k in range(3)]
    right = [_w(f"right{k}", 600, 100 + 30 * k, 900, 122 + 30 * k, 1, 3 + k) for k in range(3)]
    lines = page_lines(right + left, height=1000, dpi=DPI)
    assert [ln.text for ln in lines] == ["left0", "left1", "left2", "right0", "right1", "right2"]
    assert lines[3].para_break   # the second column starts a block (it goes back up the page)


def test_ocr_warnings_name_pages_and_reasons():
    from finchunk_pipeline.parse.ocr import OcrConfig, PageOcr

    class Config(OcrConfig):
        @property
        def label(self):
            return "tesseract 9.9"
    read = {2: PageOcr(2, "read", [], 1.0), 3: PageOcr(3, "read", [], 1.0), 5: PageOcr(5, "empty", [], 0.1),
            7: PageOcr(7, "timeout", [], 60.0), 8: PageOcr(8, "failed", [], 0.0, "the OCR worker ended (exit code -9)")}
    assert ocr_warnings(read, Config(timeout=60)) == [
        "pages 2-3: no text layer, read by OCR (tesseract 9.9, 200 dpi)",
        "page 5: no text layer, and OCR found no text (tesseract 9.9)",
        "page 7: no text layer, OCR timed out (60 s per page) — left without text",
        "page 8: no text layer, OCR failed: the OCR worker ended (exit code -9) — left without text"]
