"""finchunk search: filters as row masks before ranking (incl. as_of), the three retrievers, the CLI."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from finchunk_pipeline.storage.chunks import CHUNK_SCHEMA
from finchunk_pipeline.models import embed as embed_mod
from finchunk_pipeline.index.entries.bm25 import build_retriever as build_bm25
from finchunk_pipeline.index.entries.dense import build_retriever as build_dense
from finchunk_pipeline.index.entries.dense import dense_files
from finchunk_pipeline.index.registry import index_exists
from finchunk_pipeline.builders.search import search
from finchunk_pipeline.index.search import Filters, as_of_cutoff, row_mask
from finchunk_pipeline.storage.indexes import save_index, write_index_files
from finchunk_pipeline import Settings
from finchunk_pipeline import Workspace

from tests.integration.test_index_dense import fake_embedder

DOCS = [  # doc_id, issuer, ticker, doc_type, fiscal_year, filed_at
    ("ar-north-2023", "Northwind Holdings plc", "NWH", "annual_report", 2023, "2024-03-09T07:00:00Z"),
    ("ar-north-2024", "Northwind Holdings plc", "NWH", "annual_report", 2024, "2025-03-03T07:00:00Z"),
    ("ar-calder-2024", "Calder Industries SE", "CAL", "annual_report", 2024, "2025-03-04T07:00:00Z"),
    ("q-calder-2024q3", "Calder Industries SE", "CAL", "quarterly_report", 2024, "2024-11-05T07:00:00Z"),
]
TEXTS = {
    "ar-north-2023": ["Revenue grew to 1,165.0 million in 2023.", "The Board proposes a dividend of 8.4 cents."],
    "ar-north-2024": ["Revenue grew to 1,240.0 million in 2024.", "Net debt fell to 300 million."],
    "ar-calder-2024": ["Calder revenue reached 2,100 million.", "Calder dividend of 12 cents per share."],
    "q-calder-2024q3": ["Third quarter revenue of 520 million.", "Quarterly dividend unchanged."],
}
VERSION = "demo-0000abcd"


@pytest.fixture()
def ws(tmp_path, monkeypatch):
    settings = Settings(corpus_dir=tmp_path / "corpus", data_root=tmp_path / "data",
                        out_dir=tmp_path / "out", chunkers_file=tmp_path / "missing.yaml")
    w = Workspace(settings)
    rows = []
    for doc_id, texts in TEXTS.items():
        pos = 0
        for i, t in enumerate(texts):
            rows.append({"chunk_id": f"{doc_id}#c{i}", "chunk_set": "demo", "doc_id": doc_id, "kind": "text",
                         "spans": [{"start": pos, "end": pos + len(t)}], "view_spans": [{"start": pos, "end": pos + len(t)}],
                         "section_path": ["Report", f"Section {i}"], "parent_id": None, "source_text": t,
                         "embedding_text": t, "display_text": t, "n_tokens": 10, "over_limit": False, "block_ids": []})
            pos += len(t) + 2
    table = pa.Table.from_pylist(rows, schema=CHUNK_SCHEMA)
    w.chunks.write(VERSION, table, {"inputs": "x", "chunks": len(rows)})
    manifest = pd.DataFrame(DOCS, columns=["doc_id", "issuer", "ticker", "doc_type", "fiscal_year", "filed_at"])
    manifest["filed_at"] = pd.to_datetime(manifest["filed_at"], utc=True)
    w.manifest_path.parent.mkdir(parents=True, exist_ok=True)
    manifest.to_parquet(w.manifest_path)
    chunks = w.chunks.read(VERSION)
    save_index(build_bm25(chunks), w.index_dir(VERSION) / "bm25")
    emb = fake_embedder(tmp_path)
    monkeypatch.setattr(embed_mod, "get_embedder", lambda model_path=None, cache_dir=None, backend=None: emb)
    write_index_files(w.index_dir(VERSION) / "dense", dense_files(build_dense(chunks)[0]))
    return w


def docs_of(hits):
    return {h.doc_id for h in hits}


@pytest.mark.parametrize("retriever", ["bm25", "dense", "hybrid"])
def test_filters_apply_before_ranking(ws, retriever):
    all_hits = search("revenue", VERSION, 8, retriever, None, ws)
    assert len(all_hits) == 8 and len(docs_of(all_hits)) == 4
    hits = search("revenue", VERSION, 3, retriever, Filters(issuer="calder"), ws)
    assert len(hits) == 3 and docs_of(hits) <= {"ar-calder-2024", "q-calder-2024q3"}
    hits = search("revenue", VERSION, 5, retriever, Filters(doc_ids=["ar-north-2024"]), ws)
    assert docs_of(hits) == {"ar-north-2024"} and len(hits) == 2  # exactly the allowed rows, not fewer
    hits = search("dividend", VERSION, 5, retriever, Filters(doc_type="quarterly_report"), ws)
    assert docs_of(hits) == {"q-calder-2024q3"}
    hits = search("dividend", VERSION, 5, retriever, Filters(fiscal_year=2023), ws)
    assert docs_of(hits) == {"ar-north-2023"}
    assert search("x", VERSION, 5, retriever, Filters(issuer="nobody"), ws) == []


def test_as_of_excludes_later_filings(ws):
    # as of 2025-03-03: the 2024 Northwind report (filed that morning) counts; Calder's (03-04) does not
    hits = search("revenue", VERSION, 10, "bm25", Filters(as_of="2025-03-03"), ws)
    assert docs_of(hits) == {"ar-north-2023", "ar-north-2024", "q-calder-2024q3"}
    hits = search("revenue", VERSION, 10, "hybrid", Filters(as_of="2024-12-31", issuer="NWH"), ws)
    assert docs_of(hits) == {"ar-north-2023"}
    hits = search("revenue", VERSION, 10, "bm25", Filters(as_of="2025-03-03T06:59:59+00:00"), ws)
    assert "ar-north-2024" not in docs_of(hits)
    assert search("revenue", VERSION, 10, "dense", Filters(as_of="2020-01-01"), ws) == []


def test_as_of_cutoff_and_missing_dates():
    assert as_of_cutoff("2024-03-09") == pd.Timestamp("2024-03-09T23:59:59.999999Z")
    manifest = pd.DataFrame({"doc_id": ["a", "b"], "issuer": ["X", "X"], "doc_type": ["t", "t"],
                             "fiscal_year": [2024, 2024], "filed_at": [pd.Timestamp("2024-01-01", tz="UTC"), pd.NaT]})
    mask = row_mask(["a", "b", "a"], manifest, Filters(as_of="2030-01-01"))
    np.testing.assert_array_equal(mask, [True, False, True])  # undated documents never pass as_of
    assert row_mask(["a"], manifest, Filters()) is None


def test_hits_carry_provenance(ws):
    h = search("net debt", VERSION, 1, "bm25", None, ws)[0]
    assert (h.chunk_id, h.doc_id, h.section) == ("ar-north-2024#c1", "ar-north-2024", "Report > Section 1")
    assert h.spans and h.display_text.startswith("Net debt") and h.score > 0
    assert set(h.as_dict()) >= {"chunk_id", "doc_id", "spans", "section", "display_text", "score"}


def test_chunk_set_name_and_missing_index(ws):
    assert search("revenue", "demo", 1, "bm25", None, ws)  # name -> its latest built version
    with pytest.raises(ValueError, match="unknown chunk set"):
        search("revenue", "nope", 1, "bm25", None, ws)
    import shutil

    shutil.rmtree(ws.index_dir(VERSION) / "dense")
    assert index_exists("bm25", ws.index_dir(VERSION)) and not index_exists("hybrid", ws.index_dir(VERSION))
    with pytest.raises(ValueError, match="no hybrid index"):
        search("revenue", VERSION, 1, "hybrid", None, ws)


def test_cli_json(ws, capsys):
    from finchunk_pipeline.cli import main

    rc = main(["search", "dividend", "--chunk-set", VERSION, "-k", "2", "--retriever", "hybrid", "--json",
               "--issuer", "Northwind", "--as-of", "2024-12-31",
               "--corpus", str(ws.corpus_dir), "--data", str(ws.settings.data_root)])
    out = capsys.readouterr().out
    assert rc == 0
    hits = json.loads(out)
    assert isinstance(hits, list) and len(hits) == 2 and {h["doc_id"] for h in hits} == {"ar-north-2023"}
    assert hits[0]["rank"] == 1 and "display_text" in hits[0]
    rc = main(["search", "revenue", "--chunk-set", VERSION, "--retriever", "bm25", "--doc-ids", "ar-calder-2024",
               "--corpus", str(ws.corpus_dir), "--data", str(ws.settings.data_root)])
    text = capsys.readouterr().out
    assert rc == 0 and "ar-calder-2024#c0" in text


def test_faiss_index_asset_builds_skips_and_feeds_evaluation(tmp_path, monkeypatch):
    from dagster import DagsterInstance, materialize

    from finchunk_pipeline.assets.partitions import chunk_set_partitions
    from finchunk_pipeline.assets.resources import PipelineResource
    from finchunk_pipeline.definitions import (
        PIPELINE_ASSETS,
        partitioned_assets,
        resources,
    )

    from tests.conftest import write_corpus

    text = "# Good plc — Annual report 2024\n\n## Results\n\nRevenue was 10 million.\n\n## Dividend\n\nNo dividend.\n"
    start = text.index("Revenue")
    corpus = write_corpus(tmp_path / "c", [{"doc_id": "good", "text": text}],
                          passages=[{"passage_id": "p", "doc_id": "good", "section": "", "kind": "text",
                                     "start": start, "end": start + len("Revenue was 10 million.")}],
                          questions=[{"question_id": "q", "question": "What was revenue?", "question_type": "text",
                                      "doc_ids": ["good"], "gold_passages": ["p"]}])
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text("chunk_sets:\n"
                        "  - {name: small, strategy: fixed, params: {size: 60, overlap: 0}}\n"
                        "  - {name: lexical, strategy: fixed, params: {size: 80, overlap: 0}, dense: false}\n")
    emb = fake_embedder(tmp_path)
    monkeypatch.setattr(embed_mod, "get_embedder", lambda model_path=None, cache_dir=None, backend=None: emb)
    pipeline = PipelineResource(corpus_dir=str(corpus), data_root=str(tmp_path / "store"), out_dir=str(tmp_path / "out"),
                                chunkers_file=str(chunkers), retrievers="bm25,dense,hybrid")
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(chunk_set_partitions.name, ["small", "lexical"])
    res = resources(pipeline)
    from finchunk_pipeline.assets.documents import parsed_blocks, raw_documents

    assert materialize(PIPELINE_ASSETS, selection=[raw_documents, parsed_blocks], instance=instance, resources=res).success

    def faiss_meta(result):
        return [e.materialization.metadata for e in result.get_asset_materialization_events()
                if e.asset_key.path[-1] == "faiss_index"][0]

    def evaluated(name):
        ws = pipeline.workspace()
        version = pipeline.chunker_config(name).version_name
        return {e["retriever"] for e in json.loads((ws.evaluation_dir(version) / "evaluation.json").read_text())["entries"]}

    first = materialize(PIPELINE_ASSETS, selection=partitioned_assets(), partition_key="small", instance=instance, resources=res)
    m = faiss_meta(first)
    assert m["built"].value is True and m["embedded_now"].value > 0 and m["dim"].value == 64
    assert evaluated("small") == {"bm25", "dense", "hybrid"}
    calls = emb._model.calls
    again = materialize(PIPELINE_ASSETS, selection=partitioned_assets(), partition_key="small", instance=instance, resources=res)
    assert faiss_meta(again)["built"].value is False and emb._model.calls == calls  # unchanged: no rebuild, no embedding
    lexical = materialize(PIPELINE_ASSETS, selection=partitioned_assets(), partition_key="lexical", instance=instance, resources=res)
    assert faiss_meta(lexical)["skipped"].value is True
    assert evaluated("lexical") == {"bm25"}


def test_cli_says_which_retriever_answered_and_that_the_model_loads(ws, capsys, monkeypatch):
    from finchunk_pipeline.cli import main

    base = ["search", "dividend", "--chunk-set", VERSION, "--corpus", str(ws.corpus_dir),
            "--data", str(ws.settings.data_root)]
    assert main(base) == 0  # default: hybrid, since a dense index exists
    captured = capsys.readouterr()
    assert f"hybrid search of chunk set {VERSION}" in captured.err and "loading the embedding model" in captured.err
    assert "answered by hybrid (dense weight 0.05: the query names no document of the corpus)" in captured.out
    # a query naming an issuer of the catalog (the route the CLI prints): dense weighs as in the evaluation
    named = ["search", "What dividend did Northwind Holdings pay?"] + base[2:]
    assert main(named) == 0
    assert "answered by hybrid (dense weight 0.25: the query names a document of the corpus)" in capsys.readouterr().out
    assert main(named + ["--json"]) == 0
    assert {h["dense_weight"] for h in json.loads(capsys.readouterr().out)} == {0.25}
    assert main(base + ["--retriever", "bm25"]) == 0
    captured = capsys.readouterr()
    assert "bm25 search" in captured.err and "embedding model" not in captured.err
    assert "answered by bm25" in captured.out
    assert main(base + ["--json", "--retriever", "bm25"]) == 0
    assert {h["retriever"] for h in json.loads(capsys.readouterr().out)} == {"bm25"}
    # a chunk set without a dense index: the default falls back to bm25 and says why
    import shutil

    shutil.rmtree(ws.index_dir(VERSION) / "dense")
    assert main(base) == 0
    captured = capsys.readouterr()
    assert "bm25 search" in captured.err and "has none" in captured.err and "answered by bm25" in captured.out
    assert main(base + ["--retriever", "hybrid"]) == 1
    assert "no hybrid index" in capsys.readouterr().err


def test_serve_answers_over_http_with_the_retriever_loaded_once(ws):
    import threading
    import urllib.error
    import urllib.request

    from finchunk_pipeline.cli.serve import make_server
    from finchunk_pipeline.builders.search import open_searcher

    searcher = open_searcher(VERSION, "hybrid", ws)
    loaded = searcher.retriever
    server = make_server(searcher, 0)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        def get(path):
            with urllib.request.urlopen(base + path, timeout=30) as r:
                return json.loads(r.read())

        assert get("/health") == {"ok": True, "chunk_set": VERSION, "retriever": "hybrid"}
        out = get("/search?q=dividend&k=2&issuer=Northwind&as_of=2024-12-31")
        assert out["retriever"] == "hybrid" and len(out["hits"]) == 2
        assert {h["doc_id"] for h in out["hits"]} == {"ar-north-2023"}
        assert get("/search?q=revenue&k=1")["hits"][0]["rank"] == 1
        assert out["fusion"] == {"dense_weight": 0.05, "names_a_document": False}
        assert get("/search?q=Northwind%20Holdings%20dividend&k=1")["fusion"] == {"dense_weight": 0.25,
                                                                                 "names_a_document": True}
        # a context budget: the hits that fill it, each with its cost, the last cut
        filled = get("/search?q=revenue&budget=100")
        assert filled["budget"] == 100 == filled["chars"] == sum(h["chars"] for h in filled["hits"])
        assert filled["hits"][-1]["cut"] is True and not any(h["cut"] for h in filled["hits"][:-1])
        assert [h["chunk_id"] for h in filled["hits"]] == [h.chunk_id for h in searcher.search("revenue", None, budget=100)]
        assert searcher.retriever is loaded  # nothing reloaded per query
        for path, status in (("/search?k=2", 400), ("/search?q=x&k=0", 400), ("/search?q=x&budget=0", 400),
                             ("/search?q=x&budget=lots", 400), ("/search?q=x&k=two", 400), ("/nope", 404)):
            with pytest.raises(urllib.error.HTTPError) as exc:
                get(path)
            assert exc.value.code == status and "error" in json.loads(exc.value.read())
    finally:
        server.shutdown()
        server.server_close()


def test_serve_command_binds_localhost_and_stops_on_sigterm(ws, tmp_path):
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    from finchunk_pipeline import PROJECT_ROOT

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-c", "import sys; from finchunk_pipeline.cli import main; sys.exit(main())", "serve",
           "--chunk-set", VERSION, "--retriever", "bm25", "--port", str(port), "--corpus", str(ws.corpus_dir),
           "--data", str(ws.settings.data_root)]
    env = {**__import__("os").environ, "PYTHONPATH": str(PROJECT_ROOT)}
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline, out = time.monotonic() + 120, None
        while out is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/search?q=net+debt&k=1", timeout=5) as r:
                    out = json.loads(r.read())
            except OSError:
                time.sleep(0.2)
        assert out is not None, proc.stderr.read() if proc.poll() is not None else "no answer"
        assert out["retriever"] == "bm25" and out["hits"][0]["chunk_id"] == "ar-north-2024#c1"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_searcher_builds_the_routing_catalog_once(ws, monkeypatch):
    """Hybrid's per-query weights and the router read one catalog of the manifest, built when
    the searcher opens (the router used to build its own on the first routed query)."""
    from finchunk_pipeline.builders.search import open_searcher
    from finchunk_pipeline.routing import Catalog

    built = []
    real = Catalog.from_frame.__func__
    monkeypatch.setattr(Catalog, "from_frame", classmethod(lambda cls, frame: built.append(1) or real(cls, frame)))
    searcher = open_searcher(VERSION, "hybrid", ws)
    assert len(built) == 1
    hits, route = searcher.search_with_route("Northwind dividend", 2, route=True)
    assert route is not None and hits and len(built) == 1


def test_a_query_with_no_indexed_word_gets_no_bm25_hits(ws, capsys):
    """BM25 ranks by words: when no word of a query is indexed every chunk scores 0, and the
    answer is no hits (a search engine's answer), not the first chunks in index order. Per
    query; with a budget too; dense and hybrid, which rank by meaning as well, still answer."""
    assert search("zebra quantum", VERSION, 3, "bm25", None, ws) == []
    none, some = search(["zebra quantum", "net debt"], VERSION, 3, "bm25", None, ws)
    assert none == [] and some[0].chunk_id == "ar-north-2024#c1"
    assert search("zebra quantum", VERSION, None, "bm25", None, ws, budget=500) == []
    assert len(search("zebra quantum", VERSION, 3, "hybrid", None, ws)) == 3
    assert len(search("zebra quantum", VERSION, 3, "dense", None, ws)) == 3
    from finchunk_pipeline.cli import main

    store = ["--chunk-set", VERSION, "--corpus", str(ws.corpus_dir), "--data", str(ws.settings.data_root)]
    assert main(["search", "zebra quantum", "--retriever", "bm25", "--no-route", *store]) == 0
    assert "no results (no word of the query is in the index: bm25 ranks by words" in capsys.readouterr().out
    assert main(["search", "zebra quantum", "--retriever", "bm25", "--json", *store]) == 0
    assert json.loads(capsys.readouterr().out) == []
