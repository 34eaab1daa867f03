"""Markdown parser: headings, paragraphs, pipe tables (header + rows), footnotes, lists.

The view is the raw text itself (identity offsets). Blocks never include the blank lines
around them, so ``raw[block.start:block.end] == block.text``.
"""
from __future__ import annotations

import re
from typing import Any

from ..storage import sha256_text
from .footnotes import cited_marks, note_mark
from .gcpause import without_gc
from .lines import UNIT
from .model import Block, BlockKind, ParsedDocument
from .offsets import OffsetMap

VERSION = "2"  # 2: shared unit pattern (also "in millions" without parentheses)

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+•]|\d{1,3}[.)])\s+\S")


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, end excluding the newline."""
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        out.append((pos, pos + len(stripped)))
        pos += len(line)
    return out


def _cells(row: str) -> list[str]:
    s = row.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


class _Builder:
    def __init__(self, doc_id: str, text: str):
        self.doc_id, self.text = doc_id, text
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []  # (level, text)

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(h for _, h in self.headings)

    def add(self, kind: str, start: int, end: int, parent_id: str | None = None,
            attrs: dict[str, Any] | None = None, path: tuple[str, ...] | None = None) -> Block:
        start, end = _trim(self.text, start, end)
        seq = len(self.blocks)
        body = self.text[start:end]
        attrs = dict(attrs or {})
        if kind != BlockKind.NOTE:
            marks = cited_marks(body)
            if marks:
                attrs.setdefault("cites", marks)
        block = Block(
            doc_id=self.doc_id, block_id=f"{self.doc_id}#b{seq:05d}", seq=seq, kind=kind,
            start=start, end=end, vstart=start, vend=end, text=body,
            section_path=self.path if path is None else path, parent_id=parent_id, attrs=attrs,
        )
        self.blocks.append(block)
        return block


@without_gc
def parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    if not text.strip():
        raise ValueError(f"{doc_id}: document text is empty")
    b = _Builder(doc_id, text)
    lines = _lines(text)
    warnings: list[str] = []
    i, n = 0, len(lines)

    def line(k: int) -> str:
        s, e = lines[k]
        return text[s:e]

    while i < n:
        s, e = lines[i]
        cur = text[s:e]
        if not cur.strip():
            i += 1
            continue
        m = _HEADING.match(cur)
        if m:
            level, title = len(m.group(1)), m.group(2).strip()
            while b.headings and b.headings[-1][0] >= level:
                b.headings.pop()
            b.headings.append((level, title))
            b.add(BlockKind.HEADING, s, e, attrs={"level": level})
            i += 1
            continue
        if cur.lstrip().startswith("|"):
            j = i
            while j < n and line(j).lstrip().startswith("|"):
                j += 1
            _table(b, text, lines, i, j, warnings)
            i = j
            continue
        if note_mark(cur) is not None:
            # one note per line: footnotes printed below a table are often not blank-separated
            b.add(BlockKind.NOTE, s, e, attrs={"mark": note_mark(cur)})
            i += 1
            continue
        if _LIST_ITEM.match(cur):
            j = i + 1
            while j < n and line(j).strip() and (_LIST_ITEM.match(line(j)) or line(j).startswith((" ", "\t"))):
                j += 1
            items = sum(1 for k in range(i, j) if _LIST_ITEM.match(line(k)))
            b.add(BlockKind.LIST, s, lines[j - 1][1], attrs={"items": items})
            i = j
            continue
        j = i + 1
        while j < n:
            nxt = line(j)
            if (not nxt.strip() or _HEADING.match(nxt) or nxt.lstrip().startswith("|")
                    or note_mark(nxt) is not None or _LIST_ITEM.match(nxt)):
                break
            j += 1
        b.add(BlockKind.PARAGRAPH, s, lines[j - 1][1])
        i = j

    return ParsedDocument(
        doc_id=doc_id, doc_sha=sha256_text(text), parser="markdown", parser_version=VERSION,
        view_text=text, offsets=OffsetMap.identity(len(text)), blocks=b.blocks, warnings=warnings,
    )


def _table(b: _Builder, text: str, lines, i: int, j: int, warnings: list[str]) -> None:
    rows = list(range(i, j))
    sep = next((k for k in rows if _TABLE_SEP.match(text[lines[k][0]:lines[k][1]])), None)
    header_rows = rows[: sep - i] if sep is not None else []
    if sep is None:
        warnings.append(f"table at line {i + 1} has no header separator row")
    start, end = lines[i][0], lines[j - 1][1]
    attrs: dict[str, Any] = {}
    if header_rows:
        hs, he = lines[header_rows[0]][0], lines[header_rows[-1]][1]
        attrs["header"] = text[hs:he]
        attrs["header_vspan"] = [hs, he]
        cols = [_cells(text[lines[k][0]:lines[k][1]]) for k in header_rows]
        width = max(len(c) for c in cols)
        attrs["columns"] = [
            " ".join(c[x] for c in cols if x < len(c) and c[x]).strip() for x in range(width)
        ]
    # a caption: the paragraph right above the table, when it names a unit or ends with ':'
    prev = b.blocks[-1] if b.blocks else None
    if prev is not None and prev.kind == BlockKind.PARAGRAPH and len(prev.text) < 300:
        if prev.text.rstrip().endswith(":") or UNIT.search(prev.text):
            attrs["caption"] = prev.text
    unit = UNIT.search(attrs.get("header", "")) or (UNIT.search(attrs["caption"]) if "caption" in attrs else None)
    if unit:
        attrs["unit"] = unit.group(0)
    table = b.add(BlockKind.TABLE, start, end, attrs=attrs)
    cites: list[str] = []
    for k in rows:
        if k == sep:
            continue
        rs, re_ = lines[k]
        row = b.add(BlockKind.TABLE_ROW, rs, re_, parent_id=table.block_id,
                    attrs={"cells": _cells(text[rs:re_]), "is_header": k in header_rows})
        for mark in row.attrs.get("cites", []):
            if mark not in cites:
                cites.append(mark)
    if cites:
        table.attrs["cites"] = cites
