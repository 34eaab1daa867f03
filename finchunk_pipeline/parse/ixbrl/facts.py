"""Tagged facts of an inline-XBRL filing, located in the raw HTML: one pass of the HTML
tokenizer's events over the raw string (the same events the block builder reads), keeping
the raw text ranges inside each ``ix:nonFraction`` / ``ix:nonNumeric`` / ``ix:continuation``.

EDGAR's quirks, each handled here:
- the inline-XBRL prefix is whatever ``xmlns:…="http://www.xbrl.org/2013/inlineXBRL"`` binds
  (``ix`` almost always);
- nested facts (a number inside a note's TextBlock, a nonFraction inside another): each open
  fact receives the text, the innermost text fact around a fact is its ``within``;
- ``ix:exclude`` content belongs to no fact;
- ``continuedAt`` chains: a text fact's pieces are its own text and its continuations', in
  chain order (a chain that loops or names a missing id is reported);
- hidden facts (``ix:hidden`` in ``ix:header``) have no place in the text, unless a visible
  element displays them with ``-sec-ix-hidden:<id>`` in its style (the SEC's convention):
  then that element's text is the fact's location;
- ``scale``, ``sign`` and the number format (transforms.py) give the value; ``xsi:nil`` facts
  have no value.
"""
from __future__ import annotations

import html as std_html
import re
from dataclasses import dataclass, field

from ...types.blocks import TaggedFact
from ..html.elements import VOID
from ..html.tokenizer import tokenize
from .resources import Resources
from .transforms import number

_PREFIX = re.compile(r"""xmlns:([\w.-]+)\s*=\s*["']http://www\.xbrl\.org/2013/inlineXBRL["']""", re.I)
_ATTR = re.compile(r"""([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_SEC_HIDDEN = re.compile(r"-sec-ix-hidden\s*:\s*([^;\"'\s]+)", re.I)
TEXT_DISPLAY = 300  # characters of a text fact's displayed text kept
NIL = "nil: no value"
HIDDEN = "hidden: no visible display"


def ix_prefix(raw: str) -> str:
    m = _PREFIX.search(raw, 0, 20_000) or _PREFIX.search(raw)
    return (m.group(1) if m else "ix").lower()


def attributes(attrs: str) -> dict[str, str]:
    """An element's attributes, names lower-cased (``contextRef`` -> ``contextref``)."""
    return {m.group(1).lower(): std_html.unescape(m.group(2) if m.group(2) is not None else m.group(3))
            for m in _ATTR.finditer(attrs or "")}


@dataclass
class _Open:
    kind: str                 # "numeric", "text", "continuation", "exclude", "display"
    tag: str
    attrs: dict[str, str]
    ranges: list[tuple[int, int]] = field(default_factory=list)
    hidden: bool = False
    within: str | None = None
    depth: int = 0            # nested elements of the same tag ("display" elements only)


@dataclass
class RawFact:
    """A fact element as read: its attributes and the raw text ranges of its content."""

    kind: str
    attrs: dict[str, str]
    ranges: list[tuple[int, int]]
    hidden: bool
    within: str | None
    seq: int


class FactSink:
    """Receives the tokenizer's events (a ``TokenSink``) and collects fact elements."""

    def __init__(self, prefix: str) -> None:
        p = prefix + ":"
        self.fact_tags = {p + "nonfraction": "numeric", p + "nonnumeric": "text"}
        self.cont_tag, self.excl_tag = p + "continuation", p + "exclude"
        self.hidden_tag = p + "hidden"
        self.open: list[_Open] = []
        self.hidden_depth = 0
        self.excluded = 0
        self.facts: list[RawFact] = []
        self.continuations: dict[str, tuple[list[tuple[int, int]], str | None]] = {}
        self.displays: dict[str, list[tuple[int, int]]] = {}  # -sec-ix-hidden id -> ranges
        self.warnings: list[str] = []

    def text(self, start: int, end: int) -> None:
        if self.excluded or not self.open:
            return
        for o in self.open:
            if o.kind != "exclude":
                o.ranges.append((start, end))

    def start_tag(self, tag: str, attrs: str, selfclose: bool, pos: int) -> None:
        kind = self.fact_tags.get(tag)
        if kind is not None:
            within = next((o.attrs.get("id") for o in reversed(self.open) if o.kind == "text"), None)
            o = _Open(kind, tag, attributes(attrs), hidden=self.hidden_depth > 0, within=within)
            if selfclose:
                self._close(o)
            else:
                self.open.append(o)
            return
        if tag == self.cont_tag:
            if not selfclose:
                self.open.append(_Open("continuation", tag, attributes(attrs)))
            return
        if tag == self.excl_tag:
            if not selfclose:
                self.open.append(_Open("exclude", tag, {}))
                self.excluded += 1
            return
        if tag == self.hidden_tag and not selfclose:
            self.hidden_depth += 1
            return
        if selfclose or tag in VOID:
            return
        for o in self.open:  # same-tag nesting inside a display element
            if o.kind == "display" and o.tag == tag:
                o.depth += 1
        if attrs and "-sec-ix-hidden" in attrs.lower():
            m = _SEC_HIDDEN.search(attrs)
            if m:
                self.open.append(_Open("display", tag, {"id": m.group(1)}))

    def end_tag(self, tag: str, pos: int) -> None:
        if tag == self.hidden_tag:
            self.hidden_depth = max(0, self.hidden_depth - 1)
            return
        shown = [o for o in self.open if o.kind == "display" and o.tag == tag]
        if shown:
            # the closing element is the latest open one of this tag: the innermost display
            # itself when it has no same-tag element open inside it, else a nested one
            inner = shown[-1]
            if inner.depth == 0:
                self.open.remove(inner)
                self._close(inner)
                shown.pop()
            for o in shown:
                o.depth = max(0, o.depth - 1)
            return
        for i in range(len(self.open) - 1, -1, -1):
            o = self.open[i]
            if o.tag == tag:
                del self.open[i]
                self._close(o)
                return

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def _close(self, o: _Open) -> None:
        if o.kind == "exclude":
            self.excluded -= 1
        elif o.kind == "continuation":
            cid = o.attrs.get("id")
            if cid:
                self.continuations[cid] = (o.ranges, o.attrs.get("continuedat"))
        elif o.kind == "display":
            self.displays.setdefault(o.attrs["id"], o.ranges)
        else:
            self.facts.append(RawFact(o.kind, o.attrs, o.ranges, o.hidden, o.within, len(self.facts)))

    def finish(self) -> None:
        """Close what the document left open (reported)."""
        if self.open:
            self.warnings.append(f"{len(self.open)} inline-XBRL element(s) left open at the end of the document")
            while self.open:
                self._close(self.open.pop())


def trimmed(raw: str, ranges: list[tuple[int, int]]) -> tuple[int, int] | None:
    """(first, last + 1) raw position of non-whitespace text in ``ranges``, or None."""
    first = last = None
    for s, e in ranges:
        seg = raw[s:e]
        lead = len(seg) - len(seg.lstrip())
        if lead == len(seg):
            continue
        if first is None:
            first = s + lead
        last = e - (len(seg) - len(seg.rstrip()))
    return None if first is None else (first, last)


def display_text(raw: str, ranges: list[tuple[int, int]]) -> str:
    return " ".join(std_html.unescape("".join(raw[s:e] for s, e in ranges)).replace("\xa0", " ").split())


def continuation_chain(sink: FactSink, first: str | None) -> tuple[list[list[tuple[int, int]]], str | None]:
    """The ranges of each continuation piece from ``first`` on, and a problem if the chain
    names a missing id or loops."""
    pieces, seen, cid = [], set(), first
    while cid:
        if cid in seen:
            return pieces, f"continuation chain loops at {cid!r}"
        seen.add(cid)
        if cid not in sink.continuations:
            return pieces, f"continuation {cid!r} not found"
        ranges, cid = sink.continuations[cid]
        pieces.append(ranges)
    return pieces, None


def read_facts(raw: str, n: int, resources: Resources) -> tuple[list[tuple], FactSink]:
    """Every fact element of raw[:n] with its pieces' raw ranges (its own, then its
    continuations'), a problem found while reading it, and — for a hidden fact — the raw
    ranges of the visible element that displays it (``-sec-ix-hidden``), or None."""
    sink = FactSink(ix_prefix(raw))
    tokenize(raw, n, sink)
    sink.finish()
    out = []
    for f in sink.facts:
        pieces = [f.ranges]
        problem = None
        if f.kind == "text" and f.attrs.get("continuedat"):
            more, problem = continuation_chain(sink, f.attrs["continuedat"])
            pieces += more
        out.append((f, pieces, problem, sink.displays.get(f.attrs.get("id", "")) if f.hidden else None))
    return out, sink


def fact_value(f: RawFact, shown: str) -> tuple[float | None, int, str | None]:
    """(value, scale, problem) of a numeric fact displayed as ``shown``."""
    if f.attrs.get("xsi:nil", "").lower() == "true":
        return None, 0, None
    try:
        scale = int(f.attrs.get("scale") or 0)
    except ValueError:
        return None, 0, f"scale {f.attrs.get('scale')!r} is not an integer"
    try:
        v = number(shown, f.attrs.get("format"))
    except ValueError as exc:
        return None, scale, str(exc)
    v *= 10.0 ** scale
    if f.attrs.get("sign") == "-":
        v = -v
    return v, scale, None


def tagged_fact(f: RawFact, pieces, problem: str | None, raw: str, resources: Resources, doc_id: str,
                display=None) -> TaggedFact:
    """One fact with its context, unit, value and raw spans (view spans are added by
    ``locate``). A hidden fact's value is its own content; its place, the element that
    displays it (``display``), if any."""
    a = f.attrs
    ctx = resources.contexts.get(a.get("contextref", ""))
    if ctx is None and problem is None:
        problem = f"context {a.get('contextref')!r} not declared"
    placed = ([display] if display else []) if f.hidden else pieces
    spans = [list(t) for p in placed for t in [trimmed(raw, p)] if t]
    shown = display_text(raw, [r for p in pieces for r in p])
    value, scale = None, 0
    if f.kind == "numeric":
        value, scale, vproblem = fact_value(f, shown)
        problem = problem or vproblem
    unit_ref = a.get("unitref")
    fact = TaggedFact(
        fact_id=a.get("id") or f"{doc_id}#fact{f.seq}", kind=f.kind, concept=a.get("name", ""),
        context_id=a.get("contextref", ""), entity=ctx.entity if ctx else "",
        period_start=ctx.start if ctx else None, period_end=ctx.period_end if ctx else None,
        dimensions=[list(d) for d in ctx.dimensions] if ctx else [],
        unit=resources.units.get(unit_ref, unit_ref) if unit_ref else None,
        decimals=a.get("decimals"), scale=scale, sign=a.get("sign"), format=a.get("format"),
        value=value, display=shown if f.kind == "numeric" else shown[:TEXT_DISPLAY],
        spans=spans, block_id=None, within=f.within, hidden=f.hidden, problem=problem)
    if f.attrs.get("xsi:nil", "").lower() == "true":
        fact.problem = NIL
    elif not spans and fact.problem is None:
        fact.problem = HIDDEN if f.hidden else "no visible text"
    return fact
