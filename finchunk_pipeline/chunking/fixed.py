"""Fixed-size character windows with overlap over the document's text view (baseline)."""
from __future__ import annotations

from typing import Any

from ..parse.model import ParsedDocument
from .context import Piece
from .sections import section_at
from .strategy import Strategy


class FixedChars(Strategy):
    name = "fixed"
    family = "plain"
    defaults = {"size": 500, "overlap": 50}
    bound_param = "size"

    def check(self, p, where):
        if p["size"] <= 0 or not 0 <= p["overlap"] < p["size"]:
            raise ValueError(f"{where}: need size > 0 and 0 <= overlap < size")

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any]) -> list[Piece]:
        p = self.resolve(params)
        size, step = p["size"], p["size"] - p["overlap"]
        n = len(doc.view_text)
        out = []
        for start in range(0, n, step):
            end = min(start + size, n)
            out.append(Piece([(start, end)], "window", section_at(doc, start)))
            if end == n:
                break
        return out
