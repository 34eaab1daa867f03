"""The retriever interface the evaluation and search use, and the BM25 retriever.

A retriever ranks the rows of one chunk set (row i = row i of chunks.parquet).
``allowed`` restricts ranking to a boolean row mask *before* ranking (filters, as_of).

BM25 here is two indexes over one analyzer (analyzer.py):

- the chunks' indexed text (``embedding_text``): what each chunk says;
- the documents' text (documents.py, the same for every chunk set): which document the
  question is about. A chunk's score is ``chunk / max chunk + doc_prior x document / max
  document`` over the query's scores, so a chunk that matches the question in a document
  that matches it as a whole ranks above an equally good chunk in a document that does not
  (``doc_prior`` 0 = chunk scores alone, ranked exactly as rank_bm25 ranks them). Within one
  document (filtered mode) the prior is a constant and changes nothing.
"""
from __future__ import annotations

from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from ..storage import read_json, write_bytes, write_json
from .analyzer import DEFAULT_ANALYZER, get_analyzer
from .bm25 import BM25Index, top_k

Hits = list[tuple[int, float]]  # (row, score), best first

DEFAULT_DOC_PRIOR = 1.0


class Retriever(Protocol):
    name: str

    def search_many(self, queries: Sequence[str], k: int,
                    allowed: Sequence[np.ndarray | None] | None = None) -> list[Hits]: ...


class BM25Retriever:
    name = "bm25"

    def __init__(self, index: BM25Index, analyzer: str = "plain", doc_index: BM25Index | None = None,
                 row_doc: np.ndarray | None = None, doc_prior: float = 0.0):
        self.index = index
        self.analyzer = get_analyzer(analyzer)
        self.doc_index, self.row_doc = doc_index, row_doc
        self.doc_prior = doc_prior if doc_index is not None else 0.0

    @classmethod
    def build(cls, texts: Sequence[str], analyzer: str = DEFAULT_ANALYZER, doc_ids: Sequence[str] | None = None,
              doc_texts: dict[str, str] | None = None, doc_prior: float = DEFAULT_DOC_PRIOR) -> "BM25Retriever":
        """``doc_ids`` (per row) and ``doc_texts`` (per document) give the document prior."""
        a = get_analyzer(analyzer)
        index = BM25Index.build([a.terms(t) for t in texts])
        if not doc_prior or doc_ids is None or doc_texts is None:
            return cls(index, analyzer)
        docs = sorted(set(doc_ids))
        pos = {d: i for i, d in enumerate(docs)}
        doc_index = BM25Index.build([a.terms(doc_texts.get(d, "")) for d in docs])
        return cls(index, analyzer, doc_index, np.array([pos[d] for d in doc_ids], dtype=np.int64), doc_prior)

    def describe(self) -> dict:
        return {"analyzer": self.analyzer.key, "doc_prior": self.doc_prior}

    def save(self, folder: str | Path) -> None:
        folder = Path(folder)
        self.index.save(folder)
        if self.doc_index is not None:
            self.doc_index.save(folder / "documents")
            write_bytes(folder / "row_doc.npy", _npy(self.row_doc))
        write_json(folder / "retriever.json", {"analyzer": self.analyzer.name, "analyzer_version": self.analyzer.version,
                                               "doc_prior": self.doc_prior})

    @classmethod
    def load(cls, folder: str | Path) -> "BM25Retriever":
        folder = Path(folder)
        meta = read_json(folder / "retriever.json") if (folder / "retriever.json").exists() else {}
        analyzer = meta.get("analyzer", "plain")
        if meta.get("analyzer_version", get_analyzer(analyzer).version) != get_analyzer(analyzer).version:
            raise ValueError(f"{folder}: built with analyzer {analyzer} {meta['analyzer_version']}, "
                             f"this code has {get_analyzer(analyzer).version}; rebuild the index")
        index = BM25Index.load(folder)
        if meta.get("doc_prior") and (folder / "documents").exists():
            row_doc = np.load(folder / "row_doc.npy", allow_pickle=False)
            return cls(index, analyzer, BM25Index.load(folder / "documents"), row_doc, float(meta["doc_prior"]))
        return cls(index, analyzer)

    def scores_many(self, queries: Sequence[str]) -> np.ndarray:
        """(Q, N) ranking scores (chunk BM25, plus the document prior when there is one)."""
        terms = [self.analyzer.query_terms(q) for q in queries]
        scores = self.index.scores_many(terms)
        if not self.doc_prior:
            return scores
        docs = self.doc_index.scores_many(terms)
        cmax = np.maximum(scores.max(axis=1, initial=0.0), 1e-12)[:, None]
        dmax = np.maximum(docs.max(axis=1, initial=0.0), 1e-12)[:, None]
        return scores / cmax + self.doc_prior * (docs / dmax)[:, self.row_doc]

    def search_many(self, queries, k, allowed=None) -> list[Hits]:
        out: list[Hits] = []
        batch = max(1, min(256, 8_000_000 // max(self.index.size, 1)))  # (batch, N) dense scores stay small
        for i in range(0, len(queries), batch):
            scores = self.scores_many(queries[i:i + batch])
            for j, row in enumerate(scores):
                mask = allowed[i + j] if allowed is not None else None
                idx = top_k(row, k, mask)
                out.append([(int(r), float(row[r])) for r in idx])
        return out


def _npy(array: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()
