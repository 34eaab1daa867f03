"""The asset graph through Dagster: materialize end to end, no re-parse on rechunk, a changed
parser version re-parses, backfilling a new chunk-set partition, bad documents survive."""
from __future__ import annotations

import dataclasses
import json

import pytest
from dagster import DagsterInstance, materialize

from finchunk_pipeline.assets.documents import parsed_blocks, raw_documents
from finchunk_pipeline.assets.evaluation import evaluation_report
from finchunk_pipeline.assets.partitions import chunk_set_partitions
from finchunk_pipeline.assets.resources import PipelineResource
from finchunk_pipeline.definitions import PIPELINE_ASSETS, partitioned_assets, resources
from finchunk_pipeline.parse import registry

from tests.conftest import write_corpus


@pytest.fixture
def parser_calls(monkeypatch):
    """Count calls to every registered parser."""
    calls: list[str] = []
    for name, spec in registry.parsers().items():
        def counting(doc_id, text, meta, _fn=spec.fn):
            calls.append(doc_id)
            return _fn(doc_id, text, meta)
        monkeypatch.setitem(registry._PARSERS, name, dataclasses.replace(spec, fn=counting))
    return calls


def make_pipeline(tmp_path, corpus, chunkers) -> PipelineResource:
    return PipelineResource(corpus_dir=str(corpus), data_root=str(tmp_path / "store"),
                            out_dir=str(tmp_path / "out"), chunkers_file=str(chunkers), retrievers="bm25")


def run_documents(pipeline, instance):
    return materialize(PIPELINE_ASSETS, selection=[raw_documents, parsed_blocks], instance=instance,
                       resources=resources(pipeline))


def run_chunk_set(pipeline, instance, name):
    known = instance.get_dynamic_partitions(chunk_set_partitions.name)
    if name not in known:
        instance.add_dynamic_partitions(chunk_set_partitions.name, [name])
    return materialize(PIPELINE_ASSETS, selection=partitioned_assets(), partition_key=name,
                       instance=instance, resources=resources(pipeline))


def run_report(pipeline, instance):
    return materialize(PIPELINE_ASSETS, selection=[evaluation_report], instance=instance,
                       resources=resources(pipeline))


def run_all(pipeline, instance):
    run_documents(pipeline, instance)
    for config in pipeline.chunker_configs():
        run_chunk_set(pipeline, instance, config.name)
    return run_report(pipeline, instance)


def test_whole_graph_writes_the_report(tmp_path, default_corpus_copy, chunkers_file):
    pipeline = make_pipeline(tmp_path, default_corpus_copy, chunkers_file)
    result = run_all(pipeline, DagsterInstance.ephemeral())
    assert result.success
    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert report["corpus"] == "corpus" and report["questions"] > 0
    names = {e["name"] for e in report["chunk_sets"]}
    assert names == {"fixed", "recursive", "structure-h"}
    for e in report["chunk_sets"]:
        assert {"name", "strategy", "header", "chunks", "mean_chars", "curve", "by_type", "retriever", "mode"} <= set(e)
        assert [p["k"] for p in e["curve"]] == list(range(1, 51))
        assert [p["chars"] for p in e["budget"]] == [500, 1000, 1500, 2000, 3000, 5000, 8000]
        recalls = [p["recall"] for p in e["curve"]]
        assert recalls == sorted(recalls) and 0 <= recalls[0] and recalls[-1] <= 1
        assert all(v["k"] == 5 for v in e["by_type"].values())
    assert {e["mode"] for e in report["chunk_sets"]} >= {"global", "filtered", "routed"}
    routed = [e for e in report["chunk_sets"] if e["mode"] == "routed"]
    assert routed and all(e["routing"]["questions"] == e["questions"] for e in routed)
    # every question of these annual reports names its issuer; the route keeps its document
    assert all(e["routing"]["accuracy"] == 1.0 and e["routing"]["filter"] > 0 for e in routed)
    structure = next(e for e in report["chunk_sets"] if e["name"] == "structure-h")
    assert structure["header"] is True and structure["strategy"] == "structure"
    md = (tmp_path / "out" / "evaluation.md").read_text()
    assert "| structure-h |" in md
    assert "## Recall (%) at context budgets — routed mode" in md and "**Routing** (analyzer v" in md
    # the summary: best evidence-aware vs best plain splitter with paired intervals, and the
    # recommended policy (structure-h is the only evidence-aware set here)
    fam = report["summary"]["families"]
    assert {(r["retriever"], r["mode"]) for r in fam} == {("bm25", "global"), ("bm25", "filtered"), ("bm25", "routed")}
    assert all(r["evidence"] == "structure-h" and r["plain"] in ("fixed", "recursive") for r in fam)
    assert all(r["ci_low"] <= r["gain"] <= r["ci_high"] for r in fam)
    rec = report["summary"]["recommendations"]
    assert rec and rec[0]["recommended"] == "structure-h" and rec[0]["doc_type"] == "all"
    assert rec[0]["token_safe"] is False   # structure-h has chunks over the model's limit: flagged
    assert md.index("## Summary") < md.index("## Recall (%) at context budgets")
    assert "per_question" not in report["chunk_sets"][0]
    meta = result.asset_materializations_for_node("evaluation_report")[0].metadata
    assert "structure-h" in meta["report"].value
    parse_report = json.loads((tmp_path / "out" / "parse_report.json").read_text())
    assert parse_report["failed"] == 0 and all(d["error"] is None for d in parse_report["documents"])


def test_rematerializing_parses_nothing_and_new_parser_version_reparses(tmp_path, default_corpus_copy,
                                                                      chunkers_file, parser_calls, monkeypatch):
    pipeline = make_pipeline(tmp_path, default_corpus_copy, chunkers_file)
    instance = DagsterInstance.ephemeral()
    run_documents(pipeline, instance)
    n_docs = len(pipeline.corpus().documents)
    assert len(parser_calls) == n_docs
    run_documents(pipeline, instance)
    run_chunk_set(pipeline, instance, "structure-h")
    assert len(parser_calls) == n_docs, "re-materializing unchanged documents must not parse again"

    spec = registry.parsers()["markdown"]
    monkeypatch.setitem(registry._PARSERS, "markdown", dataclasses.replace(spec, version=spec.version + "-next"))
    result = run_documents(pipeline, instance)
    assert len(parser_calls) == 2 * n_docs, "a new parser version parses every document again"
    assert result.asset_materializations_for_node("parsed_blocks")[0].metadata["parsed_now"].value == n_docs
    assert (tmp_path / "store" / "blocks" / f"parser=markdown-{spec.version}-next").is_dir()


def test_backfilling_a_new_chunk_set_builds_it_alone_without_parsing(tmp_path, default_corpus_copy,
                                                                   chunkers_file, parser_calls):
    pipeline = make_pipeline(tmp_path, default_corpus_copy, chunkers_file)
    instance = DagsterInstance.ephemeral()
    run_all(pipeline, instance)
    parsed_before = len(parser_calls)
    chunk_files_before = sorted(p.parent.name for p in (tmp_path / "store").rglob("chunks.parquet"))

    chunkers_file.write_text(chunkers_file.read_text() +
                             "  - {name: fixed-small, strategy: fixed, params: {size: 300, overlap: 0}, dense: false}\n")
    result = run_chunk_set(pipeline, instance, "fixed-small")
    assert result.success
    assert len(parser_calls) == parsed_before, "a new chunk set reads parsed blocks, never the parser"
    chunk_files_after = sorted(p.parent.name for p in (tmp_path / "store").rglob("chunks.parquet"))
    new = set(chunk_files_after) - set(chunk_files_before)
    assert len(new) == 1 and next(iter(new)).startswith("fixed-small-")
    materialized = {e.asset_key.path[-1] for e in result.get_asset_materialization_events()}
    assert {"chunk_sets", "bm25_index", "retrieval_evaluation"} <= materialized
    assert "parsed_blocks" not in materialized
    run_report(pipeline, instance)
    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert "fixed-small" in {e["name"] for e in report["chunk_sets"]}


def test_unchanged_chunk_set_is_reused(tmp_path, default_corpus_copy, chunkers_file):
    pipeline = make_pipeline(tmp_path, default_corpus_copy, chunkers_file)
    instance = DagsterInstance.ephemeral()
    run_documents(pipeline, instance)
    first = run_chunk_set(pipeline, instance, "fixed")
    second = run_chunk_set(pipeline, instance, "fixed")
    built = [r.asset_materializations_for_node("chunk_sets")[0].metadata["built"].value for r in (first, second)]
    assert built == [True, False]
    reused = [r.asset_materializations_for_node("retrieval_evaluation")[0].metadata["reused"].value
              for r in (first, second)]
    assert reused == [False, True]
    # new gold labels are new evaluation inputs: the evaluation runs again
    import pyarrow.parquet as pq

    qfile = default_corpus_copy / "questions.parquet"
    q = pq.read_table(qfile)
    pq.write_table(q.slice(0, q.num_rows - 1), qfile)
    third = run_chunk_set(pipeline, instance, "fixed")
    assert third.asset_materializations_for_node("retrieval_evaluation")[0].metadata["reused"].value is False


def test_bad_documents_are_reported_and_the_rest_runs(tmp_path, chunkers_file):
    good = "# Good plc — Annual report 2024\n\n## Results\n\nRevenue was 10 million.\n"
    corpus = write_corpus(tmp_path / "bad", [
        {"doc_id": "good", "text": good},
        {"doc_id": "empty", "text": ""},
        {"doc_id": "binary", "text": "\x00\x01\x02" * 50},
        {"doc_id": "unknown-type", "text": good, "doc_type": "horoscope"},
        {"doc_id": "broken-html", "text": "<html><body><table><tr><td>1<td>2</table><p>unclosed <b>bold",
         "format": "html", "doc_type": "10-K"},
    ], passages=[{"passage_id": "p", "doc_id": "good", "section": "", "kind": "text", "start": good.index("Revenue"), "end": good.index("Revenue") + len("Revenue was 10 million.")}],
        questions=[{"question_id": "q", "question": "What was Good plc revenue?", "question_type": "text",
                    "doc_ids": ["good"], "gold_passages": ["p"]}])
    pipeline = make_pipeline(tmp_path, corpus, chunkers_file)
    result = run_all(pipeline, DagsterInstance.ephemeral())
    assert result.success
    parse_report = json.loads((tmp_path / "out" / "parse_report.json").read_text())
    errors = {d["doc_id"]: d["error"] for d in parse_report["documents"]}
    assert errors["good"] is None
    assert errors["empty"] == "text is empty"
    assert "binary" in errors["binary"]
    assert "horoscope" in errors["unknown-type"]
    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert report["chunk_sets"] and report["chunk_sets"][0]["curve"][0]["recall"] is not None


def test_unlabelled_corpus_runs_and_says_nothing_to_score(tmp_path, chunkers_file):
    corpus = write_corpus(tmp_path / "u", [{"doc_id": "a", "text": "# A\n\nSome text about revenue.\n"}])
    pipeline = make_pipeline(tmp_path, corpus, chunkers_file)
    assert run_all(pipeline, DagsterInstance.ephemeral()).success
    md = (tmp_path / "out" / "evaluation.md").read_text()
    assert "no labelled questions" in md


def test_xbrl_branch_answers_point_in_time_questions(tmp_path, chunkers_file):
    from finchunk_pipeline.definitions import xbrl_assets
    from finchunk_pipeline import DEFAULT_CORPUS

    pipeline = make_pipeline(tmp_path, DEFAULT_CORPUS, chunkers_file)
    result = materialize(PIPELINE_ASSETS, selection=xbrl_assets(), instance=DagsterInstance.ephemeral(),
                         resources=resources(pipeline))
    assert result.success
    assert (tmp_path / "store" / "facts.duckdb").exists()
    pit = json.loads((pipeline.workspace().root / "point_in_time.json").read_text())
    assert pit["total"] >= 15 and pit["unparsed"] == 0
    assert pit["correct"] == pit["total"], [r for r in pit["rows"] if not r["correct"]][:3]
    meta = result.asset_materializations_for_node("point_in_time_evaluation")[0].metadata
    assert meta["accuracy"].value == 1.0


def test_crlf_and_nul_document_and_a_rejected_one_do_not_take_the_corpus_down(tmp_path, chunkers_file):
    """A CRLF text with stray NULs (as PDF extraction leaves them) goes through every stage with
    exact spans; a rejected document's question is counted, not scored, and blocks nothing."""
    from finchunk_pipeline.assets.checks import gold_passages_coverable  # noqa: F401 (runs with the job)

    crlf = ("ACME CORP\r\n\r\nItem 7. Results\r\n\r\nNet revenues were $6,489 million\x00 in 2019.\r\n"
            "Operating income rose to $1,607 million.\r\n\r\nItem 8. Risks\r\n\r\nCompetition is intense.\r\n")
    gold = "Net revenues were $6,489 million\x00 in 2019."
    corpus = write_corpus(tmp_path / "c", [
        {"doc_id": "crlf", "text": crlf, "format": "text", "doc_type": "10-K"},
        {"doc_id": "bin", "text": "\x00\x01\x02" * 50, "format": "text"},
    ], passages=[
        {"passage_id": "p1", "doc_id": "crlf", "section": "", "kind": "text",
         "start": crlf.index(gold), "end": crlf.index(gold) + len(gold)},
        {"passage_id": "p2", "doc_id": "bin", "section": "", "kind": "text", "start": 0, "end": 10},
    ], questions=[
        {"question_id": "q1", "question": "What were ACME net revenues in 2019?", "question_type": "text",
         "doc_ids": ["crlf"], "gold_passages": ["p1"]},
        {"question_id": "q2", "question": "What is in the binary file?", "question_type": "text",
         "doc_ids": ["bin"], "gold_passages": ["p2"]},
    ])
    pipeline = make_pipeline(tmp_path, corpus, chunkers_file)
    instance = DagsterInstance.ephemeral()
    result = run_all(pipeline, instance)
    assert result.success
    parse_report = json.loads((tmp_path / "out" / "parse_report.json").read_text())
    rows = {d["doc_id"]: d for d in parse_report["documents"]}
    assert rows["crlf"]["error"] is None
    assert any("control characters" in w for w in rows["crlf"]["warnings"])
    assert "binary" in rows["bin"]["error"]
    ws = pipeline.workspace()
    for config in pipeline.chunker_configs():
        chunks = ws.chunks.read(config.version_name)
        for spans, src in zip(chunks["spans"], chunks["source_text"]):
            for s in spans:
                # offsets index documents.text (CRs included); the view reads NUL as a space
                assert crlf[s["start"]:s["end"]].replace("\x00", " ") in src
    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert report["excluded"]["questions_on_rejected_documents"] == 1
    assert report["excluded"]["question_ids"] == ["q2"]
    assert {e["name"] for e in report["chunk_sets"]} == {c.name for c in pipeline.chunker_configs()}
    for e in report["chunk_sets"]:
        assert e["answerable"] == 1 and e["curve"][4]["recall"] == 1.0
    assert "Questions on rejected documents: 1" in (tmp_path / "out" / "evaluation.md").read_text()
