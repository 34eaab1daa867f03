"""Damaged state heals or says so (issue 27, point 4).

One file of a good data root is truncated (a disk full, a copy cut short, an editor) and the
next run is made on it: every artefact is verified as it is read (artefacts.py: the size and
hash its marker records), and a damaged one is built again from what it was built from, with
a warning naming the file — the run succeeds and its report equals the good run's. A record
of the recall history that is not one is skipped with a warning, like a torn one.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dagster import DagsterInstance

from finchunk_pipeline.storage.artefacts import Artefact, read_marker, reuse_or_build
from finchunk_pipeline.assets.resources import PipelineResource
from finchunk_pipeline.corpus import schema
from finchunk_pipeline.storage.history import append_history, history_dir, load_history
from finchunk_pipeline.models.embed import Embedder
from finchunk_pipeline import DEFAULT_CORPUS

from tests.integration.test_pipeline_dagster import run_all

CHUNKERS = "chunk_sets:\n  - {name: structure, strategy: structure, params: {max_chars: 800}}\n"
DIM = 16


class FakeModel:
    """A deterministic stand-in for the embedding model (bag of words): no model is loaded."""

    def encode(self, texts, **kwargs):
        out = np.zeros((len(texts), DIM), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, sum(map(ord, w)) % DIM] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)

    def get_sentence_embedding_dimension(self):
        return DIM


def _corpus(folder: Path) -> Path:
    """The embedded corpus's annual reports (8 documents, their questions)."""
    folder.mkdir(parents=True)
    docs = pd.read_parquet(DEFAULT_CORPUS / "documents.parquet")
    keep = set(docs.loc[docs["doc_type"] == "annual_report", "doc_id"])
    for name, sch, rows in (("documents", schema.DOCUMENTS, docs[docs["doc_id"].isin(keep)]),
                            ("passages", schema.PASSAGES, None), ("questions", schema.QUESTIONS, None)):
        if rows is None:
            rows = pd.read_parquet(DEFAULT_CORPUS / f"{name}.parquet")
            rows = (rows[rows["doc_id"].isin(keep)] if name == "passages" else
                    rows[rows["doc_ids"].apply(lambda ids: len(ids) > 0 and set(ids) <= keep)][sch.names])
        pq.write_table(pa.Table.from_pandas(rows, schema=sch, preserve_index=False), folder / f"{name}.parquet")
    return folder


def _pipeline(root: Path, corpus: Path, chunkers: Path) -> PipelineResource:
    return PipelineResource(corpus_dir=str(corpus), data_root=str(root / "store"), out_dir=str(root / "out"),
                            chunkers_file=str(chunkers), retrievers="bm25,dense,hybrid")


def _report(root: Path) -> list[dict]:
    """The report's scores (what a damaged artefact must not change)."""
    report = json.loads((root / "out" / "evaluation.json").read_text())
    return [{k: e[k] for k in ("name", "retriever", "mode", "chunks", "curve", "budget")} for e in report["chunk_sets"]]


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A good data root: the annual reports parsed, chunked (structure), indexed (BM25, dense
    with a stand-in model), evaluated and reported."""
    base = tmp_path_factory.mktemp("damaged")
    corpus = _corpus(base / "corpus")
    chunkers = base / "chunkers.yaml"
    chunkers.write_text(CHUNKERS)
    root = base / "good"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Embedder, "model", property(lambda self: FakeModel()))
        assert run_all(_pipeline(root, corpus, chunkers), DagsterInstance.ephemeral()).success
    return root, corpus, chunkers


# kind -> the file truncated (a glob under the data root): every artefact a run reuses
DAMAGES = {
    "raw document": "raw/*.md",
    "parse result": "blocks/parser=markdown*/*.parquet",
    "parse result marker": "blocks/parser=markdown*/*.json",
    "chunks": "corpora/*/chunks/*/chunks.parquet",
    "chunk set manifest": "corpora/*/chunks/*/manifest.json",
    "bm25 index": "corpora/*/indexes/*/bm25/bm25.npz",
    "bm25 vocabulary": "corpora/*/indexes/*/bm25/vocab.parquet",
    "bm25 document index": "corpora/*/indexes/*/bm25/documents/bm25.npz",
    "bm25 marker": "corpora/*/indexes/*/bm25.json",
    "dense index": "corpora/*/indexes/*/dense/index.faiss",
    "dense marker": "corpora/*/indexes/*/dense.json",
    "shared bm25 document index": "corpora/*/bm25_documents/*/bm25.npz",
    "embedding cache shard": "embeddings/*/shard-*.parquet",
    "evaluation.json": "corpora/*/evaluations/*/evaluation.json",
}
# caches are read when what reads them is built: the chunk set's indexes are removed too
REBUILD_READERS = {"shared bm25 document index", "embedding cache shard"}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(DAMAGES))
def test_a_truncated_artefact_is_rebuilt_with_a_warning_naming_it(kind, good, tmp_path, monkeypatch, caplog):
    root, corpus, chunkers = good
    shutil.copytree(root / "store", tmp_path / "store")
    found = sorted((tmp_path / "store").glob(DAMAGES[kind]))
    assert found, f"no {DAMAGES[kind]} in the good data root"
    damaged = found[0]
    good_bytes = damaged.read_bytes()
    with open(damaged, "r+b") as f:
        f.truncate(len(good_bytes) // 2)
    if kind in REBUILD_READERS:
        for indexes in (tmp_path / "store").glob("corpora/*/indexes"):
            shutil.rmtree(indexes)
    monkeypatch.setattr(Embedder, "model", property(lambda self: FakeModel()))

    caplog.set_level("WARNING")
    result = run_all(_pipeline(tmp_path, corpus, chunkers), DagsterInstance.ephemeral())

    assert result.success
    named = damaged.parent if kind == "shared bm25 document index" else damaged
    warnings = [r.getMessage() for r in caplog.records if "damaged artefact" in r.getMessage()]
    assert any(str(named) in w for w in warnings), f"no warning naming {named}: {warnings}"
    assert _report(tmp_path) == _report(root)  # healed: the same scores as the good run
    if kind == "embedding cache shard":  # a cache: set aside, what it held embedded again
        assert damaged.with_name(damaged.name + ".damaged").exists()
    elif kind == "shared bm25 document index":  # a cache: built again (under its key's name)
        assert damaged.read_bytes() == good_bytes
    elif damaged.suffix == ".json":  # a marker: written again, readable, for the same inputs
        assert read_marker(damaged)["inputs"] == json.loads(good_bytes)["inputs"]
    else:  # data: built again, the same bytes
        assert damaged.read_bytes() == good_bytes


def test_a_marker_written_before_records_is_accepted_then_given_them(tmp_path):
    """Existing data roots do not rebuild: a marker without "files" is reused (its data
    exists) and gets the records from the data as it is, so later damage is caught."""
    data = tmp_path / "d"
    data.mkdir()
    (data / "x.bin").write_bytes(b"0123456789")
    art = Artefact(tmp_path / "m.json", (data,))
    art.marker.write_text(json.dumps({"inputs": "k", "rows": 1}))  # as the old code wrote it
    calls = []
    out = reuse_or_build(art, "k", lambda: calls.append(1) or {"rows": 1})
    assert not out.built and not calls
    assert read_marker(art.marker)["files"] == {"d/x.bin": {"bytes": 10, "sha256": out.info["files"]["d/x.bin"]["sha256"]}}
    (data / "x.bin").write_bytes(b"01234")  # damaged after
    assert reuse_or_build(art, "k", lambda: calls.append(1) or {"rows": 1}).built and calls == [1]


def test_an_old_chunk_manifest_is_checked_by_its_size_and_adopted(tmp_path):
    from finchunk_pipeline import ChunkStore

    store = ChunkStore(tmp_path)
    store.write("v", pa.table({"a": [1, 2, 3]}), {"inputs": "k"})
    m = read_marker(store.manifest_path("v"))
    old = {k: v for k, v in m.items() if k != "files"}  # as the old code wrote it: data_bytes only
    store.manifest_path("v").write_text(json.dumps(old))
    assert store.manifest("v")["inputs"] == "k"
    assert store.fresh("v", "k", adopt=True)["files"] == m["files"]  # given its records
    assert read_marker(store.manifest_path("v"))["files"] == m["files"]


@pytest.mark.parametrize("record", [
    {"time": "yesterday", "version": "v", "recall@5": {"bm25/global": 0.9}},
    {"time": 5.0, "version": "v", "recall@5": {"bm25/global": "high"}},
    "a folder named *.json",
], ids=["time-not-a-number", "recall-not-a-number", "folder"])
def test_a_history_record_that_is_not_one_is_skipped_with_a_warning(tmp_path, caplog, record):
    entry = {"retriever": "bm25", "mode": "global", "curve": [{"k": k, "recall": 0.5} for k in range(1, 11)]}
    append_history(tmp_path, "fixed", "fixed-abc", [entry])
    bad = history_dir(tmp_path, "fixed") / "99999999999999999999-1.json"
    if isinstance(record, str):
        bad.mkdir()
    else:
        bad.write_text(json.dumps(record))
    append_history(tmp_path, "fixed", "fixed-abc", [entry])
    records, problems = load_history(tmp_path, "fixed")
    assert len(records) == 2 and [r["recall@5"]["bm25/global"] for r in records] == [0.5, 0.5]
    assert len(problems) == 1 and str(bad) in problems[0]
    assert str(bad) in caplog.text


def test_the_regression_check_survives_a_record_that_is_not_one(tmp_path, caplog):
    """The gate's fallback reads the history: a bad record does not fail it."""
    from finchunk_pipeline.assets.checks import recall_drops

    entry = {"retriever": "bm25", "mode": "global", "curve": [{"k": k, "recall": 0.5} for k in range(1, 11)]}
    append_history(tmp_path, "s", "s-1", [entry])
    (history_dir(tmp_path, "s") / "99999999999999999998-1.json").write_text(
        json.dumps({"time": "yesterday", "version": "v", "recall@5": {"bm25/global": 0.1}}))
    append_history(tmp_path, "s", "s-1", [entry])
    history, _ = load_history(tmp_path, "s")
    assert recall_drops(history[-2]["recall@5"], history[-1]["recall@5"]) == {}


def test_a_damaged_evaluation_is_left_out_of_the_report_with_a_warning(tmp_path, caplog):
    from finchunk_pipeline import ChunkerConfig
    from finchunk_pipeline.builders.evaluation_report import stored_evaluations
    from finchunk_pipeline import Settings
    from finchunk_pipeline import Workspace

    ws = Workspace(Settings(data_root=tmp_path / "data", corpus_dir=DEFAULT_CORPUS))
    configs = [ChunkerConfig("a", "structure"), ChunkerConfig("b", "structure", {"max_chars": 500})]
    for c in configs:
        ws.evaluation_dir(c.version_name).mkdir(parents=True)
    (ws.evaluation_dir(configs[0].version_name) / "evaluation.json").write_text('{"inputs": "k", "entr')
    (ws.evaluation_dir(configs[1].version_name) / "evaluation.json").write_text(
        json.dumps({"inputs": "k", "chunk_set": {"name": "b"}, "entries": [{"name": "b", "retriever": "bm25"}]}))
    stored = stored_evaluations(ws, configs)
    assert stored.missing == ["a"] and [e["name"] for e in stored.entries] == ["b"]
    assert "evaluation.json is not valid JSON" in caplog.text
