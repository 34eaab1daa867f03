"""Stale temporary files of crashed writes are removed."""
from __future__ import annotations

import os
import time

from finchunk_pipeline.storage import clean_stale_temp_files, write_json


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
