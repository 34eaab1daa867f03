"""Sparse BM25 against rank_bm25.BM25Okapi: same scores, same top-k; top_k, masks, save/load."""
from __future__ import annotations

import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from finchunk_pipeline.index.bm25 import BM25Index, top_k
from finchunk_pipeline.index.bm25_retriever import BM25Retriever
from finchunk_pipeline.storage.indexes import save_index


def random_corpus(seed: int, n_docs: int, vocab: int, common: int = 3):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocab)]
    commons = [f"c{i}" for i in range(common)]  # in most documents: negative idf in rank_bm25
    docs = []
    for _ in range(n_docs):
        doc = [rng.choice(words) for _ in range(rng.randint(1, 30))]
        doc += [c for c in commons if rng.random() < 0.8]
        rng.shuffle(doc)
        docs.append(doc)
    queries = []
    for _ in range(25):
        q = [rng.choice(words) for _ in range(rng.randint(1, 5))]
        q += rng.sample(commons, rng.randint(0, len(commons)))
        q += ["unknown-token"] * rng.randint(0, 1)
        if rng.random() < 0.5:
            q += q[:2]  # repeated query tokens count once per occurrence
        queries.append(q)
    return docs, queries


def reference_top(scores: np.ndarray, k: int) -> np.ndarray:
    return np.argsort(-scores, kind="stable")[:k]


@pytest.mark.parametrize("seed,n_docs,vocab", [(0, 40, 30), (1, 200, 120), (3, 500, 60)])
def test_scores_equal_rank_bm25(seed, n_docs, vocab):
    docs, queries = random_corpus(seed, n_docs, vocab)
    ref = BM25Okapi(docs)
    assert ref.average_idf > 0   # a corpus Okapi's idf suits: scored exactly as rank_bm25 scores it
    ours = BM25Index.build(docs)
    batch = ours.scores_many(queries)
    for q, row in zip(queries, batch):
        expected = ref.get_scores(q)
        np.testing.assert_allclose(row, expected, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(ours.scores(q), expected, rtol=1e-9, atol=1e-9)
        # same top-10: identical scores in identical order (ties resolved by lower index)
        got = top_k(row, 10)
        np.testing.assert_array_equal(got, reference_top(expected, 10))


def _smoothed(ref: BM25Okapi) -> BM25Okapi:
    """rank_bm25's index with Lucene's smoothed idf, log(1 + (N - df + 0.5) / (df + 0.5))."""
    df: dict[str, int] = {}
    for freqs in ref.doc_freqs:
        for w in freqs:
            df[w] = df.get(w, 0) + 1
    ref.idf = {w: float(np.log1p((ref.corpus_size - d + 0.5) / (d + 0.5))) for w, d in df.items()}
    return ref


def test_a_corpus_too_small_for_okapis_idf_takes_the_smoothed_idf():
    """Seven documents over ten words: the mean idf is negative, so rank_bm25's floor (epsilon x
    the mean) is negative too and a matching word lowers a score. Every term then takes the
    smoothed idf: positive, scores equal to rank_bm25's formula with that idf."""
    docs, queries = random_corpus(2, 7, 10)
    ref = BM25Okapi(docs)
    assert ref.average_idf < 0
    ours = BM25Index.build(docs)
    assert (ours.idf > 0).all()
    smoothed = _smoothed(ref)
    for q in queries:
        np.testing.assert_allclose(ours.scores(q), smoothed.get_scores(q), rtol=1e-9, atol=1e-9)


def test_two_documents_rank_the_one_a_question_names_first():
    """Two documents (a user's first folder): under Okapi's idf a word in one of two documents
    has idf 0 and a word in both a negative idf, so the document prior ranked the document
    sharing *fewer* of the question's words first, with scores near -1e11 (the prior divides
    by the best document score, floored at 1e-12). Now the named company's chunks come first
    and every score lies in [0, 1 + prior]."""
    apple = ["Apple net sales by segment: Americas 167,045; Europe 101,328.", "Apple risk factors: supply chain.",
             "Apple revenue grew in services."]
    coke = ["Coca-Cola unit case volume grew 2%.", "Coca-Cola revenue by segment: EMEA, Latin America.",
            "Coca-Cola dividends paid."]
    r = BM25Retriever.build(apple + coke, doc_ids=["apple"] * 3 + ["coke"] * 3,
                            doc_texts={"apple": " ".join(apple), "coke": " ".join(coke)})
    for question, first in (("Apple net sales by segment Americas", {0, 1, 2}),
                            ("Coca-Cola unit case volume", {3, 4, 5})):
        hits = r.search_many([question], 6)[0]
        assert {row for row, _ in hits[:3]} == first, (question, hits)
        assert hits[0][0] in (0, 3)
        assert all(0.0 <= score <= 1.0 + r.doc_prior for _, score in hits), hits


def test_negative_idf_words_get_epsilon():
    docs = [["c", "a"], ["c", "b"], ["c", "d"], ["c"], ["e"]]  # "c" in 4 of 5 docs: raw idf < 0
    ref = BM25Okapi(docs)
    ours = BM25Index.build(docs)
    assert ref.idf["c"] == pytest.approx(ours.idf[ours.vocab["c"]])
    np.testing.assert_allclose(ours.scores(["c", "c", "zzz"]), ref.get_scores(["c", "c", "zzz"]))


def test_unknown_only_query_scores_zero():
    ours = BM25Index.build([["a", "b"], ["b", "c"]])
    assert not ours.scores_many([["nope"], []]).any()


def test_top_k_ties_and_partial_sort():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 60))
        scores = rng.integers(0, 4, n).astype(float)  # many ties
        k = int(rng.integers(0, n + 3))
        np.testing.assert_array_equal(top_k(scores, k), reference_top(scores, k))
        mask = rng.random(n) < 0.5
        got = top_k(scores, k, mask)
        rows = np.flatnonzero(mask)
        np.testing.assert_array_equal(got, rows[reference_top(scores[rows], k)])
        assert mask[got].all()


def test_retriever_honours_allowed_masks():
    docs = ["revenue grew strongly", "revenue fell", "dividend per share", "revenue and dividend"]
    r = BM25Retriever.build(docs)
    mask = np.array([False, True, True, False])
    hits = r.search_many(["revenue dividend", "revenue"], 3, [mask, None])
    assert {row for row, _ in hits[0]} <= {1, 2} and len(hits[0]) == 2
    assert hits[1][0][0] in (0, 1, 3)
    assert r.search_many(["revenue"], 3, [np.zeros(4, bool)]) == [[]]


def test_save_load_round_trip(tmp_path):
    docs, queries = random_corpus(5, 80, 40)
    idx = BM25Index.build(docs, k1=1.2, b=0.6)
    save_index(idx, tmp_path / "bm25")
    back = BM25Index.from_files(tmp_path / "bm25")
    assert back.vocab == idx.vocab and (back.k1, back.b, back.epsilon) == (1.2, 0.6, 0.25)
    np.testing.assert_array_equal(back.scores_many(queries), idx.scores_many(queries))
    assert not list(tmp_path.rglob("*.tmp"))


def test_retriever_batches_cover_every_query():
    r = BM25Retriever.build([f"doc {i} word{i % 7}" for i in range(50)])
    qs = [f"word{i % 7}" for i in range(600)]  # more than one batch
    hits = r.search_many(qs, 2)
    assert len(hits) == 600 and all(len(h) == 2 for h in hits)


def test_scores_many_bit_for_bit_the_sparse_product():
    """The dense accumulation from postings gives exactly the sparse product's scores (same
    terms, same order, same products), repeated and negative-idf query terms included."""
    docs, queries = random_corpus(7, 3000, 400, common=4)
    idx = BM25Index.build(docs)
    queries = queries + [["c0"], ["c0", "c0", "c0"], ["w1", "w1"], [], ["nope", "w3"]]
    expected = (idx.query_matrix(queries) @ idx.weights.T.tocsr()).toarray()
    got = idx.scores_many(queries)
    assert np.array_equal(got, expected)
    assert got.shape == (len(queries), 3000)


@pytest.mark.parametrize("n,k", [(5000, 10), (100_003, 10), (20_000, 1), (9000, 37), (640, 10)])
def test_top_k_large_arrays_block_pruning(n, k):
    """Large arrays take the block-maxima path: still the stable-sort top k, ties included."""
    rng = np.random.default_rng(n + k)
    for scores in (rng.random(n),                                  # distinct
                   rng.integers(0, 5, n).astype(float),              # heavy ties at the top
                   np.where(rng.random(n) < 0.999, 0.0, rng.random(n)),  # mostly zeros (BM25-like)
                   np.zeros(n), -rng.random(n).astype(np.float32)):  # all tied; float32, negative
        np.testing.assert_array_equal(top_k(scores, k), reference_top(scores, k))
        mask = rng.random(n) < 0.3
        rows = np.flatnonzero(mask)
        np.testing.assert_array_equal(top_k(scores, k, mask), rows[reference_top(scores[rows], k)])


def test_common_terms_dense_path_bit_for_bit():
    """Terms in most documents take the dense-vector path (first term, later term, repeated
    term): still exactly the sparse product's scores; iter_scores gives the same rows."""
    docs, queries = random_corpus(11, 400, 50, common=5)
    idx = BM25Index.build(docs)
    assert idx._postings().dense  # the common words are dense
    queries = queries + [["c0", "w1"], ["w1", "c0", "c1"], ["c2", "c2", "w3"], ["c3"], ["c4", "c4"]]
    expected = (idx.query_matrix(queries) @ idx.weights.T.tocsr()).toarray()
    assert np.array_equal(idx.scores_many(queries), expected)
    assert all(np.array_equal(row, e) for row, e in zip(idx.iter_scores(queries), expected))


def test_search_many_ranks_the_score_rows():
    """search_many (row by row, no (Q, N) matrix) = top_k over scores_many, document prior on."""
    texts = [f"revenue w{i % 13} w{i % 7} c{i % 3}" for i in range(300)]
    doc_ids = [f"d{i % 11}" for i in range(300)]
    doc_texts = {d: " ".join(t for t, x in zip(texts, doc_ids) if x == d) for d in set(doc_ids)}
    r = BM25Retriever.build(texts, doc_ids=doc_ids, doc_texts=doc_texts)
    qs = ["revenue w3", "w5 w5 c1", "nothing here", "c0 w12 revenue"]
    mask = np.arange(300) % 2 == 0
    hits = r.search_many(qs, 5, [None, mask, None, mask])
    scores = r.scores_many(qs)
    for h, row, m in zip(hits, scores, [None, mask, None, mask]):
        assert h == [(int(i), float(row[i])) for i in top_k(row, 5, m)]


def test_top_k_candidate_groups_ties_and_nan():
    """Ties at the k-th place across groups and in the tail; NaN falls back to a partition."""
    rng = np.random.default_rng(3)
    n = 64 * 50 + 17
    for _ in range(50):
        scores = np.round(rng.random(n) * 20) / 20  # few distinct values: ties everywhere
        scores[rng.integers(0, n, 3)] = 2.0
        scores[-5:] = rng.choice([0.95, 1.0, 2.0], 5)
        k = int(rng.integers(1, 12))
        np.testing.assert_array_equal(top_k(scores, k), reference_top(scores, k))
    scores = rng.random(n)
    scores[n - 3] = np.nan
    assert len(top_k(scores, 5)) == 5 and not np.isnan(scores[top_k(scores, 5)]).any()


def test_load_reads_the_document_major_layout_saved_before(tmp_path):
    """bm25.npz is saved term-major (CSC); an index saved document-major (CSR, no layout
    entry) still loads to the same weights and scores."""
    docs, queries = random_corpus(9, 120, 40)
    idx = BM25Index.build(docs)
    save_index(idx, tmp_path / "new")
    save_index(idx, tmp_path / "old")
    w = idx.weights.tocsr()
    np.savez(tmp_path / "old" / "bm25.npz", data=w.data, indices=w.indices, indptr=w.indptr,
             shape=np.array(w.shape), params=np.array([idx.k1, idx.b, idx.epsilon]))
    new, old = BM25Index.from_files(tmp_path / "new"), BM25Index.from_files(tmp_path / "old")
    assert (new.weights != old.weights).nnz == 0 and np.array_equal(new.idf, old.idf)
    assert np.array_equal(new.scores_many(queries), old.scores_many(queries))
    assert np.array_equal(new.scores_many(queries), idx.scores_many(queries))
