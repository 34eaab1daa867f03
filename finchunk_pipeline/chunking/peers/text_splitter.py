"""semantic-text-splitter (Rust): ``TextSplitter`` splits at the largest semantic level
(sections of blank lines, lines, sentences, words) that fits ``size`` characters and merges
neighbours up to it; ``MarkdownSplitter`` does the same along Markdown's structure (headings,
blocks, lists). Whitespace trimmed (its default), no overlap by default (its default).
``chunk_indices`` reports each chunk's character offset; it is checked against the view."""
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


class CapacityParams(StrategyParams):
    """``size``: most characters of a chunk (the splitter's capacity); ``overlap``:
    characters shared with the previous chunk (0: none, the splitter's default)."""

    size: int = Field(500, gt=0)
    overlap: int = Field(0, ge=0)

    @model_validator(mode="after")
    def _overlap_below_size(self) -> "CapacityParams":
        if self.overlap >= self.size:
            raise field_error("overlap", f"expected >= 0 and < size ({self.size})", self.overlap)
        return self


@lru_cache(maxsize=16)
def _splitter(kind: str, size: int, overlap: int):
    import semantic_text_splitter

    return getattr(semantic_text_splitter, kind)(size, overlap=overlap)


class _SemanticTextSplitter(Strategy):
    kind = ""  # the library's class: TextSplitter or MarkdownSplitter
    family = "plain"
    requires = "semantic_text_splitter"
    Params = CapacityParams
    bound_param = "size"

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        require(self.requires, self.name)
        p = self.resolve(params)
        who = f"semantic-text-splitter {self.kind}"
        return window_pieces(doc, (checked(doc, s, t, who)
                                   for s, t in _splitter(self.kind, p.size, p.overlap).chunk_indices(doc.view_text)))


class TextSplitter(_SemanticTextSplitter):
    """semantic_text_splitter.TextSplitter(size) over the view text."""

    name = "text_splitter"
    kind = "TextSplitter"


class MarkdownSplitter(_SemanticTextSplitter):
    """semantic_text_splitter.MarkdownSplitter(size) over the view text (Markdown documents
    keep their headings, tables and lists in the view)."""

    name = "markdown_splitter"
    kind = "MarkdownSplitter"
