"""The retriever interface the evaluation and search use, and the BM25 retriever.

A retriever ranks the rows of one chunk set (row i = row i of chunks.parquet).
``allowed`` restricts ranking to a boolean row mask *before* ranking (filters, as_of).
"""
from __future__ import annotations

from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from .bm25 import BM25Index, top_k
from .tokenize import tokenize

Hits = list[tuple[int, float]]  # (row, score), best first


class Retriever(Protocol):
    name: str

    def search_many(self, queries: Sequence[str], k: int,
                    allowed: Sequence[np.ndarray | None] | None = None) -> list[Hits]: ...


class BM25Retriever:
    name = "bm25"

    def __init__(self, index: BM25Index):
        self.index = index

    @classmethod
    def build(cls, texts: Sequence[str]) -> "BM25Retriever":
        return cls(BM25Index.build([tokenize(t) for t in texts]))

    @classmethod
    def load(cls, folder: str | Path) -> "BM25Retriever":
        return cls(BM25Index.load(folder))

    def save(self, folder: str | Path) -> None:
        self.index.save(folder)

    def search_many(self, queries, k, allowed=None) -> list[Hits]:
        out: list[Hits] = []
        batch = max(1, min(256, 8_000_000 // max(self.index.size, 1)))  # (batch, N) dense scores stay small
        for i in range(0, len(queries), batch):
            scores = self.index.scores_many([tokenize(q) for q in queries[i:i + batch]])
            for j, row in enumerate(scores):
                mask = allowed[i + j] if allowed is not None else None
                idx = top_k(row, k, mask)
                out.append([(int(r), float(row[r])) for r in idx])
        return out
