"""Image-only PDF pages read by OCR, offline (``FINCHUNK_OCR``; docs/ocr.md).

A PDF page with content but no text layer (a scan, a signed statement pasted as an image) has
nothing PDFium can extract. With OCR on, the PDF parser (parse/pdf.py) has each such page
rendered with PDFium at ``dpi`` and read by the engine in worker processes (parse/ocr_pool.py,
parse/ocr_worker.py), its words turned into the same lines a text page gives
(parse/ocr_layout.py); pages with a text layer are never OCR'd.

``OcrConfig.key`` names everything that changes what OCR produces (engine, its version and
model, language, resolution). A document stored with OCR is stored under its parser's key
plus this key (builders/blocks.py), and only a document with image-only pages is: turning
OCR on parses again exactly the documents whose stored warnings say a page had no text
layer (``needs_ocr``); every other document keeps its blocks. The worker count and the time
limit change no output that is kept (a timed-out page is reported), so they are not in it:
a document stored with a page whose OCR failed, or timed out under a shorter limit than the
one set now, is read again (``ocr_retry``).

Settings: ``FINCHUNK_OCR`` = off (default) | on | tesseract (``on``: the default engine);
``FINCHUNK_OCR_DPI`` (default 200); ``FINCHUNK_OCR_TIMEOUT``, seconds per page (default 60).
An engine that is not installed is an error naming the extra to install, raised before any
document is parsed.
"""
from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, replace

from .ocr_engine import ENGINES, engine_identity, engine_version
from .ocr_pool import PageJob, shared_pool
from .pdf_layout import PdfLine

NO_TEXT = "no text layer — OCR not configured"
DEFAULT_ENGINE = "tesseract"
DEFAULT_DPI = 200
DEFAULT_TIMEOUT = 60.0
DPI_RANGE = (72, 600)
_OFF = ("", "off", "none", "no", "false", "0")
_ON = ("on", "yes", "true", "1")


@dataclass(frozen=True)
class OcrConfig:
    engine: str = DEFAULT_ENGINE
    lang: str = "eng"
    dpi: int = DEFAULT_DPI
    timeout: float = DEFAULT_TIMEOUT   # seconds per page
    workers: int = 0                   # processes (0: the usable cores)

    @property
    def key(self) -> str:
        """Names stored blocks read with this OCR: ``ocr-tesseract-5.5.4-eng.<model>-200dpi``."""
        return f"ocr-{engine_identity(self.engine, self.lang)}-{self.dpi}dpi"

    @property
    def label(self) -> str:
        """``tesseract 5.5.4``: what block attrs and warnings name."""
        return f"{self.engine} {engine_version(self.engine)}"

    def with_workers(self, workers: int) -> OcrConfig:
        return replace(self, workers=max(1, workers))

    def describe(self) -> dict:
        """For the parse report."""
        return {"engine": self.engine, "version": engine_version(self.engine), "lang": self.lang,
                "dpi": self.dpi, "timeout_s": self.timeout, "key": self.key}


def _number(name: str, value: str, kind, default, low, high):
    if not value.strip():
        return default
    try:
        n = kind(value)
    except ValueError:
        n = None
    if n is None or not (low <= n <= high):
        raise ValueError(f"{name}: expected a number from {low} to {high}, got {value!r}")
    return n


def ocr_config(engine: str, dpi: str = "", timeout: str = "") -> OcrConfig | None:
    """The OCR settings (``FINCHUNK_OCR``, ``_DPI``, ``_TIMEOUT`` values), None when off. An
    unknown engine or an engine not installed is a ValueError saying what to do."""
    name = engine.strip().lower()
    if name in _OFF:
        return None
    if name in _ON:
        name = DEFAULT_ENGINE
    if name not in ENGINES:
        raise ValueError(f"FINCHUNK_OCR: unknown OCR engine {engine!r}; known: off, on, {', '.join(ENGINES)} "
                         "(docs/ocr.md says why RapidOCR is not one)")
    config = OcrConfig(name, dpi=_number("FINCHUNK_OCR_DPI", dpi, int, DEFAULT_DPI, *DPI_RANGE),
                       timeout=_number("FINCHUNK_OCR_TIMEOUT", timeout, float, DEFAULT_TIMEOUT, 1.0, 3600.0))
    config.key  # noqa: B018 — the engine and its model are there (else the error says how to install them)
    return config


def from_settings(settings) -> OcrConfig | None:
    return ocr_config(settings.ocr, settings.ocr_dpi, settings.ocr_timeout)


def needs_ocr(warnings: list[str]) -> bool:
    """A document parsed without OCR had a page with content but no text layer."""
    return any(w.endswith(NO_TEXT) for w in warnings)


_TIMED_OUT = re.compile(r": no text layer, OCR timed out \(([\d.e+-]+) s per page\)")


def ocr_retry(warnings: list[str], config: OcrConfig) -> bool:
    """A document stored with OCR is read again when a page's OCR failed (a worker that died,
    an engine error: maybe not the page's fault), or timed out under a shorter time limit
    than ``config``'s; a page that timed out under this limit, or had no text, stays."""
    for w in warnings:
        if ": no text layer, OCR failed" in w:
            return True
        m = _TIMED_OUT.search(w)
        if m and float(m.group(1)) < config.timeout:
            return True
    return False


@dataclass
class PageOcr:
    number: int
    status: str                 # "read" (text found), "empty", "timeout", "failed"
    lines: list[PdfLine]
    seconds: float
    message: str = ""


def read_pages(data: bytes, name: str, numbers: list[int], config: OcrConfig) -> dict[int, PageOcr]:
    """OCR of the pages ``numbers`` (1-based) of the PDF ``data``: each page's lines and status.
    The workers render the pages from a temporary copy of the file, removed afterwards."""
    workers = config.workers or len(os.sched_getaffinity(0)) or 1
    pool = shared_pool(config.engine, config.lang, config.dpi, workers, config.timeout)
    out: dict[int, PageOcr] = {}
    with tempfile.TemporaryDirectory(prefix="finchunk-ocr-") as tmp:
        path = os.path.join(tmp, "document.pdf")
        with open(path, "wb") as f:
            f.write(data)
        for n, r in pool.read((n, PageJob(path, n)) for n in numbers):
            out[n] = PageOcr(n, r.status, list(r.lines), r.seconds, r.message)
    return out


def page_ranges_text(numbers: list[int]) -> str:
    """``3, 7-9, 12``."""
    parts: list[str] = []
    for n in sorted(numbers):
        if parts and parts[-1][1] == n - 1:
            parts[-1][1] = n
        else:
            parts.append([n, n])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in parts)


def ocr_warnings(read: dict[int, PageOcr], config: OcrConfig) -> list[str]:
    """One line for the pages read, one per page OCR left without text (and why)."""
    done = [n for n, p in read.items() if p.status == "read"]
    out = []
    if done:
        noun = "page" if len(done) == 1 else "pages"
        out.append(f"{noun} {page_ranges_text(done)}: no text layer, read by OCR ({config.label}, {config.dpi} dpi)")
    for n in sorted(read):
        p = read[n]
        if p.status == "empty":
            out.append(f"page {n}: no text layer, and OCR found no text ({config.label})")
        elif p.status == "timeout":
            out.append(f"page {n}: no text layer, OCR timed out ({config.timeout:g} s per page){_why(p)} — left without text")
        elif p.status == "failed":
            out.append(f"page {n}: no text layer, OCR failed{_why(p)} — left without text")
    return out


def _why(p: PageOcr) -> str:
    return f": {p.message}" if p.message else ""
