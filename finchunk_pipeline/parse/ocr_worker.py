"""One OCR worker process: ``python -m finchunk_pipeline.parse.ocr_worker FD ENGINE LANG DPI``.

Started by parse/ocr_pool.py as a fresh interpreter (not a multiprocessing spawn, which would
re-run the caller's main script), it loads the engine once, then takes pages from the
connection on file descriptor FD — a ``PageJob``: a PDF file and a page number, a few bytes, so
the process that hands it out never waits on a busy worker — renders the page with PDFium at
DPI to 8-bit gray, reads it with the engine and answers a ``PageResult`` with the page's lines
(parse/ocr_layout.py), until the connection closes: at the pool's ``close()``, or when the
process that started it ends, however it ends.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection


READY = "ready"   # sent once, when the engine is loaded (or failed to load)


@dataclass(frozen=True)
class PageJob:
    path: str        # a PDF file
    number: int      # 1-based page


@dataclass(frozen=True)
class PageResult:
    status: str          # "read" (lines found), "empty", "timeout" or "failed"
    seconds: float
    lines: list = field(default_factory=list)   # PdfLine list ("read")
    message: str = ""


class _Renderer:
    """Pages of one PDF file at a time, kept open between its pages."""

    def __init__(self, dpi: int):
        self.dpi, self.path, self.pdf = dpi, None, None

    def render(self, path: str, number: int) -> tuple[bytes, int, int, int]:
        import pypdfium2 as pdfium
        from pypdfium2 import raw

        if path != self.path:
            if self.pdf is not None:
                self.pdf.close()
            self.path, self.pdf = None, pdfium.PdfDocument(path)
            self.path = path
        page = self.pdf[number - 1]
        try:
            bitmap = page.render(scale=self.dpi / 72.0, grayscale=True, force_bitmap_format=raw.FPDFBitmap_Gray)
            try:
                return bytes(bitmap.buffer), bitmap.width, bitmap.height, bitmap.stride
            finally:
                bitmap.close()
        finally:
            page.close()


def read_page(reader, renderer: _Renderer, job: PageJob, timeout: float) -> PageResult:
    from .ocr_layout import page_lines

    t0 = time.perf_counter()
    try:
        gray, width, height, stride = renderer.render(job.path, job.number)
    except Exception as exc:  # one page PDFium cannot render
        return PageResult("failed", time.perf_counter() - t0, message=f"could not be rendered ({type(exc).__name__}: {exc})")
    words = reader.read(gray, width, height, stride, timeout)
    if words is None:
        return PageResult("timeout", time.perf_counter() - t0)
    lines = page_lines(words, height, renderer.dpi)
    return PageResult("read" if lines else "empty", time.perf_counter() - t0, lines)


def serve(conn: Connection, engine: str, lang: str, dpi: int) -> None:
    """Load the engine, then read pages until the connection closes. An engine that cannot
    start answers every page "failed" with the reason (never a silent hang)."""
    os.environ["OMP_THREAD_LIMIT"] = "1"   # one core per worker (before the engine loads)
    from .ocr_engine import make_engine

    try:
        reader, failure = make_engine(engine, lang, dpi), None
    except Exception as exc:
        reader, failure = None, f"{type(exc).__name__}: {exc}"
    renderer = _Renderer(dpi)
    try:
        conn.send(READY)
    except OSError:
        return
    while True:
        try:
            job, timeout = conn.recv()
        except (EOFError, OSError):
            return
        if reader is None:
            result = PageResult("failed", 0.0, message=f"the OCR engine did not start ({failure})")
        else:
            try:
                result = read_page(reader, renderer, job, timeout)
            except Exception as exc:
                result = PageResult("failed", 0.0, message=f"{type(exc).__name__}: {exc}")
        try:
            conn.send(result)
        except OSError:
            return


def main(argv: list[str]) -> None:
    fd, engine, lang, dpi = argv
    serve(Connection(int(fd)), engine, lang, int(dpi))


if __name__ == "__main__":
    # the package's module, not this __main__ copy: results must unpickle as its classes
    from finchunk_pipeline.parse.ocr_worker import main as _main

    _main(sys.argv[1:])
