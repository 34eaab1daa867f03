"""Tables as chunks: whole when they fit, else row groups that repeat what a row needs.

A row-group chunk's view spans are, in reading order:
  [caption / unit paragraph above the table] + [header rows] + [its rows] + [cited notes].
The caption and the header are *extra spans* (the source text stays exact: each span is
text of the document), so every group carries the caption, the column headers (for a
10-Q: which period each column covers), the unit and the footnotes its rows cite.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..types.blocks import Block, BlockKind, ParsedDocument
from ..types.chunks import SPAN_JOINER
from .cited_notes import cited_notes_of
from .context import Piece

_UNIT = re.compile(r"\b(?:in|amounts in|dollars in)\s+(?:thousands|millions|billions)\b|\((?:[^)]*)"
                   r"(?:thousands|millions|billions|%|percent)[^)]*\)|[$€£]\s?(?:million|billion|thousand)\b",
                   re.I)


@dataclass
class TableParts:
    table: Block
    caption: Block | None
    header_span: tuple[int, int] | None
    header_rows: list[Block]
    body_rows: list[Block]


def children_index(doc: ParsedDocument) -> dict[str, list[Block]]:
    cached = getattr(doc, "_children_index", None)
    if cached is None:
        cached = {}
        for b in doc.blocks:
            if b.parent_id:
                cached.setdefault(b.parent_id, []).append(b)
        doc._children_index = cached
    return cached


def caption_block(doc: ParsedDocument, table: Block) -> Block | None:
    """The short paragraph directly above a table that captions it or names its unit."""
    idx = table.seq - 1
    blocks = doc.blocks
    if not (0 <= idx < len(blocks)) or blocks[idx].seq != idx:
        idx = next((i for i, b in enumerate(blocks) if b is table), 0) - 1
    if idx < 0:
        return None
    prev = blocks[idx]
    if prev.kind != BlockKind.PARAGRAPH or prev.section_path != table.section_path:
        return None
    cap = str(table.attrs.get("caption") or "").strip()
    text = prev.text.strip()
    if cap and " ".join(cap.split()) == " ".join(text.split()):
        return prev
    if len(text) <= 300 and (text.endswith(":") or _UNIT.search(text)):
        return prev
    return None


def table_parts(doc: ParsedDocument, table: Block) -> TableParts:
    rows = children_index(doc).get(table.block_id, [])
    rows = [r for r in rows if r.kind == BlockKind.TABLE_ROW]
    hv = table.attrs.get("header_vspan")
    if hv:
        hs, he = int(hv[0]), int(hv[1])
        header_rows = [r for r in rows if r.vstart >= hs and r.vend <= he]
        header_ids = {id(r) for r in header_rows}  # by identity: one comparison per row, not per pair
        body = [r for r in rows if id(r) not in header_ids]
        header_span = (hs, he)
    else:
        header_rows = []
        for r in rows:
            if r.attrs.get("is_header"):
                header_rows.append(r)
            else:
                break
        body = rows[len(header_rows):]
        header_span = (header_rows[0].vstart, header_rows[-1].vend) if header_rows else None
    return TableParts(table, caption_block(doc, table), header_span, header_rows, body)


def spans_text(view: str, spans: list[tuple[int, int]]) -> str:
    return SPAN_JOINER.join(view[s:e] for s, e in spans)


def text_length(view: str) -> Callable[[list[tuple[int, int]]], int]:
    """A row group's ``measure`` by characters: the length of its spans' joined text."""
    return lambda spans: len(spans_text(view, spans))


def table_piece(doc: ParsedDocument, parts: TableParts, lead: list[Block], notes: dict[str, list[Block]]) -> Piece:
    """The whole table: lead blocks (headings / caption) + table + cited notes."""
    t = parts.table
    members = list(lead)
    if parts.caption is not None and parts.caption not in members:
        members.append(parts.caption)
    members.append(t)
    extra = cited_notes_of([t] + parts.header_rows + parts.body_rows, notes, {m.block_id for m in members}) \
        if notes else []
    spans = [(m.vstart, m.vend) for m in members] + [(n.vstart, n.vend) for n in extra]
    return Piece(spans, "table", t.section_path, t.block_id, [m.block_id for m in members] + [n.block_id for n in extra])


def row_group_pieces(doc: ParsedDocument, parts: TableParts, lead: list[Block], notes: dict[str, list[Block]],
                     measure: Callable[[list[tuple[int, int]]], int], limit: int,
                     on_oversized: Callable[[Block, list[tuple[int, int]]], list[Piece]] | None = None) -> list[Piece]:
    """Split a table into groups of consecutive body rows, each repeating lead headings,
    caption, header rows and the notes its rows cite, with ``measure(spans) <= limit`` (the
    group's view spans: e.g. the characters or the tokens of their text joined by SPAN_JOINER).

    A row that does not fit even alone with its repeated context is given to
    ``on_oversized(row, context_spans)`` (or emitted alone when that is None)."""
    view = doc.view_text
    t = parts.table
    fixed_blocks = list(lead) + ([parts.caption] if parts.caption is not None and parts.caption not in lead else [])
    fixed = [(b.vstart, b.vend) for b in fixed_blocks]
    if parts.header_span:
        fixed.append(parts.header_span)
    fixed_ids = [b.block_id for b in fixed_blocks] + [r.block_id for r in parts.header_rows]
    exclude = {t.block_id, *fixed_ids}

    def build(rows: list[Block], with_fixed: bool = True) -> tuple[list[tuple[int, int]], list[str]]:
        extra = cited_notes_of(rows + (parts.header_rows if with_fixed else []), notes, exclude) if notes else []
        spans = (fixed if with_fixed else []) + [(rows[0].vstart, rows[-1].vend)] + [(n.vstart, n.vend) for n in extra]
        return spans, (fixed_ids if with_fixed else []) + [r.block_id for r in rows] + [n.block_id for n in extra]

    def fits(rows: list[Block]) -> bool:
        spans, _ = build(rows)
        return measure(spans) <= limit

    out: list[Piece] = []
    body = parts.body_rows
    if not body:
        return [table_piece(doc, parts, lead, notes)]
    i = 0
    while i < len(body):
        if not fits(body[i:i + 1]):
            row = body[i]
            if on_oversized is not None:
                out.extend(on_oversized(row, fixed))
            else:
                spans, ids = build([row])
                out.append(Piece(spans, "table_rows", t.section_path, t.block_id, ids))
            i += 1
            continue
        # grow greedily: double then binary-search the largest j with fits(body[i:j])
        lo, hi = i + 1, i + 2
        while hi <= len(body) and fits(body[i:hi]):
            lo, hi = hi, min(len(body) + 1, i + 2 * (hi - i))
            if lo == len(body):
                break
        hi = min(hi, len(body) + 1)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fits(body[i:mid]):
                lo = mid
            else:
                hi = mid
        spans, ids = build(body[i:lo])
        out.append(Piece(spans, "table_rows", t.section_path, t.block_id, ids))
        i = lo
    return out
