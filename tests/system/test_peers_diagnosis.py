"""bench/peers_diagnosis.py reads a run's chunk sets by name, with their stored versions' chunks
and indexes: a set whose declaration here names another version (a peer whose library is not
installed here: its version names the library's version) still competes and is diagnosed."""
from __future__ import annotations

import subprocess
import sys

from finchunk_pipeline import PROJECT_ROOT
from tests.system.test_search_parents import BUDGET_CHUNKERS, built


def test_a_stored_set_declared_otherwise_here_is_still_diagnosed(tmp_path, default_corpus_copy, monkeypatch, capsys):
    store, _ = built(BUDGET_CHUNKERS, tmp_path, default_corpus_copy, monkeypatch, capsys)   # evidence, plain-h
    # the plain set is now declared with other parameters: its declared version has no run
    (tmp_path / "chunkers.yaml").write_text(BUDGET_CHUNKERS.replace("size: 400, overlap: 100", "size: 450, overlap: 100"))
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
