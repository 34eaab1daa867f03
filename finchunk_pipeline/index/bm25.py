"""BM25Okapi with sparse matrices, score-for-score equal to rank_bm25.BM25Okapi.

rank_bm25 semantics: idf = log(N - df + 0.5) - log(df + 0.5); a negative idf is replaced by
epsilon x the mean idf over the vocabulary; repeated query tokens count once per
occurrence; unknown tokens score 0.

One departure, where that floor fails: when the mean idf is not positive (a corpus too small
or too uniform for Okapi's idf: two documents, where a term in one of them has idf 0 and one
in both a negative idf), the floor would be negative too, so a matching term would *lower* a
score and a question would rank the documents that share fewer of its words first
(rank_bm25 #26, gensim #2662). There every term takes the smoothed idf of Lucene and of
Robertson's later papers, log(1 + (N - df + 0.5) / (df + 0.5)), which is positive and keeps
the order of df. A corpus whose mean idf is positive (every real one measured) is scored
exactly as rank_bm25 scores it.

Document weights are precomputed into one term-major (CSC) matrix, saved as such: a query
adds up its terms' postings (idf x weight, as bm25s precomputes its scores eagerly) into
one dense row, term by term in vocabulary order, which is exactly the order of the sparse
product ``query_matrix @ weights.T`` — so the scores are that product's, bit for bit.
Common terms are added as dense vectors; top-k needs no full sort (``top_k``).
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np
import pyarrow as pa
from scipy import sparse

from .files import Parts, Traversable, read_table


@dataclass
class BM25Index:
    vocab: dict[str, int]
    idf: np.ndarray             # (V,)
    weights: sparse.csc_matrix  # (N, V), term-major: tf*(k1+1) / (tf + k1*(1-b+b*dl/avgdl))
    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25

    @classmethod
    def build(cls, docs_tokens: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75,
              epsilon: float = 0.25) -> "BM25Index":
        """Term ids in order of first occurrence; (term, document) counts by one sort of the
        token ids, which gives the postings term-major with documents ascending."""
        vocab: dict[str, int] = {}
        n = len(docs_tokens)
        lengths = np.fromiter((len(toks) for toks in docs_tokens), dtype=np.int64, count=n)
        ids = np.fromiter((vocab.setdefault(tok, len(vocab)) for toks in docs_tokens for tok in toks),
                          dtype=np.int64, count=int(lengths.sum()))
        keys, tf = np.unique(ids * max(n, 1) + np.repeat(np.arange(n, dtype=np.int64), lengths), return_counts=True)
        cols_a, rows_a = np.divmod(keys, max(n, 1))
        tf_a, lengths = tf.astype(np.float64), lengths.astype(np.float64)
        avgdl = lengths.sum() / n if n else 0.0
        df = np.bincount(cols_a, minlength=len(vocab))
        idf = np.log(n - df.astype(np.float64) + 0.5) - np.log(df.astype(np.float64) + 0.5)
        if len(idf):
            eps = epsilon * (idf.sum() / len(idf))
            if eps > 0:
                idf = np.where(idf < 0, eps, idf)
            else:   # the floor would be <= 0: smoothed idf (module docstring)
                idf = np.log1p((n - df.astype(np.float64) + 0.5) / (df.astype(np.float64) + 0.5))
        norm = k1 * (1 - b + b * lengths / avgdl) if avgdl else np.full(n, k1)
        data = tf_a * (k1 + 1) / (tf_a + norm[rows_a])
        indptr = np.concatenate([[0], np.cumsum(df)])
        weights = sparse.csc_matrix((data, rows_a, indptr), shape=(n, len(vocab)))
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

    def _postings(self) -> "_Postings":
        """The term-major query structure, built once per index (not stored)."""
        post = getattr(self, "_post", None)
        if post is None or post.weights is not self.weights:
            post = self._post = _Postings.of(self)
        return post

    def query_terms(self, tokens: Sequence[str]) -> list[tuple[int, float, int]]:
        """(term, summed idf, occurrences) of a query's known tokens in vocabulary order: the
        entries of its ``query_matrix`` row (idf added once per occurrence, left to right)."""
        acc: dict[int, tuple[float, int]] = {}
        vocab, idf = self.vocab, self.idf
        for tok in tokens:
            j = vocab.get(tok)
            if j is not None:
                a, n = acc.get(j, (None, 0))
                acc[j] = (idf[j] if a is None else a + idf[j], n + 1)
        return [(j, a, n) for j, (a, n) in sorted(acc.items())]

    def score_into(self, row: np.ndarray, terms: Sequence[tuple[int, float, int]]) -> np.ndarray:
        """One query's scores written into ``row`` (N,), bit-for-bit the sparse product
        ``query_matrix @ weights.T``: each document's score is accumulated from 0 over the
        query's terms in vocabulary order with the same products (idf x weight), straight
        from the term's postings. A common term (in >= 1/_DENSE_DF of the documents) is
        added as one dense vector (0 where absent; x + 0.0 == x), not scattered."""
        p = self._postings()
        first = True
        for j, a, n in terms:
            s, e = p.indptr[j], p.indptr[j + 1]
            if s == e:
                continue
            dense = p.dense.get(j) if n == 1 else None
            if dense is not None:
                if first:
                    np.copyto(row, dense)
                else:
                    np.add(row, dense, out=row)
            else:
                w = p.wdata[s:e] if n == 1 else a * p.data[s:e]
                if first:  # 0 + w == w: the sum starts from the first term's products
                    row.fill(0.0)
                    row[p.indices[s:e]] = w
                else:      # a term's postings hold each document once: no repeated index
                    np.add.at(row, p.indices[s:e], w)
            first = False
        if first:
            row.fill(0.0)
        return row

    def iter_scores(self, queries: Sequence[Sequence[str]]) -> Iterator[np.ndarray]:
        """Each query's (N,) scores in turn, in one reused buffer: read (or copy) a row
        before asking for the next."""
        buf = np.empty(self.size)
        for tokens in queries:
            yield self.score_into(buf, self.query_terms(tokens))

    def scores_many(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """(Q, N) scores for a batch of queries (``score_into`` row by row)."""
        out = np.empty((len(queries), self.size))
        for i, tokens in enumerate(queries):
            self.score_into(out[i], self.query_terms(tokens))
        return out

    def to_files(self) -> Parts:
        """``vocab.parquet`` (term, idf) and ``bm25.npz``: the weights term-major (CSC)."""
        terms = sorted(self.vocab, key=self.vocab.get)
        w = self.weights.tocsc()
        buf = io.BytesIO()
        np.savez(buf, data=w.data, indices=w.indices, indptr=w.indptr, shape=np.array(w.shape),
                 params=np.array([self.k1, self.b, self.epsilon]), layout=np.array("csc"))
        return {"vocab.parquet": pa.table({"term": terms, "idf": self.idf}), "bm25.npz": buf.getvalue()}

    @classmethod
    def from_files(cls, folder: Traversable) -> "BM25Index":
        """Reads the term-major layout, and the document-major one saved before it."""
        vocab_t = read_table(folder / "vocab.parquet")
        terms = vocab_t.column("term").to_pylist()
        with (folder / "bm25.npz").open("rb") as fh, np.load(fh, allow_pickle=False) as z:
            matrix = sparse.csc_matrix if "layout" in z and str(z["layout"]) == "csc" else sparse.csr_matrix
            weights = matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"])).tocsc()
            k1, b, eps = (float(x) for x in z["params"])
        return cls({t: i for i, t in enumerate(terms)}, vocab_t.column("idf").to_numpy(), weights, k1, b, eps)


_DENSE_DF = 4
"""A term in at least 1/_DENSE_DF of the documents is also kept as a dense (N,) vector of its
idf x weight: one contiguous add per query instead of a scatter (5-10x faster per posting at
100k documents). Memory: 8 x N bytes per such term, at most 4/3 of that term's postings."""


@dataclass
class _Postings:
    """Term-major postings of a BM25Index: (indptr, doc indices as intp, weights, weights x
    idf of the term) and the dense vectors of its common terms."""
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    wdata: np.ndarray
    dense: dict[int, np.ndarray]
    weights: sparse.csr_matrix  # the matrix these were built from

    @classmethod
    def of(cls, index: BM25Index) -> "_Postings":
        wt = index.weights.tocsc()
        wt.sort_indices()
        indptr = wt.indptr.astype(np.intp, copy=False)
        indices = wt.indices.astype(np.intp)
        df = np.diff(indptr)
        wdata = index.idf[np.repeat(np.arange(wt.shape[1], dtype=np.intp), df)] * wt.data
        dense = {}
        for j in np.flatnonzero(df * _DENSE_DF >= index.size).tolist():
            vec = dense[j] = np.zeros(index.size)
            vec[indices[indptr[j]:indptr[j + 1]]] = wdata[indptr[j]:indptr[j + 1]]
        return cls(indptr, indices, wt.data, wdata, dense, index.weights)


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
    part = _candidates(scores, k) if k < n else np.arange(n)
    if part is None:
        part = _best(scores, k)
    elif len(part) > k:
        part = part[_best(scores[part], k)]
    order = np.lexsort((part, -scores[part]))
    return part[order][:k].astype(np.int64, copy=False)


def _best(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k best scores (0 < k < len), in no order; ties at the k-th place go to
    the lowest indices."""
    part = np.argpartition(-scores, k - 1)[:k]
    kth = scores[part].min()
    above = np.flatnonzero(scores > kth)                   # fewer than k
    tied = np.flatnonzero(scores == kth)[:k - len(above)]  # lowest indices among the ties
    return np.concatenate([above, tied])


def _candidates(scores: np.ndarray, k: int) -> np.ndarray | None:
    """Ascending indices of a few scores that hold the top k and every tie at its last place,
    or None (small arrays, NaN, heavy ties at the top: the full partition then).

    The scores are cut into groups of ``_BLOCK`` (group c: scores c, c + G, c + 2G, ... with
    G groups, so the group maxima are one vectorised max over a (_BLOCK, G) view). The k-th
    largest group maximum is a floor that at least k scores reach, so the top k and its ties
    are among the scores >= it, and those lie in the groups whose maximum is >= it."""
    nb = scores.shape[0] // _BLOCK
    if nb < 4 * k:
        return None
    grid = scores[:nb * _BLOCK].reshape(_BLOCK, nb)
    tail = scores[nb * _BLOCK:]
    maxima = grid.max(axis=0)
    if np.isnan(maxima).any() or np.isnan(tail).any():
        return None
    floor = np.partition(maxima, nb - k)[nb - k]
    cols = np.flatnonzero(maxima >= floor)
    if len(cols) * 4 > nb:
        return None
    rows, at = np.nonzero(grid[:, cols] >= floor)
    return np.concatenate([rows * nb + cols[at], nb * _BLOCK + np.flatnonzero(tail >= floor)])


_BLOCK = 64
