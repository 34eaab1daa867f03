"""BM25Okapi with sparse matrices, score-for-score equal to rank_bm25.BM25Okapi.

rank_bm25 semantics: idf = log(N - df + 0.5) - log(df + 0.5); a negative idf is replaced by
epsilon x the mean idf over the vocabulary; repeated query tokens count once per
occurrence; unknown tokens score 0. Document weights are precomputed into one CSR matrix,
so a query is one sparse product instead of a Python loop over documents.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from scipy import sparse

from ..storage import atomic_path, write_parquet


@dataclass
class BM25Index:
    vocab: dict[str, int]
    idf: np.ndarray            # (V,)
    weights: sparse.csr_matrix  # (N, V): tf*(k1+1) / (tf + k1*(1-b+b*dl/avgdl))
    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25

    @classmethod
    def build(cls, docs_tokens: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75,
              epsilon: float = 0.25) -> "BM25Index":
        vocab: dict[str, int] = {}
        rows, cols, tfs = [], [], []
        lengths = np.zeros(len(docs_tokens), dtype=np.float64)
        for i, toks in enumerate(docs_tokens):
            lengths[i] = len(toks)
            for tok, tf in Counter(toks).items():
                j = vocab.setdefault(tok, len(vocab))
                rows.append(i)
                cols.append(j)
                tfs.append(tf)
        n = len(docs_tokens)
        rows_a, cols_a, tf_a = np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64), np.array(tfs, dtype=np.float64)
        avgdl = lengths.sum() / n if n else 0.0
        df = np.bincount(cols_a, minlength=len(vocab)).astype(np.float64)
        idf = np.log(n - df + 0.5) - np.log(df + 0.5)
        if len(idf):
            eps = epsilon * (idf.sum() / len(idf))
            idf = np.where(idf < 0, eps, idf)
        norm = k1 * (1 - b + b * lengths / avgdl) if avgdl else np.full(n, k1)
        data = tf_a * (k1 + 1) / (tf_a + norm[rows_a])
        weights = sparse.csr_matrix((data, (rows_a, cols_a)), shape=(n, len(vocab)))
        return cls(vocab, idf, weights, k1, b, epsilon)

    @property
    def size(self) -> int:
        return self.weights.shape[0]

    def query_vector(self, tokens: Sequence[str]) -> np.ndarray:
        q = np.zeros(len(self.vocab), dtype=np.float64)
        for tok in tokens:
            j = self.vocab.get(tok)
            if j is not None:
                q[j] += self.idf[j]
        return q

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        return self.weights @ self.query_vector(tokens)

    def query_matrix(self, queries: Sequence[Sequence[str]]) -> sparse.csr_matrix:
        """(Q, V) sparse query weights: idf summed once per token occurrence."""
        rows, cols, data = [], [], []
        for i, toks in enumerate(queries):
            for tok in toks:
                j = self.vocab.get(tok)
                if j is not None:
                    rows.append(i)
                    cols.append(j)
                    data.append(self.idf[j])
        m = sparse.csr_matrix((np.asarray(data, dtype=np.float64), (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
                              shape=(len(queries), len(self.vocab)))
        m.sum_duplicates()
        return m

    @property
    def weights_t(self) -> sparse.csr_matrix:
        """(V, N) transposed weights in CSR, built once: query x weights_t is CSR x CSR."""
        wt = getattr(self, "_weights_t", None)
        if wt is None or wt.shape != self.weights.shape[::-1]:
            wt = self._weights_t = self.weights.T.tocsr()
        return wt

    def scores_many(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """(Q, N) scores for a batch of queries in one sparse product."""
        if not queries:
            return np.zeros((0, self.size))
        return (self.query_matrix(queries) @ self.weights_t).toarray()

    def save(self, folder: str | Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        terms = sorted(self.vocab, key=self.vocab.get)
        write_parquet(folder / "vocab.parquet", pa.table({"term": terms, "idf": self.idf}))
        with atomic_path(folder / "bm25.npz") as tmp:
            with open(tmp, "wb") as fh:
                np.savez(fh, data=self.weights.data, indices=self.weights.indices, indptr=self.weights.indptr,
                         shape=np.array(self.weights.shape), params=np.array([self.k1, self.b, self.epsilon]))

    @classmethod
    def load(cls, folder: str | Path) -> "BM25Index":
        folder = Path(folder)
        vocab_t = pq.read_table(folder / "vocab.parquet")
        terms = vocab_t.column("term").to_pylist()
        with np.load(folder / "bm25.npz", allow_pickle=False) as z:
            weights = sparse.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
            k1, b, eps = (float(x) for x in z["params"])
        return cls({t: i for i, t in enumerate(terms)}, vocab_t.column("idf").to_numpy(), weights, k1, b, eps)


def top_k(scores: np.ndarray, k: int, allowed: np.ndarray | None = None) -> np.ndarray:
    """Indices of the k best scores among the allowed ones, best first, without sorting
    everything (ties broken by lower index, like a stable sort)."""
    if allowed is not None:
        rows = np.flatnonzero(allowed)
        return rows[top_k(scores[rows], k)]
    n = scores.shape[0]
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < n:
        part = np.argpartition(-scores, k - 1)[:k]
        kth = scores[part].min()
        above = np.flatnonzero(scores > kth)              # fewer than k
        tied = np.flatnonzero(scores == kth)[:k - len(above)]  # lowest indices among the ties
        part = np.concatenate([above, tied])
    else:
        part = np.arange(n)
    order = np.lexsort((part, -scores[part]))
    return part[order][:k]
