"""Shared by the statement-parsing tests: a plain-text document that must hold exactly one table."""
from __future__ import annotations

from finchunk_pipeline.parse import text as T
from finchunk_pipeline import Block, BlockKind, ParsedDocument


def only_table(doc_id: str, text: str) -> tuple[ParsedDocument, Block]:
    """``text`` parsed as a plain-text document: (the document, its one table). Asserts that
    every block's text is the raw text at its span and that there is exactly one table."""
    doc = T.parse(doc_id, text, {"format": "text"})
    for b in doc.blocks:
        assert b.text == text[b.start:b.end]
    tables = [b for b in doc.blocks if b.kind == BlockKind.TABLE]
    assert len(tables) == 1
    return doc, tables[0]
