"""What users would pick instead: LangChain's and chonkie's splitters as chunking strategies
(the other libraries users run are under chunking/peers/, one module each).

They run inside the pipeline like any other strategy — same parsed text view, same indexes,
same evaluation and report — so the comparison is at equal conditions. Each splitter reports
where its chunks start (LangChain ``add_start_index``, chonkie ``start_index``); the span is
checked against the view text, never guessed.

Optional extra ``baselines`` (``pip install -e '.[baselines]'``): without it these strategies
are listed as unavailable and ``finchunk run`` skips their chunk sets with a note.
"""
from __future__ import annotations

from typing import Any

from pydantic import Field

from ..types.blocks import ParsedDocument
from .context import Piece
from .fixed import WindowParams
from .options import StrategyParams
from .peers.spans import EXTRA_HINT  # noqa: F401 (shared with the peers)
from .peers.spans import checked as _checked
from .peers.spans import require as _require
from .sections import section_at
from .strategy import Strategy
from .strategy_context import ChunkingContext


class LangChainRecursive(Strategy):
    """langchain_text_splitters.RecursiveCharacterTextSplitter (its default separators)."""

    name = "langchain_recursive"
    family = "plain"
    requires = "langchain_text_splitters"
    Params = WindowParams  # as fixed's: size and overlap in characters
    bound_param = "size"

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        _require(self.requires, self.name)
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        p = self.resolve(params)
        splitter = RecursiveCharacterTextSplitter(chunk_size=p.size, chunk_overlap=p.overlap,
                                                  add_start_index=True)
        out = []
        for d in splitter.create_documents([doc.view_text]):
            s, e = _checked(doc, int(d.metadata["start_index"]), d.page_content, "LangChain")
            out.append(Piece([(s, e)], "window", section_at(doc, s)))
        return out


class SizeParams(StrategyParams):
    size: int = Field(500, gt=0)


class ChonkieRecursive(Strategy):
    """chonkie.RecursiveChunker with its character tokenizer (chunk_size in characters)."""

    name = "chonkie_recursive"
    family = "plain"
    requires = "chonkie"
    Params = SizeParams
    bound_param = "size"

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        _require(self.requires, self.name)
        from chonkie import RecursiveChunker

        chunker = RecursiveChunker(chunk_size=self.resolve(params).size)
        out = []
        for c in chunker.chunk(doc.view_text):
            s, e = _checked(doc, int(c.start_index), c.text, "chonkie")
            out.append(Piece([(s, e)], "window", section_at(doc, s)))
        return out
