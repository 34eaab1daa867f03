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
        """(V, N) transposed weights in CSR (term-major: one row of postings per term)."""
        wt = getattr(self, "_weights_t", None)
        if wt is None or wt.shape != self.weights.shape[::-1]:
            wt = self._weights_t = self.weights.T.tocsr()
        return wt

    def _postings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Term-major postings, built once per index: (indptr, doc indices as intp, weights,
        weights x idf of the term). Queries read them directly instead of a sparse product."""
        post = getattr(self, "_post", None)
        if post is None or post[4] is not self.weights:
            wt = self.weights.T.tocsr()
            wt.sort_indices()
            indptr = wt.indptr.astype(np.intp, copy=False)
            term = np.repeat(np.arange(wt.shape[0], dtype=np.intp), np.diff(indptr))
            post = self._post = (indptr, wt.indices.astype(np.intp), wt.data, self.idf[term] * wt.data, self.weights)
        return post[:4]

    def scores_many(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """(Q, N) scores for a batch of queries.

        Bit-for-bit the scores of the sparse product ``query_matrix(queries) @ weights_t``:
        each document's score is accumulated from 0 over the query's terms in the same
        (vocabulary) order with the same products, but straight into a dense row per query
        from the term's postings (no sparse result to build and densify). A term that
        occurs once in the query uses the precomputed idf x weight, the very product the
        sparse path computes."""
        if not queries:
            return np.zeros((0, self.size))
        qm = self.query_matrix(queries)
        indptr, indices, data, wdata = self._postings()
        idf = self.idf
        out = np.zeros((len(queries), self.size))
        q_ptr, q_cols, q_vals = qm.indptr, qm.indices, qm.data
        for i in range(len(queries)):
            row = out[i]
            first = True
            for p in range(q_ptr[i], q_ptr[i + 1]):
                j = q_cols[p]
                a = q_vals[p]
                s, e = indptr[j], indptr[j + 1]
                if s == e:
                    continue
                w = wdata[s:e] if a == idf[j] else a * data[s:e]
                if first:  # 0 + w == w: the sum starts from the first term's products
                    row[indices[s:e]] = w
                    first = False
                else:      # a term's postings hold each document once: no repeated index
                    row[indices[s:e]] += w
        return out

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
    everything (ties broken by lower index, like a stable sort).

    Large arrays skip a full partition: the k-th largest of the block maxima (blocks of
    ``_BLOCK`` scores) is a score that at least k scores reach, so every score of the top k
    (and every tie at its last place) is among the scores >= it; those few are sorted."""
    if allowed is not None:
        rows = np.flatnonzero(allowed)
        return rows[top_k(scores[rows], k)]
    n = scores.shape[0]
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    nb = n // _BLOCK
    if k < n and nb >= 4 * k:
        maxima = scores[:nb * _BLOCK].reshape(nb, _BLOCK).max(axis=1)
        if nb * _BLOCK < n:
            maxima = np.append(maxima, scores[nb * _BLOCK:].max())
        if not np.isnan(maxima).any():
            floor = np.partition(maxima, len(maxima) - k)[len(maxima) - k]
            part = np.flatnonzero(scores >= floor)
            if len(part) >= k:
                order = np.lexsort((part, -scores[part]))
                return part[order][:k].astype(np.int64, copy=False)
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


_BLOCK = 64
