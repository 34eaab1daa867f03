"""Token counts of a table's row groups, each row and each repeated span counted once.

Row grouping measures many candidate groups of one table (a group grows by doubling, then
a binary search), each repeating the caption, the header rows and cited notes; counted as
texts, the same rows and context are counted again for every candidate. With a by-word
counter (tokens.py: a text's count is the special tokens plus its words' counts) a group
joined by ``SPAN_JOINER`` (whitespace) counts as the sum of its spans' counts, and a span
from one row's start to a later row's end as the sum of those rows' counts when only
whitespace the normalizer keeps lies between each two (no word crosses a row's edge). So
each row is counted once, each other span once per table. tests/unit/test_row_tokens.py checks
it against counting the joined text on random tables.
"""
from __future__ import annotations

from itertools import accumulate
from typing import Callable

from ..models.tokens import has_deleted_space
from ..types.blocks import Block
from .tables import spans_text

Spans = list[tuple[int, int]]


class TableCounts:
    """A packer's ``measure`` of one table's candidate groups (counts with special tokens,
    only ever compared with ``limit``): each group counted once, by its joined text up to
    the limit (``count_capped``), or row by row once ``by_rows`` has the body rows."""

    def __init__(self, view: str, limit: int, count_capped: Callable[[list[str], list[int]], list[int]],
                 count_many: Callable[[list[str]], list[int]], special: int):
        self.view, self.limit, self.count_capped, self.count_many, self.special = \
            view, limit, count_capped, count_many, special
        self.known: dict[tuple[tuple[int, int], ...], int] = {}
        self.rows: RowGroupTokens | None = None

    def __call__(self, spans: Spans) -> int:
        key = tuple(spans)
        n = self.known.get(key)
        if n is None:
            n = self.known[key] = self.rows(spans) if self.rows is not None else \
                self.count_capped([spans_text(self.view, spans)], [self.limit])[0]
        return n

    def by_rows(self, rows: list[Block]) -> None:
        """Count further groups row by row (for additive counts only)."""
        self.rows = RowGroupTokens(self.view, rows, self.count_many, self.special)


class RowGroupTokens:
    """``rows(spans)``: the count (special tokens included) of the spans' texts joined by
    SPAN_JOINER, where ``rows`` are a table's body rows in reading order; for additive
    counts only (``count_many``: counts with ``special`` tokens each)."""

    def __init__(self, view: str, rows: list[Block], count_many: Callable[[list[str]], list[int]], special: int):
        self.view, self.count_many, self.special = view, count_many, special
        self._spans: dict[tuple[int, int], int] = {}
        ordered = all(a.vend < b.vstart for a, b in zip(rows, rows[1:]))
        self.rows = rows if ordered else []  # rows that overlap or touch: every span counted as text
        self.start_at = {r.vstart: k for k, r in enumerate(self.rows)}
        self.end_at = {r.vend: k for k, r in enumerate(self.rows)}
        counts = [n - special for n in count_many([view[r.vstart:r.vend] for r in self.rows])]
        self.prefix = list(accumulate(counts, initial=0))
        cut = [0 if _separates(view[a.vend:b.vstart]) else 1 for a, b in zip(self.rows, self.rows[1:])]
        self.cuts = list(accumulate(cut, initial=0))  # gaps a word may cross, before each row

    def __call__(self, spans: Spans) -> int:
        return self.special + sum(self.tokens(s, e) for s, e in spans)

    def tokens(self, s: int, e: int) -> int:
        """The tokens of ``view[s:e]`` without special tokens."""
        i, j = self.start_at.get(s), self.end_at.get(e)
        if i is not None and j is not None and i <= j and self.cuts[j] == self.cuts[i]:
            return self.prefix[j + 1] - self.prefix[i]
        n = self._spans.get((s, e))
        if n is None:
            n = self._spans[(s, e)] = self.count_many([self.view[s:e]])[0] - self.special
        return n


def _separates(gap: str) -> bool:
    """Does ``gap`` keep the words on its two sides apart (whitespace the normalizer keeps)?"""
    return gap.isspace() and not has_deleted_space(gap)
