"""The footnotes a block cites: the notes of a document by their mark, and for a block (or
a group of blocks) the notes its citation marks point to. Structure, tables and packed
chunking all attach cited notes to the text citing them."""
from __future__ import annotations

from ..types.blocks import Block, BlockKind, ParsedDocument


def notes_by_mark(doc: ParsedDocument) -> dict[str, list[Block]]:
    out: dict[str, list[Block]] = {}
    for b in doc.blocks:
        if b.kind == BlockKind.NOTE and b.attrs.get("mark"):
            out.setdefault(str(b.attrs["mark"]), []).append(b)
    return out


def cited_notes(block: Block, notes: dict[str, list[Block]]) -> list[Block]:
    """The notes a block cites: for each mark, the first note defining it after the block
    (footnotes print below what cites them), else the nearest one before."""
    found: list[Block] = []
    for mark in block.attrs.get("cites", []):
        candidates = notes.get(str(mark), [])
        pick = next((n for n in candidates if n.seq > block.seq), candidates[-1] if candidates else None)
        if pick is not None and pick not in found:
            found.append(pick)
    return found


def cited_notes_of(blocks: list[Block], notes: dict[str, list[Block]], exclude: set[str]) -> list[Block]:
    """The notes any of ``blocks`` cite, once each, in citation order, minus ``exclude`` ids."""
    out: list[Block] = []
    for b in blocks:
        if not b.attrs.get("cites"):
            continue  # most blocks cite nothing
        for n in cited_notes(b, notes):
            if n.block_id not in exclude and n not in out:
                out.append(n)
    return out
