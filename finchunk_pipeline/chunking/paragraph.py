"""Paragraph chunking: blocks merged within a section from ``min_chars`` up to ``max_chars``.

A block larger than ``max_chars`` is split by structure: a table into row groups that
repeat caption, header and cited notes; a paragraph into sentences packed to
``max_chars``. Headings travel with the content below them. Nothing crosses a section.
"""
from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ..parse.model import Block, BlockKind, ParsedDocument
from .context import Piece
from .options import StrategyParams, field_error
from .sentence import split_sentences
from .strategy import Strategy
from .strategy_context import ChunkingContext
from .tables import caption_block, row_group_pieces, table_parts, table_piece


class ParagraphParams(StrategyParams):
    min_chars: int = Field(200, ge=0)   # blocks are merged until a chunk has at least this many
    max_chars: int = Field(1000, gt=0)  # and never past this many

    @model_validator(mode="after")
    def _min_below_max(self) -> "ParagraphParams":
        if self.min_chars > self.max_chars:
            raise field_error("min_chars", f"expected between 0 and max_chars ({self.max_chars})", self.min_chars)
        return self


class Paragraphs(Strategy):
    name = "paragraph"
    family = "evidence"
    version = "1"
    Params = ParagraphParams
    bound_param = "max_chars"

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        p = self.resolve(params)
        lo, hi = p["min_chars"], p["max_chars"]
        view = doc.view_text
        captions = {c.block_id for c in (caption_block(doc, t) for t in doc.blocks if t.kind == BlockKind.TABLE)
                    if c is not None}
        out: list[Piece] = []
        cur: list[tuple[int, int]] = []
        cur_ids: list[str] = []
        cur_sec: tuple[str, ...] | None = None
        pending: list[Block] = []

        def size(spans):
            return spans[-1][1] - spans[0][0] if spans else 0

        def flush():
            nonlocal cur, cur_ids, cur_sec
            if cur:
                out.append(Piece(list(cur), "text", cur_sec or (), None, list(dict.fromkeys(cur_ids))))
            cur, cur_ids, cur_sec = [], [], None

        def add(spans, ids, sec):
            nonlocal cur_sec
            if cur and (cur_sec != sec or (size(cur) >= lo and spans[-1][1] - cur[0][0] > hi)):
                flush()
            cur.extend(spans)
            cur_ids.extend(ids)
            cur_sec = sec

        for b in doc.blocks:
            if b.kind == BlockKind.HEADING:
                if cur and cur_sec != b.section_path:
                    flush()
                pending.append(b)
                continue
            if b.kind == BlockKind.TABLE_ROW or b.block_id in captions or b.attrs.get("furniture"):
                continue
            lead = [(h.vstart, h.vend) for h in pending]
            lead_ids = [h.block_id for h in pending]
            if b.kind == BlockKind.TABLE:
                flush()
                parts = table_parts(doc, b)
                whole = table_piece(doc, parts, list(pending), {})
                if size(whole.view_spans) > hi and parts.body_rows:
                    out.extend(row_group_pieces(doc, parts, list(pending), {}, len, hi))
                else:
                    out.append(whole)
                pending = []
                continue
            if b.vend - b.vstart > hi:
                sents = split_sentences(view, b.vstart, b.vend)
                first = True
                for s, e in sents:
                    add((lead if first else []) + [(s, e)], (lead_ids if first else []) + [b.block_id],
                        b.section_path)
                    first = False
            else:
                add(lead + [(b.vstart, b.vend)], lead_ids + [b.block_id], b.section_path)
            pending = []
        flush()
        if pending:
            out.append(Piece([(h.vstart, h.vend) for h in pending], "heading", pending[0].section_path, None,
                             [h.block_id for h in pending]))
        return out
