"""Token-budget packing of meaningful units (blocks or block pieces).

The packer never truncates. A unit that does not fit the budget on its own is *refused*
and returned to the caller, who splits it by structure (table rows, sentences, paragraphs)
and packs the parts. The budget is below the model's limit (limit minus a margin) and the
context header the embedding text will carry is paid for first:
``source budget = budget - header tokens``.

Counts include the model's special tokens ([CLS]/[SEP]). Joining units with
``SPAN_JOINER`` adds no tokens for WordPiece-style tokenizers, so a group's count is
estimated as ``sum(unit tokens without specials) + specials`` and then verified on the
real joined text; a group the verification rejects is split again.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from pydantic import Field, model_validator

from ..models.tokens import token_counter
from ..types.blocks import Block, BlockKind, ParsedDocument
from ..types.chunks import SPAN_JOINER
from .cited_notes import cited_notes, notes_by_mark
from .context import Piece, context_header
from .fixed_tokens import token_windows
from .options import StrategyParams, field_error
from .row_tokens import TableCounts
from .sentence import split_sentences
from .strategy import Strategy
from .strategy_context import ChunkingContext, or_default
from .tables import caption_block, row_group_pieces, table_parts, table_piece


def default_budget(max_tokens: int) -> int:
    """Budget below the model limit: 256 -> 240, 512 -> 480 (limit minus max(16, limit/16))."""
    return max_tokens - max(16, max_tokens // 16)


class UnitTooLarge(ValueError):
    def __init__(self, unit: "Unit", tokens: int, budget: int):
        super().__init__(f"unit {unit.label or unit.spans} has {tokens} tokens; the source budget is {budget}")
        self.unit, self.tokens, self.budget = unit, tokens, budget


@dataclass
class Unit:
    """A meaningful piece of a document: view spans (reading order) + what it is."""
    spans: list[tuple[int, int]]
    kind: str = "text"
    block_ids: list[str] = field(default_factory=list)
    section_path: tuple[str, ...] = ()
    parent_id: str | None = None
    label: str = ""
    breakable: bool = True   # False: keep apart (e.g. a whole table / a row group)
    tokens: int = 0          # filled by the packer (with special tokens; of a refused unit, some count over its budget)
    parts: dict = field(default_factory=dict)  # how to split it: lead / body / notes spans

    def text(self, view: str) -> str:
        return SPAN_JOINER.join(view[s:e] for s, e in self.spans)


@dataclass
class PackResult:
    groups: list[list[Unit]]
    refused: list[Unit]


class Packer:
    """``count(text) -> tokens incl. special tokens``; ``budget``: the limit for the whole
    embedding text; ``special``: special tokens a count includes (2 for BERT-class)."""

    def __init__(self, count: Callable[[str], int], budget: int, special: int | None = None,
                 count_many: Callable[[list[str]], list[int]] | None = None, additive: bool = False,
                 count_capped: Callable[[list[str], list[int]], list[int]] | None = None):
        """``additive``: a text's count is the special tokens plus the sum of its
        whitespace-separated words' counts (models/tokens.py: exact for BERT-style
        tokenizers), so the estimate of a group joined by ``SPAN_JOINER`` is its count and
        needs no verification. ``count_capped(texts, caps)``: the counts, except that a text
        over its cap may get any count over it (TokenCounter.count_capped)."""
        if budget <= 0:
            raise ValueError(f"budget must be > 0, got {budget}")
        self.count = count
        self.count_many = count_many or (lambda texts: [count(t) for t in texts])
        self.count_capped = count_capped or (lambda texts, caps: self.count_many(texts))
        self.budget = budget
        self.special = count("") if special is None else special
        self.additive = additive and not SPAN_JOINER.strip()
        self._header_tokens: dict[str, int] = {}

    @classmethod
    def for_model(cls, model_path: str | None = None, budget: int = 0, margin: int = -1) -> "Packer":
        counter = token_counter(model_path)
        if budget <= 0:
            budget = default_budget(counter.max_tokens) if margin < 0 else counter.max_tokens - margin
        if budget > counter.max_tokens:
            raise ValueError(f"budget {budget} exceeds the model limit {counter.max_tokens}")
        return cls(counter.count, budget, count_many=counter.count_many, additive=counter.by_word,
                   count_capped=counter.count_capped)

    def header_tokens(self, header: str) -> int:
        """Tokens the header adds to an embedding text (``header + "\\n\\n" + source``)."""
        if not header:
            return 0
        n = self._header_tokens.get(header)
        if n is None:
            n = self._header_tokens[header] = self.count(header) - self.special
        return n

    def source_budget(self, header: str = "") -> int:
        room = self.budget - self.header_tokens(header)
        if room <= self.special:
            raise ValueError(f"the context header leaves no room for source text: {header!r} "
                             f"({self.header_tokens(header)} tokens of a {self.budget}-token budget)")
        return room

    def _cap(self, header: str) -> int:
        """The source budget under ``header``; 0 (no cap) when it leaves none (pack raises)."""
        try:
            return self.source_budget(header)
        except ValueError:
            return 0

    def fits(self, text: str, header: str = "") -> bool:
        return self.count(text) <= self.source_budget(header)

    def pack(self, units: Sequence[Unit], view: str, header: str | Callable[[Unit], str] = "",
             strict: bool = False) -> PackResult:
        """Greedy packing in reading order. Units that do not fit alone are refused (or
        raise UnitTooLarge when ``strict``). Units never split, never truncate.

        ``header``: the context header the chunk's embedding text will carry (or a function
        of the group's first unit); the source budget is what it leaves."""
        head = header if callable(header) else (lambda u, h=header: h)
        # a unit's count is kept on it (Unit.tokens): a unit packed again after its section's
        # refused units were split is not counted again (its text has not changed)
        # (counted only up to its budget: a unit over it is refused whatever its exact count)
        todo = [u for u in units if u.tokens <= 0]
        for u, t in zip(todo, self.count_capped([u.text(view) for u in todo], [self._cap(head(u)) for u in todo])):
            u.tokens = t
        counts = [u.tokens for u in units]
        groups: list[list[Unit]] = []
        refused: list[Unit] = []
        cur: list[Unit] = []
        cur_tokens = 0
        cur_budget = 0

        def close() -> None:
            nonlocal cur, cur_tokens
            if cur:
                groups.extend(self._verify(cur, view, cur_budget))
            cur, cur_tokens = [], 0

        for u, t in zip(units, counts):
            u.tokens = t
            budget = self.source_budget(head(u))
            if t > budget:
                if strict:
                    raise UnitTooLarge(u, self.count(u.text(view)), budget)
                close()
                refused.append(u)
                continue
            if not u.breakable:
                close()
                cur_budget = budget
                cur, cur_tokens = [u], t
                close()
                continue
            if cur and (cur_tokens + t - self.special > cur_budget):
                close()
            if not cur:
                cur_budget = budget
                cur_tokens = t
            else:
                cur_tokens += t - self.special
            cur.append(u)
        close()
        return PackResult(groups, refused)

    def _verify(self, group: list[Unit], view: str, budget: int) -> list[list[Unit]]:
        if len(group) == 1 or self.additive:  # additive: the estimate is the count
            return [group]
        text = SPAN_JOINER.join(u.text(view) for u in group)
        if self.count(text) <= budget:
            return [group]
        mid = len(group) // 2
        return self._verify(group[:mid], view, budget) + self._verify(group[mid:], view, budget)


# ---------------------------------------------------------------------- the packed strategy

ALL_CONTEXT_FIELDS = ("title", "issuer", "period", "doc_type", "section", "speaker")


def _kind_of(units: list[Unit]) -> str:
    kinds = {u.kind for u in units}
    if len(kinds) == 1:
        return next(iter(kinds))
    return "mixed"


def units_to_pieces(groups: list[list[Unit]]) -> list[Piece]:
    out: list[Piece] = []
    for g in groups:
        spans = sorted({sp for u in g for sp in u.spans})
        ids = list(dict.fromkeys(i for u in g for i in u.block_ids))  # first occurrences, in order
        parent = g[0].parent_id if all(u.parent_id == g[0].parent_id for u in g) else None
        out.append(Piece(spans, _kind_of(g), g[0].section_path, parent, ids))
    return out


class PackedParams(StrategyParams):
    budget: int = Field(0, ge=0)   # tokens per chunk; 0 = the model limit minus a margin
    reserve_header: bool = True    # leave room for the fullest context header
    attach_notes: bool = True      # a block carries the footnotes it cites

    @model_validator(mode="after")
    def _budget_within_model_limit(self) -> "PackedParams":
        limit = token_counter().max_tokens  # the packaged model: a run's own model is checked when packing
        if self.budget > limit:
            raise field_error("budget", f"expected at most the model limit {limit}", self.budget)
        return self


class Packed(Strategy):
    """Token-budgeted structure packing: structure units (paragraphs, lists, notes, turns,
    whole tables with caption and cited notes) packed up to the model budget within a
    section; a table over the budget becomes row groups repeating caption, header and
    cited notes; a paragraph over it becomes sentences; a sentence or row over it becomes
    word-aligned token windows. No chunk exceeds the budget, and no text is cut silently.

    ``budget`` 0 = model limit minus a margin (MiniLM 256 -> 240, 512 models -> 480).
    ``reserve_header``: leave room for the fullest context header (title, issuer, period,
    doc_type, section), so the chunks fit whether or not the chunk set adds a header."""

    name = "packed"
    family = "evidence"
    version = "2"  # 2: notes no row group carries are kept, not dropped
    Params = PackedParams

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        p = self.resolve(params)
        model_path = or_default(context).model_path
        packer = Packer.for_model(model_path, budget=p.budget)
        return pack_document(doc, meta, packer, reserve_header=p.reserve_header, attach_notes=p.attach_notes,
                             model_path=model_path)


def pack_document(doc: ParsedDocument, meta: dict[str, Any], packer: Packer, reserve_header: bool = True,
                  attach_notes: bool = True, model_path: str | None = None) -> list[Piece]:
    """The document's structure units, packed section by section; a refused unit is split by
    structure (paragraph -> sentences -> token windows) and the section packed again."""
    doc_packer = _DocumentPacker(doc, meta, packer, reserve_header, attach_notes, model_path)
    groups: list[list[Unit]] = []
    for units in doc_packer.sections():
        groups.extend(doc_packer.pack_section(units))
    groups.sort(key=lambda g: g[0].spans[0][0])
    return units_to_pieces(groups)


def _table_captions(doc: ParsedDocument) -> dict[str, str]:
    """Caption block id -> its table's block id (a caption travels with its table)."""
    captions = {}
    for t in doc.blocks:
        if t.kind == BlockKind.TABLE:
            cap = caption_block(doc, t)
            if cap is not None:
                captions[cap.block_id] = t.block_id
    return captions


class _DocumentPacker:
    """One document's units (what ``sections`` yields) and how a refused one is split."""

    def __init__(self, doc: ParsedDocument, meta: dict[str, Any], packer: Packer, reserve_header: bool,
                 attach_notes: bool, model_path: str | None):
        self.doc, self.meta, self.packer, self.view = doc, meta, packer, doc.view_text
        self.reserve_header, self.model_path = reserve_header, model_path
        self.notes = notes_by_mark(doc) if attach_notes else {}
        self.consumed: set[str] = set()

    def header(self, section_path: tuple[str, ...]) -> str:
        return context_header(self.meta, section_path, ALL_CONTEXT_FIELDS) if self.reserve_header else ""

    def windows(self, s: int, e: int, sec: tuple[str, ...], ids: list[str], kind: str, parent=None) -> list[Unit]:
        room = self.packer.source_budget(self.header(sec)) - self.packer.special
        return [Unit([(ws, we)], kind, list(ids), sec, parent, label="window")
                for ws, we in token_windows(self.view, s, e, max(8, room - 4), model_path=self.model_path)]

    def split_unit(self, u: Unit) -> list[Unit]:
        """A refused unit -> smaller units by structure (never truncated)."""
        sec = u.section_path
        if u.label == "paragraph" and u.parts:
            lead, (body_s, body_e), rest = u.parts["lead"], u.parts["body"], u.parts["notes"]
            sents = [Unit(((lead if k == 0 else []) + [(s, e)]), u.kind, list(u.block_ids), sec, u.parent_id,
                          label="sentence")
                     for k, (s, e) in enumerate(split_sentences(self.view, body_s, body_e))]
            notes_u = [Unit([sp], "note", list(u.block_ids), sec, u.parent_id, label="sentence") for sp in rest]
            if len(sents) <= 1 and not lead and not rest:
                return self.windows(body_s, body_e, sec, u.block_ids, u.kind, u.parent_id)
            return sents + notes_u
        if u.label == "sentence" and len(u.spans) > 1:
            return [Unit([sp], u.kind, list(u.block_ids), sec, u.parent_id, label="sentence") for sp in u.spans]
        out: list[Unit] = []
        for s, e in u.spans:
            out.extend(self.windows(s, e, sec, u.block_ids, u.kind, u.parent_id))
        return out

    def sections(self) -> list[list[Unit]]:
        """The document's units in reading order, one list per run of one section path:
        headings travel with what follows them, a caption with its table, a block with the
        notes it cites."""
        captions = _table_captions(self.doc)
        sections: list[list[Unit]] = []
        pending: list[Block] = []

        def add(u: Unit) -> None:
            if sections and sections[-1] and sections[-1][-1].section_path == u.section_path:
                sections[-1].append(u)
            else:
                sections.append([u])

        for b in self.doc.blocks:
            if b.kind == BlockKind.HEADING:
                pending.append(b)
                continue
            if b.kind == BlockKind.TABLE_ROW or b.block_id in self.consumed or b.attrs.get("furniture"):
                continue
            if b.kind == BlockKind.PARAGRAPH and b.block_id in captions:
                continue
            for u in (self.table_units(b, pending) if b.kind == BlockKind.TABLE else [self.block_unit(b, pending)]):
                add(u)
            pending = []
        if pending:
            add(Unit([(h.vstart, h.vend) for h in pending], "heading", [h.block_id for h in pending],
                     pending[0].section_path, None, "paragraph"))
        return sections

    def block_unit(self, b: Block, pending: list[Block]) -> Unit:
        """A text block with the headings above it and the notes it cites (printed after it)."""
        lead = [(h.vstart, h.vend) for h in pending]
        extra = cited_notes(b, self.notes) if self.notes else []
        extra = [n for n in extra if n.block_id not in self.consumed and n.seq > b.seq]
        self.consumed.update(n.block_id for n in extra)
        spans = lead + [(b.vstart, b.vend)] + [(n.vstart, n.vend) for n in extra]
        return Unit(spans, b.kind if b.kind != BlockKind.PARAGRAPH else "text",
                    [h.block_id for h in pending] + [b.block_id] + [n.block_id for n in extra], b.section_path,
                    None, "paragraph",
                    parts={"lead": lead, "body": (b.vstart, b.vend), "notes": [(n.vstart, n.vend) for n in extra]})

    def table_units(self, b: Block, pending: list[Block]) -> list[Unit]:
        """A table whole when it fits the budget, else row groups repeating its context."""
        doc, view, sec = self.doc, self.view, b.section_path
        parts = table_parts(doc, b)
        whole = table_piece(doc, parts, list(pending), self.notes)
        limit = self.packer.source_budget(self.header(sec))
        # each group counted once; the units keep their counts (this limit is the packer's budget for them)
        pk = self.packer
        measure = TableCounts(view, limit, pk.count_capped, pk.count_many, pk.special)
        if measure(whole.view_spans) <= limit or not parts.body_rows:
            self.consumed.update(whole.block_ids)
            return [Unit(list(whole.view_spans), "table", whole.block_ids, sec, b.block_id, "table", breakable=False,
                         tokens=measure(whole.view_spans))]
        # only what the row groups carry is consumed: a note no group attaches (e.g. one
        # cited by a row cut into token windows) is emitted where it stands

        def oversized(row: Block, fixed: list[tuple[int, int]]) -> list[Piece]:
            return [Piece(w.spans, "table_rows", sec, b.block_id, w.block_ids)
                    for w in self.windows(row.vstart, row.vend, sec, [row.block_id], "table_rows", b.block_id)]

        if pk.additive:
            measure.by_rows(parts.body_rows)
        units: list[Unit] = []
        carried: set[str] = set()
        for pc in row_group_pieces(doc, parts, list(pending), self.notes, measure, limit, oversized):
            carried.update(pc.block_ids)
            units.append(Unit(list(pc.view_spans), pc.kind, pc.block_ids, sec, b.block_id, "rows", breakable=False,
                              tokens=measure.known.get(tuple(pc.view_spans), 0)))
        self.consumed.update(carried)
        # context no group could carry (every row too big even alone) stays as its own units
        for ctx in [*pending, parts.caption, *parts.header_rows]:
            if ctx is not None and ctx.block_id not in carried:
                body = (ctx.vstart, ctx.vend)
                units.append(Unit([body], "text", [ctx.block_id], sec, b.block_id, "paragraph",
                                  parts={"lead": [], "body": body, "notes": []}))
        return units

    def pack_section(self, units: list[Unit]) -> list[list[Unit]]:
        """Refused units are split by structure, then the section is packed again."""
        head = self.header(units[0].section_path)
        for _ in range(6):
            res = self.packer.pack(units, self.view, head)
            if not res.refused:
                break
            refused = {id(u) for u in res.refused}
            units = [x for u in units for x in (self.split_unit(u) if id(u) in refused else [u])]
        else:
            res = self.packer.pack(units, self.view, head, strict=True)
        return res.groups
