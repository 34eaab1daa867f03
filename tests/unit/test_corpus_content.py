"""Binary detection by signature and proportion; stray control characters kept as text."""
from __future__ import annotations

import pytest

from finchunk_pipeline.parse.content import binary_problem, controls_as_spaces, stray_controls
from finchunk_pipeline import load_corpus

from tests.conftest import write_corpus

PAGE = ("Item 7. Management's Discussion and Analysis\n\nNet revenues were $6,489 million in 2019, "
        "compared with $7,500 million in 2018.\n") * 40


@pytest.mark.parametrize("head, what", [
    ("%PDF-1.7\n%\xe2\xe3", "PDF"), ("PK\x03\x04\x14\x00", "ZIP"), ("\x89PNG\r\n\x1a\n", "PNG"),
    ("\xff\xd8\xff\xe0", "JPEG"), ("\x1f\x8b\x08\x00", "gzip"), ("\ufeff%PDF-1.4", "PDF"),
])
def test_file_signatures_are_named(head, what):
    why = binary_problem(head + PAGE)
    assert why is not None and what in why


def test_pdf_extracted_text_with_a_few_nuls_is_text():
    # as pypdf leaves them: a handful of NULs in a long filing, some near the start
    text = "\x00" * 3 + PAGE[:2000] + "\x00\x00" + PAGE + "\x00"
    assert binary_problem(text) is None
    assert stray_controls(text) == 6


def test_mostly_control_characters_is_binary():
    why = binary_problem("\x00\x01\x02\x03" * 100)
    assert why is not None and "binary" in why and "100.0%" in why
    # undecodable bytes (U+FFFD) count as not-text too
    assert binary_problem("\ufffd\ufffdab" * 200) is not None


def test_controls_become_spaces_one_for_one():
    text = "Revenue\x00 was\x07 10\r\nmillion\x0c\t."
    clean, n = controls_as_spaces(text)
    assert n == 2 and len(clean) == len(text)
    assert clean == "Revenue  was  10\r\nmillion\x0c\t."  # CR, LF, form feed and tab are kept


def test_loader_keeps_nul_text_and_rejects_signature(tmp_path):
    folder = write_corpus(tmp_path / "c", [
        {"doc_id": "nul", "text": "# A\n\n" + PAGE + "\x00", "format": "text"},
        {"doc_id": "pdf-bytes", "text": "%PDF-1.5\n" + PAGE, "format": "text"},
    ])
    probs = load_corpus(folder).document_problems
    assert "nul" not in probs
    assert "PDF" in probs["pdf-bytes"]
