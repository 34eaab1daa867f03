"""Footnote marks: how a block cites a note, and how a note names its mark.

Supported marks: Unicode superscript digits (``Revenue¹``), Markdown footnote references
(``[^1]``) and HTML-style ``<sup>1</sup>`` left in Markdown text.
"""
from __future__ import annotations

import re

SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUP_TO_DIGIT = {ord(c): str(i) for i, c in enumerate(SUPERSCRIPTS)}

_CITE = re.compile(rf"([{SUPERSCRIPTS}]+)|\[\^([A-Za-z0-9]+)\](?!:)|<sup>\s*\(?([A-Za-z0-9*]+)\)?\s*</sup>")
_NOTE_START = re.compile(
    rf"^\s*(?:([{SUPERSCRIPTS}]+)|\[\^([A-Za-z0-9]+)\]:|<sup>\s*\(?([A-Za-z0-9*]+)\)?\s*</sup>)\s*\S"
)


def sup_to_digits(mark: str) -> str:
    return mark.translate(_SUP_TO_DIGIT)


# every _CITE match starts with one of these: a text without them cites nothing (a
# character-class search is far faster than trying _CITE at every position)
_CITE_FIRST = SUPERSCRIPTS + "[<"
_CITE_START = re.compile(f"[{re.escape(_CITE_FIRST)}]")


def cite_starts(text: str) -> list[int]:
    """The offsets in ``text`` where a cite may start (``_CITE_START`` matches), in order."""
    out = []
    for c in _CITE_FIRST:  # str.find per character: far cheaper than a character-class scan
        p = text.find(c)
        while p >= 0:
            out.append(p)
            p = text.find(c, p + 1)
    out.sort()
    return out


def may_cite(text: str, start: int = 0, end: int | None = None) -> bool:
    """Could ``text[start:end]`` cite anything (does a cite's first character occur in it)?
    Searched in place: a False here means ``cited_marks`` of any part of the range is empty."""
    return _CITE_START.search(text, start, len(text) if end is None else end) is not None


def cited_marks(text: str) -> list[str]:
    """Marks cited anywhere in ``text``, in order of first appearance."""
    out: list[str] = []
    if _CITE_START.search(text) is None:
        return out
    for m in _CITE.finditer(text):
        mark = sup_to_digits(m.group(1)) if m.group(1) else (m.group(2) or m.group(3))
        if mark not in out:
            out.append(mark)
    return out


def note_mark(text: str) -> str | None:
    """The mark a footnote line defines (``¹ Revenue excludes ...`` -> ``"1"``), or None."""
    m = _NOTE_START.match(text)
    if not m:
        return None
    return sup_to_digits(m.group(1)) if m.group(1) else (m.group(2) or m.group(3))
