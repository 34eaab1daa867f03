"""`finchunk run` skips, naming it, a declared chunk set whose baseline library is not installed
(the whole pipeline on the embedded corpus; the splitters themselves: tests/unit/test_baselines.py)."""
from __future__ import annotations

from finchunk_pipeline import STRATEGIES
from finchunk_pipeline.cli import main


def test_run_skips_baselines_that_are_not_installed(tmp_path, default_corpus_copy, chunkers_file, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dh"))
    monkeypatch.setattr(STRATEGIES["langchain_recursive"], "requires", "no_such_module_here")
    chunkers_file.write_text(chunkers_file.read_text()
                             + "  - {name: lc, strategy: langchain_recursive, dense: false}\n")
    assert main(["run", "--corpus", str(default_corpus_copy), "--out", str(tmp_path / "out"),
                 "--data", str(tmp_path / "s"), "--chunkers", str(chunkers_file), "--retrievers", "bm25"]) == 0
    out = capsys.readouterr().out
    assert "chunk set 'lc' skipped" in out and "baselines" in out
