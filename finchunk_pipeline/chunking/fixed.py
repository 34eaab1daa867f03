"""Fixed-size character windows with overlap over the document's text view (baseline)."""
from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ..types.blocks import ParsedDocument
from .context import Piece
from .options import StrategyParams, field_error
from .sections import section_at
from .strategy import Strategy
from .strategy_context import ChunkingContext


class WindowParams(StrategyParams):
    """Character windows: ``size`` characters, ``overlap`` shared with the previous window."""

    size: int = Field(500, gt=0)
    overlap: int = Field(50, ge=0)

    @model_validator(mode="after")
    def _overlap_below_size(self) -> "WindowParams":
        if self.overlap >= self.size:
            raise field_error("overlap", f"expected >= 0 and < size ({self.size})", self.overlap)
        return self


class FixedChars(Strategy):
    name = "fixed"
    family = "plain"
    Params = WindowParams
    bound_param = "size"

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        p = self.resolve(params)
        size, step = p.size, p.size - p.overlap
        n = len(doc.view_text)
        out = []
        for start in range(0, n, step):
            end = min(start + size, n)
            out.append(Piece([(start, end)], "window", section_at(doc, start)))
            if end == n:
                break
        return out
