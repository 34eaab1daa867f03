"""Notes to the financial statements that qualify a figure far away from it.

A figure and its qualification are often sections apart: a paragraph says "set out in Note 6"
or "(refer to Note 7, Income Taxes)", a key-figures row "Operating profit" is explained in
"Note 4 — Operating profit". This module finds the note sections of a document (headings
"Note N …") and, for a chunk, the notes it refers to — by number in its text, or by a table
row label equal to a note's title — and returns each note's heading and opening text as exact
view spans, bounded in characters, to be attached to the chunk as extra spans.

The note word follows the document's language (``lang/current.py``): "Note 6" in English,
also "Nota 6" / "notas 6" in Spanish, Italian ("Nota"), French ("Note"), German
("Anmerkung", "Erläuterung"). English documents read exactly the English patterns.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..lang.current import current_language
from ..parse.footnotes import SUPERSCRIPTS
from ..types.blocks import Block, BlockKind, ParsedDocument

NOTE_HEADING = re.compile(r"^[#\s]*note\s+(\d{1,2})\b[\s.:\-–—]*(.*)$", re.I)
NOTE_REF = re.compile(r"\bnotes?\s+(\d{1,2})\b", re.I)
_WORDS = re.compile(r"[a-z]+")
# every NOTE_REF match holds "note" in some case (under re.I only ASCII n/o/t/e match them)
_NOTE_WORD = re.compile("[nN][oO][tT][eE]")
_NOTE_WORDS = {"es": r"notas?", "it": r"note|nota", "fr": r"notes?", "de": r"anmerkung(?:en)?|erläuterung(?:en)?"}
_PATTERNS: dict[str, tuple[re.Pattern, re.Pattern]] = {"en": (NOTE_HEADING, NOTE_REF)}


def note_patterns(language: str | None = None) -> tuple[re.Pattern, re.Pattern]:
    """(heading, reference) patterns of the note word of ``language`` (default: the current
    document's language), English ones included ("Note 6" is also written in Spanish text)."""
    language = language or current_language()
    if language not in _PATTERNS:
        words = _NOTE_WORDS.get(language)
        if words is None:
            return _PATTERNS["en"]
        _PATTERNS[language] = (
            re.compile(rf"^[#\s]*(?:note|{words})\s+(?:n[.º°]\s*)?(\d{{1,2}})\b[\s.:\-–—]*(.*)$", re.I),
            re.compile(rf"\b(?:notes?|{words})\s+(?:n[.º°]\s*)?(\d{{1,2}})\b", re.I))
    return _PATTERNS[language]


def may_refer(view: str, spans: list[tuple[int, int]]) -> bool:
    """Could the text at ``spans`` refer to a note by number? False only when the reference
    pattern is the English one and no span holds the word "note" (searched in place)."""
    if note_patterns()[1] is not NOTE_REF:
        return True
    search = _NOTE_WORD.search
    return any(search(view, s, e) for s, e in spans)


_MARKS_TO_SPACE = {ord(c): " " for c in SUPERSCRIPTS}


def title_key(text: str) -> str:
    """Comparable form of a note title or row label: lowercase words, marks dropped."""
    return " ".join(_WORDS.findall(text.translate(_MARKS_TO_SPACE).lower()))


@dataclass
class NoteSection:
    number: int
    title: str
    heading: Block
    spans: list[tuple[int, int]] = field(default_factory=list)  # heading + opening text, view coords
    block_ids: list[str] = field(default_factory=list)


def note_sections(doc: ParsedDocument, max_chars: int) -> tuple[dict[int, NoteSection], dict[str, NoteSection]]:
    """Note sections by number and by title key, each with at most ``max_chars`` of its
    heading and opening text (whole sentences). A note whose opening text does not fit (or
    that opens with a table) keeps only its heading and is not linked: a title alone adds
    characters, not evidence."""
    from .sentence import split_sentences

    heading_re = note_patterns()[0]
    by_number: dict[int, NoteSection] = {}
    blocks = doc.blocks
    for i, b in enumerate(blocks):
        if b.kind != BlockKind.HEADING:
            continue
        m = heading_re.match(b.text)
        if not m or int(m.group(1)) in by_number:
            continue
        note = NoteSection(int(m.group(1)), m.group(2).strip(), b, [(b.vstart, b.vend)], [b.block_id])
        room = max_chars - (b.vend - b.vstart)
        body = next((x for x in blocks[i + 1:i + 4]
                     if x.kind in (BlockKind.PARAGRAPH, BlockKind.LIST, BlockKind.NOTE)
                     and x.section_path[:len(b.section_path)] == b.section_path), None)
        if body is not None and room > 0:
            end = None
            for s, e in split_sentences(doc.view_text, body.vstart, body.vend):
                if e - body.vstart > room:
                    break
                end = e
            if end is not None:
                note.spans.append((body.vstart, end))
                note.block_ids.append(body.block_id)
        by_number[note.number] = note
    keyed = [(title_key(n.title), n) for n in by_number.values()]
    by_title = {key: n for key, n in keyed if key}
    return by_number, by_title


def referenced_notes(text: str, section_path: tuple[str, ...], by_number: dict[int, NoteSection],
                     by_title: dict[str, NoteSection] | None = None, labels: list[str] = (),
                     max_chars: int = 600) -> list[NoteSection]:
    """Notes a chunk refers to, in order, within ``max_chars`` of linked text in total; a
    note is never linked from inside itself."""
    found: list[NoteSection] = []
    for m in note_patterns()[1].finditer(text):
        note = by_number.get(int(m.group(1)))
        if note is not None and note not in found:
            found.append(note)
    for label in labels:
        note = (by_title or {}).get(title_key(label))
        if note is not None and note not in found:
            found.append(note)
    out, used = [], 0
    for note in found:
        if note.heading.section_path == section_path[:len(note.heading.section_path)]:
            continue  # the chunk is inside this note
        if len(note.spans) < 2:
            continue  # heading only
        size = sum(e - s for s, e in note.spans)
        if used + size > max_chars:
            continue
        out.append(note)
        used += size
    return out
