"""Enrichment and answers through Dagster: an enricher is a new chunk-set version that a run of
the partition builds from the stored chunks (no parser, no strategy call); the LLM enricher and
the answers asset end to end against stub endpoints on 127.0.0.1 (rate limiting, slow, failing)."""
from __future__ import annotations

import dataclasses
import json

import pytest
from dagster import DagsterInstance, materialize

from finchunk_pipeline.assets.answers import answers
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline.definitions import PIPELINE_ASSETS, resources
from finchunk_pipeline.parse import registry

from tests.conftest import write_corpus
from tests.llm_stub import Reply, StubLLM, env_for, ok
from tests.integration.test_pipeline_dagster import make_pipeline, run_chunk_set, run_documents, run_report

TEMPLATE = """# {issuer} — Annual report 2024

## Highlights

The table below sets out the key figures. All amounts are in € million.

| € million | 2024 | 2023 |
|---|---|---|
| Revenue | {revenue} | 1,061.7 |
| Operating profit | {profit} | 71.1 |

## Operations

We opened {sites} new sites during the year.

## Notes to the financial statements

### Note 4 — Operating profit

Operating profit includes a one-off gain of €59.1 million on the disposal of its {division} division.
"""
DOCS = {"acme": dict(issuer="Acme plc", revenue="1,165.0", profit="165.8", sites=18, division="printing"),
        "boreal": dict(issuer="Borealis SE", revenue="2,010.0", profit="201.4", sites=7, division="packaging")}
QUESTIONS = [  # (id, question, type, doc, gold text, answer)
    ("q1", "How many new sites did Acme open in 2024?", "text", "acme", "We opened 18 new sites during the year.",
     "18 new sites"),
    ("q2", "What was Borealis SE revenue in 2024?", "table", "boreal", "| Revenue | 2,010.0 | 1,061.7 |", "2,010.0"),
    ("q3", "What division did Acme dispose of?", "text", "acme",
     "Operating profit includes a one-off gain of €59.1 million on the disposal of its printing division.",
     "printing division"),
    ("q4", "How many new sites did Borealis open?", "text", "boreal", "We opened 7 new sites during the year.",
     "7 new sites"),
]
CHUNKERS = "chunk_sets:\n  - {name: structure-h, strategy: structure, params: {max_chars: 200}, header: true, dense: false%s}\n"


@pytest.fixture
def corpus(tmp_path):
    docs, passages = [], []
    texts = {d: TEMPLATE.format(**v) for d, v in DOCS.items()}
    for d, v in DOCS.items():
        docs.append({"doc_id": d, "text": texts[d], "title": f"{v['issuer']} — Annual report 2024",
                     "issuer": v["issuer"], "fiscal_year": 2024})
    questions = []
    for qid, q, t, d, gold, answer in QUESTIONS:
        start = texts[d].index(gold)
        passages.append({"passage_id": f"p-{qid}", "doc_id": d, "section": "", "kind": "text",
                         "start": start, "end": start + len(gold)})
        questions.append({"question_id": qid, "question": q, "question_type": t, "doc_ids": [d],
                          "gold_passages": [f"p-{qid}"], "answer": answer})
    return write_corpus(tmp_path / "corpus", docs, passages, questions)


@pytest.fixture
def calls(monkeypatch):
    """Parser calls and strategy pieces() calls."""
    seen = {"parse": 0, "pieces": 0}
    for name, spec in registry.parsers().items():
        def parse(doc_id, text, meta, _fn=spec.fn):
            seen["parse"] += 1
            return _fn(doc_id, text, meta)
        monkeypatch.setitem(registry._PARSERS, name, dataclasses.replace(spec, fn=parse))
    for strategy in STRATEGIES.values():
        def pieces(doc, params, meta, context=None, _fn=strategy.pieces):
            seen["pieces"] += 1
            return _fn(doc, params, meta, context=context)
        monkeypatch.setattr(strategy, "pieces", pieces)
    return seen


def meta_of(result, node):
    return {k: getattr(v, "value", v) for k, v in result.asset_materializations_for_node(node)[0].metadata.items()}


def failures(result) -> str:
    out = []
    for event in result.all_events:
        if event.is_step_failure:
            err = event.step_failure_data.error
            out.append((err.cause or err).message)
    return "\n".join(out)


def test_an_enricher_is_a_new_version_built_from_the_stored_chunks(tmp_path, corpus, calls):
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text(CHUNKERS % "")
    pipeline = make_pipeline(tmp_path, corpus, chunkers)
    instance = DagsterInstance.ephemeral()
    run_documents(pipeline, instance)
    plain = pipeline.chunker_config("structure-h")
    assert run_chunk_set(pipeline, instance, "structure-h").success
    parsed, chunked = calls["parse"], calls["pieces"]
    assert parsed == 2 and chunked == 2
    ws = pipeline.workspace()
    chunk_file = ws.chunks.path(plain.chunks_version_name)
    before = chunk_file.read_bytes()

    # the same chunk set, now with an enricher: a new version, backfilled from the stored chunks
    chunkers.write_text(CHUNKERS % ", enrich: {enricher: structural}")
    enriched = pipeline.chunker_config("structure-h")
    assert enriched.version_name != plain.version_name and enriched.chunks_version_name == plain.chunks_version_name
    result = run_chunk_set(pipeline, instance, "structure-h")
    assert result.success, failures(result)
    assert (calls["parse"], calls["pieces"]) == (parsed, chunked), "no re-parse, no re-chunk"
    assert meta_of(result, "chunk_sets")["built"] is False
    em = meta_of(result, "chunk_enrichment")
    n = em["chunks"]
    assert em["built"] is True and em["enriched_now"] == n and em["enricher"] == "structural"
    assert chunk_file.read_bytes() == before, "enrichment never rewrites the chunks"
    stored = pipeline.workspace().root / "enrichments" / enriched.version_name / "enrichment.parquet"
    import pandas as pd

    table = pd.read_parquet(stored)
    chunks = ws.chunks.read(plain.chunks_version_name)
    assert table["chunk_id"].tolist() == chunks["chunk_id"].tolist()
    assert [list(map(dict, s)) for s in table["spans"]] == [list(map(dict, s)) for s in chunks["spans"]]
    assert set(table["enricher_version"]) == {enriched.enrich.version_id}
    assert all(t.startswith("Document: ") for t in table["enrichment_text"])

    evaluation = json.loads((ws.evaluation_dir(enriched.version_name) / "evaluation.json").read_text())
    reps = {(e["representation"], e["delivery"], e["scope"]) for e in evaluation["enrichment"]["entries"]}
    assert {("source", "evidence", "all"), ("enrichment", "evidence", "all"), ("fused", "evidence", "all"),
            ("concat", "evidence", "all"), ("fused", "evidence+enrichment", "all")} <= reps
    assert any(k.startswith("enriched R@1500ch bm25/fused") for k in meta_of(result, "retrieval_evaluation"))

    # the enricher again under another name (same chunking): its chunks are copied from the stored
    # set, its enrichments come from the cache (keyed by enricher version + chunk hash)
    chunkers.write_text(CHUNKERS % ", enrich: {enricher: structural}"
                        + "  - {name: twin, strategy: structure, params: {max_chars: 200}, header: true, dense: false,"
                          " enrich: {enricher: structural}}\n")
    result = run_chunk_set(pipeline, instance, "twin")
    assert result.success, failures(result)
    assert (calls["parse"], calls["pieces"]) == (parsed, chunked)
    assert meta_of(result, "chunk_sets")["derived_from"] == plain.chunks_version_name
    em = meta_of(result, "chunk_enrichment")
    assert em["enriched_now"] == 0 and em["cache_hits"] == n
    assert run_report(pipeline, instance).success
    md = (tmp_path / "out" / "evaluation.md").read_text()
    assert "## Enrichment: recall (%) at 1,500 characters with and without" in md
    assert "### Short ambiguous chunks" in md and "| twin | structural | bm25 | global |" in md


def _llm_corpus_run(tmp_path, corpus, monkeypatch, stub, **extra):
    for k, v in env_for(stub, **extra).items():
        monkeypatch.setenv(k, v)
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text(CHUNKERS % ", enrich: {enricher: llm, max_tokens: 40}")
    pipeline = make_pipeline(tmp_path, corpus, chunkers)
    return pipeline


def test_llm_enricher_end_to_end_through_rate_limiting_and_a_slow_answer(tmp_path, corpus, monkeypatch):
    def behaviour(n, req):
        if n == 1:
            return Reply(status=429, headers={"Retry-After": "1"})
        if n == 2:
            return Reply(delay=2.0)  # longer than the timeout: the retry gets the answer
        passage = req["messages"][1]["content"].split("<passage>\n", 1)[1].split("\n</passage>")[0]
        return Reply(content=f'"Context: stub context of {len(passage)} chars"', prompt_tokens=100,
                     completion_tokens=9)

    with StubLLM(behaviour) as stub:
        pipeline = _llm_corpus_run(tmp_path, corpus, monkeypatch, stub, timeout="0.5")
        instance = DagsterInstance.ephemeral()
        run_documents(pipeline, instance)
        result = run_chunk_set(pipeline, instance, "structure-h")
        assert result.success, failures(result)
        em = meta_of(result, "chunk_enrichment")
        n = em["chunks"]
        assert em["enricher"] == "llm" and "stub-model" in em["enricher_version"]
        assert em["rate_limited"] == 1 and em["timeouts"] == 1 and em["retries"] == 2
        assert em["requests"] == n + 2 and len(stub.requests) == n + 2
        assert em["completion_tokens"] == 9 * n and em["prompt_tokens"] == 100 * n
        assert em["cost_usd"] == "not priced"
        config = pipeline.chunker_config("structure-h")
        texts = __import__("pandas").read_parquet(
            pipeline.workspace().root / "enrichments" / config.version_name / "enrichment.parquet")["enrichment_text"]
        assert all(t.startswith("stub context of ") for t in texts), "quotes and 'Context:' are dropped"
        sent = stub.requests[-1]["body"]
        assert sent["model"] == "stub-model" and sent["max_tokens"] == 40
        assert "Acme plc" in sent["messages"][1]["content"] or "Borealis SE" in sent["messages"][1]["content"]

        # unchanged: nothing is asked again
        again = run_chunk_set(pipeline, instance, "structure-h")
        assert again.success and len(stub.requests) == n + 2
        assert meta_of(again, "chunk_enrichment")["built"] is False


def test_failing_llm_endpoint_fails_the_run_clearly_and_a_rerun_asks_only_for_the_rest(tmp_path, corpus, monkeypatch):
    def passage(req) -> str:
        return req["messages"][1]["content"].split("<passage>\n", 1)[1].split("\n</passage>")[0]

    def failing(n, req):
        return Reply(status=500) if "new sites" in passage(req) else ok("ctx")

    with StubLLM(failing) as stub:
        pipeline = _llm_corpus_run(tmp_path, corpus, monkeypatch, stub, max_retries="1")
        instance = DagsterInstance.ephemeral()
        run_documents(pipeline, instance)
        from finchunk_pipeline.assets.partitions import chunk_set_partitions
        from finchunk_pipeline.definitions import partitioned_assets

        instance.add_dynamic_partitions(chunk_set_partitions.name, ["structure-h"])
        result = materialize(PIPELINE_ASSETS, selection=partitioned_assets(), partition_key="structure-h",
                             instance=instance, resources=resources(pipeline), raise_on_error=False)
        assert not result.success
        bad = {passage(r["body"]) for r in stub.requests if "new sites" in passage(r["body"])}
        assert len(bad) == 2, "one failing chunk per document"
        assert sum(1 for r in stub.requests if passage(r["body"]) in bad) == 4, "each tried twice (max_retries=1)"
        message = failures(result)
        assert "chunk set structure-h: llm enricher" in message and "could not enrich 2 of 6 chunks" in message
        assert "4 enriched now are cached" in message
        assert "HTTP 500" in message and stub.base_url in message
        assert "bm25_index" not in [e.step_key for e in result.all_events if e.is_successful_output]

    with StubLLM(lambda n, req: ok("ctx")) as healthy:  # the endpoint recovered (another port: same version)
        for k, v in env_for(healthy).items():
            monkeypatch.setenv(k, v)
        result = run_chunk_set(pipeline, instance, "structure-h")
        assert result.success, failures(result)
        assert sorted(passage(r["body"]) for r in healthy.requests) == sorted(bad), \
            "only the chunks that failed are asked again"
        em = meta_of(result, "chunk_enrichment")
        assert em["enriched_now"] == 2 and em["cache_hits"] == 4 and em["chunks"] == 6


def test_llm_enricher_without_an_endpoint_says_what_to_set(tmp_path, corpus, monkeypatch):
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text(CHUNKERS % ", enrich: {enricher: llm, model: some-model}")
    pipeline = make_pipeline(tmp_path, corpus, chunkers)
    instance = DagsterInstance.ephemeral()
    run_documents(pipeline, instance)
    from finchunk_pipeline.assets.partitions import chunk_set_partitions
    from finchunk_pipeline.definitions import partitioned_assets

    instance.add_dynamic_partitions(chunk_set_partitions.name, ["structure-h"])
    result = materialize(PIPELINE_ASSETS, selection=partitioned_assets(), partition_key="structure-h",
                         instance=instance, resources=resources(pipeline), raise_on_error=False)
    assert not result.success
    assert "chunk set 'structure-h' (enrich: llm) needs an OpenAI-compatible chat endpoint: set " \
           "FINCHUNK_LLM_BASE_URL" in failures(result)


def test_answers_side_by_side_without_and_with_an_answering_endpoint(tmp_path, corpus, monkeypatch):
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text(CHUNKERS % "" + "  - {name: plain, strategy: fixed, params: {size: 300, overlap: 0}, "
                                        "dense: false}\n"
                        "  - {name: enriched, strategy: structure, params: {max_chars: 200}, dense: false, "
                        "enrich: {enricher: structural}}\n"
                        "  - {name: parents, strategy: structure, params: {max_chars: 60, table_max_chars: 40}, expand: 5000, "
                        "dense: false}\n")
    pipeline = make_pipeline(tmp_path, corpus, chunkers)
    instance = DagsterInstance.ephemeral()
    run_documents(pipeline, instance)
    for name in ("structure-h", "plain", "enriched", "parents"):
        assert run_chunk_set(pipeline, instance, name).success
    ws = pipeline.workspace()

    # no endpoint: contexts, gold recall and containment; nothing fails
    result = materialize(PIPELINE_ASSETS, selection=[answers], instance=instance, resources=resources(pipeline))
    assert result.success
    data = json.loads((ws.root / "answers" / "answers.json").read_text())
    assert data["endpoint"] is None and data["sample"] == 4
    cols = [(c["chunk_set"], c["representation"]) for c in data["columns"]]
    assert cols == [("structure-h", "source"), ("plain", "source"), ("enriched", "source"), ("enriched", "fused"),
                    ("parents", "source")]
    # a small-to-big set answers with what the evaluation delivers at this budget: each unit's
    # bounded parent (the revenue row with its neighbouring row, where the units alone send the
    # row and then the next unit), and the same gold recall
    q2 = next(q for q in data["questions"] if q["question_id"] == "q2")["cells"][4]["context"]
    assert "| Revenue | 2,010.0 | 1,061.7 |\n| Operating profit | 201.4 | 71.1 |" in q2
    stored = json.loads((ws.evaluation_dir(pipeline.chunker_config("parents").version_name)
                         / "evaluation.json").read_text())["entries"]
    entry = next(e for e in stored if e["retriever"] == "bm25" and e["mode"] == "global")
    evaluated = dict(zip(entry["per_question"]["ids"], entry["per_question"]["recall"]["1500"]))
    assert {q["question_id"]: q["cells"][4]["recall"] for q in data["questions"]} == \
        {q["question_id"]: evaluated[q["question_id"]] for q in data["questions"]}
    for q in data["questions"]:
        assert len(q["cells"]) == 5
        for cell in q["cells"]:
            assert 0 < cell["chars"] <= 1500 and "answer" not in cell
    assert run_report(pipeline, instance).success
    md = (tmp_path / "out" / "evaluation.md").read_text()
    assert "## Answers side by side (4 questions, bm25, 1,500 characters of context each)" in md
    assert "No answering endpoint configured" in md

    # an endpoint that answers from the context (a stub reader), rate limiting once
    references = {q[1]: q[5] for q in QUESTIONS}

    def reader(n, req):
        if n == 1:
            return Reply(status=429, headers={"Retry-After": "1"})
        user = req["messages"][1]["content"]
        context, question = user.split("\n\nQuestion: ")
        ref = references[question]
        return ok(f"The answer is {ref}." if ref.split()[0] in context else "not in context")

    with StubLLM(reader) as stub:
        for k, v in env_for(stub, prefix="FINCHUNK_ANSWER").items():
            monkeypatch.setenv(k, v)
        result = materialize(PIPELINE_ASSETS, selection=[answers], instance=instance, resources=resources(pipeline),
                             run_config={"ops": {"answers": {"config": {"sample": 3}}}})
        assert result.success, failures(result)
        data = json.loads((ws.root / "answers" / "answers.json").read_text())
        assert data["endpoint"]["model"] == "stub-model" and data["sample"] == 3
        assert data["usage"]["rate_limited"] == 1
        for q in data["questions"]:
            for cell in q["cells"]:
                assert cell["correct"] == (cell["answer"] != "not in context")
        meta = meta_of(result, "answers")
        assert meta["endpoint"] == "stub-model" and meta["completion_tokens"] > 0
        assert "answered correctly" in meta["answers"]
        asked = len(stub.requests)
        # the same contexts again: answers come from the cache
        assert materialize(PIPELINE_ASSETS, selection=[answers], instance=instance, resources=resources(pipeline),
                           run_config={"ops": {"answers": {"config": {"sample": 3}}}}).success
        assert len(stub.requests) == asked
    assert run_report(pipeline, instance).success
    md = (tmp_path / "out" / "evaluation.md").read_text()
    assert "Answers by `stub-model`" in md and "| answer | correct |" in md


def test_finchunk_run_with_answers_writes_both_sections(tmp_path, corpus, monkeypatch, capsys):
    from finchunk_pipeline.cli import main

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text(CHUNKERS % ", enrich: {enricher: structural}")
    assert main(["run", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--data", str(tmp_path / "store"),
                 "--chunkers", str(chunkers), "--retrievers", "bm25", "--answers", "2"]) == 0
    assert "answers: 2 questions side by side ...\n    done in" in capsys.readouterr().out
    md = (tmp_path / "out" / "evaluation.md").read_text()
    assert "## Enrichment: recall (%)" in md and "## Answers side by side (2 questions" in md
    assert (tmp_path / "out" / "answers.md").read_text().startswith("# Answers — corpus `corpus`")


def test_second_machine_reuses_the_enrichment_from_a_remote_data_root(tmp_path, corpus):
    import uuid

    from finchunk_pipeline.assets.resources import PipelineResource

    url = f"memory://finchunk-{uuid.uuid4().hex}"
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text(CHUNKERS % ", enrich: {enricher: structural}")

    def machine(name: str) -> PipelineResource:
        return PipelineResource(corpus_dir=str(corpus), data_root=str(tmp_path / name / "data"),
                                out_dir=str(tmp_path / name / "out"), chunkers_file=str(chunkers),
                                retrievers="bm25", data_url=url)

    instance = DagsterInstance.ephemeral()
    first = machine("first")
    run_documents(first, instance)
    assert meta_of(run_chunk_set(first, instance, "structure-h"), "chunk_enrichment")["built"] is True
    second = machine("second")  # an empty working copy
    run_documents(second, instance)
    again = run_chunk_set(second, instance, "structure-h")
    assert again.success, failures(again)
    assert meta_of(again, "chunk_enrichment")["built"] is False
    assert meta_of(again, "bm25_index")["representations"]["built"] is False
    assert meta_of(again, "retrieval_evaluation")["reused"] is True
