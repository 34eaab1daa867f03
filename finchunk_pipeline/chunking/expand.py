"""Bounded expansion of a retrieved chunk: more context, never the whole document.

``expand_chunk(chunk_row, doc, max_chars)`` grows a chunk with the evidence around it:

1. a chunk inside a table (row group / rows) first gets the table's caption and header
   rows, then neighbouring rows;
2. then the section's heading(s) and neighbouring blocks of the same section, nearest
   first, alternating after / before;

always keeping the total at most ``max_chars`` characters of source text (a chunk already
larger is returned unchanged). The result is raw spans (what evaluation scores) and the
exact source text at those spans, joined by SPAN_JOINER, so it can be scored like a chunk.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Any, Iterable, Mapping

from ..parse.model import Block, BlockKind, ParsedDocument
from .context import normalize_spans
from .model import SPAN_JOINER
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


def expand_view_spans(view_spans: list[tuple[int, int]], doc: ParsedDocument, max_chars: int) -> list[tuple[int, int]]:
    """View spans of the expanded chunk (sorted, merged)."""
    view = doc.view_text
    cur = _merge(view_spans)
    if not cur or _size(view, cur) >= max_chars:
        return normalize_spans(view, cur)
    blocks = [b for b in doc.blocks if b.vend > b.vstart]
    starts = [b.vstart for b in blocks]

    def covering(s: int, e: int) -> list[Block]:
        k = max(0, bisect_right(starts, s) - 1)
        out = []
        while k < len(blocks) and blocks[k].vstart < e:
            if blocks[k].vend > s:
                out.append(blocks[k])
            k += 1
        return out

    def try_add(spans: list[tuple[int, int]]) -> bool:
        nonlocal cur
        cand = _merge(cur + spans)
        if _size(view, cand) <= max_chars:
            cur = cand
            return True
        return False

    touched = [b for s, e in cur for b in covering(s, e)]
    # 1. tables: caption + header, then neighbouring rows
    tables = {b.parent_id for b in touched if b.kind == BlockKind.TABLE_ROW and b.parent_id}
    by_id = {b.block_id: b for b in blocks}
    for tid in tables:
        t = by_id.get(tid)
        if t is None:
            continue
        parts = table_parts(doc, t)
        cap = caption_block(doc, t)
        fixed = ([(cap.vstart, cap.vend)] if cap is not None else []) + ([parts.header_span] if parts.header_span else [])
        if fixed:
            try_add(fixed)
        rows = parts.body_rows
        inside = [i for i, r in enumerate(rows) if any(r.vstart < e and s < r.vend for s, e in cur)]
        if inside:
            lo, hi = min(inside) - 1, max(inside) + 1
            while lo >= 0 or hi < len(rows):
                grew = False
                if hi < len(rows) and try_add([(rows[hi].vstart, rows[hi].vend)]):
                    hi += 1
                    grew = True
                if lo >= 0 and try_add([(rows[lo].vstart, rows[lo].vend)]):
                    lo -= 1
                    grew = True
                if not grew:
                    break
    # 2. the section: its heading(s), then neighbouring blocks of the same section
    units = [b for b in blocks if b.kind != BlockKind.TABLE_ROW]
    seeds = [i for i, b in enumerate(units) if any(b.vstart < e and s < b.vend for s, e in cur)]
    if not seeds:
        return normalize_spans(view, cur)
    sec = units[seeds[0]].section_path
    same = [i for i, b in enumerate(units) if b.section_path == sec or
            (b.kind == BlockKind.HEADING and sec[:len(b.section_path)] == b.section_path and b.section_path)]
    headings = [units[i] for i in same if units[i].kind == BlockKind.HEADING and units[i].vstart <= units[seeds[0]].vstart]
    if headings:
        try_add([(headings[-1].vstart, headings[-1].vend)])
    lo, hi = min(seeds) - 1, max(seeds) + 1
    while lo >= 0 or hi < len(units):
        grew = False
        if hi < len(units) and units[hi].section_path == sec and units[hi].kind != BlockKind.HEADING:
            if try_add([(units[hi].vstart, units[hi].vend)]):
                hi += 1
                grew = True
        if lo >= 0 and units[lo].section_path == sec and units[lo].kind != BlockKind.HEADING:
            if try_add([(units[lo].vstart, units[lo].vend)]):
                lo -= 1
                grew = True
        if not grew:
            break
    return normalize_spans(view, cur)


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


def expand_chunks(rows: Iterable[Any], docs: Mapping[str, ParsedDocument], max_chars: int) -> list[tuple[list[tuple[int, int]], str]]:
    """Expand several retrieved chunks (each row has ``doc_id`` and ``view_spans``)."""
    out = []
    for row in rows:
        doc_id = row["doc_id"] if not hasattr(row, "doc_id") else row.doc_id
        out.append(expand_chunk(row, docs[doc_id], max_chars))
    return out
