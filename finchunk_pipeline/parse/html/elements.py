"""What elements and their attributes mean for the view: which tags are void, hidden,
block-level or headings, and what an element's ``style`` / ``hidden`` / ``colspan`` does.

Kept apart from the block builder so the tables and the builder read the same facts."""
from __future__ import annotations

import re

VOID = frozenset("area base br col embed hr img input link meta param source track wbr basefont frame".split())
HIDDEN_TAGS = frozenset(("head", "title", "ix:header", "ix:hidden", "ix:references", "ix:resources"))
BLOCK_TAGS = frozenset(
    """ul ol address article aside blockquote body center dd details dialog div dl dt fieldset figcaption
    figure footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol p pre section summary ul
    table tbody thead tfoot tr td th caption br""".split()
)
HEADING_TAGS = {f"h{i}": i for i in range(1, 7)}

_STYLE = re.compile(r"""\bstyle\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_COLSPAN = re.compile(r"""\bcolspan\s*=\s*["']?\s*(\d+)""", re.I)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.I)
_BOLD_ON = re.compile(r"font-weight\s*:\s*(?:bold|bolder|[6-9]00)", re.I)
_BOLD_OFF = re.compile(r"font-weight\s*:\s*(?:normal|lighter|[1-5]00)", re.I)
_SUP_STYLE = re.compile(r"vertical-align\s*:\s*super|(?:^|;)\s*top\s*:\s*-\s*\d", re.I)

_ATTR_CACHE_MAX = 100_000
_ATTR_EFFECTS: dict[str, tuple[bool, int, bool]] = {}  # attribute string -> attr_effects (filings repeat them)


def attr_effects(attrs: str) -> tuple[bool, int, bool]:
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


def cached_attr_effects(attrs: str) -> tuple[bool, int, bool]:
    """``attr_effects`` memoised: a filing repeats the same few hundred attribute strings."""
    fx = _ATTR_EFFECTS.get(attrs)
    if fx is None:
        if len(_ATTR_EFFECTS) >= _ATTR_CACHE_MAX:
            _ATTR_EFFECTS.clear()
        fx = _ATTR_EFFECTS[attrs] = attr_effects(attrs)
    return fx


def colspan_of(attrs: str | None) -> int:
    """A cell's ``colspan`` (1 when absent; capped at 1000 against hostile values)."""
    if attrs and "colspan" in attrs.lower():
        m = _COLSPAN.search(attrs)
        if m:
            return max(1, min(int(m.group(1)), 1000))
    return 1
