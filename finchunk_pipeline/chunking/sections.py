"""Section lookup for strategies that cut the text without looking at blocks."""
from __future__ import annotations

from bisect import bisect_right

from ..types.blocks import ParsedDocument


def section_at(doc: ParsedDocument, vpos: int) -> tuple[str, ...]:
    """Section path of the block containing (or last starting before) view position vpos."""
    starts = getattr(doc, "_block_vstarts", None)
    if starts is None:
        starts = [b.vstart for b in doc.blocks]
        doc._block_vstarts = starts  # cached on the instance; blocks are immutable once parsed
    k = bisect_right(starts, vpos) - 1
    return doc.blocks[k].section_path if k >= 0 else ()
