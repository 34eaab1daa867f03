"""Typed models of the parse stage: Block and ParsedDocument."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .offsets import OffsetMap


class BlockKind:
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    TABLE = "table"          # a whole table; its rows are TABLE_ROW children (parent_id)
    TABLE_ROW = "table_row"
    NOTE = "note"            # a footnote / note printed below a table or paragraph
    LIST = "list"
    TURN = "turn"            # a speaker turn of a transcript
    ALL = ("heading", "paragraph", "table", "table_row", "note", "list", "turn")


@dataclass
class Block:
    """One structural unit of a document.

    ``start``/``end`` index the raw document text (``documents.text``); ``vstart``/``vend``
    index the parser's text view (identical for Markdown and plain text), and ``text`` is
    ``view[vstart:vend]``.

    attrs conventions (all optional):
      - heading: ``level`` (int)
      - table: ``header`` (header row text), ``header_vspan`` [vs, ve], ``caption``, ``unit``,
        ``columns`` (list of column header strings), ``period_columns``
      - table_row: ``cells`` (list of cell strings), ``is_header`` (bool)
      - any block: ``cites`` (list of footnote marks it cites, e.g. ["1", "2"])
      - note: ``mark`` (the footnote mark it defines, e.g. "1")
      - turn: ``speaker``, ``role`` (operator/analyst/executive), ``firm``
    """

    doc_id: str
    block_id: str
    seq: int
    kind: str
    start: int
    end: int
    vstart: int
    vend: int
    text: str
    section_path: tuple[str, ...] = ()
    parent_id: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def section(self) -> str:
        return " > ".join(self.section_path)


@dataclass
class ParsedDocument:
    doc_id: str
    doc_sha: str
    parser: str            # e.g. "markdown"
    parser_version: str    # the version that names the stored blocks
    view_text: str
    offsets: OffsetMap
    blocks: list[Block]
    warnings: list[str] = field(default_factory=list)

    def to_raw(self, vstart: int, vend: int) -> tuple[int, int]:
        """The raw characters the view range was copied from (first to last, inclusive)."""
        if self.offsets.is_identity:
            return (vstart, vend)
        return self.offsets.to_raw(vstart, vend)

    def raw_span(self, vstart: int, vend: int) -> tuple[int, int]:
        """The raw span a chunk of view range [vstart, vend) stands for.

        Like ``to_raw``, but a range that starts where a block starts (ends where a block
        ends) takes that block's outer raw start (end): for HTML, ``attrs["outer"]`` is the
        block's whole source element, markup included (``<tr>…</tr>``), so block-aligned
        chunks own their elements' markup, as gold passages over raw HTML do."""
        rs, re_ = self.to_raw(vstart, vend)
        if self.offsets.is_identity:
            return (rs, re_)
        starts, ends = self._block_bounds()
        rs = min(rs, starts.get(vstart, rs))
        re_ = max(re_, ends.get(vend, re_))
        return (rs, re_)

    def _block_bounds(self) -> tuple[dict[int, int], dict[int, int]]:
        cached = self.__dict__.get("_bounds")
        if cached is None:
            starts: dict[int, int] = {}
            ends: dict[int, int] = {}
            for b in self.blocks:
                s, e = b.attrs.get("outer") or (b.start, b.end)
                starts[b.vstart] = min(s, starts.get(b.vstart, s))
                ends[b.vend] = max(e, ends.get(b.vend, e))
            cached = self.__dict__["_bounds"] = (starts, ends)
        return cached

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for b in self.blocks:
            out[b.kind] = out.get(b.kind, 0) + 1
        return out
