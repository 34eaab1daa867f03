"""Dense index (FAISS), embedding cache, hybrid fusion, masks across all three retrievers."""
from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest

from finchunk_pipeline.index import dense as dense_mod
from finchunk_pipeline.models import embed as embed_mod
from finchunk_pipeline.index.bm25_retriever import BM25Retriever
from finchunk_pipeline.index.dense import DenseIndex, DenseRetriever
from finchunk_pipeline.storage.indexes import save_index
from finchunk_pipeline.models.embed import Embedder
from finchunk_pipeline.index.hybrid import DENSE_WEIGHT, NAMED_DENSE_WEIGHT, HybridRetriever, rrf_fuse, weighted_fuse

DIM = 64


def bag_vector(text: str) -> np.ndarray:
    """Deterministic bag-of-words vector: shared words -> similar vectors."""
    v = np.zeros(DIM, dtype=np.float32)
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        h = int(hashlib.md5(w.encode()).hexdigest(), 16)
        v[h % DIM] += 1.0 if (h >> 8) & 1 else -1.0
    if not v.any():
        v[0] = 1.0
    return v


class FakeModel:
    """Stands in for SentenceTransformer: counts calls and texts."""

    def __init__(self):
        self.calls, self.texts, self.batches = 0, [], []

    def encode(self, texts, batch_size=32, normalize_embeddings=True, **kw):
        self.calls += 1
        self.texts.extend(texts)
        self.batches.append(list(texts))
        return np.stack([bag_vector(t) for t in texts])

    def get_sentence_embedding_dimension(self):
        return DIM


def fake_embedder(tmp_path, model_path="fake-model") -> Embedder:
    e = Embedder(model_path=model_path, cache_dir=tmp_path / "emb", batch_size=4)
    e._model = FakeModel()
    return e


# -- embedding cache ------------------------------------------------------------------------

def test_embed_dedups_sorts_normalizes_and_caches(tmp_path):
    e = fake_embedder(tmp_path)
    texts = ["a b c d e f", "revenue", "revenue", "x y", "long text " * 5, "x y"]
    seen = []
    vecs, stats = e.embed(texts, progress=lambda d, t: seen.append((d, t)))
    assert vecs.dtype == np.float32 and vecs.shape == (6, DIM)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(vecs[1], vecs[2])
    assert sorted(e._model.texts) == sorted(set(texts))  # every distinct text once
    assert (stats.unique, stats.embedded, stats.cache_hits) == (4, 4, 0)
    lengths = [len(t) for b in e._model.batches for t in b]
    assert lengths == sorted(lengths, reverse=True)  # batched by length
    assert seen[0] == (0, 4) and seen[-1] == (4, 4)
    assert list((tmp_path / "emb" / e.model_id).glob("shard-*.parquet"))

    # second call: a fresh embedder (new process) on the same cache embeds nothing
    e2 = fake_embedder(tmp_path)
    vecs2, stats2 = e2.embed(texts)
    assert e2._model.calls == 0 and stats2.embedded == 0 and stats2.cache_hits == 4
    np.testing.assert_allclose(vecs2, vecs, rtol=1e-6)

    # a new chunk-set version sharing texts embeds only the new ones
    vecs3, stats3 = e2.embed(["revenue", "brand new text", "x y"])
    assert e2._model.texts == ["brand new text"] and stats3.cache_hits == 2


def test_cache_is_per_model(tmp_path):
    a = fake_embedder(tmp_path, "model-a")
    a.embed(["t1", "t2"])
    b = fake_embedder(tmp_path, "model-b")
    _, stats = b.embed(["t1"])
    assert a.model_id != b.model_id and stats.embedded == 1


def test_cache_compaction_keeps_every_vector(tmp_path, monkeypatch):
    monkeypatch.setattr(embed_mod, "MAX_SHARDS", 3)
    e = fake_embedder(tmp_path)
    for i in range(6):
        e.embed([f"text {i}", "shared"])
    assert len(list(e.cache_folder.glob("shard-*.parquet"))) <= 3
    e2 = fake_embedder(tmp_path)
    _, stats = e2.embed([f"text {i}" for i in range(6)] + ["shared"])
    assert stats.embedded == 0 and stats.cache_hits == 7


def test_embed_queries_memoised_not_cached(tmp_path):
    e = fake_embedder(tmp_path)
    q = e.embed_queries(["q one", "q two", "q one"])
    assert q.shape == (3, DIM) and e._model.calls == 1 and len(e._model.texts) == 2
    e.embed_queries(["q two"])
    assert e._model.calls == 1
    assert not e.cache_folder.exists()


def test_model_module_not_imported_at_import_time():
    import subprocess
    import sys

    code = ("import sys, finchunk_pipeline.models.embed, finchunk_pipeline.index.dense, "
            "finchunk_pipeline.index.hybrid, finchunk_pipeline.index.registry, finchunk_pipeline.index.entries.bm25, "
            "finchunk_pipeline.index.entries.dense, finchunk_pipeline.index.entries.hybrid, "
            "finchunk_pipeline.index.search; "
            "print('sentence_transformers' in sys.modules, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


# -- FAISS index -----------------------------------------------------------------------------

def unit(rng, n, d=32):
    v = rng.standard_normal((n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def brute(vecs, q, k, mask=None):
    s = vecs @ q
    rows = np.arange(len(vecs)) if mask is None else np.flatnonzero(mask)
    order = rows[np.argsort(-s[rows], kind="stable")][:k]
    return [int(r) for r in order]


def test_flat_search_exact_with_and_without_masks(monkeypatch):
    rng = np.random.default_rng(0)
    vecs, qs = unit(rng, 300), unit(rng, 12)
    idx = DenseIndex.build(vecs)
    masks = [rng.random(300) < p for p in (0.02, 0.3, 0.9)] * 4
    masks[0][:] = False
    plain = idx.search_many(qs, 7)
    for q, hits in zip(qs, plain):
        assert [r for r, _ in hits] == brute(vecs, q, 7)
    for fraction in (0.0, 1.1, dense_mod.SUBSET_FRACTION):  # full product + mask / allowed rows only / mixed
        monkeypatch.setattr(dense_mod, "SUBSET_FRACTION", fraction)
        monkeypatch.setattr(dense_mod, "BLOCK_CELLS", 1000)  # several query blocks
        got = idx.search_many(qs, 7, masks)
        for q, m, hits in zip(qs, masks, got):
            assert [r for r, _ in hits] == brute(vecs, q, 7, m)
            assert all(m[r] for r, _ in hits)
            np.testing.assert_allclose([s for _, s in hits], [float(vecs[r] @ q) for r, _ in hits], rtol=1e-5)


def test_hnsw_masks_and_round_trip(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    vecs, qs = unit(rng, 400), unit(rng, 5)
    idx = DenseIndex.build(vecs, [f"c{i}" for i in range(400)], kind="hnsw")
    mask = rng.random(400) < 0.5
    monkeypatch.setattr(dense_mod, "EXACT_LIMIT", 0)  # exercise the selector path
    for hits in idx.search_many(qs, 10, [mask] * 5):
        assert len(hits) == 10 and all(mask[r] for r, _ in hits)
    save_index(idx, tmp_path / "dense")
    back = DenseIndex.from_files(tmp_path / "dense")
    assert back.kind == "hnsw" and back.row_ids == idx.row_ids
    assert back.search_many(qs, 10) == idx.search_many(qs, 10)


def test_flat_round_trip_no_pickle(tmp_path):
    rng = np.random.default_rng(2)
    vecs, qs = unit(rng, 50), unit(rng, 3)
    idx = DenseIndex.build(vecs, [f"c{i}" for i in range(50)])
    save_index(idx, tmp_path / "dense", extra={"model_id": "m"})
    assert sorted(p.name for p in (tmp_path / "dense").iterdir()) == ["dense.json", "index.faiss", "rows.parquet"]
    back = DenseIndex.from_files(tmp_path / "dense")
    assert back.search_many(qs, 5) == idx.search_many(qs, 5)
    np.testing.assert_array_equal(back.vectors, vecs)
    assert DenseIndex.meta(tmp_path / "dense")["model_id"] == "m"


# -- hybrid ------------------------------------------------------------------------------------

class Stub:
    def __init__(self, name, hits):
        self.name, self.hits = name, hits

    def search_many(self, queries, k, allowed=None):
        out = []
        for i, _ in enumerate(queries):
            hits = self.hits
            if allowed is not None and allowed[i] is not None:
                hits = [h for h in hits if allowed[i][h[0]]]
            out.append(hits[:k])
        return out


def test_rrf_arithmetic_hand_made():
    bm25 = Stub("bm25", [(3, 9.0), (1, 5.0), (7, 1.0)])
    dense = Stub("dense", [(1, 0.9), (4, 0.8), (3, 0.7)])
    h = HybridRetriever(bm25, dense, method="rrf", rrf_k=60)
    got = h.search_many(["q"], 4)[0]
    expected = {1: 1 / 62 + 1 / 61, 3: 1 / 61 + 1 / 63, 4: 1 / 62, 7: 1 / 63}
    assert [r for r, _ in got] == [1, 3, 4, 7]
    for r, s in got:
        assert s == pytest.approx(expected[r])
    assert rrf_fuse([[(5, 1.0)], [(5, 2.0)]], 1, rrf_k=0) == [(5, 2.0)]


def test_weighted_rrf_is_the_default_and_lets_dense_reorder_only_near_ties():
    bm25 = Stub("bm25", [(3, 9.0), (1, 5.0), (7, 1.0)])
    dense = Stub("dense", [(1, 0.9), (4, 0.8), (3, 0.7)])
    got = HybridRetriever(bm25, dense).search_many(["q"], 4)[0]
    w_b, w_d = 2 * (1 - DENSE_WEIGHT), 2 * DENSE_WEIGHT
    expected = {3: w_b / 61 + w_d / 63, 1: w_b / 62 + w_d / 61, 7: w_b / 63, 4: w_d / 62}
    assert [r for r, _ in got] == [3, 1, 7, 4]  # BM25's order; plain RRF put dense's 1 and 4 first: [1, 3, 4, 7]
    for r, s in got:
        assert s == pytest.approx(expected[r])
    # dense decides between BM25 neighbours of nearly equal rank: its own second is lifted over BM25's first
    # when BM25 has them one rank apart and dense far apart
    near = HybridRetriever(Stub("b", [(0, 2.0), (1, 1.9)]), Stub("d", [(1, 0.9)] + [(i, 0.5) for i in range(2, 40)] + [(0, 0.1)]))
    assert [r for r, _ in near.search_many(["q"], 2)[0]] == [1, 0]
    assert rrf_fuse([[(5, 1.0)], [(6, 1.0)]], 2, weights=(1.0, 3.0)) == [(6, 3 / 61), (5, 1 / 61)]
    assert rrf_fuse([[(5, 1.0)], [(6, 1.0)]], 2) == rrf_fuse([[(5, 1.0)], [(6, 1.0)]], 2, weights=(1.0, 1.0))
    with pytest.raises(ValueError, match="between 0 and 1"):
        HybridRetriever(bm25, dense, weight=1.5)


def test_a_query_that_names_a_document_gives_dense_the_named_weight():
    """wrrf's dense weight is per query: NAMED_DENSE_WEIGHT (0.25) when ``names`` says the query
    names a document, DENSE_WEIGHT (0.05) otherwise. Hand-computed: BM25 ranks rows 3, 1, 7;
    dense ranks 1, 4, 5, 6, 3. Row 3 (BM25 1st, dense 5th) against row 1 (BM25 2nd, dense 1st):
    w = 0.05: 1.9/61 + 0.1/65 = 0.032686 > 1.9/62 + 0.1/61 = 0.032284, BM25's first stays first;
    w = 0.25: 1.5/61 + 0.5/65 = 0.032282 < 1.5/62 + 0.5/61 = 0.032390, dense's first leads."""
    bm25 = Stub("bm25", [(3, 9.0), (1, 5.0), (7, 1.0)])
    dense = Stub("dense", [(1, 0.9), (4, 0.8), (5, 0.7), (6, 0.6), (3, 0.5)])
    asked = []
    h = HybridRetriever(bm25, dense, names=lambda q: asked.append(q) or "Adobe" in q)
    assert h.dense_weights(["Adobe revenue 2017", "revenue 2017"]) == [NAMED_DENSE_WEIGHT, DENSE_WEIGHT]
    named, plain = h.search_many(["Adobe revenue 2017", "revenue 2017"], 4)
    for got, w in ((named, 0.25), (plain, 0.05)):
        b, d = 2 * (1 - w), 2 * w
        expected = {3: b / 61 + d / 65, 1: b / 62 + d / 61, 7: b / 63, 4: d / 62, 5: d / 63, 6: d / 64}
        for r, s in got:
            assert s == pytest.approx(expected[r])
    assert [r for r, _ in plain] == [3, 1, 7, 4]
    assert [r for r, _ in named] == [1, 3, 7, 4]
    assert "Adobe revenue 2017" in asked
    # what search and serve report for one query: the analyzer read once
    asked.clear()
    assert h.fusion("Adobe revenue 2017") == {"dense_weight": NAMED_DENSE_WEIGHT, "names_a_document": True}
    assert asked == ["Adobe revenue 2017"]
    assert h.fusion("revenue 2017") == {"dense_weight": DENSE_WEIGHT, "names_a_document": False}
    assert HybridRetriever(bm25, dense).fusion("Adobe") == {"dense_weight": DENSE_WEIGHT, "names_a_document": False}
    # no names: every query takes DENSE_WEIGHT; an explicit weight is every query's; both given: both used
    assert HybridRetriever(bm25, dense).search_many(["Adobe revenue 2017"], 4)[0] == plain
    fixed = HybridRetriever(bm25, dense, weight=0.25, names=lambda q: True)
    assert fixed.dense_weights(["a", "b"]) == [0.25, 0.25]
    assert HybridRetriever(bm25, dense, weight=0.1, named_weight=0.4, names=lambda q: q == "a").dense_weights(
        ["a", "b"]) == [0.4, 0.1]
    with pytest.raises(ValueError, match="between 0 and 1"):
        HybridRetriever(bm25, dense, named_weight=-0.1)


def test_the_hybrid_loader_weighs_by_the_catalog_of_the_request(tmp_path, monkeypatch):
    """registry.LoadRequest(catalog=...) reaches the hybrid: a query naming an issuer of the
    catalog (routing.analyze: route not 'none') takes the named weight; without a catalog, none does."""
    import pandas as pd

    from finchunk_pipeline.index.entries import hybrid as entry
    from finchunk_pipeline.index.registry import LoadRequest, load_retriever
    from finchunk_pipeline.routing import Catalog

    catalog = Catalog.from_frame(pd.DataFrame([
        {"doc_id": "adbe-2017", "issuer": "Adobe", "ticker": "ADBE", "title": "Adobe 2017 10-K",
         "doc_type": "10-K", "fiscal_year": 2017}]))
    named, unnamed = "What was Adobe's operating cash flow in FY2017?", "What was operating cash flow in 2017?"
    assert entry.names_a_document(catalog)(named) is True
    assert entry.names_a_document(catalog)(unnamed) is False
    assert entry.names_a_document(None) is None
    monkeypatch.setattr(entry, "load_dense", lambda index_dir, request: Stub("dense", []))
    monkeypatch.setattr(entry.BM25Retriever, "from_files", staticmethod(lambda folder: Stub("bm25", [])))
    loaded = load_retriever("hybrid", tmp_path, LoadRequest(catalog=catalog))
    assert loaded.dense_weights([named, unnamed]) == [NAMED_DENSE_WEIGHT, DENSE_WEIGHT]
    assert load_retriever("hybrid", tmp_path, LoadRequest()).dense_weights([named]) == [DENSE_WEIGHT]


def test_a_fused_ranking_read_k_deep_is_the_first_k_of_the_one_the_evaluation_reads():
    """search -k 5 must answer the first 5 of what the evaluation ranks (100 deep). With the
    candidate depth max(50, k), a chunk at BM25 rank 4 and dense rank 60 passed BM25's third
    only in the 100-deep fusion."""
    bm25 = Stub("b", [(i, 100.0 - i) for i in range(120)])
    dense = Stub("d", [(200 + i, 0.9 - i / 1000) for i in range(59)] + [(3, 0.5)] + [(300 + i, 0.1) for i in range(60)])
    h = HybridRetriever(bm25, dense)
    deep = h.search_many(["q"], 100)[0]
    assert [r for r, _ in deep[:4]] == [0, 1, 3, 2]   # dense's vote for row 3 (rank 60) counts
    for k in (1, 3, 5, 50):
        assert h.search_many(["q"], k)[0] == deep[:k]


def test_weighted_fusion_min_max():
    got = weighted_fuse([(0, 10.0), (1, 5.0), (2, 0.0)], [(2, 0.9), (0, 0.5), (3, 0.1)], 4, weight=0.5)
    scores = dict(got)
    assert scores[0] == pytest.approx(0.5 * 1 + 0.5 * 0.5)
    assert scores[1] == pytest.approx(0.5 * 0.5)
    assert scores[2] == pytest.approx(0.5 * 1.0)
    assert scores[3] == pytest.approx(0.0)
    h = HybridRetriever(Stub("b", [(0, 10.0), (1, 5.0)]), Stub("d", [(1, 0.9), (0, 0.1)]), method="weighted", weight=0.9)
    assert h.search_many(["q"], 1)[0][0][0] == 1


DOCS = ["revenue grew to 1,200 million", "dividend of 8 cents per share", "net debt fell",
        "revenue by segment table", "chief executive letter", "dividend policy and payout",
        "auditor opinion on revenue", "cash flow from operations"]


def test_all_three_retrievers_honour_masks(tmp_path):
    e = fake_embedder(tmp_path)
    vecs, _ = e.embed(DOCS)
    bm25 = BM25Retriever.build(DOCS)
    dense = DenseRetriever(DenseIndex.build(vecs, [str(i) for i in range(len(DOCS))]), e)
    hybrid = HybridRetriever(bm25, dense)
    mask = np.array([False, True, False, True, False, True, False, False])
    queries = ["revenue", "dividend", "cash"]
    for r in (bm25, dense, hybrid):
        res = r.search_many(queries, 3, [mask, mask, None])
        for hits in res[:2]:
            assert hits and all(mask[row] for row, _ in hits), r.name
        assert len(res[2]) == 3
        assert r.search_many(["revenue"], 3, [np.zeros(len(DOCS), bool)]) == [[]]
    # dense with a mask = exact top among allowed rows
    q = e.embed_queries(["dividend"])[0]
    assert [row for row, _ in dense.search_many(["dividend"], 3, [mask])[0]] == brute(vecs, q, 3, mask)


# -- the real model (slow: imports sentence-transformers once) ---------------------------------

@pytest.mark.slow
def test_real_model_cache_and_search(tmp_path):
    e = Embedder(cache_dir=tmp_path / "emb")
    texts = ["Revenue grew 12% to EUR 1.2 billion.", "The Board proposes a dividend of 8.4 cents per share.",
             "Net debt fell to EUR 300 million.", "Revenue grew 12% to EUR 1.2 billion."]
    calls = []
    model = e.model
    original = model.encode
    model.encode = lambda batch, **kw: calls.append(len(batch)) or original(batch, **kw)
    vecs, stats = e.embed(texts)
    assert vecs.shape == (4, 384) and vecs.dtype == np.float32 and stats.embedded == 3 and sum(calls) == 3
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    calls.clear()
    again, stats2 = e.embed(texts)
    assert calls == [] and stats2.embedded == 0 and stats2.cache_hits == 3
    np.testing.assert_allclose(again, vecs, atol=1e-6)
    dense = DenseRetriever(DenseIndex.build(vecs), e)
    assert dense.search_many(["how much dividend per share?"], 1)[0][0][0] == 1


# -- a local model by path (FINCHUNK_MODEL): its id in the dense index's key ------------------

def test_a_retrained_model_in_the_same_folder_gets_its_own_id(tmp_path):
    """Same folder name, same configuration, same weight sizes, other weights (a fine-tune
    saved over the old one): another id, so no cached vector or index of the old one is used."""
    from finchunk_pipeline.models.embed import model_id
    from tests.tiny_model import tiny_model

    a = tiny_model(tmp_path / "a" / "finance-minilm", seed=0)
    b = tiny_model(tmp_path / "b" / "finance-minilm", seed=1)
    assert (a / "model.safetensors").stat().st_size == (b / "model.safetensors").stat().st_size
    assert model_id(str(a)) != model_id(str(b))
    assert model_id(str(a)) == model_id(str(tiny_model(tmp_path / "c" / "finance-minilm", seed=0)))


def test_a_changed_model_rebuilds_the_dense_index_and_never_mixes(tmp_path):
    import pandas as pd

    from finchunk_pipeline.builders.indexes import build_index
    from finchunk_pipeline.index.registry import IndexSettings, LoadRequest, load_retriever
    from tests.tiny_model import tiny_model

    a = tiny_model(tmp_path / "models" / "a", hidden=32)
    b = tiny_model(tmp_path / "models" / "b", hidden=48)
    chunks = pd.DataFrame({"chunk_id": [f"c{i}" for i in range(len(DOCS))], "embedding_text": DOCS})
    read = lambda cols: chunks[list(cols)]  # noqa: E731
    emb, index_dir = tmp_path / "embeddings", tmp_path / "index"
    first, key_a = build_index("dense", index_dir, read, "chunks-1", IndexSettings(model_path=str(a), embeddings_dir=emb))
    again, _ = build_index("dense", index_dir, read, "chunks-1", IndexSettings(model_path=str(a), embeddings_dir=emb))
    other, key_b = build_index("dense", index_dir, read, "chunks-1", IndexSettings(model_path=str(b), embeddings_dir=emb))
    assert first.built and not again.built and other.built and key_a != key_b
    assert other.info["dim"] == 48 and other.info["model_id"] != first.info["model_id"]
    # queries by another model than the index's: refused, never ranked across two models
    with pytest.raises(ValueError, match="was built with model"):
        load_retriever("dense", index_dir, LoadRequest(chunks, str(a), emb))
    dense = load_retriever("dense", index_dir, LoadRequest(chunks, str(b), emb))
    assert len(dense.search_many(["dividend"], 3)[0]) == 3


@pytest.mark.slow
def test_pooled_vectors_embed_a_documents_units_once_for_every_chunk_set(tmp_path):
    """FINCHUNK_DENSE_VECTORS=pooled: its own index key; a second chunk set of the same
    document embeds nothing (its units are the first's); the marker says how vectors were made."""
    import pandas as pd

    from finchunk_pipeline.builders.indexes import build_index
    from finchunk_pipeline.index.registry import IndexSettings, LoadRequest, load_retriever
    from tests.tiny_model import tiny_model

    model = tiny_model(tmp_path / "models" / "a", hidden=32)
    view = "\n\n".join(DOCS) + "\n"
    views = lambda doc_ids: {"d": view}  # noqa: E731

    def chunk_set(size: int) -> pd.DataFrame:
        cuts = [(s, min(s + size, len(view))) for s in range(0, len(view), size)]
        return pd.DataFrame({"chunk_id": [f"c{i}" for i in range(len(cuts))], "doc_id": "d",
                             "source_text": [view[s:e] for s, e in cuts],
                             "view_spans": [[{"start": s, "end": e}] for s, e in cuts],
                             "embedding_text": [view[s:e] for s, e in cuts], "over_limit": False})

    emb = tmp_path / "embeddings"
    pooled = IndexSettings(model_path=str(model), embeddings_dir=emb, dense_vectors="pooled", views=views)
    plain = IndexSettings(model_path=str(model), embeddings_dir=emb)
    a, b = chunk_set(60), chunk_set(150)
    first, key_pooled = build_index("dense", tmp_path / "ia", lambda cols: a[list(cols)], "set-a", pooled)
    second, _ = build_index("dense", tmp_path / "ib", lambda cols: b[list(cols)], "set-b", pooled)
    assert first.built and first.info["vectors"] == "pooled" and first.info["embed"]["embedded"] > 0
    assert second.built and second.info["embed"]["embedded"] == 0  # every unit came from the cache
    assert second.info["embed"]["cache_hits"] == first.info["embed"]["unique"]
    direct, key_direct = build_index("dense", tmp_path / "ia", lambda cols: a[["chunk_id", "embedding_text"]][list(cols)],
                                     "set-a", plain)  # reads only the columns it needs
    assert direct.built and key_direct != key_pooled and direct.info["vectors"] == "chunk"
    dense = load_retriever("dense", tmp_path / "ib", LoadRequest(b, str(model), emb))
    assert sorted(i for i, _ in dense.search_many(["dividend"], 5)[0]) == list(range(len(b)))
