"""Bounded parent expansion for scoring: the policy of chunk sets declaring ``expand``.

The retriever returns a chunk; a chunk set with ``expand: N`` delivers its parent section
instead, at most N characters (chunking/expand.py). Parsed documents are asked of
``read_document`` (builders/evaluation.py reads them from the block store) on first use and
expansions memoised, so an evaluation reads each document once.
"""
from __future__ import annotations

from typing import Callable

import pandas as pd

from ..types.blocks import ParsedDocument


def parent_expander(chunks: pd.DataFrame, read_document: Callable[[str], ParsedDocument],
                    max_chars: int) -> Callable[[int], object]:
    """The expansion of the chunk at a row of ``chunks`` (columns doc_id, view_spans), its
    document given by ``read_document(doc_id)``."""
    from ..chunking.expand import expand_chunk

    docs, memo = {}, {}

    def expand(row: int):
        if row not in memo:
            doc_id = chunks["doc_id"].iat[row]
            if doc_id not in docs:
                docs[doc_id] = read_document(doc_id)
            memo[row] = expand_chunk({"view_spans": chunks["view_spans"].iat[row]}, docs[doc_id], max_chars)
        return memo[row]

    return expand
