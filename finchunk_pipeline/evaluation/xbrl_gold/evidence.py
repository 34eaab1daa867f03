"""The gold passages of a generated question: the evidence a reader needs to answer it,
as whole blocks of the parsed document (so passages of one document never overlap, and the
same block is one passage however many questions need it).

- a figure in a table row: the row (its label and its figures) and, with evidence
  ``row+header`` (the default), the table's column-header rows — which column is which
  period or segment, and often the unit. Without the header a reader holds a number and
  cannot tell whether it is this year's or last year's; it is what a table chunker must
  keep with the row. Evidence ``row`` (the row alone) is the lenient variant the bench
  compares against (docs: what generated gold measures).
- a figure in a paragraph or note: that block.
- a note (a TextBlock fact): every block inside its text (a note that holds a table is
  not asked about: its rows are other questions' passages).

Passage spans are the blocks' raw spans (``documents.text`` offsets), ids are block ids
(``<doc>#b00569``; a header is ``<table block>:header``).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...types.blocks import Block, BlockKind, ParsedDocument, TaggedFact

EVIDENCE = ("row+header", "row")
_KIND = {BlockKind.PARAGRAPH: "text", BlockKind.TABLE_ROW: "table_row", BlockKind.NOTE: "note",
         BlockKind.LIST: "list", BlockKind.HEADING: "heading", BlockKind.TURN: "turn"}


@dataclass(frozen=True)
class Passage:
    passage_id: str
    doc_id: str
    section: str
    kind: str
    start: int
    end: int


class Rejected(ValueError):
    """A fact no question is made from, and why (counted in the report)."""


class DocumentBlocks:
    """A parsed document's blocks by id, its tables' rows, and block lookup by view span."""

    def __init__(self, doc: ParsedDocument):
        self.doc = doc
        self.by_id = {b.block_id: b for b in doc.blocks}
        self.rows: dict[str, list[Block]] = {}
        for b in doc.blocks:
            if b.kind == BlockKind.TABLE_ROW and b.parent_id:
                self.rows.setdefault(b.parent_id, []).append(b)

    def passage(self, b: Block) -> Passage:
        return Passage(b.block_id, self.doc.doc_id, b.section, _KIND.get(b.kind, "text"), b.start, b.end)

    def header(self, table_id: str) -> Passage | None:
        head = [r for r in self.rows.get(table_id, []) if r.attrs.get("is_header")]
        if not head:
            return None
        first, last = head[0], head[-1]
        return Passage(f"{table_id}:header", self.doc.doc_id, first.section, "table_row", first.start, last.end)

    def blocks_within(self, vspans: list[list[int]]) -> list[Block]:
        """Blocks whose view range lies inside one of ``vspans`` (a note's pieces)."""
        out = []
        for b in self.doc.blocks:
            if any(vs <= b.vstart and b.vend <= ve for vs, ve in vspans):
                out.append(b)
        return out


def figure_evidence(fact: TaggedFact, blocks: DocumentBlocks, evidence: str) -> tuple[str, list[Passage]]:
    """(where the figure is: "table" or "text", its gold passages)."""
    b = blocks.by_id.get(fact.block_id or "")
    if b is None:
        raise Rejected("figure outside every block")
    if b.kind == BlockKind.TABLE_ROW:
        if b.attrs.get("is_header"):
            raise Rejected("figure in a table's header row")
        out = [blocks.passage(b)]
        if evidence == "row+header":
            head = blocks.header(b.parent_id or "")
            if head is None:
                raise Rejected("table without a header row")
            out.insert(0, head)
        return "table", out
    if b.kind in (BlockKind.PARAGRAPH, BlockKind.NOTE, BlockKind.LIST):
        return "text", [blocks.passage(b)]
    raise Rejected(f"figure in a {b.kind} block")


def note_evidence(fact: TaggedFact, blocks: DocumentBlocks, max_chars: int) -> list[Passage]:
    inside = blocks.blocks_within(fact.vspans)
    if not inside:
        raise Rejected("note text outside every block")
    if any(b.kind in (BlockKind.TABLE, BlockKind.TABLE_ROW) for b in inside):
        raise Rejected("note holds a table")
    size = sum(b.vend - b.vstart for b in inside)
    if size > max_chars:
        raise Rejected(f"note longer than {max_chars} characters")
    return [blocks.passage(b) for b in inside]
