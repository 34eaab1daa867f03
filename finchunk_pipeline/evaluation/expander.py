"""Bounded parent expansion for scoring: the policy of chunk sets declaring ``expand``.

The retriever returns a chunk; a chunk set with ``expand: N`` delivers its parent section
instead, at most N characters (chunking/expand.py). Parsed documents are asked of
``read_document`` (builders/evaluation.py reads them from the block store) on first use and
expansions memoised, so an evaluation reads each document once.

In a context of a given budget, a parent takes at most a ``PARENT_SHARE``-th of it
(``parent_bound``): at 1,500 characters an 800-character parent would be more than half the
context, and one parent around a wrong unit would crowd out the rest. Measured on every dev set
(docs/benchmarks/parent-share.md): the share 3 was chosen leave-one-corpus-out in 4 of 5
splits; it lifts `evidence` on tatqa_dev (+3.3 at 1,500), sec_html_dev's generated gold
(+1.4 at 2,000, +2.4 at 1,500) and financebench_dev (+3.4 filtered at 2,000), costs finqa_dev
0.8 at 1,500 (interval across 0), and changes nothing at 5,000 (800 < 5,000 / 3). A ranking
read as the top k (no budget: `finchunk search -k`, recall@k) keeps the set's own bound;
`finchunk search --budget` and `answers` deliver at their budget.
"""
from __future__ import annotations

from typing import Callable

import pandas as pd

from ..types.blocks import ParsedDocument

PARENT_SHARE = 3   # a parent takes at most a third of a context budget


def parent_bound(max_chars: int, budget: int | None = None, share: float = PARENT_SHARE) -> int:
    """The bound of a parent delivered in a context of ``budget`` characters: the set's own
    ``max_chars``, never more than the budget split ``share`` ways, in whole characters (None:
    no budget, the own bound). bench_parent_share measures other shares."""
    if budget is None:
        return max_chars
    return max(1, min(max_chars, int(budget / share)))


class ParentExpander:
    """``expander(row)``: the expansion of the chunk at a row of ``chunks`` (columns doc_id,
    view_spans) at the set's own bound, its document given by ``read_document(doc_id)``;
    ``expander.at(budget)``: the expander of a context of ``budget`` characters (itself when
    the bound is the same). Expanders of one set share the documents they have read."""

    def __init__(self, chunks: pd.DataFrame, read_document: Callable[[str], ParsedDocument], max_chars: int,
                 _own: "ParentExpander | None" = None):
        self.chunks, self.read_document, self.max_chars = chunks, read_document, max_chars
        self._own = _own or self   # the expander at the set's own bound: the family's documents and members
        self._docs: dict[str, ParsedDocument] = self._own._docs if _own else {}
        self._family: dict[int, ParentExpander] = self._own._family if _own else {max_chars: self}
        self._memo: dict[int, tuple] = {}

    def __call__(self, row: int):
        from ..chunking.expand import expand_chunk

        if row not in self._memo:
            doc_id = self.chunks["doc_id"].iat[row]
            if doc_id not in self._docs:
                self._docs[doc_id] = self.read_document(doc_id)
            self._memo[row] = expand_chunk({"view_spans": self.chunks["view_spans"].iat[row]}, self._docs[doc_id],
                                           self.max_chars)
        return self._memo[row]

    def at(self, budget: int | None) -> "ParentExpander":
        bound = parent_bound(self._own.max_chars, budget)
        if bound not in self._family:
            self._family[bound] = ParentExpander(self.chunks, self.read_document, bound, self._own)
        return self._family[bound]


def parent_expander(chunks: pd.DataFrame, read_document: Callable[[str], ParsedDocument],
                    max_chars: int) -> ParentExpander:
    """The expander of a chunk set with ``expand: max_chars`` (``ParentExpander``)."""
    return ParentExpander(chunks, read_document, max_chars)
