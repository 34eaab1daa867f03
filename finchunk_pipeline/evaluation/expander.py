"""Bounded parent expansion for scoring: the policy of chunk sets declaring ``expand``.

The retriever returns a chunk; a chunk set with ``expand: N`` delivers its parent section
instead, at most N characters (chunking/expand.py). Parsed documents are read from the
block store on first use and expansions memoised, so an evaluation reads each document once.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pandas as pd
import pyarrow.parquet as pq

from ..storage.blocks import BlockStore


def parent_expander(chunks: pd.DataFrame, manifest_path: Path, blocks: BlockStore,
                    max_chars: int) -> Callable[[int], object]:
    """The expansion of the chunk at a row of ``chunks`` (columns doc_id, view_spans), the
    documents found through the parsed manifest at ``manifest_path``."""
    from ..chunking.expand import expand_chunk

    parsed = pq.read_table(manifest_path, columns=["doc_id", "sha", "parser_key"]).to_pandas()
    where = {d: (k, sha) for d, sha, k in zip(parsed["doc_id"], parsed["sha"], parsed["parser_key"])}
    docs, memo = {}, {}

    def expand(row: int):
        if row not in memo:
            doc_id = chunks["doc_id"].iat[row]
            if doc_id not in docs:
                key, sha = where[doc_id]
                docs[doc_id] = blocks.read(key, sha, doc_id=doc_id)
            memo[row] = expand_chunk({"view_spans": chunks["view_spans"].iat[row]}, docs[doc_id], max_chars)
        return memo[row]

    return expand
