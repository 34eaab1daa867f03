"""Which stored blocks a document has when OCR is on: only image-only pages change the key.

A parser that reads image-only pages (``OCR = True``: parse/pdf.py) stores a document it read
with OCR under its key plus the OCR's (``pdf-2_ocr-tesseract-5.5.4-eng.<model>-200dpi``), and
every other document under its plain key, as without OCR. With OCR on, a document:

1. stored under the OCR key: reused — unless a page's OCR failed there, or timed out under a
   shorter limit than the one set now (``ocr.ocr_retry``): then parsed again;
2. stored under the plain key, with no page left unread for want of OCR (its stored warnings
   hold no "no text layer — OCR not configured"): reused — OCR would change nothing, so a
   text-only PDF keeps its blocks;
3. otherwise: parsed with OCR, and stored under the OCR key if OCR read a page (the parsed
   document's ``parser_version`` says so), else under the plain key (``written_key``).

Turning OCR off looks up the plain key only, as before OCR existed.
"""
from __future__ import annotations

from .ocr import OcrConfig, needs_ocr, ocr_retry


def stored_key(key: str, version: str, ocr: OcrConfig | None, blocks,
               sha: str) -> tuple[str, str, OcrConfig | None, bool]:
    """(the key to reuse or to parse into, its parser version, the OCR to parse with or None,
    whether blocks stored under that key may be reused)."""
    if ocr is None:
        return key, version, None, True
    read_key, read_version = f"{key}_{ocr.key}", f"{version}_{ocr.key}"
    if blocks.exists(read_key, sha):
        return read_key, read_version, ocr, not ocr_retry(blocks.summary(read_key, sha)[1], ocr)
    if blocks.exists(key, sha) and not needs_ocr(blocks.summary(key, sha)[1]):
        return key, version, None, True
    return read_key, read_version, ocr, True


def written_key(key: str, version: str, plain_key: str, plain_version: str, parsed_version: str) -> tuple[str, str]:
    """The key a freshly parsed document is stored under: the plain key when OCR read no page."""
    return (key, version) if parsed_version == version else (plain_key, plain_version)
