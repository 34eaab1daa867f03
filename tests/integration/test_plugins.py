"""The README's "add a parser / retriever / metric" recipes, kept honest: a toy of each, defined
here, registered, and run through the Dagster graph (documents -> chunks -> indexes ->
evaluation -> report) on a tiny corpus; unregistered afterwards."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from dagster import DagsterInstance, materialize

from finchunk_pipeline.assets.documents import parsed_blocks, raw_documents
from finchunk_pipeline.assets.evaluation import evaluation_report
from finchunk_pipeline.assets.partitions import chunk_set_partitions
from finchunk_pipeline.assets.resources import PipelineResource
from finchunk_pipeline.definitions import PIPELINE_ASSETS, partitioned_assets, resources
from finchunk_pipeline.evaluation import metrics as metric_registry
from finchunk_pipeline.evaluation.metrics import Column, MetricSpec
from finchunk_pipeline.index import registry as retriever_registry
from finchunk_pipeline import RetrieverSpec
from finchunk_pipeline.index.registry import BuiltIndex, IndexSpec
from finchunk_pipeline.parse import markdown
from finchunk_pipeline.parse import registry as parser_registry
from finchunk_pipeline.storage.files import read_json

from tests.conftest import write_corpus

# --- a toy parser: the "toy" format, read like Markdown -------------------------------------------


def parse_toy(doc_id, text, meta):
    return markdown.parse(doc_id, text, meta)


# --- a toy retriever with an index of its own: chunks ranked by shared words ----------------------
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


class ToyRetriever:
    name = "toy"

    def __init__(self, rows: list[list[str]]):
        self.rows = [set(r) for r in rows]

    def search_many(self, queries, k, allowed=None, languages=None):
        out = []
        for i, q in enumerate(queries):
            words = _words(q)
            mask = allowed[i] if allowed is not None and allowed[i] is not None else np.ones(len(self.rows), bool)
            scored = [(r, float(len(words & row))) for r, row in enumerate(self.rows) if mask[r]]
            out.append(sorted(scored, key=lambda rs: (-rs[1], rs[0]))[:k])
        return out


def build_toy(chunks, settings) -> BuiltIndex:
    rows = [sorted(_words(t)) for t in chunks["embedding_text"]]
    return BuiltIndex({"words.json": rows}, {"chunks": len(rows)})


def load_toy(index_dir, request):
    return ToyRetriever(json.loads((index_dir / "toy" / "words.json").read_text()))


# --- a toy metric: did anything come back for the question --------------------------------------

def _score_any(question) -> float:
    return 1.0 if question.delivered else 0.0


def _summarize_any(scored) -> dict:
    ans = scored.answerable()
    return {"toy_hits": sum(v for _, v in ans) / len(ans) if ans else None}


def _columns_any(table, budgets):
    return [Column("toy hits", lambda e: f"{100 * (e.get('toy_hits') or 0):.1f}")] if table == "k" else []


@pytest.fixture
def toys():
    parser_registry.register("toy", "1", parse_toy, formats=("toy",))
    retriever_registry.register(RetrieverSpec(
        name="toy", load=load_toy,
        index=IndexSpec(columns=("chunk_id", "embedding_text"), build=build_toy, required=("words.json",),
                        modules=(__name__,))))
    metric_registry.register(MetricSpec("toy_hits", _score_any, _summarize_any, columns=_columns_any))
    yield
    parser_registry.unregister("toy")
    retriever_registry.unregister("toy")
    metric_registry.unregister("toy_hits")


DOCS = {
    "ar-one": "# Annual report\n\nRevenue grew to 120 million in 2024.\n\n## Risks\n\nCurrency risk is hedged.\n",
    "toy-two": "# Toy filing\n\nThe dividend was raised to 40 pence per share.\n\n## Debt\n\nNet debt fell.\n",
}


def _corpus(folder: Path) -> Path:
    docs = [{"doc_id": "ar-one", "text": DOCS["ar-one"]},
            {"doc_id": "toy-two", "text": DOCS["toy-two"], "format": "toy", "issuer": "Toy plc"}]
    start = DOCS["toy-two"].index("The dividend")
    end = DOCS["toy-two"].index("share.") + len("share.")
    r_start = DOCS["ar-one"].index("Revenue")
    passages = [{"passage_id": "p1", "doc_id": "toy-two", "section": "Toy filing", "kind": "text",
                 "start": start, "end": end},
                {"passage_id": "p2", "doc_id": "ar-one", "section": "Annual report", "kind": "text",
                 "start": r_start, "end": DOCS["ar-one"].index("2024.") + 5}]
    questions = [{"question_id": "q1", "question": "What was the dividend per share?", "question_type": "text",
                  "doc_ids": ["toy-two"], "gold_passages": ["p1"], "answer": "40 pence"},
                 {"question_id": "q2", "question": "How much did revenue grow in 2024?", "question_type": "text",
                  "doc_ids": ["ar-one"], "gold_passages": ["p2"], "answer": "120 million"}]
    return write_corpus(folder, docs, passages, questions)


def test_a_toy_parser_retriever_and_metric_run_through_the_graph(tmp_path, toys):
    assert "toy" in parser_registry.formats()  # the corpus loader accepts the registered parser's format
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text("chunk_sets:\n  - {name: fixed, strategy: fixed, params: {size: 200, overlap: 20}, "
                        "dense: false}\n")
    pipeline = PipelineResource(corpus_dir=str(_corpus(tmp_path / "corpus")), data_root=str(tmp_path / "store"),
                                out_dir=str(tmp_path / "out"), chunkers_file=str(chunkers), retrievers="bm25,toy")
    instance = DagsterInstance.ephemeral()
    assert materialize(PIPELINE_ASSETS, selection=[raw_documents, parsed_blocks], instance=instance,
                       resources=resources(pipeline)).success
    instance.add_dynamic_partitions(chunk_set_partitions.name, ["fixed"])
    assert materialize(PIPELINE_ASSETS, selection=partitioned_assets(), partition_key="fixed", instance=instance,
                       resources=resources(pipeline)).success
    assert materialize(PIPELINE_ASSETS, selection=[evaluation_report], instance=instance,
                       resources=resources(pipeline)).success

    ws = pipeline.workspace()
    manifest = pq.read_table(ws.manifest_path, columns=["doc_id", "parser_key"]).to_pydict()
    keys = dict(zip(manifest["doc_id"], manifest["parser_key"]))
    assert keys["toy-two"] == "toy-1" and keys["ar-one"].startswith("markdown-")
    index_dir = ws.index_dir(pipeline.chunker_config("fixed").version_name)
    assert (index_dir / "toy" / "words.json").exists() and read_json(index_dir / "toy.json")["inputs"]

    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    by_retriever = {(e["retriever"], e["mode"]): e for e in report["chunk_sets"]}
    assert {("bm25", "global"), ("toy", "global"), ("toy", "filtered")} <= set(by_retriever)
    toy = by_retriever[("toy", "filtered")]
    assert toy["toy_hits"] == 1.0 and toy["curve"][4]["recall"] == 1.0  # both gold passages in the top 5
    assert "| toy hits |" in (tmp_path / "out" / "evaluation.md").read_text()


def test_unregistered_toys_are_gone_and_builtins_stay(toys):
    for unregister in (parser_registry.unregister, retriever_registry.unregister):
        unregister("toy")
    metric_registry.unregister("toy_hits")
    assert "toy" not in parser_registry.formats() and "toy" not in retriever_registry.names()
    assert list(metric_registry.metrics()) == ["recall", "budget", "precision", "containment"]
    assert retriever_registry.names() == ("bm25", "dense", "hybrid", "bm25-plain")
    with pytest.raises(ValueError, match="base metric"):
        metric_registry.unregister("recall")


def test_a_builtin_parser_that_fails_to_import_is_named(monkeypatch):
    monkeypatch.setattr(parser_registry, "_PARSERS", {})
    monkeypatch.setattr(parser_registry, "_builtin_loaded", False)
    monkeypatch.setattr(parser_registry, "BUILTIN", (*parser_registry.BUILTIN, "missing_parser"))
    with pytest.raises(ImportError, match=r"finchunk_pipeline\.parse\.missing_parser"):
        parser_registry.parsers()


def test_a_parser_registered_before_any_lookup_leaves_the_built_ins_in_place(monkeypatch):
    """A plug-in's ``register`` may run first (at its import): the built-in parsers still load."""
    monkeypatch.setattr(parser_registry, "_PARSERS", {})
    monkeypatch.setattr(parser_registry, "_builtin_loaded", False)
    parser_registry.register("toy_first", "1", lambda doc_id, text, meta: None, formats=("toyfirst",))
    assert {"markdown", "html", "text", "transcript", "pdf", "toy_first"} <= set(parser_registry.parsers())
