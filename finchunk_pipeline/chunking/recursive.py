"""Recursive character splitting (the LangChain RecursiveCharacterTextSplitter algorithm),
on positions so every chunk keeps its exact span.

Split on the first separator found in the text; merge neighbouring splits up to ``size``;
split a piece still too large with the next separator; cut hard when none is left.
"""
from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ..types.blocks import ParsedDocument
from .context import Piece
from .options import StrategyParams, field_error
from .sections import section_at
from .strategy import Strategy
from .strategy_context import ChunkingContext


def split_positions(text: str, start: int, end: int, size: int, seps: list[str]) -> list[tuple[int, int]]:
    if end - start <= size:
        return [(start, end)]
    for k, sep in enumerate(seps):
        if sep and text.find(sep, start, end) != -1:
            rest = seps[k + 1:]
            break
    else:
        return [(s, min(s + size, end)) for s in range(start, end, size)]
    # pieces keep their separator at the end, so pieces tile [start, end)
    parts, pos = [], start
    while pos < end:
        hit = text.find(sep, pos, end)
        if hit == -1:
            parts.append((pos, end))
            break
        parts.append((pos, hit + len(sep)))
        pos = hit + len(sep)
    out: list[tuple[int, int]] = []
    cur_s = cur_e = None
    for s, e in parts:
        if e - s > size:
            if cur_s is not None:
                out.append((cur_s, cur_e))
                cur_s = None
            out.extend(split_positions(text, s, e, size, rest))
        elif cur_s is None:
            cur_s, cur_e = s, e
        elif e - cur_s <= size:
            cur_e = e
        else:
            out.append((cur_s, cur_e))
            cur_s, cur_e = s, e
    if cur_s is not None:
        out.append((cur_s, cur_e))
    return out


class RecursiveParams(StrategyParams):
    size: int = Field(500, gt=0)
    separators: list[str] = Field(default_factory=lambda: ["\n\n", "\n", ". ", " "])  # tried in order

    @model_validator(mode="after")
    def _separators_not_empty(self) -> "RecursiveParams":
        if not all(self.separators):
            raise field_error("separators", "expected non-empty strings", self.separators)
        return self


class Recursive(Strategy):
    name = "recursive"
    family = "plain"
    Params = RecursiveParams
    bound_param = "size"

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        p = self.resolve(params)
        text = doc.view_text
        spans = split_positions(text, 0, len(text), p.size, list(p.separators))
        return [Piece([(s, e)], "text", section_at(doc, s)) for s, e in spans if text[s:e].strip()]
