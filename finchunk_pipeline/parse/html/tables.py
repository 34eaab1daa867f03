"""Tables: the cells the block builder collects (``Table``), and how a finished table becomes
blocks — one TABLE block and one TABLE_ROW per non-empty row, or paragraphs for a
single-column layout table, or notes for a "(1) | text" footnote table.

Empty spacer cells are dropped, ``$`` cells joined with the following number and ``%``/``)``
cells with the preceding one. Rows above the first data row are header rows; ``columns``
combines multi-row headers per logical column (logical columns are clusters of grid
positions used by data rows)."""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...types.blocks import Block, BlockKind
from ..lines import UNIT
from .atoms import MARK_FIND, MARKLIKE, Atoms
from .elements import colspan_of
from .writer import BlockWriter

CURRENCY = frozenset(("$", "US$", "€", "£", "¥", "C$", "A$"))
TRAILERS = frozenset(("%", ")", "%)", ")%", "pts", "bps"))
_VALUE = re.compile(r"^[$€£¥]?\s*[(\-–—+]?\s*[$€£¥]?\s*\d[\d,]*(?:\.\d+)?\s*\)?\s*%?\)?$|^[—–-]+$|^n/?m$", re.I)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_PERIOD_HDR = re.compile(r"\b(?:ended|as of|months|year|quarter|at (?:june|december|march|september))\b", re.I)

Cell = tuple[Atoms, int, int]  # merged cell: (atoms, first grid column, grid column after it)


class Table:
    """The rows and cells of the table being read; ``nested`` counts tables inside a cell
    (their text joins the cell)."""

    __slots__ = ("rows", "row", "cell", "caption", "nested", "raw_pos")

    def __init__(self, raw_pos: int) -> None:
        self.rows: list[list[Atoms]] = []
        self.row: list[Atoms] | None = None
        self.cell: Atoms | None = None
        self.caption: Atoms | None = None
        self.nested = 0
        self.raw_pos = raw_pos

    def start_row(self) -> None:
        self.end_cell()
        if self.row is not None:
            self.rows.append(self.row)
        self.row = []

    def start_cell(self, attrs: str | None, th: bool = False) -> Atoms:
        self.end_cell()
        if self.row is None:
            self.row = []
        c = Atoms()
        c.th = th
        c.colspan = colspan_of(attrs)
        self.cell = c
        return c

    def end_cell(self) -> None:
        if self.cell is not None:
            if self.row is None:
                self.row = []
            self.row.append(self.cell)
            self.cell = None

    def end_row(self) -> None:
        self.end_cell()
        if self.row is not None:
            self.rows.append(self.row)
            self.row = None


def merge_cells(row: list[Atoms]) -> list[Cell]:
    """Non-empty cells of a row as (atoms, grid_start, grid_end), "$" / "%" cells joined."""
    out: list[Cell] = []
    g = 0
    pending: tuple[Atoms, int] | None = None  # a "$" cell waiting for its number
    for c in row:
        g0, g1 = g, g + c.colspan
        g = g1
        if not c.parts:
            continue
        txt = c.text()
        if txt in CURRENCY:
            if pending is not None:
                out.append((pending[0], pending[1], g0))
            pending = (_copy(c), g0)
            continue
        if pending is not None:
            nb, p0 = pending
            pending = None
            nb.extend(c)
            out.append((nb, p0, g1))
            continue
        if out and (txt in TRAILERS or (all(c.sup) and MARKLIKE.match(txt))):
            pb, p0, _ = out[-1]
            pb.extend(c, sep=None if txt in TRAILERS else " ")
            out[-1] = (pb, p0, g1)
            continue
        out.append((_copy(c), g0, g1))
    if pending is not None:
        out.append((pending[0], pending[1], g))
    return out


def _copy(c: Atoms) -> Atoms:
    nb = Atoms()
    nb.extend(c)
    nb.th = c.th
    return nb


def is_value(s: str) -> bool:
    s = s.strip()
    return bool(_VALUE.match(s)) and not _YEAR.match(s)


def emit_table(out: BlockWriter, table: Table, flush: Callable[[Atoms], None]) -> None:
    """Turn a finished table into blocks; ``flush`` emits a buffer as a paragraph."""
    rows = [r for r in (merge_cells(r) for r in table.rows) if r]
    caption = table.caption if table.caption is not None and table.caption.parts else None
    if not rows:
        if caption is not None:
            flush(caption)
        return
    if max(len(r) for r in rows) == 1:  # layout table: one column of text -> paragraphs
        for r in rows:
            flush(r[0][0])
        return
    if all(len(r) == 2 and MARKLIKE.match(r[0][0].text()) for r in rows) and len(rows) <= 30:
        emit_footnote_rows(out, rows)
        return
    emit_data_table(out, rows, caption)


def emit_footnote_rows(out: BlockWriter, rows: list[list[Cell]]) -> None:
    """A "(1) | text" table: one NOTE per row, referring to the block that cited its mark."""
    for r in rows:
        b = Atoms()
        b.extend(r[0][0])
        b.extend(r[1][0], sep=" ")
        mark = MARK_FIND.findall(r[0][0].text())
        vs, ve = out.emit(b)
        attrs: dict[str, Any] = {"mark": mark[0] if mark else r[0][0].text().strip()}
        if attrs["mark"] in out.recent_cites:
            attrs["refers_to"] = out.recent_cites[attrs["mark"]]
        out.block(BlockKind.NOTE, vs, ve, attrs, text=b.text())


def header_row_count(rows: list[list[Cell]]) -> int:
    """How many rows at the top are headers: those above the first data row (a row with a
    value after its label, or a lone label at the labels' indentation)."""
    texts = [[c[0].text() for c in r] for r in rows]
    label_start = min(r[0][1] for r in rows)

    def is_data(i: int) -> bool:
        r = texts[i]
        if any(is_value(x) for x in r[1:]):
            return True
        if len(r) == 1 and _PERIOD_HDR.search(r[0]) and i < 3:
            return False
        return len(r) == 1 and not rows[i][0][0].th and rows[i][0][1] == label_start
    first_data = next((i for i in range(len(rows)) if is_data(i)), len(rows))
    if first_data == len(rows) or first_data > 4:
        nh = 1 if all(c[0].th or c[0].is_bold() for c in rows[0]) and len(rows) > 1 else 0
    else:
        nh = first_data
    if any(c[0].th for c in rows[0]) and nh == 0 and len(rows) > 1:
        nh = 1
    return nh


def logical_columns(rows: list[list[Cell]], nh: int) -> list[list[int]]:
    """Clusters [start, end) of the grid intervals that data rows use (all rows if none)."""
    intervals = sorted((g0, g1) for r in rows[nh:] if len(r) >= 2 for _, g0, g1 in r)
    if not intervals:
        intervals = sorted((g0, g1) for r in rows for _, g0, g1 in r)
    clusters: list[list[int]] = []
    for g0, g1 in intervals:
        if clusters and g0 < clusters[-1][1]:
            clusters[-1][1] = max(clusters[-1][1], g1)
        else:
            clusters.append([g0, g1])
    return clusters


def column_headers(rows: list[list[Cell]], nh: int, clusters: list[list[int]]) -> list[str]:
    """Each logical column's header: the texts of the header cells over it, top to bottom."""
    columns: list[list[str]] = [[] for _ in clusters]
    for r in rows[:nh]:
        for buf, g0, g1 in r:
            txt = " ".join(buf.text().split())
            for k, (c0, c1) in enumerate(clusters):
                if g0 < c1 and c0 < g1 and (not columns[k] or columns[k][-1] != txt):
                    columns[k].append(txt)
    return [" ".join(c) for c in columns]


def caption_of(blocks: list[Block], caption: Atoms | None) -> str | None:
    """The table's ``<caption>``, else a heading or a "...:" paragraph right above it."""
    if caption is not None:
        return " ".join(caption.text().split())
    for blk in reversed(blocks[-2:]):
        if blk.kind == BlockKind.HEADING:
            return blk.text
        if blk.kind != BlockKind.PARAGRAPH or len(blk.text) > 200:
            return None
        if blk.text.rstrip().endswith(":"):
            return blk.text
    return None


def unit_of(sources: list[str]) -> str | None:
    """The first unit ("in millions" ...) named by the header, the caption or the text above."""
    for s in sources:
        m = UNIT.search(s or "")
        if m:
            return m.group(0)
    return None


@dataclass
class _Row:
    vstart: int
    vend: int
    text: str
    attrs: dict[str, Any]


def emit_rows(out: BlockWriter, rows: list[list[Cell]], nh: int, clusters: list[list[int]]) -> list[_Row]:
    """Append the rows to the view (cells joined by " | ", rows by a newline)."""
    starts = [c[0] for c in clusters]
    emitted: list[_Row] = []
    for i, r in enumerate(rows):
        rb = Atoms()
        for buf, _, _ in r:
            rb.extend(buf, sep=" | ")
        vs, ve = out.emit(rb, sep="\n" if i else "\n\n")
        attrs: dict[str, Any] = {
            "cells": [" ".join(b.text().split()) for b, _, _ in r],
            "cols": [max(0, bisect_right(starts, g0) - 1) for _, g0, _ in r],
            "is_header": i < nh,
        }
        marks = rb.marks()
        if marks:
            attrs["cites"] = marks
        emitted.append(_Row(vs, ve, rb.text(), attrs))
    return emitted


def emit_data_table(out: BlockWriter, rows: list[list[Cell]], caption: Atoms | None) -> None:
    """A data table: the TABLE block (header, columns, unit, caption, cites), then its rows."""
    nh = header_row_count(rows)
    clusters = logical_columns(rows, nh)
    prev_text = [b.text for b in out.blocks[-3:]
                 if b.kind in (BlockKind.PARAGRAPH, BlockKind.HEADING) and len(b.text) <= 200]
    attrs: dict[str, Any] = {}
    cap = caption_of(out.blocks, caption)
    if cap is not None:
        attrs["caption"] = cap
    vs_table = out.vlen + (2 if out.vlen else 0)
    emitted = emit_rows(out, rows, nh, clusters)
    table = out.block(BlockKind.TABLE, vs_table, out.vlen, attrs, text="\n".join(r.text for r in emitted))
    if nh:
        attrs["header"] = "\n".join(r.text for r in emitted[:nh])
        attrs["header_vspan"] = [vs_table, emitted[nh - 1].vend]
    attrs["columns"] = column_headers(rows, nh, clusters)
    attrs["n_rows"] = len(rows)
    unit = unit_of([attrs.get("header", ""), attrs.get("caption", "")] + prev_text)
    if unit is not None:
        attrs["unit"] = unit
    cites: list[str] = []
    for r in emitted:
        for m in r.attrs.get("cites", ()):
            if m not in cites:
                cites.append(m)
    if cites:
        attrs["cites"] = cites
    for r in emitted:
        out.block(BlockKind.TABLE_ROW, r.vstart, r.vend, r.attrs, parent=table.block_id, text=r.text)
    for m in cites:
        out.recent_cites[m] = table.block_id
