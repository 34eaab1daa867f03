"""The context assembler: what a retriever's ranked chunks deliver under a character budget
(or as the top k), by the budget rule below — shared by the budget, precision and containment
metrics, the recall curve's characters and the answers asset.

The budget rule (rule v2, "the budget buys unique evidence"):
1. Chunks are taken in rank order, each as the spans it delivers (its own spans, or its
   bounded parent's when the policy expands chunks) under its context header.
2. A chunk pays for what it adds: the characters of its spans not already delivered by
   higher-ranked chunks (overlapping or repeated evidence is sent once), converted to
   delivered-text characters at the chunk's own ratio (indexed body characters per raw
   character: 1 for text and Markdown, less for HTML, whose raw spans include markup), plus
   its context header the first time that header is sent (chunks under one header share it).
   A chunk that adds nothing costs nothing.
3. Chunks are delivered whole while they fit. The first one that does not fit is cut so the
   delivery ends exactly at the budget: its header (if new) first, covering no document
   characters, then the prefix of its new spans in reading order; no further chunks are
   delivered. Unused budget is left unused if the ranking runs out.
4. A gold passage then counts as retrieved by the usual 50%-coverage rule over the union of
   the delivered spans; recall / full coverage as for recall@k.

Rule v1 (before the assembler) charged every chunk its full indexed text, so overlapping
windows and repeated table headers were paid twice; with disjoint chunks without headers
both rules give the same numbers.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

from .coverage import is_retrieved, merge_spans, union_merged

GoldPassage = tuple[str, int, int]


@dataclass
class DeliveredChunk:
    """One ranked chunk as the budget rule sees it."""
    doc_id: str
    spans: Sequence[tuple[int, int]]  # raw document spans, reading order
    n_chars: int                      # indexed characters (header + body)
    header_chars: int = 0             # indexed characters before the body (no document characters)
    text: str = ""                    # indexed text (for answer containment)
    header: str = ""                  # the header's text: sent once however many chunks share it

    # what the rule reads of the chunk itself, computed once however many rankings hold it
    @cached_property
    def merged(self) -> list[tuple[int, int]]:
        """Its spans merged (sorted, disjoint)."""
        return merge_spans(self.spans)

    @cached_property
    def ratio(self) -> float:
        """Indexed body characters per raw character."""
        raw_len = sum(e - s for s, e in self.spans) or 1
        return max(0, self.n_chars - self.header_chars) / raw_len

    @cached_property
    def header_key(self) -> tuple[str, str] | None:
        """What identifies its header (None: no header): one header is sent once."""
        return (self.doc_id, self.header or f"#{self.header_chars}") if self.header_chars else None


def span_prefix(spans: Sequence[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """The first ``n`` characters of ``spans`` taken in reading order."""
    out = []
    for s, e in spans:
        if n <= 0:
            break
        take = min(n, e - s)
        if take > 0:
            out.append((s, s + take))
        n -= take
    return out


def subtract(spans: Sequence[tuple[int, int]], covered: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``spans`` (sorted, disjoint) outside ``covered`` (sorted, disjoint)."""
    out = []
    for s, e in spans:
        cur = s
        for cs, ce in covered:
            if ce <= cur:
                continue
            if cs >= e:
                break
            if cs > cur:
                out.append((cur, cs))
            cur = max(cur, ce)
            if cur >= e:
                break
        if cur < e:
            out.append((cur, e))
    return out


class Assembler:
    """The context assembler of the rule above, one chunk at a time."""

    def __init__(self, budget: int | None = None):
        self.budget = budget
        self.by_doc: dict[str, list[tuple[int, int]]] = {}
        self.sent_headers: set[tuple[str, str]] = set()
        self.used = 0
        self.texts: list[str] = []
        self.last_cut = False   # whether the budget cut the last delivery added

    @property
    def full(self) -> bool:
        return self.budget is not None and self.used >= self.budget

    def add(self, c: DeliveredChunk) -> bool:
        """Deliver ``c`` (whole, or cut at the budget); whether it added any evidence."""
        if self.full:
            return False
        have = self.by_doc.get(c.doc_id, [])
        new = subtract(c.merged, have)
        if not new:
            return False
        ratio, header_key = c.ratio, c.header_key
        head = c.header_chars if header_key is not None and header_key not in self.sent_headers else 0
        new_len = sum(e - s for s, e in new)
        cost = head + round(new_len * ratio)
        if self.budget is None or self.used + cost <= self.budget:
            self.by_doc[c.doc_id] = union_merged(have, new)
            self.used += cost
            if header_key is not None:
                self.sent_headers.add(header_key)
            self.texts.append(c.text)
            self.last_cut = False
            return True
        remaining = self.budget - self.used
        body = max(0, remaining - head)
        take = int(body / ratio) if ratio > 0 else new_len
        self.by_doc[c.doc_id] = union_merged(have, span_prefix(new, take))
        self.used = self.budget
        self.texts.append(c.text[:remaining])
        self.last_cut = True
        return True

    def text(self) -> str:
        return "\n\n".join(self.texts)


def deliver(ranked: Sequence[DeliveredChunk], budget: int | None = None, k: int | None = None
            ) -> tuple[dict[str, list[tuple[int, int]]], int, str]:
    """Delivered spans by document (merged), characters delivered and the delivered text, for
    the top ``k`` chunks (whole) or up to a character ``budget`` (rule above)."""
    a = Assembler(budget)
    for i, c in enumerate(ranked):
        if (k is not None and i >= k) or a.full:
            break
        a.add(c)
    return a.by_doc, a.used, a.text()


def retrieved_count(gold: Sequence[GoldPassage], merged: dict[str, list[tuple[int, int]]]) -> int:
    return sum(1 for d, s, e in gold if is_retrieved(s, e, merged.get(d, [])))
