"""LangChain and chonkie splitters as strategies: exact spans, and a clean skip without them."""
from __future__ import annotations

import pandas as pd
import pytest

from finchunk_pipeline.chunking.document import chunk_document
from finchunk_pipeline.chunking.config import ChunkerConfig
from finchunk_pipeline.chunking.model import SPAN_JOINER
from finchunk_pipeline.chunking.registry import STRATEGIES, strategy_version
from finchunk_pipeline.cli import main
from finchunk_pipeline.parse.registry import select_parser
from finchunk_pipeline.settings import DEFAULT_CORPUS

BASELINES = ["langchain_recursive", "chonkie_recursive"]


@pytest.mark.parametrize("strategy", BASELINES)
def test_baseline_spans_are_exact_on_every_document_class(strategy):
    if not STRATEGIES[strategy].available():
        pytest.skip(f"optional extra 'baselines' not installed ({STRATEGIES[strategy].requires})")
    docs = pd.read_parquet(DEFAULT_CORPUS / "documents.parquet").groupby("doc_type").head(1)
    config = ChunkerConfig(name="b", strategy=strategy, params={"size": 300})
    for rec in docs.to_dict("records"):
        doc = select_parser(rec["doc_type"], rec["format"]).fn(rec["doc_id"], rec["text"], rec)
        chunks = chunk_document(config, doc, rec)
        assert len(chunks) > 1
        for c in chunks:
            assert c.source_text == SPAN_JOINER.join(doc.view_text[s:e] for s, e in c.view_spans)
            assert len(c.source_text) <= 300
    assert "+" in strategy_version(strategy)  # the library version names the chunk set too


def test_run_skips_baselines_that_are_not_installed(tmp_path, default_corpus_copy, chunkers_file, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dh"))
    monkeypatch.setattr(STRATEGIES["langchain_recursive"], "requires", "no_such_module_here")
    chunkers_file.write_text(chunkers_file.read_text()
                             + "  - {name: lc, strategy: langchain_recursive, dense: false}\n")
    assert main(["run", "--corpus", str(default_corpus_copy), "--out", str(tmp_path / "out"),
                 "--data", str(tmp_path / "s"), "--chunkers", str(chunkers_file), "--retrievers", "bm25"]) == 0
    out = capsys.readouterr().out
    assert "chunk set 'lc' skipped" in out and "baselines" in out
