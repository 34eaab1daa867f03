"""`finchunk run` end to end on a corpus folder of the user's, and its behaviour when one
chunk set fails."""
from __future__ import annotations

import json
import re

from finchunk_pipeline import STRATEGIES
from finchunk_pipeline import Strategy
from finchunk_pipeline.cli import main


class Boom(Strategy):
    name = "boom"
    defaults = {}

    def pieces(self, doc, params, meta, context=None):
        raise RuntimeError("this strategy always fails")


def _args(tmp_path, corpus, chunkers):
    return ["run", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--data", str(tmp_path / "store"),
            "--chunkers", str(chunkers), "--retrievers", "bm25"]


def test_run_on_any_corpus_folder(tmp_path, default_corpus_copy, chunkers_file, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    assert main(_args(tmp_path, default_corpus_copy, chunkers_file)) == 0
    out = capsys.readouterr().out
    assert "evaluation_report ...\n    done in" in out and str(tmp_path / "out" / "evaluation.json") in out
    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert {e["name"] for e in report["chunk_sets"]} == {"fixed", "recursive", "structure-h"}
    assert all(e["dense"] is None for e in report["chunk_sets"])  # no dense index: nothing embedded
    # runs were recorded in the persistent instance, so the UI shows them
    assert (tmp_path / "dagster_home" / "history").is_dir() or (tmp_path / "dagster_home" / "storage").is_dir()


def test_one_failing_chunk_set_does_not_stop_the_others(tmp_path, default_corpus_copy, chunkers_file,
                                                       monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    monkeypatch.setitem(STRATEGIES, "boom", Boom())
    chunkers_file.write_text(chunkers_file.read_text() + "  - {name: broken, strategy: boom, dense: false}\n")
    assert main(_args(tmp_path, default_corpus_copy, chunkers_file)) == 1
    captured = capsys.readouterr()
    assert "chunk set 4/4 broken" in captured.out and "FAILED" in captured.out
    assert "this strategy always fails" in captured.err
    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert {e["name"] for e in report["chunk_sets"]} == {"fixed", "recursive", "structure-h"}


def test_invalid_corpus_is_a_clear_error(tmp_path, chunkers_file, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    (tmp_path / "empty").mkdir()
    assert main(_args(tmp_path, tmp_path / "empty", chunkers_file)) == 1
    assert "documents.parquet: required file missing" in capsys.readouterr().err


def test_run_with_jobs_runs_chunk_sets_as_concurrent_runs(tmp_path, default_corpus_copy, chunkers_file,
                                                         monkeypatch, capsys):
    from dagster import DagsterInstance

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    assert main(_args(tmp_path, default_corpus_copy, chunkers_file) + ["--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "4 runs, 2 at a time" in out and re.search(r"evaluation_report \.\.\.\s+done", out)
    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert {e["name"] for e in report["chunk_sets"]} == {"fixed", "recursive", "structure-h"}
    with DagsterInstance.get() as instance:  # each chunk set its own run in the persistent instance
        runs = instance.get_runs()
        assert sorted(r.tags.get("dagster/partition") for r in runs if r.tags.get("dagster/partition")) == \
            ["fixed", "recursive", "structure-h"]
        assert all(r.is_success for r in runs)
        assert len({r.run_id for r in runs}) == len(runs) == 6  # documents, 3 chunk sets, xbrl, report


def test_pooled_vectors_embed_each_document_once_for_every_chunk_set(tmp_path, default_corpus_copy, monkeypatch):
    """FINCHUNK_DENSE_VECTORS=pooled end to end: units cut from the parse in the block store, the
    second chunk set embeds only its header, the report names how each set's vectors were made."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    monkeypatch.setenv("FINCHUNK_DENSE_VECTORS", "pooled")
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text("chunk_sets:\n"
                        "  - {name: fixed, strategy: fixed, params: {size: 500, overlap: 50}}\n"
                        "  - {name: structure-h, strategy: structure, params: {max_chars: 800}, header: true}\n")
    args = _args(tmp_path, default_corpus_copy, chunkers)
    assert main(args[:-1] + ["bm25,dense,hybrid"]) == 0
    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    dense = [e for e in report["chunk_sets"] if e["retriever"] == "dense"]
    assert {e["name"] for e in dense} == {"fixed", "structure-h"}
    assert all(e["dense"]["vectors"] == "pooled" and e["dense"]["model_id"] for e in report["chunk_sets"])
    markers = {p.parent.name.rsplit("-", 1)[0]: json.loads(p.read_text())
               for p in (tmp_path / "store").glob("corpora/*/indexes/*/dense.json")}
    first, second = markers["fixed"]["embed"], markers["structure-h"]["embed"]
    assert first["embedded"] > 0 and first["cache_hits"] == 0
    # the second set: every unit from the cache; only its headers and over-limit chunks are new
    import pandas as pd

    from finchunk_pipeline.index.pooled_vectors import prefix_of

    chunks = pd.read_parquet(next((tmp_path / "store").glob("corpora/*/chunks/structure-h-*/chunks.parquet")))
    heads = {prefix_of(e, s) for e, s, o in zip(chunks["embedding_text"], chunks["source_text"],
                                                 chunks["over_limit"]) if not o} - {""}
    whole = set(chunks.loc[chunks["over_limit"], "embedding_text"])
    assert heads and second["cache_hits"] >= first["unique"]
    assert 0 < second["embedded"] <= len(heads) + len(whole)
