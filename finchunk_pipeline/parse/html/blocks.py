"""The block builder: a state machine over the tokenizer's events that keeps the element
stack (hidden / bold / superscript inherited from ancestors), collects text atoms into the
current paragraph, list or table cell, and hands finished ones to the writer.

Bad markup never raises: unmatched end tags are ignored (counted), an end tag closes the
elements left open inside it, ``<td>``/``<tr>``/``<li>``/``<p>`` close their unclosed
siblings as browsers do, and whatever is still open at the end is closed there."""
from __future__ import annotations

from collections.abc import Callable

from .atoms import Atoms, add_raw_text
from .elements import BLOCK_TAGS, HEADING_TAGS, HIDDEN_TAGS, VOID, cached_attr_effects
from .tables import Table, emit_table
from .tokenizer import TokenSink, tokenize
from .writer import BlockWriter

_IMPLICIT_END = ("html", "body", "p", "li", "td", "th", "tr")  # not worth a warning when left open


class BlockBuilder:
    """Receives the tokenizer's events (a ``TokenSink``) and writes blocks to ``self.out``."""

    def __init__(self, doc_id: str, raw: str):
        self.raw = raw
        self.out = BlockWriter(doc_id)
        self.warnings: list[str] = []
        self.para = Atoms()
        self.table: Table | None = None
        self.in_caption = False
        self.stack: list[tuple[str, bool, bool, bool]] = []  # (tag, hidden, bold, sup)
        self.counts: dict[str, int] = {}  # open elements per tag
        self.hidden = False
        self.bold = False
        self.sup = False
        self.unmatched = 0
        self.list_depth = 0
        self.list_items = 0

    def run(self, n: int, tokenizer: Callable[[str, int, TokenSink], None] = tokenize) -> None:
        """Tokenize raw[:n], then close whatever is still open."""
        tokenizer(self.raw, n, self)
        if self.stack:
            unclosed = [t for t, *_ in self.stack if t not in _IMPLICIT_END]
            if unclosed:
                self.warnings.append(f"{len(unclosed)} unclosed element(s) at end of document, e.g. "
                                     f"<{unclosed[-1]}>")
            while self.stack:
                self.end_tag(self.stack[-1][0], n)
        if self.table is not None:
            self.warnings.append("unclosed <table> at end of document")
            self._end_structure("table", n)
        self._flush()
        if self.unmatched:
            self.warnings.append(f"{self.unmatched} unmatched end tag(s) ignored")

    def warn(self, message: str) -> None:
        self.warnings.append(message)

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
            fx = cached_attr_effects(attrs)
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
    def text(self, a: int, b: int) -> None:
        if self.hidden:
            return
        t = self.table
        if t is not None and t.cell is None and not self.in_caption and not self.raw[a:b].strip():
            return  # whitespace between cells
        add_raw_text(self._buf(), self.raw, a, b, self.bold, self.sup)

    def _buf(self) -> Atoms:
        """Where text goes now: the table's caption or cell (text between cells opens one),
        else the paragraph."""
        t = self.table
        if t is None:
            return self.para
        if self.in_caption and t.caption is not None:
            return t.caption
        if t.cell is None:
            return t.start_cell(None)
        return t.cell

    def _soft_break(self) -> None:
        buf = self._buf() if (self.table is not None) else self.para
        if buf.parts and buf.ws is None:
            buf.ws = -1

    def _flush(self) -> None:
        buf = self.para
        self.para = Atoms()
        self.out.flush(buf, self.list_items)

    # ------------------------------------------------------------------ tags
    def start_tag(self, tag: str, attrs: str, selfclose: bool, pos: int) -> None:
        self._close_implied(tag, pos)
        was_hidden = self.hidden
        if not was_hidden:
            self._structure_open(tag, attrs, pos)
        if tag in VOID or selfclose:
            if not was_hidden and tag not in VOID:
                self._structure_close(tag, pos)
            return
        self._push(tag, attrs)

    def _close_implied(self, tag: str, pos: int) -> None:
        """Implicit closes of unclosed siblings (malformed / HTML4 markup)."""
        if tag in ("td", "th"):
            for x in ("td", "th"):
                if self._open_in_scope(x, ("tr", "table")):
                    self.end_tag(x, pos)
        elif tag == "tr":
            if self._open_in_scope("tr", ("table",)):
                self.end_tag("tr", pos)
        elif tag == "li":
            if self._open_in_scope("li", ("ul", "ol", "table", "td")):
                self.end_tag("li", pos)
        if tag in BLOCK_TAGS and tag not in ("br", "td", "th", "tr") and self.counts.get("p"):
            if self._open_in_scope("p", ("div", "td", "th", "table", "li", "body")):
                self.end_tag("p", pos)

    def _structure_open(self, tag: str, attrs: str, pos: int) -> None:
        t = self.table
        if tag == "table":
            if t is None:
                self._flush()
                self.table = Table(pos)
                return
            if t.cell is not None or t.nested:
                t.nested += 1
                self._soft_break()
                return
        if t is not None:
            self._table_open(t, tag, attrs)
        elif tag in ("ul", "ol"):
            if self.list_depth == 0:
                self._flush()
                self.para.li = True
                self.list_items = 0
            self.list_depth += 1
        elif self.list_depth and tag in BLOCK_TAGS and tag not in HEADING_TAGS:
            if tag == "li":
                self.list_items += 1
                if self.para.parts:
                    self.para.ws = -2  # items on their own lines
            else:
                self._soft_break()
        elif tag == "br":
            self._soft_break()
        elif tag in BLOCK_TAGS:
            self._flush()
            if tag in HEADING_TAGS:
                self.para.hlevel = HEADING_TAGS[tag]
            elif tag == "li":
                self.para.li = True

    def _table_open(self, t: Table, tag: str, attrs: str) -> None:
        if t.nested:
            if tag in BLOCK_TAGS:
                self._soft_break()
        elif tag == "tr":
            t.start_row()
        elif tag in ("td", "th"):
            t.start_cell(attrs, th=(tag == "th"))
        elif tag == "caption":
            t.caption = t.caption or Atoms()
            self.in_caption = True
        elif tag in BLOCK_TAGS:
            self._soft_break()

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
            t.end_cell()
        elif tag == "tr":
            t.end_row()
        elif tag == "caption":
            self.in_caption = False
        elif tag == "table":
            t.end_row()
            self.table = None
            self.in_caption = False
            emit_table(self.out, t, lambda buf: self.out.flush(buf, self.list_items))

    def end_tag(self, tag: str, pos: int) -> None:
        if not self.counts.get(tag):
            self.unmatched += 1
            return
        # implicit structural closes for elements closed by this end tag
        while self.stack:
            top = self.stack.pop()[0]
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
