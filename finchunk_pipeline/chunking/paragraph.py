"""Paragraph chunking: blocks merged within a section from ``min_chars`` up to ``max_chars``.

A block larger than ``max_chars`` is split by structure: a table into row groups that
repeat caption, header and cited notes; a paragraph into sentences packed to
``max_chars``. Headings travel with the content below them. Nothing crosses a section.
"""
from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ..types.blocks import Block, BlockKind, ParsedDocument
from .context import Piece, headings_piece
from .options import StrategyParams, field_error
from .sentence_groups import SentenceEnds, lstrip_at
from .strategy import Strategy
from .strategy_context import ChunkingContext
from .tables import caption_block, row_group_pieces, table_parts, table_piece, text_length


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
        return _ParagraphWalk(doc, p.min_chars, p.max_chars).pieces()


def _extent(spans: list[tuple[int, int]]) -> int:
    return spans[-1][1] - spans[0][0] if spans else 0


class _ParagraphWalk:
    """One document's blocks in reading order: headings wait for the content below them, a
    table is its own piece (or row groups), other blocks merge within their section."""

    def __init__(self, doc: ParsedDocument, lo: int, hi: int):
        self.doc, self.lo, self.hi = doc, lo, hi
        self.captions = {c.block_id for c in (caption_block(doc, t) for t in doc.blocks if t.kind == BlockKind.TABLE)
                         if c is not None}
        self.out: list[Piece] = []
        self.cur: list[tuple[int, int]] = []    # the piece being merged: spans, blocks, section
        self.cur_ids: list[str] = []
        self.cur_sec: tuple[str, ...] | None = None
        self.pending: list[Block] = []           # headings waiting for content

    def pieces(self) -> list[Piece]:
        for b in self.doc.blocks:
            if b.kind == BlockKind.HEADING:
                if self.cur and self.cur_sec != b.section_path:
                    self.flush()
                self.pending.append(b)
            elif b.kind == BlockKind.TABLE_ROW or b.block_id in self.captions or b.attrs.get("furniture"):
                continue  # rows and captions go with their table; page furniture nowhere
            elif b.kind == BlockKind.TABLE:
                self.flush()
                self.add_table(b)
            else:
                self.add_block(b)
        self.flush()
        if self.pending:
            self.out.append(headings_piece(self.pending))
        return self.out

    def add_table(self, b: Block) -> None:
        """The table whole (with its caption and the headings above it), or row groups when it
        is larger than max_chars."""
        parts = table_parts(self.doc, b)
        whole = table_piece(self.doc, parts, list(self.pending), {})
        if _extent(whole.view_spans) > self.hi and parts.body_rows:
            self.out.extend(row_group_pieces(self.doc, parts, list(self.pending), {},
                                             text_length(self.doc.view_text), self.hi))
        else:
            self.out.append(whole)
        self.pending = []

    def add_block(self, b: Block) -> None:
        """The block with the headings above it; one larger than max_chars sentence by sentence."""
        lead = [(h.vstart, h.vend) for h in self.pending]
        lead_ids = [h.block_id for h in self.pending]
        if b.vend - b.vstart > self.hi:
            self.add_sentences(b, lead, lead_ids)
        else:
            self.add(lead + [(b.vstart, b.vend)], lead_ids + [b.block_id], b.section_path)
        self.pending = []

    def add_sentences(self, b: Block, lead: list[tuple[int, int]], lead_ids: list[str]) -> None:
        """``add`` of each sentence of ``b`` in turn (the first with the lead), reading only the
        sentence ends that decide a flush (sentence_groups.SentenceEnds): below min_chars the
        next sentence always joins; from there every sentence up to max_chars of the piece's
        start does. The sentences joined since the last flush are added as one span (pieces
        are normalized: whitespace between spans merges them)."""
        view = self.doc.view_text
        ends = SentenceEnds(view, b.vstart, b.vend)
        final = ends.final
        s = lstrip_at(view, b.vstart, final)
        if s >= final:
            return
        e = ends.first_end(s)
        self.add(lead + [(s, e)], lead_ids + [b.block_id], b.section_path)
        run = None  # start of the sentences joined since, not yet in self.cur
        while e < final:
            c0 = self.cur[0][0]
            nxt = lstrip_at(view, e, final)
            if e - c0 < self.lo:
                e = ends.first_end(e)
            else:
                y = ends.last_end(e, c0 + self.hi)
                if y is None:  # the next sentence would pass max_chars
                    if run is not None:
                        self.cur.append((run, e))
                        run = None
                    self.flush()
                    e = ends.first_end(nxt)
                    self.add([(nxt, e)], [b.block_id], b.section_path)
                    continue
                e = y
            if run is None:
                run = nxt
        if run is not None:
            self.cur.append((run, e))

    def add(self, spans: list[tuple[int, int]], ids: list[str], sec: tuple[str, ...]) -> None:
        """Merge into the current piece: a new section, or a piece of min_chars that would pass
        max_chars, starts a new one."""
        cur = self.cur
        if cur and (self.cur_sec != sec or (_extent(cur) >= self.lo and spans[-1][1] - cur[0][0] > self.hi)):
            self.flush()
        self.cur.extend(spans)
        self.cur_ids.extend(ids)
        self.cur_sec = sec

    def flush(self) -> None:
        if self.cur:
            self.out.append(Piece(list(self.cur), "text", self.cur_sec or (), None, list(dict.fromkeys(self.cur_ids))))
        self.cur, self.cur_ids, self.cur_sec = [], [], None
