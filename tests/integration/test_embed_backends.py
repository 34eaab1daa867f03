"""Embedding backends (FINCHUNK_EMBED_BACKEND): the setting, separate model ids and caches,
the local ONNX export (nothing downloaded) and its vectors against torch's, the static model
distilled locally (or a model2vec folder by path); semantic chunking's sentence embeddings
through the embedding cache."""
from __future__ import annotations

import numpy as np
import pytest

from finchunk_pipeline.hashing import sha256_text
from finchunk_pipeline.models import backends, onnx_backend, static_backend
from finchunk_pipeline.models.embed import Embedder, get_embedder
from tests.tiny_model import tiny_model

needs_onnx = pytest.mark.skipif(not onnx_backend.available(), reason="onnxruntime / onnx not installed (extra 'onnx')")
needs_static = pytest.mark.skipif(not static_backend.available(), reason="model2vec not installed (extra 'static')")

TEXTS = ["Revenue grew 12% to $4.2 billion in fiscal 2024.",
         "The Board proposes a final dividend of 12.5 pence per share.",
         "Operating margin fell as input costs rose; net debt decreased to €1.1 billion at year end.",
         "Goodwill impairment of $310 million was recorded in the Americas segment.", "Cash"]


def test_backend_setting(monkeypatch, tmp_path):
    monkeypatch.delenv("FINCHUNK_EMBED_BACKEND", raising=False)
    assert backends.default_backend() == backends.DEFAULT_BACKEND == "onnx-int8"
    monkeypatch.setenv("FINCHUNK_EMBED_BACKEND", "torch")
    assert backends.default_backend() == "torch"
    monkeypatch.setenv("FINCHUNK_EMBED_BACKEND", "ONNX-int8")
    assert backends.default_backend() == "onnx-int8"
    monkeypatch.setenv("FINCHUNK_EMBED_BACKEND", "Static")
    assert backends.default_backend() == "static"
    monkeypatch.setenv("FINCHUNK_EMBED_BACKEND", "tensorrt")
    with pytest.raises(ValueError, match="torch, onnx, onnx-int8, static"):
        Embedder(cache_dir=tmp_path)


def test_each_backend_has_its_own_model_id_and_cache(tmp_path):
    ids = {b: Embedder(cache_dir=tmp_path, backend=b).model_id for b in backends.BACKENDS}
    assert len(set(ids.values())) == 4
    assert ids["onnx"].startswith(ids["torch"]) and ids["onnx-int8"].endswith(f"onnx-int8-e{onnx_backend.EXPORT_VERSION}")
    assert ids["static"] == f"{ids['torch']}-static-e{static_backend.DISTILL_VERSION}"
    folders = {Embedder(cache_dir=tmp_path, backend=b).cache_folder for b in backends.BACKENDS}
    assert len(folders) == 4
    e = get_embedder(None, tmp_path, backend="onnx")
    assert e is get_embedder(None, tmp_path, backend="onnx") and e is not get_embedder(None, tmp_path, backend="torch")


@needs_onnx
def test_onnx_export_runs_in_a_process_of_its_own_and_a_failure_names_the_model(tmp_path, monkeypatch):
    model = tiny_model(tmp_path / "tiny")
    calls = []
    real_run = onnx_backend.subprocess.run

    def run(cmd, **kw):
        calls.append(cmd)
        return real_run(cmd, **kw)

    monkeypatch.setattr(onnx_backend.subprocess, "run", run)
    path = onnx_backend.export(model, tmp_path / "out", int8=True)
    assert path.name == "model-int8.onnx" and (tmp_path / "out" / "model.onnx").is_file()
    assert len(calls) == 1 and calls[0][1:3] == ["-m", "finchunk_pipeline.models.onnx_backend"]
    assert onnx_backend.export(model, tmp_path / "out", int8=True) == path and len(calls) == 1  # once
    (model / "model.safetensors").write_bytes(b"not weights")  # the export fails in its process
    with pytest.raises(RuntimeError, match=f"exporting {model} to ONNX int8 failed"):
        onnx_backend.export(model, tmp_path / "out2", int8=True)
    assert not (tmp_path / "out2" / "model-int8.onnx").exists()
    assert not list((tmp_path / "out2").glob("*.tmp"))


@pytest.mark.slow
@needs_onnx
def test_onnx_export_is_local_and_close_to_torch(tmp_path):
    cache = tmp_path / "embeddings"
    torch_v = Embedder(cache_dir=cache, backend="torch").encode(TEXTS)
    fp32 = Embedder(cache_dir=cache, backend="onnx")
    v = fp32.encode(TEXTS)
    assert (fp32.export_dir / "model.onnx").is_file()   # exported under <data>/models/<model id>/
    assert fp32.export_dir.parent == tmp_path / "models"
    assert not list(fp32.export_dir.glob("*.tmp"))
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-5)
    assert float((v * torch_v).sum(1).min()) > 0.9999
    int8 = Embedder(cache_dir=cache, backend="onnx-int8")
    w = int8.encode(TEXTS)
    assert (int8.export_dir / "model-int8.onnx").is_file()
    assert 0.97 < float((w * torch_v).sum(1).min()) < 0.99999  # quantised: close, not equal
    # the pipeline call: cached under the backend's own id
    vecs, stats = int8.embed(TEXTS + TEXTS[:2])
    assert stats.embedded == len(TEXTS) and vecs.shape == (len(TEXTS) + 2, 384)
    assert list(int8.cache_folder.glob("shard-*.parquet"))
    assert not Embedder(cache_dir=cache, backend="torch").cache_lookup([])  # nothing mixed


@pytest.mark.slow
def test_semantic_sentences_go_through_the_embedding_cache(tmp_path, monkeypatch):
    import finchunk_pipeline.chunking.semantic as semantic
    from finchunk_pipeline import STRATEGIES
    from finchunk_pipeline.chunking.strategy_context import ChunkingContext
    from finchunk_pipeline.parse import markdown

    text = ("# Results\n\n" + " ".join(f"Revenue in region {i} grew by {i}.{i}% on higher volumes." for i in range(12))
            + "\n\n## Outlook\n\nWe expect margins to improve. Capital expenditure will fall next year.\n")
    doc = markdown.parse("d1", text)
    strategy = STRATEGIES["semantic"]
    semantic._CACHE.clear()
    context = ChunkingContext(embeddings_dir=tmp_path)
    strategy.prepare([(doc, {})], {}, context=context)
    first = [p.view_spans for p in strategy.pieces(doc, {}, {}, context=context)]
    shards = list(tmp_path.rglob("shard-*.parquet"))
    assert shards  # sentence vectors were written to the cache folder
    semantic._CACHE.clear()  # a new process: the memo is empty, the cache folder is not

    def no_model(texts):
        raise AssertionError("a cached sentence was embedded again")
    monkeypatch.setattr(semantic._embedder(context), "encode", no_model)
    again = [p.view_spans for p in strategy.pieces(doc, {}, {}, context=context)]
    assert again == first
    semantic._CACHE.clear()


def test_semantic_prepare_changes_no_chunk(monkeypatch):
    """Preparing many documents at once (one embedding call) gives the chunks that chunking
    them one by one gives."""
    import pyarrow.parquet as pq

    import finchunk_pipeline.chunking.semantic as semantic
    from finchunk_pipeline import chunk_document
    from finchunk_pipeline.chunking.document import chunk_documents
    from finchunk_pipeline import ChunkerConfig
    from finchunk_pipeline import select_parser
    from finchunk_pipeline import DEFAULT_CORPUS

    from tests.pins import fake_embed

    calls = []

    def counting(texts, model_path=None):
        calls.append(len(texts))
        return fake_embed(texts)
    monkeypatch.setattr(semantic, "embed", counting)
    recs = pq.read_table(DEFAULT_CORPUS / "documents.parquet").to_pylist()[:10]
    docs = [(select_parser(r["doc_type"], r["format"]).fn(r["doc_id"], r["text"], r), {"title": r["title"]})
            for r in recs]
    config = ChunkerConfig(name="semantic", strategy="semantic")
    together = chunk_documents(config.chunker, docs)
    assert calls[0] == sum(calls[1:])  # prepare: every document's sentences in one call
    one_by_one = [c for d, m in docs for c in chunk_document(config.chunker, d, m)]
    assert [(c.chunk_id, c.view_spans) for c in together] == [(c.chunk_id, c.view_spans) for c in one_by_one]


def test_check_backend_reads_no_environment(monkeypatch):
    monkeypatch.setenv("FINCHUNK_EMBED_BACKEND", "onnx")
    assert backends.check_backend(None) == "onnx-int8" and backends.check_backend(" Torch ") == "torch"
    with pytest.raises(ValueError, match="unknown embedding backend"):
        backends.check_backend("tensorrt")


@needs_static
def test_static_model_is_distilled_locally_once_and_cached_apart(tmp_path, monkeypatch):
    model = tiny_model(tmp_path / "tiny")
    cache = tmp_path / "data" / "embeddings"
    e = Embedder(model_path=str(model), cache_dir=cache, backend="static")
    v = e.encode(TEXTS)
    folder = e.export_dir / f"static-e{static_backend.DISTILL_VERSION}"
    assert static_backend.is_static_model(folder)                # distilled under <data>/models/<model id>/
    assert e.export_dir.parent == tmp_path / "data" / "models"
    assert not [p for p in e.export_dir.iterdir() if p.name.endswith(".tmp")]
    assert v.shape == (len(TEXTS), 32) and e.dim == 32          # PCA to at most the model's width
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-5)
    assert float((v[0] * v[1]).sum()) < 0.999                    # texts differ, vectors differ
    # a later run reuses the distilled folder: distilling again would fail
    monkeypatch.setattr(static_backend, "_distill", lambda *a: (_ for _ in ()).throw(AssertionError("distilled twice")))
    again = Embedder(model_path=str(model), cache_dir=cache, backend="static")
    np.testing.assert_allclose(again.encode(TEXTS), v, rtol=1e-6, atol=1e-6)
    vecs, stats = again.embed(TEXTS + TEXTS[:1])
    assert stats.embedded == len(TEXTS) and again.cache_folder.name.endswith(f"-static-e{static_backend.DISTILL_VERSION}")
    assert not Embedder(model_path=str(model), cache_dir=cache, backend="torch").cache_lookup(
        [sha256_text(TEXTS[0])])  # nothing mixed
    # a whole text counts: the static model reads past MiniLM's 256-token cut
    long_a = "revenue " * 300 + "goodwill impairment"
    long_b = "revenue " * 300 + "dividend per share"
    la, lb = again.encode([long_a, long_b])
    assert float((la * lb).sum()) < 0.99999


@needs_static
def test_a_model2vec_folder_by_path_is_used_as_it_is(tmp_path, monkeypatch):
    model = tiny_model(tmp_path / "tiny")
    first = Embedder(model_path=str(model), cache_dir=tmp_path / "a" / "embeddings", backend="static")
    first.encode(TEXTS[:1])
    distilled = first.export_dir / f"static-e{static_backend.DISTILL_VERSION}"
    monkeypatch.setattr(static_backend, "_distill", lambda *a: (_ for _ in ()).throw(AssertionError("distilled")))
    other = Embedder(model_path=str(distilled), cache_dir=tmp_path / "b" / "embeddings", backend="static")
    np.testing.assert_allclose(other.encode(TEXTS), first.encode(TEXTS), rtol=1e-6, atol=1e-6)
    assert other.model.folder == distilled and not (tmp_path / "b" / "models").exists()
    assert other.model_id != first.model_id  # its own id: the folder's name and fingerprint


def test_static_backend_names_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(static_backend, "available", lambda: False)
    with pytest.raises(RuntimeError, match=r"finchunk_pipeline\[static\]"):
        Embedder(cache_dir=tmp_path, backend="static").encode(["x"])
