"""The blocks of one document being built over an identity view (plain text, PDF text).

Kept apart from the parsers that fill it because both the text and the PDF parser number
blocks, trim them, give them their page and heading path, and remember which block cited a
footnote mark last (``recent``: a later note line with that mark refers to it) the same way.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any

from ..types.blocks import Block, BlockKind
from .footnotes import cite_starts
from .line_kinds import cites


class DocBuilder:
    """Blocks in document order; ``ff`` holds the offsets where a new page starts (the form
    feeds, or the page ends ``pages.page_layout`` found)."""

    def __init__(self, doc_id: str, text: str):
        self.doc_id, self.text = doc_id, text
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []
        self.ff = [m.start() for m in re.finditer("\f", text)] if "\f" in text else []
        self.recent: dict[str, str] = {}
        self._path: tuple[list, tuple[str, ...]] | None = None
        self._cite_at: list[int] | None = None

    def may_cite(self, start: int, end: int) -> bool:
        """``text[start:end]`` holds a character a footnote cite starts with (else
        ``cited_marks`` of it is [] without a search): one look over the whole text."""
        at = self._cite_at
        if at is None:
            at = self._cite_at = cite_starts(self.text)
        if not at:
            return False
        i = bisect_left(at, start)
        return i < len(at) and at[i] < end

    def page(self, pos: int) -> int:
        return 1 + bisect_right(self.ff, pos)

    @property
    def path(self) -> tuple[str, ...]:
        cached = self._path
        if cached is None or cached[0] != self.headings:  # recomputed only after a heading change
            cached = self._path = (list(self.headings), tuple(h for _, h in self.headings))
        return cached[1]

    def add(self, kind: str, start: int, end: int, attrs: dict[str, Any] | None = None,
            parent: str | None = None) -> Block:
        """A block over [start, end) trimmed of surrounding whitespace, under the current headings."""
        return self.add_owned(kind, start, end, dict(attrs or {}), parent)

    def add_owned(self, kind: str, start: int, end: int, attrs: dict[str, Any], parent: str | None = None) -> Block:
        """``add`` with ``attrs`` handed over: the block keeps that dict (not a copy)."""
        t = self.text
        if start < end and t[start].isspace():
            while start < end and t[start].isspace():
                start += 1
        if end > start and t[end - 1].isspace():
            while end > start and t[end - 1].isspace():
                end -= 1
        if "page" not in attrs:
            attrs["page"] = 1 + bisect_right(self.ff, start)
        seq = len(self.blocks)
        headings = self.headings
        cached = self._path
        if cached is None or cached[0] != headings:  # recomputed only after a heading change
            cached = self._path = (list(headings), tuple(h for _, h in headings))
        b = Block(self.doc_id, f"{self.doc_id}#b{seq:05d}", seq, kind, start, end, start, end, t[start:end],
                  cached[1], parent, attrs)
        self.blocks.append(b)
        return b

    def heading(self, level: int, start: int, end: int) -> None:
        title = " ".join(self.text[start:end].split())
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, title))
        self.add_owned(BlockKind.HEADING, start, end, {"level": level})
        self.recent = {}

    def paragraph(self, start: int, end: int, furniture: bool = False) -> Block:
        """A PARAGRAPH with the footnote marks it cites; later notes with those marks refer to it."""
        attrs: dict[str, Any] = {}
        marks = cites(self.text[start:end], self.may_cite(start, end))
        if marks:
            attrs["cites"] = marks
        if furniture:
            attrs["furniture"] = True
        b = self.add_owned(BlockKind.PARAGRAPH, start, end, attrs)
        for m in marks:
            self.recent[m] = b.block_id
        return b

    def note(self, mark: str, start: int, end: int, refers_to: str | None) -> Block:
        attrs = {"mark": mark}
        if refers_to:
            attrs["refers_to"] = refers_to
        return self.add_owned(BlockKind.NOTE, start, end, attrs)
