"""The per-document-class policy: each doc_type gets the strategy that preserves its evidence.

- annual_report, research, prospectus, kid (and unknown types): structure;
- 10-K, 10-Q (and their amendments), proxy: structure with table row groups (a table over
  ``table_max_chars`` splits into row groups repeating caption, header, unit and notes);
- earnings_call: transcript (question and answer together, speakers labelled).

``doc_type`` comes from the document metadata passed to ``pieces``.
"""
from __future__ import annotations

from typing import Any

from pydantic import Field

from ..types.blocks import ParsedDocument
from .context import Piece
from .options import StrategyParams
from .strategy import Strategy
from .strategy_context import ChunkingContext
from .structure import Structure
from .transcript import Transcript

ROW_GROUP_TYPES = ("10-k", "10-q", "proxy", "def 14a", "20-f", "8-k")
TRANSCRIPT_TYPES = ("earnings_call",)


def policy(doc_type: str | None) -> str:
    t = (doc_type or "").strip().lower()
    base = t.split("/")[0]  # 10-Q/A -> 10-q
    if base in TRANSCRIPT_TYPES:
        return "transcript"
    if base in ROW_GROUP_TYPES:
        return "structure_rows"
    return "structure"


class AutoParams(StrategyParams):
    max_chars: int = Field(800, gt=0)               # structure's text bound
    table_max_chars: int = Field(1500, gt=0)        # row groups of filings' tables
    transcript_max_chars: int = Field(1500, ge=100)


class Auto(Strategy):
    name = "auto"
    family = "evidence"
    version = "1"  # its chunks change with structure's and transcript's versions (uses)
    uses = ("structure", "transcript")
    Params = AutoParams

    def char_bound(self, params, doc=None, meta=None):
        """The bound of the policy the document gets (without one: the largest)."""
        return self._bound("char_bound", params, doc, meta)

    def table_char_bound(self, params, doc=None, meta=None):
        """The table allowance of the policy the document gets (without one: the largest)."""
        return self._bound("table_char_bound", params, doc, meta)

    def _bound(self, which_bound: str, params, doc, meta) -> int | None:
        p = self.resolve(params)

        def transcript() -> int | None:  # reads the document's turns: only when its policy is transcript
            return getattr(Transcript(), which_bound)({"max_chars": p.transcript_max_chars}, doc, meta)
        structure = {which: getattr(Structure(), which_bound)({"max_chars": p.max_chars, "table_max_chars": t})
                     for which, t in (("structure", 0), ("structure_rows", p.table_max_chars))}
        if doc is None:
            return max((b for b in (transcript(), *structure.values()) if b is not None), default=None)
        which = policy((meta or {}).get("doc_type"))
        return transcript() if which == "transcript" else structure[which]

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        p = self.resolve(params)
        which = policy(meta.get("doc_type"))
        if which == "transcript":
            return Transcript().pieces(doc, {"max_chars": p.transcript_max_chars}, meta, context=context)
        table_max = p.table_max_chars if which == "structure_rows" else 0
        return Structure().pieces(doc, {"max_chars": p.max_chars, "table_max_chars": table_max}, meta,
                                  context=context)
