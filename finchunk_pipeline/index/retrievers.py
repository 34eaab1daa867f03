"""Build, save and load the retrievers of a chunk set by name."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .retriever import BM25Retriever

KNOWN = ("bm25",)


def build_bm25(chunks: pd.DataFrame, folder: str | Path) -> BM25Retriever:
    retriever = BM25Retriever.build(chunks["embedding_text"].tolist())
    retriever.save(Path(folder) / "bm25")
    return retriever


def load_retriever(name: str, index_dir: str | Path, chunks: pd.DataFrame | None = None,
                   model_path: str | None = None):
    index_dir = Path(index_dir)
    if name == "bm25":
        return BM25Retriever.load(index_dir / "bm25")
    raise ValueError(f"unknown retriever {name!r}; known: {KNOWN}")
