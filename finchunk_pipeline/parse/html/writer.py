"""The parser's output as it grows: the view text, its offset runs to the raw HTML, the block
list, the heading path, and the footnote marks recently cited (mark -> citing block).

Both the block builder and the table emitter write through one ``BlockWriter``, so a block
is appended in one place; ``flush`` decides what a finished paragraph buffer is (heading,
footnote, list or paragraph)."""
from __future__ import annotations

import re
from typing import Any

from ...types.blocks import Block, BlockKind
from ...types.offsets import OffsetMap
from .atoms import Atoms

_PART = re.compile(r"^part\s+(?:i{1,3}|iv|v)\b", re.I)
_ITEM = re.compile(r"^item\s*\d{1,2}[a-z]?\s*[.:\-–—]", re.I)
_ITEM_LOOSE = re.compile(r"^item\s*\d{1,2}[a-z]?\b", re.I)
_NOTE_START = re.compile(r"^\s*(?:\(\s*(\d{1,2}|[a-z])\s*\)|(\d{1,2})(?=[\s.:)]|[A-Z])|([*†‡§]+))\s*\.?\s*(?=\S)")
_FURNITURE = re.compile(
    r"^(?:\d{1,3}|[ivxl]{1,5}|.{0,80}\|\s*\d{1,3}|page \d{1,3}(?: of \d+)?|table of contents)$", re.I)


class BlockWriter:
    def __init__(self, doc_id: str) -> None:
        self.doc_id = doc_id
        self.view: list[str] = []
        self.vlen = 0
        self.offsets = OffsetMap()
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []
        self.recent_cites: dict[str, str] = {}  # mark -> block_id that cited it

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(h for _, h in self.headings)

    def emit(self, buf: Atoms, sep: str = "\n\n") -> tuple[int, int]:
        """Append buf's atoms to the view (after ``sep`` unless the view is empty); return
        (vstart, vend)."""
        if self.vlen:
            self.view.append(sep)
            self.vlen += len(sep)
        vs = self.vlen
        self._emit_atoms(buf)
        return vs, self.vlen

    def _emit_atoms(self, buf: Atoms) -> None:
        v = self.vlen
        add = self.offsets.add
        n = len(buf.parts)
        for i in range(n):
            s = buf.parts[i]
            k = buf.kinds[i]
            if k == 0:
                add(v, buf.rs[i], len(s))
            elif k == 1:
                if i == n - 1 and i > 0:  # a block's last decoded entity maps to its ";"
                    add(v + len(s) - 1, buf.re[i] - 1, 1)
                else:
                    add(v, buf.rs[i], 1)
            v += len(s)
        self.view.extend(buf.parts)
        self.vlen = v

    def block(self, kind: str, vs: int, ve: int, attrs: dict[str, Any], parent: str | None = None,
              text: str = "") -> Block:
        """Append a block (raw offsets are filled in once the whole view is built)."""
        seq = len(self.blocks)
        b = Block(self.doc_id, f"{self.doc_id}#b{seq:05d}", seq, kind, 0, 0, vs, ve, text, self.path, parent, attrs)
        self.blocks.append(b)
        return b

    def flush(self, buf: Atoms, list_items: int = 0) -> None:
        """Emit a finished paragraph buffer as its block; buffers without a letter or digit
        (lone bullets, dashes, rules) are not blocks and stay out of the view."""
        if not buf.parts:
            return
        text = buf.text()
        if not any(c.isalnum() for c in text):
            return
        self._paragraph(buf, text, list_items)

    def _paragraph(self, buf: Atoms, text: str, list_items: int) -> None:
        level = buf.hlevel or heading_level(text, buf)
        marks = buf.marks()
        if level:
            while self.headings and self.headings[-1][0] >= level:
                self.headings.pop()
            self.headings.append((level, " ".join(text.split())))
            vs, ve = self.emit(buf)
            self.block(BlockKind.HEADING, vs, ve, {"level": level}, text=text)
            if level <= 2:
                self.recent_cites = {}
            return
        note = note_mark(text, buf, self.recent_cites)
        vs, ve = self.emit(buf)
        if note is not None:
            attrs: dict[str, Any] = {"mark": note}
            if note in self.recent_cites:
                attrs["refers_to"] = self.recent_cites[note]
            marks = [m for m in marks if m != note]
            if marks:
                attrs["cites"] = marks
            self.block(BlockKind.NOTE, vs, ve, attrs, text=text)
            return
        attrs = {}
        if marks:
            attrs["cites"] = marks
        if buf.li:
            attrs["items"] = max(1, list_items)
        if len(text) <= 100 and _FURNITURE.match(text):
            attrs["furniture"] = True  # page numbers / running footers: chunkers may skip them
        b = self.block(BlockKind.LIST if buf.li else BlockKind.PARAGRAPH, vs, ve, attrs, text=text)
        for m in marks:
            self.recent_cites[m] = b.block_id


def heading_level(text: str, buf: Atoms) -> int:
    """Heading level of a div-soup line: ``PART I`` 1, ``Item 7.`` 2, bold or ALL CAPS 3, else 0."""
    n = len(text)
    if n > 300 or not any(map(str.isalpha, text)):
        return 0
    if _PART.match(text) and n <= 150:
        return 1
    if _ITEM.match(text) and n <= 250:
        return 2
    if _ITEM_LOOSE.match(text) and buf.is_bold() and n <= 250:
        return 2
    if buf.is_bold() and not _NOTE_START.match(text):
        return 3
    if n > 100 or (text.isascii() and not text.isupper()):
        return 0  # too long, or an ASCII text with a lower-case letter: not ALL CAPS
    letters = [c for c in text if c.isalpha()]
    if len(letters) >= 6 and all(c.isupper() for c in letters) and not text.rstrip().endswith(
            (".", ",", ";")):
        return 3
    return 0


def note_mark(text: str, buf: Atoms, cited: dict[str, str]) -> str | None:
    """The mark of a footnote paragraph: a leading mark that was cited, or that is raised."""
    m = _NOTE_START.match(text)
    if not m:
        return None
    mark = m.group(1) or m.group(2) or m.group(3)
    first_sup = next((buf.sup[i] for i in range(len(buf.parts)) if buf.parts[i].strip()), False)
    if mark in cited or first_sup:
        return mark
    return None
