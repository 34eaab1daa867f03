"""Earnings-call transcript parser (doc_type earnings_call, format text or markdown).

The view is the raw text (identity offsets): ``raw[block.start:block.end] == block.text``.

Representation (chosen convention): **one TURN block per speaker turn**, from the speaker
line to the end of the turn's last paragraph (the speaker label is part of the block text,
so a retrieved turn always names its speaker). attrs: ``speaker``, ``role`` (operator /
analyst / executive), ``firm`` (analysts, when known), ``title`` (as printed, when given),
``turn_index`` (0-based, over the whole call) and ``n_paragraphs``.

Other blocks: the event title (first line, HEADING level 1), section headings (HEADING
level 2: Prepared Remarks / Presentation, Questions and Answers / Q&A, Call Participants,
...), and PARAGRAPH blocks for text outside turns (date lines, participant rosters).

Speaker lines are recognised in ``speakers.py``.

Roles: the operator; ``analyst`` when the title says analyst, the firm is not the issuer, the
operator introduced the speaker ("next question comes from Jane Doe with Morgan Stanley"),
or a participant roster lists them as analyst; ``executive`` for officer titles or the
issuer's own people. Unknown speakers: in Q&A, the one right after the operator is the
analyst asking; otherwise executive. A speaker keeps the first role established for them
by an explicit title / roster.
"""
from __future__ import annotations

from typing import Any

from ..hashing import sha256_text
from ..lang.codes import normalise
from ..lang.current import document_language
from ..types.blocks import Block, BlockKind, ParsedDocument
from ..types.offsets import OffsetMap
from .gcpause import without_gc
from .lines import line_spans
from .speakers import Speaker, clean_line, rule, speaker_of_line

VERSION = "1"
LANGUAGES = ("es",)  # languages with rules of their own: their blocks are stored apart (registry.key_for)
FORMATS = ("text", "markdown")  # earnings calls come as either
DOC_TYPES = ("earnings_call",)  # read ahead of the format's own parser (parse/registry.py)


@without_gc
def parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    with document_language(normalise((meta or {}).get("language"), f"document {doc_id}")):
        return _parse(doc_id, text, meta)


def _parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    """Learn who is who (rosters, operator intros), read the event title, then walk the call:
    section headings, turns, and paragraphs outside turns."""
    if text is None or not text.strip():
        raise ValueError(f"{doc_id}: transcript is empty")
    call = _Call(doc_id, text, str((meta or {}).get("issuer") or ""))
    call.learn_rosters_and_intros()
    i = call.read_event_title(call.next_nonblank(0))
    call.read_body(i)
    if not call.blocks:
        raise ValueError(f"{doc_id}: no blocks found in transcript")
    if call.turn_index == 0:
        call.warnings.append("no speaker turns recognised")
    return ParsedDocument(
        doc_id=doc_id, doc_sha=sha256_text(text), parser="transcript", parser_version=VERSION,
        view_text=text, offsets=OffsetMap.identity(len(text)), blocks=call.blocks, warnings=call.warnings,
    )


class _Call:
    """One transcript being read: its lines, the blocks so far, the heading path, and what is
    known about each speaker (lower name -> role, firm, title), which later lines read."""

    def __init__(self, doc_id: str, text: str, issuer: str):
        self.doc_id, self.text, self.issuer = doc_id, text, issuer
        self.lines = line_spans(text)
        self.n = len(self.lines)
        self.blank = [not self.line(k).strip() for k in range(self.n)]
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []
        self.warnings: list[str] = []
        self.known: dict[str, dict] = {}
        self.section = ""
        self.turn_index = 0
        self.prev_role: str | None = None

    # -- lines ------------------------------------------------------------------------------
    def line(self, k: int) -> str:
        return self.text[self.lines[k][0]:self.lines[k][1]]

    def next_nonblank(self, k: int) -> int:
        while k < self.n and self.blank[k]:
            k += 1
        return k

    def speaker_at(self, k: int) -> Speaker | None:
        return speaker_of_line(self.line(k), k + 1 >= self.n or self.blank[k + 1], self.known, self.issuer)

    def is_section(self, k: int) -> bool:
        c = clean_line(self.line(k))
        return bool(c) and len(c) <= 60 and bool(rule("section").match(c))

    # -- blocks -----------------------------------------------------------------------------
    def add(self, kind: str, s: int, e: int, attrs: dict[str, Any]) -> Block:
        """A block over raw [s, e), trimmed of surrounding whitespace, under the current headings."""
        text = self.text
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        seq = len(self.blocks)
        b = Block(self.doc_id, f"{self.doc_id}#b{seq:05d}", seq, kind, s, e, s, e, text[s:e],
                  tuple(h for _, h in self.headings), None, attrs)
        self.blocks.append(b)
        return b

    def heading(self, level: int, k: int) -> None:
        title = clean_line(self.line(k)).rstrip(":")
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, title))
        if level == 2:
            self.section = title
        self.add(BlockKind.HEADING, self.lines[k][0], self.lines[k][1], {"level": level})

    # -- speakers ---------------------------------------------------------------------------
    def learn(self, sp: Speaker) -> None:
        """The first explicit analyst / executive role given for a name is kept."""
        key = sp.name.lower()
        if sp.role in ("analyst", "executive") and key not in self.known:
            self.known[key] = {"role": sp.role, "firm": sp.firm, "title": sp.title}

    def learn_rosters_and_intros(self) -> None:
        """Pre-scan: "Name -- Title" lines in a participants section, and the operator's
        "next question comes from Jane Doe with Morgan Stanley", name people before they speak."""
        in_roster = False
        for k in range(self.n):
            c = clean_line(self.line(k))
            if not c:
                continue
            if rule("section").match(c):
                in_roster = bool(rule("participants").search(c))
                continue
            if in_roster:
                sp = speaker_of_line(self.line(k), True, {}, self.issuer)
                if sp is not None:
                    self.learn(sp)
                    continue
            for m in rule("_INTRO").finditer(c):
                key = m.group("name").lower()
                if key not in self.known:
                    self.known[key] = {"role": "analyst", "firm": m.group("firm").strip(), "title": None}

    def resolve(self, sp: Speaker) -> tuple[str, str | None, str | None]:
        """(role, firm, title) of a turn's speaker: what the line says, else what is known,
        else the Q&A rule (right after the operator in Q&A: the analyst asking) or executive."""
        self.learn(sp)
        info = self.known.get(sp.name.lower(), {})
        role = sp.role or info.get("role")
        if role is None:
            if rule("qa").search(self.section or "") and self.prev_role == "operator":
                role = "analyst"
            else:
                role = "executive"
            self.known.setdefault(sp.name.lower(), {"role": role, "firm": None, "title": None})
        elif sp.role and info.get("role") and info["role"] != sp.role and sp.role != "operator":
            role = info["role"] if info["role"] == "analyst" else sp.role
        return role, sp.firm or info.get("firm"), sp.title or info.get("title")

    # -- the walk ---------------------------------------------------------------------------
    def read_event_title(self, i: int) -> int:
        """The first non-blank line is the event title (HEADING 1) unless it is a speaker line
        or a section; returns the line the body starts at."""
        if i < self.n and not self.is_section(i) and self.speaker_at(i) is None \
                and len(clean_line(self.line(i))) <= 200:
            self.headings.clear()
            self.headings.append((1, clean_line(self.line(i))))
            self.add(BlockKind.HEADING, self.lines[i][0], self.lines[i][1], {"level": 1, "event_title": True})
            i += 1
        return i

    def read_body(self, i: int) -> None:
        roster_section = False
        while i < self.n:
            if self.blank[i]:
                i += 1
                continue
            if self.is_section(i):
                self.heading(2, i)
                roster_section = bool(rule("participants").search(clean_line(self.line(i))))
                i += 1
                continue
            sp = self.speaker_at(i)
            if roster_section and sp is not None and (sp.inline or sp.role == "operator" or sp.title is None
                                                      and sp.firm is None):
                roster_section = False  # the call itself starts
            if roster_section or sp is None:
                i = self.read_paragraph(i, roster_section)
            else:
                i = self.read_turn(i, sp)

    def read_paragraph(self, i: int, roster: bool) -> int:
        """Text outside any turn, or a participants roster (a LIST): up to the next blank line."""
        j = i + 1
        while j < self.n and not self.blank[j] and not self.is_section(j) and (
                roster or self.speaker_at(j) is None):
            j += 1
        self.add(BlockKind.LIST if roster else BlockKind.PARAGRAPH, self.lines[i][0], self.lines[j - 1][1], {})
        return j

    def read_turn(self, i: int, sp: Speaker) -> int:
        """A turn: the speaker line and the paragraphs after it, up to the next speaker line or section."""
        role, firm, title = self.resolve(sp)
        last, paras = self.turn_extent(i, sp.inline)
        attrs: dict[str, Any] = {"speaker": sp.name, "role": role, "turn_index": self.turn_index,
                                 "n_paragraphs": paras}
        if firm:
            attrs["firm"] = firm
        if title:
            attrs["title"] = title
        if paras == 0:
            self.warnings.append(f"speaker line without text at line {i + 1}: {sp.name}")
        self.add(BlockKind.TURN, self.lines[i][0], self.lines[last][1], attrs)
        self.turn_index += 1
        self.prev_role = role
        return last + 1

    def turn_extent(self, i: int, inline: bool) -> tuple[int, int]:
        """(last non-blank line, number of paragraphs) of the turn whose speaker line is ``i``."""
        j, last = i + 1, i
        paras = 1 if inline else 0
        in_para = inline
        while j < self.n:
            if self.blank[j]:
                in_para = False
                j += 1
                continue
            if self.is_section(j) or self.speaker_at(j) is not None:
                break
            if not in_para:
                paras += 1
                in_para = True
            last = j
            j += 1
        return last, paras
