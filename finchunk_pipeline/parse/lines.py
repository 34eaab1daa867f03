"""Line spans and the table unit pattern shared by the line-oriented parsers."""
from __future__ import annotations

import re

# "(in millions)", "($ in thousands, except per-share amounts)", "Dollars in millions", "(%)"
UNIT = re.compile(
    r"\((?:\s*(?:in|dollars in|amounts in)\s+)?(?:[$€£]\s*)?(thousands|millions|billions|%|percent)[^)]*\)"
    r"|\b(?:in|dollars in|amounts in)\s+(?:thousands|millions|billions)\b",
    re.I,
)


def line_spans(text: str, breaks: str = "\n") -> list[tuple[int, int]]:
    """(start, end) of every line; ``end`` excludes the break character and a trailing ``\\r``.
    ``breaks`` lists the characters that end a line (e.g. ``"\\n\\f"`` to split pages too)."""
    out: list[tuple[int, int]] = []
    pos = 0
    for m in re.finditer(f"[{re.escape(breaks)}]", text):
        e = m.start()
        out.append((pos, e - 1 if e > pos and text[e - 1] == "\r" else e))
        pos = m.end()
    out.append((pos, len(text)))
    return out
