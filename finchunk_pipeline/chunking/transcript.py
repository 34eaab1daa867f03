"""Earnings-call transcripts: question and answer stay together, speakers stay labelled.

- Turns come from TURN blocks (attrs speaker / role / firm, written by parse/transcript.py);
  paragraphs that follow a turn without a label continue it. Documents parsed without
  TURN blocks fall back to the speaker labels at the start of paragraphs
  (``Name -- Title: ...``, ``Name -- Analyst, Firm: ...``, ``Operator: ...``).
- An exchange = an analyst's question (with the operator's introduction of the analyst,
  when in the same section), the answers, and the same analyst's follow-ups and
  interruptions, in their order. A short exchange is one chunk.
- A long exchange splits at paragraph boundaries up to ``max_chars``. A piece that does
  not start with a speaker label gets the event and the speaker(s) as embedding-text
  context (never as source text), so an answer's later paragraphs keep who said them and
  to whom, and an analyst's words are never presented as management's.
- The chunk kind lists the roles it contains in order, e.g. ``turns:analyst+executive``,
  and the section path ends with the speakers, e.g. ``Q&A: Ines Ridley (analyst, ...)``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from ..types.blocks import Block, BlockKind, ParsedDocument
from .context import Piece, headings_piece
from .options import StrategyParams
from .strategy import Strategy
from .strategy_context import ChunkingContext
from .structure import Structure

_LABEL = re.compile(r"^\s*(?P<label>Operator|(?P<name>[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,4})\s+(?:--|—|–)\s+"
                    r"(?P<title>[^:\n]{2,80})):\s")
ANALYST, EXECUTIVE, OPERATOR = "analyst", "executive", "operator"


@dataclass
class Turn:
    speaker: str
    role: str
    firm: str
    section_path: tuple[str, ...]
    paras: list[tuple[int, int]] = field(default_factory=list)   # view spans, paragraph by paragraph
    block_ids: list[str] = field(default_factory=list)
    title: str = ""

    @property
    def who(self) -> str:
        extra = ", ".join(x for x in (self.title if self.role != ANALYST else "", self.firm) if x)
        return f"{self.speaker} ({self.role}{', ' + extra if extra else ''})"


def _paragraphs(view: str, s: int, e: int) -> list[tuple[int, int]]:
    out, pos = [], s
    for m in re.finditer(r"\n\s*\n", view[s:e]):
        out.append((pos, s + m.start()))
        pos = s + m.end()
    out.append((pos, e))
    return [(a, b) for a, b in out if view[a:b].strip()]


def _label_turn(b: Block) -> Turn | None:
    m = _LABEL.match(b.text)
    if not m:
        return None
    if m.group("label") == "Operator":
        return Turn("Operator", OPERATOR, "", b.section_path)
    title = m.group("title").strip()
    if title.lower().startswith("analyst"):
        firm = title.split(",", 1)[1].strip() if "," in title else ""
        return Turn(m.group("name"), ANALYST, firm, b.section_path)
    return Turn(m.group("name"), EXECUTIVE, "", b.section_path, title=title)


def extract_turns(doc: ParsedDocument) -> list[Turn | Block]:
    """Turns and the other blocks (headings, paragraphs outside any turn), in order."""
    view = doc.view_text
    has_turns = any(b.kind == BlockKind.TURN for b in doc.blocks)
    out: list[Turn | Block] = []
    cur: Turn | None = None
    for b in doc.blocks:
        if b.kind == BlockKind.TURN or (not has_turns and b.kind == BlockKind.PARAGRAPH and _label_turn(b)):
            if b.kind == BlockKind.TURN:
                a = b.attrs
                role = str(a.get("role") or "").lower() or EXECUTIVE
                t = Turn(str(a.get("speaker") or "Unknown speaker"), role, str(a.get("firm") or ""),
                         b.section_path, title=str(a.get("title") or ""))
                lt = _label_turn(b)
                if lt is not None and not t.title and role == EXECUTIVE:
                    t.title = lt.title
            else:
                t = _label_turn(b)  # type: ignore[assignment]
            t.paras = _paragraphs(view, b.vstart, b.vend)
            t.block_ids = [b.block_id]
            out.append(t)
            cur = t
            continue
        if b.kind in (BlockKind.PARAGRAPH, BlockKind.LIST, BlockKind.NOTE) and cur is not None \
                and b.section_path == cur.section_path:
            cur.paras.extend(_paragraphs(view, b.vstart, b.vend))  # an unlabelled continuation
            cur.block_ids.append(b.block_id)
            continue
        if b.kind == BlockKind.HEADING:
            cur = None
        out.append(b)
    return out


def exchanges(items: list[Turn | Block]) -> list[list[Turn] | Block]:
    """Group turns into exchanges (see module doc); other blocks stay as they are."""
    out: list[list[Turn] | Block] = []
    cur: list[Turn] | None = None

    def analyst_of(ex: list[Turn]) -> str | None:
        return next((t.speaker for t in ex if t.role == ANALYST), None)

    for k, it in enumerate(items):
        if not isinstance(it, Turn):
            cur = None
            out.append(it)
            continue
        same_sec = cur is not None and cur[-1].section_path == it.section_path
        if it.role == OPERATOR:
            cur = [it]
            out.append(cur)
            continue
        if it.role == ANALYST:
            if cur is not None and same_sec and (analyst_of(cur) in (None, it.speaker)) and \
                    (analyst_of(cur) is not None or all(t.role == OPERATOR for t in cur)):
                cur.append(it)
            else:
                cur = [it]
                out.append(cur)
            continue
        # executive / other: answers join the exchange holding a question
        if cur is not None and same_sec and analyst_of(cur) is not None:
            cur.append(it)
        else:
            cur = [it]
            out.append(cur)
    return out


def _kind(turns: list[Turn]) -> str:
    roles: list[str] = []
    for t in turns:
        if t.role not in roles:
            roles.append(t.role)
    return "turns:" + "+".join(roles)


def _speakers(turns: list[Turn]) -> str:
    seen: list[str] = []
    for t in turns:
        if t.role != OPERATOR and t.who not in seen:
            seen.append(t.who)
    if not seen:
        seen = [turns[0].who]
    return "; ".join(seen)


class TranscriptParams(StrategyParams):
    max_chars: int = Field(1500, ge=100)


class Transcript(Strategy):
    name = "transcript"
    family = "evidence"
    version = "1"
    uses = ("structure",)  # documents that are not transcripts
    Params = TranscriptParams

    def char_bound(self, params, doc=None, meta=None):
        """max_chars for a transcript; structure's bound for a document without turns."""
        max_chars = self.resolve(params).max_chars
        structure = Structure().char_bound({"max_chars": min(max_chars, 800)})
        if doc is None:
            return max(max_chars, structure)
        return max_chars if any(isinstance(it, Turn) for it in extract_turns(doc)) else structure

    def table_char_bound(self, params, doc=None, meta=None):
        """Structure's table allowance for a document without turns (none for a transcript)."""
        max_chars = self.resolve(params).max_chars
        structure = Structure().table_char_bound({"max_chars": min(max_chars, 800)})
        if doc is None:
            return structure
        return None if any(isinstance(it, Turn) for it in extract_turns(doc)) else structure

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        max_chars = self.resolve(params).max_chars
        items = extract_turns(doc)
        if not any(isinstance(it, Turn) for it in items):
            return Structure().pieces(doc, {"max_chars": min(max_chars, 800)}, meta, context=context)
        event = str(meta.get("title") or "").strip() or next(
            (b.text for b in doc.blocks if b.kind == BlockKind.HEADING), doc.doc_id)
        out: list[Piece] = []
        pending: list[Block] = []   # headings waiting for content
        for item in exchanges(items):
            if isinstance(item, Block):
                if item.kind == BlockKind.HEADING:
                    pending.append(item)
                elif item.kind not in (BlockKind.TABLE_ROW,) and not item.attrs.get("furniture"):
                    out.append(_block_piece(item, pending))
                    pending = []
                continue
            out.extend(_exchange_pieces(item, pending, event, max_chars))
            pending = []
        if pending:
            out.append(headings_piece(pending))
        return out


# one paragraph of an exchange: (its turn, its view span, whether it is the turn's first paragraph)
_Unit = tuple[Turn, tuple[int, int], bool]


def _block_piece(b: Block, lead: list[Block]) -> Piece:
    """A block outside any turn, with the headings above it."""
    spans = [(h.vstart, h.vend) for h in lead] + [(b.vstart, b.vend)]
    return Piece(spans, "text" if b.kind == BlockKind.PARAGRAPH else b.kind, b.section_path, None,
                 [h.block_id for h in lead] + [b.block_id])


def _exchange_pieces(turns: list[Turn], lead: list[Block], event: str, max_chars: int) -> list[Piece]:
    """One exchange, whole or in paragraph groups up to max_chars; the first piece carries the
    headings above it, a piece not opening with a speaker's label names them in its context."""
    sec = turns[0].section_path
    qa = "Q&A: " if any(t.role == ANALYST for t in turns) else ""
    out: list[Piece] = []
    for gi, g in enumerate(_paragraph_groups(turns, max_chars)):
        g_turns: list[Turn] = []
        for t, _, _ in g:
            if t not in g_turns:
                g_turns.append(t)
        head = lead if gi == 0 else []
        spans = [(h.vstart, h.vend) for h in head] + [sp for _, sp, _ in g]
        ids = [h.block_id for h in head] + list(dict.fromkeys(i for t in g_turns for i in t.block_ids))
        context = _continuation(event, sec, turns, g, g_turns, later=gi > 0)
        out.append(Piece(spans, _kind(g_turns), tuple(sec) + (qa + _speakers(g_turns),), None, ids, context=context,
                         speaker=_speakers(g_turns)))
    return out


def _paragraph_groups(turns: list[Turn], max_chars: int) -> list[list[_Unit]]:
    """The exchange's paragraphs, in order, cut into groups spanning at most max_chars (a
    paragraph longer than that is a group alone)."""
    groups: list[list[_Unit]] = []
    cur: list[_Unit] = []
    cur_start = 0
    for u in ((t, sp, i == 0) for t in turns for i, sp in enumerate(t.paras)):
        if cur and u[1][1] - cur_start > max_chars:
            groups.append(cur)
            cur = []
        if not cur:
            cur_start = u[1][0]
        cur.append(u)
    if cur:
        groups.append(cur)
    return groups


def _continuation(event: str, sec: tuple[str, ...], turns: list[Turn], g: list[_Unit], g_turns: list[Turn],
                  later: bool) -> str:
    """Embedding-text context naming the speakers whose label is not in this piece (and the
    analyst they answer); empty for a piece that opens the exchange with every label."""
    unlabelled = [t for t in g_turns if not any(first for tt, _, first in g if tt is t)]
    if not (unlabelled or later):
        return ""
    said = "; ".join(f"{t.who}" for t in (unlabelled or g_turns))
    asker = next((t for t in turns if t.role == ANALYST), None)
    to = f", answering {asker.who}" if asker is not None and asker not in g_turns else ""
    return f"{event} — {' > '.join(sec)} — continued: {said}{to}".replace(" —  — ", " — ")
