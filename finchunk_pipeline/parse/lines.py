"""Line spans and the table unit pattern shared by the line-oriented parsers."""
from __future__ import annotations

import re
from itertools import accumulate
from operator import add

# "(in millions)", "($ in thousands, except per-share amounts)", "Dollars in millions", "(%)"
UNIT = re.compile(
    r"\((?:\s*(?:in|dollars in|amounts in)\s+)?(?:[$€£]\s*)?(thousands|millions|billions|%|percent)[^)]*\)"
    r"|\b(?:in|dollars in|amounts in)\s+(?:thousands|millions|billions)\b",
    re.I,
)


def line_spans(text: str, breaks: str = "\n") -> list[tuple[int, int]]:
    """(start, end) of every line; ``end`` excludes the break character and a trailing ``\\r``
    (not on the last line, which no break ends).
    ``breaks`` lists the characters that end a line (e.g. ``"\\n\\f"`` to split pages too)."""
    if "\n" in breaks and not any(c in text for c in breaks if c != "\n"):
        # only newlines occur: str.split finds them (same spans, without a regex match per line)
        parts = text.split("\n")
        out = []
        pos = 0
        if "\r" in text:
            for part in parts:
                e = pos + len(part)
                out.append((pos, e - 1 if part.endswith("\r") else e))
                pos = e + 1
            out[-1] = (out[-1][0], len(text))
        else:  # start of line k: the lengths of the lines before it, plus one break each
            lens = list(map(len, parts))
            starts = list(accumulate(map((1).__add__, lens), initial=0))
            out = list(zip(starts, map(add, starts, lens)))
        return out
    out = []
    pos = 0
    for m in re.finditer(f"[{re.escape(breaks)}]", text):
        e = m.start()
        out.append((pos, e - 1 if e > pos and text[e - 1] == "\r" else e))
        pos = m.end()
    out.append((pos, len(text)))
    return out
