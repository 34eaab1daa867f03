"""Is a document's text really text? Binary detection and stray control characters.

Text extracted from real PDFs carries a few stray control characters (pypdf leaves NULs:
5 in one 935k-character 10-K, 589 in another). Such a document is text and must be kept;
binary content pasted into a text column is not. So binary is decided by

- a file signature at the start (``%PDF-``, ZIP/Office, PNG, JPEG, GIF, OLE, gzip, ELF):
  the content is a file of another kind, whatever its declared format;
- the proportion of control characters (and U+FFFD, what undecodable bytes become) in the
  first ``SAMPLE`` characters: above ``BINARY_FRACTION`` it is binary.

Stray control characters in a text document are read as spaces in the parser's text view
(one character for one, so every offset stays valid) and reported as a warning.
"""
from __future__ import annotations

import re

SAMPLE = 65536
BINARY_FRACTION = 0.05

SIGNATURES: tuple[tuple[str, str], ...] = (
    ("%PDF-", "a PDF file"),
    ("PK\x03\x04", "a ZIP archive (or an Office document)"),
    ("\x89PNG", "a PNG image"),
    ("\xff\xd8\xff", "a JPEG image"),
    ("GIF87a", "a GIF image"),
    ("GIF89a", "a GIF image"),
    ("\xd0\xcf\x11\xe0", "an OLE file (legacy Office document)"),
    ("\x1f\x8b", "gzip-compressed data"),
    ("\x7fELF", "an executable"),
)

# C0 controls except tab, newline, vertical tab, form feed, carriage return; and DEL
STRAY_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_NOT_TEXT = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\ufffd]")
_TO_SPACE = {c: " " for c in [*range(0, 9), *range(14, 32), 127]}


def signature_of(text: str) -> str | None:
    """What kind of file ``text`` starts like, or None."""
    head = text[:16].lstrip("\ufeff")
    for sig, what in SIGNATURES:
        if head.startswith(sig):
            return what
    return None


def binary_problem(text: str) -> str | None:
    """Why ``text`` is not text (a clear message), or None."""
    what = signature_of(text)
    if what:
        return f"content is {what} (starts with {text[:5]!r}), not text"
    sample = text[:SAMPLE]
    bad = len(_NOT_TEXT.findall(sample))
    if sample and bad / len(sample) > BINARY_FRACTION:
        return (f"text looks binary: {bad} of the first {len(sample)} characters "
                f"({100 * bad / len(sample):.1f}%) are control or undecodable characters")
    return None


def stray_controls(text: str) -> int:
    return len(STRAY_CONTROL.findall(text))


def controls_as_spaces(text: str) -> tuple[str, int]:
    """``text`` with every stray control character replaced by a space (same length), and
    how many were replaced."""
    n = stray_controls(text)
    return (text.translate(_TO_SPACE) if n else text), n
