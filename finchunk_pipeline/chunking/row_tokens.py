"""Token counts of a table's row groups, each row and each repeated span counted once.

Row grouping measures many candidate groups of one table (a group grows by doubling, then
a binary search), each repeating the caption, the header rows and cited notes; counted as
texts, the same rows and context are counted again for every candidate. With a by-word
counter (tokens.py: a text's count is the special tokens plus its words' counts) a group
joined by ``SPAN_JOINER`` (whitespace) counts as the sum of its spans' counts, and a span
from one row's start to a later row's end as the sum of those rows' counts when only
whitespace the normalizer keeps lies between each two (no word crosses a row's edge). So
each row is counted once, each other span once per table. tests/test_row_tokens.py checks
it against counting the joined text on random tables.
"""
from __future__ import annotations

from itertools import accumulate
from typing import TYPE_CHECKING

from ..parse.model import Block
from .tokens import _has_deleted_space

if TYPE_CHECKING:
    from .packer import Packer


class RowGroupTokens:
    """``rows(spans)``: the count (special tokens included) of the spans' texts joined by
    SPAN_JOINER, where ``rows`` are a table's body rows in reading order; only for a packer
    whose counts are additive (``Packer.additive``)."""

    def __init__(self, view: str, rows: list[Block], packer: "Packer"):
        self.view, self.packer = view, packer
        self._spans: dict[tuple[int, int], int] = {}
        ordered = all(a.vend < b.vstart for a, b in zip(rows, rows[1:]))
        self.rows = rows if ordered else []  # rows that overlap or touch: every span counted as text
        self.start_at = {r.vstart: k for k, r in enumerate(self.rows)}
        self.end_at = {r.vend: k for k, r in enumerate(self.rows)}
        counts = [n - packer.special for n in packer.count_many([view[r.vstart:r.vend] for r in self.rows])]
        self.prefix = list(accumulate(counts, initial=0))
        cut = [0 if _separates(view[a.vend:b.vstart]) else 1 for a, b in zip(self.rows, self.rows[1:])]
        self.cuts = list(accumulate(cut, initial=0))  # gaps a word may cross, before each row

    def __call__(self, spans: list[tuple[int, int]]) -> int:
        return self.packer.special + sum(self.tokens(s, e) for s, e in spans)

    def tokens(self, s: int, e: int) -> int:
        """The tokens of ``view[s:e]`` without special tokens."""
        i, j = self.start_at.get(s), self.end_at.get(e)
        if i is not None and j is not None and i <= j and self.cuts[j] == self.cuts[i]:
            return self.prefix[j + 1] - self.prefix[i]
        n = self._spans.get((s, e))
        if n is None:
            n = self._spans[(s, e)] = self.packer.count_many([self.view[s:e]])[0] - self.packer.special
        return n


def _separates(gap: str) -> bool:
    """Does ``gap`` keep the words on its two sides apart (whitespace the normalizer keeps)?"""
    return gap.isspace() and not _has_deleted_space(gap)
