"""semchunk: recursive splitting at the most meaningful separator that keeps a chunk under
``size``, here counted in characters (``chunkerify(len, size)``; semchunk's token counter
may be any callable). No overlap by default (semchunk's own default). semchunk reports each
chunk's offsets (``offsets=True``); they are checked against the view text."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import Field, model_validator

from ...types.blocks import ParsedDocument
from ..context import Piece
from ..options import StrategyParams, field_error
from ..strategy import Strategy
from ..strategy_context import ChunkingContext
from .spans import checked, require, window_pieces


class SemchunkParams(StrategyParams):
    """``size``: most characters of a chunk; ``overlap``: characters repeated from the
    previous chunk (0: none, semchunk's default)."""

    size: int = Field(500, gt=0)
    overlap: int = Field(0, ge=0)

    @model_validator(mode="after")
    def _overlap_below_size(self) -> "SemchunkParams":
        if self.overlap >= self.size:
            raise field_error("overlap", f"expected >= 0 and < size ({self.size})", self.overlap)
        return self


@lru_cache(maxsize=8)
def _chunker(size: int):
    import semchunk

    return semchunk.chunkerify(len, size)


class Semchunk(Strategy):
    """semchunk.chunkerify(len, size) over the view text."""

    name = "semchunk"
    family = "plain"
    requires = "semchunk"
    Params = SemchunkParams
    bound_param = "size"

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        require(self.requires, self.name)
        p = self.resolve(params)
        texts, offsets = _chunker(p.size)(doc.view_text, offsets=True, overlap=p.overlap or None)
        return window_pieces(doc, (checked(doc, s, t, "semchunk") for t, (s, _) in zip(texts, offsets)))
