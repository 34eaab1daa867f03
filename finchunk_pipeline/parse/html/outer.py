"""A block's outer span: its raw span widened over the element tags directly around it.

Labelled corpora often mark passages as whole elements (the synthetic SEC HTML does), and
chunkers may use the outer span to cover the markup around short blocks."""
from __future__ import annotations

import re

_OPEN_TAG_END = re.compile(r"<[A-Za-z][^<>]*>$")
_CLOSE_TAG = re.compile(r"</([A-Za-z][\w:.-]*)\s*>")
_EMPTY_ELEM = re.compile(r"<([A-Za-z][\w:.-]*)\b[^<>]*?(?:/>|>\s*</\1\s*>)")


def outer_span(raw: str, start: int, end: int, max_tags: int = 12) -> tuple[int, int]:
    """(start, end) widened over the opening tags directly before and the closing tags directly
    after (no text or whitespace in between): the enclosing element(s) of a block, e.g.
    ``<p><b>PART I</b></p>`` for the block "PART I". Labelled corpora often mark passages
    this way; chunkers may use it to cover the markup around short blocks."""
    s = start
    for _ in range(max_tags):
        if s <= 0 or raw[s - 1] != ">":
            break
        lt = raw.rfind("<", max(0, s - 2000), s)
        if lt < 0:
            break
        if _OPEN_TAG_END.match(raw, lt, s):
            s = lt
            continue
        m = _CLOSE_TAG.fullmatch(raw, lt, s)  # an empty element "<td></td>" before the block
        lt2 = raw.rfind("<", max(0, lt - 2000), lt) if m else -1
        if lt2 < 0 or not _OPEN_TAG_END.match(raw, lt2, lt) or not raw.startswith(
                "<" + m.group(1), lt2):
            break
        s = lt2
    e = end
    for _ in range(max_tags):
        m = _CLOSE_TAG.match(raw, e) or _EMPTY_ELEM.match(raw, e)
        if not m:
            break
        e = m.end()
    return s, e
