"""The structural enricher: offline, deterministic context for a chunk from the parsed blocks.

For each chunk it writes, one line each and in this order (a line is left out when the
document has nothing for it), at most ``max_chars`` characters in all:

    Document: <title> (<doc_type>)
    Issuer: <issuer> (<ticker>)
    Period: fiscal year <fiscal_year>, period ended <period_end>
    Section: <section path of the chunk, " > "-joined, the title left out>
    Table: <caption of each table the chunk touches (at most two)>
    Columns: <its column headers, " | "-joined (header rows and header-like first rows)>
    Unit: <its unit: "in millions", "€ million", "(in thousands)", ...>
    Introduced by: <the sentence that introduces the table: the last sentence of the
                    paragraph right above it, else the first paragraph below ending in ":">
    Notes: <titles of the notes the chunk refers to ("Note 7 — Borrowings")>
    Key terms: <the parent section's most distinctive words (tf x idf within the document)>

Everything comes from the document's metadata and its blocks in the block store; nothing is
invented, so the enrichment can only be as wrong as the parse (a heading mis-detected by the
parser gives a wrong section). Lines that do not fit in ``max_chars`` are dropped (the key
terms are shortened first, being last). Bump VERSION whenever the output changes.
"""
from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..types.blocks import Block, BlockKind, ParsedDocument

VERSION = "1"
MAX_TABLES = 2
INTRO_MAX_CHARS = 200

_UNIT = re.compile(
    r"\((?:[^()]{0,40}?)\b(?:thousands|millions|billions)\b[^()]{0,40}\)"
    r"|\b(?:in|amounts in|dollars in|\$ in|€ in)\s+(?:thousands|millions|billions)\b"
    r"|[$€£¥]\s?(?:thousand|million|billion|m|bn)s?\b"
    r"|\b(?:USD|EUR|GBP|CHF|JPY)\s?(?:thousand|million|billion|m|bn)s?\b"
    r"|\bin\s+(?:percent|%)", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z(\"'“])")
_WORD = re.compile(r"[a-z][a-z'\-]{2,}")
_NOTE_REF = re.compile(r"\bnotes?\s+(\d{1,2})\b", re.I)
_NOTE_HEADING = re.compile(r"^[#\s]*note\s+(\d{1,2})\b[\s.:\-–—]*(.*)$", re.I)
_MISSING = ("", "nan", "nat", "none", "<na>", "unknown")

STOP = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had
has have having he her here hers him his how if in into is it its itself just may me might more
most must my no nor not now of off on once only or other our ours out over own per same shall she
should so some such than that the their theirs them then there these they this those through to
too under until up upon us very via was we were what when where which while who whom why will
with within would you your yours
year years million millions billion billions thousand thousands total company company's
companies including included include includes related certain following follows respectively
see note notes table tables set sets out page
""".split())


def _known(value: Any) -> str:
    text = "" if value is None else str(value).strip()
    return "" if text.lower() in _MISSING else text


def period_text(meta: dict[str, Any]) -> str:
    parts = []
    fy = _known(meta.get("fiscal_year"))
    if fy:
        try:
            fy = str(int(float(fy)))
        except ValueError:
            pass
        parts.append(f"fiscal year {fy}")
    pe = _known(meta.get("period_end"))
    if pe:
        parts.append(f"period ended {pe[:10]}")
    return ", ".join(parts)


def _clean(text: str) -> str:
    return " ".join(str(text).replace("|", " ").split())


def _cells(row: Block) -> list[str]:
    cells = row.attrs.get("cells")
    if isinstance(cells, list):
        return [_clean(c) for c in cells]
    return [_clean(c) for c in row.text.strip().strip("|").split("|")]


def _last_sentence(text: str) -> str:
    text = " ".join(text.split())
    parts = [p for p in _SENTENCE_END.split(text) if p.strip()]
    out = parts[-1] if parts else text
    return out if len(out) <= INTRO_MAX_CHARS else out[:INTRO_MAX_CHARS].rsplit(" ", 1)[0] + " …"


@dataclass
class ChunkRef:
    """What the enricher reads of a chunk (a row of chunks.parquet)."""
    chunk_id: str
    view_spans: Sequence[tuple[int, int]]
    section_path: Sequence[str] = ()
    source_text: str = ""
    block_ids: Sequence[str] = field(default_factory=list)


class DocumentContext:
    """One parsed document's structure, indexed once for all its chunks."""

    def __init__(self, doc: ParsedDocument, meta: dict[str, Any], key_terms: int = 8):
        self.doc, self.meta, self.n_terms = doc, meta, key_terms
        self.blocks = [b for b in doc.blocks if b.vend > b.vstart]
        self.starts = [b.vstart for b in self.blocks]
        self.by_id = {b.block_id: b for b in doc.blocks}
        self.index = {id(b): i for i, b in enumerate(doc.blocks)}
        self.rows: dict[str, list[Block]] = {}
        for b in doc.blocks:
            if b.kind == BlockKind.TABLE_ROW and b.parent_id:
                self.rows.setdefault(b.parent_id, []).append(b)
        self.notes: dict[int, str] = {}
        for b in doc.blocks:
            m = _NOTE_HEADING.match(b.text) if b.kind == BlockKind.HEADING else None
            if m and int(m.group(1)) not in self.notes:
                self.notes[int(m.group(1))] = _clean(b.text.lstrip("#"))
        self._terms: dict[tuple, list[str]] = {}
        self._units: list[Counter] | None = None

    # -- blocks ------------------------------------------------------------------------
    def covered(self, view_spans: Sequence[tuple[int, int]]) -> list[Block]:
        out, seen = [], set()
        for s, e in view_spans:
            k = max(0, bisect_right(self.starts, s) - 1)
            while k < len(self.blocks) and self.blocks[k].vstart < e:
                b = self.blocks[k]
                if b.vend > s and b.block_id not in seen:
                    seen.add(b.block_id)
                    out.append(b)
                k += 1
        return out

    def tables(self, blocks: list[Block]) -> list[Block]:
        out: list[Block] = []
        for b in blocks:
            t = b if b.kind == BlockKind.TABLE else self.by_id.get(b.parent_id) if b.kind == BlockKind.TABLE_ROW else None
            if t is not None and t.kind == BlockKind.TABLE and t not in out:
                out.append(t)
        return out[:MAX_TABLES]

    # -- tables ------------------------------------------------------------------------
    def _neighbour_paragraphs(self, table: Block) -> tuple[Block | None, Block | None]:
        """The paragraph right above the table (same section) and the first paragraph after
        its rows and notes (same section)."""
        i = self.index.get(id(table))
        if i is None:
            return None, None
        blocks = self.doc.blocks
        before = blocks[i - 1] if i > 0 else None
        if before is not None and before.kind == BlockKind.HEADING and i > 1:
            # a sub-heading between the introducing paragraph and the table ("... as follows."
            # / "### Key figures" / the table): the paragraph of the enclosing section
            above = blocks[i - 2]
            path = tuple(above.section_path)
            before = above if path and tuple(table.section_path[:len(path)]) == path else None
        if before is not None and (before.kind != BlockKind.PARAGRAPH
                                   or tuple(table.section_path[:len(before.section_path)]) != tuple(before.section_path)):
            before = None
        after = None
        for b in blocks[i + 1:i + 200]:
            if b.parent_id == table.block_id or b.kind in (BlockKind.TABLE_ROW, BlockKind.NOTE):
                continue
            if b.kind == BlockKind.PARAGRAPH and b.section_path == table.section_path:
                after = b
            break
        return before, after

    def table_lines(self, table: Block) -> list[str]:
        rows = self.rows.get(table.block_id, [])
        header = [r for r in rows if r.attrs.get("is_header")]
        body = [r for r in rows if not r.attrs.get("is_header")]
        # header-like first body rows: empty label cell, some non-empty cell without a figure
        # other than a year ("|  | 2019 | 2018 |", "|  | (in millions) |")
        for r in body[:3]:
            cells = _cells(r)
            if not cells or cells[0] or not any(cells[1:]):
                break
            if any(re.search(r"\d", c) and not re.fullmatch(r"(?:fiscal\s+)?(?:19|20)\d\d", c, re.I) for c in cells[1:] if c):
                if not _UNIT.search(" ".join(cells)):
                    break
            header.append(r)
        columns: list[str] = []
        for r in header:
            for c in _cells(r):
                if c and c not in columns:
                    columns.append(c)
        if not columns:
            columns = [_clean(c) for c in table.attrs.get("columns") or [] if _clean(c)]
        before, after = self._neighbour_paragraphs(table)
        caption = _clean(table.attrs.get("caption") or "")
        if not caption and before is not None and len(before.text) <= 300 and (
                before.text.rstrip().endswith(":") or _UNIT.search(before.text)):
            caption = _clean(before.text)
        intro = ""
        if before is not None:
            intro = _last_sentence(before.text)
        elif after is not None and after.text.rstrip().endswith(":"):
            intro = _last_sentence(after.text)
        unit = _clean(table.attrs.get("unit") or "")
        if not unit:
            for text in [caption, *columns, intro]:
                m = _UNIT.search(text or "")
                if m:
                    unit = m.group(0).strip()
                    break
        lines = []
        if caption:
            lines.append(f"Table: {caption}")
        if columns:
            lines.append("Columns: " + " | ".join(columns))
        if unit:
            lines.append(f"Unit: {unit}")
        if intro and intro != caption:
            lines.append(f"Introduced by: {intro}")
        return lines

    # -- key terms of the parent section --------------------------------------------------
    def _unit_counts(self) -> list[Counter]:
        """Term counts per unit of the idf: sections, or blocks for a document of fewer than
        three sections (a FinQA page, a TAT-QA excerpt)."""
        if self._units is None:
            sections: dict[tuple, Counter] = {}
            for b in self.blocks:
                if b.kind != BlockKind.HEADING:
                    sections.setdefault(tuple(b.section_path), Counter()).update(_terms(b.text))
            if len(sections) >= 3:
                self._units = list(sections.values())
            else:
                self._units = [Counter(_terms(b.text)) for b in self.blocks
                               if b.kind not in (BlockKind.HEADING, BlockKind.TABLE)]
        return self._units

    def key_terms(self, section_path: tuple) -> list[str]:
        if self.n_terms <= 0:
            return []
        if section_path not in self._terms:
            n = len(section_path)
            tf: Counter = Counter()
            for b in self.blocks:
                if b.kind != BlockKind.HEADING and tuple(b.section_path[:n]) == section_path:
                    tf.update(_terms(b.text))
            units = self._unit_counts()
            df: Counter = Counter()
            for u in units:
                df.update(u.keys())
            total = len(units)
            score = {t: c * (math.log((1 + total) / (1 + df[t])) + 1.0) for t, c in tf.items()}
            ranked = sorted(score, key=lambda t: (-score[t], t))
            self._terms[section_path] = ranked[:self.n_terms]
        return self._terms[section_path]

    # -- one chunk ---------------------------------------------------------------------
    def lines(self, chunk: ChunkRef) -> list[str]:
        meta = self.meta
        out = []
        title = _known(meta.get("title"))
        doc_type = _known(meta.get("doc_type"))
        if title or doc_type:
            out.append(f"Document: {title}" + (f" ({doc_type})" if doc_type and title else doc_type if not title else ""))
        issuer, ticker = _known(meta.get("issuer")), _known(meta.get("ticker"))
        if issuer or ticker:
            out.append(f"Issuer: {issuer or ticker}" + (f" ({ticker})" if issuer and ticker and ticker not in issuer else ""))
        period = period_text(meta)
        if period:
            out.append(f"Period: {period}")
        section = [_clean(p.lstrip("#")) for p in (chunk.section_path or ()) if _clean(p) and _clean(p) != title]
        if section:
            out.append("Section: " + " > ".join(section))
        covered = self.covered(chunk.view_spans)
        for table in self.tables(covered):
            out.extend(self.table_lines(table))
        refs = []
        for m in _NOTE_REF.finditer(chunk.source_text or ""):
            title_n = self.notes.get(int(m.group(1)))
            if title_n and title_n not in refs and not any(title_n in s for s in section):
                refs.append(title_n)
        if refs:
            out.append("Notes: " + "; ".join(refs[:4]))
        terms = self.key_terms(tuple(chunk.section_path or ()))
        if terms:
            out.append("Key terms: " + ", ".join(terms))
        return out


def _terms(text: str) -> list[str]:
    return [w.strip("'-") for w in _WORD.findall(text.lower()) if w.strip("'-") not in STOP and len(w.strip("'-")) > 2]


def fit(lines: list[str], max_chars: int) -> str:
    """Lines joined by newlines, at most ``max_chars`` characters: whole lines in order; the
    first line that does not fit is cut at a word (when at least 40 characters are left), the
    rest dropped."""
    out: list[str] = []
    used = 0
    for line in lines:
        extra = len(line) + (1 if out else 0)
        if used + extra <= max_chars:
            out.append(line)
            used += extra
            continue
        room = max_chars - used - (1 if out else 0)
        if room >= 40:
            cut = line[:room - 2].rsplit(" ", 1)[0].rstrip(",;:")
            out.append(cut + " …")
        break
    return "\n".join(out)


def enrich_document(doc: ParsedDocument, meta: dict[str, Any], chunks: Sequence[ChunkRef],
                    max_chars: int = 600, key_terms: int = 8) -> list[str]:
    """The enrichment text of each chunk of one document, in order."""
    ctx = DocumentContext(doc, meta, key_terms)
    return [fit(ctx.lines(c), max_chars) for c in chunks]
