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
class TaggedFact:
    """One inline-XBRL fact as the filing tags it, located in the document.

    ``spans`` index the raw document text (``documents.text``) and ``vspans`` the parser's text
    view: for a number, the figure itself (``14,695``: the tag's content, no ``$`` or
    parentheses, which filings print outside the tag); for a text fact (``ix:nonNumeric``, a
    note's TextBlock), each of its pieces (``ix:continuation``s included). ``value`` is the
    number the filing reports (displayed figure x 10^scale, negated when ``sign`` is "-");
    None for text facts and nil ones. ``block_id`` is the innermost block holding the figure
    (a table row, a paragraph), ``within`` the innermost text fact (a note's TextBlock) around
    it. ``hidden``: inside ``ix:hidden`` with no visible display; ``problem`` says why a fact
    could not be located or read (it is kept, and reported)."""

    fact_id: str
    kind: str                       # "numeric" (ix:nonFraction) or "text" (ix:nonNumeric)
    concept: str                    # e.g. "us-gaap:OtherAssetsCurrent"
    context_id: str
    entity: str = ""
    period_start: str | None = None  # ISO date; None for an instant
    period_end: str | None = None    # ISO date (the instant of an instant fact)
    dimensions: list[list[str]] = field(default_factory=list)  # [[axis, member], ...]
    unit: str | None = None          # "USD", "USD/shares", "shares", "pure"
    decimals: str | None = None
    scale: int = 0
    sign: str | None = None
    format: str | None = None
    value: float | None = None
    display: str = ""                # the displayed text (whitespace collapsed; text facts cut at 300)
    spans: list[list[int]] = field(default_factory=list)
    vspans: list[list[int]] = field(default_factory=list)
    block_id: str | None = None
    within: str | None = None
    hidden: bool = False
    problem: str | None = None

    @property
    def located(self) -> bool:
        return bool(self.vspans) and self.problem is None


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
    facts: list[TaggedFact] = field(default_factory=list)  # inline-XBRL facts (HTML filings)

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
