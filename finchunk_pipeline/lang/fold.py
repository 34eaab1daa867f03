"""Text folded for matching across tools: only letters and digits, lower-cased and
NFKC-folded (ligatures and full-width forms compare equal), with the offset each folded
character came from, so a match maps back to exact offsets. Gold quotes are matched to our
text this way (evaluation/gold_resolution.py, corpus/from_files.py)."""
from __future__ import annotations

import unicodedata


def _fold(ch: str) -> str:
    if ch.isascii():
        return ch.lower() if ch.isalnum() else ""
    return "".join(c for c in unicodedata.normalize("NFKC", ch).lower() if c.isalnum())


def normalize(text: str, base: int = 0) -> tuple[str, list[int]]:
    """``text`` reduced to its lower-cased letters and digits, and for each kept character
    the offset (``base`` + index) of the character it came from."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        f = _fold(ch)
        if f:
            out.append(f)
            where.extend([base + i] * len(f))
    return "".join(out), where
