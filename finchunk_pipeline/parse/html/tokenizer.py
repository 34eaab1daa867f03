"""HTML tokenizer: a raw string -> events with exact raw positions, no tree.

One regex search per tag over the raw string. Text between tags is reported as one raw span
``(start, end)`` (entities are decoded later, from the raw, so their positions are kept);
comments, ``<!DOCTYPE>`` and ``<?xml?>`` produce no event; CDATA sections report their
inner text. The content of raw-text elements (``<script>``, ``<style>`` ...) is skipped:
their start tag is reported at its ``<``, their end tag at the position just after it.

Why a regex and not ``html.parser.HTMLParser`` or bs4 (bench/bench_html_tokenizer.py, on
sec_html_dev's 8.4 MB of EDGAR filings): an HTMLParser tokenizer (``getpos`` offsets, the
text taken as the raw gaps between constructs) gives the very same blocks, but the whole
parse takes 2.2x as long (HTMLParser alone runs at ~19 MB/s, this tokenizer at ~90 MB/s),
and on "a < b <c " x 40000 it does not finish in 30 s; a bs4 tree build alone puts the
parse at >= 4x, before finding the text and end-tag positions the tree does not keep.
Issue 14's bar was 1.3x.

Malformed markup never raises: a ``<`` that starts no tag is text, an unterminated comment
or raw-text element swallows the rest (reported to ``warn``).
"""
from __future__ import annotations

import re
from typing import Protocol

# attributes are consumed by runs (a "/" alone, so "/>" still closes the tag): the same
# matches as one character per step, in fewer steps
TAG = re.compile(
    r"<(?:(!--)|(!\[CDATA\[)|([!?])|(/?)([A-Za-z][\w:.-]*)((?:[^<>\"'/]+|/|\"[^\"]{0,4000}\"|'[^']{0,4000}')*?)(/?)>)",
    re.S,
)
RAWTEXT = frozenset(("script", "style", "textarea", "xmp", "noscript", "template"))
_RAWTEXT_END = {tag: re.compile(r"</" + re.escape(tag) + r"\s*>", re.I) for tag in RAWTEXT}


class TokenSink(Protocol):
    """What receives the tokenizer's events (the block builder)."""

    def text(self, start: int, end: int) -> None:
        """Visible-text candidate: raw[start:end], entities still encoded."""

    def start_tag(self, tag: str, attrs: str, selfclose: bool, pos: int) -> None:
        """``tag`` lower-cased, ``attrs`` the raw attribute string, ``pos`` the ``<``."""

    def end_tag(self, tag: str, pos: int) -> None:
        """``tag`` lower-cased; ``pos`` the ``<`` (after a raw-text element: its end)."""

    def warn(self, message: str) -> None:
        """Markup the tokenizer had to give up on."""


def tokenize(raw: str, n: int, sink: TokenSink) -> None:
    """Report raw[:n] to ``sink`` as events, in document order."""
    text, start_tag, end_tag = sink.text, sink.start_tag, sink.end_tag
    pos = 0
    search = TAG.search
    while pos < n:
        m = search(raw, pos, n)
        if m is None:
            text(pos, n)
            return
        s = m.start()
        if s > pos:
            text(pos, s)
        comment, cdata, decl, closing, tag, attrs, selfclose = m.groups()
        if comment:
            e = raw.find("-->", s + 4)
            if e < 0:
                sink.warn(f"unterminated comment at {s}: rest of document ignored")
                return
            pos = e + 3
            continue
        if cdata:  # CDATA: keep its text
            e = raw.find("]]>", s)
            e = n if e < 0 else e
            text(s + 9, e)
            pos = e + 3
            continue
        if decl:  # <!DOCTYPE>, <?xml?>
            e = raw.find(">", s)
            pos = n if e < 0 else e + 1
            continue
        tag = tag.lower()
        pos = m.end()
        if closing:
            end_tag(tag, s)
            continue
        start_tag(tag, attrs, bool(selfclose), s)
        if tag in RAWTEXT and not selfclose:
            end = _RAWTEXT_END[tag].search(raw, pos, n)
            if end is None:
                sink.warn(f"unclosed <{tag}> at {s}: rest of document ignored")
                return
            pos = end.end()
            end_tag(tag, pos)
