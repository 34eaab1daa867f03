"""Evaluation reuse is keyed to the code the evaluation runs, not only to a hand-bumped version."""
from __future__ import annotations

import shutil

from dagster import DagsterInstance

import finchunk_pipeline.assets.evaluation as evaluation_asset
from finchunk_pipeline.code_versions import PACKAGE, code_hash
from finchunk_pipeline.evaluation.code import evaluation_source_files

from tests.integration.test_pipeline_dagster import make_pipeline, run_chunk_set, run_documents


def test_sources_are_the_code_an_evaluation_runs():
    names = {f.relative_to(PACKAGE).as_posix() for f in evaluation_source_files()}
    assert {"evaluation/recall.py", "evaluation/budget.py", "evaluation/retrieval.py", "evaluation/precision.py",
            "evaluation/containment.py", "index/hybrid.py", "index/bm25.py", "chunking/expand.py",
            "evaluation/chunk_set.py", "evaluation/retriever_modes.py", "evaluation/expander.py",
            "evaluation/scope.py", "builders/evaluation.py", "index/entries/dense.py"} <= names
    assert not names & {"evaluation/report.py", "evaluation/plots.py", "index/search.py", "assets/evaluation.py",
                        "storage/workspace.py", "storage/files.py", "evaluation/compare.py"}


def test_editing_a_metric_changes_the_code_hash(tmp_path):
    root = tmp_path / "finchunk_pipeline"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    before = code_hash(evaluation_source_files(root), root)
    assert before == code_hash(evaluation_source_files(PACKAGE), PACKAGE)
    recall = root / "evaluation" / "recall.py"
    original = recall.read_text()
    recall.write_text(original + "\n# a comment only\n")
    assert code_hash(evaluation_source_files(root), root) == before  # comments and layout: no change
    recall.write_text(original + "\nEDITED_METRIC = True\n")
    edited = code_hash(evaluation_source_files(root), root)
    assert edited != before
    # report rendering: its module, and the asset module (it only declares and attaches metadata)
    (root / "evaluation" / "report.py").write_text("RENDERING = 'only'\n")
    assets = root / "assets" / "evaluation.py"
    assets.write_text(assets.read_text().replace("def evaluation_report(", "def evaluation_report(  # edited\n"
                                                 ).replace('"report": MetadataValue.md(', '"report_md": MetadataValue.md('))
    assert code_hash(evaluation_source_files(root), root) == edited
    # the parent expansion (evaluation/expander.py, moved out of the asset module)
    expander = root / "evaluation" / "expander.py"
    expander.write_text(expander.read_text().replace("PARENT_SHARE = 3", "PARENT_SHARE = 4"))
    assert code_hash(evaluation_source_files(root), root) != edited


def test_changed_evaluation_code_re_evaluates(tmp_path, default_corpus_copy, chunkers_file, monkeypatch):
    pipeline = make_pipeline(tmp_path, default_corpus_copy, chunkers_file)
    instance = DagsterInstance.ephemeral()
    run_documents(pipeline, instance)

    def reused() -> bool:
        r = run_chunk_set(pipeline, instance, "fixed")
        return r.asset_materializations_for_node("retrieval_evaluation")[0].metadata["reused"].value

    assert reused() is False
    assert reused() is True
    monkeypatch.setattr(evaluation_asset, "EVALUATION_CODE", "an-edited-metric", raising=False)
    assert reused() is False
    assert reused() is True
