"""bench/peers_diagnosis.py reads a run's chunk sets by name, with their stored versions' chunks
and indexes: a set whose declaration here names another version (a peer whose library is not
installed here: its version names the library's version) still competes and is diagnosed."""
from __future__ import annotations

import subprocess
import sys

from finchunk_pipeline import PROJECT_ROOT
from finchunk_pipeline.cli import main

CHUNKERS = """
chunk_sets:
  - name: evidence
    strategy: structure
    params: {max_chars: 300, table_max_chars: 150, link_notes_chars: 0}
    header: true
    context_fields: [title, period, section]
    expand: 800
    dense: false
  - {name: plain-h, strategy: fixed, params: {size: 400, overlap: 100}, header: true, dense: false}
"""


def test_a_stored_set_declared_otherwise_here_is_still_diagnosed(tmp_path, default_corpus_copy, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text(CHUNKERS)
    store = ["--corpus", str(default_corpus_copy), "--data", str(tmp_path / "store"), "--chunkers", str(chunkers)]
    assert main(["run", *store, "--out", str(tmp_path / "out"), "--retrievers", "bm25"]) == 0
    capsys.readouterr()
    # the plain set is now declared with other parameters: its declared version has no run
    chunkers.write_text(CHUNKERS.replace("size: 400, overlap: 100", "size: 450, overlap: 100"))
    cell = [sys.executable, "bench/peers_diagnosis.py", *store, "--retriever", "bm25", "--mode", "global", "--budget",
            "1500"]
    done = subprocess.run(cell, cwd=PROJECT_ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert " vs plain-h " in done.stdout                                 # the stored plain set competes
    done = subprocess.run([*cell, "--fractions"], cwd=PROJECT_ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "| evidence | " in out and "| plain-h | " in out              # both diagnosed, fractions counted
    assert "| chunk set | 0 | (0, 0.25) | [0.25, 0.5) | [0.5, 1] |" in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and ": " in line.split("|")[1]]
    assert rows and all(line.count(" / ") >= 6 for line in rows)         # touch / covered / chars / fraction, twice
