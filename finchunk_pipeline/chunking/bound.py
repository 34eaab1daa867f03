"""The chunk-size bound, enforced the same way for every strategy.

A strategy declares the most characters of document text a chunk may hold
(``Strategy.char_bound``); when a piece is larger — a block with no split point the
strategy knows, such as a single-line 3.6 MB document or a 60,000-row table — it is split
here as a last resort: its spans are regrouped so each group stays within the bound (a span
that fits whole moves to the next group rather than being cut), and a span larger than the
bound is cut by characters, at a line break if there is one near the cut, else at
whitespace, else hard. Cuts are balanced (a 1,085-character piece under a 1,000 bound
becomes two of about 600 and 490, not 1,000 + 85). Spans stay exact view ranges.

A table may have a bound of its own (``Strategy.table_char_bound``): the allowance a
configuration gives whole tables or row groups with their repeated header (structure's
``table_max_chars``). It applies to table pieces only (``TABLE_KINDS``); every other piece —
a paragraph, a list, a note — is held to ``char_bound``, and the chunk set reports the tables
over it (chunk_set.py: ``tables_over_char_bound``, ``largest_table_chars``).
"""
from __future__ import annotations

import math
from dataclasses import replace

from ..types.blocks import ParsedDocument
from .context import Piece, normalize_spans

SPLIT_NOTE = "pieces over the character bound, cut by characters (no structural split point)"
# the kinds of piece a table allowance applies to: a whole table, a group of its rows
TABLE_KINDS = frozenset({"table", "table_rows"})


def piece_bound(kind: str, bound: int | None, table_bound: int | None = None) -> int | None:
    """The bound of a piece of ``kind``: ``table_bound`` for a table piece when the
    configuration gives one, else ``bound``."""
    return table_bound if table_bound and kind in TABLE_KINDS else bound


def span_chars(spans: list[tuple[int, int]]) -> int:
    return sum(e - s for s, e in spans)


def _cut(view: str, lo: int, hi: int) -> int:
    """A cut position c with lo < c <= hi: right after the last line break in [lo, hi),
    else after the last whitespace there, else hi (a hard cut)."""
    nl = view.rfind("\n", lo, hi)
    if nl != -1:
        return nl + 1
    for i in range(hi - 1, lo - 1, -1):
        if view[i].isspace():
            return i + 1
    return hi


def split_spans(view: str, spans: list[tuple[int, int]], bound: int) -> list[list[tuple[int, int]]]:
    """Group normalized ``spans`` so each group holds at most ``bound`` characters."""
    if bound <= 0:
        raise ValueError(f"bound must be > 0, got {bound}")
    groups: list[list[tuple[int, int]]] = []
    cur: list[tuple[int, int]] = []
    used = 0

    def flush() -> None:
        nonlocal cur, used
        if cur:
            groups.append(cur)
        cur, used = [], 0

    for s, e in spans:
        while s < e:
            while s < e and view[s].isspace():
                s += 1
            if s >= e:
                break
            n, room = e - s, bound - used
            if n <= room:
                cur.append((s, e))
                used += n
                break
            if cur and (n <= bound or room < max(1, bound // 4)):
                flush()  # the span fits a group of its own, or too little room is left
                continue
            # cut inside the span, aiming at equal parts of what remains of it
            total = used + n
            parts = math.ceil(total / bound)
            target = math.ceil(total / parts)
            hi = s + max(1, min(room, target + target // 10 - used))
            lo = s + max(1, min(hi - s, target // 2 - used))
            c = _cut(view, lo, hi) if lo < hi else hi
            cur.append((s, c))
            flush()
            s = c
    flush()
    return groups


def enforce_char_bound(doc: ParsedDocument, pieces: list[Piece], bound: int | None,
                       table_bound: int | None = None) -> tuple[list[Piece], int]:
    """(pieces within their bound — ``table_bound`` for a table piece when given, else
    ``bound`` —, how many pieces had to be split)."""
    if not bound:
        return pieces, 0
    view = doc.view_text
    out: list[Piece] = []
    split = 0
    blocks = None
    for piece in pieces:
        spans = normalize_spans(view, piece.view_spans)
        limit = piece_bound(piece.kind, bound, table_bound)
        if span_chars(spans) <= limit:
            piece.view_spans = piece.normalized = spans  # build_chunks reads them as they are
            out.append(piece)
            continue
        split += 1
        if blocks is None:
            blocks = {b.block_id: b for b in doc.blocks}
        for group in split_spans(view, spans, limit):
            ids = [i for i in piece.block_ids if i in blocks
                   and any(blocks[i].vstart < e and s < blocks[i].vend for s, e in group)]
            out.append(replace(piece, view_spans=group, block_ids=ids or list(piece.block_ids)))
    return out, split
