"""Fixed windows of model tokens with overlap, mapped back to exact character spans.

The view text is tokenised once with the embedding model's tokenizer (no special tokens,
no truncation); the tokenizer's character offsets turn a window of tokens into a view
range. A window never starts inside a word (a ``##`` continuation piece moves the start
forward), so re-tokenising the window's text gives (nearly) the same tokens.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from ..models.tokens import default_model_path, token_counter, word_start_flags
from ..types.blocks import ParsedDocument
from .context import Piece
from .options import StrategyParams, field_error
from .sections import section_at
from .strategy import Strategy
from .strategy_context import ChunkingContext, or_default


@lru_cache(maxsize=4)
def _tokenizer(model_path: str | None = None):
    from tokenizers import Tokenizer

    path = Path(model_path or default_model_path()) / "tokenizer.json"
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    return tok


def token_offsets(text: str, model_path: str | None = None) -> Sequence[tuple[int, int, bool]]:
    """(char start, char end, is_word_start) for every token of ``text`` (no special tokens).

    Word by word through the counter's cache when the tokenizer allows it (tokens.py:
    ``TokenCounter.token_spans``, the same tokens and offsets as one ``encode`` of the text,
    each made when read)."""
    counter = token_counter(model_path)
    if counter.by_word:
        return counter.token_spans(text)
    return word_start_flags(text, _tokenizer(model_path).encode(text, add_special_tokens=False))


def token_windows(text: str, start: int, end: int, size: int, overlap: int = 0,
                  model_path: str | None = None) -> list[tuple[int, int]]:
    """Ranges of ``text[start:end]`` holding at most ``size`` tokens each (word-aligned starts)."""
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError("need size > 0 and 0 <= overlap < size")
    offs = token_offsets(text[start:end], model_path)
    n = len(offs)
    out: list[tuple[int, int]] = []
    i = 0
    while i < n:
        while i < n and not offs[i][2] and i > 0:
            i += 1
        if i >= n:
            break
        j = min(i + size, n)
        # end at a word boundary when the window is cut inside a word
        if j < n and not offs[j][2]:
            k = j
            while k > i + 1 and not offs[k][2]:
                k -= 1
            if k > i:
                j = k
        out.append((start + offs[i][0], start + offs[j - 1][1]))
        if j >= n:
            break
        nxt = j - overlap
        i = nxt if nxt > i else j
    return out


class TokenWindowParams(StrategyParams):
    """Token windows: ``size`` model tokens, ``overlap`` shared with the previous window."""

    size: int = Field(200, gt=0)
    overlap: int = Field(40, ge=0)

    @model_validator(mode="after")
    def _overlap_below_size(self) -> "TokenWindowParams":
        if self.overlap >= self.size:
            raise field_error("overlap", f"expected >= 0 and < size ({self.size})", self.overlap)
        return self


class FixedTokens(Strategy):
    """Windows of ``size`` model tokens, ``overlap`` tokens repeated (the token-true
    counterpart of ``fixed``). ``size`` + 2 special tokens must stay under the model limit."""

    name = "fixed_tokens"
    family = "plain"
    version = "1"
    Params = TokenWindowParams

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        p = self.resolve(params)
        view = doc.view_text
        return [Piece([(s, e)], "window", section_at(doc, s))
                for s, e in token_windows(view, 0, len(view), p.size, p.overlap, or_default(context).model_path)
                if view[s:e].strip()]
