"""LlamaIndex's node parsers as strategies: ``SentenceSplitter`` alone, and
``MarkdownNodeParser`` followed by ``SentenceSplitter`` (the ingestion pipeline LlamaIndex's
docs show for Markdown: sections by heading, each split to the chunk size).

Sizes are LlamaIndex's own: tokens of its default tokenizer (tiktoken ``cl100k_base``,
shipped inside llama-index-core; about 4.2–4.7 characters per token on the dev sets, so 128,
256 and 512 tokens are the ~500, 1,000 and 2,000-character sizes). ``overlap`` in tokens
(LlamaIndex's default is 200 at its default size 1,024).

LlamaIndex reports no exact offsets (its nodes' ``start_char_idx`` is the first occurrence of
the text anywhere in the document), so each chunk is located in the view text from a cursor
(peers/spans.py ``located``); SentenceSplitter's chunks are stripped slices of its input and
MarkdownNodeParser's sections stripped runs of whole lines, so every chunk is found or the
document fails with its name. The Markdown pipeline runs as a user's would: the sections
carry their ``header_path`` metadata, which SentenceSplitter's metadata-aware split
subtracts from the chunk size.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import Field, model_validator

from ...types.blocks import ParsedDocument
from ..context import Piece
from ..options import StrategyParams, field_error
from ..strategy import Strategy
from ..strategy_context import ChunkingContext
from .spans import installed, located, require, window_pieces


class TokenChunkParams(StrategyParams):
    """``size``: tokens per chunk (LlamaIndex's ``chunk_size``); ``overlap``: tokens
    repeated from the previous chunk (``chunk_overlap``). LlamaIndex's defaults."""

    size: int = Field(1024, gt=0)
    overlap: int = Field(200, ge=0)

    @model_validator(mode="after")
    def _overlap_below_size(self) -> "TokenChunkParams":
        if self.overlap >= self.size:
            raise field_error("overlap", f"expected >= 0 and < size ({self.size})", self.overlap)
        return self


@lru_cache(maxsize=8)
def _sentence_splitter(size: int, overlap: int):
    from llama_index.core.node_parser import SentenceSplitter

    return SentenceSplitter(chunk_size=size, chunk_overlap=overlap)


class _LlamaIndex(Strategy):
    # 2: a chunk is searched from the previous chunk's start, not one past it (an overlap may
    # repeat all of a short chunk: 128 tokens placed one chunk of one finqa_dev and one tatqa_dev
    # document at a later occurrence, and failed on a financebench_dev 10-K)
    version = "2"
    family = "plain"
    requires = "llama_index.core"
    requires_dist = "llama-index-core"   # the distribution whose version joins the hash
    Params = TokenChunkParams
    bound_param = None                   # bounded by tokens of LlamaIndex's tokenizer, not characters

    def available(self) -> bool:
        return installed(self.requires)

    def chunk_texts(self, text: str, size: int, overlap: int) -> list[str]:
        raise NotImplementedError

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        require(self.requires, self.name)
        p = self.resolve(params)
        texts = self.chunk_texts(doc.view_text, p.size, p.overlap)
        return window_pieces(doc, located(doc, texts, f"LlamaIndex {self.name}", overlapping=p.overlap > 0))


class LlamaIndexSentence(_LlamaIndex):
    """llama_index SentenceSplitter(chunk_size=size, chunk_overlap=overlap) over the view text."""

    name = "llamaindex_sentence"

    def chunk_texts(self, text: str, size: int, overlap: int) -> list[str]:
        return _sentence_splitter(size, overlap).split_text(text)


class LlamaIndexMarkdown(_LlamaIndex):
    """llama_index MarkdownNodeParser, then SentenceSplitter(size, overlap) over its sections."""

    name = "llamaindex_markdown"

    def chunk_texts(self, text: str, size: int, overlap: int) -> list[str]:
        from llama_index.core import Document
        from llama_index.core.node_parser import MarkdownNodeParser
        from llama_index.core.schema import MetadataMode

        sections = MarkdownNodeParser().get_nodes_from_documents([Document(text=text)])
        nodes = _sentence_splitter(size, overlap).get_nodes_from_documents(sections)
        return [n.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
