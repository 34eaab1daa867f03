"""The evaluation of a chunk set without Dagster (builders/evaluation.py over the pure
evaluation/chunk_set.py), and its key: editing anything an evaluation reads changes the key,
so nothing stale is reused."""
from __future__ import annotations

import shutil
from types import SimpleNamespace

import pyarrow.parquet as pq
from dagster import DagsterInstance

from finchunk_pipeline.code_versions import PACKAGE
from finchunk_pipeline import load_chunker_configs
from finchunk_pipeline.chunking.chunk_set import inputs_hash
from finchunk_pipeline.builders.evaluation import (ChunkSetEvaluation, chunk_set_base, evaluate_chunk_set,
                                               evaluation_key, score_chunk_set, stored_inputs)
from finchunk_pipeline.evaluation.chunk_set import EvaluationOptions
from finchunk_pipeline.evaluation.code import evaluation_code
from finchunk_pipeline import Settings
from finchunk_pipeline.storage.files import read_json
from finchunk_pipeline import Workspace

from tests.integration.test_pipeline_dagster import make_pipeline, run_chunk_set, run_documents


class _Log:
    def __init__(self):
        self.lines: list[str] = []

    def info(self, msg: str) -> None:
        self.lines.append(msg)

    warning = info


def _job(tmp_path, chunkers_file, corpus=None, **options) -> ChunkSetEvaluation:
    settings = Settings.from_env({}).override(data_root=tmp_path / "store", corpus_dir=tmp_path / "corpus",
                                              chunkers_file=chunkers_file)
    config = next(c for c in load_chunker_configs(chunkers_file) if c.name == "fixed")
    opts = {"retrievers": ("bm25",), "model": None, "budgets": (500, 1500), **options}
    return ChunkSetEvaluation(Workspace(settings), corpus or SimpleNamespace(path=tmp_path / "corpus"), config,
                              EvaluationOptions(**opts))


def test_the_key_names_what_the_evaluation_reads(tmp_path, chunkers_file):
    (tmp_path / "corpus").mkdir()
    job = _job(tmp_path, chunkers_file)
    manifest = {"inputs": "chunks-1"}
    key = evaluation_key(job, manifest, None)
    assert key == evaluation_key(_job(tmp_path, chunkers_file), dict(manifest), None)  # deterministic
    assert evaluation_key(job, {"inputs": "chunks-2"}, None) != key                    # the chunk set
    assert evaluation_key(job, manifest, None, code="edited") != key                   # the evaluation code
    assert evaluation_key(job, manifest, {"inputs": "enriched"}) != key                # an enrichment
    assert evaluation_key(_job(tmp_path, chunkers_file, budgets=(500,)), manifest, None) != key
    assert evaluation_key(_job(tmp_path, chunkers_file, retrievers=("bm25", "dense")), manifest, None) != key
    assert evaluation_key(_job(tmp_path, chunkers_file, model="/models/m"), manifest, None) != key
    (tmp_path / "corpus" / "questions.parquet").write_bytes(b"questions")                 # the questions
    with_questions = evaluation_key(job, manifest, None)
    assert with_questions != key
    marker = job.index_dir / "bm25.json"                                                   # an index rebuilt
    marker.parent.mkdir(parents=True)
    marker.write_text('{"inputs": "bm25-1"}')
    assert evaluation_key(job, manifest, None) != with_questions


def test_a_title_change_reaches_the_evaluation_key_through_the_chunks_key(tmp_path, chunkers_file):
    (tmp_path / "corpus").mkdir()
    job = _job(tmp_path, chunkers_file)
    parsed = __import__("pandas").DataFrame({"doc_id": ["a"], "sha": ["s"], "parser_key": ["markdown-1"],
                                             "title": ["Annual report 2023"]})
    renamed = parsed.assign(title=["Annual report 2024"])
    before = inputs_hash(job.config.chunker, parsed, None)
    after = inputs_hash(job.config.chunker, renamed, None)
    assert before != after
    assert evaluation_key(job, {"inputs": before}, None) != evaluation_key(job, {"inputs": after}, None)


def test_editing_an_evaluation_module_changes_the_code_version(tmp_path):
    root = tmp_path / "finchunk_pipeline"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    before = evaluation_code(root)
    assert before == evaluation_code(PACKAGE)
    for module in ("evaluation/chunk_set.py", "evaluation/retriever_modes.py"):
        path = root / module
        original = path.read_text()
        path.write_text(original + "\n# a comment\n")
        assert evaluation_code(root) == before          # comments: no change
        path.write_text(original + "\nEDITED = 1\n")
        assert evaluation_code(root) != before, module  # code: a new version
        path.write_text(original)


def test_evaluation_core_without_dagster(tmp_path, default_corpus_copy, chunkers_file):
    # the stored inputs (parsed blocks, the chunk set, its BM25 index) are built by the graph once
    pipeline = make_pipeline(tmp_path, default_corpus_copy, chunkers_file)
    instance = DagsterInstance.ephemeral()
    run_documents(pipeline, instance)
    assert run_chunk_set(pipeline, instance, "fixed").success
    config = pipeline.chunker_config("fixed")
    job = ChunkSetEvaluation(pipeline.workspace(), pipeline.corpus(), config,
                             EvaluationOptions(tuple(pipeline.retriever_names()), pipeline.model(),
                                               tuple(pipeline.budget_list())))
    stored = read_json(job.path)

    # the same inputs: the stored evaluation is reused, as the asset stored it
    log = _Log()
    outcome = evaluate_chunk_set(job, log=log)
    assert outcome.built is False and outcome.info == stored
    assert any("evaluation reused" in line for line in log.lines)

    # scored again from scratch, plain functions only: the same payload
    manifest, enrichment = stored_inputs(job)
    payload = score_chunk_set(job, chunk_set_base(job, manifest, enrichment), enrichment, _Log())
    assert {**payload, "inputs": stored["inputs"]} == stored
    assert {e["retriever"] for e in payload["entries"]} == {"bm25"}
    assert {e["mode"] for e in payload["entries"]} == {"global", "filtered", "routed"}

    # the evaluation code changed: evaluated again, written, added to the history
    history = job.ws.evaluations_root / "history"
    runs_before = sum(1 for _ in history.rglob("*.json*"))
    outcome = evaluate_chunk_set(job, log=_Log(), code="an-edited-metric")
    assert outcome.built is True and outcome.info["inputs"] != stored["inputs"]
    assert {k: v for k, v in outcome.info.items() if k != "inputs"} == {k: v for k, v in stored.items()
                                                                        if k != "inputs"}
    assert read_json(job.path) == outcome.info
    assert sum(1 for _ in history.rglob("*.json*")) > runs_before
    assert pq.read_table(job.ws.manifest_path).num_rows > 0


def test_the_evaluation_code_is_what_it_imports_wherever_it_lives(tmp_path):
    # found by following imports, not by folder: the chunk table's spans reader (types/) counts,
    # a comparison script's module under evaluation/ that no evaluation imports does not
    root = tmp_path / "finchunk_pipeline"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    before = evaluation_code(root)
    compare = root / "evaluation" / "compare.py"
    compare.write_text(compare.read_text() + "\nEDITED = 1\n")
    assert evaluation_code(root) == before
    types = root / "types" / "chunks.py"
    types.write_text(types.read_text().replace('int(s["start"])', 'int(s["start"]) + 0'))
    assert evaluation_code(root) != before
