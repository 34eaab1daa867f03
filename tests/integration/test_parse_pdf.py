"""The pdf parser on PDFs the tests write (tests/pdfs.py): blocks, exact offsets, furniture,
hostile files, and every chunking strategy on its blocks."""
from __future__ import annotations

import numpy as np
import pytest

from finchunk_pipeline import chunk_document
from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline import SPAN_JOINER
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline import RawStore
from finchunk_pipeline.parse import registry
from finchunk_pipeline.parse.pdf import NO_TEXT, parse
from finchunk_pipeline.parse.pdf_layout import PdfError, PdfPasswordError, iter_pages, open_pdf, page_ranges
from finchunk_pipeline import parse_documents
from finchunk_pipeline import BlockStore
from finchunk_pipeline.hashing import sha256_bytes

from tests import pdfs

SLOW = {"semantic"}  # loads the embedding model


@pytest.fixture(scope="module")
def filing():
    return parse("acme-2024", pdfs.filing_pdf(), {})


def test_blocks_are_exact_and_carry_their_page(filing):
    view = filing.view_text
    assert filing.offsets.is_identity
    ranges = page_ranges(view)
    assert len(ranges) == 3 and view.count("\f") == 2
    for b in filing.blocks:
        assert b.text == view[b.vstart:b.vend] and (b.start, b.end) == (b.vstart, b.vend)
        s, e = ranges[b.attrs["page"] - 1]
        assert s <= b.vstart and b.vend <= e, f"{b.block_id} outside its page {b.attrs['page']}"


def test_headings_by_number_and_by_font(filing):
    heads = {b.text: b.attrs["level"] for b in filing.blocks if b.kind == "heading"}
    assert heads["Item 7. Management's Discussion and Analysis"] == 2
    assert heads["Example Holdings plc"] in (2, 3)       # 18 pt title over 10 pt body
    assert heads["Results of operations"] == 4           # bold, one line
    assert heads["Note 7 - Segment results"] == 3
    para = next(b for b in filing.blocks if b.text.startswith("Our results of operations"))
    assert para.section_path[-1] == "Results of operations"


def test_paragraph_lines_are_joined_into_one_block(filing):
    para = next(b for b in filing.blocks if b.text.startswith("Revenue grew in every region"))
    assert para.kind == "paragraph" and "\n" in para.text          # spans its lines
    assert para.text.rstrip().endswith("further progress next year.")


def test_table_rows_header_unit_and_footnote(filing):
    table = next(b for b in filing.blocks if b.kind == "table")
    assert table.attrs["columns"][1:] == ["2024", "2023"]
    assert table.attrs["unit"] == "(in millions)"
    rows = [b for b in filing.blocks if b.parent_id == table.block_id]
    data = [r.attrs["cells"] for r in rows if not r.attrs["is_header"]]
    assert data[0] == ["Revenue", "1,234.5", "1,100.2"] and data[1] == ["Cost of sales", "(700.1)", "(650.0)"]
    assert rows[0].attrs["is_header"]
    note = next(b for b in filing.blocks if b.kind == "note")
    assert note.attrs["mark"] == "1" and note.attrs["refers_to"] == table.block_id
    assert note.text.startswith("(1) Gross profit excludes")


def test_running_headers_and_page_numbers_are_furniture_not_glued(filing):
    furniture = [b for b in filing.blocks if b.attrs.get("furniture")]
    assert sorted(b.text for b in furniture) == sorted(
        ["Example Holdings plc - Annual Report 2024"] * 3 + ["Page 1", "Page 2", "Page 3"])
    for b in filing.blocks:
        if not b.attrs.get("furniture"):
            assert "Annual Report 2024" not in b.text and "Page 2" not in b.text
    assert not any(h.startswith("Example Holdings plc -") for b in filing.blocks for h in b.section_path)


def test_parser_declares_bytes_input():
    spec = registry.select_parser("annual_report", "pdf")
    assert spec.name == "pdf" and spec.input == "bytes"
    assert spec.key in registry.parsers_version()
    with pytest.raises(ValueError, match="input must be one of"):
        registry.register("x", "1", parse, input="pixels")


@pytest.mark.parametrize("strategy", sorted(set(STRATEGIES) - SLOW))
def test_every_strategy_is_exact_and_loses_nothing_on_pdf_blocks(strategy, filing):
    if not STRATEGIES[strategy].available():
        pytest.skip(f"{strategy} needs {STRATEGIES[strategy].requires!r}")
    config = ChunkerConfig(name=f"t-{strategy}", strategy=strategy, header=True)
    chunks = chunk_document(config.chunker, filing, {"title": "Example Holdings plc — Annual report 2024"})
    assert chunks
    view = filing.view_text
    covered = np.zeros(len(view) + 1, dtype=bool)
    for c in chunks:
        assert c.source_text == SPAN_JOINER.join(view[s:e] for s, e in c.view_spans)
        assert c.spans == [tuple(s) for s in c.view_spans]      # identity: the view is the raw text
        assert c.embedding_text.endswith(c.source_text)
        for s, e in c.view_spans:
            covered[s:e] = True
    for b in filing.blocks:
        if b.kind == "table" or b.attrs.get("furniture"):
            continue
        lost = [i for i in range(b.vstart, b.vend) if not covered[i] and not view[i].isspace()]
        assert not lost, f"{strategy} lost {b.kind} {b.text[:60]!r}"


# --- hostile PDFs ---------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["RC4", "AES_128"])
def test_encrypted_with_empty_password_is_opened(method):
    from fpdf.enums import EncryptionMethod

    pdf = pdfs.fpdf.FPDF()
    pdf.set_encryption(owner_password="owner", user_password="", encryption_method=getattr(EncryptionMethod, method))
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.text(20, 30, "Encrypted but readable by anyone.")
    doc = parse("enc", bytes(pdf.output()), {})
    assert b"/Encrypt" in bytes(pdf.output())
    assert "Encrypted but readable by anyone." in doc.view_text


def test_password_protected_is_a_clear_error():
    with pytest.raises(PdfPasswordError, match=r"locked-report: the PDF is encrypted with a password"):
        parse("locked-report", pdfs.encrypted_pdf(user_password="secret"), {})


@pytest.mark.parametrize("data, what", [
    (b"", "empty"),
    (b"%PDF-1.7\n" + b"\x00garbage" * 50, "broken or truncated PDF"),
    (b"<html>not a pdf</html>", "not a PDF"),
])
def test_broken_files_are_clear_errors(data, what):
    with pytest.raises(PdfError, match=rf"bad-doc: .*{what}"):
        parse("bad-doc", data, {})


def test_truncated_file_is_an_error_or_its_readable_part():
    full = pdfs.filing_pdf()
    cut = full[: len(full) // 3]
    try:
        doc = parse("cut", cut, {})
    except PdfError as exc:
        assert str(exc).startswith("cut: ")
    else:  # PDFium can rebuild a damaged cross-reference table: what it reads must be exact
        assert all(doc.view_text[b.vstart:b.vend] == b.text for b in doc.blocks)


def test_page_without_text_layer_is_a_warning_per_page():
    doc = parse("scan", pdfs.scanned_page_pdf(), {})
    assert doc.warnings == [f"page 2: {NO_TEXT}", "page 3: blank (no content)"]
    assert "First page with text." in doc.view_text
    assert doc.view_text.count("\f") == 2
    with pytest.raises(PdfError, match=r"scan-only: none of its 1 pages has a text layer — OCR not configured"):
        parse("scan-only", pdfs.image_only_pdf(), {})


def test_long_file_is_read_page_by_page():
    data = pdfs.long_pdf(520)
    pdf = open_pdf(data, "long")
    try:
        pages = iter_pages(pdf)
        first = next(pages)           # one page extracted, the others not touched
        assert first.number == 1 and "item number 1." in first.lines[0].text
        pages.close()
    finally:
        pdf.close()
    doc = parse("long", data, {})
    assert doc.view_text.count("\f") == 519
    last = [b for b in doc.blocks if "item number 520." in b.text]
    assert len(last) == 1 and last[0].attrs["page"] == 520


def test_one_bad_pdf_does_not_stop_the_run(tmp_path):
    import pandas as pd

    raw, blocks = RawStore(tmp_path / "raw"), BlockStore(tmp_path / "blocks")
    docs = []
    for doc_id, data in [("good", pdfs.filing_pdf()), ("locked", pdfs.encrypted_pdf("pw")),
                         ("broken", b"%PDF-1.4\nnot really")]:
        sha, _ = raw.put_bytes(data, "pdf")
        assert sha == sha256_bytes(data)
        docs.append({"doc_id": doc_id, "doc_type": "annual_report", "format": "pdf", "sha": sha})
    report = parse_documents(pd.DataFrame(docs), raw, blocks)
    rows = {r["doc_id"]: r for r in report.rows}
    assert report.parsed == 1 and report.failed == 2
    assert rows["good"]["error"] is None and rows["good"]["blocks"]["table"] == 1
    assert "locked: the PDF is encrypted with a password" in rows["locked"]["error"]
    assert "broken: " in rows["broken"]["error"]
    stored = blocks.read(rows["good"]["parser_key"], rows["good"]["sha"])
    assert stored.view_text.count("\f") == 2 and stored.parser == "pdf"


# --- real PDFs (devdata) --------------------------------------------------------------------
