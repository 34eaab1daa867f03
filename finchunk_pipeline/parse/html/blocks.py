"""HTML parser for SEC-style and real EDGAR (inline-XBRL) filings.

One linear pass of a regex tokenizer over the raw string (exact raw positions, no DOM):

- view text: visible text only; ``<head>``, ``<script>``, ``<style>``, ``ix:header`` and any
  ``display:none`` subtree are dropped; inline-XBRL wrappers (``ix:nonFraction`` ...) keep
  their text. Whitespace (incl. ``&nbsp;``) collapses to one space; entities decode. Blocks
  are separated in the view by an inserted blank line, table rows by a newline and cells by
  an inserted `` | `` (inserted characters belong to no offset run).
- offsets: copied text maps run-for-run to the raw HTML. A decoded entity maps to the raw
  entity's first character, except when it is the last character of a block, where it maps
  to the entity's last character (``;``) so the block's raw span covers the whole entity.
  Every block's ``(start, end)`` is ``offsets.to_raw(vstart, vend)``.
- headings: ``h1``-``h6`` (level = tag level) and, in div-soup filings, lines that are
  ``PART I..`` (level 1), ``Item 7.`` (level 2), or short fully bold lines (level 3).
  A heading's ``section_path`` includes its own text (as the Markdown parser does).
- tables: one TABLE block + one TABLE_ROW per non-empty row. Empty spacer cells are dropped,
  ``$`` cells are joined with the following number and ``%``/``)`` cells with the preceding
  one. Rows above the first data row are header rows; ``columns`` combines multi-row headers
  per logical column (logical columns are clusters of grid positions used by data rows).
  Single-column layout tables are emitted as paragraphs, two-column "(1) | text" tables as
  notes.
- footnotes: marks are ``<sup>`` content or Workiva-style raised spans (``top:-3pt`` /
  ``vertical-align:super``); citing blocks get ``cites``. A paragraph after the citing block
  that starts with a cited mark (``(1) ...``, ``1 ...``, ``* ...``) or with a raised mark is
  a NOTE with ``mark`` (and ``refers_to`` = block_id of the citing table/block).
- lists: one LIST block per top-level ``<ul>``/``<ol>`` (items on their own view lines,
  ``attrs["items"]``); ``<li>`` outside a list is a LIST block of one item.
- ``attrs["outer"]`` = [s, e]: the raw span widened over the element tags directly around
  the block (``<p><b>PART I</b></p>``, ``<tr>...</tr>`` incl. empty spacer cells at its
  edges), present when it differs from (start, end). Labelled corpora that mark passages
  as whole elements (the synthetic SEC HTML does) match it exactly.
- bad markup never raises: unmatched close tags are ignored, unclosed tags are closed at the
  end, unterminated comments swallow the rest; counts are recorded as warnings.
"""
from __future__ import annotations

import html as _html
import re
from bisect import bisect_right
from typing import Any

from ..storage import sha256_text
from .gcpause import without_gc
from .lines import UNIT
from .model import Block, BlockKind, ParsedDocument
from .offsets import OffsetMap

VERSION = "1"

MAX_CHARS = 60_000_000  # beyond this the tail is not parsed (recorded as a warning)

# attributes are consumed by runs (a "/" alone, so "/>" still closes the tag): the same
# matches as one character per step, in fewer steps
_TAG = re.compile(
    r"<(?:(!--)|(!\[CDATA\[)|([!?])|(/?)([A-Za-z][\w:.-]*)((?:[^<>\"'/]+|/|\"[^\"]{0,4000}\"|'[^']{0,4000}')*?)(/?)>)",
    re.S,
)
_TEXTPIECE = re.compile(
    r"[^&\s]+(?: [^&\s]+)*|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});?|\s+|&"
)
_STYLE = re.compile(r"""\bstyle\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_COLSPAN = re.compile(r"""\bcolspan\s*=\s*["']?\s*(\d+)""", re.I)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.I)
_BOLD_ON = re.compile(r"font-weight\s*:\s*(?:bold|bolder|[6-9]00)", re.I)
_BOLD_OFF = re.compile(r"font-weight\s*:\s*(?:normal|lighter|[1-5]00)", re.I)
_SUP_STYLE = re.compile(r"vertical-align\s*:\s*super|(?:^|;)\s*top\s*:\s*-\s*\d", re.I)

VOID = frozenset("area base br col embed hr img input link meta param source track wbr basefont frame".split())
RAWTEXT = frozenset(("script", "style", "textarea", "xmp", "noscript", "template"))
HIDDEN_TAGS = frozenset(("head", "title", "ix:header", "ix:hidden", "ix:references", "ix:resources"))
BLOCK_TAGS = frozenset(
    """ul ol address article aside blockquote body center dd details dialog div dl dt fieldset figcaption
    figure footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol p pre section summary ul
    table tbody thead tfoot tr td th caption br""".split()
)
HEADING_TAGS = {f"h{i}": i for i in range(1, 7)}
CURRENCY = frozenset(("$", "US$", "€", "£", "¥", "C$", "A$"))
TRAILERS = frozenset(("%", ")", "%)", ")%", "pts", "bps"))

_PART = re.compile(r"^part\s+(?:i{1,3}|iv|v)\b", re.I)
_ITEM = re.compile(r"^item\s*\d{1,2}[a-z]?\s*[.:\-–—]", re.I)
_ITEM_LOOSE = re.compile(r"^item\s*\d{1,2}[a-z]?\b", re.I)
_VALUE = re.compile(r"^[$€£¥]?\s*[(\-–—+]?\s*[$€£¥]?\s*\d[\d,]*(?:\.\d+)?\s*\)?\s*%?\)?$|^[—–-]+$|^n/?m$", re.I)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_MARK_FIND = re.compile(r"\d{1,2}|(?<![A-Za-z])[a-z](?![A-Za-z])|[*†‡§]+")
_MARKLIKE = re.compile(r"^\s*\(?\s*(?:\d{1,2}|[a-z]|[*†‡§]+)(?:\s*,\s*(?:\d{1,2}|[a-z]))*\s*\)?\s*$")
_NOTE_START = re.compile(r"^\s*(?:\(\s*(\d{1,2}|[a-z])\s*\)|(\d{1,2})(?=[\s.:)]|[A-Z])|([*†‡§]+))\s*\.?\s*(?=\S)")
_LEAD_MARK = re.compile(r"^(?:\(\s*(?:\d{1,2}|[a-z])\s*\)|[*†‡§]+)$")
_FURNITURE = re.compile(r"^(?:\d{1,3}|[ivxl]{1,5}|.{0,80}\|\s*\d{1,3}|page \d{1,3}(?: of \d+)?|table of contents)$", re.I)
_PERIOD_HDR = re.compile(r"\b(?:ended|as of|months|year|quarter|at (?:june|december|march|september))\b", re.I)
_ORDINALS = frozenset(("st", "nd", "rd", "th", "tm", "sm", "®"))


_ATTR_CACHE_MAX = 100_000
_ATTR_EFFECTS: dict[str, tuple[bool, int, bool]] = {}  # attribute string -> _attr_effects (filings repeat them)


def _attr_effects(attrs: str) -> tuple[bool, int, bool]:
    """What an element's attributes do to its subtree: (hidden, bold: 1 on / -1 off / 0,
    superscript)."""
    hidden, bold, sup = False, 0, False
    if "style" in attrs or "STYLE" in attrs:
        m = _STYLE.search(attrs)
        if m:
            st = m.group(1) if m.group(1) is not None else m.group(2)
            if _HIDDEN_STYLE.search(st):
                hidden = True
            if _BOLD_ON.search(st):
                bold = 1
            elif _BOLD_OFF.search(st):
                bold = -1
            if _SUP_STYLE.search(st):
                sup = True
    if " hidden" in attrs and re.search(r"\shidden(?:\s|=|$)", attrs):
        hidden = True
    return hidden, bold, sup


class _Buf:
    """Atoms of one block / cell: text pieces with their raw positions.

    kind per atom: 0 = copied exactly (a run), 1 = decoded / normalised char (maps to one raw
    position), 2 = inserted (no raw position)."""

    __slots__ = ("parts", "rs", "re", "kinds", "bold", "sup", "ws", "nalnum", "nbold", "hlevel", "li", "th",
                 "colspan")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.rs: list[int] = []
        self.re: list[int] = []
        self.kinds: list[int] = []
        self.bold: list[bool] = []
        self.sup: list[bool] = []
        self.ws: int | None = None  # pending whitespace raw pos (-1 = inserted)
        self.nalnum = 0
        self.nbold = 0
        self.hlevel = 0
        self.li = False
        self.th = False
        self.colspan = 1

    def __bool__(self) -> bool:
        return bool(self.parts)

    def space(self, raw_pos: int) -> None:
        if self.parts and self.ws is None:
            self.ws = raw_pos

    def add(self, s: str, rs: int, re_: int, kind: int, bold: bool, sup: bool) -> None:
        if self.ws is not None:
            w = self.ws
            self.ws = None
            self.parts.append("\n" if w == -2 else " ")
            self.rs.append(w)
            self.re.append(w + 1)
            self.kinds.append(2 if w < 0 else 1)
            if w < 0:
                self.rs[-1] = self.re[-1] = -1
            self.bold.append(bold)
            self.sup.append(False)
        self.parts.append(s)
        self.rs.append(rs)
        self.re.append(re_)
        self.kinds.append(kind)
        self.bold.append(bold)
        self.sup.append(sup)
        n = sum(map(str.isalnum, s)) if len(s) < 64 else len(s) - s.count(" ")
        self.nalnum += n
        if bold:
            self.nbold += n

    def text(self) -> str:
        return "".join(self.parts)

    def last_char(self) -> str:
        return self.parts[-1][-1] if self.parts else ""

    def extend(self, other: "_Buf", sep: str | None = None) -> None:
        if not other.parts:
            return
        if sep is not None and self.parts:
            self.parts.append(sep)
            self.rs.append(-1)
            self.re.append(-1)
            self.kinds.append(2)
            self.bold.append(False)
            self.sup.append(False)
        self.parts += other.parts
        self.rs += other.rs
        self.re += other.re
        self.kinds += other.kinds
        self.bold += other.bold
        self.sup += other.sup
        self.nalnum += other.nalnum
        self.nbold += other.nbold

    def is_bold(self) -> bool:
        return self.nalnum > 0 and self.nbold >= 0.95 * self.nalnum

    def marks(self) -> list[str]:
        out: list[str] = []
        i, n = 0, len(self.parts)
        while i < n:
            if self.sup[i]:
                j = i
                while j < n and (self.sup[j] or (self.kinds[j] == 1 and self.parts[j] == " " and j + 1 < n
                                                  and self.sup[j + 1])):
                    j += 1
                s = "".join(self.parts[i:j]).strip()
                if _MARKLIKE.match(s) and s.strip("()").lower() not in _ORDINALS:
                    for m in _MARK_FIND.findall(s):
                        if m not in out:
                            out.append(m)
                i = j
            else:
                i += 1
        return out


class _Table:
    __slots__ = ("rows", "row", "cell", "caption", "nested", "raw_pos")

    def __init__(self, raw_pos: int) -> None:
        self.rows: list[list[_Buf]] = []
        self.row: list[_Buf] | None = None
        self.cell: _Buf | None = None
        self.caption: _Buf | None = None
        self.nested = 0
        self.raw_pos = raw_pos


class _Parser:
    def __init__(self, doc_id: str, raw: str):
        self.doc_id, self.raw = doc_id, raw
        self.view: list[str] = []
        self.vlen = 0
        self.offsets = OffsetMap()
        self.blocks: list[Block] = []
        self.warnings: list[str] = []
        self.headings: list[tuple[int, str]] = []
        self.para = _Buf()
        self.table: _Table | None = None
        self.in_caption = False
        # element stack: (tag, hidden, bold, sup)
        self.stack: list[tuple[str, bool, bool, bool]] = []
        self.counts: dict[str, int] = {}
        self.hidden = False
        self.bold = False
        self.sup = False
        self.unmatched = 0
        self.recent_cites: dict[str, str] = {}  # mark -> block_id that cited it
        self.list_depth = 0
        self.list_items = 0

    # ------------------------------------------------------------------ state stack
    def _push(self, tag: str, attrs: str) -> None:
        hidden, bold, sup = self.hidden, self.bold, self.sup
        if tag in HIDDEN_TAGS:
            hidden = True
        if tag in ("b", "strong") or tag in HEADING_TAGS:
            bold = True
        elif tag == "sup":
            sup = True
        if attrs:
            fx = _ATTR_EFFECTS.get(attrs)
            if fx is None:
                if len(_ATTR_EFFECTS) >= _ATTR_CACHE_MAX:
                    _ATTR_EFFECTS.clear()
                fx = _ATTR_EFFECTS[attrs] = _attr_effects(attrs)
            if fx[0]:
                hidden = True
            if fx[1] == 1:
                bold = True
            elif fx[1] == -1:
                bold = False
            if fx[2]:
                sup = True
        self.stack.append((tag, hidden, bold, sup))
        self.counts[tag] = self.counts.get(tag, 0) + 1
        self.hidden, self.bold, self.sup = hidden, bold, sup

    def _open_in_scope(self, tag: str, boundaries: tuple[str, ...]) -> bool:
        if not self.counts.get(tag):
            return False
        for t, *_ in reversed(self.stack):
            if t == tag:
                return True
            if t in boundaries:
                return False
        return False

    # ------------------------------------------------------------------ text
    def _text(self, a: int, b: int) -> None:
        if self.hidden:
            return
        t = self.table
        if t is not None and t.cell is None and not self.in_caption and not self.raw[a:b].strip():
            return
        buf = self._buf()
        raw = self.raw
        bold, sup = self.bold, self.sup
        for m in _TEXTPIECE.finditer(raw, a, b):
            s = m.group()
            c = s[0]
            if c == "&" and len(s) > 1:
                dec = _html.unescape(s)
                if dec == s:
                    self._add(buf, s, m.start(), m.end(), 0, bold, sup)
                elif dec.isspace():
                    buf.space(m.start())
                elif dec in ("\u200b", "\u200c", "\u200d", "\ufeff", "\xad", ""):
                    continue
                else:
                    self._add(buf, dec, m.start(), m.end(), 1, bold, sup)
            elif c.isspace():
                buf.space(m.start())
            else:
                self._add(buf, s, m.start(), m.end(), 0, bold, sup)

    def _add(self, buf: _Buf, s: str, rs: int, re_: int, kind: int, bold: bool, sup: bool) -> None:
        if sup and buf.parts and not buf.sup[-1] and buf.ws is None and buf.last_char().isalnum() \
                and _MARKLIKE.match(s) and s.strip("()").lower() not in _ORDINALS:
            buf.ws = -1  # inserted space: "Revenue1" -> "Revenue 1"
        elif buf.ws is None and 0 < len(buf.parts) <= 3 and s[:1].isalpha() and not sup and (
                _LEAD_MARK.match(buf.text()) or (all(buf.sup) and _MARKLIKE.match(buf.text()))):
            buf.ws = -1  # inserted space: "(1)Services ..." -> "(1) Services ..."
        buf.add(s, rs, re_, kind, bold, sup)

    def _buf(self) -> _Buf:
        t = self.table
        if t is None:
            return self.para
        if self.in_caption and t.caption is not None:
            return t.caption
        if t.cell is None:
            self._start_cell(None)
        return t.cell  # type: ignore[return-value]

    def _soft_break(self) -> None:
        buf = self._buf() if (self.table is not None) else self.para
        if buf.parts and buf.ws is None:
            buf.ws = -1

    # ------------------------------------------------------------------ tables
    def _start_row(self) -> None:
        t = self.table
        assert t is not None
        self._end_cell()
        if t.row is not None:
            t.rows.append(t.row)
        t.row = []

    def _start_cell(self, attrs: str | None, th: bool = False) -> None:
        t = self.table
        assert t is not None
        self._end_cell()
        if t.row is None:
            t.row = []
        c = _Buf()
        c.th = th
        if attrs and "colspan" in attrs.lower():
            m = _COLSPAN.search(attrs)
            if m:
                c.colspan = max(1, min(int(m.group(1)), 1000))
        t.cell = c

    def _end_cell(self) -> None:
        t = self.table
        if t is not None and t.cell is not None:
            if t.row is None:
                t.row = []
            t.row.append(t.cell)
            t.cell = None

    def _end_structure(self, tag: str, pos: int) -> None:
        t = self.table
        if t is None:
            return
        if t.nested:
            if tag == "table":
                t.nested -= 1
            self._soft_break()
            return
        if tag in ("td", "th"):
            self._end_cell()
        elif tag == "tr":
            self._end_cell()
            if t.row is not None:
                t.rows.append(t.row)
                t.row = None
        elif tag == "caption":
            self.in_caption = False
        elif tag == "table":
            self._end_cell()
            if t.row is not None:
                t.rows.append(t.row)
                t.row = None
            self.table = None
            self.in_caption = False
            _emit_table(self, t)

    # ------------------------------------------------------------------ tags
    def _open(self, tag: str, attrs: str, selfclose: bool, pos: int) -> None:
        # implicit closes of unclosed siblings (malformed / HTML4 markup)
        if tag in ("td", "th"):
            for x in ("td", "th"):
                if self._open_in_scope(x, ("tr", "table")):
                    self._close(x, pos)
        elif tag == "tr":
            if self._open_in_scope("tr", ("table",)):
                self._close("tr", pos)
        elif tag == "li":
            if self._open_in_scope("li", ("ul", "ol", "table", "td")):
                self._close("li", pos)
        if tag in BLOCK_TAGS and tag not in ("br", "td", "th", "tr") and self.counts.get("p"):
            if self._open_in_scope("p", ("div", "td", "th", "table", "li", "body")):
                self._close("p", pos)

        was_hidden = self.hidden
        if not was_hidden:
            self._structure_open(tag, attrs, pos)
        if tag in VOID or selfclose:
            if not was_hidden and tag not in VOID:
                self._structure_close(tag, pos)
            return
        self._push(tag, attrs)

    def _structure_open(self, tag: str, attrs: str, pos: int) -> None:
        t = self.table
        if tag == "table":
            if t is not None:
                if t.cell is not None or t.nested:
                    t.nested += 1
                    self._soft_break()
                    return
            else:
                self._flush()
                self.table = _Table(pos)
                return
        if t is not None:
            if t.nested:
                if tag in BLOCK_TAGS:
                    self._soft_break()
                return
            if tag == "tr":
                self._start_row()
            elif tag in ("td", "th"):
                self._start_cell(attrs, th=(tag == "th"))
            elif tag == "caption":
                t.caption = t.caption or _Buf()
                self.in_caption = True
            elif tag in BLOCK_TAGS:
                self._soft_break()
            return
        if tag in ("ul", "ol"):
            if self.list_depth == 0:
                self._flush()
                self.para.li = True
                self.list_items = 0
            self.list_depth += 1
            return
        if self.list_depth and tag in BLOCK_TAGS and tag not in HEADING_TAGS:
            if tag == "li":
                self.list_items += 1
                if self.para.parts:
                    self.para.ws = -2  # items on their own lines
            else:
                self._soft_break()
            return
        if tag in BLOCK_TAGS:
            if tag == "br":
                self._soft_break()
                return
            self._flush()
            if tag in HEADING_TAGS:
                self.para.hlevel = HEADING_TAGS[tag]
            elif tag == "li":
                self.para.li = True

    def _structure_close(self, tag: str, pos: int) -> None:
        if self.table is not None:
            if tag in ("td", "th", "tr", "table", "caption"):
                self._end_structure(tag, pos)
            elif tag in BLOCK_TAGS:
                self._soft_break()
            return
        if tag in ("ul", "ol") and self.list_depth:
            self.list_depth -= 1
            if self.list_depth == 0:
                self._flush()
            return
        if self.list_depth and tag in BLOCK_TAGS and tag not in HEADING_TAGS:
            return
        if tag in BLOCK_TAGS:
            self._flush()

    def _close(self, tag: str, pos: int) -> None:
        if not self.counts.get(tag):
            self.unmatched += 1
            return
        # implicit structural closes for elements closed by this end tag
        while self.stack:
            top, hidden = self.stack[-1][0], self.stack[-1][1]
            self.stack.pop()
            self.counts[top] -= 1
            parent_hidden = self.stack[-1][1] if self.stack else False
            if not parent_hidden:
                self._structure_close(top, pos)
            if top == tag:
                break
        if self.stack:
            _, self.hidden, self.bold, self.sup = self.stack[-1]
        else:
            self.hidden = self.bold = self.sup = False

    # ------------------------------------------------------------------ blocks
    def _emit(self, buf: _Buf, sep: str = "\n\n") -> tuple[int, int]:
        """Append buf's atoms to the view; return (vstart, vend)."""
        if self.vlen:
            self.view.append(sep)
            self.vlen += len(sep)
        vs = self.vlen
        self._emit_atoms(buf, last=True)
        return vs, self.vlen

    def _emit_atoms(self, buf: _Buf, last: bool) -> None:
        v = self.vlen
        add = self.offsets.add
        n = len(buf.parts)
        for i in range(n):
            s = buf.parts[i]
            k = buf.kinds[i]
            if k == 0:
                add(v, buf.rs[i], len(s))
            elif k == 1:
                if last and i == n - 1 and i > 0:
                    add(v + len(s) - 1, buf.re[i] - 1, 1)
                else:
                    add(v, buf.rs[i], 1)
            v += len(s)
        self.view.extend(buf.parts)
        self.vlen = v

    def _block(self, kind: str, vs: int, ve: int, attrs: dict[str, Any], parent: str | None = None,
               path: tuple[str, ...] | None = None, text: str = "") -> Block:
        seq = len(self.blocks)
        b = Block(self.doc_id, f"{self.doc_id}#b{seq:05d}", seq, kind, 0, 0, vs, ve, text,
                  self.path if path is None else path, parent, attrs)
        self.blocks.append(b)
        return b

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(h for _, h in self.headings)

    def _flush(self) -> None:
        buf = self.para
        self.para = _Buf()
        if not buf.parts:
            return
        text = buf.text()
        if not any(c.isalnum() for c in text):
            return  # lone bullets / dashes / rules: not a block, not in the view
        self._paragraph(buf, text)

    def _paragraph(self, buf: _Buf, text: str) -> None:
        level = buf.hlevel or _heading_level(text, buf)
        marks = buf.marks()
        if level:
            while self.headings and self.headings[-1][0] >= level:
                self.headings.pop()
            self.headings.append((level, " ".join(text.split())))
            vs, ve = self._emit(buf)
            self._block(BlockKind.HEADING, vs, ve, {"level": level}, text=text)
            if level <= 2:
                self.recent_cites = {}
            return
        note = _note_mark(text, buf, self.recent_cites)
        vs, ve = self._emit(buf)
        if note is not None:
            attrs: dict[str, Any] = {"mark": note}
            if note in self.recent_cites:
                attrs["refers_to"] = self.recent_cites[note]
            marks = [m for m in marks if m != note]
            if marks:
                attrs["cites"] = marks
            self._block(BlockKind.NOTE, vs, ve, attrs, text=text)
            return
        attrs = {}
        if marks:
            attrs["cites"] = marks
        if buf.li:
            attrs["items"] = max(1, self.list_items)
        if len(text) <= 100 and _FURNITURE.match(text):
            attrs["furniture"] = True  # page numbers / running footers: chunkers may skip them
        b = self._block(BlockKind.LIST if buf.li else BlockKind.PARAGRAPH, vs, ve, attrs, text=text)
        for m in marks:
            self.recent_cites[m] = b.block_id

    # ------------------------------------------------------------------ main loop
    def run(self) -> None:
        raw = self.raw
        n = len(raw)
        if n > MAX_CHARS:
            self.warnings.append(f"document has {n} chars; only the first {MAX_CHARS} were parsed")
            n = MAX_CHARS
        pos = 0
        search = _TAG.search
        while pos < n:
            m = search(raw, pos, n)
            if m is None:
                self._text(pos, n)
                break
            s = m.start()
            if s > pos:
                self._text(pos, s)
            comment, cdata, decl, closing, tag, attrs, selfclose = m.groups()
            if comment:
                e = raw.find("-->", s + 4)
                if e < 0:
                    self.warnings.append(f"unterminated comment at {s}: rest of document ignored")
                    pos = n
                    break
                pos = e + 3
                continue
            if cdata:  # CDATA: keep its text
                e = raw.find("]]>", s)
                e = n if e < 0 else e
                self._text(s + 9, e)
                pos = e + 3
                continue
            if decl:  # <!DOCTYPE>, <?xml?>
                e = raw.find(">", s)
                pos = n if e < 0 else e + 1
                continue
            tag = tag.lower()
            pos = m.end()
            if closing:
                self._close(tag, s)
                continue
            self._open(tag, attrs, bool(selfclose), s)
            if tag in RAWTEXT and not selfclose:
                end = re.compile(r"</" + re.escape(tag) + r"\s*>", re.I).search(raw, pos, n)
                if end is None:
                    self.warnings.append(f"unclosed <{tag}> at {s}: rest of document ignored")
                    pos = n
                    break
                pos = end.end()
                self._close(tag, pos)
        # close whatever is still open
        if self.stack:
            unclosed = [t for t, *_ in self.stack if t not in ("html", "body", "p", "li", "td", "th", "tr")]
            if unclosed:
                self.warnings.append(f"{len(unclosed)} unclosed element(s) at end of document, e.g. "
                                     f"<{unclosed[-1]}>")
            while self.stack:
                self._close(self.stack[-1][0], n)
        if self.table is not None:
            self.warnings.append("unclosed <table> at end of document")
            self._end_structure("table", n)
        self._flush()
        if self.unmatched:
            self.warnings.append(f"{self.unmatched} unmatched end tag(s) ignored")


def _heading_level(text: str, buf: _Buf) -> int:
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


def _note_mark(text: str, buf: _Buf, cited: dict[str, str]) -> str | None:
    m = _NOTE_START.match(text)
    if not m:
        return None
    mark = m.group(1) or m.group(2) or m.group(3)
    first_sup = next((buf.sup[i] for i in range(len(buf.parts)) if buf.parts[i].strip()), False)
    if mark in cited or first_sup:
        return mark
    return None


# ---------------------------------------------------------------------- tables
def _merge_cells(row: list[_Buf]) -> list[tuple[_Buf, int, int]]:
    """Non-empty cells of a row as (buf, grid_start, grid_end), "$" / "%" cells joined."""
    out: list[tuple[_Buf, int, int]] = []
    g = 0
    pending: tuple[_Buf, int] | None = None  # a "$" cell waiting for its number
    for c in row:
        g0, g1 = g, g + c.colspan
        g = g1
        if not c.parts:
            continue
        txt = c.text()
        if txt in CURRENCY:
            if pending is not None:
                out.append((pending[0], pending[1], g0))
            nb = _Buf()
            nb.extend(c)
            nb.th = c.th
            pending = (nb, g0)
            continue
        if pending is not None:
            nb, p0 = pending
            pending = None
            nb.extend(c)
            out.append((nb, p0, g1))
            continue
        if out and (txt in TRAILERS or (all(c.sup) and _MARKLIKE.match(txt))):
            pb, p0, _ = out[-1]
            pb.extend(c, sep=None if txt in TRAILERS else " ")
            out[-1] = (pb, p0, g1)
            continue
        if False:
            pb, p0, _ = out[-1]
            pb.extend(c)
            out[-1] = (pb, p0, g1)
            continue
        nb = _Buf()
        nb.extend(c)
        nb.th = c.th
        out.append((nb, g0, g1))
    if pending is not None:
        out.append((pending[0], pending[1], g))
    return out


def _is_value(s: str) -> bool:
    s = s.strip()
    return bool(_VALUE.match(s)) and not _YEAR.match(s)


def _emit_table(p: _Parser, t: _Table) -> None:
    rows = [r for r in (_merge_cells(r) for r in t.rows) if r]
    caption_buf = t.caption if t.caption is not None and t.caption.parts else None
    if not rows:
        if caption_buf is not None:
            p.para = caption_buf
            p._flush()
        return
    ncols = max(len(r) for r in rows)
    # layout tables: one column of text -> paragraphs
    if ncols == 1:
        for r in rows:
            p.para = r[0][0]
            p._flush()
        return
    # footnote tables: "(1) | text"
    if all(len(r) == 2 and _MARKLIKE.match(r[0][0].text()) for r in rows) and len(rows) <= 30:
        for r in rows:
            b = _Buf()
            b.extend(r[0][0])
            b.extend(r[1][0], sep=" ")
            mark = _MARK_FIND.findall(r[0][0].text())
            vs, ve = p._emit(b)
            attrs: dict[str, Any] = {"mark": mark[0] if mark else r[0][0].text().strip()}
            if attrs["mark"] in p.recent_cites:
                attrs["refers_to"] = p.recent_cites[attrs["mark"]]
            p._block(BlockKind.NOTE, vs, ve, attrs, text=b.text())
        return

    texts = [[c[0].text() for c in r] for r in rows]

    label_start = min(r[0][1] for r in rows)

    def is_data(i: int) -> bool:
        r = texts[i]
        if any(_is_value(x) for x in r[1:]):
            return True
        if len(r) == 1 and _PERIOD_HDR.search(r[0]) and i < 3:
            return False
        return len(r) == 1 and not rows[i][0][0].th and rows[i][0][1] == label_start
    first_data = next((i for i in range(len(rows)) if is_data(i)), len(rows))
    if first_data == len(rows) or first_data > 4:
        r0 = rows[0]
        nh = 1 if all(c[0].th or c[0].is_bold() for c in r0) and len(rows) > 1 else 0
    else:
        nh = first_data
    if any(c[0].th for c in rows[0]) and nh == 0 and len(rows) > 1:
        nh = 1

    # logical columns: clusters of grid intervals used by data rows
    intervals = sorted((g0, g1) for r in rows[nh:] if len(r) >= 2 for _, g0, g1 in r)
    if not intervals:
        intervals = sorted((g0, g1) for r in rows for _, g0, g1 in r)
    clusters: list[list[int]] = []
    for g0, g1 in intervals:
        if clusters and g0 < clusters[-1][1]:
            clusters[-1][1] = max(clusters[-1][1], g1)
        else:
            clusters.append([g0, g1])
    starts = [c[0] for c in clusters]

    def col_of(g0: int) -> int:
        return max(0, bisect_right(starts, g0) - 1)

    columns: list[list[str]] = [[] for _ in clusters]
    for r in rows[:nh]:
        for buf, g0, g1 in r:
            txt = " ".join(buf.text().split())
            for k, (c0, c1) in enumerate(clusters):
                if g0 < c1 and c0 < g1 and (not columns[k] or columns[k][-1] != txt):
                    columns[k].append(txt)

    attrs: dict[str, Any] = {}
    # caption / unit from the blocks right above the table
    prev = [b for b in p.blocks[-3:] if b.kind in (BlockKind.PARAGRAPH, BlockKind.HEADING) and len(b.text) <= 200]
    prev_text = [b.text for b in prev]
    if caption_buf is not None:
        attrs["caption"] = " ".join(caption_buf.text().split())
    else:
        for blk in reversed(p.blocks[-2:]):
            if blk.kind == BlockKind.HEADING:
                attrs["caption"] = blk.text
                break
            if blk.kind != BlockKind.PARAGRAPH or len(blk.text) > 200:
                break
            if blk.text.rstrip().endswith(":"):
                attrs["caption"] = blk.text
                break

    vs_table = p.vlen + (2 if p.vlen else 0)
    row_blocks: list[tuple[int, int, dict[str, Any]]] = []
    cites: list[str] = []
    header_end = None
    header_lines: list[str] = []
    row_texts: list[str] = []
    for i, r in enumerate(rows):
        rb = _Buf()
        for buf, _, _ in r:
            rb.extend(buf, sep=" | ")
        vs, ve = p._emit(rb, sep="\n" if i else "\n\n")
        marks = rb.marks()
        rattrs: dict[str, Any] = {
            "cells": [" ".join(b.text().split()) for b, _, _ in r],
            "cols": [col_of(g0) for _, g0, _ in r],
            "is_header": i < nh,
        }
        if marks:
            rattrs["cites"] = marks
            for m in marks:
                if m not in cites:
                    cites.append(m)
        row_texts.append(rb.text())
        if i < nh:
            header_lines.append(row_texts[-1])
        if i == nh - 1:
            header_end = ve
        row_blocks.append((vs, ve, rattrs, row_texts[-1]))
    table = p._block(BlockKind.TABLE, vs_table, p.vlen, attrs, text="\n".join(row_texts))
    if nh:
        attrs["header"] = "\n".join(header_lines)
        attrs["header_vspan"] = [vs_table, header_end]
    attrs["columns"] = [" ".join(c) for c in columns]
    attrs["n_rows"] = len(rows)
    unit_src = [attrs.get("header", ""), attrs.get("caption", "")] + prev_text
    for s in unit_src:
        m = UNIT.search(s or "")
        if m:
            attrs["unit"] = m.group(0)
            break
    if cites:
        attrs["cites"] = cites
    for vs, ve, rattrs, rtext in row_blocks:
        p._block(BlockKind.TABLE_ROW, vs, ve, rattrs, parent=table.block_id, text=rtext)
    for m in cites:
        p.recent_cites[m] = table.block_id


_OPEN_TAG_END = re.compile(r"<[A-Za-z][^<>]*>$")
_CLOSE_TAG = re.compile(r"</([A-Za-z][\w:.-]*)\s*>")
_EMPTY_ELEM = re.compile(r"<([A-Za-z][\w:.-]*)\b[^<>]*?(?:/>|>\s*</\1\s*>)")


def outer_span(raw: str, start: int, end: int, max_tags: int = 12) -> tuple[int, int]:
    """(start, end) widened over the opening tags directly before and the closing tags directly
    after (no text or whitespace in between): the enclosing element(s) of a block, e.g.
    ``<p><b>PART I</b></p>`` for the block "PART I". Labelled corpora often mark passages
    this way; chunkers may use it to cover the markup around short blocks."""
    s = start
    for _ in range(max_tags):
        if s <= 0 or raw[s - 1] != ">":
            break
        lt = raw.rfind("<", max(0, s - 2000), s)
        if lt < 0:
            break
        if _OPEN_TAG_END.match(raw, lt, s):
            s = lt
            continue
        m = _CLOSE_TAG.fullmatch(raw, lt, s)  # an empty element "<td></td>" before the block
        lt2 = raw.rfind("<", max(0, lt - 2000), lt) if m else -1
        if lt2 < 0 or not _OPEN_TAG_END.match(raw, lt2, lt) or not raw.startswith(
                "<" + m.group(1), lt2):
            break
        s = lt2
    e = end
    for _ in range(max_tags):
        m = _CLOSE_TAG.match(raw, e) or _EMPTY_ELEM.match(raw, e)
        if not m:
            break
        e = m.end()
    return s, e


@without_gc
def parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    if text is None or not text.strip():
        raise ValueError(f"{doc_id}: HTML document has no text at all")
    p = _Parser(doc_id, text)
    try:
        p.run()
    except RecursionError as exc:  # pragma: no cover - defensive
        p.warnings.append(f"parse aborted: {exc}")
    view = "".join(p.view)
    if not view.strip():
        raise ValueError(f"{doc_id}: HTML document has no visible text (only markup / hidden content)")
    if "<" not in text:
        p.warnings.append("document contains no HTML markup; parsed as plain text")
    for b in p.blocks:
        if b.text != view[b.vstart:b.vend]:  # pragma: no cover - internal consistency
            p.warnings.append(f"block {b.block_id}: text re-sliced from the view")
            b.text = view[b.vstart:b.vend]
        b.start, b.end = p.offsets.to_raw(b.vstart, b.vend)
        o = outer_span(text, b.start, b.end)
        if o != (b.start, b.end):
            b.attrs["outer"] = list(o)
    return ParsedDocument(
        doc_id=doc_id, doc_sha=sha256_text(text), parser="html", parser_version=VERSION,
        view_text=view, offsets=p.offsets, blocks=p.blocks, warnings=p.warnings,
    )
