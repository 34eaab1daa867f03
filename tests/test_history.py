"""The recall history: one atomic file per record, torn lines of the earlier append-in-place
layout skipped with a warning, and stale temporary files of crashed writes removed."""
from __future__ import annotations

import json
import os
import time

from finchunk_pipeline.evaluation.history import append_history, history_dir, history_path, load_history
from finchunk_pipeline.storage import clean_stale_temp_files, write_json


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
