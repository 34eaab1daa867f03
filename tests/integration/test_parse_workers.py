"""Parsing in several processes (builders/blocks.py): the same report and the same stored
blocks as one process, bad documents reported per document, a dead worker's documents parsed
in this process, and the number of processes decided by the work."""
from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from finchunk_pipeline import RawStore
from finchunk_pipeline.builders import blocks as blocks_build
from finchunk_pipeline.builders.blocks import AUTO_MIN_BYTES, parse_documents, parse_workers
from finchunk_pipeline import BlockStore
from finchunk_pipeline import DEFAULT_CORPUS


def _corpus(root: Path, n: int = 8) -> tuple[pd.DataFrame, RawStore]:
    """The first ``n`` documents of the embedded corpus (text, HTML, transcripts) and three
    bad ones: an empty text, an unknown format, a binary file declared as text."""
    raw = RawStore(root / "raw")
    rows = []
    for r in pq.read_table(DEFAULT_CORPUS / "documents.parquet").to_pylist()[:n]:
        sha, _ = raw.put(r["text"], r["format"])
        rows.append({"doc_id": r["doc_id"], "doc_type": r["doc_type"], "format": r["format"], "sha": sha,
                     "language": r.get("language"), "n_bytes": len(r["text"].encode())})
    for doc_id, data, fmt in [("empty", b"   \n", "text"), ("odd", b"hello", "docx"),
                              ("binary", bytes(range(256)) * 40, "text")]:
        sha, _ = raw.put_bytes(data, fmt)
        rows.append({"doc_id": doc_id, "doc_type": "annual_report", "format": fmt, "sha": sha,
                     "language": None, "n_bytes": len(data)})
    return pd.DataFrame(rows), raw


def _stored(blocks: BlockStore) -> dict[str, bytes]:
    return {str(p.relative_to(blocks.root)): p.read_bytes() for p in sorted(blocks.root.rglob("*.parquet"))}


def test_two_processes_write_what_one_writes(tmp_path):
    docs, raw = _corpus(tmp_path)
    one, two = BlockStore(tmp_path / "one"), BlockStore(tmp_path / "two")
    seen: list[tuple[int, int]] = []
    r1 = parse_documents(docs, raw, one, {"rejected-doc": "binary content"}, workers=1)
    r2 = parse_documents(docs, raw, two, {"rejected-doc": "binary content"},
                         progress=lambda i, n: seen.append((i, n)), workers=2)
    assert (r1.workers, r2.workers) == (1, 2)
    assert r2.rows == r1.rows  # same rows, in the manifest's order
    assert (r2.parsed, r2.reused, r2.failed) == (r1.parsed, r1.reused, r1.failed) == (8, 0, 4)
    assert _stored(two) == _stored(one) and len(_stored(one)) == 8  # the same bytes
    errors = {r["doc_id"]: r["error"] for r in r2.rows if r["error"]}
    assert set(errors) == {"rejected-doc", "empty", "odd", "binary"}
    assert "empty: text document is empty" in errors["empty"] and "docx" in errors["odd"]
    assert errors["binary"].startswith("UnicodeDecodeError")
    assert seen == [(i, len(docs)) for i in range(1, len(docs) + 1)]
    # a second run reuses every stored document, in processes too
    again = parse_documents(docs, raw, two, workers=2)
    assert (again.parsed, again.reused, again.failed) == (0, 8, 3)
    assert again.rows == r1.rows[1:]  # counts and warnings of the stored blocks, unread


class _DyingPool:
    """A process pool whose workers die after ``ok`` documents (as a killed process does)."""

    ok = 2

    def __init__(self, *args, **kwargs):
        self.n = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def submit(self, fn, *args):
        fut: Future = Future()
        self.n += 1
        if self.n <= self.ok:
            fut.set_result(fn(*args))
        else:
            fut.set_exception(BrokenProcessPool("a child process terminated abruptly"))
        return fut


def test_documents_of_a_dead_worker_are_parsed_here(tmp_path, monkeypatch, caplog):
    docs, raw = _corpus(tmp_path, n=5)
    ref = parse_documents(docs, raw, BlockStore(tmp_path / "ref"), workers=1)
    monkeypatch.setattr(blocks_build, "ProcessPoolExecutor", _DyingPool)
    blocks = BlockStore(tmp_path / "blocks")
    with caplog.at_level("WARNING"):
        report = parse_documents(docs, raw, blocks, workers=2)
    assert report.rows == ref.rows and report.parsed == 5 and report.failed == 3
    assert _stored(blocks) == _stored(BlockStore(tmp_path / "ref"))
    assert "parse worker process died" in caplog.text and "documents left in this process" in caplog.text


def test_how_many_processes(tmp_path, monkeypatch):
    docs, _ = _corpus(tmp_path, n=3)
    records = docs.to_dict("records")
    blocks = BlockStore(tmp_path / "blocks")
    monkeypatch.setattr(blocks_build, "usable_cores", lambda: 4)
    assert parse_workers(records, blocks, None) == 1  # a few KB: not worth a process start
    big = [dict(r, n_bytes=AUTO_MIN_BYTES // 2) for r in records]
    assert parse_workers(big, blocks, None) == 4      # 4 MB and more to parse: one per core
    assert parse_workers(big[:1], blocks, None) == 1  # one document: one process
    monkeypatch.setattr(blocks_build, "usable_cores", lambda: 1)
    assert parse_workers(big, blocks, None) == 1
    assert parse_workers(records, blocks, 3) == 3 and parse_workers(records[:2], blocks, 3) == 2
    with pytest.raises(ValueError, match="parse workers"):
        parse_workers(records, blocks, 0)


def test_parse_workers_setting(monkeypatch):
    from finchunk_pipeline.assets.resources import PipelineResource

    monkeypatch.delenv("FINCHUNK_PARSE_WORKERS", raising=False)
    assert PipelineResource().parse_worker_count() is None
    assert PipelineResource(parse_workers="auto").parse_worker_count() is None
    assert PipelineResource(parse_workers="3").parse_worker_count() == 3
    monkeypatch.setenv("FINCHUNK_PARSE_WORKERS", "2")
    assert PipelineResource().parse_worker_count() == 2
    assert PipelineResource(parse_workers="1").parse_worker_count() == 1  # the field wins
    for bad in ("0", "two"):
        with pytest.raises(ValueError, match="FINCHUNK_PARSE_WORKERS"):
            PipelineResource(parse_workers=bad).parse_worker_count()


def test_the_asset_parses_in_the_processes_it_is_given(tmp_path, default_corpus_copy, chunkers_file):
    """Through Dagster: the pipeline resource's parse_workers reaches the parse stage, the
    materialization says how many processes parsed, and the manifest and blocks equal a
    single process's."""
    import json

    from dagster import DagsterInstance, materialize

    from finchunk_pipeline.assets.documents import parsed_blocks, raw_documents
    from finchunk_pipeline.assets.resources import PipelineResource
    from finchunk_pipeline.definitions import PIPELINE_ASSETS, resources

    stored = {}
    for workers in ("1", "2"):
        root = tmp_path / workers
        pipeline = PipelineResource(corpus_dir=str(default_corpus_copy), data_root=str(root / "store"),
                                    out_dir=str(root / "out"), chunkers_file=str(chunkers_file),
                                    parse_workers=workers)
        result = materialize(PIPELINE_ASSETS, selection=[raw_documents, parsed_blocks],
                             instance=DagsterInstance.ephemeral(), resources=resources(pipeline))
        meta = result.asset_materializations_for_node("parsed_blocks")[0].metadata
        assert meta["parse_workers"].value == int(workers) and meta["failed"].value == 0
        assert json.loads((root / "out" / "parse_report.json").read_text())["workers"] == int(workers)
        manifest = pq.read_table(pipeline.workspace().manifest_path).to_pylist()
        stored[workers] = (_stored(BlockStore(root / "store" / "blocks")), manifest)
    assert stored["2"] == stored["1"] and stored["1"][0]


def test_a_container_cpu_limit_caps_the_cores(tmp_path):
    from finchunk_pipeline.parse.corpus_parse import cpu_limit

    v2, q, p = tmp_path / "cpu.max", tmp_path / "quota", tmp_path / "period"
    none = tmp_path / "absent"
    assert cpu_limit(none, none, none) is None                 # no cgroup files: no limit
    v2.write_text("max 100000\n")
    assert cpu_limit(v2, none, none) is None                   # cgroup v2, unlimited
    v2.write_text("150000 100000\n")
    assert cpu_limit(v2, none, none) == 2                      # 1.5 CPUs: two processes
    v2.write_text("50000 100000\n")
    assert cpu_limit(v2, none, none) == 1
    q.write_text("-1\n"), p.write_text("100000\n")
    assert cpu_limit(none, q, p) is None                       # cgroup v1, unlimited
    q.write_text("400000\n")
    assert cpu_limit(none, q, p) == 4
    v2.write_text("garbage\n")
    assert cpu_limit(v2, q, p) is None                         # unreadable: no limit assumed


class _FailingPool(_DyingPool):
    """A pool in which one document's result cannot come back (an error in transit)."""

    def submit(self, fn, *args):
        fut: Future = Future()
        if args[0]["doc_id"] == self.victim:
            fut.set_exception(TypeError("cannot pickle '_thread.lock' object"))
        else:
            fut.set_result(fn(*args))
        return fut


def test_a_result_lost_in_transit_fails_its_document_only(tmp_path, monkeypatch):
    docs, raw = _corpus(tmp_path, n=4)
    victim = docs["doc_id"][1]
    monkeypatch.setattr(_FailingPool, "victim", victim, raising=False)
    monkeypatch.setattr(blocks_build, "ProcessPoolExecutor", _FailingPool)
    report = parse_documents(docs, raw, BlockStore(tmp_path / "blocks"), workers=2)
    rows = {r["doc_id"]: r for r in report.rows}
    assert rows[victim]["error"] == "parse worker failed: TypeError: cannot pickle '_thread.lock' object"
    assert report.parsed == 3 and report.failed == 4  # the other good documents parsed, the 3 bad ones failed


def test_the_command_line_flag_reaches_the_resource():
    import argparse

    from finchunk_pipeline.assets.resources import PipelineResource
    from finchunk_pipeline.cli import run

    parser = argparse.ArgumentParser()
    run.register(parser.add_subparsers())
    for argv, want in ((["run"], ""), (["run", "--parse-workers", "3"], "3"), (["run", "--parse-workers", "0"], "0")):
        config = run._pipeline_config(parser.parse_args(argv))
        assert config["parse_workers"] == want
    with pytest.raises(ValueError, match="FINCHUNK_PARSE_WORKERS"):  # 0 is refused, not read as "auto"
        PipelineResource(**config).parse_worker_count()
