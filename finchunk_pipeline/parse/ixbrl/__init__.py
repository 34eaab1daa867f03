"""Inline XBRL inside an HTML filing: every tagged fact with its concept, context (entity,
period, dimensions), unit, value, and its exact place in the raw text, the parser's view
and the block that holds it. The HTML parser calls ``extract`` after building its blocks, so
the facts are stored with the blocks and versioned with the parser.

A numeric fact is *located* when its figure's raw span maps into the view and the view text
there is the figure as displayed (checked character for character, whitespace collapsed)
— the check behind the ≥ 95% goal of ``located_share``.
"""
from __future__ import annotations

import re
from bisect import bisect_right

# first: the HTML parser's version names this one, and importing .facts imports parse.html
VERSION = "1"

from ...types.blocks import Block, TaggedFact  # noqa: E402
from ...types.offsets import OffsetMap  # noqa: E402
from .facts import HIDDEN, NIL, read_facts, tagged_fact  # noqa: E402
from .resources import read_resources  # noqa: E402

__all__ = ["VERSION", "extract", "has_inline_xbrl", "located_share"]
_INLINE = re.compile(r"<[\w.-]+:nonfraction\b|<[\w.-]+:nonnumeric\b", re.I)


def has_inline_xbrl(raw: str) -> bool:
    return _INLINE.search(raw) is not None


def _block_finder(blocks: list[Block]):
    order = sorted(range(len(blocks)), key=lambda i: (blocks[i].vstart, -blocks[i].vend))
    starts = [blocks[i].vstart for i in order]
    by_id = {b.block_id: b for b in blocks}

    def find(vs: int, ve: int) -> Block | None:
        k = bisect_right(starts, vs) - 1
        if k < 0:
            return None
        b: Block | None = blocks[order[k]]
        while b is not None and not (b.vstart <= vs and ve <= b.vend):
            b = by_id.get(b.parent_id) if b.parent_id else None
        return b

    return find


def locate(fact: TaggedFact, offsets: OffsetMap, view: str, find) -> None:
    """Fill ``vspans`` and ``block_id``; a figure whose view text is not its display is a problem."""
    vspans = []
    for s, e in fact.spans:
        v = offsets.to_view(s, e)
        if v is not None:
            vspans.append(list(v))
    fact.vspans = vspans
    if fact.spans and not vspans and fact.problem is None:
        fact.problem = "not in the view (hidden by style or markup)"
        return
    if fact.kind == "numeric" and vspans:
        shown = " ".join(view[vspans[0][0]:vspans[-1][1]].split())
        if shown != fact.display and fact.problem is None:
            fact.problem = f"view text {shown[:40]!r} is not the displayed figure {fact.display[:40]!r}"
        b = find(vspans[0][0], vspans[-1][1])
        fact.block_id = b.block_id if b else None


def extract(doc_id: str, raw: str, n: int, offsets: OffsetMap, blocks: list[Block],
            view: str) -> tuple[list[TaggedFact], list[str]]:
    """(the tagged facts of raw[:n], warnings) — empty for a document without inline XBRL."""
    if not has_inline_xbrl(raw[:n]):
        return [], []
    resources = read_resources(raw[:n])
    elements, sink = read_facts(raw, n, resources)
    find = _block_finder(blocks)
    facts = []
    for f, pieces, problem, display in elements:
        fact = tagged_fact(f, pieces, problem, raw, resources, doc_id, display)
        locate(fact, offsets, view, find)
        facts.append(fact)
    warnings = list(sink.warnings) + [f"inline XBRL: {p}" for p in resources.problems[:20]]
    return facts, warnings


def located_share(facts: list[TaggedFact]) -> tuple[int, int]:
    """(numeric facts located at their figure, numeric facts to locate): facts that are nil,
    or hidden with no visible display, have nothing to locate; every other one counts, those
    whose format could not be read included."""
    numeric = [f for f in facts if f.kind == "numeric" and f.problem not in (NIL, HIDDEN)]
    return sum(1 for f in numeric if f.located), len(numeric)
