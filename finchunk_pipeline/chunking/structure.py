"""Structure-aware chunking: the document's own units decide the cuts.

- A heading opens a section; its text (and any headings directly above it) travels with
  the first chunk of that section.
- A table is one chunk (its rows never leave their header), with the caption / unit
  paragraph right above it, and the footnotes its rows cite are attached as further spans.
  With ``table_max_chars`` > 0 a larger table splits into row groups, each repeating the
  caption, the header rows and the notes its rows cite (chunking/tables.py).
- Paragraphs, lists and stray notes of one section are merged up to ``max_chars``; a block
  citing a footnote carries that footnote as a second span. A paragraph (or list, note,
  turn) longer than ``max_chars`` — or that the headings above it would take over the bound —
  is split at sentence boundaries, each piece with the notes it cites, the first one with the
  headings above it (within the bound when its first sentence fits beside them); a sentence
  longer than ``max_chars`` (a run-on paragraph, a line with no space) is cut by characters
  (chunking/bound.py: at a line break, else whitespace, else hard) and noted.
- The bound of a chunk (``char_bound``) is ``max_chars`` plus the ``link_notes_chars`` of
  linked notes; only a table may be larger, under the table allowance (``table_char_bound``):
  whole up to ``WHOLE_TABLE_MAX_CHARS`` with ``table_max_chars`` 0, else row groups of up to
  ``table_max_chars`` with their repeated caption and header. The chunk set's manifest counts
  the tables over ``char_bound`` and names the largest.
- A chunk referring to a note to the financial statements ("set out in Note 6", a table row
  titled like "Note 4 — Operating profit") carries that note's heading and opening text as
  further spans (``link_notes_chars`` in total; note_links.py).
- Nothing else crosses a section boundary.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import Field

from ..parse.footnotes import cited_marks, may_cite
from ..types.blocks import Block, BlockKind, ParsedDocument
from .bound import SPLIT_NOTE, split_spans
from .cited_notes import cited_notes, cited_notes_of, notes_by_mark
from .context import Piece, headings_piece
from .note_links import may_refer, note_sections, referenced_notes
from .notes import note
from .options import StrategyParams
from .sentence_groups import sentence_groups
from .strategy import Strategy
from .strategy_context import ChunkingContext
from .tables import caption_block, row_group_pieces, table_parts, table_piece, text_length

# "tables whole" (table_max_chars 0) holds for tables up to this size; a larger one (a
# 60,000-row table) is split at row lines by the chunk-size bound (chunking/bound.py)
WHOLE_TABLE_MAX_CHARS = 8000
# a row group repeats its table's caption, header rows and unit on top of its own rows: the
# bound leaves room for them, so the shared bound never cuts a row from its header
ROW_GROUP_CONTEXT_CHARS = 600


def link_notes(doc: ParsedDocument, pieces: list[Piece], max_chars: int) -> list[Piece]:
    """Attach to each piece the note sections it refers to (see note_links.py)."""
    by_number, by_title = note_sections(doc, max_chars)
    if not by_number:
        return pieces
    blocks = {b.block_id: b for b in doc.blocks}
    body_rows: dict[str, list[Block]] = {}
    tabular: set[str] = set()  # tables and rows: a piece with neither has no row labels
    for b in doc.blocks:
        if b.kind == BlockKind.TABLE_ROW or b.kind == BlockKind.TABLE:
            tabular.add(b.block_id)
        if b.kind == BlockKind.TABLE_ROW and not b.attrs.get("is_header") and b.parent_id:
            body_rows.setdefault(b.parent_id, []).append(b)
    view = doc.view_text
    for pc in pieces:
        rows: list[Block] = []
        for bid in (pc.block_ids if not tabular.isdisjoint(pc.block_ids) else ()):
            b = blocks.get(bid)
            if b is not None and b.kind == BlockKind.TABLE:
                rows.extend(body_rows.get(bid, []))
            elif b is not None and b.kind == BlockKind.TABLE_ROW and not b.attrs.get("is_header"):
                rows.append(b)
        labels = [r.attrs["cells"][0] for r in rows if r.attrs.get("cells")]
        refers = may_refer(view, pc.view_spans)
        if not (labels or refers):
            continue
        text = "\n".join(view[s:e] for s, e in pc.view_spans) if refers else ""  # "": no reference by number
        for note in referenced_notes(text, tuple(pc.section_path), by_number, by_title, labels, max_chars):
            if note.heading.block_id in pc.block_ids:
                continue
            pc.view_spans = list(pc.view_spans) + note.spans
            pc.block_ids = list(pc.block_ids) + note.block_ids
    return pieces


class _SectionWalk:
    """One document's blocks in reading order: headings wait for the content below them, a
    table is its own piece (or row groups), text merges within its section up to max_chars."""

    def __init__(self, doc: ParsedDocument, max_chars: int, attach: bool, table_max: int,
                 bound: int | None = None):
        self.doc, self.max_chars, self.attach, self.table_max = doc, max_chars, attach, table_max
        self.bound = max_chars if bound is None else bound  # what a text piece may hold with its headings
        self.notes = notes_by_mark(doc) if attach else {}
        self.captions = _caption_ids(doc)
        self.consumed: set[str] = set()   # notes printed right below a table that cites them
        self.out: list[Piece] = []
        self.group: list[Block] = []      # text blocks of one section being merged
        self.pending_heading: list[Block] = []

    def pieces(self) -> list[Piece]:
        for idx, b in enumerate(self.doc.blocks):
            if b.kind == BlockKind.HEADING:
                # consecutive headings (a title, then a section) all travel with the first
                # content below them: a heading alone is no answer to anything
                self.flush()
                self.pending_heading.append(b)
            elif b.kind == BlockKind.TABLE_ROW or (b.kind == BlockKind.NOTE and b.block_id in self.consumed):
                continue  # inside its table's chunk
            elif b.kind == BlockKind.PARAGRAPH and b.block_id in self.captions:
                self.flush()  # emitted with its table
            elif b.kind == BlockKind.TABLE:
                self.flush()
                self.add_table(idx, b)
            else:
                self.add_text(b)  # paragraph, list, note, turn
        self.flush()
        if self.pending_heading:
            self.out.append(headings_piece(self.pending_heading))
        return self.out

    def flush(self) -> None:
        """The merged text group (with the headings above it and the notes it cites) as one piece."""
        group = self.group
        if not group:
            return
        members = self.pending_heading + group
        extra = cited_notes_of(group, self.notes, {b.block_id for b in members}) if self.notes else []
        spans = [(members[0].vstart, members[-1].vend)] + [(n.vstart, n.vend) for n in extra]
        kinds = {b.kind for b in group}
        kind = "text" if kinds <= {BlockKind.PARAGRAPH} else (group[0].kind if len(kinds) == 1 else "mixed")
        self.out.append(Piece(spans, kind, group[0].section_path, None,
                              [b.block_id for b in members] + [n.block_id for n in extra]))
        self.group = []
        self.pending_heading.clear()

    def add_table(self, idx: int, table: Block) -> None:
        """The table whole (with its caption, the headings above it and the notes it cites), or
        row groups when it is larger than table_max_chars."""
        parts = table_parts(self.doc, table)
        whole = table_piece(self.doc, parts, self.pending_heading, self.notes)
        if self.attach:
            self._consume_notes_below(idx, table, set(whole.block_ids))
        size = sum(e - s for s, e in whole.view_spans)
        if self.table_max and size > self.table_max and parts.body_rows:
            self.out.extend(row_group_pieces(self.doc, parts, list(self.pending_heading), self.notes,
                                             text_length(self.doc.view_text), self.table_max))
        else:
            self.out.append(whole)
        self.pending_heading.clear()

    def _consume_notes_below(self, idx: int, table: Block, attached: set[str]) -> None:
        """Notes directly below the table that its piece carries are not chunked again."""
        blocks = self.doc.blocks
        for later in (blocks[j] for j in range(idx + 1, len(blocks))):  # no copy of the rest of the list
            if later.kind == BlockKind.TABLE_ROW and later.parent_id == table.block_id:
                continue
            if later.kind == BlockKind.NOTE and later.block_id in attached:
                self.consumed.add(later.block_id)
                continue
            break

    def add_text(self, b: Block) -> None:
        """Merge within the section up to max_chars; a block longer than that alone (a
        paragraph, a list, a note, a turn), or one the headings above it would take over the
        bound, is split at sentence boundaries."""
        if self.group and (self.group[0].section_path != b.section_path
                           or (b.vend - (self.pending_heading or self.group)[0].vstart) > self.max_chars):
            self.flush()
        if b.vend - b.vstart > self.max_chars or (
                not self.group and self.pending_heading and b.vend - self.pending_heading[0].vstart > self.bound):
            self.flush()
            self.out.extend(_split_paragraph(self.doc, b, self.pending_heading, self.notes, self.max_chars,
                                            self.attach, self.bound))
            self.pending_heading.clear()
            return
        self.group.append(b)


def _caption_ids(doc: ParsedDocument) -> set[str]:
    """Caption / unit paragraphs directly above a table: they travel with the table."""
    captions: set[str] = set()
    for t in doc.blocks:
        if t.kind == BlockKind.TABLE:
            cap = caption_block(doc, t)
            if cap is not None:
                captions.add(cap.block_id)
    return captions


def _sentence_pieces(view: str, start: int, end: int, max_chars: int, doc_id: str,
                     first_max_chars: int | None = None) -> list[tuple[int, int]]:
    """Ranges of ``view[start:end]`` of at most max_chars: consecutive sentences packed (the
    first range up to ``first_max_chars`` when given), a sentence longer than max_chars cut by
    characters (bound.split_spans; noted as a piece cut to the bound)."""
    out: list[tuple[int, int]] = []
    for s, e in sentence_groups(view, start, end, max_chars, first_max_chars=first_max_chars):
        if e - s <= max_chars:
            out.append((s, e))
            continue
        note(SPLIT_NOTE, 1, doc_id)
        out.extend(group[0] for group in split_spans(view, [(s, e)], max_chars))
    return out


def _split_paragraph(doc: ParsedDocument, b: Block, lead: list[Block], notes, max_chars: int,
                    attach: bool, bound: int | None = None) -> list[Piece]:
    """A paragraph (or list, note, turn) longer than max_chars: consecutive sentences up to
    max_chars per piece (a sentence longer than that cut by characters); each piece carries the
    footnotes its own sentences cite, and the first piece the headings above it, within
    ``bound`` (the strategy's char_bound) when a first sentence fits beside them."""
    view = doc.view_text
    # no notes, or no cite character in the paragraph: no sentence of it cites a note
    attach = attach and bool(notes) and may_cite(view, b.vstart, b.vend)
    kind = "text" if b.kind == BlockKind.PARAGRAPH else b.kind
    room = (max_chars if bound is None else bound) - (b.vstart - lead[0].vstart) if lead else max_chars
    first = min(max_chars, room) if lead else None
    pieces = []
    for i, (s, e) in enumerate(_sentence_pieces(view, b.vstart, b.vend, max_chars, doc.doc_id, first)):
        head = lead if i == 0 else []
        marks = cited_marks(view[s:e]) if attach else []
        extra = cited_notes(replace(b, attrs={**b.attrs, "cites": marks}), notes) if marks else []
        spans = [(h.vstart, h.vend) for h in head] + [(s, e)] + [(n.vstart, n.vend) for n in extra]
        pieces.append(Piece(spans, kind, b.section_path, b.block_id,
                            [h.block_id for h in head] + [b.block_id] + [n.block_id for n in extra]))
    return pieces


class StructureParams(StrategyParams):
    max_chars: int = Field(800, gt=0)          # text merged within a section up to this
    attach_notes: bool = True                  # a block carries the footnotes it cites
    table_max_chars: int = Field(0, ge=0)      # 0: tables whole (up to WHOLE_TABLE_MAX_CHARS); else row groups
    link_notes_chars: int = Field(600, ge=0)   # notes to the statements referred to (0: none)


class Structure(Strategy):
    name = "structure"
    family = "evidence"
    # 2: consecutive headings travel with the content below them
    # 3: caption paragraph travels with its table; optional row groups (table_max_chars)
    # 4: a paragraph longer than max_chars is split at sentence boundaries
    # 5: notes to the financial statements referred to ("Note 6", a row titled like a note) linked
    # 6: the size bound leaves room for a row group's repeated table context (ROW_GROUP_CONTEXT_CHARS)
    # 7: text is held to max_chars (+ linked notes): a sentence longer than max_chars is cut by
    #    characters, any text block longer than max_chars (or over the bound with its headings)
    #    split at sentences, its first piece making room for its headings within the bound; only
    #    tables get the table allowance (it held every piece before)
    version = "7"
    Params = StructureParams

    def char_bound(self, params, doc=None, meta=None):
        """Text up to max_chars, plus link_notes_chars of linked notes."""
        p = self.resolve(params)
        return p.max_chars + p.link_notes_chars

    def table_char_bound(self, params, doc=None, meta=None):
        """The table allowance: row groups up to table_max_chars of rows plus their repeated
        caption / header / unit (ROW_GROUP_CONTEXT_CHARS); whole tables (table_max_chars 0) up to
        WHOLE_TABLE_MAX_CHARS; plus link_notes_chars of linked notes (never below char_bound)."""
        p = self.resolve(params)
        tables = p.table_max_chars + ROW_GROUP_CONTEXT_CHARS if p.table_max_chars else WHOLE_TABLE_MAX_CHARS
        return max(p.max_chars, tables) + p.link_notes_chars

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        p = self.resolve(params)
        out = _SectionWalk(doc, p.max_chars, p.attach_notes, p.table_max_chars,
                           self.char_bound(params)).pieces()
        if p.link_notes_chars:
            out = link_notes(doc, out, p.link_notes_chars)
        return out
