"""Bounded expansion of a retrieved chunk: more context, never the whole document.

``expand_chunk(chunk_row, doc, max_chars)`` grows a chunk with the evidence around it:

1. a chunk inside a table (row group / rows) first gets the table's caption and header
   rows, then neighbouring rows;
2. then the section's heading(s) and neighbouring blocks of the same section, nearest
   first, alternating after / before; a neighbouring table too large to add whole gives its
   rows nearest the chunk (a statement the parser split into several tables, or a page of
   text between them, is still delivered as one contiguous piece up to the bound);

always keeping the total at most ``max_chars`` characters of source text (a chunk already
larger is returned unchanged). The result is raw spans (what evaluation scores) and the
exact source text at those spans, joined by SPAN_JOINER, so it can be scored like a chunk.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Any, Callable, Iterable, Mapping

from ..types.blocks import Block, BlockKind, ParsedDocument
from ..types.chunks import SPAN_JOINER
from .context import normalize_spans
from .tables import caption_block, table_parts


def _spans(value: Any) -> list[tuple[int, int]]:
    out = []
    for s in value if value is not None else []:
        if isinstance(s, Mapping):
            out.append((int(s["start"]), int(s["end"])))
        else:
            out.append((int(s[0]), int(s[1])))
    return out


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _size(view: str, spans: list[tuple[int, int]]) -> int:
    norm = normalize_spans(view, _merge(spans))
    return sum(e - s for s, e in norm) + len(SPAN_JOINER) * max(0, len(norm) - 1)


def expand_view_spans(view_spans: list[tuple[int, int]], doc: ParsedDocument,
                      max_chars: int) -> list[tuple[int, int]]:
    """View spans of the expanded chunk (sorted, merged)."""
    grow = _Expansion(doc, max_chars, _merge(view_spans))
    if grow.cur and _size(grow.view, grow.cur) < max_chars:
        grow.add_tables()
        grow.add_section()
    return normalize_spans(grow.view, grow.cur)


def _grow_outward(n: int, lo: int, hi: int, take: Callable[[int], bool]) -> None:
    """Offer items hi, lo, hi + 1, lo - 1, ... of n (nearest first, alternating after / before)
    to ``take`` while one side still takes them."""
    while lo >= 0 or hi < n:
        grew = False
        if hi < n and take(hi):
            hi += 1
            grew = True
        if lo >= 0 and take(lo):
            lo -= 1
            grew = True
        if not grew:
            break


class _Expansion:
    """The chunk's view spans (``cur``) growing by whole blocks while the size stays within max_chars."""

    def __init__(self, doc: ParsedDocument, max_chars: int, spans: list[tuple[int, int]]):
        self.doc, self.view, self.max_chars, self.cur = doc, doc.view_text, max_chars, spans
        self.blocks = [b for b in doc.blocks if b.vend > b.vstart]
        self.starts = [b.vstart for b in self.blocks]

    def covering(self, s: int, e: int) -> list[Block]:
        k = max(0, bisect_right(self.starts, s) - 1)
        out = []
        while k < len(self.blocks) and self.blocks[k].vstart < e:
            if self.blocks[k].vend > s:
                out.append(self.blocks[k])
            k += 1
        return out

    def overlaps(self, b: Block) -> bool:
        return any(b.vstart < e and s < b.vend for s, e in self.cur)

    def try_add(self, spans: list[tuple[int, int]]) -> bool:
        cand = _merge(self.cur + spans)
        if _size(self.view, cand) <= self.max_chars:
            self.cur = cand
            return True
        return False

    def add_block(self, b: Block) -> bool:
        return self.try_add([(b.vstart, b.vend)])

    def add_tables(self) -> None:
        """1. Each table the chunk has rows of: its caption and header rows, then neighbouring rows."""
        touched = [b for s, e in self.cur for b in self.covering(s, e)]
        # in the order the chunk touches them (a set would order them by string hash: per process)
        tables = dict.fromkeys(b.parent_id for b in touched if b.kind == BlockKind.TABLE_ROW and b.parent_id)
        by_id = {b.block_id: b for b in self.blocks}
        for tid in tables:
            t = by_id.get(tid)
            if t is not None:
                self._add_table(t)

    def _add_table(self, t: Block) -> None:
        parts = table_parts(self.doc, t)
        cap = caption_block(self.doc, t)
        fixed = [(cap.vstart, cap.vend)] if cap is not None else []
        fixed += [parts.header_span] if parts.header_span else []
        if fixed:
            self.try_add(fixed)
        rows = parts.body_rows
        inside = [i for i, r in enumerate(rows) if self.overlaps(r)]
        if inside:
            _grow_outward(len(rows), min(inside) - 1, max(inside) + 1, lambda i: self.add_block(rows[i]))

    def add_section(self) -> None:
        """2. The section of the chunk's first block: its heading, then neighbouring blocks of the section."""
        units = [b for b in self.blocks if b.kind != BlockKind.TABLE_ROW]
        seeds = [i for i, b in enumerate(units) if self.overlaps(b)]
        if not seeds:
            return
        first = units[seeds[0]]
        sec = first.section_path
        heading = _section_heading(units, sec, first)
        if heading is not None:
            self.add_block(heading)

        after = max(seeds) + 1

        def take(i: int) -> bool:
            b = units[i]
            if b.section_path != sec or b.kind == BlockKind.HEADING:
                return False
            if self.add_block(b):
                return True
            if b.kind == BlockKind.TABLE:
                self._add_nearest_rows(b, after=i >= after)
            return False   # this side stops here: the parent stays one contiguous piece

        _grow_outward(len(units), min(seeds) - 1, max(seeds) + 1, take)

    def _add_nearest_rows(self, t: Block, after: bool) -> None:
        """A table beside the parent too large to add whole: its rows in document order from
        the side facing the parent (first rows for a table after it, last rows for one
        before), while they fit."""
        parts = table_parts(self.doc, t)
        rows = parts.header_rows + parts.body_rows
        for r in rows if after else rows[::-1]:
            if not self.add_block(r):
                return


def _section_heading(units: list[Block], sec: tuple[str, ...], first: Block) -> Block | None:
    """The last heading at or before ``first`` of section ``sec`` or of a section enclosing it."""
    same = [b for b in units if b.section_path == sec or
            (b.kind == BlockKind.HEADING and sec[:len(b.section_path)] == b.section_path and b.section_path)]
    headings = [b for b in same if b.kind == BlockKind.HEADING and b.vstart <= first.vstart]
    return headings[-1] if headings else None


def expand_chunk(chunk_row: Any, doc: ParsedDocument, max_chars: int) -> tuple[list[tuple[int, int]], str]:
    """Expand one chunk (a row of a chunk set: a Mapping / pandas row with ``view_spans``,
    or a Chunk) within ``doc`` up to ``max_chars`` characters.

    Returns (raw spans, source text); ``source text`` is the view text at the expanded view
    spans joined by SPAN_JOINER (for Markdown / text: exactly the raw text at the spans)."""
    if max_chars <= 0:
        raise ValueError(f"max_chars must be > 0, got {max_chars}")
    vs = chunk_row["view_spans"] if not hasattr(chunk_row, "view_spans") else chunk_row.view_spans
    view_spans = expand_view_spans(_spans(vs), doc, max_chars)
    text = SPAN_JOINER.join(doc.view_text[s:e] for s, e in view_spans)
    return [doc.raw_span(s, e) for s, e in view_spans], text


def expand_chunks(rows: Iterable[Any], docs: Mapping[str, ParsedDocument],
                  max_chars: int) -> list[tuple[list[tuple[int, int]], str]]:
    """Expand several retrieved chunks (each row has ``doc_id`` and ``view_spans``)."""
    out = []
    for row in rows:
        doc_id = row["doc_id"] if not hasattr(row, "doc_id") else row.doc_id
        out.append(expand_chunk(row, docs[doc_id], max_chars))
    return out
