"""The recall history: one atomic file per record, torn lines of the earlier append-in-place
layout skipped with a warning, and stale temporary files of crashed writes removed."""
from __future__ import annotations

import json
import os
import time

from finchunk_pipeline.storage.history import append_history, history_dir, history_path, load_history
from finchunk_pipeline.storage.files import clean_stale_temp_files, write_json


def _entry(recall: float) -> dict:
    return {"retriever": "bm25", "mode": "global", "curve": [{"k": k, "recall": recall} for k in range(1, 11)]}


def test_each_record_is_its_own_atomic_file(tmp_path):
    append_history(tmp_path, "fixed", "fixed-abc", [_entry(0.5)])
    append_history(tmp_path, "fixed", "fixed-abc", [_entry(0.6)])
    files = sorted(history_dir(tmp_path, "fixed").iterdir())
    assert len(files) == 2 and all(f.suffix == ".json" for f in files)
    records, problems = load_history(tmp_path, "fixed")
    assert [r["recall@5"]["bm25/global"] for r in records] == [0.5, 0.6] and problems == []
    assert not history_path(tmp_path, "fixed").exists()  # nothing appended in place


def test_torn_line_of_the_old_layout_is_skipped_with_a_warning(tmp_path, caplog):
    legacy = history_path(tmp_path, "fixed")
    legacy.parent.mkdir(parents=True)
    good = {"time": 1.0, "version": "v", "recall@5": {"bm25/global": 0.4}}
    # a crash mid-append tore the second line, and the next record was appended after it
    legacy.write_text(json.dumps(good) + "\n" + '{"time": 2.0, "vers' + json.dumps({**good, "time": 3.0}) + "\n"
                      + json.dumps({**good, "time": 4.0}) + "\n")
    append_history(tmp_path, "fixed", "v", [_entry(0.7)])
    records, problems = load_history(tmp_path, "fixed")
    assert [r["time"] for r in records][:2] == [1.0, 4.0] and records[-1]["recall@5"]["bm25/global"] == 0.7
    assert len(problems) == 1 and f"{legacy}:2" in problems[0]
    assert "torn or invalid record" in caplog.text


def test_stale_temporary_files_are_removed_fresh_ones_kept(tmp_path):
    write_json(tmp_path / "a" / "kept.json", {})
    old = tmp_path / "a" / ".evaluation.json.1a2b3c.tmp"
    fresh = tmp_path / "b" / ".chunks.parquet.4d5e6f.tmp"
    plain = tmp_path / "a" / "notes.tmp"  # not one of ours
    for p in (old, fresh, plain):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("partial")
    hours_ago = time.time() - 2 * 3600
    os.utime(old, (hours_ago, hours_ago))
    os.utime(plain, (hours_ago, hours_ago))
    assert clean_stale_temp_files(tmp_path) == [old]
    assert not old.exists() and fresh.exists() and plain.exists() and (tmp_path / "a" / "kept.json").exists()


def test_regression_gate_compares_on_the_same_corpus_only(tmp_path, default_corpus_copy):
    """A chunk-set name evaluated on corpus A then on corpus B (much lower recall) is not a
    regression; B evaluated again is compared with B."""
    import shutil

    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq
    import yaml
    from dagster import DagsterInstance, materialize

    from finchunk_pipeline.assets.checks import recall_not_regressed
    from finchunk_pipeline.assets.chunks import chunk_sets
    from finchunk_pipeline.assets.documents import parsed_blocks, raw_documents
    from finchunk_pipeline.assets.evaluation import retrieval_evaluation
    from finchunk_pipeline.assets.indexes import bm25_index
    from finchunk_pipeline.assets.partitions import chunk_set_partitions
    from finchunk_pipeline.assets.resources import PipelineResource
    from finchunk_pipeline.corpus import schema

    corpus_a = default_corpus_copy
    corpus_b = tmp_path / "corpus-b"
    shutil.copytree(corpus_a, corpus_b)
    q = pd.read_parquet(corpus_b / "questions.parquet")
    q["question"] = "zebra quokka"  # words in no document: recall collapses on corpus B
    pq.write_table(pa.Table.from_pandas(q[schema.QUESTIONS.names], schema=schema.QUESTIONS, preserve_index=False),
                   corpus_b / "questions.parquet")
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text(yaml.safe_dump({"chunk_sets": [
        {"name": "fixed", "strategy": "fixed", "params": {"size": 500, "overlap": 50}, "dense": False}]}))
    stale = tmp_path / "data" / "raw" / ".x.parquet.0a1b2c.tmp"
    stale.parent.mkdir(parents=True)
    stale.write_text("left by a killed writer")
    two_hours_ago = time.time() - 7200
    os.utime(stale, (two_hours_ago, two_hours_ago))
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(chunk_set_partitions.name, ["fixed"])
    quiet = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}

    def run(corpus):
        pipeline = PipelineResource(corpus_dir=str(corpus), data_root=str(tmp_path / "data"),
                                    out_dir=str(tmp_path / "out"), chunkers_file=str(chunkers), retrievers="bm25")
        docs = materialize([raw_documents, parsed_blocks], instance=instance, resources={"pipeline": pipeline},
                           run_config=quiet)
        r = materialize([chunk_sets, bm25_index, retrieval_evaluation, recall_not_regressed], instance=instance,
                        resources={"pipeline": pipeline}, run_config=quiet, partition_key="fixed")
        assert docs.success and r.success
        (ev,) = r.get_asset_check_evaluations()
        return docs, ev

    docs, a = run(corpus_a)
    assert docs.asset_materializations_for_node("raw_documents")[0].metadata["stale_temp_files_removed"].value == 1
    assert not stale.exists()
    assert a.passed and "baseline" in a.metadata["note"].value
    _, b = run(corpus_b)
    assert b.passed and "baseline" in b.metadata["note"].value, b.metadata  # not compared with corpus A
    assert b.metadata["corpus"].value.startswith("corpus-b-")
    _, b2 = run(corpus_b)
    assert b2.passed and b2.metadata["source"].value == "instance"
    assert b2.metadata["previous"].value == b2.metadata["current"].value
