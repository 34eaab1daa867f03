"""Per chunk set statistics: size, tokens, over-limit fraction, duplication multiplier."""
from __future__ import annotations

import pandas as pd


def chunk_set_stats(chunks: pd.DataFrame, source_chars: int) -> dict:
    n = len(chunks)
    if n == 0:
        return {"chunks": 0, "mean_chars": 0.0, "max_chars": 0, "mean_tokens": 0.0, "max_tokens": 0,
                "over_limit_fraction": 0.0, "duplication": 0.0}
    indexed = chunks["embedding_text"].str.len()
    source = chunks["source_text"].str.len()
    return {
        "chunks": n,
        "mean_chars": float(indexed.mean()),
        "max_chars": int(indexed.max()),
        "mean_tokens": float(chunks["n_tokens"].mean()),
        "max_tokens": int(chunks["n_tokens"].max()),
        "over_limit_fraction": float(chunks["over_limit"].mean()),
        # characters indexed / characters of the source documents: what overlap and headers cost
        "duplication": float(indexed.sum() / source_chars) if source_chars else 0.0,
        "source_duplication": float(source.sum() / source_chars) if source_chars else 0.0,
    }
